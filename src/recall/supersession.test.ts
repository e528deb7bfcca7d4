import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { SearchHit } from '../core/model/recall.js';
import {
  applySupersession,
  askedAttribute,
  asksForState,
  DEFAULT_SUPERSESSION_WEIGHTS,
  revises,
} from './supersession.js';
import { names, rankedUtterance } from '../../test/helpers/ranked-items.js';

/** One archive utterance of its own turn, as ranking hands it on. */
const said = (
  name: string,
  text: string,
  score: number,
  createdAt: number,
  extra: { eventType?: string; layer?: SearchHit['layer'] } = {},
): ReturnType<typeof rankedUtterance> => rankedUtterance(name, score, { text, createdAt, ...extra });

const QUESTION = 'What is the visibility timeout of the render-jobs queue?';
const morning = said('morning', 'The render-jobs queue has a visibility timeout of 300 seconds.', 2.0, 1_000);
const other = said('other', 'The render-jobs queue is drained by twelve workers.', 1.5, 2_000);
const afternoon = said(
  'afternoon',
  'Raised the visibility timeout of render-jobs to 900 seconds.',
  1.2,
  5_000,
);

describe('revises / asksForState', () => {
  it.each([
    ['Our outbound flight has been moved to 09:40.', true],
    ["So we're 10 now.", true],
    ['Raised the visibility timeout from 300 s to 900 s.', true],
    ['The timeout is 300 seconds.', false],
    ['We changed our minds about the venue.', false],
  ])('revises(%s) = %s', (sentence, expected) => {
    expect(revises(sentence)).toBe(expected);
  });

  it.each([
    ['What time does our flight leave?', true],
    ['How many people is the dinner for?', true],
    ['What did we decide about the fixture?', false],
    ['Why did the test time out?', false],
    ['How many workers does the backfill use, and why not more?', false],
    ['How many workers does the backfill use; why not more?', false],
    ['Which nightly jobs run on the backfill host?', true],
    ['What happened to the loudness tests?', false],
  ])('asksForState(%s) = %s', (question, expected) => {
    expect(asksForState(question)).toBe(expected);
  });
});

describe('askedAttribute', () => {
  it.each([
    ['Which services build on castwell/media-base?', ['servic', 'build']],
    ['What is the visibility timeout on the transcode-jobs queue now?', ['visibl', 'timeout']],
    ["What's my diet at the moment?", ['diet']],
    ['How many people is the dinner for?', ['peopl']],
    ["What can't Mom eat?", []],
    ['Why did the test time out?', []],
  ])('askedAttribute(%s)', (question, expected) => {
    expect([...askedAttribute(question)]).toEqual(expected);
  });
});

