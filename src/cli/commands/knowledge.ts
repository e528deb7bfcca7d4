import type { Command } from 'commander';
import type { MemoryDB } from '../../api/memory-db.js';
import { echo } from '../../core/echo.js';
import { HedgehopError } from '../../core/errors.js';
import type {
  KnowledgeBatch,
  KnowledgeEdgeKind,
  KnowledgeGraphInfo,
  KnowledgeImportMode,
  KnowledgeNode,
} from '../../core/model/knowledge.js';
import type { KnowledgeItem } from '../../core/model/knowledge-items.js';
import { clip, collect, defined, wholeNumber, type RunCommand } from '../arguments.js';
import { CommandContext } from '../command-context.js';
import type { CliIO } from '../output.js';
import { looksLikeMemoryServerJsonl } from './transfer-formats.js';

/** A graph given by id or label; `NOT_FOUND` when neither matches. */
async function findGraph(db: MemoryDB, idOrLabel: string): Promise<KnowledgeGraphInfo> {
  const graphs = await db.knowledge.list();
  const graph = graphs.find((g) => g.id === idOrLabel) ?? graphs.find((g) => g.label === idOrLabel);
  if (!graph)
    throw new HedgehopError('NOT_FOUND', `no knowledge graph with id or label '${echo(idOrLabel)}'`, {
      remedy: 'list-graphs',
    });
  return graph;
}

const nodeLine = (node: KnowledgeNode): string =>
  `  ${node.title}${node.type ? ` (${node.type})` : ''}${node.observations.length > 0 ? ` — ${clip(node.observations.join('; '), 70)}` : ''}`;

function parseBatches(text: string, graph: string | undefined): KnowledgeBatch[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new HedgehopError(
      'INVALID_INPUT',
      `file: not JSON (${(error as Error).message}); expected { graph, nodes, edges }`,
      {
        field: 'file',
      },
    );
  }
  const batches = (Array.isArray(value) ? value : [value]) as KnowledgeBatch[];
  return graph === undefined ? batches : batches.map((batch) => ({ ...batch, graph }));
}

/** MemHop `ImportL3` items: a JSON list of `{ title, domain, … }` (no `graph`). */
function asItems(text: string, graph: string | undefined): KnowledgeItem[] | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const isItem = (v: unknown): boolean =>
    typeof v === 'object' && v !== null && 'domain' in v && 'title' in v && !('graph' in v);
  if (!Array.isArray(value) || value.length === 0 || !value.every(isItem)) return undefined;
  const items = value as KnowledgeItem[];
  return graph === undefined ? items : items.map((item) => ({ ...item, domain: graph }));
}

interface ImportOptions {
  readonly graph?: string;
  readonly mode?: string;
}

function registerImport(kg: Command, io: CliIO, run: RunCommand): void {
  kg.command('import')
    .description(
      'import nodes and edges: a JSON batch { graph, nodes, edges } (or a list), MemHop ImportL3 items [{ title, domain, related }], or a memory-server JSONL file',
    )
    .argument('<path>', 'the file, or - for stdin')
    .option(
      '--graph <label>',
      'graph to import into (overrides the batch; memory-server files default to "memory")',
    )
    .option('--mode <mode>', 'existing titles: merge, skip or overwrite', 'merge')
    .action((path: string, options: ImportOptions, command: Command) =>
      run(async () => {
        const ctx = CommandContext.from(io, command);
        const text = await ctx.readText(path, '<file>');
        const progress = ctx.progress('kg import');
        const settings = {
          mode: options.mode as KnowledgeImportMode,
          onProgress: (p: { done: number; total: number }) => progress.update(p.done, p.total),
        };
        const reports = await ctx.withMemory(
          async (db) => {
            if (looksLikeMemoryServerJsonl(text)) {
              return [
                await db.knowledge
                  .memoryServer(defined({ graph: options.graph }))
                  .importJsonl(text, settings),
              ];
            }
            const items = asItems(text, options.graph);
            if (items) return (await db.knowledge.import(items, settings)).graphs;
            const out = [];
            for (const batch of parseBatches(text, options.graph))
              out.push(await db.knowledge.import(batch, settings));
            return out;
          },
          { create: true },
        );
        progress.finish();
        ctx.output(reports.length === 1 ? reports[0] : reports, () =>
          reports
            .map(
              (r) =>
                `graph ${r.graphId}: ${r.created.length} created, ${r.updated.length} updated, ${r.skipped} unchanged, ${r.edgesCreated} edges`,
            )
            .join('\n'),
        );
      }),
    );
}

function registerList(kg: Command, io: CliIO, run: RunCommand): void {
  kg.command('list')
    .description('every knowledge graph of the file, with its counts')
    .action((_options, command: Command) =>
      run(async () => {
        const ctx = CommandContext.from(io, command);
        const graphs = await ctx.withMemory((db) => db.knowledge.list());
        ctx.output(graphs, () =>
          graphs.length === 0
            ? '(no knowledge graphs)'
            : graphs
                .map(
                  (g) =>
                    `${g.label.padEnd(20)} ${String(g.nodeCount).padStart(5)} nodes ${String(g.edgeCount).padStart(5)} edges  ${g.id}`,
                )
                .join('\n'),
        );
      }),
    );
}

