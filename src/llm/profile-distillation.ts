import { oneLine } from '../core/text.js';
import { fitWords } from './fit-text.js';
import type { ProfileDistillation } from './types.js';

/** Longest personality line a distillation keeps (MemHop's 160 runes). */
export const PERSONALITY_CHARS = 160;
/** Most per-scene emotion rows a distillation keeps. */
export const MAX_PER_NODE = 20;

/** A distillation as a summariser produced it, before its values are made safe to store. */
interface RawDistillation {
  readonly emotion: { readonly valence: number; readonly arousal: number; readonly dominance: number };
  readonly mbti: { readonly i_e: number; readonly n_s: number; readonly t_f: number; readonly j_p: number };
  readonly personality: string;
  readonly perNode: readonly { readonly id: string; readonly valence: number; readonly arousal: number }[];
}

/** `value` within [min, max]; NaN becomes the neutral value (0 on a signed axis, else `min`). */
export function clamp(value: number, min: number, max: number): number {
  if (Number.isNaN(value)) return min < 0 ? 0 : min;
  return Math.min(max, Math.max(min, value));
}

/**
 * Makes a distillation safe to store, whoever produced it: emotions clamped to [0, 1], MBTI axes
 * to [-1, 1], the personality one line of at most {@link PERSONALITY_CHARS}, and per-scene rows
 * only for scenes that were sampled (at most {@link MAX_PER_NODE}).
 */
export function normalizeDistillation(
  raw: RawDistillation,
  sampled: ReadonlySet<string>,
): ProfileDistillation {
  return {
    emotion: {
      valence: clamp(raw.emotion.valence, 0, 1),
      arousal: clamp(raw.emotion.arousal, 0, 1),
      dominance: clamp(raw.emotion.dominance, 0, 1),
    },
    mbti: {
      i_e: clamp(raw.mbti.i_e, -1, 1),
      n_s: clamp(raw.mbti.n_s, -1, 1),
      t_f: clamp(raw.mbti.t_f, -1, 1),
      j_p: clamp(raw.mbti.j_p, -1, 1),
    },
    personality: fitWords(oneLine(raw.personality), PERSONALITY_CHARS),
    perNode: raw.perNode
      .filter((row) => sampled.has(row.id))
      .slice(0, MAX_PER_NODE)
      .map((row) => ({ id: row.id, valence: clamp(row.valence, 0, 1), arousal: clamp(row.arousal, 0, 1) })),
  };
}
