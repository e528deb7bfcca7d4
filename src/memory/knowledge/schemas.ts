import { z } from 'zod';
import { KNOWLEDGE_EDGE_KINDS, type KnowledgeImportProgress } from './types.js';

/** Limits of knowledge input; documented in docs/file-format.md. */
export const KNOWLEDGE_LIMITS = {
  labelChars: 256,
  titleChars: 4096,
  typeChars: 256,
  contentChars: 1_000_000,
  keywordChars: 256,
  keywords: 256,
  observationChars: 100_000,
  observations: 10_000,
  sourceChars: 4096,
  edgeLabelChars: 256,
  edgeMembers: 1000,
  batchItems: 5_000_000,
  queryChars: 2048,
  depth: 10_000,
} as const;

const L = KNOWLEDGE_LIMITS;

const notBlank = (text: string): boolean => text.trim().length > 0;

/** A graph label: trimmed, not empty. */
export const labelSchema = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(L.labelChars, `at most ${L.labelChars} characters`);

/** A node title: kept exactly as given (it is an MCP entity name), but not blank. */
export const titleSchema = z
  .string()
  .max(L.titleChars, `at most ${L.titleChars} characters`)
  .refine(notBlank, 'must not be empty or blank');

/** An opaque id as returned by hedgehop. */
export const idSchema = z.string().min(1, 'must not be empty').max(64, 'is not a knowledge id');

export const edgeKindSchema = z.enum(KNOWLEDGE_EDGE_KINDS, {
  error: (issue) =>
    `unknown edge kind ${JSON.stringify(issue.input)}; expected one of ${KNOWLEDGE_EDGE_KINDS.join(', ')}`,
});

export const sourceRefSchema = z
  .strictObject({
    source: z.string().min(1, 'must not be empty').max(L.sourceChars, `at most ${L.sourceChars} characters`),
    start: z.number().int().min(0).optional(),
    end: z.number().int().min(0).optional(),
    unit: z.enum(['line', 'char', 'byte', 'page']).optional(),
  })
  .refine((ref) => ref.start === undefined || ref.end === undefined || ref.end >= ref.start, {
    message: 'end must not be before start',
    path: ['end'],
  });

const observationsSchema = z
  .array(z.string().max(L.observationChars, `at most ${L.observationChars} characters`))
  .max(L.observations, `at most ${L.observations} observations`);

export const nodeInputSchema = z.strictObject({
  title: titleSchema,
  type: z.string().max(L.typeChars, `at most ${L.typeChars} characters`).optional(),
  content: z.string().max(L.contentChars, `at most ${L.contentChars} characters`).optional(),
  keywords: z
    .array(
      z
        .string()
        .trim()
        .min(1, 'must not be empty')
        .max(L.keywordChars, `at most ${L.keywordChars} characters`),
    )
    .max(L.keywords, `at most ${L.keywords} keywords`)
    .optional(),
  observations: observationsSchema.optional(),
  sourceRef: sourceRefSchema.optional(),
});

export const edgeInputSchema = z
  .strictObject({
    kind: edgeKindSchema,
    label: z.string().max(L.edgeLabelChars, `at most ${L.edgeLabelChars} characters`).optional(),
    directed: z.boolean().optional(),
    members: z
      .array(titleSchema)
      .min(2, 'an edge needs at least two members')
      .max(L.edgeMembers, `at most ${L.edgeMembers} members`),
  })
  .superRefine((edge, context) => {
    if (edge.directed === true) return;
    const seen = new Set<string>();
    edge.members.forEach((title, index) => {
      if (seen.has(title)) {
        context.addIssue({
          code: 'custom',
          path: ['members', index],
          message: `'${title}' appears twice; an undirected edge joins distinct nodes`,
        });
      }
      seen.add(title);
    });
  });

export const batchSchema = z
  .strictObject({
    graph: labelSchema,
    nodes: z.array(nodeInputSchema).max(L.batchItems).optional(),
    edges: z.array(edgeInputSchema).max(L.batchItems).optional(),
  })
  .superRefine((batch, context) => {
    if ((batch.nodes?.length ?? 0) + (batch.edges?.length ?? 0) === 0) {
      context.addIssue({ code: 'custom', message: 'the batch has no nodes and no edges' });
    }
    const seen = new Set<string>();
    batch.nodes?.forEach((node, index) => {
      if (seen.has(node.title)) {
        context.addIssue({
          code: 'custom',
          path: ['nodes', index, 'title'],
          message: `'${node.title}' appears twice in the batch`,
        });
      }
      seen.add(node.title);
    });
  });

export const importOptionsSchema = z.strictObject({
  mode: z
    .enum(['skip', 'merge', 'overwrite'], {
      error: (issue) => `unknown mode ${JSON.stringify(issue.input)}; expected skip, merge or overwrite`,
    })
    .default('merge'),
  chunkSize: z.number().int().min(1).max(1_000_000).default(5000),
  onProgress: z
    .custom<(progress: KnowledgeImportProgress) => void>((value) => typeof value === 'function', {
      message: 'must be a function',
    })
    .optional(),
});

const idListSchema = z.array(idSchema).max(L.batchItems);

export const nodeQuerySchema = z.strictObject({
  graphId: idSchema.optional(),
  keyword: z.string().min(1, 'must not be empty').max(L.queryChars).optional(),
  type: z.string().max(L.typeChars).optional(),
  ids: idListSchema.optional(),
  titles: z.array(z.string().max(L.titleChars)).max(L.batchItems).optional(),
  limit: z.number().int().min(1).optional(),
});

export const subgraphStartSchema = z.array(idSchema).min(1, 'give at least one start node').max(100_000);

export const subgraphOptionsSchema = z.strictObject({
  depth: z.number().int().min(0).max(L.depth).default(1),
  edgeKinds: z
    .array(edgeKindSchema)
    .min(1, 'list at least one kind, or leave edgeKinds out to follow every kind')
    .optional(),
  direction: z.enum(['any', 'forward', 'backward']).default('any'),
});

export const updateSchema = z.strictObject({ label: labelSchema });

export const searchQuerySchema = z.string().max(L.queryChars, `at most ${L.queryChars} characters`);

export const searchOptionsSchema = z.strictObject({
  graphId: idSchema.optional(),
  limit: z.number().int().min(1).max(10_000).optional(),
});

export const observationEditsSchema = z
  .array(z.strictObject({ nodeId: idSchema, observations: observationsSchema }))
  .max(L.batchItems);

export const idsSchema = idListSchema;