function registerGet(kg: Command, io: CliIO, run: RunCommand): void {
  kg.command('get')
    .description('a whole graph: its nodes and edges')
    .argument('<graph>', 'the graph id or label')
    .action((graph: string, _options, command: Command) =>
      run(async () => {
        const ctx = CommandContext.from(io, command);
        const found = await ctx.withMemory(async (db) =>
          db.knowledge.getOrThrow((await findGraph(db, graph)).id),
        );
        const titles = new Map(found.nodes.map((n) => [n.id, n.title]));
        ctx.output(found, () =>
          [
            `${found.graph.label}: ${found.nodes.length} nodes, ${found.edges.length} edges`,
            ...found.nodes.map(nodeLine),
            ...found.edges.map(
              (e) =>
                `  ${e.members.map((m) => titles.get(m) ?? m).join(e.directed ? ' → ' : ' — ')}  [${e.label || e.kind}]`,
            ),
          ].join('\n'),
        );
      }),
    );
}

interface QueryOptions {
  readonly graph?: string;
  readonly keyword?: string;
  readonly type?: string;
  readonly title?: string[];
  readonly limit?: string;
}

function registerQuery(kg: Command, io: CliIO, run: RunCommand): void {
  kg.command('query')
    .description('nodes meeting every condition given (graph, keyword substring, type, titles)')
    .option('--graph <graph>', 'graph id or label')
    .option(
      '--keyword <text>',
      'case-insensitive substring of title, type, content, keywords or observations',
    )
    .option('--type <type>', 'exact node type')
    .option('--title <title>', 'exact title (repeatable)', collect)
    .option('--limit <n>', 'at most this many')
    .action((options: QueryOptions, command: Command) =>
      run(async () => {
        const ctx = CommandContext.from(io, command);
        const nodes = await ctx.withMemory(async (db) => {
          const graphId = options.graph === undefined ? undefined : (await findGraph(db, options.graph)).id;
          return db.knowledge.queryNodes(
            defined({
              graphId,
              keyword: options.keyword,
              type: options.type,
              titles: options.title,
              limit: wholeNumber('limit', options.limit, 1),
            }),
          );
        });
        ctx.output(nodes, () => (nodes.length === 0 ? '(no nodes match)' : nodes.map(nodeLine).join('\n')));
      }),
    );
  kg.command('search')
    .description('nodes ranked for a free-text query')
    .argument('<query>', 'what to look for')
    .option('--graph <graph>', 'graph id or label')
    .option('--limit <n>', 'at most this many', '20')
    .action((query: string, options: { graph?: string; limit?: string }, command: Command) =>
      run(async () => {
        const ctx = CommandContext.from(io, command);
        const hits = await ctx.withMemory(async (db) => {
          const graphId = options.graph === undefined ? undefined : (await findGraph(db, options.graph)).id;
          return db.knowledge.search(
            query,
            defined({ graphId, limit: wholeNumber('limit', options.limit, 1) }),
          );
        });
        ctx.output(hits, () =>
          hits.length === 0 ? '(no nodes match)' : hits.map((h) => nodeLine(h.node)).join('\n'),
        );
      }),
    );
}

interface SubgraphOptions {
  readonly graph?: string;
  readonly depth?: string;
  readonly kind?: string[];
  readonly direction?: string;
}

async function startIds(
  db: MemoryDB,
  nodes: readonly string[],
  graph: string | undefined,
): Promise<string[]> {
  if (graph === undefined) return [...nodes];
  const graphId = (await findGraph(db, graph)).id;
  const found = await db.knowledge.queryNodes({ graphId, titles: nodes });
  const missing = nodes.filter((title) => !found.some((n) => n.title === title));
  if (missing.length > 0)
    throw new HedgehopError(
      'NOT_FOUND',
      `no node titled ${missing.map((t) => `'${t}'`).join(', ')} in graph '${graph}'`,
    );
  return found.map((n) => n.id);
}

function registerSubgraph(kg: Command, io: CliIO, run: RunCommand): void {
  kg.command('subgraph')
    .description('the neighbourhood of some nodes, breadth-first')
    .argument('<nodes...>', 'node ids, or titles with --graph')
    .option('--graph <graph>', 'graph id or label (then the nodes are titles)')
    .option('--depth <n>', 'hops from the start nodes (0: unlimited, up to 10000)', '1')
    .option('--kind <kind>', 'follow only edges of this kind (repeatable)', collect)
    .option('--direction <dir>', 'directed edges: any, forward or backward', 'any')
    .action((nodes: string[], options: SubgraphOptions, command: Command) =>
      run(async () => {
        const ctx = CommandContext.from(io, command);
        const subgraph = await ctx.withMemory(async (db) =>
          db.knowledge.querySubgraph(
            await startIds(db, nodes, options.graph),
            defined({
              depth: wholeNumber('depth', options.depth),
              edgeKinds: options.kind as KnowledgeEdgeKind[] | undefined,
              direction: options.direction as 'any' | 'forward' | 'backward',
            }),
          ),
        );
        ctx.output(subgraph, () =>
          [
            `${subgraph.nodes.length} nodes, ${subgraph.edges.length} edges`,
            ...subgraph.nodes.map((n) => `${nodeLine(n)}  [${subgraph.distances[n.id] ?? 0} hops]`),
          ].join('\n'),
        );
      }),
    );
}

/** `kg import|list|get|query|search|subgraph`. */
export function registerKnowledge(program: Command, io: CliIO, run: RunCommand): void {
  const kg = program.command('kg').description('knowledge graphs shared by every agent of the file');
  registerImport(kg, io, run);
  registerList(kg, io, run);
  registerGet(kg, io, run);
  registerQuery(kg, io, run);
  registerSubgraph(kg, io, run);
}
