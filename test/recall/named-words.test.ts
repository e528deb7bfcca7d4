/** A name or an identifier in a question pins its subject (issue 19, recall's top hit). */
import { expect, it } from 'vitest';
import { describeEngines } from '../helpers/engines.js';
import { feedTurns, memoryPerTest } from '../helpers/dialogue.js';

const memory = memoryPerTest();

describeEngines('recall: names in the question', () => {
  it('ranks the record about the named person above a shorter one holding only a common word', async () => {
    const agent = memory().primary();
    const turns: [string, string][] = [
      [
        'Mom turns 70 on June 8 and we want to take her out for dinner. No shellfish anywhere near her plate, she is allergic.',
        'Casa Lupo has a private room and can keep a dish free of shellfish.',
      ],
      [
        'Can you check the nightly backup?',
        'The nightly backup finished at 02:14 and the restore test passed.',
      ],
      ['I eat fish again.', 'Noted: fish is back on your plan.'],
      ['Who is on call this week?', 'Dana is on call until Friday, then Omar takes over.'],
    ];
    await feedTurns(agent, turns, 90);
    const { hits } = await agent.recall("What can't Mom eat?", { budgetTokens: 0 });
    expect(hits[0]?.text).toContain('Mom turns 70');
    expect(hits.map((h) => h.score)).toEqual([...hits.map((h) => h.score)].sort((a, b) => b - a));
  });
});
