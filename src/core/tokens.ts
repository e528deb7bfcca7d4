import { countTokens as countO200k, isWithinTokenLimit } from 'gpt-tokenizer';

/**
 * Stored text is read as plain text: a special token's spelling in it (`<|endoftext|>`,
 * `<|im_end|>`, common in agents' transcripts) is counted as the ordinary characters a model
 * client sends it as, never refused (the tokenizer throws on them by default).
 */
const PLAIN_TEXT = { disallowedSpecial: new Set<string>() };

/**
 * Counts tokens with a real BPE tokenizer (OpenAI's o200k_base, as used by GPT-4o and later),
 * so token budgets mean what a model will see.
 */
export function countTokens(text: string): number {
  if (text.length === 0) return 0;
  return countO200k(text, PLAIN_TEXT);
}

/**
 * The token count of `text` when it is at most `limit`, else `undefined`; stops counting as soon
 * as the limit is passed (what budget filling needs: most tries that fail are cut short).
 */
export function tokensWithin(text: string, limit: number): number | undefined {
  if (limit < 0) return undefined;
  if (text.length === 0) return 0;
  const count = isWithinTokenLimit(text, limit, PLAIN_TEXT);
  return count === false ? undefined : count;
}
