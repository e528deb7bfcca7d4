import { describe, expect, it } from 'vitest';
import { turnForms, type TurnLine } from './turn-units.js';
import { stemsOf } from './text-fit.js';

const line = (who: string, text: string, matched: boolean): TurnLine => ({
  who,
  text,
  matched,
  utterance: true,
});
const LONG_REPLY =
  'That sounds lovely. We spent the weekend at the lake with the kids. The weather was great. ' +
  'The edge TTL is five minutes, with a purge on publish. Anyway, talk soon!';

describe('turnForms: the other utterance of a turn', () => {
  it('is shown whole when it is short', () => {
    const forms = turnForms(
      [line('user: ', 'I went to the support group.', true), line('agent: ', 'Wow, how was it?', false)],
      stemsOf('support group'),
      1000,
      80,
    );
    expect(forms[0]?.lines).toEqual(['user: I went to the support group.', 'agent: Wow, how was it?']);
  });

  it('is left out rather than shown as a fragment after a statement', () => {
    const forms = turnForms(
      [line('user: ', 'We moved the feed cache to the CDN edge.', true), line('agent: ', LONG_REPLY, false)],
      stemsOf('edge TTL'),
      1000,
      80,
    );
    expect(forms[0]?.lines).toEqual(['user: We moved the feed cache to the CDN edge.']);
  });

  it('keeps its sentence nearest the query when the shown utterance asks a question', () => {
    const forms = turnForms(
      [line('user: ', 'What TTL would you use at the edge?', true), line('agent: ', LONG_REPLY, false)],
      stemsOf('edge TTL'),
      1000,
      80,
    );
    expect(forms[0]?.lines[0]).toBe('user: What TTL would you use at the edge?');
    expect(forms[0]?.lines[1]).toMatch(/^agent: … The edge TTL is five minutes, with a purge on publish\./u);
  });

  it('is left out after a question when none of its sentences holds a word of the query', () => {
    const forms = turnForms(
      [line('user: ', 'What TTL would you use at the edge?', true), line('agent: ', LONG_REPLY, false)],
      stemsOf('edge TTL for podcast feeds'),
      1000,
      80,
    );
    expect(forms[0]?.lines).toHaveLength(2);
    const unrelated = turnForms(
      [
        line('user: ', 'Which lake did you visit?', true),
        line(
          'agent: ',
          'Great question. Honestly, I cannot recall it now, and the map is gone. Sorry!',
          false,
        ),
      ],
      stemsOf('lake visit'),
      1000,
      40,
    );
    expect(unrelated[0]?.lines).toEqual(['user: Which lake did you visit?']);
  });

  it('in the first places, shows the opening of an answer that repeats no word of the query, richest form first', () => {
    const answer =
      'Episodes only reach the feed builder after they are transcoded, so the feeds lag because of the queue. ' +
      'All workers are busy, and many messages were received two or three times. ' +
      'A new publisher started uploading audiobooks of 3-5 hours at 13:00. ' +
      'Each of those takes nine to fourteen minutes, longer than the 300 s visibility timeout.';
    const lines = [
      line('user: ', 'TranscodeQueueBacklog is firing and the depth is 4,800. What is going on?', true),
      line('agent: ', answer, false),
    ];
    const stems = stemsOf('what caused the TranscodeQueueBacklog alert');
    const top = turnForms(lines, stems, Number.POSITIVE_INFINITY, 80, 300);
    expect(top[0]?.lines).toEqual([
      'user: TranscodeQueueBacklog is firing and the depth is 4,800. What is going on?',
      'agent: Episodes only reach the feed builder after they are transcoded, so the feeds lag because of the queue. All workers are busy, and many messages were received two or three times. A new publisher started uploading audiobooks of 3-5 hours at 13:00. …',
    ]);
    // A tight budget still has the question alone to fall back on.
    expect(top.some((form) => form.lines.length === 1 && form.lines[0]?.startsWith('user: '))).toBe(true);
    // Past the first places (no answer budget of its own) the answer is left out, as before.
    expect(turnForms(lines, stems, 600, 80)[0]?.lines).toHaveLength(1);
    // A statement is no question: its long reply is not shown for it.
    const statement = [
      line('user: ', 'TranscodeQueueBacklog is firing again.', true),
      line('agent: ', answer, false),
    ];
    expect(turnForms(statement, stems, Number.POSITIVE_INFINITY, 80, 300)[0]?.lines).toHaveLength(1);
  });

  it('never renders a turn by its other utterance alone when what matched was a tool event', () => {
    const lines: TurnLine[] = [
      line('user: ', 'Fix it now, properly later.', false),
      {
        who: '[tool_result] ',
        text: 'aws_sqs_queue.transcode_jobs: Modifications complete after 1s',
        matched: true,
        utterance: false,
      },
    ];
    const forms = turnForms(lines, stemsOf('transcode jobs'), 600, 80);
    expect(forms.length).toBeGreaterThan(0);
    for (const form of forms) expect(form.lines.some((l) => l.startsWith('[tool_result] '))).toBe(true);
  });
});
