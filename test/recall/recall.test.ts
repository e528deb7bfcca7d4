import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { openMemory, type MemoryDB } from '../../src/api/memory-db.js';
import type { Agent } from '../../src/api/agent.js';
import { HedgehopError } from '../../src/core/errors.js';
import { countTokens } from '../../src/core/tokens.js';
import { searchIndex } from '../../src/recall/search.js';
import { reindex } from '../../src/memory/recall/reindex.js';
import { describeEngines, freshMemoryPath, memoryDigest } from '../helpers/engines.js';

const DAY = 24 * 3600 * 1000;
const T0 = Date.UTC(2024, 0, 10, 12, 0);

let path: string;
let db: MemoryDB;

beforeEach(async () => {
  path = freshMemoryPath();
  db = await openMemory(path, { durability: 'normal', dream: { auto: false } });
});

afterEach(async () => {
  if (!db.closed) await db.close();
});

/** One scene per list of exchanges, each exchange one turn (input by the user, output by the agent). */
async function converse(agent: Agent, scenes: readonly { at: number; turns: readonly [string, string][] }[]) {
  for (const scene of scenes) {
    let first = true;
    for (const [input, output] of scene.turns) {
      await agent.search(first ? { newScene: true } : {});
      first = false;
      await agent.update({ input, output, createdAt: scene.at });
    }
  }
}

async function seed(agent: Agent): Promise<void> {
  await converse(agent, [
    {
      at: T0,
      turns: [
        ['We rotated the JWT signing secret today', 'Noted: the JWT secret now lives in the vault'],
        ['The staging database migration failed', 'I rolled the migration back'],
      ],
    },
    {
      at: T0 + 30 * DAY,
      turns: [
        ['Let us plan the kayak trip to the fjords', 'The kayak rental opens in June'],
        ['東京都の会議は来週です', '会議の資料を準備します'],
      ],
    },
  ]);
}

