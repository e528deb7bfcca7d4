import { LanguageModelError } from './language-model-error.js';
import { tokenize } from '../core/text-analysis.js';
import type { Embedder } from './types.js';

/**
 * A deterministic {@link Embedder} for tests: each word (stemmed, lower case) is hashed into
 * one of `dimensions` buckets with a sign, and the vector is scaled to length 1. Texts that
 * share words have a higher cosine similarity; the same text always gives the same vector.
 *
 * @example
 * ```ts
 * const db = await openMemory(path, { embedder: new MockEmbedder({ dimensions: 32 }) });
 * ```
 */
export class MockEmbedder implements Embedder {
  readonly specificationVersion = 'v1' as const;
  readonly modelId: string;
  readonly dimensions: number;
  /** When true, `embed` rejects with `LLM_FAILED`. */
  failing = false;
  /** Texts embedded so far, in order. */
  readonly calls: (readonly string[])[] = [];

  constructor(options: { readonly dimensions?: number; readonly modelId?: string } = {}) {
    const dimensions = options.dimensions ?? 64;
    if (!Number.isInteger(dimensions) || dimensions < 1)
      throw new RangeError('dimensions must be an integer >= 1');
    this.dimensions = dimensions;
    this.modelId = options.modelId ?? `mock-hash-${dimensions}`;
  }

  embed(texts: readonly string[]): Promise<Float32Array[]> {
    this.calls.push([...texts]);
    if (this.failing) return Promise.reject(new LanguageModelError('unknown', 'mock: embed is set to fail'));
    return Promise.resolve(texts.map((text) => this.#vector(text)));
  }

  #vector(text: string): Float32Array {
    const vector = new Float32Array(this.dimensions);
    for (const token of tokenize(text)) {
      const hash = fnv1a(token.term);
      vector[hash % this.dimensions]! += hash & 0x80000000 ? -1 : 1;
    }
    let norm = 0;
    for (const x of vector) norm += x * x;
    if (norm > 0) for (let i = 0; i < vector.length; i++) vector[i]! /= Math.sqrt(norm);
    return vector;
  }
}

function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}
