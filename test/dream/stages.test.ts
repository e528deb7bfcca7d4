import { expect, it } from 'vitest';
import { openMemory, type DreamReport, type DreamStageReport } from '../../src/index.js';
import { decay, ENGRAM, keywordJaccard, nodeDecayRate } from '../../src/memory/engram/engram-math.js';
import { conversationProblems, rows } from '../conversation/helpers.js';
import { fillScene, memoryState, openDreamTemp, scriptedSummarizer, TestClock } from './helpers.js';
import { describeEngines, freshMemoryPath } from '../helpers/engines.js';

const stage = (report: DreamReport, name: DreamStageReport['name']): DreamStageReport =>
  report.stages.find((s) => s.name === name) as DreamStageReport;

const HOUR = 3_600_000;

describeEngines('Dream with the offline summariser', () => {
  it('compresses a crowded scene: adjacent turns of a thread fuse, members stay beneath, nothing is lost', async () => {
    const { db, clock, agent } = await openDreamTemp({ dream: { auto: false } });
    const sceneId = await fillScene(agent, clock, { threads: 9, perThread: 3 });
    const turnsBefore = await rows(db, "SELECT id, keywords FROM topics WHERE kind = 'turn' ORDER BY id");
    const archiveBefore = await rows(db, 'SELECT * FROM archive ORDER BY id');

    const report = await agent.dream();
    expect(report.status).toBe('ok');
    expect(report.stages.map((s) => s.name)).toEqual([
      'radial',
      'compress',
      'profile',
      'engram',
      'retention',
    ]);
    const compress = stage(report, 'compress');
    expect(compress).toMatchObject({ status: 'ok', read: { scenes: 1, topics: 27 } });
    expect(compress.changed.fusedTopics).toBeGreaterThan(0);
    expect(compress.modelCalls).toBeGreaterThan(0);

    const context = await agent.sceneContext(sceneId);
    const surface = context.topics.filter((t) => t.depth === 1);
    // Segmented by subject: one topic per thread of three turns (below compressMinTopics, 20,
    // as far as the subjects allow and no further).
    expect(surface).toHaveLength(9);
    const fused = context.topics.filter((t) => t.kind === 'fused');
    expect(fused).toHaveLength(compress.changed.fusedTopics as number);
    for (const topic of fused) {
      const members = context.topics.filter((t) => t.parentId === topic.id);
      expect(members.length).toBeGreaterThanOrEqual(2);
      expect(topic.childCount).toBe(members.length);
      expect(members.every((m) => m.depth === 2 && m.kind === 'turn')).toBe(true);
      expect(topic.messages).toHaveLength(1);
      expect(topic.messages[0]).toMatchObject({ role: 'dream', seq: 1 });
      // Every member keyword is in the reconstruction (verbatim, case-insensitively).
      const text = topic.messages[0]?.content.toLowerCase() ?? '';
      for (const keyword of members.flatMap((m) => m.keywords)) expect(text).toContain(keyword.toLowerCase());
      expect(topic.userTs).toBe(Math.min(...members.map((m) => m.userTs ?? 0)));
      expect(topic.agentTs).toBe(Math.max(...members.map((m) => m.agentTs ?? 0)));
      expect(topic.keywordsPending).toBe(false);
      // One thread only: the members are turns of the same subject.
      const subjects = new Set(members.map((m) => m.messages[0]?.content.replace(/Question \d+ /u, '')));
      expect(subjects.size).toBe(1);
    }
    // Members are kept, verbatim records untouched; the fused reconstruction is indexed.
    expect(await rows(db, "SELECT id, keywords FROM topics WHERE kind = 'turn' ORDER BY id")).toEqual(
      turnsBefore,
    );
    const archiveAfter = await rows(
      db,
      "SELECT * FROM archive WHERE role IS DISTINCT FROM 'dream' ORDER BY id",
    );
    expect(archiveAfter).toEqual(archiveBefore);
    const indexed = await rows(
      db,
      `SELECT d.topic_id FROM search_docs d JOIN archive a ON CAST(a.id AS TEXT) = d.ref
       WHERE d.layer = 'archive' AND a.role = 'dream'`,
    );
    expect(indexed.map((r) => r.topic_id).sort()).toEqual(fused.map((t) => t.id).sort());
    expect(
      (await rows(db, "SELECT dream_id FROM topics WHERE kind = 'fused'")).every(
        (r) => r.dream_id === report.id,
      ),
    ).toBe(true);
    // The reconstructions are found by text like any archive record.
    const keyword = fused[0]?.keywords[0] as string;
    const found = await agent.searchArchive({ text: keyword, role: 'dream' });
    expect(found.map((r) => r.topicId)).toContain(fused[0]?.id);
    expect(await conversationProblems(db)).toEqual([]);
    await db.check();
    await db.close();
  });

  it('leaves scenes under the compression minimum alone, and compresses only the named scene', async () => {
    const { db, clock, agent } = await openDreamTemp({ dream: { auto: false } });
    const small = await fillScene(agent, clock, { threads: 3, perThread: 3 });
    let report = await agent.dream();
    expect(stage(report, 'compress')).toMatchObject({
      status: 'skipped',
      reason: 'no scene has 20 or more surface topics',
    });
    const big1 = await fillScene(agent, clock, { threads: 8, perThread: 3 });
    const big2 = await fillScene(agent, clock, { threads: 8, perThread: 3, offset: 1 });
    report = await agent.dream(big2);
    expect(report.sceneId).toBe(big2);
    expect(stage(report, 'compress').read.scenes).toBe(1);
    const fusedScenes = (await rows(db, "SELECT DISTINCT scene_id FROM topics WHERE kind = 'fused'")).map(
      (r) => r.scene_id,
    );
    expect(fusedScenes).toEqual([big2]);
    expect(small).not.toBe(big1);
    await db.close();
  });

  it('builds the engram: a node per scene, edges weighted by keyword overlap, decay by the spec, fading, renewal', async () => {
    const { db, clock, agent } = await openDreamTemp({ dream: { auto: false } });
    const a = await fillScene(agent, clock, { threads: 2, perThread: 2, offset: 0 });
    const b = await fillScene(agent, clock, { threads: 2, perThread: 2, offset: 1 }); // shares subject 1 with a
    const c = await fillScene(agent, clock, { threads: 1, perThread: 2, offset: 5 }); // nothing in common
    expect(await agent.listEngram()).toEqual({ nodes: [], edges: [], fadedScenes: 0 });

    await agent.dream();
    const graph = await agent.listEngram();
    expect(graph.nodes.map((n) => n.sceneId).sort()).toEqual([a, b, c].sort());
    for (const node of graph.nodes) {
      expect(node.importance).toBe(1);
      expect(node.topicIds).toHaveLength(
        (await rows(db, 'SELECT id FROM topics WHERE scene_id = ?', node.sceneId)).length,
      );
    }
    const byScene = new Map(graph.nodes.map((n) => [n.sceneId, n]));
    const expectedEdges = [
      [a, b],
      [a, c],
      [b, c],
    ]
      .map(([x, y]) => [x, y, keywordJaccard(byScene.get(x!)!.keywords, byScene.get(y!)!.keywords)] as const)
      .filter(([, , sim]) => sim >= ENGRAM.edgeSimilarityFloor);
    expect(expectedEdges.length).toBeGreaterThan(0);
    expect(graph.edges).toHaveLength(expectedEdges.length);
    for (const edge of graph.edges) {
      const sim = keywordJaccard(byScene.get(edge.a)!.keywords, byScene.get(edge.b)!.keywords);
      expect(edge.weight).toBeCloseTo(sim, 12);
      expect(edge.a < edge.b).toBe(true);
    }

    // Ten hours later: every node decays by its emotion-damped rate, every edge by 0.02/h.
    clock.advance(10 * HOUR);
    const report = await agent.dream();
    expect(stage(report, 'engram').changed).toMatchObject({
      nodesDecayed: 3,
      nodesAdded: 0,
      nodesRenewed: 0,
    });
    const later = await agent.listEngram();
    for (const node of later.nodes) {
      const before = byScene.get(node.sceneId)!;
      const expected = decay(
        1,
        nodeDecayRate(before.valence, before.arousal),
        node.updatedAt - before.updatedAt,
      );
      expect(node.importance).toBeCloseTo(expected, 9);
      expect(node.importance).toBeLessThan(1);
    }
    for (const edge of later.edges) {
      const before = graph.edges.find((e) => e.a === edge.a && e.b === edge.b)!;
      expect(edge.weight).toBeCloseTo(decay(before.weight, 0.02, edge.lastDecayAt - before.lastDecayAt), 9);
    }

    // A new turn in scene a renews its node; after a long silence the others fade out.
    await agent.search({ sceneId: a });
    await agent.update({ input: 'One more question on the billing service deploy', createdAt: clock.now() });
    await agent.dream();
    expect((await agent.listEngram()).nodes.find((n) => n.sceneId === a)?.importance).toBe(1);
    clock.advance(3000 * HOUR);
    const faded = await agent.dream();
    expect(stage(faded, 'engram').changed.nodesFaded).toBe(3);
    expect(await agent.listEngram()).toMatchObject({ nodes: [], edges: [], fadedScenes: 3 });
    // A faded scene comes back when it changes; a deleted scene's node goes.
    await agent.search({ sceneId: c });
    await agent.update({ input: 'Pager alert noise again tonight', createdAt: clock.now() });
    await agent.deleteScene(b);
    await agent.dream();
    const back = await agent.listEngram();
    expect(back.nodes.map((n) => n.sceneId)).toEqual([c]);
    expect(back.fadedScenes).toBe(1);
    expect(await rows(db, 'SELECT scene_id FROM engram_nodes WHERE scene_id = ?', b)).toEqual([]);
    await db.close();
  });

  it('distils the profile estimate apart from the host personality; MBTI letters come from the axes', async () => {
    const { db, clock, agent } = await openDreamTemp({
      dream: { auto: false },
      profile: { name: 'Ada', personality: 'Written by the host.' },
    });
    await fillScene(agent, clock, { threads: 3, perThread: 2 });
    const report = await agent.dream();
    expect(stage(report, 'profile')).toMatchObject({ status: 'ok', changed: { profile: 1 } });
    const profile = await agent.getProfile();
    expect(profile.personality).toBe('Written by the host.');
    const distilled = await agent.distilledProfile();
    expect(distilled?.personality.length).toBeGreaterThan(0);
    expect(distilled?.dreamId).toBe(report.id);
    expect(profile.emotion).toEqual(distilled?.emotion);
    expect(report.profile).toEqual(distilled);
    // Nodes got an emotion estimate once.
    expect((await agent.listEngram()).nodes.every((n) => n.emotionSet)).toBe(true);
    // Nothing new: no second distillation.
    const again = await agent.dream();
    expect(stage(again, 'profile')).toMatchObject({
      status: 'skipped',
      reason: 'no new evidence since the last distillation',
    });
    await db.close();
  });

  it('derives MBTI letters from the model axes, never its type word, and keeps the host personality', async () => {
    const { summarizer } = scriptedSummarizer();
    const { db, clock, agent } = await openDreamTemp({
      dream: { auto: false },
      summarizer,
      profile: { name: 'Ada', personality: 'Host text.' },
    });
    await fillScene(agent, clock, { threads: 2, perThread: 2 });
    await agent.dream();
    const distilled = await agent.distilledProfile();
    expect(distilled?.mbti).toEqual({ i_e: -0.5, n_s: 0.25, t_f: -0.75, j_p: 0, type: 'ISTX' });
    expect((await agent.getProfile()).mbti.type).toBe('ISTX');
    expect((await agent.getProfile()).personality).toBe('Host text.');
    expect(distilled?.personality).toBe('Methodical; keeps notes.');
    await db.close();
  });

  it('prunes expired records only when retention is on, and reports it', async () => {
    const off = await openDreamTemp({ dream: { auto: false } });
    await fillScene(off.agent, off.clock, { threads: 1, perThread: 2 });
    off.clock.advance(1000 * HOUR);
    const kept = await off.agent.dream();
    expect(stage(kept, 'retention')).toMatchObject({ status: 'skipped', changed: { archiveRecords: 0 } });
    expect(await rows(off.db, 'SELECT id FROM archive')).toHaveLength(4);
    await off.db.close();

    const on = await openDreamTemp({ dream: { auto: false }, retention: { archiveMs: 24 * HOUR } });
    await fillScene(on.agent, on.clock, { threads: 1, perThread: 2 });
    on.clock.advance(48 * HOUR);
    await fillScene(on.agent, on.clock, { threads: 1, perThread: 1, offset: 3 });
    const pruned = await on.agent.dream();
    expect(stage(pruned, 'retention')).toMatchObject({ status: 'ok', changed: { archiveRecords: 4 } });
    expect(await rows(on.db, 'SELECT id FROM archive')).toHaveLength(2);
    // Topics (with their keywords) survive their records.
    expect(await rows(on.db, "SELECT id FROM topics WHERE kind = 'turn'")).toHaveLength(3);
    expect(await conversationProblems(on.db)).toEqual([]);
    await on.db.close();
  });

  it('a second pass with nothing new changes nothing', async () => {
    const { db, clock, agent } = await openDreamTemp({ dream: { auto: false } });
    await fillScene(agent, clock, { threads: 9, perThread: 3 });
    await fillScene(agent, clock, { threads: 3, perThread: 2, offset: 4 });
    const first = await agent.dream();
    expect(first.status).toBe('ok');
    const state = await memoryState(db);
    const second = await agent.dream();
    expect(second.status).toBe('ok');
    expect(await memoryState(db)).toEqual(state);
    for (const s of second.stages)
      expect(
        Object.values(s.changed).every((n) => n === 0),
        s.name,
      ).toBe(true);
    await db.close();
  });
});

