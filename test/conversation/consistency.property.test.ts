import fc from 'fast-check';
import { expect, it } from 'vitest';
import { describeEngines } from '../helpers/engines.js';
import { HedgehopError, type Agent } from '../../src/index.js';
import { at, conversationProblems, openTemp, rows } from './helpers.js';

type Op =
  | { op: 'search'; agent: number; mode: 'current' | 'new' | 'known' | 'bogus'; pick: number }
  | { op: 'append'; agent: number; kind: 'utterance' | 'event'; valid: boolean; step: number; seq: number }
  | { op: 'appendMany'; agent: number; count: number; bad: boolean }
  | { op: 'planAdd'; agent: number; parent: number }
  | {
      op: 'planUpdate';
      agent: number;
      seq: number;
      status: 'in_progress' | 'done' | 'failed';
      summary: string;
    }
  | { op: 'update'; agent: number; fail: boolean; empty: boolean }
  | { op: 'deleteTopic' | 'deleteScene' | 'rename'; agent: number; pick: number }
  | { op: 'merge'; agent: number; pick: number; other: number }
  | { op: 'profile'; agent: number; valid: boolean };

const agentIx = fc.integer({ min: 0, max: 1 });
const small = fc.integer({ min: 0, max: 6 });
const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    op: fc.constant('search' as const),
    agent: agentIx,
    mode: fc.constantFrom('current', 'new', 'known', 'bogus') as fc.Arbitrary<'current'>,
    pick: small,
  }),
  fc.record({
    op: fc.constant('append' as const),
    agent: agentIx,
    kind: fc.constantFrom('utterance', 'event') as fc.Arbitrary<'utterance'>,
    valid: fc.boolean(),
    step: small,
    seq: small,
  }),
  fc.record({
    op: fc.constant('appendMany' as const),
    agent: agentIx,
    count: fc.integer({ min: 1, max: 4 }),
    bad: fc.boolean(),
  }),
  fc.record({ op: fc.constant('planAdd' as const), agent: agentIx, parent: small }),
  fc.record({
    op: fc.constant('planUpdate' as const),
    agent: agentIx,
    seq: small,
    status: fc.constantFrom('in_progress', 'done', 'failed') as fc.Arbitrary<'done'>,
    summary: fc.constantFrom('', 'ok', 'retry'),
  }),
  fc.record({ op: fc.constant('update' as const), agent: agentIx, fail: fc.boolean(), empty: fc.boolean() }),
  fc.record({
    op: fc.constantFrom('deleteTopic', 'deleteScene', 'rename') as fc.Arbitrary<'rename'>,
    agent: agentIx,
    pick: small,
  }),
  fc.record({ op: fc.constant('merge' as const), agent: agentIx, pick: small, other: small }),
  fc.record({ op: fc.constant('profile' as const), agent: agentIx, valid: fc.boolean() }),
);

const TURN_WRITES = new Set(['append', 'appendMany', 'planAdd', 'planUpdate', 'update']);

