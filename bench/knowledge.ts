/**
 * Knowledge-graph benchmark: a bulk import (100,000 nodes and 300,000 edges; 10,000 and
 * 30,000 in quick mode) with a progress callback, then breadth-first subgraph latency at that
 * size against a raw recursive CTE over the same tables, and ranked search (limit 20) against
 * the bare FTS5 `MATCH` top 20 of the same word over the same node texts (issue 14's floor)
 * and against a plain `LIKE` scan, all three interleaved, in wall time and in CPU time.
 */
import { join } from 'node:path';
import { openMemory, type MemoryDB } from '../src/api/memory-db.js';
import { knowledgeIndexText } from '../src/core/index-text.js';
import type {
  KnowledgeBatch,
  KnowledgeEdgeKind,
  KnowledgeImportProgress,
} from '../src/core/model/knowledge.js';
import {
  compareInterleaved,
  median,
  percentile,
  seededRandom,
  tempDir,
  type BenchModule,
  type BenchRow,
} from './harness.js';
import { floorMatch, RawFloor } from './raw-floor.js';

const WORDS = [
  'auth',
  'cache',
  'queue',
  'billing',
  'search',
  'router',
  'schema',
  'index',
  'token',
  'ledger',
  'gateway',
  'replica',
  'shard',
  'worker',
  'metric',
  'alert',
  'deploy',
  'config',
  'secret',
  'backup',
];
const TYPES = ['service', 'database', 'person', 'team', 'document', 'decision', 'incident', 'library'];
const KINDS: readonly KnowledgeEdgeKind[] = ['related', 'causal', 'part_of', 'sequence', 'dependency'];

function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)] as T;
}

/** A synthetic graph: nodes with types and keywords, edges mostly local (as real graphs cluster). */
function syntheticBatch(nodeCount: number, edgeCount: number): KnowledgeBatch {
  const random = seededRandom(42);
  const nodes = Array.from({ length: nodeCount }, (_, i) => {
    const a = pick(random, WORDS);
    const b = pick(random, WORDS);
    return {
      title: `node ${i} ${a}`,
      type: pick(random, TYPES),
      keywords: [a, b],
      content: `The ${a} component talks to the ${b} component (item ${i}).`,
      sourceRef: { source: `docs/${a}.md`, start: i % 500, end: (i % 500) + 5 },
    };
  });
  const edges = Array.from({ length: edgeCount }, (_, i) => {
    const from = Math.floor(random() * nodeCount);
    const near = (from + 1 + Math.floor(random() * 50)) % nodeCount;
    const to = random() < 0.8 ? near : Math.floor(random() * nodeCount);
    const kind = KINDS[i % KINDS.length] as KnowledgeEdgeKind;
    const members = [
      nodes[from]?.title as string,
      nodes[to === from ? (to + 1) % nodeCount : to]?.title as string,
    ];
    return { kind, directed: kind === 'sequence' || kind === 'dependency', members };
  });
  return { graph: 'bench', nodes, edges };
}

/**
 * The baseline: the nodes within `depth` hops by a recursive CTE over the membership table,
 * with their rows and distances, then the edges touching them by a plain adjacency query (raw
 * rows, no filtering nor parsing). `CROSS JOIN` keeps SQLite from scanning `kg_nodes`.
 */
function recursiveCteSubgraph(
  db: MemoryDB,
  startId: string,
  depth: number,
): { nodes: unknown[]; edges: unknown[] } {
  const nodes = db.store.engine
    .statement(
      `WITH RECURSIVE reach(node_id, depth) AS (
         SELECT ?, 0
         UNION
         SELECT m2.node_id, r.depth + 1 FROM reach r
           JOIN kg_edge_members m1 ON m1.node_id = r.node_id
           JOIN kg_edge_members m2 ON m2.edge_id = m1.edge_id
         WHERE r.depth < ?
       ),
       best(node_id, distance) AS (SELECT node_id, min(depth) FROM reach GROUP BY node_id)
       SELECT n.*, b.distance FROM best b CROSS JOIN kg_nodes n ON n.id = b.node_id`,
    )
    .all(startId, depth) as { id: string }[];
  const edges = db.store.engine
    .statement(
      `SELECT DISTINCT e.* FROM json_each(?) j
         CROSS JOIN kg_edge_members m ON m.node_id = j.value
         CROSS JOIN kg_edges e ON e.id = m.edge_id`,
    )
    .all(JSON.stringify(nodes.map((node) => node.id)));
  return { nodes, edges };
}

