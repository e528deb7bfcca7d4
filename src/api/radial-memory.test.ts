import { expect, it } from 'vitest';
import { codePointLength } from '../core/text.js';
import { MockSummarizer } from '../llm/mock-summarizer.js';
import { countTokens } from '../core/tokens.js';
import { describeEngines, freshMemoryPath, memoryDigest } from '../../test/helpers/engines.js';
import { CORPUS, loadCorpus, openTempMemory, task } from '../../test/helpers/radial.js';
import { openMemory } from './memory-db.js';
import { RadialMemory } from './radial-memory.js';
import { rejection } from '../../test/helpers/errors.js';

describeEngines('lines', () => {
  it('creates, lists and finds lines; a duplicate id is a CONFLICT', async () => {
    const { db } = await openTempMemory();
    const radial = db.primary().radial;
    const auth = await radial.createLine('auth', 'Authentication', 'Login and tokens');
    expect(auth).toMatchObject({ id: 'auth', name: 'Authentication', nodeCount: 0, latest: undefined });
    await radial.createLine('infra');
    expect((await radial.getLine('infra'))?.name).toBe('infra');
    expect(await radial.getLine('nope')).toBeUndefined();
    expect((await rejection(radial.getLineOrThrow('nope'))).code).toBe('NOT_FOUND');
    const conflict = await rejection(radial.createLine('auth', 'Other', ''));
    expect(conflict.code).toBe('CONFLICT');
    expect((await radial.listLines()).map((l) => l.id)).toEqual(['auth', 'infra']);
    const again = await radial.getOrCreateLine('auth', 'Renamed?', 'no');
    expect(again.name).toBe('Authentication');
    await radial.getOrCreateLine('rec', 'Recommendations', '');
    expect((await radial.listLines()).map((l) => l.id)).toEqual(['auth', 'infra', 'rec']);
    await db.close();
  });

  it('keeps each agent’s lines to itself', async () => {
    const { db } = await openTempMemory();
    await db.primary().radial.createLine('auth');
    const other = await db.agent('helper');
    expect(await other.radial.listLines()).toEqual([]);
    await other.radial.createLine('auth');
    await other.radial.completeTask(task('auth', 'Helper task'));
    expect((await db.primary().radial.getLineOrThrow('auth')).nodeCount).toBe(0);
    expect(await db.primary().radial.navigate('helper task')).toBeUndefined();
    await db.close();
  });
});

