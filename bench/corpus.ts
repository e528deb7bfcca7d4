/**
 * Synthetic text for the benchmarks that must grow a memory to a million records. Real text has
 * a Zipf-shaped vocabulary (a few words everywhere, most words rare), and that shape decides
 * what a full-text query costs: a corpus where every record holds the same twenty words makes
 * every query match everything. So the words here are drawn from a fixed vocabulary of
 * generated words with Zipf weights, deterministically from a seed.
 */
import { seededRandom } from './harness.js';

const ONSETS = [
  'b',
  'c',
  'd',
  'f',
  'g',
  'h',
  'k',
  'l',
  'm',
  'n',
  'p',
  'r',
  's',
  't',
  'v',
  'z',
  'br',
  'st',
  'tr',
  'pl',
];
const NUCLEI = ['a', 'e', 'i', 'o', 'u', 'ai', 'ou', 'ea'];
const CODAS = ['', 'n', 'r', 's', 't', 'l', 'x', 'nd', 'rk'];

/** Words of a synthetic language: pronounceable, distinct, no stop words. */
function vocabulary(size: number, random: () => number): string[] {
  const words = new Set<string>();
  const pick = (items: readonly string[]): string => items[Math.floor(random() * items.length)] as string;
  while (words.size < size) {
    const syllables = 2 + Math.floor(random() * 2);
    let word = '';
    for (let s = 0; s < syllables; s++) word += pick(ONSETS) + pick(NUCLEI) + pick(CODAS);
    words.add(word);
  }
  return [...words];
}

/** A Zipf-weighted word source with a deterministic generator. */
export class SyntheticCorpus {
  readonly words: readonly string[];
  readonly #cumulative: Float64Array;
  readonly #random: () => number;

  constructor(seed = 1, vocabularySize = 20_000, exponent = 1.05) {
    this.#random = seededRandom(seed);
    this.words = vocabulary(vocabularySize, seededRandom(7));
    this.#cumulative = new Float64Array(vocabularySize);
    let total = 0;
    for (let rank = 0; rank < vocabularySize; rank++) {
      total += 1 / (rank + 1) ** exponent;
      this.#cumulative[rank] = total;
    }
    for (let rank = 0; rank < vocabularySize; rank++)
      this.#cumulative[rank] = (this.#cumulative[rank] as number) / total;
  }

  /** One word, drawn with Zipf weights. */
  word(): string {
    const target = this.#random();
    let low = 0;
    let high = this.#cumulative.length - 1;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if ((this.#cumulative[middle] as number) < target) low = middle + 1;
      else high = middle;
    }
    return this.words[low] as string;
  }

  /** A sentence of `min`..`max` words. */
  sentence(min = 8, max = 24): string {
    const length = min + Math.floor(this.#random() * (max - min + 1));
    const words = Array.from({ length }, () => this.word());
    const text = words.join(' ');
    return `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
  }

  /** Text of about `chars` characters (whole sentences). */
  text(chars: number): string {
    let out = '';
    while (out.length < chars) out += (out.length > 0 ? ' ' : '') + this.sentence();
    return out;
  }

  /**
   * A query a user might type: two to four words of middling frequency (ranks 50..5000), the
   * kind that selects a few hundred records in a large memory rather than all or none.
   */
  query(): string {
    const count = 2 + Math.floor(this.#random() * 3);
    return Array.from({ length: count }, () => {
      const rank = 50 + Math.floor(this.#random() ** 2 * 4950);
      return this.words[rank] as string;
    }).join(' ');
  }
}
