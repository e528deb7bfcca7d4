import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { EngramEdgeRow, EngramNodeRow } from '../../store/engram-repo.js';
import { decay, ENGRAM, keywordJaccard, keywordSet, nodeDecayRate, topKeywords } from './engram-math.js';
import { planEngram, sceneEvidence, type SceneEvidence } from './engram-plan.js';

const HOUR = 3_600_000;
const T = 1_700_000_000_000;

const scene = (sceneId: string, keywords: string[], topicIds = [`${sceneId}-t1`]): SceneEvidence => ({
  sceneId,
  topicIds,
  keywords: keywordSet([keywords]),
  stamp: `${topicIds.length}:${keywords.join(',')}`,
});

/** Applies a plan's diff to a row set, as the repository would. */
function applied(
  nodes: readonly EngramNodeRow[],
  edges: readonly EngramEdgeRow[],
  plan: ReturnType<typeof planEngram>,
): { nodes: EngramNodeRow[]; edges: EngramEdgeRow[] } {
  const byScene = new Map(nodes.map((n) => [n.sceneId, n]));
  for (const id of plan.diff.deleteNodes) byScene.delete(id);
  for (const node of plan.diff.upsertNodes) byScene.set(node.sceneId, node);
  const byPair = new Map(edges.map((e) => [`${e.a}|${e.b}`, e]));
  for (const e of plan.diff.deleteEdges) byPair.delete(`${e.a}|${e.b}`);
  for (const e of plan.diff.upsertEdges) byPair.set(`${e.a}|${e.b}`, e);
  return { nodes: [...byScene.values()], edges: [...byPair.values()] };
}

describe('engram math', () => {
  it('damps decay for emotional, aroused memories only', () => {
    expect(nodeDecayRate(0.5, 1)).toBe(0.01); // neutral: full rate however aroused
    expect(nodeDecayRate(1, 0)).toBe(0.01); // calm: full rate however positive
    expect(nodeDecayRate(0, 1)).toBeCloseTo(0.001, 12); // strongly negative and excited: a tenth
    expect(nodeDecayRate(0.75, 0.5)).toBeCloseTo(0.01 * (1 - 0.9 * 0.5 * 0.5), 12);
    expect(nodeDecayRate(Number.NaN, 2)).toBeCloseTo(0.001, 12);
  });

  it('computes Jaccard on keyword sets and keeps keywords lower-cased, distinct and sorted', () => {
    expect(keywordJaccard(['a', 'b', 'c'], ['b', 'c', 'd'])).toBe(0.5);
    expect(keywordJaccard([], ['a'])).toBe(0);
    expect(
      keywordSet([
        [' Vault ', 'jwt'],
        ['vault', '', 'Alpha'],
      ]),
    ).toEqual(['alpha', 'jwt', 'vault']);
    expect(
      topKeywords(
        [
          ['a', 'b'],
          ['b', 'c'],
          ['b', 'c'],
        ],
        2,
      ),
    ).toEqual(['b', 'c']);
  });

  it("holds a scene's keywords by the turn keyword rules: no filler, bare small number or word a phrase holds", () => {
    const evidence = sceneEvidence({
      sceneId: 'scn_1',
      topics: [
        { id: 't1', keywords: ['Ugh', 'read replica', 'during', '1', 'Postgres 16'] },
        { id: 't2', keywords: ['replica', 'every', 'not', 'plus', 're', 'lag', 'nut-free snacks', 'snacks'] },
      ],
      stamp: 's',
    });
    expect(evidence.keywords).toEqual(['lag', 'nut-free snacks', 'postgres 16', 'read replica']);
  });

  it('decay composes: two steps equal one step of the summed time', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.integer({ min: 0, max: 500 * HOUR }),
        fc.integer({ min: 0, max: 500 * HOUR }),
        (valence, arousal, t1, t2) => {
          const rate = nodeDecayRate(valence, arousal);
          const stepwise = decay(decay(1, rate, t1), rate, t2);
          expect(stepwise).toBeCloseTo(decay(1, rate, t1 + t2), 12);
        },
      ),
    );
  });
});

