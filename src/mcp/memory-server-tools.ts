import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { MemoryServerGraph } from '../api/memory-server-graph.js';
import type { SkippedRelation } from '../core/model/knowledge.js';
import type { ToolContext } from './tool-context.js';

/*
 * Drop-in for the MCP reference memory server (@modelcontextprotocol/server-memory): the same
 * nine tool names, argument shapes and result shapes (JSON text content plus structured
 * content), over one knowledge graph of this file (default label `memory`). What differs is
 * underneath: every write is one transaction (no lost updates between processes, nothing
 * half-written by a crash) and search_nodes ranks its results.
 */

const entitySchema = z.object({
  name: z.string().describe('The name of the entity (unique in the graph)'),
  entityType: z.string().describe('The type of the entity, e.g. person, project, service'),
  observations: z.array(z.string()).describe('Facts about the entity, one per string'),
});

const relationSchema = z.object({
  from: z.string().describe('The name of the entity the relation starts at'),
  to: z.string().describe('The name of the entity the relation ends at'),
  relationType: z.string().describe('The relation, in active voice, e.g. works_at'),
});

const graphOutput = { entities: z.array(entitySchema), relations: z.array(relationSchema) };
const doneOutput = { success: z.boolean(), message: z.string() };

/** The result shape the reference server gives: the JSON as text, and as structured content. */
function structured(text: unknown, content: Record<string, unknown>): CallToolResult {
  return {
    content: [{ type: 'text', text: typeof text === 'string' ? text : JSON.stringify(text, null, 2) }],
    structuredContent: content,
  };
}

function skippedNote(skipped: readonly SkippedRelation[]): string {
  const lines = skipped.map(
    (r) =>
      `'${r.from}' -> '${r.to}' (${r.relationType}): no entity ${r.missingEntities.map((n) => `'${n}'`).join(', ')}`,
  );
  return `Not stored, create the missing entities with create_entities first:\n${lines.join('\n')}`;
}

function done(message: string, details: Record<string, unknown>): CallToolResult {
  return structured(message, { success: true, message, ...details });
}

