/**
 * The detail levels (DESIGN.md §1): how much of one item is shown. The single source of their
 * names, numbers and caps for every layer and surface.
 */

/** Level names, most abstract first; the index is the level's number (Hedgehog compatibility). */
export const DETAIL_LEVEL_NAMES = ['origin', 'brief', 'summary', 'detailed', 'full'] as const;

/** A detail level by name. */
export type DetailLevelName = (typeof DETAIL_LEVEL_NAMES)[number];

/** A detail level by number (Hedgehog compatibility): 0 origin … 4 full. */
export type DetailLevel = 0 | 1 | 2 | 3 | 4;

/** The summarised levels (everything but `full`), most abstract first. */
export type SummaryLevelName = Exclude<DetailLevelName, 'full'>;
export const SUMMARY_LEVELS: readonly SummaryLevelName[] = ['origin', 'brief', 'summary', 'detailed'];

/**
 * Cap of each summarised level, in code points. Caps are real caps: a summary of a level never
 * holds more code points than this (the original's head…tail cut gave 77/197/597/1797).
 */
export const LEVEL_CAPS: Readonly<Record<SummaryLevelName, number>> = {
  origin: 80,
  brief: 200,
  summary: 600,
  detailed: 1800,
};

/** One row of the level table. */
export interface LevelSpec {
  readonly level: DetailLevel;
  readonly name: DetailLevelName;
  /** Most code points a summary of this level may hold; `undefined` for `full` (verbatim). */
  readonly maxChars: number | undefined;
}

/** The five detail levels, by number. */
export const LEVELS: readonly LevelSpec[] = DETAIL_LEVEL_NAMES.map((name, level) => ({
  level: level as DetailLevel,
  name,
  maxChars: name === 'full' ? undefined : LEVEL_CAPS[name],
}));

/** The one-line levels: shown flat, never across lines. */
export function isOneLineLevel(level: DetailLevelName): boolean {
  return level === 'origin' || level === 'brief';
}

/** The name of a level number. */
export function levelName(level: DetailLevel): DetailLevelName {
  return (LEVELS[level] as LevelSpec).name;
}

/** The number of a level name. */
export function levelNumber(name: DetailLevelName): DetailLevel {
  return (LEVELS.find((spec) => spec.name === name) as LevelSpec).level;
}

/**
 * "Abstraction grows with distance": the level at which a view presents a node `distance`
 * steps away from its reference point (position 1 of its line, or the node a session loaded),
 * when the reference itself is shown at `base`. Every doubling of the distance drops one level:
 * distance 0 → base, 1 → base−1, 2–3 → base−2, 4–7 → base−3, … A result below 0 means
 * "label only" and is returned as `undefined`.
 *
 * @example
 * ```ts
 * levelAtDistance(3, 0); // 3 (detailed)
 * levelAtDistance(3, 5); // 0 (origin)
 * levelAtDistance(0, 1); // undefined: the origin shows only each line's newest node
 * ```
 */
export function levelAtDistance(base: DetailLevel, distance: number): DetailLevel | undefined {
  const steps = distance <= 0 ? 0 : Math.floor(Math.log2(distance)) + 1;
  const level = base - steps;
  return level < 0 ? undefined : (level as DetailLevel);
}

/**
 * The headings of a navigation view's sections (`--- <name> ---`), named once so that readers of
 * the view (the CLI's drill-down) split it where the view does.
 */
export const VIEW_SECTIONS = {
  changedFiles: 'changed files',
  openTodos: 'open todos',
  environment: 'environment',
  verbatim: 'verbatim context',
  earlier: 'earlier on this line',
} as const;

/** A navigation view's section heading line: `--- <name> ---`. */
export function viewHeading(name: string): string {
  return `--- ${name} ---`;
}

/** Where summaries came from (`nodes.summaries_tier`). */
export const SummaryTier = {
  /** None computed yet. */
  none: 0,
  /** The offline extractive summariser. */
  offline: 1,
  /** A language model (or any summariser other than the offline one). */
  model: 2,
  /** Given by the caller or imported. */
  supplied: 3,
} as const;
