import { expect, it } from 'vitest';
import { describeEngines } from '../helpers/engines.js';
import { feedTurns, memoryPerTest } from '../helpers/dialogue.js';

const memory = memoryPerTest();

describeEngines('recall: a value changed later', () => {
  it('ranks the update above the superseded value, with no time cue in the question', async () => {
    const agent = memory().primary();
    const turns: [string, string][] = [
      [
        'What visibility timeout does the render-jobs queue use?',
        'The render-jobs queue has a visibility timeout of 300 seconds, set when the queue was created.',
      ],
      ['Which region hosts the render farm?', 'The render farm runs in eu-west-1 on twelve hosts.'],
      [
        'Can you check the nightly backup?',
        'The nightly backup finished at 02:14 and the restore test passed.',
      ],
      ['Who is on call this week?', 'Dana is on call until Friday, then Omar takes over.'],
      ['Any news on the invoice bug?', 'The invoice totals were rounded twice; the fix is in review.'],
      [
        'Long renders are picked up twice by the workers, so jobs run two or three times.',
        'Raised the render-jobs queue visibility timeout to 900 seconds, so a long render finishes before the message is visible again.',
      ],
    ];
    await feedTurns(agent, turns, 90);
    const { hits, context } = await agent.recall('What is the visibility timeout of the render-jobs queue?', {
      budgetTokens: 200,
    });
    const updated = hits.findIndex((h) => h.text.includes('900 seconds'));
    const old = hits.findIndex((h) => h.text.includes('300 seconds'));
    expect(updated).toBeGreaterThanOrEqual(0);
    expect(old).toBeGreaterThan(updated);
    expect(hits.map((h) => h.score)).toEqual([...hits.map((h) => h.score)].sort((a, b) => b - a));
    expect(context.indexOf('900 seconds')).toBeLessThan(context.indexOf('300 seconds'));
    // A question about what happened then keeps the first statement first.
    const then = await agent.recall(
      'Why did we set the render-jobs queue visibility timeout to 300 seconds?',
      {
        budgetTokens: 0,
      },
    );
    expect(then.hits[0]?.text).toContain('300 seconds');
  });

  it('keeps the statement of the asked attribute first when a later turn changes another one', async () => {
    const agent = memory().primary();
    const turns: [string, string][] = [
      [
        'Renovate opened its weekly bump again; it has been red all week and nobody looked at it. What would it touch if we merged it?',
        'It bumps ffmpeg from 5.1 to 6.1. The transcoder builds on media-base, and so do feed-builder and stats-rollup, which only need ffprobe; those three services would all pick up the new ffmpeg on their next deploy, so each of their suites has to pass first, and the nightly jobs too; I will run them locally against a test tag before anything is merged, and report back here with the failures, if any, and how long each suite took.',
      ],
      [
        'Can you check the nightly backup?',
        'The nightly backup finished at 02:14 and the restore test passed.',
      ],
      ['How big is the media-base image?', 'The media-base image is 410 MB; its build takes six minutes.'],
      ['Who is on call this week?', 'Dana is on call until Friday, then Omar takes over.'],
      [
        'Pin ffmpeg in media-base.',
        'Pinned: media-base now builds ffmpeg 6.1.1 instead of 5.1, and the media-base build is green.',
      ],
    ];
    await feedTurns(agent, turns, 90);
    // The later turn changed media-base's ffmpeg, not which services build on it.
    const { hits } = await agent.recall('Which services build on media-base?', { budgetTokens: 0 });
    expect(hits[0]?.text).toContain('three services');
    // Asked for the ffmpeg build, the later turn that changed it comes first.
    const pinned = await agent.recall('Which ffmpeg build does media-base use?', { budgetTokens: 0 });
    expect(pinned.hits[0]?.text).toContain('6.1.1');
  });

  it('matches the subject of a time question without its time words', async () => {
    const agent = memory().primary();
    await feedTurns(
      agent,
      [
        ['How do we store passwords?', 'Passwords are hashed with bcrypt at cost 12 in the auth service.'],
        [
          'How did the deploy work originally?',
          'Originally we used to deploy by hand over ssh; today it runs from CI.',
        ],
        [
          'What is the current status of the staging database?',
          'Staging still runs Postgres 14; the upgrade is next week.',
        ],
        [
          'Did the security review ask for changes?',
          'Yes: we migrated password hashing from bcrypt to argon2id with a 64 MB memory cost.',
        ],
      ],
      10,
    );
    const top = async (question: string): Promise<string | undefined> =>
      (await agent.recall(question, { limit: 3, budgetTokens: 0 })).hits[0]?.text;
    // "originally" and "currently" are said in passing by turns about other subjects.
    expect(await top('what did we originally use to hash passwords?')).toContain('bcrypt at cost 12');
    expect(await top('what do we currently use to hash passwords?')).toContain('argon2id');
  });
});