describeEngines('completeTask', () => {
  it('puts the new node at position 1 and moves older ones out, without rewriting them', async () => {
    const { db } = await openTempMemory();
    const radial = db.primary().radial;
    await radial.createLine('auth');
    const first = await radial.completeTask(task('auth', 'First'));
    const second = await radial.completeTask(task('auth', 'Second'));
    expect(first.position).toBe(1);
    expect(second.position).toBe(1);
    expect((await radial.getNode('auth', 1))?.id).toBe(second.id);
    expect((await radial.getNode('auth', 2))?.id).toBe(first.id);
    expect(await radial.getNode('auth', 3)).toBeUndefined();
    const line = await radial.getLineOrThrow('auth');
    expect(line).toMatchObject({ nodeCount: 2, latest: { nodeId: second.id, taskLabel: 'Second' } });
    await db.close();
  });

  it('makes every level from the whole task, within each level’s cap', async () => {
    const summarizer = new MockSummarizer();
    const { db } = await openTempMemory({ summarizer });
    const radial = db.primary().radial;
    await radial.createLine('auth');
    const node = await radial.completeTask(
      task('auth', 'Rate limiting', {
        conversationSummary: 'We agreed on a token bucket. '.repeat(40),
        fullContext: 'Redis holds the buckets (CONTEXTWORD). '.repeat(200),
        fileChanges: [{ path: 'src/limit.ts', changeType: 'created', diffSummary: 'FILEWORD bucket' }],
        todos: ['TODOWORD tune limits'],
      }),
    );
    const first = summarizer.calls.find((c) => c.operation === 'summarize');
    const source = String(first?.args[0]);
    for (const word of ['Rate limiting', 'token bucket', 'CONTEXTWORD', 'FILEWORD', 'TODOWORD']) {
      expect(source).toContain(word);
    }
    const caps = { origin: 80, brief: 200, summary: 600, detailed: 1800 } as const;
    for (const [level, cap] of Object.entries(caps)) {
      const text = node.summaries[level as keyof typeof caps];
      expect(text.length).toBeGreaterThan(0);
      expect(codePointLength(text)).toBeLessThanOrEqual(cap);
    }
    expect(node.summaries.origin).not.toContain('\n');
    expect(node.summaries.brief).not.toContain('\n');
    expect(node.summaries.origin.startsWith('Rate limiting')).toBe(true);
    expect(node.summariesState).toBe('ready');
    await db.close();
  });

  it('cuts a model’s overlong summaries to the caps', async () => {
    const summarizer = new MockSummarizer();
    summarizer.summarize = async () => 'word '.repeat(1000);
    const { db } = await openTempMemory({ summarizer });
    await db.primary().radial.createLine('a');
    const node = await db.primary().radial.completeTask(task('a', 'Label'));
    expect(codePointLength(node.summaries.detailed)).toBeLessThanOrEqual(1800);
    expect(codePointLength(node.summaries.brief)).toBeLessThanOrEqual(200);
    expect(codePointLength(node.summaries.origin)).toBeLessThanOrEqual(80);
    await db.close();
  });

  // Several megabytes committed and read back: a generous bound on a loaded machine.
  it(
    'returns the full context byte for byte: multi-megabyte, any Unicode, empty lines',
    { timeout: 120_000 },
    async () => {
      const { db } = await openTempMemory();
      const radial = db.primary().radial;
      await radial.createLine('big');
      const unit = 'línea 1\r\n\n\n  indented\ttab 🦔 日本語のテキスト 한국어 \u0001\u007f\u200b\u2028end\n';
      const big = unit.repeat(Math.ceil((3 * 1024 * 1024) / unit.length));
      const texts = [big, '', '\n\n\n', '   ', 'x'.repeat(10), '\u{10FFFF}\u{1F600}\uFEFF'];
      for (const [i, text] of texts.entries()) {
        const node = await radial.completeTask(task('big', `Task ${i}`, { fullContext: text }));
        const restored = await radial.loadFullState(node.id);
        expect(Buffer.from(restored, 'utf8').equals(Buffer.from(text, 'utf8'))).toBe(true);
        expect(node.state.fullContextBytes).toBe(Buffer.byteLength(text, 'utf8'));
      }
      const session = await radial.openNode('big', texts.length, 4);
      expect(await session.loadFullState()).toBe(big);
      expect(session.context).toContain(big);
      await db.close();
    },
  );

  it('summarises a context of serialised chat messages as the transcript it holds, and keeps its bytes', async () => {
    const { db } = await openTempMemory();
    const radial = db.primary().radial;
    await radial.createLine('ops');
    const messages = JSON.stringify([
      { role: 'user', content: 'The nightly export has failed since Tuesday with exit 137.' },
      {
        role: 'assistant',
        content: [{ type: 'tool_use', id: 't', name: 'bash', input: { cmd: 'kubectl get pod' } }],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: 'OOMKilled' }] },
      {
        role: 'assistant',
        content: 'Root cause: commit a91c2e0 tripled the rows held in memory. Done: it streams now.',
      },
    ]);
    const node = await radial.completeTask(
      task('ops', 'Nightly export OOM', { fullContext: messages, conversationSummary: '' }),
    );
    for (const level of ['origin', 'brief', 'summary', 'detailed'] as const)
      expect(node.summaries[level]).not.toMatch(/"role"|"content"|tool_use|OOMKilled/u);
    expect(node.summaries.brief).toContain('a91c2e0');
    expect(await radial.loadFullState(node.id)).toBe(messages);
    await db.close();
  });

  it('keeps the environment snapshot, files and todos', async () => {
    const { db } = await openTempMemory();
    const radial = db.primary().radial;
    await radial.createLine('a');
    const env = { node: '20', flags: [1, 2.5, true, null], nested: { deep: { ok: 'yes' } } };
    await radial.completeTask(
      task('a', 'With state', {
        envSnapshot: env,
        todos: ['one', 'two'],
        fileChanges: [{ path: 'a.ts' }, { path: 'b.ts', changeType: 'deleted', diffSummary: 'gone' }],
      }),
    );
    const node = await radial.getNodeOrThrow('a', 1);
    expect(node.state.envSnapshot).toEqual(env);
    expect(node.state.todos).toEqual(['one', 'two']);
    expect(node.state.fileChanges).toEqual([
      { path: 'a.ts', changeType: 'modified', diffSummary: '' },
      { path: 'b.ts', changeType: 'deleted', diffSummary: 'gone' },
    ]);
    await db.close();
  });

  it('serialises concurrent commits on one agent without losing any', async () => {
    const { db } = await openTempMemory();
    const radial = db.primary().radial;
    await radial.createLine('a');
    await radial.createLine('b');
    const commits = Array.from({ length: 40 }, (_, i) =>
      radial.completeTask(task(i % 2 ? 'a' : 'b', `Task ${i}`)),
    );
    const nodes = await Promise.all(commits);
    expect(new Set(nodes.map((n) => n.id)).size).toBe(40);
    for (const lineId of ['a', 'b']) {
      const history = await radial.getLineHistory(lineId);
      expect(history.map((h) => h.position)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
      expect(new Set(history.map((h) => h.nodeId)).size).toBe(20);
    }
    await db.close();
  });

  it('extendTask continues the newest node of the line', async () => {
    const { db } = await openTempMemory();
    const radial = db.primary().radial;
    await radial.createLine('a');
    const empty = await rejection(
      radial.extendTask({ lineId: 'a', fullContext: 'x', conversationSummary: '' }),
    );
    expect(empty).toMatchObject({ code: 'INVALID_INPUT', field: 'extendTask.taskLabel' });
    const base = await radial.completeTask(task('a', 'Base work'));
    const more = await radial.extendTask({
      lineId: 'a',
      fullContext: 'more',
      conversationSummary: 'continued',
    });
    expect(more).toMatchObject({ taskLabel: 'Base work', extendsNodeId: base.id, position: 1 });
    expect((await radial.getNodeOrThrow('a', 1)).extendsNodeId).toBe(base.id);
    expect(base.extendsNodeId).toBeUndefined();
    await db.close();
  });
});

