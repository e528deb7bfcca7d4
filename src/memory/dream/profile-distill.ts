/**
 * Profile distillation: the most important engram scenes are sampled, and the summariser
 * estimates the agent's emotional state (valence, arousal, dominance), MBTI-style axes and a
 * personality line. The four-letter type is derived from the axes on every read; a model's own
 * type word is never asked for nor stored.
 *
 * The host's `personality` is never overwritten: Dream's line is stored apart (`meta` key
 * `dream.<agent id>.profile`) and read with `agent.distilledProfile()`, so the two stay
 * distinguishable. Emotion and axes are library-owned profile fields and are replaced.
 */
import { z } from 'zod';
import { normalizeDistillation } from '../../llm/profile-distillation.js';
import type { ProfileDistillation, ProfileSample } from '../../llm/types.js';
import type { ProfileEstimateRow } from '../../store/dream-repo.js';
import { mbtiType } from '../../store/profile-repo.js';
import { decay, ENGRAM } from '../engram/engram-math.js';
import type { EngramPlan } from '../engram/engram-plan.js';
import type { DistilledProfile } from '../../core/model/dream.js';

/**
 * The samples: live nodes ranked by importance decayed to `now` (λ 0.01/h), the top 200, each
 * with up to 20 of its scene's most frequent keywords; nodes without keywords are left out.
 */
export function profileSamples(
  plan: EngramPlan,
  keywordsOf: ReadonlyMap<string, readonly string[]>,
  now: number,
): ProfileSample[] {
  return [...plan.nodes.values()]
    .filter((node) => node.fadedAt === undefined)
    .map((node) => ({
      id: node.sceneId,
      importance:
        Math.round(decay(node.importance, ENGRAM.nodeDecayPerHour, now - node.updatedAt) * 1000) / 1000,
      keywords: (keywordsOf.get(node.sceneId) ?? []).slice(0, ENGRAM.keywordsPerSample),
    }))
    .filter((sample) => sample.keywords.length > 0)
    .sort((a, b) => b.importance - a.importance || a.id.localeCompare(b.id))
    .slice(0, ENGRAM.profileSamples);
}

const finite = z.number().refine(Number.isFinite, 'must be a finite number');
const distillationSchema = z.object({
  emotion: z.object({ valence: finite, arousal: finite, dominance: finite }),
  mbti: z.object({ i_e: finite, n_s: finite, t_f: finite, j_p: finite }),
  personality: z.string(),
  perNode: z.array(z.object({ id: z.string(), valence: finite, arousal: finite })),
});

/**
 * Checks a distillation from any summariser: missing or non-numeric emotion or axes refuse the
 * whole estimate (so a bad reply never wipes the profile with zeros); values are clamped, the
 * personality is one line of at most 160 characters, per-scene rows for scenes not sampled are dropped.
 */
export function checkDistillation(value: unknown, sampled: ReadonlySet<string>): ProfileDistillation {
  const parsed = distillationSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(
      `unusable distillation (${issue ? `${issue.path.join('.')}: ${issue.message}` : 'bad shape'})`,
    );
  }
  return normalizeDistillation(parsed.data, sampled);
}

/** What Dream stores in `meta` (`dream.<agent id>.profile`). */
interface StoredDistillation {
  readonly personality: string;
  readonly distilledAt: number;
  readonly dreamId: string;
}

/** The `meta` value for a distillation. */
export function storedDistillation(personality: string, distilledAt: number, dreamId: string): string {
  const stored: StoredDistillation = { personality, distilledAt, dreamId };
  return JSON.stringify(stored);
}

function parseObject(json: string | undefined): Record<string, unknown> {
  if (json === undefined) return {};
  try {
    const value: unknown = JSON.parse(json);
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

const num = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) ? value : 0);

/** Dream's estimate as stored, or undefined before the first distillation. */
export function toDistilledProfile(row: ProfileEstimateRow): DistilledProfile | undefined {
  if (row.distilled === undefined) return undefined;
  const stored = parseObject(row.distilled);
  const emotion = parseObject(row.emotion);
  const mbti = parseObject(row.mbti);
  const axes = { i_e: num(mbti.i_e), n_s: num(mbti.n_s), t_f: num(mbti.t_f), j_p: num(mbti.j_p) };
  return {
    personality: typeof stored.personality === 'string' ? stored.personality : '',
    emotion: {
      valence: num(emotion.valence),
      arousal: num(emotion.arousal),
      dominance: num(emotion.dominance),
    },
    mbti: { ...axes, type: mbtiType(axes) },
    distilledAt: num(stored.distilledAt),
    dreamId: typeof stored.dreamId === 'string' ? stored.dreamId : '',
  };
}
