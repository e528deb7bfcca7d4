import { z } from 'zod';
import { HedgehopError, invalidInput } from '../errors.js';
import {
  edgeKindSchema,
  KNOWLEDGE_EDGE_KINDS,
  KNOWLEDGE_LIMITS,
  labelSchema,
  nodeInputSchema,
  titleSchema,
  type KnowledgeBatch,
  type KnowledgeEdgeInput,
  type KnowledgeEdgeKind,
  type KnowledgeNodeInput,
} from './knowledge.js';

/**
 * MemHop's `ImportL3` item: a node of the graph labelled `domain`, with relations to other
 * titles of that graph (each `related` entry joins this item and its `titles`). Both MemHop's
 * JSON names (`node_type`, `source_ref`) and hedgehop's (`type`, `sourceRef`) are accepted; an
 * edge kind is a word or MemHop's number (0 related, 1 causal, 2 part_of, 3 sequence,
 * 4 dependency, 5 custom).
 */
const relatedSchema = z.strictObject({
  titles: z.array(titleSchema).min(1, 'name at least one other title').max(KNOWLEDGE_LIMITS.edgeMembers),
  kind: z
    .union([
      z
        .number()
        .int()
        .min(0, 'an edge kind number is 0..5')
        .max(KNOWLEDGE_EDGE_KINDS.length - 1, 'an edge kind number is 0..5')
        .transform((n) => KNOWLEDGE_EDGE_KINDS[n] as KnowledgeEdgeKind),
      edgeKindSchema,
    ])
    .default('related'),
  label: z.string().max(KNOWLEDGE_LIMITS.edgeLabelChars).optional(),
});

const sourceRefInput = z.union([
  z
    .string()
    .max(KNOWLEDGE_LIMITS.sourceChars)
    .transform((source) => (source === '' ? undefined : { source })),
  nodeInputSchema.shape.sourceRef,
]);

export const knowledgeItemSchema = z
  .strictObject({
    title: titleSchema,
    domain: labelSchema,
    type: nodeInputSchema.shape.type,
    node_type: nodeInputSchema.shape.type,
    content: nodeInputSchema.shape.content,
    keywords: nodeInputSchema.shape.keywords,
    observations: nodeInputSchema.shape.observations,
    sourceRef: sourceRefInput.optional(),
    source_ref: sourceRefInput.optional(),
    related: z.array(relatedSchema).max(KNOWLEDGE_LIMITS.edgeMembers).optional(),
  })
  .superRefine((item, context) => {
    item.related?.forEach((relation, r) => {
      const seen = new Set<string>([item.title]);
      relation.titles.forEach((title, t) => {
        if (!seen.has(title)) {
          seen.add(title);
          return;
        }
        context.addIssue({
          code: 'custom',
          path: ['related', r, 'titles', t],
          message:
            title === item.title
              ? 'names the item itself (an edge joins the item and the titles listed)'
              : `'${title}' is listed twice`,
        });
      });
    });
  });

export const knowledgeItemsSchema = z
  .array(knowledgeItemSchema)
  .min(1, 'give at least one item')
  .max(KNOWLEDGE_LIMITS.batchItems);

/** One MemHop `ImportL3` item, as {@link KnowledgeStore.import} takes it. */
export type KnowledgeItem = z.input<typeof knowledgeItemSchema>;

/** A batch made from items, with where each of its edges came from (for error messages). */
export interface ItemBatch {
  readonly batch: KnowledgeBatch;
  /** `items.3.related.0` for each edge of the batch, in order. */
  readonly edgeSources: readonly string[];
  /** `items.3` for each node of the batch, in order. */
  readonly nodeSources: readonly string[];
}

/**
 * Groups items into one batch per domain (first appearance order): each item a node, each
 * `related` entry an edge. Two items with one title in one domain are refused.
 */
export function itemsToBatches(items: z.output<typeof knowledgeItemsSchema>): ItemBatch[] {
  const byDomain = new Map<
    string,
    {
      nodes: KnowledgeNodeInput[];
      edges: KnowledgeEdgeInput[];
      edgeSources: string[];
      nodeSources: string[];
      titles: Map<string, number>;
    }
  >();
  items.forEach((item, index) => {
    let group = byDomain.get(item.domain);
    if (!group) {
      group = { nodes: [], edges: [], edgeSources: [], nodeSources: [], titles: new Map() };
      byDomain.set(item.domain, group);
    }
    const earlier = group.titles.get(item.title);
    if (earlier !== undefined)
      throw invalidInput(
        `items.${index}.title`,
        `'${item.title}' is also item ${earlier} of domain '${item.domain}'; give each title once per domain`,
      );
    group.titles.set(item.title, index);
    const type = item.type ?? item.node_type;
    const sourceRef = item.sourceRef ?? item.source_ref;
    group.nodes.push({
      title: item.title,
      ...(type === undefined ? {} : { type }),
      ...(item.content === undefined ? {} : { content: item.content }),
      ...(item.keywords === undefined ? {} : { keywords: item.keywords }),
      ...(item.observations === undefined ? {} : { observations: item.observations }),
      ...(sourceRef === undefined ? {} : { sourceRef }),
    });
    group.nodeSources.push(`items.${index}`);
    item.related?.forEach((relation, r) => {
      group.edges.push({
        kind: relation.kind,
        ...(relation.label === undefined ? {} : { label: relation.label }),
        members: [item.title, ...relation.titles],
      });
      group.edgeSources.push(`items.${index}.related.${r}`);
    });
  });
  return [...byDomain].map(([graph, group]) => ({
    batch: { graph, nodes: group.nodes, edges: group.edges },
    edgeSources: group.edgeSources,
    nodeSources: group.nodeSources,
  }));
}

/**
 * Renames a batch-level `INVALID_INPUT` (`batch.edges.2.members.1`) to the item it came from
 * (`items.5.related.0.titles.0`); other errors pass through.
 */
export function toItemError(error: unknown, source: ItemBatch): unknown {
  if (!HedgehopError.isInstance(error) || error.code !== 'INVALID_INPUT' || !error.field) return error;
  const edge = /^batch\.edges\.(\d+)\.members\.(\d+)/u.exec(error.field);
  if (edge) {
    const origin = source.edgeSources[Number(edge[1])];
    const member = Number(edge[2]);
    if (origin === undefined) return error;
    const field = member === 0 ? `${origin}` : `${origin}.titles.${member - 1}`;
    const message = error.message.slice(error.field.length + 2);
    return invalidInput(field, `${message} (a related title must be a node of the same domain)`);
  }
  const node = /^batch\.nodes\.(\d+)(.*)$/u.exec(error.field);
  const origin = node ? source.nodeSources[Number(node[1])] : undefined;
  if (node && origin !== undefined)
    return invalidInput(`${origin}${node[2] ?? ''}`, error.message.slice(error.field.length + 2));
  return error;
}