/** The baseline: every node holding the word (SQL `LIKE`), unranked, as the memory server filters. */
function likeScan(db: MemoryDB, graphId: string, word: string): unknown[] {
  return db.store.engine
    .statement(
      `SELECT * FROM kg_nodes WHERE graph_id = @graph
         AND (title LIKE @pattern OR type LIKE @pattern OR content LIKE @pattern OR keywords LIKE @pattern
              OR observations LIKE @pattern)`,
    )
    .all({ graph: graphId, pattern: `%${word}%` });
}

function latencyRows(
  name: string,
  result: { subject: number[]; baseline: number[] },
  note: string,
): BenchRow[] {
  const p50 = median(result.subject);
  const p99 = percentile(result.subject, 99);
  const baseP50 = median(result.baseline);
  const baseP99 = percentile(result.baseline, 99);
  return [
    {
      bench: 'knowledge',
      case: name,
      metric: 'p50',
      value: p50,
      unit: 'ms',
      baseline: baseP50,
      ratio: p50 / baseP50,
      note,
    },
    {
      bench: 'knowledge',
      case: name,
      metric: 'p99',
      value: p99,
      unit: 'ms',
      baseline: baseP99,
      ratio: p99 / baseP99,
    },
  ];
}

/** Wall and CPU milliseconds of one call. */
async function timed(fn: () => unknown): Promise<[number, number]> {
  const cpu = process.cpuUsage();
  const started = process.hrtime.bigint();
  await fn();
  const wall = Number(process.hrtime.bigint() - started) / 1e6;
  const used = process.cpuUsage(cpu);
  return [wall, (used.user + used.system) / 1000];
}

/**
 * Ranked search against the FTS5 floor and the `LIKE` scan, the three calls interleaved (their
 * order rotating), reported as p50 and p99 of wall time and of CPU time per call.
 */
async function searchRows(
  samples: number,
  calls: Record<'hedgehop' | 'floor' | 'like', (i: number) => unknown>,
): Promise<BenchRow[]> {
  const names = ['hedgehop', 'floor', 'like'] as const;
  const wall = { hedgehop: [] as number[], floor: [] as number[], like: [] as number[] };
  const cpu = { hedgehop: [] as number[], floor: [] as number[], like: [] as number[] };
  const count = Math.min(samples, 60);
  for (let i = 0; i < count; i++) {
    for (let k = 0; k < names.length; k++) {
      const name = names[(i + k) % names.length] as (typeof names)[number];
      const [w, c] = await timed(() => calls[name](i));
      wall[name].push(w);
      cpu[name].push(c);
    }
  }
  const rowsOf = (
    label: string,
    baseline: 'floor' | 'like',
    view: 'wall' | 'cpu',
    note: string,
  ): BenchRow[] => {
    const values = view === 'wall' ? wall : cpu;
    return [50, 99].map((p) => {
      const value = percentile(values.hedgehop, p);
      const base = percentile(values[baseline], p);
      return {
        bench: 'knowledge',
        case: `search (ranked, limit 20) vs ${label}${view === 'cpu' ? ', CPU time' : ''}`,
        metric: `p${p}`,
        value,
        unit: 'ms',
        baseline: base,
        ratio: value / base,
        ...(p === 50 ? { note } : {}),
      };
    });
  };
  const floorNote =
    'baseline: bare FTS5 MATCH of the word over the node texts, ORDER BY rank LIMIT 20, with the texts; target ≤ 3×';
  const likeNote = 'baseline: unranked SQL LIKE filter returning every match';
  return [
    ...rowsOf('FTS5 top 20', 'floor', 'wall', floorNote),
    ...rowsOf('FTS5 top 20', 'floor', 'cpu', floorNote),
    ...rowsOf('LIKE scan', 'like', 'wall', likeNote),
  ];
}

