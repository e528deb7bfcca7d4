import { countTokens as countO200k } from 'gpt-tokenizer';

/**
 * Counts tokens with a real BPE tokenizer (OpenAI's o200k_base, as used by GPT-4o and later),
 * so token budgets mean what a model will see.
 */
export function countTokens(text: string): number {
  if (text.length === 0) return 0;
  return countO200k(text);
}