describeEngines('a failing summariser never loses a commit', () => {
  it('commits with summaries pending, and fills them later', async () => {
    const summarizer = new MockSummarizer();
    summarizer.failing = true;
    const { db } = await openTempMemory({ summarizer });
    const radial = db.primary().radial;
    await radial.createLine('a');
    const node = await radial.completeTask(
      task('a', 'Migrate billing', {
        conversationSummary: 'Moved invoices to Stripe.',
        fullContext: 'VERBATIM',
      }),
    );
    expect(node.summariesState).toBe('pending');
    expect(node.summaries.origin).toBe('Migrate billing');
    expect(node.summaries.brief).toContain('Moved invoices to Stripe.');
    expect(await radial.loadFullState(node.id)).toBe('VERBATIM');
    expect((await db.stats()).pending.summaries).toBe(1);
    // The verbatim text is searchable at once.
    expect((await radial.navigate('billing invoices stripe'))?.node.id).toBe(node.id);

    const stillDown = await radial.fillPendingSummaries();
    expect(stillDown).toMatchObject({ filled: 0, failed: 1, remaining: 1 });
    summarizer.failing = false;
    const filled = await radial.fillPendingSummaries();
    expect(filled).toMatchObject({ filled: 1, failed: 0, remaining: 0 });
    const after = await radial.getNodeOrThrow('a', 1);
    expect(after.summariesState).toBe('ready');
    expect((await db.stats()).pending.summaries).toBe(0);
    await db.close();
  });

  it('treats a summariser that throws synchronously or returns junk the same way', async () => {
    const summarizer = new MockSummarizer();
    summarizer.summarize = () => {
      throw new Error('boom');
    };
    const { db } = await openTempMemory({ summarizer });
    const radial = db.primary().radial;
    await radial.createLine('a');
    expect((await radial.completeTask(task('a', 'One'))).summariesState).toBe('pending');
    summarizer.summarize = async () => 42 as unknown as string;
    expect((await radial.completeTask(task('a', 'Two'))).summariesState).toBe('pending');
    expect((await radial.getLineOrThrow('a')).nodeCount).toBe(2);
    await db.close();
  });

  it('keeps summaries the caller supplies, computing only the missing ones', async () => {
    const summarizer = new MockSummarizer();
    summarizer.failing = true;
    const { db } = await openTempMemory({ summarizer });
    const radial = db.primary().radial;
    await radial.createLine('a');
    const all = { origin: 'o', brief: 'b', summary: 's', detailed: 'd' };
    const node = await radial.completeTask(task('a', 'Given', { summaries: all }));
    expect(node).toMatchObject({ summaries: all, summariesState: 'ready' });
    const partial = await radial.completeTask(task('a', 'Partly', { summaries: { brief: 'given brief' } }));
    expect(partial.summariesState).toBe('pending');
    expect(partial.summaries.brief).toBe('given brief');
    expect(partial.summaries.origin).toBe('given brief');
    await db.close();
  });
});