describe('applySupersession', () => {
  it('lifts a later statement that changes the value of the same subject just above the old one', () => {
    const out = applySupersession([morning, other, afternoon], QUESTION);
    expect(names(out)).toEqual(['afternoon', 'morning', 'other']);
    expect(out[0]?.score).toBeGreaterThan(morning.score);
    // Scores stay in the order shown.
    expect(out.map((i) => i.score)).toEqual([...out.map((i) => i.score)].sort((a, b) => b - a));
  });

  it('keeps the ranking when the later record names no change, is older, or is about another subject', () => {
    const restated = said('restated', 'The render-jobs visibility timeout is 900 seconds.', 1.2, 5_000);
    expect(names(applySupersession([morning, other, restated], QUESTION))).toEqual([
      'morning',
      'other',
      'restated',
    ]);
    const older = said('older', 'Raised the visibility timeout of render-jobs to 900 seconds.', 1.2, 500);
    expect(names(applySupersession([morning, other, older], QUESTION))).toEqual([
      'morning',
      'other',
      'older',
    ]);
    const elsewhere = said('elsewhere', 'Moved the render farm to 3 new hosts.', 1.2, 5_000);
    expect(names(applySupersession([morning, other, elsewhere], QUESTION))).toEqual([
      'morning',
      'other',
      'elsewhere',
    ]);
  });

  it('keeps the ranking when the later record revises another attribute of the subject than the one asked', () => {
    const question = 'Which services build on the media-base image?';
    const services = said(
      'services',
      'Three services build on the media-base image: transcoder, feed-builder and stats-rollup.',
      2.0,
      1_000,
    );
    const pinned = said(
      'pinned',
      'The media-base image now builds with ffmpeg 6.1.1 instead of 5.1.',
      1.6,
      5_000,
    );
    expect(names(applySupersession([services, pinned], question))).toEqual(['services', 'pinned']);
    // Asked for what the revision changes, it is lifted as before.
    expect(
      names(applySupersession([services, pinned], 'Which ffmpeg build is in the media-base image?')),
    ).toEqual(['pinned', 'services']);
  });

  it('keeps the ranking on a question about an event, or when the revision scores far below', () => {
    expect(
      names(
        applySupersession(
          [morning, other, afternoon],
          'Why did we pick the visibility timeout of the render-jobs queue?',
        ),
      ),
    ).toEqual(['morning', 'other', 'afternoon']);
    const faint = said('faint', 'Raised the visibility timeout of render-jobs to 900 seconds.', 0.5, 5_000);
    expect(names(applySupersession([morning, other, faint], QUESTION))).toEqual([
      'morning',
      'other',
      'faint',
    ]);
  });

  it('takes no revision from a tool event or a topic keyword list', () => {
    const event = said('event', 'Raised the visibility timeout of render-jobs to 900 seconds.', 1.2, 5_000, {
      eventType: 'tool_result',
    });
    expect(names(applySupersession([morning, other, event], QUESTION))).toEqual([
      'morning',
      'other',
      'event',
    ]);
    const topic = said('topic', 'raised, visibility timeout, 900 seconds, now', 1.2, 5_000, {
      layer: 'topic',
    });
    expect(names(applySupersession([morning, other, topic], QUESTION))).toEqual([
      'morning',
      'other',
      'topic',
    ]);
  });

  it('follows a chain of revisions to the newest', () => {
    const evening = said('evening', 'Lowered the render-jobs visibility timeout to 600 seconds.', 1.0, 9_000);
    expect(names(applySupersession([morning, other, afternoon, evening], QUESTION)).slice(0, 3)).toEqual([
      'evening',
      'afternoon',
      'morning',
    ]);
  });

  it('orders any items as reading every record would (the look for a possible revision first skips nothing)', () => {
    // A record that forces every record's words to be read without moving anything: ranked
    // first (nothing is lifted above it), newest of all (nothing supersedes it), in a window one
    // unit wider.
    const forcer = said('forcer', 'Moved it to 7 now.', 100, Number.MAX_SAFE_INTEGER);
    const sentence = fc
      .array(
        fc.constantFrom('render-jobs', 'timeout', 'queue', 'moved', 'now', 'to', '900', 'seconds', 'the'),
        {
          minLength: 1,
          maxLength: 8,
        },
      )
      .map((w) => `${w.join(' ')}.`);
    const item = fc.record({
      text: fc.array(sentence, { minLength: 1, maxLength: 3 }).map((s) => s.join(' ')),
      score: fc.double({ min: 0.1, max: 3, noNaN: true }),
      createdAt: fc.integer({ min: 0, max: 10_000 }),
      event: fc.boolean(),
    });
    fc.assert(
      fc.property(fc.array(item, { minLength: 2, maxLength: 16 }), (drawn) => {
        const items = drawn
          .map((d, i) =>
            said(`r${i}`, d.text, d.score, d.createdAt, d.event ? { eventType: 'tool_result' } : {}),
          )
          .sort((a, b) => b.score - a.score);
        const direct = applySupersession(items, QUESTION);
        const forced = applySupersession([forcer, ...items], QUESTION, {
          ...DEFAULT_SUPERSESSION_WEIGHTS,
          window: DEFAULT_SUPERSESSION_WEIGHTS.window + 1,
        }).filter((i) => i.name !== 'forcer');
        expect(direct.map((i) => [i.name, i.score])).toEqual(forced.map((i) => [i.name, i.score]));
      }),
      { numRuns: 300, seed: 14 },
    );
  });
});
