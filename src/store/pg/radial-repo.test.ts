import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { NodeIndexText } from '../../core/index-text.js';
import type { NewNode, NodeCommit } from '../radial-repo.js';
import type { Awaitable } from '../seam.js';
import { openPair, type EnginePair, type Repos } from '../../../test/helpers/pg-pair.js';
import { startPgServer, type PgServer } from '../../../test/helpers/pg.js';

const server = startPgServer();
const reason = typeof server === 'string' ? server : '';
if (reason) console.log(`skipped: PostgreSQL radial repository tests (${reason})`);

/** Texts that look broken but are valid (NUL, BOM, noncharacters, mojibake, astral, RTL marks, CJK). */
const AWKWARD = [
  'plain',
  'nul \u0000 inside\u0000',
  '\uFEFFbom first',
  'noncharacters \uFFFE \uFFFF \u{10FFFF} \u{FDD0}',
  'mojibake Ã© Ã¼ â€™',
  'replacement \uFFFD char',
  'astral 😀 𝕳 👩‍👩‍👧',
  'rtl \u202E gnirts \u202C and \u200D joiners',
  'c1 \u0085 \u009F controls \u0001\u001F',
  '東京都に住んでいます。猫が好き',
  'backslash \\ quote \' "double" $1 ?',
  '',
];

function newNode(id: string, i: number, fullContext: string): NewNode {
  return {
    id,
    taskLabel: `task ${i}: fix the deploy script`,
    createdAt: 1_700_000_000_000 + i,
    conversationSummary: `summary ${i} about deploys`,
    fileChanges: '[]',
    todos: '["a"]',
    envSnapshot: '{}',
    history: '',
    summaries:
      i % 2 === 0
        ? { origin: `origin ${i}`, brief: `brief ${i}`, summary: null, detailed: null }
        : { origin: null, brief: null, summary: null, detailed: null },
    summariesState: i % 2 === 0 ? 'ready' : 'pending',
    summariesTier: i % 2 === 0 ? 1 : 0,
    extra: '{}',
    fullContext,
    fullBytes: Buffer.byteLength(fullContext, 'utf8'),
  };
}

function indexOf(node: NewNode): NodeIndexText[] {
  return [
    { part: 'label', text: node.taskLabel },
    { part: 'conversation', text: node.conversationSummary },
    { part: 'full', text: node.fullContext },
  ];
}

const line = (id: string) => ({ id, name: `Line ${id}`, description: 'd', createdAt: 5, extra: '{}' });

