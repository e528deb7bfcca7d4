import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { KnowledgeNodeFields, KnowledgeImportChunk, KnowledgeNodeWrite } from '../knowledge-repo.js';
import type { Awaitable } from '../seam.js';
import { openPair, type EnginePair, type Repos } from '../../../test/helpers/pg-pair.js';
import { startPgServer, type PgServer } from '../../../test/helpers/pg.js';

const server = startPgServer();
const reason = typeof server === 'string' ? server : '';
if (reason) console.log(`skipped: PostgreSQL knowledge repository tests (${reason})`);

function fields(content: string, extra: Partial<KnowledgeNodeFields> = {}): KnowledgeNodeFields {
  return {
    type: 'person',
    content,
    keywords: ['k1', 'k2'],
    observations: ['obs one'],
    sourceRef: undefined,
    ...extra,
  };
}

/** Writes new nodes; an existing node is replaced when `replace`, else skipped. */
function nodeWrite(id: string, title: string, content: string, replace = false): KnowledgeNodeWrite {
  return { id, title, resolve: (existing) => (existing && !replace ? undefined : fields(content)) };
}

function chunk(overrides: Partial<KnowledgeImportChunk>): KnowledgeImportChunk {
  return { graphId: 'g1', label: 'Team', createGraph: true, now: 100, nodes: [], edges: [], ...overrides };
}

