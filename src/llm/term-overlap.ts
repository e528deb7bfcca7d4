/**
 * The offline relevance test behind `verifyMatch`: how much of the query's content the summary
 * holds. Words are compared stemmed and without stop words; a query word found only inside a
 * longer summary word (or inside unsegmented CJK text) counts in part.
 */
import { tokenize, type Token } from '../core/text-analysis.js';

/** `confidence` at or above this makes `match` true (Hedgehog's keyword matcher uses the same cut). */
export const MATCH_THRESHOLD = 0.3;

const EXACT = 1;
const CONTAINED = 0.75;
const PREFIX = 0.5;

/**
 * Weighted share of the query's distinct content terms present in `summary`, in 0..1 rounded to
 * three decimals. Names and numbers weigh more than ordinary words, since they identify a task.
 */
export function termOverlap(query: string, summary: string): { match: boolean; confidence: number } {
  const terms = queryTerms(query);
  if (terms.length === 0) return { match: false, confidence: 0 };
  const summaryTokens = tokenize(summary);
  const summaryTerms = new Set(summaryTokens.map((t) => t.term));
  const haystack = summary.normalize('NFKC').toLowerCase();
  let total = 0;
  let found = 0;
  for (const token of terms) {
    const weight = weightOf(token);
    total += weight;
    found += weight * credit(token, summaryTerms, haystack);
  }
  const confidence = Math.round((found / total) * 1000) / 1000;
  return { match: confidence >= MATCH_THRESHOLD, confidence };
}

function queryTerms(query: string): Token[] {
  const tokens = tokenize(query);
  const content = tokens.filter((t) => !t.stop);
  const chosen = content.length > 0 ? content : tokens;
  const seen = new Set<string>();
  return chosen.filter((t) => !seen.has(t.term) && seen.add(t.term));
}

function weightOf(token: Token): number {
  if (/\p{N}/u.test(token.surface) || /^\p{Lu}/u.test(token.surface)) return 1.5;
  if (token.cjk && [...token.surface].length === 1) return 0.5;
  return 1;
}

function credit(token: Token, summaryTerms: ReadonlySet<string>, haystack: string): number {
  if (summaryTerms.has(token.term)) return EXACT;
  const surface = token.surface.normalize('NFKC').toLowerCase();
  if ((token.cjk || surface.length >= 4) && haystack.includes(surface)) return CONTAINED;
  if (token.term.length >= 4) {
    for (const term of summaryTerms) {
      if (term.length >= 4 && (term.startsWith(token.term) || token.term.startsWith(term))) return PREFIX;
    }
  }
  return 0;
}