describe('planEngram', () => {
  it('adds a node per scene and links scenes whose keywords overlap enough, weighted by Jaccard', () => {
    const scenes = [
      scene('s1', ['vault', 'jwt', 'secret', 'rotate']),
      scene('s2', ['vault', 'jwt', 'audit']),
      scene('s3', ['budget', 'report']),
      scene('s4', ['budget', 'vault', 'x', 'y', 'z', 'w', 'v']),
    ];
    const plan = planEngram({ nodes: [], edges: [], scenes, now: T });
    expect(plan.counts).toMatchObject({ nodesAdded: 4, edgesAdded: 1 });
    expect(plan.diff.upsertNodes.every((n) => n.importance === 1 && !n.emotionSet && n.valence === 0.5)).toBe(
      true,
    );
    // s1-s2: 2 shared of 5 = 0.4; s3-s4: 1 of 8 = 0.125 and s1-s4: 1 of 10 (below 0.15: no edge).
    expect(plan.diff.upsertEdges.map((e) => [e.a, e.b, e.weight])).toEqual([['s1', 's2', 0.4]]);
    expect(plan.changed.size).toBe(4);
  });

  it('changes nothing when nothing is new and less than a decay step passed', () => {
    const scenes = [scene('a', ['x', 'y']), scene('b', ['x', 'y', 'z'])];
    const first = planEngram({ nodes: [], edges: [], scenes, now: T });
    const state = applied([], [], first);
    const second = planEngram({ ...state, scenes, now: T + ENGRAM.decayStepMs - 1 });
    expect(second.diff).toEqual({ upsertNodes: [], deleteNodes: [], upsertEdges: [], deleteEdges: [] });
    expect(second.changed.size).toBe(0);
  });

  it('decays nodes and edges, prunes edges of weak nodes, fades nodes and brings them back on change', () => {
    const scenes = [scene('a', ['x', 'y']), scene('b', ['x', 'y'])];
    let state = applied([], [], planEngram({ nodes: [], edges: [], scenes, now: T }));
    expect(state.edges).toHaveLength(1);

    // 100 h: importance e^-1 ≈ 0.37 (still linked), edge e^-2 ≈ 0.135.
    let plan = planEngram({ ...state, scenes, now: T + 100 * HOUR });
    state = applied(state.nodes, state.edges, plan);
    expect(state.nodes[0]?.importance).toBeCloseTo(Math.exp(-1), 12);
    expect(state.edges[0]?.weight).toBeCloseTo(Math.exp(-2), 12);

    // +100 h: importance e^-2 ≈ 0.135 < 0.15: the nodes keep no edges.
    plan = planEngram({ ...state, scenes, now: T + 200 * HOUR });
    expect(plan.counts).toMatchObject({ nodesDecayed: 2, edgesRemoved: 1 });
    state = applied(state.nodes, state.edges, plan);
    expect(state.edges).toEqual([]);

    // +100 h: e^-3 ≈ 0.0498 < 0.05: faded, kept as rows.
    plan = planEngram({ ...state, scenes, now: T + 300 * HOUR });
    expect(plan.counts.nodesFaded).toBe(2);
    state = applied(state.nodes, state.edges, plan);
    expect(state.nodes.every((n) => n.fadedAt === T + 300 * HOUR)).toBe(true);
    // Unchanged and faded: stays as it is (not re-added at importance 1).
    plan = planEngram({ ...state, scenes, now: T + 900 * HOUR });
    expect(plan.diff.upsertNodes).toEqual([]);

    // Scene a gets a new turn: renewed, and linked again to b? b is faded: no edge.
    const renewed = [scene('a', ['x', 'y'], ['a-t1', 'a-t2']), scenes[1] as SceneEvidence];
    plan = planEngram({ ...state, scenes: renewed, now: T + 901 * HOUR });
    expect(plan.counts).toMatchObject({ nodesRenewed: 1, edgesAdded: 0 });
    state = applied(state.nodes, state.edges, plan);
    const a = state.nodes.find((n) => n.sceneId === 'a');
    expect(a).toMatchObject({ importance: 1, fadedAt: undefined, updatedAt: T + 901 * HOUR, createdAt: T });
  });

  it('creates edges only when one end changed; an unchanged pair whose edge decayed away stays unlinked', () => {
    const scenes = [scene('a', ['x', 'y']), scene('b', ['x', 'y']), scene('c', ['q'])];
    const nodes: EngramNodeRow[] = scenes.map((s) => ({
      sceneId: s.sceneId,
      topicIds: s.topicIds,
      keywords: s.keywords,
      importance: 0.9,
      valence: 0.5,
      arousal: 0,
      emotionSet: false,
      createdAt: T,
      updatedAt: T,
      fadedAt: undefined,
    }));
    const plan = planEngram({ nodes, edges: [], scenes, now: T + 1000 });
    expect(plan.diff.upsertEdges).toEqual([]);
    // c changes to share b's keywords: a new edge b-c (and a-c).
    const changed = [...scenes.slice(0, 2), scene('c', ['x', 'y'], ['c-t1', 'c-t2'])];
    const next = planEngram({ nodes, edges: [], scenes: changed, now: T + 2000 });
    expect(next.diff.upsertEdges.map((e) => `${e.a}-${e.b}`).sort()).toEqual(['a-c', 'b-c']);
  });

  it('re-weights an edge when one end changes, and drops it when they no longer overlap', () => {
    const before = [scene('a', ['x', 'y']), scene('b', ['x', 'y'])];
    const state = applied([], [], planEngram({ nodes: [], edges: [], scenes: before, now: T }));
    const moved = [scene('a', ['x', 'y', 'z'], ['a-t1', 'a-t2']), before[1] as SceneEvidence];
    const plan = planEngram({ ...state, scenes: moved, now: T + 10 });
    expect(plan.diff.upsertEdges[0]?.weight).toBeCloseTo(2 / 3, 12);
    expect(plan.counts.edgesUpdated).toBe(1);
    const apart = [scene('a', ['q'], ['a-t1', 'a-t2', 'a-t3']), before[1] as SceneEvidence];
    expect(planEngram({ ...state, scenes: apart, now: T + 20 }).diff.deleteEdges).toEqual([
      { a: 'a', b: 'b' },
    ]);
  });

  it('removes nodes (and their edges) of scenes that are gone, and stamps emotion once', () => {
    const scenes = [scene('a', ['x']), scene('b', ['x'])];
    const state = applied([], [], planEngram({ nodes: [], edges: [], scenes, now: T }));
    const emotions = new Map([
      ['a', { valence: 0.9, arousal: 0.8 }],
      ['gone', { valence: 0.1, arousal: 0.1 }],
    ]);
    const plan = planEngram({ ...state, scenes: [scenes[0] as SceneEvidence], now: T + 5, emotions });
    expect(plan.diff.deleteNodes).toEqual(['b']);
    expect(plan.diff.deleteEdges).toEqual([{ a: 'a', b: 'b' }]);
    expect(plan.counts.nodesEmotionSet).toBe(1);
    const a = plan.diff.upsertNodes.find((n) => n.sceneId === 'a');
    expect(a).toMatchObject({ valence: 0.9, arousal: 0.8, emotionSet: true, updatedAt: T });
    const after = applied(state.nodes, state.edges, plan);
    const again = planEngram({
      ...after,
      scenes: [scenes[0] as SceneEvidence],
      now: T + 6,
      emotions: new Map([['a', { valence: 0, arousal: 0 }]]),
    });
    expect(again.counts.nodesEmotionSet).toBe(0);
  });

  it('builds scene evidence from turns: sorted ids, lower-cased distinct keywords', () => {
    expect(
      sceneEvidence({
        sceneId: 's',
        topics: [
          { id: 't2', keywords: ['Vault', 'JWT'] },
          { id: 't1', keywords: ['vault'] },
        ],
        stamp: '2:1:3',
      }),
    ).toEqual({ sceneId: 's', topicIds: ['t1', 't2'], keywords: ['jwt', 'vault'], stamp: '2:1:3' });
  });
});
