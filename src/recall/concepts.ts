/**
 * Words that name one thing (issue 19, navigation by paraphrase): a question asked weeks later
 * often names a task's subject in other words ("the calendar widget" for a date picker, "object
 * storage" for S3, "Mandarin" for zh-CN). {@link CONCEPT_GROUPS} lists such words and phrases
 * by group; here a question's member of a group is found, so that the other members can be
 * searched too and credited, in part, to a node that holds one of them.
 *
 * Members are compared as tokens with their commonest endings folded ({@link foldWord}), not
 * as Porter stems: stems join words that name different things (`settings` and `set` are both
 * `set`, `general` and `generate` both `gener`), which a group of names must not do.
 */
import { CONCEPT_GROUPS } from './concept-groups.js';
import { stem, tokenize } from '../core/index-terms.js';

/** Longest member of a group, in words. */
const LONGEST = 3;
/** At most this many other members are added to a question's search. */
const MAX_EXPANSIONS = 32;

/** The groups read as keys: a member's folded tokens (joined by one space) → the groups holding it. */
interface ConceptIndex {
  readonly groupsOf: ReadonlyMap<string, readonly number[]>;
  /** Each group's members, as words (for the search) and as keys (their folded tokens). */
  readonly members: readonly (readonly { readonly words: string; readonly key: string }[])[];
}

let index: ConceptIndex | undefined;

/**
 * A token with its commonest endings folded, as members and texts are compared: a plural's
 * (`settings` → `setting`, `queries` → `query`), then `-ing` or `-ed`, then a final `e`
 * (`replaced`, `replace` → `replac`), each only where three letters stay. Lighter than a Porter
 * stem, which joins words that name different things (`settings` and `set` are both `set`).
 */
export function foldWord(token: string): string {
  let word = token;
  if (word.length <= 3) return word;
  if (word.endsWith('ies') && word.length > 4) word = `${word.slice(0, -3)}y`;
  else if (word.endsWith('s') && !/(?:ss|us|is)$/u.test(word)) word = word.slice(0, -1);
  if (word.endsWith('ing') && word.length >= 6) word = word.slice(0, -3);
  else if (word.endsWith('ed') && word.length >= 5) word = word.slice(0, -2);
  if (word.endsWith('e') && word.length >= 4) word = word.slice(0, -1);
  return word;
}

/** The member's folded tokens joined by one space (its key), or undefined when it has no word or too many. */
function keyOf(words: readonly string[]): string | undefined {
  if (words.length === 0 || words.length > LONGEST) return undefined;
  return words.map(foldWord).join(' ');
}

function conceptIndex(): ConceptIndex {
  if (index) return index;
  const groupsOf = new Map<string, number[]>();
  const members: { words: string; key: string }[][] = [];
  CONCEPT_GROUPS.forEach((group, g) => {
    const own: { words: string; key: string }[] = [];
    for (const member of group) {
      const words = tokenize(member);
      const key = keyOf(words);
      if (key === undefined || own.some((m) => m.key === key)) continue;
      own.push({ words: words.join(' '), key });
      const list = groupsOf.get(key) ?? [];
      list.push(g);
      groupsOf.set(key, list);
    }
    members.push(own);
  });
  index = { groupsOf, members };
  return index;
}

/**
 * The concepts a question names: which of its searched words each group covers, and the other
 * members of those groups, to be searched too.
 */
export interface QueryConcepts {
  /** For each group the question names, the indexes of the question's terms its member spans. */
  readonly termsOfGroup: ReadonlyMap<number, readonly number[]>;
  /** Members' keys → the question's groups holding them (what a node may hold). */
  readonly wanted: ReadonlyMap<string, readonly number[]>;
  /** First tokens (folded) of the wanted members of two or three words (so most words need one lookup). */
  readonly phraseStarts: ReadonlySet<string>;
  /** The other members' words, for the index search (phrases of several words kept whole). */
  readonly expansions: readonly string[];
}

/**
 * Reads the groups that `tokens` (a question's words, in order, stop words included) name.
 * `termOf` gives the index of a stem (the index's form of a word) among the question's searched
 * terms; a member that spans none of them (only stop words, or words left out of the search) is
 * not counted.
 */
export function queryConcepts(
  tokens: readonly string[],
  termOf: (stemmed: string) => number | undefined,
): QueryConcepts | undefined {
  const { groupsOf, members } = conceptIndex();
  const folded = tokens.map(foldWord);
  const termsOfGroup = new Map<number, number[]>();
  for (let start = 0; start < folded.length; start++) {
    for (let length = 1; length <= LONGEST && start + length <= folded.length; length++) {
      const groups = groupsOf.get(folded.slice(start, start + length).join(' '));
      if (!groups) continue;
      const terms = tokens
        .slice(start, start + length)
        .map((token) => termOf(stem(token)))
        .filter((t): t is number => t !== undefined);
      if (terms.length === 0) continue;
      for (const g of groups) termsOfGroup.set(g, [...new Set([...(termsOfGroup.get(g) ?? []), ...terms])]);
    }
  }
  if (termsOfGroup.size === 0) return undefined;
  const own = new Set(folded);
  const wanted = new Map<string, number[]>();
  const phraseStarts = new Set<string>();
  const expansions: string[] = [];
  for (const g of termsOfGroup.keys()) {
    for (const member of members[g] ?? []) {
      wanted.set(member.key, [...(wanted.get(member.key) ?? []), g]);
      const parts = member.key.split(' ');
      if (parts.length > 1) phraseStarts.add(parts[0] as string);
      else if (own.has(member.key)) continue;
      if (expansions.length < MAX_EXPANSIONS && !expansions.includes(member.words))
        expansions.push(member.words);
    }
  }
  return { termsOfGroup, wanted, phraseStarts, expansions };
}

/**
 * Finds, in one pass over a text's tokens, which of a question's groups the text names. Feed the
 * text's tokens in order with {@link ConceptScan.next}; {@link ConceptScan.found} holds the groups.
 */
export class ConceptScan {
  readonly #concepts: QueryConcepts;
  readonly found = new Set<number>();
  #previous = '';
  #beforePrevious = '';

  constructor(concepts: QueryConcepts) {
    this.#concepts = concepts;
  }

  /** Reads the text's next token. */
  next(token: string): void {
    const { wanted, phraseStarts } = this.#concepts;
    const folded = foldWord(token);
    this.#mark(wanted.get(folded));
    if (phraseStarts.has(this.#previous)) this.#mark(wanted.get(`${this.#previous} ${folded}`));
    if (phraseStarts.has(this.#beforePrevious))
      this.#mark(wanted.get(`${this.#beforePrevious} ${this.#previous} ${folded}`));
    this.#beforePrevious = this.#previous;
    this.#previous = folded;
  }

  #mark(groups: readonly number[] | undefined): void {
    if (groups) for (const g of groups) this.found.add(g);
  }
}