/** The knowledge benchmark module. */
export const runKnowledge: BenchModule = async (options) => {
  const nodeCount = options.quick ? 10_000 : 100_000;
  const edgeCount = options.quick ? 30_000 : 300_000;
  const samples = options.quick ? 100 : 300;
  const { dir, cleanup } = tempDir();
  const rows: BenchRow[] = [];
  const notes: string[] = [];
  const db = await openMemory(join(dir, 'knowledge.db'));
  try {
    const batch = syntheticBatch(nodeCount, edgeCount);
    const progress: KnowledgeImportProgress[] = [];
    const started = process.hrtime.bigint();
    const report = await db.knowledge.import(batch, {
      onProgress: (p) => {
        progress.push(p);
        if (progress.length % 20 === 0) options.log(`  import ${p.done}/${p.total} (${p.phase})`);
      },
    });
    const importMs = Number(process.hrtime.bigint() - started) / 1e6;
    const items = nodeCount + edgeCount;
    rows.push(
      {
        bench: 'knowledge',
        case: `import ${nodeCount} nodes + ${edgeCount} edges`,
        metric: 'total',
        value: importMs / 1000,
        unit: 's',
      },
      {
        bench: 'knowledge',
        case: 'import',
        metric: 'rate',
        value: items / (importMs / 1000),
        unit: 'items/s',
      },
      {
        bench: 'knowledge',
        case: 'import',
        metric: 'progress callbacks',
        value: progress.length,
        unit: 'calls',
      },
    );
    notes.push(
      `import: ${report.created.length} nodes and ${report.edgesCreated} edges created (${edgeCount - report.edgesCreated - report.edgesExisting} repeated edges of the random batch merged), ${report.errors.length} errors`,
    );

    const againStarted = process.hrtime.bigint();
    const again = await db.knowledge.import(batch);
    const againMs = Number(process.hrtime.bigint() - againStarted) / 1e6;
    rows.push({
      bench: 'knowledge',
      case: 're-import of the same batch',
      metric: 'total',
      value: againMs / 1000,
      unit: 's',
      note: `created ${again.created.length}, updated ${again.updated.length}, edges created ${again.edgesCreated}`,
    });

    const ids = report.created;
    const random = seededRandom(7);
    const starts = Array.from({ length: samples }, () => ids[Math.floor(random() * ids.length)] as string);
    for (const depth of [1, 2, 3]) {
      const result = await compareInterleaved(
        samples,
        (i) => db.knowledge.querySubgraph([starts[i] as string], { depth }),
        (i) => recursiveCteSubgraph(db, starts[i] as string, depth),
      );
      const sizes = await db.knowledge.querySubgraph([starts[0] as string], { depth });
      rows.push(
        ...latencyRows(
          `querySubgraph depth ${depth}`,
          result,
          `baseline: recursive CTE for the nodes + one adjacency query for their edges; e.g. ${sizes.nodes.length} nodes / ${sizes.edges.length} edges`,
        ),
      );
    }
    const words = Array.from({ length: samples }, () => pick(random, WORDS));
    const floor = RawFloor.open(join(dir, 'floor.db'), 'normal');
    try {
      floor.insertMany(
        (batch.nodes ?? []).map((node) =>
          knowledgeIndexText(node.title, {
            type: node.type ?? '',
            content: node.content ?? '',
            keywords: node.keywords ?? [],
            observations: node.observations ?? [],
          }),
        ),
      );
      rows.push(
        ...(await searchRows(samples, {
          hedgehop: (i) => db.knowledge.search(words[i] as string, { graphId: report.graphId, limit: 20 }),
          floor: (i) => floor.query(floorMatch(words[i] as string) ?? '', 20),
          like: (i) => likeScan(db, report.graphId, words[i] as string),
        })),
      );
    } finally {
      floor.close();
    }

    const deleteStarted = process.hrtime.bigint();
    const deleted = await db.knowledge.delete(report.graphId);
    const deleteMs = Number(process.hrtime.bigint() - deleteStarted) / 1e6;
    rows.push({
      bench: 'knowledge',
      case: 'delete the graph',
      metric: 'total',
      value: deleteMs / 1000,
      unit: 's',
      note: `${deleted.nodesDeleted} nodes, ${deleted.edgesDeleted} edges and their index rows in one transaction`,
    });
  } finally {
    await db.close();
    cleanup();
  }
  return { name: 'knowledge', rows, notes };
};
