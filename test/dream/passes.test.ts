import { expect, it } from 'vitest';
import { openMemory, type DreamReport, type DreamStageReport } from '../../src/index.js';
import { LanguageModelError } from '../../src/llm/language-model-error.js';
import { conversationProblems, expectRefusal, rows } from '../conversation/helpers.js';
import { describeEngines, freshMemoryPath } from '../helpers/engines.js';
import {
  fillScene,
  Gate,
  memoryState,
  openDreamTemp,
  promptTopicIds,
  scriptedSummarizer,
  TestClock,
} from './helpers.js';
import { rejection } from '../helpers/errors.js';

const stage = (report: DreamReport, name: DreamStageReport['name']): DreamStageReport =>
  report.stages.find((s) => s.name === name) as DreamStageReport;

describeEngines('Dream with a scripted model', () => {
  it('fuses what the model groups, with model keywords, and counts the calls', async () => {
    const { summarizer, model } = scriptedSummarizer({
      groupTopics: (o) => {
        const ids = promptTopicIds(o.prompt);
        return {
          groups: [
            {
              topic_ids: ids.slice(0, 3),
              merged_summary: 'Three questions on the billing deploy, answered.',
            },
            { topic_ids: [ids[5], ids[4]], merged_summary: 'Two turns about vault secrets.' },
          ],
        };
      },
    });
    const { db, clock, agent } = await openDreamTemp({ dream: { auto: false }, summarizer });
    const sceneId = await fillScene(agent, clock, { threads: 7, perThread: 3 });
    const report = await agent.dream();
    expect(stage(report, 'compress')).toMatchObject({
      status: 'ok',
      changed: { fusedTopics: 2, topicsFolded: 5 },
    });
    // 1 grouping call + 1 keyword call per applied group.
    expect(stage(report, 'compress').modelCalls).toBe(3);
    expect(model.calls.filter((c) => c.operation === 'groupTopics')).toHaveLength(1);
    const fused = (await agent.sceneContext(sceneId)).topics.filter((t) => t.kind === 'fused');
    expect(fused.map((t) => t.childCount).sort()).toEqual([2, 3]);
    expect(fused.every((t) => t.keywords.length > 0 && !t.keywordsPending)).toBe(true);
    expect(await conversationProblems(db)).toEqual([]);
    await db.close();
  });

  it('garbage from the model: the pass reports the error and loses nothing', async () => {
    const { summarizer } = scriptedSummarizer({
      groupTopics: () => 'this is not JSON at all',
      distillProfile: () => ({ personality: 'no numbers here' }),
    });
    const { db, clock, agent } = await openDreamTemp({ dream: { auto: false }, summarizer });
    await fillScene(agent, clock, { threads: 7, perThread: 3 });
    const before = await memoryState(db);
    const report = await agent.dream();
    expect(report.status).toBe('partial');
    expect(stage(report, 'compress').status).toBe('error');
    expect(stage(report, 'compress').errors[0]).toMatch(/grouping failed: .*no usable reply/u);
    expect(stage(report, 'compress').modelCalls).toBe(1);
    expect(stage(report, 'profile').status).toBe('error');
    expect(stage(report, 'engram')).toMatchObject({ status: 'ok', changed: { nodesAdded: 1 } });
    const after = await memoryState(db);
    expect(after.topics).toEqual(before.topics);
    expect(after.archive).toEqual(before.archive);
    expect(after.estimate).toEqual(before.estimate);
    expect(await agent.distilledProfile()).toBeUndefined();
    await db.close();
  });

  it('unusable groups (unknown ids, not adjacent, one member, empty text) are refused one by one', async () => {
    const { summarizer } = scriptedSummarizer({
      groupTopics: (o) => {
        const ids = promptTopicIds(o.prompt);
        return {
          groups: [
            { topic_ids: ['tpc_made_up', ids[0]], merged_summary: 'x' },
            { topic_ids: [ids[0], ids[2]], merged_summary: 'not adjacent' },
            { topic_ids: [ids[3], ids[4]], merged_summary: 'fine' },
            { topic_ids: [ids[4], ids[5]], merged_summary: 'reuses a member' },
          ],
        };
      },
    });
    const { db, clock, agent } = await openDreamTemp({ dream: { auto: false }, summarizer });
    await fillScene(agent, clock, { threads: 7, perThread: 3 });
    const report = await agent.dream();
    const compress = stage(report, 'compress');
    expect(compress.changed.fusedTopics).toBe(1);
    // The model summariser drops malformed groups itself; the rest are refused by Dream's own checks.
    expect(compress.status).toBe('ok');
    expect(await rows(db, "SELECT id FROM topics WHERE kind = 'fused'")).toHaveLength(1);
    await db.close();
  });

  it('a summariser that breaks the contract is checked by Dream too', async () => {
    const { db, clock, agent } = await openDreamTemp({
      dream: { auto: false },
      summarizer: {
        specificationVersion: 'v1',
        id: 'custom',
        summarize: async (text: string) => text.slice(0, 10),
        verifyMatch: async () => ({ match: false, confidence: 0 }),
        distillKeywords: async () => ['kiwi'],
        groupTopics: async (topics) => [
          { topicIds: [topics[0]!.id, topics[2]!.id], mergedSummary: 'gap' },
          { topicIds: [topics[5]!.id], mergedSummary: 'alone' },
          { topicIds: [topics[6]!.id, topics[7]!.id], mergedSummary: '   ' },
          { topicIds: [topics[8]!.id, topics[9]!.id], mergedSummary: 'good' },
        ],
        distillProfile: async () => ({ nonsense: true }) as never,
      },
    });
    await fillScene(agent, clock, { threads: 7, perThread: 3 });
    const report = await agent.dream();
    const compress = stage(report, 'compress');
    expect(compress.changed.fusedTopics).toBe(1);
    expect(compress.errors).toEqual([
      expect.stringMatching(/group 1: the topics are not adjacent/u),
      expect.stringMatching(/group 2: fewer than two topics/u),
      expect.stringMatching(/group 3: the reconstruction is empty/u),
    ]);
    expect(stage(report, 'profile').errors[0]).toMatch(/unusable distillation/u);
    await db.close();
  });

  it('timeouts and throws on every call: everything is reported, nothing lost, the rest still runs', async () => {
    const timeout = (): Error => new LanguageModelError('timeout', 'request timed out after 120 s');
    const { summarizer } = scriptedSummarizer({
      groupTopics: timeout,
      distillProfile: timeout,
      summarize: timeout,
    });
    const { db, clock, agent } = await openDreamTemp({ dream: { auto: false }, summarizer });
    await fillScene(agent, clock, { threads: 7, perThread: 3 });
    const before = await memoryState(db);
    const report = await agent.dream();
    expect(report.status).toBe('partial');
    expect(stage(report, 'compress').errors[0]).toMatch(/timed out/u);
    expect(stage(report, 'profile').errors[0]).toMatch(/timed out/u);
    expect(stage(report, 'engram').status).toBe('ok');
    const after = await memoryState(db);
    expect(after.topics).toEqual(before.topics);
    expect(after.archive).toEqual(before.archive);
    // Listed in the history with its errors.
    const [listed] = await agent.dreamHistory();
    expect(listed).toMatchObject({ id: report.id, status: 'partial' });
    expect(listed?.stages).toEqual(report.stages);
    await db.close();
  });

  it('a failed keyword call leaves the fused topic pending; the next pass fills it', async () => {
    let keywordCalls = 0;
    let groupings = 0;
    const { summarizer } = scriptedSummarizer({
      groupTopics: (o) => {
        const ids = promptTopicIds(o.prompt);
        const first = groupings++ === 0;
        return {
          groups: first
            ? [{ topic_ids: ids.slice(0, 2), merged_summary: 'The first two turns, retold.' }]
            : [],
        };
      },
      distillKeywords: (o) => {
        keywordCalls++;
        return o.prompt.includes('retold') && keywordCalls < 40
          ? new Error('keywords down')
          : { keywords: ['retold', 'turns'] };
      },
    });
    const { db, clock, agent } = await openDreamTemp({ dream: { auto: false }, summarizer });
    await fillScene(agent, clock, { threads: 7, perThread: 3 });
    const report = await agent.dream();
    expect(stage(report, 'compress').changed.fusedTopics).toBe(1);
    expect(stage(report, 'compress').errors[0]).toMatch(/keywords of a reconstruction left pending/u);
    expect(await rows(db, "SELECT keywords_state FROM topics WHERE kind = 'fused'")).toEqual([
      { keywords_state: 'pending' },
    ]);
    keywordCalls = 100;
    const next = await agent.dream();
    expect(stage(next, 'radial').changed.keywordsFilled).toBe(1);
    expect(await rows(db, "SELECT keywords FROM topics WHERE kind = 'fused'")).toEqual([
      { keywords: '["retold","turns"]' },
    ]);
    await db.close();
  });
});