describeEngines('bad input is refused before anything is written', () => {
  const cases: [string, Record<string, unknown>, string][] = [
    ['empty label', { taskLabel: '' }, 'completeTask.taskLabel'],
    ['blank label', { taskLabel: '  \n' }, 'completeTask.taskLabel'],
    ['label not a string', { taskLabel: 7 }, 'completeTask.taskLabel'],
    ['context not a string', { fullContext: 12 }, 'completeTask.fullContext'],
    ['context missing', { fullContext: undefined }, 'completeTask.fullContext'],
    ['context with a lone surrogate', { fullContext: 'a\uD800b' }, 'completeTask.fullContext'],
    ['summary not a string', { conversationSummary: null }, 'completeTask.conversationSummary'],
    ['env with a Date', { envSnapshot: { when: new Date(0) } }, 'completeTask.envSnapshot.when'],
    ['env with a function', { envSnapshot: { f: () => 1 } }, 'completeTask.envSnapshot.f'],
    ['env with a bigint', { envSnapshot: { n: 1n } }, 'completeTask.envSnapshot.n'],
    ['env with NaN', { envSnapshot: { deep: [1, Number.NaN] } }, 'completeTask.envSnapshot.deep.1'],
    ['env with undefined', { envSnapshot: { u: undefined } }, 'completeTask.envSnapshot.u'],
    ['env not an object', { envSnapshot: [1, 2] }, 'completeTask.envSnapshot'],
    ['file without path', { fileChanges: [{ changeType: 'created' }] }, 'completeTask.fileChanges.0.path'],
    ['todo not a string', { todos: ['ok', 3] }, 'completeTask.todos.1'],
    ['unknown field', { modified_files: [] }, 'completeTask'],
    ['empty line id', { lineId: '' }, 'completeTask.lineId'],
  ];

  for (const [name, patch, field] of cases) {
    it(`${name} → INVALID_INPUT naming ${field}`, async () => {
      const { db, path } = await openTempMemory();
      const radial = db.primary().radial;
      await radial.createLine('a');
      await radial.completeTask(task('a', 'Existing'));
      const before = await memoryDigest(path);
      const error = await rejection(radial.completeTask({ ...task('a', 'Bad'), ...patch } as never));
      expect(error.code).toBe('INVALID_INPUT');
      expect(error.field).toBe(field);
      expect(await memoryDigest(path)).toBe(before);
      await db.close();
    });
  }

  it('a cyclic env snapshot is refused', async () => {
    const { db } = await openTempMemory();
    await db.primary().radial.createLine('a');
    const env: Record<string, unknown> = {};
    env['self'] = env;
    const error = await rejection(
      db.primary().radial.completeTask(task('a', 'Cycle', { envSnapshot: env as never })),
    );
    expect(error).toMatchObject({ code: 'INVALID_INPUT', field: 'completeTask.envSnapshot.self' });
    await db.close();
  });

  it('unknown line → NOT_FOUND naming lineId, and the summariser is not even called', async () => {
    const summarizer = new MockSummarizer();
    const { db, path } = await openTempMemory({ summarizer });
    const before = await memoryDigest(path);
    const error = await rejection(db.primary().radial.completeTask(task('ghost', 'Task')));
    expect(error).toMatchObject({ code: 'NOT_FOUND', field: 'lineId' });
    expect(summarizer.calls).toHaveLength(0);
    expect(await memoryDigest(path)).toBe(before);
    await db.close();
  });

  it('unknown position, bad positions and levels outside 0..4', async () => {
    const { db } = await openTempMemory();
    const radial = db.primary().radial;
    await radial.createLine('a');
    await radial.completeTask(task('a', 'Only'));
    expect(await radial.getNode('a', 2)).toBeUndefined();
    expect(await rejection(radial.getNodeOrThrow('a', 2))).toMatchObject({
      code: 'NOT_FOUND',
      field: 'position',
    });
    expect(await rejection(radial.getNode('ghost', 1))).toMatchObject({ code: 'NOT_FOUND', field: 'lineId' });
    expect(await rejection(radial.loadNodeContext('a', 9))).toMatchObject({
      code: 'NOT_FOUND',
      field: 'position',
    });
    for (const position of [0, -1, 1.5, Number.NaN, '1']) {
      expect(await rejection(radial.getNode('a', position as number))).toMatchObject({
        code: 'INVALID_INPUT',
        field: 'position',
      });
    }
    for (const level of [5, -1, 2.5, 'huge', null]) {
      expect(await rejection(radial.loadNodeContext('a', 1, level as never))).toMatchObject({
        code: 'INVALID_INPUT',
        field: 'level',
      });
      expect(await rejection(radial.navigate('only', { initialLevel: level as never }))).toMatchObject({
        code: 'INVALID_INPUT',
        field: 'options.initialLevel',
      });
    }
    expect(await radial.loadNodeContext('a', 1, 'full')).toContain('Full context of Only.');
    await db.close();
  });

  it('a closed memory is CLOSED', async () => {
    const { db } = await openTempMemory();
    const radial = db.primary().radial;
    await radial.createLine('a');
    await db.close();
    expect((await rejection(radial.listLines())).code).toBe('CLOSED');
    expect((await rejection(radial.completeTask(task('a', 'Late')))).code).toBe('CLOSED');
  });
});