describe.skipIf(reason !== '')('PgKnowledgeRepo gives what KnowledgeRepo gives', () => {
  let pg: PgServer;
  let pair: EnginePair;

  beforeAll(() => {
    pg = server as PgServer;
  });
  afterAll(() => pg?.stop());
  beforeEach(async () => {
    pair = await openPair(pg.url);
  });
  afterEach(async () => {
    await pair.close();
  });

  async function same<T>(step: (repos: Repos) => Awaitable<T>): Promise<T> {
    const { sqlite, pg: fromPg } = await pair.both(step);
    expect(fromPg).toEqual(sqlite);
    return sqlite;
  }

  async function seed(): Promise<void> {
    await same((r) =>
      r.knowledge.importChunk(
        chunk({
          nodes: [
            nodeWrite('n-b', 'Bob', 'runs the CI'),
            nodeWrite('n-a', 'Ana', 'owns the deploy script; İstanbul office'),
            nodeWrite('n-c', 'Cleo', 'KELVIN K sign: \u212A'),
            nodeWrite('n-d', 'Dan', '東京'),
          ],
          edges: [
            {
              id: 'e2',
              kind: 'related',
              label: 'works with',
              directed: false,
              members: ['n-a', 'n-b'],
              ref: 'e#0',
            },
            {
              id: 'e1',
              kind: 'causal',
              label: 'blocks',
              directed: true,
              members: ['n-b', 'n-c'],
              ref: 'e#1',
            },
            {
              id: 'e3',
              kind: 'custom',
              label: 'trio',
              directed: false,
              members: ['n-a', 'n-b', 'n-c'],
              ref: 'e#2',
            },
          ],
        }),
      ),
    );
    await same((r) =>
      r.knowledge.importChunk(
        chunk({ graphId: 'g0', label: 'Alpha', now: 100, nodes: [nodeWrite('m-1', 'Zed', 'z')] }),
      ),
    );
  }

  it('imports chunks and reads graphs, nodes and edges back in the same order', async () => {
    await seed();
    await same((r) => r.knowledge.listGraphs());
    await same((r) => r.knowledge.graph('g1'));
    await same((r) => r.knowledge.graphByLabel('Alpha'));
    const alpha = await same((r) => r.knowledge.graphByLabel('Alpha'));
    expect(await same((r) => r.knowledge.graphIdByLabel('Alpha'))).toBe(alpha?.id);
    expect(await same((r) => r.knowledge.graphIdByLabel('Nobody'))).toBeUndefined();
    expect(await same((r) => r.knowledge.graphIdTaken('nope'))).toBe(false);
    await same((r) => r.knowledge.nodesOfGraph('g1'));
    await same((r) => r.knowledge.edgesOfGraph('g1'));
    await same((r) => r.knowledge.existingTitles('g1', ['Ana', 'Nobody', 'Cleo']));
    await same((r) => r.knowledge.nodesByIds(['n-c', 'missing', 'n-a']));
    await same((r) => r.knowledge.edgesTouching(['n-c', 'n-a'], undefined));
    await same((r) => r.knowledge.edgesTouching(['n-b'], ['causal', 'custom']));
    await same((r) => r.knowledge.edgesBetween('n-a', 'n-b'));
    // Again: nodes skipped or updated, edges existing.
    await same((r) =>
      r.knowledge.importChunk(
        chunk({
          createGraph: false,
          now: 200,
          nodes: [nodeWrite('n-a', 'Ana', 'now leads the team', true), nodeWrite('n-b', 'Bob', 'x')],
          edges: [
            { id: 'e2', kind: 'related', label: '', directed: false, members: ['n-a', 'n-b'], ref: 'e#0' },
          ],
        }),
      ),
    );
    const gone = await same((r) => r.knowledge.importChunk(chunk({ graphId: 'g9', createGraph: false })));
    expect(gone).toMatchObject({ error: { code: 'CONFLICT' } });
    const taken = await same((r) => r.knowledge.importChunk(chunk({ graphId: 'g9', label: 'Team' })));
    expect(taken).toMatchObject({ error: { code: 'CONFLICT' } });
    await same((r) => r.knowledge.graph('g1'));
  });

  it('an edge to a node that no longer exists is reported and the rest of the chunk written', async () => {
    await seed();
    const result = await same((r) =>
      r.knowledge.importChunk(
        chunk({
          nodes: [nodeWrite('n-e', 'Eve', 'new')],
          edges: [
            {
              id: 'e4',
              kind: 'related',
              label: '',
              directed: false,
              members: ['n-a', 'ghost'],
              ref: 'edge 4',
            },
            { id: 'e5', kind: 'related', label: '', directed: false, members: ['n-a', 'n-e'], ref: 'edge 5' },
          ],
        }),
      ),
    );
    expect(result.errors).toHaveLength(1);
    expect(result.createdEdges).toEqual(['e5']);
    await same((r) => r.knowledge.edgesOfGraph('g1'));
  });

  it('scans with filters and the case-folding pre-filter as SQLite does', async () => {
    await seed();
    const all = () => true;
    for (const filter of [
      {},
      { graphId: 'g1' },
      { type: 'person', graphId: 'g1' },
      { ids: ['n-c', 'n-a'] },
      { titles: ['Bob'] },
      { textContains: 'deploy' },
      { textContains: 'istanbul' },
      { textContains: 'kelvin k' },
      { textContains: 'k1' },
      { textContains: 'i̇stanbul' },
      { textContains: 'ana', textPlace: 'title-equals' as const },
      { textContains: 'an', textPlace: 'title-not-equal' as const },
      { textContains: 'obs', textPlace: 'not-title' as const },
    ]) {
      await same((r) => r.knowledge.scanNodes(filter, all, 10));
    }
    await same((r) => r.knowledge.scanNodes({}, (n) => n.title !== 'Bob', 2));
    await same((r) => r.knowledge.scanNodes({}, all, 0));
  });

  it('relabels, deletes nodes, edges, observations and whole graphs with the same reports', async () => {
    await seed();
    await same((r) =>
      r.exec(
        "INSERT INTO scenes (id, agent_id, name, knowledge_id, created_at, last_used_at) VALUES ('s', 1, 'S', 'g1', 1, 1)",
      ),
    );
    await same((r) => r.knowledge.relabel('g1', 'Team', 300));
    await same((r) => r.knowledge.relabel('g1', 'Crew', 300));
    expect(await same((r) => r.knowledge.relabel('g1', 'Alpha', 300))).toMatchObject({
      error: { code: 'CONFLICT' },
    });
    expect(await same((r) => r.knowledge.relabel('zz', 'X', 300))).toMatchObject({
      error: { code: 'NOT_FOUND' },
    });
    await same((r) =>
      r.knowledge.addObservations(
        [
          { nodeId: 'n-a', observations: ['obs one', 'new obs', 'new obs'] },
          { nodeId: 'n-b', observations: ['b obs'] },
        ],
        310,
      ),
    );
    const missing = await same((r) =>
      r.knowledge.addObservations([{ nodeId: 'zz', observations: ['x'] }], 310),
    );
    expect(missing).toMatchObject({ error: { code: 'NOT_FOUND' } });
    await same((r) =>
      r.knowledge.deleteObservations(
        [
          { nodeId: 'n-a', observations: ['obs one', 'absent'] },
          { nodeId: 'zz', observations: ['x'] },
        ],
        320,
      ),
    );
    await same((r) => r.knowledge.nodesOfGraph('g1'));
    await same((r) => r.knowledge.deleteEdges(['e1', 'e1', 'nope'], 330));
    await same((r) => r.knowledge.deleteNodes(['n-b', 'nope', 'n-b'], 340));
    await same((r) => r.knowledge.edgesOfGraph('g1'));
    await same((r) => r.knowledge.listGraphs());
    const docs = await pair.both(async (r) =>
      (await r.recall.recent({ agentId: 1, layers: ['knowledge'] }, 50)).map(
        ({ rowid: _rowid, ...rest }) => rest,
      ),
    );
    expect(docs.pg).toEqual(docs.sqlite);
    await same((r) => r.knowledge.deleteGraph('g1'));
    expect(await same((r) => r.knowledge.deleteGraph('g1'))).toMatchObject({ error: { code: 'NOT_FOUND' } });
    await same((r) => r.knowledge.listGraphs());
    await same((r) => r.recall.recent({ agentId: 1, layers: ['knowledge'] }, 50));
  });
});