describeEngines('undoDream', () => {
  it('puts back everything a pass changed', async () => {
    const { db, clock, agent } = await openDreamTemp({ dream: { auto: false } });
    const big = await fillScene(agent, clock, { threads: 9, perThread: 3 });
    await fillScene(agent, clock, { threads: 3, perThread: 2, offset: 3 });
    await agent.dream();
    clock.advance(5 * 3_600_000);
    // The first pass left one topic per thread (9); twelve new turns take the scene past the
    // compression floor (20) again.
    await fillScene(agent, clock, { threads: 6, perThread: 2, sceneId: big });
    const before = await memoryState(db);
    const report = await agent.dream();
    expect(stage(report, 'compress').changed.fusedTopics).toBeGreaterThan(0);
    expect(stage(report, 'engram').changed.nodesDecayed).toBeGreaterThan(0);
    expect(await memoryState(db)).not.toEqual(before);

    const undone = await agent.undoDream(report.id);
    expect(undone.fusedTopicsRemoved).toBe(stage(report, 'compress').changed.fusedTopics);
    expect(undone.topicsUnfused).toBe(stage(report, 'compress').changed.topicsFolded);
    expect(undone.engramRowsRestored).toBeGreaterThan(0);
    expect(await memoryState(db)).toEqual(before);
    expect(await conversationProblems(db)).toEqual([]);
    const [listed] = await agent.dreamHistory({ limit: 1 });
    expect(listed?.undoneAt).toBeDefined();
    await db.check();
    await db.close();
  });

  it('refuses when undo would be unsafe, and on bad input, changing nothing', async () => {
    const { db, path, clock, agent } = await openDreamTemp({ dream: { auto: false } });
    const sceneId = await fillScene(agent, clock, { threads: 9, perThread: 3 });
    const first = await agent.dream();
    await fillScene(agent, clock, { threads: 5, perThread: 3, sceneId, offset: 4 });
    const second = await agent.dream(sceneId);
    expect(stage(second, 'compress').changed.fusedTopics).toBeGreaterThan(0);

    await expectRefusal(path, () => agent.undoDream(first.id), 'CONFLICT', /ran after .* undo .* first/u);
    await expectRefusal(path, () => agent.undoDream('drm_nope'), 'NOT_FOUND');
    await expectRefusal(path, () => agent.undoDream('' as string), 'INVALID_INPUT', /undoDream\.id/u);
    await expectRefusal(path, () => agent.undoDream(7 as unknown as string), 'INVALID_INPUT');

    // A fused topic renamed by the host since: undoing would lose the name.
    const fusedId = (await rows(db, 'SELECT id FROM topics WHERE dream_id = ? LIMIT 1', second.id))[0]
      ?.id as string;
    await agent.renameTopic(fusedId, 'Kept by the host');
    await expectRefusal(path, () => agent.undoDream(second.id), 'CONFLICT', /was named/u);
    // Deleted since (with its members): nothing to unfold.
    await agent.deleteTopic(fusedId);
    await expectRefusal(path, () => agent.undoDream(second.id), 'CONFLICT', /deleted since/u);
    await db.close();

    // A pass that changed nothing does not block undoing an earlier one; undo twice is refused.
    const other = await openDreamTemp({ dream: { auto: false } });
    await fillScene(other.agent, other.clock, { threads: 9, perThread: 3 });
    const changed = await other.agent.dream();
    await other.agent.dream();
    await other.agent.undoDream(changed.id);
    await expectRefusal(other.path, () => other.agent.undoDream(changed.id), 'CONFLICT', /already undone/u);
    await other.db.close();
  });
});