describeEngines('navigation', () => {
  it('answers natural-language and reworded questions with the right node', async () => {
    const { db } = await openTempMemory();
    await loadCorpus(db);
    const radial = db.primary().radial;
    const questions: [string, string][] = [
      ['How did we implement the login endpoint?', 'Implement JWT login endpoint'],
      ['implementing logins', 'Implement JWT login endpoint'],
      ['what happens when someone forgets their password?', 'Password reset by email'],
      ['Which model powers the product recommendations?', 'Collaborative filtering recommender'],
      ['what do brand-new users without purchases see?', 'Cold-start fallback'],
      ['how is the app deployed in production?', 'Deploy to Kubernetes'],
      ['docker image size', 'Dockerize the API'],
      ['token rotation on refresh', 'Add JWT refresh endpoint'],
    ];
    for (const [question, label] of questions) {
      const session = await radial.navigate(question);
      expect(session?.node.taskLabel, question).toBe(label);
      expect(session?.confidence).toBeGreaterThan(0);
      expect(session?.confidence).toBeLessThanOrEqual(1);
    }
    await db.close();
  });

  it('ranks every candidate instead of stopping at the first good-enough one', async () => {
    const { db } = await openTempMemory();
    await loadCorpus(db);
    // HedgehogMemory returned the newer refresh node here (its 0.8 ≥ 0.7 early stop).
    const session = await db.primary().radial.navigate('JWT login endpoint', { lineId: 'auth' });
    expect(session?.node.taskLabel).toBe('Implement JWT login endpoint');
    expect(session?.candidates.map((c) => c.node.taskLabel)).toContain('Add JWT refresh endpoint');
    const confidences = session?.candidates.map((c) => c.confidence) ?? [];
    expect(confidences[0]).toBe(1);
    for (const c of confidences) expect(c).toBeGreaterThan(0);
    expect(session?.candidates.every((c) => c.node.lineId === 'auth')).toBe(true);
    await db.close();
  });

  it('finds CJK text with a CJK query', async () => {
    const { db } = await openTempMemory();
    const radial = db.primary().radial;
    await radial.createLine('deploy', '部署');
    await radial.completeTask(
      task('deploy', '使用 Docker 部署容器', { fullContext: '我们用 Docker 部署了容器，并配置了负载均衡。' }),
    );
    await radial.completeTask(
      task('deploy', '数据库备份', { fullContext: '每天凌晨备份数据库到对象存储。' }),
    );
    expect((await radial.navigate('docker 部署容器'))?.node.taskLabel).toBe('使用 Docker 部署容器');
    expect((await radial.navigate('备份数据库'))?.node.taskLabel).toBe('数据库备份');
    await db.close();
  });

  it('returns undefined below the threshold, NOT_FOUND for an unknown line, INVALID_INPUT for an empty query', async () => {
    const { db } = await openTempMemory();
    await loadCorpus(db);
    const radial = db.primary().radial;
    expect(await radial.navigate('quantum chromodynamics lattice')).toBeUndefined();
    expect(await radial.navigate('JWT login', { confidenceThreshold: 1.0 })).toBeDefined();
    expect(await rejection(radial.navigate('login', { lineId: 'ghost' }))).toMatchObject({
      code: 'NOT_FOUND',
      field: 'lineId',
    });
    expect(await rejection(radial.navigate('  '))).toMatchObject({ code: 'INVALID_INPUT', field: 'query' });
    expect(await rejection(radial.navigate(undefined as never))).toMatchObject({ code: 'INVALID_INPUT' });
    await db.close();
  });

  it('reports the same confidences whatever threshold the caller passes', async () => {
    const { db } = await openTempMemory();
    await loadCorpus(db);
    const radial = db.primary().radial;
    for (const query of ['how do users log in?', 'what happens when someone forgets their password?']) {
      const all = await radial.navigate(query, { confidenceThreshold: 0 });
      const expected = all?.candidates.map((c) => [c.node.id, c.confidence]);
      expect(expected?.length).toBeGreaterThan(0);
      for (const confidenceThreshold of [0.1, 0.2, 0.25, 0.3, 0.5]) {
        const session = await radial.navigate(query, { confidenceThreshold });
        const best = expected?.[0]?.[1] as number;
        // Found exactly when the threshold-free best confidence reaches the threshold, with the same values.
        expect(session === undefined).toBe(best < confidenceThreshold);
        if (session) expect(session.candidates.map((c) => [c.node.id, c.confidence])).toEqual(expected);
      }
    }
    await db.close();
  });

  it('drills down level by level to the verbatim state and walks to the next candidate', async () => {
    const { db } = await openTempMemory();
    await loadCorpus(db);
    const radial = db.primary().radial;
    const s1 = await radial.navigate('JWT endpoint', { initialLevel: 'brief' });
    expect(s1?.level).toBe(1);
    let session = s1!;
    const levels = [session.level];
    while (session.canDrillDeeper) {
      session = await session.drillDeeper();
      levels.push(session.level);
    }
    expect(levels).toEqual([1, 2, 3, 4]);
    expect(session.isFullStateLoaded).toBe(true);
    expect(await session.drillDeeper()).toBe(session);
    expect(session.context).toContain(await session.loadFullState());
    const second = await s1!.next();
    expect(second?.node.id).toBe(s1!.candidates[1]?.node.id);
    expect(second?.level).toBe(1);
    let last = second;
    while (last) {
      const following = await last.next();
      if (!following) break;
      last = following;
    }
    expect(last?.candidateIndex).toBe(s1!.candidates.length - 1);
    await db.close();
  });

  it('confidence is comparable across queries: full coverage is 1, partial coverage is lower', async () => {
    const { db } = await openTempMemory();
    await loadCorpus(db);
    const radial = db.primary().radial;
    const full = await radial.navigate('Kubernetes Helm');
    const partial = await radial.navigate('Kubernetes helm chart terraform ansible');
    expect(full?.confidence).toBe(1);
    expect(partial?.node.taskLabel).toBe('Deploy to Kubernetes');
    expect(partial!.confidence).toBeLessThan(1);
    await db.close();
  });

  it('navigateStepByStep honours its query and line, then walks every other node', async () => {
    const { db } = await openTempMemory();
    await loadCorpus(db);
    const radial = db.primary().radial;
    const walk = await radial.navigateStepByStep('password reset', { lineId: 'auth' });
    expect(walk.remaining).toBe(3);
    const first = await walk.next();
    expect(first?.node.taskLabel).toBe('Password reset by email');
    expect(first!.confidence).toBeGreaterThan(0);
    const rest: string[] = [];
    for (let s = await walk.next(); s; s = await walk.next()) rest.push(s.node.taskLabel);
    expect(rest.sort()).toEqual(['Add JWT refresh endpoint', 'Implement JWT login endpoint']);
    expect(walk.remaining).toBe(0);
    expect(await rejection(radial.navigateStepByStep('x', { lineId: 'ghost' }))).toMatchObject({
      code: 'NOT_FOUND',
    });
    const all = await radial.navigateStepByStep('');
    let count = 0;
    for (let s = await all.next(); s; s = await all.next()) count++;
    expect(count).toBe(CORPUS.length);
    await db.close();
  });
});