describeEngines('recall', () => {
  it('finds archive records and points back to the verbatim record', async () => {
    const agent = db.primary();
    await seed(agent);
    const result = await agent.recall('where does the JWT secret live?', { layers: ['archive'] });
    expect(result.hits.length).toBeGreaterThan(0);
    const top = result.hits[0]!;
    expect(top.text).toContain('JWT');
    expect(top.provenance.table).toBe('archive');
    expect(top.provenance.agent).toBe('primary');
    expect(top.provenance.createdAt).toBe(T0);
    const records = await agent.searchArchive({ sceneId: top.provenance.sceneId! });
    const record = records.find((r) => r.id === top.provenance.sourceId);
    expect(record?.content).toBe(top.text);
    expect(record?.topicId).toBe(top.provenance.topicId);
    expect(top.confidence).toBeGreaterThan(0.5);
    expect(top.confidence).toBeLessThanOrEqual(1);
    expect(result.context).toContain(top.text);
    expect(result.usedTokens).toBe(countTokens(result.context));
  });

  it('leaves room in the first ten places for a scene other than one dominating scene', async () => {
    const agent = db.primary();
    const many = Array.from(
      { length: 8 },
      (_, i) =>
        [`The garden roses bloomed, bed ${i}`, `The roses in bed ${i} need water`] as [string, string],
    );
    await converse(agent, [
      { at: T0, turns: many },
      { at: T0 + DAY, turns: [['I planted roses by the gate', 'The garden there gets the morning sun']] },
    ]);
    const { hits } = await agent.recall('garden roses', { layers: ['archive'], limit: 10, budgetTokens: 0 });
    expect(hits).toHaveLength(10);
    const scenes = new Map<string, number>();
    for (const hit of hits) {
      const scene = hit.provenance.sceneId!;
      scenes.set(scene, (scenes.get(scene) ?? 0) + 1);
    }
    expect(Math.max(...scenes.values())).toBeLessThanOrEqual(8);
    expect(hits.some((hit) => hit.text.includes('by the gate'))).toBe(true);
    for (let i = 1; i < hits.length; i++) expect(hits[i]!.score).toBeLessThanOrEqual(hits[i - 1]!.score);
  });

  it('leaves out records that hold no query word and that only their turn or a neighbour brought in', async () => {
    const agent = db.primary();
    await agent.search({ newScene: true });
    await agent.update({
      input: 'Which key signs our JWTs?',
      output: 'An RS256 key pair kept in Vault',
      outcome: 'answered',
      createdAt: T0,
    });
    await agent.search({});
    await agent.update({ input: 'Lunch plans?', output: 'Pizza at noon', createdAt: T0 });
    const { hits, context } = await agent.recall('which key signs the JWTs', { budgetTokens: 300 });
    expect(hits.some((hit) => hit.text.includes('JWTs'))).toBe(true);
    expect(hits.map((hit) => hit.text)).not.toContain('answered');
    expect(hits.some((hit) => hit.text.includes('Pizza'))).toBe(false);
    // The answer of the matching turn is still read with its question.
    expect(context).toContain('An RS256 key pair kept in Vault');
    for (const hit of hits) expect(hit.confidence).toBeGreaterThan(0);
  });

  it('does not rank a task below turns holding one word of the query because their scene is the only one', async () => {
    const agent = db.primary();
    const turns: [string, string][] = [
      [
        'We are moving the staging database to a new host, pg-staging-1 on port 5432.',
        'Noted: staging DB is pg-staging-1:5432.',
      ],
      [
        'Can you add a healthcheck endpoint to the API?',
        'Added GET /healthz; it answers 503 when the DB ping fails.',
      ],
      [
        'The CI pipeline takes 24 minutes, mostly the e2e job. Ideas?',
        'Sharding the e2e suite across 4 runners should bring it to about 8 minutes.',
      ],
      ['ok do the sharding', 'Done: the last pipeline took 9m40s.'],
      ['I prefer tabs over spaces in this repo.', 'Set useTabs in .prettierrc and reformatted 212 files.'],
      [
        'Quick one: what port does the metrics exporter use?',
        'The exporter listens on 9464 (OpenTelemetry Prometheus default).',
      ],
      [
        'Staging DB moved again, it is now pg-staging-2 port 6432 behind pgbouncer.',
        'Updated: staging DB is pg-staging-2:6432.',
      ],
      ['Thanks!', 'You are welcome.'],
      [
        'The healthcheck should also report the git sha.',
        'GET /healthz now includes the version from BUILD_SHA.',
      ],
      [
        'Why did the e2e job flake yesterday?',
        'Shard 3 timed out waiting for the checkout page: the test relied on a fixed 2s sleep.',
      ],
    ];
    await converse(agent, [{ at: T0, turns }]);
    await agent.radial.getOrCreateLine('ops', 'Operations', 'Jobs and alerts');
    await agent.radial.completeTask({
      lineId: 'ops',
      taskLabel: 'Fix nightly export OOM',
      fullContext: readFileSync(new URL('../fixtures/export-oom-transcript.txt', import.meta.url), 'utf8'),
      conversationSummary:
        'Export job OOMKilled after soft-deleted rows tripled its size; rewrote it to stream; added slow-export alert.',
    });
    const { hits } = await agent.recall('why did the export job get killed', { budgetTokens: 0 });
    const task = hits.findIndex((hit) => hit.layer === 'radial');
    // The turns that hold only "job" (the e2e flake, the CI pipeline) rank below the task that holds every word.
    const jobOnly = hits.findIndex((hit) => hit.layer === 'archive' && /\bjob\b/u.test(hit.preview));
    expect(task).toBeGreaterThanOrEqual(0);
    expect(task).toBeLessThan(jobOnly);
  });

  it('finds Chinese and Japanese text with a CJK query', async () => {
    const agent = db.primary();
    await seed(agent);
    const result = await agent.recall('東京都の会議', { layers: ['archive'] });
    expect(result.hits[0]?.text).toContain('会議');
  });

  it('treats FTS5 syntax in a query as words', async () => {
    const agent = db.primary();
    await seed(agent);
    for (const query of [
      '"JWT',
      'JWT*',
      'NEAR(JWT secret)',
      '-JWT',
      'body:JWT',
      '(JWT',
      'JWT OR',
      'JWT AND',
      '^JWT',
      'JWT)',
    ]) {
      const result = await agent.recall(query);
      expect(
        result.hits.some((h) => h.text.includes('JWT')),
        query,
      ).toBe(true);
    }
    for (const query of ['""""', 'AND', 'OR NOT', '*', '()', ':', '\u0000']) {
      await expect(agent.recall(query), query).resolves.toBeDefined();
    }
  });

  it('filters by layer, scene and time', async () => {
    const agent = db.primary();
    await seed(agent);
    const all = await agent.recall('kayak JWT migration', { limit: 50 });
    const scenes = [...new Set(all.hits.map((h) => h.provenance.sceneId).filter((s) => s !== undefined))];
    expect(scenes.length).toBe(2);
    const inScene = await agent.recall('kayak JWT migration', { sceneId: scenes[0]!, limit: 50 });
    expect(inScene.hits.length).toBeGreaterThan(0);
    expect(inScene.hits.every((h) => h.provenance.sceneId === scenes[0])).toBe(true);
    const late = await agent.recall('kayak JWT migration', { from: T0 + DAY, limit: 50 });
    expect(late.hits.length).toBeGreaterThan(0);
    expect(late.hits.every((h) => h.provenance.createdAt >= T0 + DAY)).toBe(true);
    const early = await agent.recall('kayak JWT migration', { to: new Date(T0 + DAY), limit: 50 });
    expect(early.hits.every((h) => h.provenance.createdAt < T0 + DAY)).toBe(true);
    const topics = await agent.recall('kayak JWT migration', { layers: ['topic'], limit: 50 });
    expect(topics.hits.every((h) => h.layer === 'topic')).toBe(true);
  });

  it('filters radial nodes by line', async () => {
    const agent = db.primary();
    await agent.radial.createLine('auth', 'Authentication', 'Login and tokens');
    await agent.radial.createLine('infra', 'Infrastructure', 'Servers');
    await agent.radial.completeTask({
      lineId: 'auth',
      taskLabel: 'Rotate the JWT secret',
      fullContext: 'Rotated the JWT signing secret and moved it to the vault.',
      conversationSummary: 'JWT secret rotation',
    });
    await agent.radial.completeTask({
      lineId: 'infra',
      taskLabel: 'Resize the JWT cache',
      fullContext: 'The JWT validation cache was resized on the edge servers.',
      conversationSummary: 'cache resize',
    });
    const both = await agent.recall('JWT', { layers: ['radial'] });
    expect(new Set(both.hits.map((h) => h.provenance.lineId))).toEqual(new Set(['auth', 'infra']));
    const auth = await agent.recall('JWT', { layers: ['radial'], lineId: 'auth' });
    expect(auth.hits.length).toBe(1);
    expect(auth.hits[0]?.provenance.lineId).toBe('auth');
    expect(auth.hits[0]?.provenance.position).toBe(1);
    expect(auth.hits[0]?.provenance.table).toBe('nodes');
  });

  it('keeps agents apart but shares knowledge', async () => {
    const primary = db.primary();
    const other = await db.agent('helper');
    await converse(primary, [{ at: T0, turns: [['the walrus password is swordfish', 'ok']] }]);
    await db.knowledge.import({
      graph: 'zoo',
      nodes: [{ title: 'Walrus enclosure', content: 'Walrus feeding at noon' }],
    });
    const mine = await primary.recall('walrus', { limit: 20 });
    expect(mine.hits.some((h) => h.layer === 'archive')).toBe(true);
    expect(mine.hits.some((h) => h.layer === 'knowledge')).toBe(true);
    const theirs = await other.recall('walrus', { limit: 20 });
    expect(theirs.hits.some((h) => h.layer === 'knowledge')).toBe(true);
    expect(theirs.hits.every((h) => h.layer === 'knowledge')).toBe(true);
    expect(theirs.hits.find((h) => h.layer === 'knowledge')?.provenance.agent).toBeNull();
    expect(theirs.context).not.toContain('swordfish');
  });

  it('never exceeds the token budget, and fills it at the right detail', async () => {
    const agent = db.primary();
    const long =
      'The deployment pipeline ' + 'builds, tests and ships the service to production. '.repeat(80);
    await converse(agent, [
      {
        at: T0,
        turns: Array.from(
          { length: 12 },
          (_, i) => [`${long} part ${i}`, `pipeline reply ${i}`] as [string, string],
        ),
      },
    ]);
    for (const budget of [0, 1, 20, 60, 200, 500, 1000, 3000]) {
      const result = await agent.recall('deployment pipeline', { budgetTokens: budget, limit: 20 });
      expect(result.usedTokens).toBeLessThanOrEqual(budget);
      expect(countTokens(result.context)).toBe(result.usedTokens);
      expect(result.budgetTokens).toBe(budget);
    }
    const roomy = await agent.recall('deployment pipeline', { budgetTokens: 3000, limit: 20 });
    expect(roomy.hits[0]?.inContext).toBe('full');
    expect(roomy.hits.some((h) => h.inContext === 'brief' || h.inContext === 'summary')).toBe(true);
    // Compact labels: when, the scene once, no record ids.
    expect(roomy.context).toMatch(/^\[\d{4}-\d\d-\d\d \d\d:\d\d[ ·\]]/u);
    expect(roomy.context).not.toMatch(/archive #|scene scn_|topic tpc_/u);
  });

  it('rejects bad options with INVALID_INPUT naming the field, writing nothing', async () => {
    const agent = db.primary();
    await seed(agent);
    const before = await memoryDigest(path);
    const bad: [unknown, unknown, string][] = [
      [42, {}, 'query'],
      ['x', { budgetTokens: -1 }, 'options.budgetTokens'],
      ['x', { budgetTokens: 1.5 }, 'options.budgetTokens'],
      ['x', { limit: 0 }, 'options.limit'],
      ['x', { layers: ['nope'] }, 'options.layers.0'],
      ['x', { layers: [] }, 'options.layers'],
      ['x', { from: 10, to: 5 }, 'options.to'],
      ['x', { sceneId: '' }, 'options.sceneId'],
      ['x', { surprise: true }, 'options'],
    ];
    for (const [query, options, field] of bad) {
      const error = await agent.recall(query as string, options as object).catch((e: unknown) => e);
      expect(HedgehopError.isInstance(error), JSON.stringify(options)).toBe(true);
      expect((error as HedgehopError).code).toBe('INVALID_INPUT');
      expect((error as HedgehopError).field).toBe(field);
    }
    expect(await memoryDigest(path)).toBe(before);
  });

  it('refuses an empty or whitespace query, and finds nothing for one without a word', async () => {
    const agent = db.primary();
    await seed(agent);
    for (const query of ['', '   ', '\n\t']) {
      const error = await agent.recall(query, { limit: 3 }).catch((e: unknown) => e);
      expect(HedgehopError.isInstance(error), JSON.stringify(query)).toBe(true);
      expect((error as HedgehopError).code).toBe('INVALID_INPUT');
      expect((error as HedgehopError).field).toBe('query');
      expect((error as HedgehopError).message).toBe('query: must not be empty');
    }
    for (const query of ['?!', ' -- ... ', '()[]{}']) {
      const result = await agent.recall(query, { limit: 3, budgetTokens: 200 });
      expect(result.hits, JSON.stringify(query)).toEqual([]);
      expect(result.context).toBe('');
      expect(result.usedTokens).toBe(0);
    }
    // Stop words alone still search those words: only records holding them come back.
    const stopWords = await agent.recall('who is she', { budgetTokens: 0 });
    for (const hit of stopWords.hits) expect(hit.confidence).toBeGreaterThan(0);
  });
});

describeEngines('reindex', () => {
  it('rebuilds the same index from the verbatim tables', async () => {
    const agent = db.primary();
    await seed(agent);
    await agent.radial.createLine('auth', 'Authentication', 'Login and tokens');
    await agent.radial.completeTask({
      lineId: 'auth',
      taskLabel: 'Rotate the JWT secret',
      fullContext: 'Rotated the JWT signing secret and moved it to the vault.',
      conversationSummary: 'JWT secret rotation',
    });
    await db.knowledge.import({ graph: 'ops', nodes: [{ title: 'Vault', content: 'Holds the JWT secret' }] });
    await agent.updateProfile({ name: 'Ops bot', role: 'keeps the JWT secret safe' });
    const store = db.memoryStore;
    const queries = ['JWT secret vault', 'kayak fjords', '東京都の会議', 'migration rolled back'];
    const key = (h: { layer: string; ref: string; part: string; score: number }) =>
      `${h.layer}:${h.ref}:${h.part}:${h.score.toFixed(6)}`;
    const before = await Promise.all(
      queries.map((query) => searchIndex(store, { agentId: agent.info().id, query, limit: 50 })),
    );
    const docsBefore = (await store.read('t', (tx) => tx.recall.recent({ agentId: agent.info().id }, 1000)))
      .length;
    const progress: number[] = [];
    const report = await reindex(store, { onProgress: (p) => progress.push(p.done), batchSize: 3 });
    expect(progress.length).toBeGreaterThan(1);
    expect(report.rows.archive).toBe(8);
    const after = await Promise.all(
      queries.map((query) => searchIndex(store, { agentId: agent.info().id, query, limit: 50 })),
    );
    expect((await store.read('t', (tx) => tx.recall.recent({ agentId: agent.info().id }, 1000))).length).toBe(
      docsBefore,
    );
    for (let i = 0; i < queries.length; i++) {
      const b = before[i]!.map((h) => key(h).split(':').slice(0, 3).join(':')).sort();
      const a = after[i]!.map((h) => key(h).split(':').slice(0, 3).join(':')).sort();
      expect(a, queries[i]).toEqual(b);
      expect(
        after[i]!.map((h) => h.confidence),
        queries[i],
      ).toEqual(before[i]!.map((h) => h.confidence));
    }
    await expect(db.check()).resolves.toMatchObject({ ok: true });
  });
});
