/**
 * Shortening a record for the context without cutting a sentence or a line: the kept text is a
 * verbatim run of whole sentences (the one nearest the query and its neighbours), marked with
 * `…` where something was left out before or after it.
 */
import { codePointLength } from '../core/text.js';
import { sentences } from '../core/text-analysis.js';
import { eachStemFound, stem, stemLookup, tokenize, type StemLookup } from './query.js';

/** The stems of a text's words (what a query's stems are compared with). */
export function stemsOf(text: string): Set<string> {
  return new Set(tokenize(text).map(stem));
}

/** How many of `stems` the words of `text` hold, each counted once. */
export function stemsHeld(text: string, stems: ReadonlySet<string>): number {
  const lookup = lookupOf(stems);
  const held = new Set<string>();
  eachStemFound(text, lookup, (stemmed) => held.add(stemmed));
  return held.size;
}

/** The index of the text holding most of `stems` (the first on a tie; 0 when `texts` is empty). */
export function mostStemsHeld(texts: readonly string[], stems: ReadonlySet<string>): number {
  let at = 0;
  let most = -1;
  for (const [i, text] of texts.entries()) {
    const held = stemsHeld(text, stems);
    if (held > most) {
      at = i;
      most = held;
    }
  }
  return at;
}

// One recall compares many texts with the same set of query stems: its lookup is built once.
const lookups = new WeakMap<ReadonlySet<string>, StemLookup>();

function lookupOf(stems: ReadonlySet<string>): StemLookup {
  let lookup = lookups.get(stems);
  if (lookup === undefined) {
    lookup = stemLookup(stems);
    lookups.set(stems, lookup);
  }
  return lookup;
}

const ELLIPSIS = '…';

// A transcript's speaker label: one to three capitalised words and a colon (`Caroline: `,
// `Dr. Lee: `), not a sentence that happens to end in one (`From the last 7 days: `).
const SPEAKER_LABEL_RE = /^(\p{Lu}[\p{L}\p{N}.'_-]*(?: \p{Lu}[\p{L}\p{N}.'_-]*){0,2}): /u;

/** The `Name: ` label a line opens with, if any. */
export function speakerLabel(text: string): string | undefined {
  return SPEAKER_LABEL_RE.exec(text)?.[0];
}

/**
 * `text` within `maxChars` code points: whole when it fits, else the run of whole sentences
 * around the one holding most of `stems` (the first sentence when none holds any), widened
 * forward then backward while it fits, with `… ` / ` …` where text was left out. A leading
 * `Name: ` speaker label is kept. `undefined` when not even that one sentence fits.
 *
 * @example
 * ```ts
 * fitSpan('Caroline: We went home. The lag alert is 30 s now. Bye.', 40, new Set(['lag']));
 * // 'Caroline: … The lag alert is 30 s now. …'
 * ```
 */
export function fitSpan(text: string, maxChars: number, stems: ReadonlySet<string>): string | undefined {
  if (codePointLength(text) <= maxChars) return text;
  const { head, body, found, best } = analysed(text, stems);
  if (found.length === 0) return undefined;
  const render = (from: number, to: number): string => {
    const first = found[from] as (typeof found)[number];
    const last = found[to] as (typeof found)[number];
    const span = body.slice(first.index, last.index + last.text.length);
    const before = from > 0 ? `${ELLIPSIS} ` : '';
    const after = to < found.length - 1 ? ` ${ELLIPSIS}` : '';
    return `${head}${before}${span}${after}`;
  };
  const fits = (from: number, to: number): boolean => codePointLength(render(from, to)) <= maxChars;
  if (!fits(best, best)) return undefined;
  let from = best;
  let to = best;
  while (to + 1 < found.length && fits(from, to + 1)) to++;
  while (from > 0 && fits(from - 1, to)) from--;
  return render(from, to);
}

/** A text split for {@link fitSpan}: its speaker label, its sentences and the one nearest the query. */
interface Analysed {
  readonly head: string;
  readonly body: string;
  readonly found: ReturnType<typeof sentences>;
  readonly best: number;
}

// One recall shortens the same records several times (each rendering of a turn, each level
// tried): their sentences and query-word counts are worked out once per set of query stems.
const analyses = new WeakMap<ReadonlySet<string>, Map<string, Analysed>>();

function analysed(text: string, stems: ReadonlySet<string>): Analysed {
  let byText = analyses.get(stems);
  if (byText === undefined) {
    byText = new Map();
    analyses.set(stems, byText);
  }
  const known = byText.get(text);
  if (known !== undefined) return known;
  const head = speakerLabel(text) ?? '';
  const body = text.slice(head.length);
  const found = sentences(body);
  const lookup = lookupOf(stems);
  let best = 0;
  let bestHits = 0;
  found.forEach((s, i) => {
    let n = 0;
    eachStemFound(s.text, lookup, () => n++);
    if (n > bestHits) {
      best = i;
      bestHits = n;
    }
  });
  const result = { head, body, found, best };
  byText.set(text, result);
  return result;
}