describeEngines('conversation memory under any sequence of calls', (engine) => {
  // A server round trip per call and per invariant query: fewer runs on PostgreSQL, a longer bound.
  const numRuns = engine.name === 'postgres' ? 15 : 60;
  it('keeps scenes, turns, slots, plan trees and index rows consistent', { timeout: 180_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 30 }), async (ops) => {
        const { db, summarizer } = await openTemp({ durability: 'normal' });
        const agents: Agent[] = [db.primary(), await db.agent('second')];
        const model = agents.map(() => ({
          open: undefined as string | undefined,
          scenes: [] as string[],
          topics: [] as string[],
        }));
        let minute = 0;
        try {
          for (const op of ops) {
            const agent = agents[op.agent] as Agent;
            const state = model[op.agent] as (typeof model)[number];
            const pick = (list: string[], i: number): string =>
              list[i % Math.max(1, list.length)] ?? 'scn_none';
            minute++;
            const hadOpen = state.open;
            try {
              switch (op.op) {
                case 'search': {
                  const query =
                    op.mode === 'new'
                      ? { newScene: true }
                      : op.mode === 'known'
                        ? { sceneId: pick(state.scenes, op.pick) }
                        : op.mode === 'bogus'
                          ? { sceneId: 'scn_bogus' }
                          : {};
                  const result = await agent.search(query);
                  if (hadOpen) expect(result).toMatchObject({ resumed: true, turnId: hadOpen });
                  else expect(result.resumed).toBe(false);
                  state.open = result.turnId;
                  if (!state.scenes.includes(result.scene.id)) state.scenes.push(result.scene.id);
                  if (!state.topics.includes(result.turnId)) state.topics.push(result.turnId);
                  break;
                }
                case 'append':
                  await agent.appendArchive(
                    op.kind === 'event'
                      ? {
                          kind: 'event',
                          eventType: 'tool',
                          content: op.valid ? 'ok' : 'x'.repeat(5000),
                          createdAt: at(minute),
                          ...(op.step > 0 ? { planStep: op.step } : {}),
                          ...(op.seq > 0 ? { seq: op.seq } : {}),
                        }
                      : {
                          kind: 'utterance',
                          content: `said ${minute}`,
                          createdAt: op.valid ? at(minute) : 1_700_000_000,
                          ...(op.seq > 0 ? { seq: op.seq } : {}),
                        },
                  );
                  break;
                case 'appendMany':
                  await agent.appendArchiveMany(
                    Array.from({ length: op.count }, (_, i) => ({
                      kind: 'utterance' as const,
                      speaker: 'S',
                      content: op.bad && i === op.count - 1 ? '' : `batch ${minute}.${i}`,
                      createdAt: at(minute),
                    })),
                  );
                  break;
                case 'planAdd':
                  await agent.planNodeAdd(op.parent, `step ${minute}`);
                  break;
                case 'planUpdate':
                  await agent.planNodeUpdate({
                    seq: Math.max(1, op.seq),
                    status: op.status,
                    summary: op.summary,
                  });
                  break;
                case 'update': {
                  summarizer.failing = op.fail;
                  const result = await agent.update(
                    op.empty
                      ? { createdAt: at(minute) }
                      : { input: `in ${minute}`, outcome: 'ok', createdAt: at(minute) },
                  );
                  expect(result.topic.id).toBe(hadOpen);
                  expect(result.keywordsPending).toBe(op.fail);
                  state.open = undefined;
                  break;
                }
                case 'deleteTopic': {
                  const report = await agent.deleteTopic(pick(state.topics, op.pick));
                  if (report.openTurnDeleted) state.open = undefined;
                  break;
                }
                case 'deleteScene': {
                  const report = await agent.deleteScene(pick(state.scenes, op.pick));
                  if (report.openTurnDeleted) state.open = undefined;
                  break;
                }
                case 'rename':
                  await agent.renameTopic(pick(state.topics, op.pick), `name ${minute}`);
                  break;
                case 'merge':
                  await agent.mergeScenes(pick(state.scenes, op.pick), [pick(state.scenes, op.other)]);
                  break;
                case 'profile':
                  await agent.updateProfile(op.valid ? { role: `role ${minute}` } : { name: '' });
                  break;
              }
              if (TURN_WRITES.has(op.op))
                expect(hadOpen, `${op.op} succeeded with no open turn`).toBeDefined();
            } catch (error) {
              if (!HedgehopError.isInstance(error)) throw error;
              expect(['INVALID_INPUT', 'NOT_FOUND', 'CONFLICT']).toContain(error.code);
              if (TURN_WRITES.has(op.op) && !hadOpen) expect(error.code).toBe('INVALID_INPUT');
              if (op.op === 'search' && error.code === 'CONFLICT') expect(hadOpen).toBeDefined();
            } finally {
              summarizer.failing = false;
            }
            const open = await rows(
              db,
              "SELECT id FROM topics WHERE agent_id = ? AND status = 'open'",
              agent.info().id,
            );
            expect(open.map((r) => r.id)).toEqual(state.open ? [state.open] : []);
            expect(await conversationProblems(db)).toEqual([]);
          }
        } finally {
          await db.close();
        }
      }),
      { numRuns },
    );
  });
});
