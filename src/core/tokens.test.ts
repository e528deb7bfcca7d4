import { describe, expect, it } from 'vitest';
import { countTokens, tokensWithin } from './tokens.js';

describe('token counts of stored text', () => {
  // Agents' transcripts quote chat-template markers; the tokenizer refuses them by default.
  it.each(['<|endoftext|>', '<|im_end|>', 'reply ended with <|im_start|>assistant'])(
    'counts %s as plain text instead of throwing',
    (text) => {
      const count = countTokens(text);
      expect(count).toBeGreaterThan(1);
      expect(tokensWithin(text, count)).toBe(count);
      expect(tokensWithin(text, count - 1)).toBeUndefined();
    },
  );
});
