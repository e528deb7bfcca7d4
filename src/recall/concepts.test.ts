import { describe, expect, it } from 'vitest';
import { CONCEPT_GROUPS } from './concept-groups.js';
import { ConceptScan, foldWord, queryConcepts } from './concepts.js';
import { isStopWord, stem, tokenize } from './query.js';

/** A question's searched terms (stems, stop words left out) and the groups it names. */
function conceptsOf(question: string): { terms: string[]; concepts: ReturnType<typeof queryConcepts> } {
  const tokens = tokenize(question);
  const terms = [...new Set(tokens.filter((t) => !isStopWord(t)).map(stem))];
  return {
    terms,
    concepts: queryConcepts(tokens, (s) => (terms.includes(s) ? terms.indexOf(s) : undefined)),
  };
}

/** The groups a question names, by their members, with the question's words each one spans. */
function named(question: string): Map<string, string[]> {
  const { terms, concepts } = conceptsOf(question);
  const out = new Map<string, string[]>();
  for (const [group, indexes] of concepts?.termsOfGroup ?? [])
    out.set(
      (CONCEPT_GROUPS[group] ?? []).join('|'),
      indexes.map((i) => terms[i] ?? '?'),
    );
  return out;
}

/** True when `text` names, in any of its words, a group that `question` names. */
function textNames(question: string, text: string): boolean {
  const { concepts } = conceptsOf(question);
  if (!concepts) return false;
  const scan = new ConceptScan(concepts);
  for (const token of tokenize(text)) scan.next(token);
  return scan.found.size > 0;
}

describe('foldWord', () => {
  it('folds plurals, -ing, -ed and a final e, and keeps apart what a Porter stem joins', () => {
    expect(foldWord('settings')).toBe(foldWord('setting'));
    expect(foldWord('queries')).toBe(foldWord('query'));
    expect(foldWord('replaced')).toBe(foldWord('replace'));
    expect(foldWord('leaking')).toBe(foldWord('leak'));
    // Porter stems both of these to `set`; as names they differ.
    expect(stem('settings')).toBe(stem('set'));
    expect(foldWord('settings')).not.toBe(foldWord('set'));
    for (const kept of ['status', 'analysis', 'class', 'need', 'use', 'red', 'ci'])
      expect(foldWord(kept)).toBe(kept);
  });
});

describe('queryConcepts', () => {
  it('finds the groups a question names, by word and by phrase, with the words each spans', () => {
    const groups = named('the calendar widget test failed in the settings');
    const picker = [...groups].find(([members]) => members.includes('date picker'));
    expect(picker?.[1]).toEqual([stem('calendar'), stem('widget')]);
    expect([...groups.keys()].some((members) => members.includes('preferences'))).toBe(true);
  });

  it('does not read a word as a name its Porter stem shares (`set` is not `settings`)', () => {
    const groups = named('which release set the default to zero');
    expect([...groups.keys()].some((members) => members.includes('preferences'))).toBe(false);
  });

  it('names nothing for a question without a member, or with members only among stop words', () => {
    expect(queryConcepts(tokenize('zorblax quintessence'), () => 0)).toBeUndefined();
    expect(queryConcepts(tokenize('the calendar widget'), () => undefined)).toBeUndefined();
  });

  it('finds a phrase member in a text across its words, and not its words apart', () => {
    expect(textNames('the calendar widget', 'The date picker e2e test is flaky.')).toBe(true);
    expect(textNames('the calendar widget', 'The date of the picker drill was moved.')).toBe(false);
    expect(textNames('leaked payment credential', 'We rotated the restricted API key.')).toBe(true);
    expect(textNames('leaked payment credential', 'Nothing here names it.')).toBe(false);
  });

  it('adds the other members to the search, phrases whole, at most 32', () => {
    const tokens = tokenize('object storage');
    const concepts = queryConcepts(tokens, (s) => [stem('object'), stem('storage')].indexOf(s));
    expect(concepts?.expansions).toContain('s3');
    expect(concepts?.expansions).toContain('blob storage');
    const many = tokenize(
      CONCEPT_GROUPS.slice(0, 40)
        .map((group) => group[0])
        .join(' , '),
    );
    expect(queryConcepts(many, () => 0)?.expansions.length).toBeLessThanOrEqual(32);
  });
});

describe('CONCEPT_GROUPS', () => {
  it('holds groups of at least two distinct members of one to three lower-case words', () => {
    for (const group of CONCEPT_GROUPS) {
      const keys = new Set(group.map((member) => tokenize(member).map(foldWord).join(' ')));
      expect(keys.size, group.join('|')).toBeGreaterThanOrEqual(2);
      for (const member of group) {
        expect(member, member).toBe(member.toLowerCase());
        const words = tokenize(member);
        expect(words.length, member).toBeGreaterThanOrEqual(1);
        expect(words.length, member).toBeLessThanOrEqual(3);
        // A member that is one stop word would name a group in almost any text.
        expect(words.length === 1 && isStopWord(words[0] ?? ''), member).toBe(false);
      }
    }
  });
});
