/** "What did we decide …?" finds the turn where the user approved the proposal (issue 19). */
import { expect, it } from 'vitest';
import { describeEngines } from '../helpers/engines.js';
import { feedTurns, memoryPerTest } from '../helpers/dialogue.js';

const memory = memoryPerTest();

describeEngines('recall: what was decided', () => {
  it('ranks the turn that approved a proposal first, above the turn that explained the problem', async () => {
    const agent = memory().primary();
    const turns: [string, string][] = [
      [
        'Why does the transcode test time out in CI?',
        'The fixture test now transcodes the 45-minute fixture, a full episode, which takes about 50 s against a 60 s timeout.',
      ],
      [
        'So what do you propose?',
        'Use a 3-minute excerpt around the spike for every PR, and run the full episode nightly.',
      ],
      [
        'Do it.',
        'Done: the per-PR run uses the excerpt and the 45-minute fixture test runs in the nightly job.',
      ],
      ['Who is on call this week?', 'Dana is on call until Friday, then Omar takes over.'],
    ];
    await feedTurns(agent, turns, 30);
    const decided = await agent.recall('What did we decide to do with the 45-minute fixture test?', {
      budgetTokens: 0,
    });
    expect(decided.hits[0]?.text).toContain('nightly job');
    expect(decided.hits.map((h) => h.score)).toEqual(
      [...decided.hits.map((h) => h.score)].sort((a, b) => b - a),
    );
    // Asked why, the explanation keeps its place.
    const why = await agent.recall('Why did the 45-minute fixture test time out?', { budgetTokens: 0 });
    expect(why.hits[0]?.text).toContain('50 s against a 60 s timeout');
  });
});