describeEngines('Dream in the background and alongside turns', () => {
  it('starts after the update that takes a scene past the threshold, and records its pass', async () => {
    const { db, clock, agent } = await openDreamTemp({
      dream: { topicThreshold: 24, compressMinTopics: 20 },
    });
    const sceneId = await fillScene(agent, clock, { threads: 8, perThread: 3 });
    await agent.waitForDream();
    expect(await agent.dreamHistory()).toEqual([]);
    await agent.search({ sceneId });
    await agent.update({ input: 'The billing service deploy once more', createdAt: clock.now() });
    await agent.waitForDream();
    const history = await agent.dreamHistory();
    expect(history).toHaveLength(1);
    expect(history[0]).toMatchObject({ startedBy: 'background', sceneId, status: 'ok' });
    expect(
      (await agent.sceneContext(sceneId)).topics.filter((t) => t.depth === 1).length,
    ).toBeLessThanOrEqual(20);
    await db.close();
  });

  it('never triggers with auto off; a failing background pass is recorded, never thrown into the turn', async () => {
    const off = await openDreamTemp({ dream: { auto: false } });
    await fillScene(off.agent, off.clock, { threads: 9, perThread: 3 });
    await off.agent.waitForDream();
    expect(await off.agent.dreamHistory()).toEqual([]);
    await off.db.close();

    const { summarizer } = scriptedSummarizer({ groupTopics: () => new Error('model exploded') });
    const { db, clock, agent } = await openDreamTemp({ summarizer });
    await fillScene(agent, clock, { threads: 9, perThread: 3 }); // every update resolves
    await agent.waitForDream();
    const history = await agent.dreamHistory();
    expect(history.length).toBeGreaterThanOrEqual(1);
    expect(history.every((r) => r.startedBy === 'background' && r.status === 'partial')).toBe(true);
    expect(stage(history[0]!, 'compress').errors[0]).toMatch(/model exploded/u);
    // Re-offered only after the scene grew by topicThreshold - compressMinTopics topics.
    expect(history.length).toBeLessThanOrEqual(1 + Math.floor((27 - 25) / 4));
    await db.close();
  });

  it('a turn runs to completion while a pass waits on the model; the pass then applies what still holds', async () => {
    const gate = new Gate();
    const { summarizer } = scriptedSummarizer({
      groupTopics: async (o) => {
        await gate.wait();
        const ids = promptTopicIds(o.prompt);
        return {
          groups: [
            { topic_ids: ids.slice(0, 2), merged_summary: 'First two, retold.' },
            { topic_ids: ids.slice(3, 5), merged_summary: 'Fourth and fifth, retold.' },
          ],
        };
      },
    });
    const { db, clock, agent } = await openDreamTemp({ dream: { auto: false }, summarizer });
    const sceneId = await fillScene(agent, clock, { threads: 7, perThread: 3 });
    const victim = (await agent.sceneContext(sceneId)).topics[3]!.id;
    let settled = false;
    const pass = agent.dream().finally(() => (settled = true));
    await gate.arrived;
    // A whole turn, and a delete of a topic the pass is about to fuse, while it computes.
    const opened = await agent.search({ sceneId });
    await agent.appendArchive({
      kind: 'event',
      eventType: 'tool_call',
      content: '{"tool":"ls"}',
      createdAt: clock.now(),
    });
    const closed = await agent.update({
      input: 'A turn during Dream',
      output: 'Done.',
      createdAt: clock.now(),
    });
    expect(closed.topic.id).toBe(opened.turnId);
    await agent.deleteTopic(victim);
    expect(settled).toBe(false);
    gate.open();
    const report = await pass;
    const compress = stage(report, 'compress');
    expect(compress.changed.fusedTopics).toBe(1);
    expect(compress.conflicts).toEqual([expect.stringMatching(/was deleted while Dream computed/u)]);
    expect(report.status).toBe('partial');
    expect(await rows(db, 'SELECT id FROM topics WHERE id = ?', opened.turnId)).toHaveLength(1);
    expect(await conversationProblems(db)).toEqual([]);
    await db.close();
  });

  it('one pass per agent across two handles on one file: BUSY, skipped background, lapsed leases', async () => {
    const path = freshMemoryPath();
    const gate = new Gate();
    const clock = new TestClock();
    const slow = scriptedSummarizer({
      groupTopics: async () => {
        await gate.wait();
        return { groups: [] };
      },
    });
    const a = await openMemory(path, { clock, summarizer: slow.summarizer, dream: { auto: false } });
    const b = await openMemory(path, { clock, dream: { topicThreshold: 24, compressMinTopics: 20 } });
    const sceneId = await fillScene(a.primary(), clock, { threads: 8, perThread: 3 });
    const pass = a.primary().dream();
    await gate.arrived;
    const busy = await rejection(b.primary().dream());
    expect(busy.code).toBe('BUSY');
    expect(busy.message).toMatch(/another process is running Dream/u);
    // B's update passes the threshold: its background pass finds the lease taken and skips.
    await b.primary().search({ sceneId });
    await b.primary().update({ input: 'Pushing the scene past the threshold', createdAt: clock.now() });
    await b.primary().waitForDream();
    gate.open();
    await pass;
    expect((await b.primary().dreamHistory()).map((r) => r.startedBy)).toEqual(['explicit']);
    // Free again: B can run a pass.
    expect((await b.primary().dream()).status).toBe('ok');

    // A crashed worker's lease lapses; a live one blocks; its unfinished run lists as interrupted.
    const agentId = b.primary().info().id;
    const lease = async (owner: string, expiresAt: number): Promise<void> => {
      await rows(
        b,
        `INSERT INTO leases (name, owner, expires_at) VALUES (?, ?, ?)
         ON CONFLICT (name) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at`,
        `dream:${agentId}`,
        owner,
        expiresAt,
      );
    };
    await rows(
      b,
      "INSERT INTO dream_runs (id, agent_id, status, owner, started_at) VALUES ('drm_dead', ?, 'running', 'dead', ?)",
      agentId,
      clock.now(),
    );
    await lease('dead', Date.now() - 1);
    expect((await b.primary().dream()).status).toBe('ok');
    expect((await b.primary().dreamHistory()).find((r) => r.id === 'drm_dead')?.status).toBe('interrupted');
    await lease('alive', Date.now() + 60_000);
    expect((await rejection(b.primary().dream())).code).toBe('BUSY');
    expect((await rejection(b.primary().undoDream('drm_dead'))).message).toMatch(/has not finished/u);
    const done = (await b.primary().dreamHistory()).find((r) => r.status === 'ok')?.id as string;
    expect((await rejection(b.primary().undoDream(done))).code).toBe('BUSY');
    await a.close();
    await b.close();
  });

  it('close() cancels a pass stuck on the model: it applies nothing and is recorded as cancelled', async () => {
    const gate = new Gate();
    const { summarizer } = scriptedSummarizer({
      groupTopics: async () => {
        await gate.wait(); // never opened: a hung model
        return { groups: [] };
      },
    });
    const { db, path, clock, agent } = await openDreamTemp({ dream: { auto: false }, summarizer });
    await fillScene(agent, clock, { threads: 7, perThread: 3 });
    const before = await memoryState(db);
    const pass = agent.dream();
    await gate.arrived;
    await db.close();
    const report = await pass;
    expect(report.status).toBe('cancelled');
    expect(stage(report, 'compress').status).toBe('cancelled');
    const reopened = await openMemory(path, { dream: { auto: false } });
    const after = await memoryState(reopened);
    expect(after.topics).toEqual(before.topics);
    expect(after.engramNodes).toEqual([]);
    const [listed] = await reopened.primary().dreamHistory();
    expect(listed).toMatchObject({ id: report.id, status: 'cancelled' });
    expect(await rows(reopened, 'SELECT * FROM leases')).toEqual([]);
    await reopened.close();
  });

  it('validates its input before anything happens', async () => {
    const { db, path, agent } = await openDreamTemp({ dream: { auto: false } });
    await expectRefusal(path, () => agent.dream(''), 'INVALID_INPUT', /dream\.sceneId/u);
    await expectRefusal(path, () => agent.dream(42 as unknown as string), 'INVALID_INPUT');
    await expectRefusal(path, () => agent.dream('scn_nope'), 'NOT_FOUND', /no scene scn_nope/u);
    await expectRefusal(
      path,
      () => agent.dreamHistory({ limit: 0 }),
      'INVALID_INPUT',
      /dreamHistory\.limit/u,
    );
    await expectRefusal(path, () => agent.dreamHistory({ limit: 1, extra: 1 } as never), 'INVALID_INPUT');
    await db.close();
    await expect(agent.dream()).rejects.toMatchObject({ code: 'CLOSED' });
    await expect(agent.listEngram()).rejects.toMatchObject({ code: 'CLOSED' });
  });
});