describeEngines('radial re-summarisation in Dream', () => {
  it('fills pending summaries and keywords left by failed model calls', async () => {
    let down = true;
    const { summarizer } = scriptedSummarizer({
      summarize: (o) => (down ? new Error('model down') : { summary: `ok ${o.prompt.length}` }),
      distillKeywords: () => (down ? new Error('model down') : { keywords: ['billing', 'deploy'] }),
    });
    const { db, clock, agent } = await openDreamTemp({ dream: { auto: false }, summarizer });
    await agent.radial.createLine('auth', 'Auth', 'Login and tokens');
    const node = await agent.radial.completeTask({
      lineId: 'auth',
      taskLabel: 'Rotate the JWT key',
      fullContext: 'A long working state. '.repeat(200),
      conversationSummary: 'Rotated the signing key and updated the verifier. '.repeat(30),
    });
    expect(node.summariesState).toBe('pending');
    await fillScene(agent, clock, { threads: 1, perThread: 2 });
    expect(
      await rows(db, "SELECT id FROM topics WHERE keywords_state = 'pending' AND status = 'closed'"),
    ).toHaveLength(2);

    const failing = await agent.dream();
    expect(stage(failing, 'radial').status).toBe('error');
    expect(failing.status).toBe('partial');
    down = false;
    const report = await agent.dream();
    expect(stage(report, 'radial')).toMatchObject({ changed: { keywordsFilled: 2, summariesFilled: 1 } });
    expect(await rows(db, "SELECT id FROM topics WHERE keywords_state = 'pending'")).toEqual([]);
    expect((await agent.radial.getNode('auth', 1))?.summariesState).toBe('ready');
    await db.close();
  });

  it('refreshes the presented levels of nodes that moved away from position 1 with a stronger summariser', async () => {
    const path = freshMemoryPath();
    const clock = new TestClock();
    const offline = await openMemory(path, { clock, dream: { auto: false } });
    const radial = offline.primary().radial;
    await radial.createLine('ops', 'Ops', 'Operations');
    for (let i = 1; i <= 5; i++) {
      await radial.completeTask({
        lineId: 'ops',
        taskLabel: `Task ${i}: tune the autoscaler`,
        fullContext: `Working notes for task ${i}. `.repeat(80),
        conversationSummary:
          `We tuned the autoscaler limits for pool ${i} and checked the node metrics afterwards. `.repeat(12),
      });
    }
    const before = await rows(
      offline,
      'SELECT id, s_origin, s_brief, s_summary, s_detailed, summaries_tier FROM nodes ORDER BY line_seq',
    );
    expect(before.every((r) => r.summaries_tier === 1)).toBe(true);
    // The offline summariser refreshes nothing (it would write the same text).
    expect(stage(await offline.primary().dream(), 'radial').read.refreshCandidates).toBe(0);
    await offline.close();

    const { summarizer } = scriptedSummarizer();
    const db = await openMemory(path, { clock, summarizer, dream: { auto: false } });
    const report = await db.primary().dream();
    expect(stage(report, 'radial')).toMatchObject({
      read: { refreshCandidates: 4 },
      changed: { nodesRefreshed: 4 },
    });
    const after = await rows(
      db,
      'SELECT id, s_origin, s_brief, s_summary, s_detailed, summaries_tier FROM nodes ORDER BY line_seq',
    );
    // line_seq 5 is position 1: untouched. Position 2 (line_seq 4): summary, brief, origin refreshed;
    // positions 3-4: brief and origin; position 5: origin. `detailed` is never rewritten.
    expect(after[4]).toEqual(before[4]);
    const changed = (i: number, column: string): boolean => after[i]![column] !== before[i]![column];
    expect([changed(3, 's_summary'), changed(3, 's_brief'), changed(3, 's_detailed')]).toEqual([
      true,
      true,
      false,
    ]);
    expect([changed(2, 's_summary'), changed(2, 's_brief'), changed(1, 's_brief')]).toEqual([
      false,
      true,
      true,
    ]);
    expect([changed(0, 's_brief'), changed(0, 's_origin'), changed(0, 's_detailed')]).toEqual([
      false,
      true,
      false,
    ]);
    expect(after.slice(0, 4).every((r) => r.summaries_tier === 2)).toBe(true);
    for (const row of after) expect((row.s_origin as string).length).toBeLessThanOrEqual(80);
    // Done once: the next pass has nothing to refresh.
    expect(stage(await db.primary().dream(), 'radial').read.refreshCandidates).toBe(0);
    await db.close();
  });
});
