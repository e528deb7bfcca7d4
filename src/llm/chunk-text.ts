import { sliceCodePoints } from '../core/text.js';

const SENTENCE_END_RE = /[\n。；;.!?！？](?=[^\n。；;.!?！？]*$)/u;
const SPACE_RE = /\s(?=\S*$)/u;

/**
 * Splits `text` into pieces of at most `max` code points, each cut after the last sentence end
 * (or else the last space) in the second half of its window, so a piece rarely ends mid-sentence
 * and never inside a surrogate pair.
 */
export function chunkText(text: string, max: number): string[] {
  const chunks: string[] = [];
  let rest = text;
  while (rest.length > 0) {
    const window = sliceCodePoints(rest, max);
    if (window.length === rest.length) {
      chunks.push(rest);
      break;
    }
    const cut = cutPoint(window);
    chunks.push(window.slice(0, cut));
    rest = rest.slice(cut);
  }
  return chunks.map((c) => c.trim()).filter((c) => c.length > 0);
}

function cutPoint(window: string): number {
  const half = Math.floor(window.length / 2);
  const tail = window.slice(half);
  const end = tail.search(SENTENCE_END_RE);
  if (end >= 0) return half + end + 1;
  const space = tail.search(SPACE_RE);
  if (space >= 0) return half + space + 1;
  return window.length;
}