function registerWrites(ctx: ToolContext, graph: () => MemoryServerGraph): void {
  const { server } = ctx;
  server.registerTool(
    'create_entities',
    {
      title: 'Create Entities',
      description:
        'Create new entities in the knowledge graph; an entity whose name already exists is left as it is.',
      inputSchema: { entities: z.array(entitySchema) },
      outputSchema: { entities: z.array(entitySchema) },
    },
    ({ entities }) =>
      ctx.run(async () => {
        const created = await graph().createEntities(entities);
        return structured(created, { entities: created });
      }),
  );
  server.registerTool(
    'create_relations',
    {
      title: 'Create Relations',
      description:
        'Create new relations between existing entities. Relations should be in active voice; existing ones are skipped, and those naming an entity that does not exist are not stored but listed in `skipped`.',
      inputSchema: { relations: z.array(relationSchema) },
      outputSchema: {
        relations: z.array(relationSchema),
        skipped: z.array(relationSchema.extend({ missingEntities: z.array(z.string()) })).optional(),
      },
    },
    ({ relations }) =>
      ctx.run(async () => {
        const result = await graph().createRelations(relations);
        const answer = structured(result.relations, { ...result });
        if (result.skipped.length === 0) return answer;
        // The first text stays the reference server's JSON array; the second says what was not stored.
        return {
          ...answer,
          content: [...answer.content, { type: 'text', text: skippedNote(result.skipped) }],
        };
      }),
  );
  server.registerTool(
    'add_observations',
    {
      title: 'Add Observations',
      description:
        'Add observations to existing entities; observations an entity already has are not repeated.',
      inputSchema: {
        observations: z.array(
          z.object({
            entityName: z.string().describe('The entity to add the observations to'),
            contents: z.array(z.string()).describe('The observations to add'),
          }),
        ),
      },
      outputSchema: {
        results: z.array(z.object({ entityName: z.string(), addedObservations: z.array(z.string()) })),
      },
    },
    ({ observations }) =>
      ctx.run(async () => {
        const results = await graph().addObservations(observations);
        return structured(results, { results });
      }),
  );
  server.registerTool(
    'delete_entities',
    {
      title: 'Delete Entities',
      description: 'Delete entities and every relation touching them.',
      inputSchema: { entityNames: z.array(z.string()).describe('The names of the entities to delete') },
      outputSchema: {
        ...doneOutput,
        deleted: z.array(z.string()).optional(),
        notFound: z.array(z.string()).optional(),
      },
    },
    ({ entityNames }) =>
      ctx.run(async () => done('Entities deleted successfully', await graph().deleteEntities(entityNames))),
  );
  server.registerTool(
    'delete_observations',
    {
      title: 'Delete Observations',
      description: 'Delete specific observations from entities.',
      inputSchema: {
        deletions: z.array(
          z.object({
            entityName: z.string().describe('The entity holding the observations'),
            observations: z.array(z.string()).describe('The observations to delete'),
          }),
        ),
      },
      outputSchema: {
        ...doneOutput,
        deletedCount: z.number().optional(),
        missingEntities: z.array(z.string()).optional(),
      },
    },
    ({ deletions }) =>
      ctx.run(async () =>
        done('Observations deleted successfully', await graph().deleteObservations(deletions)),
      ),
  );
  server.registerTool(
    'delete_relations',
    {
      title: 'Delete Relations',
      description: 'Delete relations from the knowledge graph.',
      inputSchema: { relations: z.array(relationSchema).describe('The relations to delete') },
      outputSchema: { ...doneOutput, deletedCount: z.number().optional() },
    },
    ({ relations }) =>
      ctx.run(async () => done('Relations deleted successfully', await graph().deleteRelations(relations))),
  );
}

function registerReads(ctx: ToolContext, graph: () => MemoryServerGraph): void {
  const { server } = ctx;
  server.registerTool(
    'read_graph',
    {
      title: 'Read Graph',
      description: 'Read the whole knowledge graph: every entity and relation.',
      inputSchema: {},
      outputSchema: graphOutput,
      annotations: { readOnlyHint: true },
    },
    () =>
      ctx.run(async () => {
        const snapshot = await graph().readGraph();
        return structured(snapshot, { ...snapshot });
      }),
  );
  server.registerTool(
    'search_nodes',
    {
      title: 'Search Nodes',
      description:
        'Search the entities for a query (matched against names, types and observations; best matches first) and return them with the relations touching them.',
      inputSchema: {
        query: z.string().describe('What to search for in entity names, types and observations'),
      },
      outputSchema: graphOutput,
      annotations: { readOnlyHint: true },
    },
    ({ query }) =>
      ctx.run(async () => {
        const snapshot = await graph().searchNodes(query);
        return structured(snapshot, { ...snapshot });
      }),
  );
  server.registerTool(
    'open_nodes',
    {
      title: 'Open Nodes',
      description: 'Return the named entities and the relations touching them.',
      inputSchema: { names: z.array(z.string()).describe('The names of the entities to return') },
      outputSchema: graphOutput,
      annotations: { readOnlyHint: true },
    },
    ({ names }) =>
      ctx.run(async () => {
        const snapshot = await graph().openNodes(names);
        return structured(snapshot, { ...snapshot });
      }),
  );
}

/** The nine tools of the MCP reference memory server, over `ctx.graph`. */
export function registerMemoryServerTools(ctx: ToolContext): void {
  let memory: MemoryServerGraph | undefined;
  const graph = (): MemoryServerGraph => (memory ??= ctx.db.knowledge.memoryServer({ graph: ctx.graph }));
  if (ctx.writable) registerWrites(ctx, graph);
  registerReads(ctx, graph);
}