describeEngines('views', () => {
  it('getLineHistory presents further nodes at lower levels', async () => {
    const { db } = await openTempMemory();
    const radial = db.primary().radial;
    await radial.createLine('a');
    for (let i = 1; i <= 12; i++) await radial.completeTask(task('a', `Task ${i}`));
    const history = await radial.getLineHistory('a');
    expect(history.map((h) => h.level)).toEqual([
      3,
      2,
      1,
      1,
      0,
      0,
      0,
      0,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    expect(history[0]?.taskLabel).toBe('Task 12');
    expect(history[11]?.text).toBe('Task 1');
    expect(history[11]?.levelName).toBe('label');
    await db.close();
  });

  it('sessions show earlier tasks of the line, less detailed with distance', async () => {
    const { db } = await openTempMemory();
    const radial = db.primary().radial;
    await radial.createLine('a');
    for (let i = 1; i <= 12; i++) await radial.completeTask(task('a', `Task ${i}`));
    const session = await radial.openNode('a', 1, 1);
    expect(session.context).toContain('--- earlier on this line ---');
    expect(session.context).toContain('#2');
    expect(session.context).toContain('#9');
    expect(session.context).not.toContain('#10 ');
    expect(session.context).toContain('3 earlier tasks');
    expect(session.context).toMatch(/position 1 of 12/u);
    expect(session.context).not.toMatch(/[\u4e00-\u9fff]/u);
    await db.close();
  });

  it('the origin fits its token budget with 3 lines or 300, folding the least recently active', async () => {
    const { db } = await openTempMemory();
    const radial = db.primary().radial;
    for (let i = 0; i < 3; i++) {
      await radial.createLine(`line${i}`, `Line number ${i}`, 'A task domain');
      await radial.completeTask(task(`line${i}`, `Ship feature ${i} of the product`));
    }
    const small = await radial.getOriginContext();
    expect(countTokens(small)).toBeLessThanOrEqual(200);
    for (let i = 0; i < 3; i++) expect(small).toContain(`line${i} [Line number ${i}]`);
    for (let i = 3; i < 300; i++) await radial.createLine(`line${i}`, `Line number ${i}`, 'A task domain');
    await radial.completeTask(task('line150', 'Recently touched'));
    const large = await radial.getOriginContext();
    expect(countTokens(large)).toBeLessThanOrEqual(200);
    expect(large).toContain('line150');
    expect(large).toMatch(/less recently active lines folded/u);
    expect(large).toContain('300 task lines');
    await db.close();
  });

  it('puts the profile brief at the top of the origin', async () => {
    const { db } = await openTempMemory();
    const agent = db.primary();
    await agent.updateProfile({ name: 'Ada', role: 'release engineer' });
    await agent.radial.createLine('a');
    const origin = await agent.radial.getOriginContext();
    expect(origin.split('\n')[1]).toBe('Agent: name: Ada; role: release engineer');
    expect(countTokens(origin)).toBeLessThanOrEqual(200);
    await db.close();
  });

  it('honours a custom origin budget', async () => {
    const { db } = await openTempMemory({ originTokenBudget: 60 });
    const radial = db.primary().radial;
    for (let i = 0; i < 20; i++) await radial.createLine(`l${i}`, `A rather long line name number ${i}`, 'x');
    expect(countTokens(await radial.getOriginContext())).toBeLessThanOrEqual(60);
    await db.close();
  });
});

describeEngines('RadialMemory.open', () => {
  it('opens a file standalone; the stored project name wins on reopen; close closes the file', async () => {
    const path = freshMemoryPath();
    const first = await RadialMemory.open(path, { projectName: 'Shop' });
    expect(await first.getProjectName()).toBe('Shop');
    await first.createLine('auth');
    await first.completeTask(task('auth', 'Login'));
    expect(await first.getOriginContext()).toContain('"Shop"');
    await first.close();
    const second = await RadialMemory.open(path, { projectName: 'Other' });
    expect(await second.getProjectName()).toBe('Shop');
    expect((await second.getNodeOrThrow('auth', 1)).taskLabel).toBe('Login');
    await second.setProjectName('Renamed');
    await second.close();
    const db = await openMemory(path);
    expect(await db.primary().radial.getProjectName()).toBe('Renamed');
    expect((await rejection(db.primary().radial.close())).code).toBe('CONFLICT');
    await db.close();
  });

  it('refuses a bad project name before creating anything', async () => {
    const path = freshMemoryPath();
    expect(await rejection(RadialMemory.open(path, { projectName: '' }))).toMatchObject({
      code: 'INVALID_INPUT',
      field: 'projectName',
    });
  });
});
