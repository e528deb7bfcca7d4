import { countTokens as countO200k, isWithinTokenLimit } from 'gpt-tokenizer';

/**
 * Counts tokens with a real BPE tokenizer (OpenAI's o200k_base, as used by GPT-4o and later),
 * so token budgets mean what a model will see.
 */
export function countTokens(text: string): number {
  if (text.length === 0) return 0;
  return countO200k(text);
}

/** True when `text` fits in `limit` tokens; stops counting early on long inputs. */
export function fitsTokens(text: string, limit: number): boolean {
  if (text.length === 0) return true;
  return isWithinTokenLimit(text, limit) !== false;
}
