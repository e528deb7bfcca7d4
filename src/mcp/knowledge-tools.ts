import { z } from 'zod';
import { HedgehopError } from '../core/errors.js';
import { KNOWLEDGE_EDGE_KINDS, type KnowledgeNode } from '../core/model/knowledge.js';
import type { ToolContext } from './tool-context.js';
import { jsonResult } from './tool-result.js';

/** A node without its ids' noise, as a model reads it. */
function nodeView(node: KnowledgeNode) {
  return {
    id: node.id,
    title: node.title,
    type: node.type,
    ...(node.content ? { content: node.content } : {}),
    ...(node.keywords.length > 0 ? { keywords: node.keywords } : {}),
    observations: node.observations,
    ...(node.sourceRef ? { sourceRef: node.sourceRef } : {}),
  };
}

async function graphIdOf(ctx: ToolContext, graph: string | undefined): Promise<string | undefined> {
  if (graph === undefined) return undefined;
  const graphs = await ctx.db.knowledge.list();
  const found = graphs.find((g) => g.id === graph) ?? graphs.find((g) => g.label === graph);
  if (!found)
    throw new HedgehopError(
      'NOT_FOUND',
      `no knowledge graph with id or label '${graph}' (see knowledge_graphs)`,
    );
  return found.id;
}

const graphArg = z.string().optional().describe('A graph label or id (default: every graph).');

function registerQueries(ctx: ToolContext): void {
  const { server } = ctx;
  server.registerTool(
    'knowledge_graphs',
    {
      title: 'List knowledge graphs',
      description:
        'Lists the knowledge graphs of this memory (shared by all agents) with their node and edge counts.',
      annotations: { readOnlyHint: true },
    },
    () =>
      ctx.run(async () => {
        const graphs = await ctx.db.knowledge.list();
        return jsonResult(graphs, { graphs });
      }),
  );
  server.registerTool(
    'knowledge_search',
    {
      title: 'Search knowledge',
      description: 'Finds knowledge-graph nodes for a free-text query, best first.',
      inputSchema: {
        query: z.string().describe('What to look for.'),
        graph: graphArg,
        limit: z.number().int().min(1).max(500).optional().describe('At most this many (default 20).'),
      },
      annotations: { readOnlyHint: true },
    },
    ({ query, graph, limit }) =>
      ctx.run(async () => {
        const graphId = await graphIdOf(ctx, graph);
        const hits = await ctx.db.knowledge.search(query, {
          ...(graphId ? { graphId } : {}),
          limit: limit ?? 20,
        });
        const nodes = hits.map((hit) => nodeView(hit.node));
        return jsonResult(nodes, { nodes });
      }),
  );
  server.registerTool(
    'knowledge_query',
    {
      title: 'Query knowledge nodes',
      description:
        'Lists the nodes meeting every condition given: graph, a keyword (case-insensitive substring), an exact type, exact titles.',
      inputSchema: {
        graph: graphArg,
        keyword: z.string().optional(),
        type: z.string().optional(),
        titles: z.array(z.string()).optional(),
        limit: z.number().int().min(1).max(1000).optional().describe('At most this many (default 100).'),
      },
      annotations: { readOnlyHint: true },
    },
    ({ graph, keyword, type, titles, limit }) =>
      ctx.run(async () => {
        const graphId = await graphIdOf(ctx, graph);
        const found = await ctx.db.knowledge.queryNodes({
          ...(graphId ? { graphId } : {}),
          ...(keyword === undefined ? {} : { keyword }),
          ...(type === undefined ? {} : { type }),
          ...(titles === undefined ? {} : { titles }),
          limit: limit ?? 100,
        });
        const nodes = found.map(nodeView);
        return jsonResult(nodes, { nodes });
      }),
  );
  server.registerTool(
    'knowledge_subgraph',
    {
      title: 'Explore around nodes',
      description:
        'Returns the neighbourhood of some nodes: the nodes reachable within `depth` hops (nearest first, with their distance) and the edges between them. Name the start nodes by id, or by title together with `graph`.',
      inputSchema: {
        nodeIds: z.array(z.string()).optional().describe('Start node ids.'),
        titles: z.array(z.string()).optional().describe('Start node titles (needs graph).'),
        graph: z.string().optional().describe('The graph label or id the titles belong to.'),
        depth: z
          .number()
          .int()
          .max(10_000)
          .optional()
          .describe('Hops (default 1; 0 or less: as far as the edges go, at most 10000 hops).'),
        edgeKinds: z
          .array(z.enum(KNOWLEDGE_EDGE_KINDS))
          .optional()
          .describe('Follow only these kinds of edge.'),
        direction: z.enum(['any', 'forward', 'backward']).optional(),
      },
      annotations: { readOnlyHint: true },
    },
    (args) =>
      ctx.run(async () => {
        const starts = [...(args.nodeIds ?? [])];
        if (args.titles && args.titles.length > 0) {
          if (args.graph === undefined)
            throw new HedgehopError('INVALID_INPUT', 'graph: required with titles', { field: 'graph' });
          const graphId = await graphIdOf(ctx, args.graph);
          const found = await ctx.db.knowledge.queryNodes({
            ...(graphId ? { graphId } : {}),
            titles: args.titles,
          });
          const missing = args.titles.filter((t) => !found.some((n) => n.title === t));
          if (missing.length > 0)
            throw new HedgehopError('NOT_FOUND', `no node titled ${missing.join(', ')} in ${args.graph}`);
          starts.push(...found.map((n) => n.id));
        }
        const subgraph = await ctx.db.knowledge.querySubgraph(starts, {
          ...(args.depth === undefined ? {} : { depth: args.depth }),
          ...(args.edgeKinds === undefined ? {} : { edgeKinds: args.edgeKinds }),
          ...(args.direction === undefined ? {} : { direction: args.direction }),
        });
        const titles = new Map(subgraph.nodes.map((n) => [n.id, n.title]));
        const view = {
          nodes: subgraph.nodes.map((n) => ({ ...nodeView(n), distance: subgraph.distances[n.id] ?? 0 })),
          edges: subgraph.edges.map((e) => ({
            kind: e.kind,
            label: e.label,
            directed: e.directed,
            members: e.members.map((m) => titles.get(m) ?? m),
          })),
        };
        return jsonResult(view, view);
      }),
  );
}

/** Knowledge-graph queries: list graphs, search, query, subgraph. */
export function registerKnowledgeTools(ctx: ToolContext): void {
  registerQueries(ctx);
}
