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
});