describe.skipIf(reason !== '')('PgRadialRepo gives what RadialRepo gives', () => {
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

  function commitOf(id: string, i: number, context: string, extend = false): NodeCommit {
    const { extra: _extra, ...node } = newNode(id, i, context);
    return { node, index: indexOf(newNode(id, i, context)), extend };
  }

  async function addNodes(lineId: string, contexts: readonly string[], prefix = lineId): Promise<void> {
    for (const [i, context] of contexts.entries()) {
      const committed = await same((r) =>
        r.radial.insertNode(1, lineId, commitOf(`${prefix}-n${i + 1}`, i, context)),
      );
      expect(committed).toMatchObject({ lineSeq: i + 1, existed: false, extendsNodeId: undefined });
    }
  }

  it('lines: create, conflict, get-or-create, list, counts', async () => {
    await same((r) => r.radial.createLine(1, line('a')));
    const conflict = await same((r) => r.radial.createLine(1, line('a')));
    expect(conflict).toMatchObject({ error: { code: 'CONFLICT' } });
    await same((r) => r.radial.getOrCreateLine(1, { ...line('a'), name: 'renamed' }));
    await same((r) => r.radial.getOrCreateLine(1, line('b')));
    await same((r) => r.radial.createLine(2, line('a')));
    await same((r) => r.radial.listLines(1));
    await same((r) => r.radial.counts(1));
    expect(await same((r) => r.radial.getLine(1, 'missing'))).toBeUndefined();
  });

  it('nodes newest first, positions, paging and byte-exact full contexts', async () => {
    await same((r) => r.radial.createLine(1, line('a')));
    await addNodes('a', AWKWARD);
    const missing = await same((r) => r.radial.insertNode(1, 'nope', commitOf('nope-n1', 0, 'x')));
    expect(missing).toMatchObject({ error: { code: 'NOT_FOUND' } });
    for (const position of [0, 1, 2, AWKWARD.length, AWKWARD.length + 1, -1]) {
      await same((r) => r.radial.nodeAt(1, 'a', position));
    }
    await same((r) => r.radial.nodeById(1, 'a-n3'));
    expect(await same((r) => r.radial.nodeById(2, 'a-n3'))).toBeUndefined();
    const ids = ['a-n1', 'a-n5', 'zzz', 'a-n2'];
    const byIds = await pair.both(async (r) =>
      (await r.radial.nodesByIds(1, ids)).sort((x, y) => x.seq - y.seq),
    );
    expect(byIds.pg).toEqual(byIds.sqlite);
    expect(byIds.pg).toHaveLength(3);
    await same((r) => r.radial.lineNodes(1, 'a', { limit: 5 }));
    await same((r) => r.radial.lineNodes(1, 'a', { beforeLineSeq: 7, limit: 3 }));
    await same((r) => r.radial.lineNodes(1, 'a', { beforeLineSeq: 1, limit: 3 }));
    await same((r) => r.radial.listLines(1));
    await same((r) => r.radial.counts(1));
    for (const [i, text] of AWKWARD.entries()) {
      const full = await same((r) => r.radial.fullContext(1, `a-n${i + 1}`));
      expect(full).toBe(text);
    }
    expect(await same((r) => r.radial.fullContext(2, 'a-n1'))).toBeUndefined();
  });

  it('a commit is keyed by its node id: run again it returns the node and writes nothing; extend names the tip', async () => {
    await same((r) => r.radial.createLine(1, line('a')));
    await same((r) => r.radial.createLine(1, line('b')));
    await addNodes('a', ['one', 'two']);
    const extended = await same((r) => r.radial.insertNode(1, 'a', commitOf('a-x', 2, 'three', true)));
    expect(extended).toMatchObject({ lineSeq: 3, extendsNodeId: 'a-n2', existed: false });
    // The same commit again (a retry after a lost reply), even asking for no extension: the node as written.
    const again = await same((r) => r.radial.insertNode(1, 'a', commitOf('a-x', 9, 'other', false)));
    expect(again).toEqual({ ...extended, existed: true });
    const first = await same((r) => r.radial.insertNode(1, 'b', commitOf('b-1', 0, 'first', true)));
    expect(first).toMatchObject({ lineSeq: 1, extendsNodeId: undefined, existed: false });
    const onAnotherLine = await same((r) => r.radial.insertNode(1, 'b', commitOf('a-x', 0, 'x')));
    expect(onAnotherLine).toMatchObject({ error: { code: 'CONFLICT' } });
    const ofAnotherAgent = await same((r) => r.radial.insertNode(2, 'a', commitOf('a-x', 0, 'x')));
    expect(ofAnotherAgent).toMatchObject({ error: { code: 'NOT_FOUND' } });
    await same((r) => r.radial.createLine(2, line('a')));
    expect(await same((r) => r.radial.insertNode(2, 'a', commitOf('a-x', 0, 'x')))).toMatchObject({
      error: { code: 'CONFLICT' },
    });
    await same((r) => r.radial.counts(1));
    await same((r) => r.radial.counts(2));
    const nodes = await same((r) => r.radial.lineNodes(1, 'a', { limit: 10 }));
    expect(nodes.map((n) => [n.id, n.extra])).toEqual([
      ['a-x', '{"extendsNodeId":"a-n2"}'],
      ['a-n2', '{}'],
      ['a-n1', '{}'],
    ]);
    expect(await same((r) => r.radial.fullContext(1, 'a-x'))).toBe('three');
    const docs = await pair.both(async (r) => (await r.recall.recent({ agentId: 1 }, 100)).length);
    expect(docs.pg).toBe(docs.sqlite);
  });

  it('a lone surrogate is stored as SQLite stores it (its three bytes, each read back as U+FFFD)', async () => {
    await same((r) => r.radial.createLine(1, line('a')));
    await addNodes('a', ['lone \uD800 high', 'lone \uDC00 low']);
    const full = await same((r) => r.radial.fullContext(1, 'a-n1'));
    expect(full).toBe('lone \uFFFD\uFFFD\uFFFD high');
    expect(await same((r) => r.radial.fullContext(1, 'a-n2'))).toBe('lone \uFFFD\uFFFD\uFFFD low');
  });

  it('pending summaries: list, count, fill once, index row refreshed', async () => {
    await same((r) => r.radial.createLine(1, line('a')));
    await addNodes('a', ['one', 'two', 'three', 'four']);
    await same((r) => r.radial.pendingNodes(1, 10));
    await same((r) => r.radial.pendingNodes(1, 1));
    await same((r) => r.radial.pendingCount(1));
    const summaries = { origin: 'o', brief: 'b', summary: 's', detailed: 'the detailed summary' };
    expect(
      await same((r) => r.radial.fillSummaries(1, 'a-n2', summaries, 'ready', 2, 'indexed summary')),
    ).toBe(true);
    expect(await same((r) => r.radial.fillSummaries(1, 'a-n2', summaries, 'ready', 2, 'again'))).toBe(false);
    expect(await same((r) => r.radial.fillSummaries(2, 'a-n4', summaries, 'ready', 2, 'x'))).toBe(false);
    await same((r) => r.radial.nodeById(1, 'a-n2'));
    await same((r) => r.radial.pendingCount(1));
    const docs = await pair.both(async (r) => {
      const rows = await r.recall.recent({ agentId: 1 }, 100);
      return rows.map(({ rowid: _rowid, ...rest }) => rest);
    });
    expect(docs.pg).toEqual(docs.sqlite);
    expect(docs.pg.some((d) => d.part === 'summary' && d.ref === 'a-n2')).toBe(true);
  });

  it('meta: set, keep, overwrite', async () => {
    expect(await same((r) => r.radial.getMeta(1, 'x'))).toBeUndefined();
    expect(await same((r) => r.radial.setMeta(1, 'x', 'one', false))).toBe('one');
    expect(await same((r) => r.radial.setMeta(1, 'x', 'two', false))).toBe('one');
    expect(await same((r) => r.radial.setMeta(1, 'x', 'three', true))).toBe('three');
    await same((r) => r.radial.getMeta(1, 'x'));
    expect(await same((r) => r.radial.getMeta(2, 'x'))).toBeUndefined();
  });

  it('import: a batch, its conflicts (nothing written), and the snapshot', async () => {
    const nodes = AWKWARD.slice(0, 4).map((text, i) => {
      const node = newNode(`imp-${i}`, i, text);
      return { node, index: indexOf(node) };
    });
    const batch = {
      meta: [{ key: 'k', value: 'v', overwrite: false }],
      lines: [
        { line: line('x'), nodes },
        { line: line('y'), nodes: [] },
      ],
    };
    await same((r) => r.radial.importBatch(1, batch));
    const again = await same((r) => r.radial.importBatch(1, batch));
    expect(again).toMatchObject({ error: { code: 'CONFLICT' } });
    const nodeTaken = await same((r) =>
      r.radial.importBatch(2, { meta: [], lines: [{ line: line('z'), nodes }] }),
    );
    expect(nodeTaken).toMatchObject({ error: { code: 'CONFLICT' } });
    expect(await same((r) => r.radial.getLine(2, 'z'))).toBeUndefined();
    const snapshot = await same((r) => r.radial.snapshot(1));
    expect(snapshot[0]?.nodes.map((n) => n.fullContext)).toEqual(AWKWARD.slice(0, 4).reverse());
    await same((r) => r.radial.getMeta(1, 'k'));
  });
});
