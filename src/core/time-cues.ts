/**
 * The words of a question that say which time it asks about: the state now ("now", "latest",
 * "still") or an earlier one ("before", "originally", "used to"). Recall and radial navigation
 * read them the same way: they choose between the records (or nodes) of a subject, and are not
 * part of the subject, so neither searches them as words.
 */

const CURRENT_CUE_RE =
  /\b(?:now|nowadays|today|tonight|latest|current(?:ly)?|still|anymore|any more|these days|at the moment|right now|at present|presently|most recent(?:ly)?|newest|up to date)\b/iu;
const PAST_CUE_RE =
  /\b(?:before|originally|original|used to|did\b[^?.!]*\buse to|previous(?:ly)?|at first|initially|initial|formerly|former|earlier|back then|at the start|in the beginning|first time)\b/iu;

// The cues that are only about time. "original", "previous", "initial", "former" and "earlier"
// also name things ("the original invoice", "the previous owner") and stay searched.
const TIME_CUE_RE =
  /\b(?:now|nowadays|today|tonight|latest|current(?:ly)?|still|anymore|these days|at the moment|right now|at present|presently|most recent(?:ly)?|newest|before|originally|previously|initially|formerly|back then|at first|in the beginning|used? to)\b/giu;

/** Which times a question's words ask about (both may be true). */
export interface TimeCues {
  /** It asks about the state now ("now", "latest", "still", "currently" …). */
  readonly current: boolean;
  /** It asks about an earlier state ("before", "originally", "used to", "at first" …). */
  readonly past: boolean;
}

/**
 * The time cues of a question (English words).
 *
 * @example
 * ```ts
 * timeCues('which hash do we use now?'); // { current: true, past: false }
 * timeCues('what did we use to rely on?'); // { current: false, past: true }
 * ```
 */
export function timeCues(query: string): TimeCues {
  return { current: CURRENT_CUE_RE.test(query), past: PAST_CUE_RE.test(query) };
}

/**
 * The question without its time cues, when it has any: what its subject is. A record that set
 * a thing up is not less about it for lacking "originally" or "use", which a later one may say
 * in passing; one about another subject that says "currently" is not about this one. Unchanged
 * when the question asks about no time, or when nothing but cues would be left.
 *
 * @example
 * ```ts
 * withoutTimeCues('what did we originally use to hash passwords?'); // 'what did we hash passwords?'
 * ```
 */
export function withoutTimeCues(query: string): string {
  const cues = timeCues(query);
  if (!cues.current && !cues.past) return query;
  const subject = query.replace(TIME_CUE_RE, ' ').replace(/ {2,}/gu, ' ').trim();
  return /[\p{L}\p{N}]/u.test(subject) ? subject : query;
}
