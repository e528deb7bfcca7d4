/**
 * The offline summariser's algorithm. A text is split into typed units (prose sentences, tool
 * output, code, logs, diffs, JSON, stack frames: see text-units.ts); summaries are drawn from
 * the prose, outcome first:
 *
 * - a sentence is worth its **centrality** in the text (the sum of its content terms' weights,
 *   a term weighing more the more sentences use it, more again when the label or the caller's
 *   summary uses it), times a **cue** factor for sentences that state an outcome, decision or
 *   root cause, times a **position** factor that grows towards the end (where "Done…" and the
 *   post-mortem sit), times a small discount for narration ("Let me look…") and questions;
 * - selection is greedy with a redundancy discount, within the budget, and the chosen
 *   extracts are shown in their original order; extracts that were not adjacent in the text
 *   are separated by `…`;
 * - every extract is a verbatim span of the input (modulo whitespace); a level ends at a
 *   sentence end, or with `…` when its last extract is a clause or a line without one.
 *
 * For a task ({@link taskLevels}) the summary and detailed levels lead with the label and the
 * caller's summary verbatim (the detailed level also lists files and todos, and fills its room
 * with every extract worth anything). The brief gives its room to the outcome: it says why
 * first (the best sentence that states a cause found or a choice made, including a list item a
 * decision introduces or a later sentence picks), then what came of it; the label leads only
 * when it adds words, shortened when it would crowd the outcome out (every view shows the label
 * beside the brief), and the caller's first summary sentence, up to 65% of the cap, keeps its
 * room (and takes the label's place when it restates it); extracts that repeat what that sentence
 * says are worth less. A filler lead-in ("Found it: …") may be left out of a sentence, and the
 * last clause after a `; ` is offered as a sentence of its own; a bare "Found it." makes the
 * sentence after it a cause found. A point the user settled at the start behind a lead-in that reports an agreement ("From
 * today's sync: we're staying on X") weighs as a labelled decision. All four
 * levels come from one analysis of the text, so the cost is one pass over the input.
 */
import { codePointLength, oneLine } from '../core/text.js';
import { fitWords } from './fit-text.js';
import { isStopWord, termOf } from '../core/text-analysis.js';
import { clausePrefixEnds, splitSentences, splitUnits, type TextUnit } from './text-units.js';
import {
  isOneLineLevel,
  LEVEL_CAPS,
  SUMMARY_LEVELS,
  type DetailLevelName,
  type SummaryLevelName,
} from '../core/model/levels.js';

/** Options for {@link extractiveSummary}. */
interface ExtractiveOptions {
  readonly hint?: string | undefined;
  readonly level?: DetailLevelName | undefined;
}

/** A usable budget: whole code points, `Infinity` for no limit, 0 for nonsense (NaN, negative). */
export function budgetOf(maxChars: number): number {
  return Number.isNaN(maxChars) ? 0 : Math.max(0, Math.floor(maxChars));
}

/** The level a budget stands for, when the caller did not say. */
export function levelForBudget(maxChars: number): DetailLevelName {
  return SUMMARY_LEVELS.find((level) => maxChars <= LEVEL_CAPS[level]) ?? 'detailed';
}

// ---- analysis ---------------------------------------------------------------------------------

/** One extract that may be chosen: a prose sentence, or a clause of a long one. */
interface Candidate {
  /** Index of its unit in the text's unit sequence (adjacency is judged on it). */
  readonly unit: number;
  readonly start: number;
  readonly end: number;
  readonly text: string;
  readonly size: number;
  /** Its distinct content terms, as ids into {@link Analysis.names}. */
  readonly terms: readonly number[];
  /** Everything but centrality: cue, position, role, narration. */
  readonly factor: number;
  /** Candidates of one sentence exclude each other (a sentence and its clauses). */
  readonly group: number;
  /** A clause (the sentence goes on). */
  readonly partial: boolean;
  /** Starts where its sentence starts. */
  readonly opens: boolean;
  readonly paragraph: number;
  readonly block: number;
  readonly lineStart: boolean;
  /** States an outcome, decision or root cause. */
  readonly outcome: boolean;
  /** Says why: a cause found or a choice made ({@link WHY_RE}, or a list item a later sentence picks). */
  readonly why: boolean;
  /** Says why in the sense of a cause found ({@link CAUSE_RE}), not a choice made. */
  readonly cause: boolean;
  /** Says what was done about it: a choice made, or a fix or mitigation stated as such ({@link REMEDY_RE}). */
  readonly remedy: boolean;
  /** Its worth before any other extract is chosen. */
  readonly worth: number;
}

interface Analysis {
  readonly units: readonly TextUnit[];
  readonly candidates: readonly Candidate[];
  /** The candidates by their worth before any is chosen, best first. */
  readonly ranked: readonly Candidate[];
  /**
   * Each term by its id (terms are numbered per text, so weights and discounts are plain
   * arrays); {@link termIdIn} finds a term's id.
   */
  readonly names: readonly string[];
  /** The analysis's epoch and the term tables' generation when it was made (see {@link termIdIn}). */
  readonly epoch: number;
  readonly generation: number;
  /** Every term's id, built only when {@link termIdIn} cannot answer from the term tables. */
  vocabulary?: Map<string, number>;
  /** Weight of each term, by id. */
  readonly weights: readonly number[];
  /** The best whole sentence (not a clause opening), if any is worth anything. */
  readonly best: Candidate | undefined;
  /** The content terms of the hint (a task's label). */
  readonly hint: Terms;
}

// Sentences that state what came of the work. The first group opens a sentence ("Root cause:",
// "Fixed:"), the second may appear anywhere in it.
// An explicit label: "Root cause: …", "Decision: …", "Fix — …".
const LABELLED_RE =
  /^\W*(?:root[ -]?cause|decision|fix|outcome|resolution|solution|mitigation|conclusion|verdict|tl;?dr|impact|result)(?:\s(?:and|\/)\s?\w+)?\s*(?:[:—]|\s-\s)/iu;
const OUTCOME_LEAD_RE =
  /^(?:\W*)(?:root[ -]?cause|the (?:real )?(?:cause|culprit|problem|issue|fix|bug)|fix(?:ed)?|resolved|solution|decision|decided|outcome|result|done|summary|conclusion|mitigation|impact|verdict|tl;?dr|in short|found it|shipped|merged|released)\b/iu;
const OUTCOME_RE =
  /\b(?:root cause|caused by|because|due to|turned out|confirmed|established|explains?|points (?:at|to)|bisect\w*|introduced (?:in|by)|going with|(?:stay|stick)(?:ing|s)? (?:on|with)|not (?:moving|switching) to|the (?:cause|culprit|problem|fix) (?:is|was)|(?:we|i)(?:'ll| will| would|'d)? (?:rather|prefer|go with|keep|use|ship|pin|stay)|decid\w*|chose|choos\w*|going with|instead of|rather than|switch\w*|migrat\w*|replac\w*|resolv\w*|fix(?:ed|es)?|restor\w*|revert\w*|roll(?:ed)? back|rolled|shipp?\w*|merged|released|deferred|pinned|kept|stays|no longer|back (?:to|under|from)|down from|up from|went from|now (?:\w+ )?(?:uses?|passes|works|returns|runs|reads|takes|builds)|succeeded|passes|failed because|so that|which means|the reason)\b|->|→/iu;
// Sentences that say why: a cause found or a choice made (what a reader of the brief needs first;
// "now passes" and "is out" say what came of it).
// A ", so" that gives a purpose or a standing effect ("…, so that …", "…, so Stripe never waits",
// "…, so we can …") says neither: only one that tells what followed ("…, so the retry charged twice").
const WHY_RE =
  /^\W*(?:root[ -]?cause|decision|decided|found it|the (?:real )?(?:cause|culprit|reason)|so\b)|\b(?:root cause|caused by|because|due to|turned out|the (?:cause|culprit|reason) (?:is|was)|which is why|that's why|, so\b(?! that\b)(?!(?: \S+){1,3} (?:can|can't|cannot|will|won't|never|always|doesn't|don't|no longer)\b)|decid\w*|chose|choos\w*|going with|go with|instead of|rather than|(?:stay|stick|keep)(?:ing|s)? (?:on|with)|not (?:moving|switching|going) (?:to|back)|defer\w*|agreed|confirmed|established|explains?|points (?:at|to)|bisect\w*|introduced (?:in|by)|the (?:problem|issue|bug) (?:is|was)|silently (?:ignor|dropp|skipp|fail|discard|swallow)\w*|(?:is|are|was|were|gets?) ignored|(?:uses?|using) (?:two )?different (?:units|encodings|clocks|time ?zones|formats|versions|keys|types))\b/iu;
// Of the sentences that say why, those that state a cause found (the rest state a choice made).
const CAUSE_RE =
  /^\W*(?:root[ -]?cause|found it|the (?:real )?(?:cause|culprit|reason))|\b(?:root cause|caused by|because|due to|turned out|the (?:cause|culprit|reason|problem|issue|bug) (?:is|was)|which is why|that's why|, so\b(?! that\b)(?!(?: \S+){1,3} (?:can|can't|cannot|will|won't|never|always|doesn't|don't|no longer)\b)|confirmed|established|explains?|points (?:at|to)|bisect\w*|introduced (?:in|by)|silently (?:ignor|dropp|skipp|fail|discard|swallow)\w*|(?:is|are|was|were|gets?) ignored|(?:uses?|using) (?:two )?different (?:units|encodings|clocks|time ?zones|formats|versions|keys|types))\b/iu;
// The three cue patterns that search a whole sentence, without the `u` flag: two to three times
// faster in V8, and they match exactly the same sentences unless the text holds one of the two
// characters that Unicode case folding (the `iu` flags) turns into an ASCII letter, ſ (long s)
// and K (Kelvin sign); {@link cuePatterns} picks the set.
const FOLDS_TO_ASCII_RE = /[\u017f\u212a]/u;
const UNICODE_CUES = { outcome: OUTCOME_RE, why: WHY_RE, cause: CAUSE_RE } as const;
const ASCII_CUES = {
  outcome: new RegExp(OUTCOME_RE.source, 'i'),
  why: new RegExp(WHY_RE.source, 'i'),
  cause: new RegExp(CAUSE_RE.source, 'i'),
} as const;

/** The cue patterns to test the sentences of `text` with (see {@link ASCII_CUES}). */
function cuePatterns(text: string): {
  readonly outcome: RegExp;
  readonly why: RegExp;
  readonly cause: RegExp;
} {
  return FOLDS_TO_ASCII_RE.test(text) ? UNICODE_CUES : ASCII_CUES;
}
// A sentence that says what was done about a problem by its opening ("Fix: …", "Mitigation: …",
// "Fixed it by …").
const REMEDY_RE =
  /^\W*(?:(?:the )?(?:fix|decision(?: recorded)?|mitigation|resolution|solution|workaround)\s*(?:[:—]|\s-\s)|(?:fixed|resolved|mitigated) (?:it |this )?(?:by|with)\b|decided to\b)/iu;
// A sentence that picks one of a numbered list ("Going with 2.", "option 3 it is").
const PICKS_ITEM_RE =
  /\b(?:go(?:ing)? with|pick(?:ing|ed)?|cho(?:ose|osing|se)|take|taking|prefer|let's do|we'll do|option)\s+(?:option\s+|number\s+|#)?(\d{1,2})\b(?![.,]\d)/iu;
// A request ("…, so please fix how we compute it") states no cause found and no choice made.
const REQUEST_RE = /\b(?:please|can you|could you|would you|I'd like|I need you)\b/iu;
// A lead-in that reports what was agreed elsewhere ("From this morning's sync:", "What we
// established on the call:").
const AGREED_LEAD_RE =
  /\b(?:agreed|established|decided|settled|decisions?|sync|call|meeting|stand-?up|retro|review|discussion)\b/iu;
const DIGIT_RE = /\d/u;
// A path, branch, URL or identifier (`fix/255-ignore-cache`, `scripts/migrate.sh`,
// `retry_failed_jobs`) names a thing: a cue word inside it ("fix", "migrate") says nothing of the
// sentence. The cue patterns read a view of the text with such names blanked out.
const NAME_HINT_RE = /\w[/\\_]\w/;
const NAME_RE = /[^\s()[\]{}"'“”‘’<>,;]*\w[/\\_]\w[^\s()[\]{}"'“”‘’<>,;]*/gu;

/** `text` with every path-like name replaced by as many `x` (offsets hold), for the cue patterns. */
function cueView(text: string): string {
  return NAME_HINT_RE.test(text) ? text.replace(NAME_RE, (name) => 'x'.repeat(name.length)) : text;
}
const LIST_NUMBER_RE = /^\(?(\d{1,3})[.)]\s/u;
const LIST_ITEM_START_RE = /^(?:\(?\d{1,3}[.)]|[-*•]|\(\p{L}\))\s/u;

const NARRATION_RE =
  /^(?:let me|let's|i'll|i will|i'm going to|i am going to|now let me|next,? i|first,? i|looking at|checking|let us|ok(?:ay)?\b|sure\b|thanks|thank you|great\b|good\b|got it|hmm|alright|can you|could you|please)/iu;

const CUE_LABELLED = 3.6;
const CUE_LEAD = 2.4;
const CUE = 1.7;
const NARRATION = 0.45;
const QUESTION = 0.55;
/** A caption of a block that no level shows is left out (see `analyse`). */
const CAPTION = 0;
/** What a list item that goes on from its lead-in weighs (see `dependent` in {@link analyse}). */
const DEPENDENT = 0.6;
// A point of a list that starts in lower case (`- the whole title …`), and a sentence of at
// least four words that ends in a colon, which such points go on from.
const DEPENDENT_ITEM_RE = /^[-*•]\s+\p{Ll}/u;
const FOUR_WORDS_RE = /^\s*(?:\S+\s+){3}\S/u;
const USER = 0.85;
/** A cause or choice the user states in their first message: settled before the work began. */
const USER_SETTLED = 1.5;
const LAST_BLOCK = 1.35;
const END_WEIGHT = 0.7;
const LABEL_BOOST = 2.5;
const SUMMARY_BOOST = 1.3;
const REDUNDANCY = 0.35;
/** A cause or choice leads a one-line level when worth this share of the best extract. */
const WHY_SHARE = 0.5;
/**
 * A one-line level that can hold both a cause found and a choice made, each worth this share of
 * the best extract, leads with the two (in whichever of their forms fit together).
 */
const PAIR_SHARE = 0.3;
/** A fix that leads brings its cause when the two are worth this share of the fix's best form. */
const REMEDY_PAIR = 0.8;
/** Sentences longer than this also offer their openings up to a clause end (for small budgets). */
const CLAUSE_FROM = 100;
/** Shortest such opening, in UTF-16 units. */
const MIN_PREFIX = 30;
/** What a sentence without its asides is worth beside the whole. */
const ASIDE = 0.97;
/** What the point after a lead-in is worth beside its whole sentence. */
const LEAD_IN = 0.95;
/** Longest lead-in before `: ` that a point may be offered without; the point's shortest length. */
const MAX_LEAD_IN = 100;
const MIN_POINT = 30;
/** What the last clause of a sentence joined by `; ` is worth beside a sentence. */
const LAST_CLAUSE = 0.9;
/** What an opening is worth beside its whole sentence. */
const PREFIX = 0.85;
/**
 * What the opening of a shorter sentence before a trailing clause (`, which …`, `; …`) is worth
 * beside the whole: it says the sentence's point whole, as the sentence without an aside does.
 */
const TRAILING_OPENING = ASIDE;
/** Greedy selection looks at this many of the best candidates that fit (enough for 1,800 code points). */
const CHOOSE_FROM = 120;
/** Extracts worth less than this share of the best one are not added to fill space. */
const FLOOR = 0.18;
/**
 * The same for a task's summary level: its room (600 code points) is for what the task found and
 * did, and a sentence that states a cause without a cue word may be worth a tenth of a labelled
 * outcome ("Done: …", which weighs about twice a cue word's sentence): at {@link FLOOR} the level
 * stopped after that outcome and left most of its room empty.
 */
const SUMMARY_FLOOR = 0.12;
/** The same for one-line levels, where every extract takes room from a better one. */
const BRIEF_FLOOR = 0.35;
/**
 * A level with this much room is for detail: it fills its room with every extract worth
 * anything (the checks that came to nothing are part of the story), best first.
 */
const DETAIL_ROOM = 1000;
const DETAIL_FLOOR = 0;

function analyse(text: string, hint: Terms, summary?: Terms): Analysis {
  startReading();
  const units = splitUnits(text);
  const prose = units.filter((u) => u.kind === 'prose');
  // A text with no prose (a log, a table) is summarised from its lines.
  const pool = bounded(prose.length > 0 ? prose : units);
  const lastBlock = lastAssistantBlock(units);
  const length = Math.max(1, text.length);
  const cues = cuePatterns(text);
  const raw: {
    unit: number;
    start: number;
    end: number;
    group: number;
    partial: boolean;
    base: number;
    outcome: boolean;
    why: boolean;
    cause: boolean;
    remedy: boolean;
    u: TextUnit;
    text?: string;
    /** The text whose cue words count (a point keeps the cue of its lead-in). */
    cueFrom?: string;
  }[] = [];
  // A list a later sentence picks from ("Going with 1."): its other items are the options not taken.
  const { picked, passed } = pickedItems(pool);
  const firstUserBlock = pool.find((u) => u.role === 'user')?.block ?? -1;
  const answers = whyAnswers(pool);
  const pointsAfterLeadIn = afterLeadIn(pool);
  // The pool is a subsequence of the units, in order: each pool unit's index is found by walking on.
  let index = 0;
  for (const [group, unit] of pool.entries()) {
    while (index < units.length && units[index] !== unit) index++;
    const chosenItem = picked.has(unit);
    const answer = answers.has(unit);
    // An option not taken states no outcome, cause or choice, whatever its words.
    const option = passed.has(unit);
    // "Found it." on its own announces the sentence after it as the cause found.
    const previous = pool[group - 1];
    const announced =
      previous !== undefined &&
      previous.block === unit.block &&
      previous.paragraph === unit.paragraph &&
      FOUND_RE.test(previous.text);
    // "That's why …" right after a sentence names that sentence as the cause found, as "Found it."
    // names the one after it; the pointer itself says no more than the task's label.
    const next = pool[group + 1];
    const pointedAt =
      next !== undefined &&
      next.block === unit.block &&
      next.paragraph === unit.paragraph &&
      POINTS_BACK_RE.test(next.text);
    const pointer = POINTS_BACK_RE.test(unit.text);
    const cueText = cueView(unit.text);
    const outcome =
      !option &&
      (chosenItem ||
        announced ||
        pointedAt ||
        answer ||
        OUTCOME_LEAD_RE.test(cueText) ||
        cues.outcome.test(cueText));
    const why =
      !option &&
      (chosenItem ||
        announced ||
        pointedAt ||
        answer ||
        (!pointer &&
          cues.why.test(cueText) &&
          !REQUEST_RE.test(unit.text) &&
          !explainsNewState(cueText, cues.why)));
    const cause = announced || pointedAt || answer || (why && cues.cause.test(cueText));
    const remedy = !cause && !option && (why || REMEDY_RE.test(cueText));
    // An opening of the sentence (the clauses it starts with) states what its own words state,
    // and what a cue right after it says of it: ", so …", "that's why …" name the clause before
    // them as the cause; a cue further on ("X; Y, so a backfill is on the todo list") is not
    // about the opening. What the sentence is by its place (an answer, a pick, announced) holds
    // for its openings too.
    const flagsOf = (
      head: string,
      rest: string,
    ): { outcome: boolean; why: boolean; cause: boolean; remedy: boolean } => {
      if (option || chosenItem || announced || pointedAt || answer || !(outcome || why))
        return { outcome, why, cause, remedy };
      const pointsBack = why && POINTS_BACK_AT_RE.test(rest);
      const cueHead = cueView(head);
      const headWhy = pointsBack || (why && cues.why.test(cueHead) && !explainsNewState(cueHead, cues.why));
      const headCause = pointsBack || (headWhy && cues.cause.test(cueHead));
      return {
        outcome: outcome && (headCause || OUTCOME_LEAD_RE.test(cueHead) || cues.outcome.test(cueHead)),
        why: headWhy,
        cause: headCause,
        remedy: !headCause && (headWhy || REMEDY_RE.test(cueHead)),
      };
    };
    // What the user settled before the work began ("we're staying on X", "what we already
    // established: …") is said once, at the start, where the position factor is lowest.
    const settled = why && unit.role === 'user' && unit.block === firstUserBlock;
    // A point the user settled, introduced by a lead-in ("What we already established on the
    // call: the deploy …", "From today's sync: we're staying on X"), is also offered without it;
    // a lead-in that reports an agreement labels the point as a decision does.
    // A lead-in that says nothing of its own ("Found it: …") may go too.
    const point = settled && !LABELLED_RE.test(cueText) ? leadInEnd(unit.text) : fillerLeadEnd(unit.text);
    const filler = point > 0 && !settled;
    // Without a filler lead-in a sentence loses nothing.
    const leadIn = filler ? 1 : LEAD_IN;
    const agreed = settled && point > 0 && AGREED_LEAD_RE.test(unit.text.slice(0, point));
    // A sentence ending in a colon before a block that no level shows (tool output, a log,
    // code) captions something the reader will not see ("Alerts:", "Now the other side:"),
    // unless it states an outcome or a figure of its own ("export_to_lake failed at 02:17:").
    const caption =
      prose.length > 0 &&
      !outcome &&
      /[:：]$/u.test(unit.text) &&
      !/\d/u.test(unit.text) &&
      units[index + 1]?.kind !== 'prose';
    // A point of a list that goes on from the sentence that opens the list ("For the title they
    // don't:" then "- the whole title is 28 Characters …") reads as a fragment without it. Steps
    // after a label ("Change:", "Fix:") and numbered steps say what was done, and keep their weight.
    const dependent = !outcome && pointsAfterLeadIn[group] === true && DEPENDENT_ITEM_RE.test(unit.text);
    const base =
      unitFactor(unit, length, lastBlock) *
      (caption ? CAPTION : 1) *
      (dependent ? DEPENDENT : 1) *
      // A cause announced by "Found it." weighs as one labelled "Root cause:" (once).
      (chosenItem || agreed || ((announced || pointedAt) && !LABELLED_RE.test(cueText))
        ? CUE_LABELLED / CUE
        : 1) *
      (settled ? USER_SETTLED : 1);
    raw.push({
      unit: index,
      start: unit.start,
      end: unit.end,
      group,
      partial: false,
      base,
      outcome,
      why,
      cause,
      remedy,
      u: unit,
    });
    const short = withoutAsides(unit.text);
    if (short !== undefined) {
      raw.push({
        unit: index,
        start: unit.start,
        end: unit.end,
        group,
        partial: false,
        base: base * ASIDE,
        outcome,
        why,
        cause,
        remedy,
        u: unit,
        text: short,
      });
      // Its openings too (an aside often sits right in the clause a short level needs).
      if (unit.end - unit.start > CLAUSE_FROM) {
        for (const end of clausePrefixEnds(short, 0, short.length)) {
          if (end < MIN_PREFIX || end <= point || short.slice(0, end).endsWith('…')) continue;
          raw.push({
            unit: index,
            start: unit.start,
            end: unit.start + originalOffset(unit.text, end),
            group,
            partial: true,
            base: base * ASIDE * PREFIX,
            ...flagsOf(short.slice(0, end), short.slice(end)),
            u: unit,
            text: short.slice(0, end),
          });
        }
      }
    }
    if (point > 0) {
      raw.push({
        unit: index,
        start: unit.start + point,
        end: unit.end,
        group,
        partial: false,
        base: base * leadIn,
        cueFrom: unit.text,
        outcome,
        why,
        cause,
        remedy,
        u: unit,
      });
    }
    // The last of the clauses a `; ` joins is a sentence of its own ("X only reads A; B is
    // silently ignored"), with its own cue.
    const clause = point > 0 || chosenItem ? -1 : lastClauseStart(unit.text);
    if (clause > 0) {
      const body = cueView(unit.text.slice(clause));
      const clauseWhy = cues.why.test(body) && !REQUEST_RE.test(body);
      const clauseCause = clauseWhy && cues.cause.test(body);
      raw.push({
        unit: index,
        start: unit.start + clause,
        end: unit.end,
        group,
        partial: false,
        base: (base / (settled ? USER_SETTLED : 1)) * LAST_CLAUSE,
        outcome: OUTCOME_LEAD_RE.test(body) || cues.outcome.test(body),
        why: clauseWhy,
        cause: clauseCause,
        remedy: !clauseCause && (clauseWhy || REMEDY_RE.test(body)),
        u: unit,
      });
    }
    const long = unit.end - unit.start > CLAUSE_FROM;
    const openings = long
      ? clausePrefixEnds(text, unit.start, unit.end)
      : trailingClauseEnds(text, unit.start, unit.end);
    const opening = long ? PREFIX : TRAILING_OPENING;
    if (openings.length > 0) {
      for (const end of openings) {
        // An opening that holds only the lead-in says nothing.
        if (end - unit.start < MIN_PREFIX || end <= unit.start + point) continue;
        // An opening keeps no filler lead-in (the one without it is offered below).
        const flags = flagsOf(text.slice(unit.start, end), text.slice(end, unit.end));
        if (!filler)
          raw.push({
            unit: index,
            start: unit.start,
            end,
            group,
            partial: true,
            base: base * opening,
            ...flags,
            u: unit,
          });
        if (point > 0 && end - unit.start - point >= MIN_PREFIX) {
          raw.push({
            unit: index,
            start: unit.start + point,
            end,
            group,
            partial: true,
            base: base * leadIn * opening,
            cueFrom: unit.text,
            ...flags,
            u: unit,
          });
        }
      }
    }
  }
  // Terms per candidate, from one tokenisation of each unit; each term numbered once per text
  // (in order of first use), through the term's global id.
  const names: string[] = [];
  const globals: number[] = [];
  const frequency: number[] = [];
  // `stamp[id] === mark` marks a term already seen in the span being read (no Set per span).
  const stamp: number[] = [];
  let mark = 0;
  const epoch = nextReading();
  const generation = termGeneration;
  // Each pool unit's tokens, by its index in the pool (its candidates' group).
  const termsOf: Tokens[] = [];
  for (const unit of pool) {
    const tokens = summaryTokens(unit.text, unit.start);
    const local = localIds(termNames.length);
    // The global ids are replaced by this text's ones in place.
    const ids = tokens.ids;
    mark++;
    for (let i = 0; i < ids.length; i++) {
      const global = ids[i] as number;
      let id: number;
      if (local.epochs[global] === epoch) id = local.ids[global] as number;
      else {
        id = names.length;
        local.epochs[global] = epoch;
        local.ids[global] = id;
        names.push(termNames[global] as string);
        globals.push(global);
        frequency.push(0);
        stamp.push(0);
      }
      ids[i] = id;
      if (stamp[id] !== mark) {
        stamp[id] = mark;
        frequency[id] = (frequency[id] ?? 0) + 1;
      }
    }
    termsOf.push(tokens);
  }
  // The label's and the summary's terms that the text uses, marked by global id.
  const boosts = boostTable(termNames.length);
  markTerms(boosts.hint, hint, epoch);
  if (summary !== undefined) markTerms(boosts.summary, summary, epoch);
  // A plain array, not a typed one: a Float64Array of more than 8 numbers takes memory outside
  // the heap, allocated and later freed by the engine at a cost that shows on short texts.
  const weights: number[] = [];
  for (let id = 0; id < names.length; id++) {
    const global = globals[id] as number;
    let weight = Math.log(1 + (frequency[id] ?? 0));
    // Character pairs of an unspaced script overlap (each character is in two), and its words
    // are about two characters long: a pair weighs half a word.
    if (termPairs[global] === 1) weight *= PAIR_WEIGHT;
    if (boosts.hint[global] === epoch) weight *= LABEL_BOOST;
    if (boosts.summary[global] === epoch) weight *= SUMMARY_BOOST;
    weights.push(weight);
  }
  // A unit's whole terms serve the unit and its aside-free form; a clause opening takes the
  // terms before its end (tokens are in text order).
  const wholeTerms: (number[] | undefined)[] = [];
  const termsUpTo = (group: number, unit: TextUnit, end: number, start: number): number[] => {
    const whole = end >= unit.end && start <= unit.start;
    const known = whole ? wholeTerms[group] : undefined;
    if (known) return known;
    const tokens = termsOf[group] as Tokens;
    const out: number[] = [];
    mark++;
    for (let i = 0; i < tokens.ids.length; i++) {
      if ((tokens.offsets[i] ?? 0) >= end) break;
      if ((tokens.offsets[i] ?? 0) < start) continue;
      const id = tokens.ids[i] as number;
      if (stamp[id] === mark) continue;
      stamp[id] = mark;
      out.push(id);
    }
    if (whole) wholeTerms[group] = out;
    return out;
  };
  // Built by push, not `raw.map`: with the array `map` returned, V8 threw away the optimised
  // code of this function and of `chooseWith` ("wrong map" at its first use) soon after
  // compiling it, and a fresh process ran them unoptimised for about 40 more commits.
  const candidates: Candidate[] = [];
  for (const r of raw) {
    const body = r.text ?? text.slice(r.start, r.end);
    const candidate = {
      unit: r.unit,
      start: r.start,
      end: r.end,
      text: body,
      // Read in the text itself when the body is a span of it (a slice is read through its parent).
      size: r.text === undefined ? flatSize(text, r.start, r.end) : flatSize(body, 0, body.length),
      terms: termsUpTo(r.group, r.u, r.end, r.start),
      factor: r.base * cueOf(r.cueFrom ?? body, r.outcome),
      group: r.group,
      partial: r.partial,
      opens: r.start === r.u.start,
      paragraph: r.u.paragraph,
      block: r.u.block,
      lineStart: r.u.lineStart,
      outcome: r.outcome,
      why: r.why,
      cause: r.cause,
      remedy: r.remedy,
      worth: 0,
    };
    candidate.worth = value(candidate, weights);
    candidates.push(candidate);
  }
  const ranked = [...candidates].sort((a, b) => b.worth - a.worth);
  let best: Candidate | undefined;
  for (const candidate of ranked) {
    if (!candidate.partial && candidate.worth > 0) {
      best = candidate;
      break;
    }
  }
  return { units, candidates, ranked, names, epoch, generation, weights, best, hint };
}

// Words (letters, digits, `_`, joined by inner `'` or `.`) and runs of unspaced scripts.
// (Read by {@link nextWord}, a hand-written scanner for this pattern that allocates no match arrays.)
const WORD_CHAR_RE = /^[\p{L}\p{M}\p{N}_]$/u;
// Word-character class of each BMP code unit: 0 not known yet, 1 a word character, 2 not one.
const wordClass = new Uint8Array(0x10000);

/** True when the code point at `at` is a letter, mark, digit or `_`. */
function isWordChar(text: string, at: number): boolean {
  const code = text.charCodeAt(at);
  if (code < 0x80) {
    return (
      (code >= 97 && code <= 122) || (code >= 65 && code <= 90) || (code >= 48 && code <= 57) || code === 95
    );
  }
  if (code < 0xd800 || code > 0xdfff) {
    let known = wordClass[code] ?? 0;
    if (known === 0) {
      known = WORD_CHAR_RE.test(String.fromCharCode(code)) ? 1 : 2;
      wordClass[code] = known;
    }
    return known === 1;
  }
  const point = text.codePointAt(at) ?? code;
  return point > 0xffff && WORD_CHAR_RE.test(String.fromCodePoint(point));
}

/** UTF-16 width of the code point at `at`. */
function widthAt(text: string, at: number): number {
  const code = text.charCodeAt(at);
  if (code < 0xd800 || code > 0xdbff || at + 1 >= text.length) return 1;
  const next = text.charCodeAt(at + 1);
  return next >= 0xdc00 && next <= 0xdfff ? 2 : 1;
}

/** Highest UTF-16 unit of the last word {@link wordEnd} read (below U+0E00 no unspaced script is in it). */
let wordTop = 0;

/**
 * The end of the word that starts at `at` (a run of word characters, joined by an inner `'`,
 * `’` or `.`): where the pattern `[\p{L}\p{M}\p{N}_]+(?:['’.][\p{L}\p{M}\p{N}_]+)` repeated, with
 * the `u` flag, would end its match there. Sets {@link wordTop}.
 */
function wordEnd(text: string, at: number): number {
  let end = at;
  let top = 0;
  for (;;) {
    while (end < text.length) {
      const code = text.charCodeAt(end);
      if (code < 0x80) {
        if (
          !(
            (code >= 97 && code <= 122) ||
            (code >= 65 && code <= 90) ||
            (code >= 48 && code <= 57) ||
            code === 95
          )
        )
          break;
        end++;
        continue;
      }
      if (!isWordChar(text, end)) break;
      if (code > top) top = code;
      end += widthAt(text, end);
    }
    const joiner = text.charCodeAt(end);
    if (
      (joiner === 39 || joiner === 0x2019 || joiner === 46) &&
      end + 1 < text.length &&
      isWordChar(text, end + 1)
    ) {
      end++;
      continue;
    }
    wordTop = top;
    return end;
  }
}
const UNSPACED_RE =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;
/** The lowest code unit of any unspaced script above (Thai). */
const UNSPACED_FROM = 0x0e00;
const CACHE_MAX = 50_000;
// Every content term met so far is numbered once (ids index typed arrays in an analysis), and
// words repeat, so stemming and stop-word checks are kept per word as the word's term id
// (-1 = no content: a stop word, one letter, a bare 1–2 digit number). Both are emptied
// together, only between two readings ({@link startReading}), so ids stay valid within one.
const termIds = new Map<string, number>();
const termNames: string[] = [];
/** 1 where a term is a character pair of an unspaced script ({@link isPair}), by id. */
const termPairs: number[] = [];
/** Counts the times the term tables were emptied (ids of an older generation mean other terms). */
let termGeneration = 0;

/** Empties the term tables when they have grown too large; call before reading a text. */
function startReading(): void {
  if (wordCount < CACHE_MAX && termNames.length < CACHE_MAX) return;
  clearWords();
  termIds.clear();
  termNames.length = 0;
  termPairs.length = 0;
  termGeneration++;
}

/** The id of `term`, numbered when new. */
function termId(term: string): number {
  let id = termIds.get(term);
  if (id === undefined) {
    id = termNames.length;
    termNames.push(term);
    termPairs.push(isPair(term) ? 1 : 0);
    termIds.set(term, id);
  }
  return id;
}

/** The term id of a word not met before (-1 for no content). */
function wordTerm(word: string): number {
  const lower = word.toLowerCase();
  const empty = (word.length < 2 && !/\p{N}/u.test(word)) || /^\d{1,2}$/u.test(word) || isStopWord(lower);
  return empty ? -1 : termId(termOf(word));
}

// The words met so far and their term ids (see {@link cachedTerm}): an open-addressing table over
// the words' UTF-16 units, kept in one pool, so a word already met is found without slicing it out
// of its text (no string made, none hashed by the engine, no map entry to chase). A slot holds the
// word's hash, where its units start in the pool (plus one; 0 = free), its length and its term id,
// side by side so that a probe reads one cache line. Emptied with the term tables ({@link startReading}).
const SLOT = 4;
let wordSlots = new Int32Array(SLOT << 12);
let wordPool = new Uint16Array(1 << 14);
let wordCount = 0;
let poolUsed = 0;

function clearWords(): void {
  wordSlots.fill(0);
  wordCount = 0;
  poolUsed = 0;
}

/** The term id of the word `text.slice(from, to)` (-1 for no content), cached per word. */
function cachedTerm(text: string, from: number, to: number): number {
  // FNV-1a over the word's UTF-16 units.
  let hash = 0x811c9dc5 | 0;
  for (let i = from; i < to; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  const length = to - from;
  const mask = wordSlots.length / SLOT - 1;
  let slot = (hash & mask) * SLOT;
  for (let start = wordSlots[slot + 1] as number; start !== 0; start = wordSlots[slot + 1] as number) {
    if (
      wordSlots[slot] === hash &&
      wordSlots[slot + 2] === length &&
      sameUnits(text, from, start - 1, length)
    )
      return wordSlots[slot + 3] as number;
    slot = (slot + SLOT) & (wordSlots.length - 1);
  }
  const id = wordTerm(text.slice(from, to));
  if (poolUsed + length > wordPool.length) {
    const pool = new Uint16Array(Math.max(wordPool.length * 2, poolUsed + length));
    pool.set(wordPool.subarray(0, poolUsed));
    wordPool = pool;
  }
  for (let k = 0; k < length; k++) wordPool[poolUsed + k] = text.charCodeAt(from + k);
  wordSlots[slot] = hash;
  wordSlots[slot + 1] = poolUsed + 1;
  wordSlots[slot + 2] = length;
  wordSlots[slot + 3] = id;
  poolUsed += length;
  if (++wordCount * 2 * SLOT > wordSlots.length) growWords();
  return id;
}

/** True when the `length` units of `text` at `from` are those at `start` in the word pool. */
function sameUnits(text: string, from: number, start: number, length: number): boolean {
  for (let k = 0; k < length; k++) if (wordPool[start + k] !== text.charCodeAt(from + k)) return false;
  return true;
}

/** Doubles the word table (every word to its slot in the larger one). */
function growWords(): void {
  const old = wordSlots;
  wordSlots = new Int32Array(old.length * 2);
  const mask = wordSlots.length / SLOT - 1;
  for (let at = 0; at < old.length; at += SLOT) {
    if (old[at + 1] === 0) continue;
    let slot = ((old[at] as number) & mask) * SLOT;
    while (wordSlots[slot + 1] !== 0) slot = (slot + SLOT) & (wordSlots.length - 1);
    wordSlots.set(old.subarray(at, at + SLOT), slot);
  }
}

// Each global term id's id within the text being analysed, valid where its epoch is the
// analysis's own (so nothing is cleared between analyses).
let localTable = { ids: new Int32Array(1024), epochs: new Int32Array(1024) };
let readings = 0;

// Where the label's and the summary's terms are, by global id (marked with the analysis's epoch).
let boosts = { hint: new Int32Array(1024), summary: new Int32Array(1024) };

/** The boost marks, with room for `size` global ids. */
function boostTable(size: number): { hint: Int32Array; summary: Int32Array } {
  if (size > boosts.hint.length) boosts = grown(boosts, size, boosts.hint.length);
  return boosts;
}

/** A copy of `table` whose arrays (all `length` long) have room for `size` ids, doubling at least. */
function grown<T extends Record<string, Int32Array>>(table: T, size: number, length: number): T {
  const room = Math.max(size, length * 2);
  const copy: Record<string, Int32Array> = {};
  for (const [name, array] of Object.entries(table)) {
    copy[name] = new Int32Array(room);
    copy[name].set(array);
  }
  return copy as T;
}

/**
 * The id of `term` in `analysis`, or undefined when its text does not use it. Answered from the
 * term tables while no other analysis has been made and the tables were not emptied since;
 * else from a map of the analysis's terms, built once.
 */
function termIdIn(analysis: Analysis, term: string): number | undefined {
  if (analysis.generation === termGeneration && analysis.epoch === readings) {
    const global = termIds.get(term);
    if (global === undefined || localTable.epochs[global] !== analysis.epoch) return undefined;
    return localTable.ids[global];
  }
  if (analysis.vocabulary === undefined) {
    analysis.vocabulary = new Map();
    for (const [id, term] of analysis.names.entries()) analysis.vocabulary.set(term, id);
  }
  return analysis.vocabulary.get(term);
}

/**
 * {@link termIdIn} for each of `terms`, in their order: read by their global ids while the term
 * tables and the analysis are current (no lookup by name).
 */
function idsIn(analysis: Analysis, terms: Terms): (number | undefined)[] {
  const out: (number | undefined)[] = [];
  if (
    analysis.generation !== termGeneration ||
    analysis.epoch !== readings ||
    terms.generation !== termGeneration
  ) {
    for (const term of terms.names) out.push(termIdIn(analysis, term));
    return out;
  }
  for (const global of terms.ids)
    out.push(localTable.epochs[global] === analysis.epoch ? localTable.ids[global] : undefined);
  return out;
}

/** A fresh epoch for the local ids of one analysis. */
function nextReading(): number {
  readings++;
  if (readings > 0x7fff_0000) {
    readings = 1;
    localTable.epochs.fill(0);
  }
  return readings;
}

/** The local id table, with room for `size` global ids. */
function localIds(size: number): { ids: Int32Array; epochs: Int32Array } {
  if (size > localTable.ids.length) localTable = grown(localTable, size, localTable.ids.length);
  return localTable;
}

/** Content terms of a piece of prose (as term ids) and their offsets, in text order. */
interface Tokens {
  readonly offsets: number[];
  readonly ids: number[];
}

/**
 * The content terms of a piece of prose with their offsets (`base` added). Runs of unspaced
 * scripts (CJK, Thai …) give their character bigrams: as good as dictionary words for telling
 * which sentences share a subject, and many times cheaper.
 */
function summaryTokens(text: string, base: number): Tokens {
  const offsets: number[] = [];
  const ids: number[] = [];
  for (let at = 0; at < text.length; ) {
    const code = text.charCodeAt(at);
    if (code < 0x80) {
      if (
        !(
          (code >= 97 && code <= 122) ||
          (code >= 65 && code <= 90) ||
          (code >= 48 && code <= 57) ||
          code === 95
        )
      ) {
        at++;
        continue;
      }
    } else if (!isWordChar(text, at)) {
      at += widthAt(text, at);
      continue;
    }
    const index = at;
    at = wordEnd(text, at);
    const word = wordTop < UNSPACED_FROM ? undefined : text.slice(index, at);
    if (word === undefined || !UNSPACED_RE.test(word)) {
      const id = cachedTerm(text, index, at);
      if (id >= 0) {
        offsets.push(base + index);
        ids.push(id);
      }
      continue;
    }
    const chars = [...word];
    if (chars.length === 1) {
      offsets.push(base + index);
      ids.push(termId(word));
    }
    let offset = index;
    for (let i = 0; i + 1 < chars.length; i++) {
      offsets.push(base + offset);
      ids.push(termId(`${chars[i] as string}${chars[i + 1] as string}`));
      offset += (chars[i] as string).length;
    }
  }
  return { offsets, ids };
}

/** What a character pair of an unspaced script weighs beside a word. */
const PAIR_WEIGHT = 0.5;

/** True when `term` is a character pair of an unspaced script ({@link summaryTokens}). */
function isPair(term: string): boolean {
  return term.length <= 4 && UNSPACED_RE.test(term);
}

// The content terms of the last few texts read (a task's label and summary are read several
// times). Each text's distinct terms, in order of first use, by name and by global id, with the
// term tables' generation that numbers them so (an analysis marks the label's and summary's
// terms by id, without a lookup by name); the set of names is made only when asked for.
const TERM_SETS_MAX = 16;
interface Terms {
  readonly names: readonly string[];
  readonly ids: readonly number[];
  readonly generation: number;
  set?: ReadonlySet<string>;
}
const termSets = new Map<string, Terms>();
// `seen[id] === seenMark` marks a global id already met in the text being read.
let seen = new Int32Array(1024);
let seenMark = 0;

/** Distinct content terms of `text`. */
function termsOf(text: string): Terms {
  const known = termSets.get(text);
  if (known !== undefined) return known;
  startReading();
  const tokens = summaryTokens(text, 0).ids;
  if (seen.length < termNames.length) seen = new Int32Array(Math.max(termNames.length, seen.length * 2));
  if (++seenMark > 0x7fff_0000) {
    seenMark = 1;
    seen.fill(0);
  }
  const names: string[] = [];
  const ids: number[] = [];
  for (const id of tokens) {
    if (seen[id] === seenMark) continue;
    seen[id] = seenMark;
    names.push(termNames[id] as string);
    ids.push(id);
  }
  const terms = { names, ids, generation: termGeneration };
  if (termSets.size >= TERM_SETS_MAX) termSets.clear();
  termSets.set(text, terms);
  return terms;
}

/** The names of `terms` as a set. */
function setOf(terms: Terms): ReadonlySet<string> {
  return (terms.set ??= new Set(terms.names));
}

/** Sets `table[id] = epoch` for the global id of each of `terms` the term tables hold. */
function markTerms(table: Int32Array, terms: Terms, epoch: number): void {
  if (terms.generation === termGeneration) {
    for (const global of terms.ids) table[global] = epoch;
    return;
  }
  for (const term of terms.names) {
    const global = termIds.get(term);
    if (global !== undefined) table[global] = epoch;
  }
}

/** Most units a text is summarised from (a huge text keeps its head, its tail and its outcomes). */
const MAX_POOL = 3000;
const POOL_HEAD = 400;
const POOL_TAIL = 1600;

function bounded(pool: readonly TextUnit[]): readonly TextUnit[] {
  if (pool.length <= MAX_POOL) return pool;
  const middle = pool.slice(POOL_HEAD, pool.length - POOL_TAIL);
  const outcomes = middle.filter((u) => OUTCOME_LEAD_RE.test(cueView(u.text)));
  const room = MAX_POOL - POOL_HEAD - POOL_TAIL;
  const step = Math.max(1, Math.ceil(outcomes.length / room));
  return [
    ...pool.slice(0, POOL_HEAD),
    ...outcomes.filter((_, i) => i % step === 0).slice(0, room),
    ...pool.slice(pool.length - POOL_TAIL),
  ];
}

/** Code points of `oneLine(text.slice(start, end))`, without building it. */
function flatSize(text: string, start: number, end: number): number {
  let size = 0;
  let space = false;
  for (let i = start; i < end; i++) {
    const code = text.charCodeAt(i);
    if ((code & 0xfc00) === 0xdc00) continue;
    if (code === 32 || code === 10 || code === 9 || code === 13 || code === 0x2028 || code === 0x2029) {
      space = true;
      continue;
    }
    if (space && size > 0) size++;
    space = false;
    size++;
  }
  return size;
}

/**
 * List items that state a choice: the items of a list a decision introduces ("What we agreed:",
 * "Decisions:"), and the one a later sentence picks ("Options: 1. … 2. … Going with 2."), the
 * nearest item before it with the picked number. The pick itself says little; the item says
 * what was chosen. `passed` holds the other items of a list a pick chose from (with the
 * sentences on their lines): the options not taken.
 */
function pickedItems(pool: readonly TextUnit[]): { picked: Set<TextUnit>; passed: Set<TextUnit> } {
  const out = new Set<TextUnit>();
  const passed = new Set<TextUnit>();
  for (const [i, unit] of pool.entries()) {
    // "What we agreed:", "Decisions:" followed by a list: every item is a choice made.
    if (/[:：]$/u.test(unit.text) && WHY_RE.test(cueView(unit.text))) {
      for (let j = i + 1; j < pool.length; j++) {
        const item = pool[j] as TextUnit;
        if (item.block !== unit.block || !LIST_ITEM_START_RE.test(item.text)) break;
        out.add(item);
      }
    }
    const pick = DIGIT_RE.test(unit.text) ? PICKS_ITEM_RE.exec(unit.text) : null;
    if (!pick) continue;
    for (let j = i - 1; j >= 0 && j >= i - 40; j--) {
      const item = pool[j] as TextUnit;
      const number = LIST_NUMBER_RE.exec(item.text);
      if (number && number[1] === pick[1]) {
        out.add(item);
        for (const other of listAround(pool, j))
          if (!sameItem(pool, j, other)) passed.add(pool[other] as TextUnit);
        break;
      }
    }
  }
  for (const unit of out) passed.delete(unit);
  return { picked: out, passed };
}

/**
 * Indexes (into `pool`) of the numbered list around item `at`: the items of its block next to
 * it and the sentences that go on their lines.
 */
function listAround(pool: readonly TextUnit[], at: number): number[] {
  const block = (pool[at] as TextUnit).block;
  const inList = (i: number): boolean => {
    const unit = pool[i];
    return unit !== undefined && unit.block === block && (!unit.lineStart || LIST_NUMBER_RE.test(unit.text));
  };
  let from = at;
  while (from > 0 && inList(from - 1)) from--;
  let to = at;
  while (inList(to + 1)) to++;
  return Array.from({ length: to - from + 1 }, (_, k) => from + k);
}

/** True when `pool[i]` is item `at` or a sentence that goes on its line. */
function sameItem(pool: readonly TextUnit[], at: number, i: number): boolean {
  if (i < at) return false;
  for (let k = at + 1; k <= i; k++) if ((pool[k] as TextUnit).lineStart) return false;
  return true;
}

function cueOf(body: string, outcome: boolean): number {
  // Read in the text first: blanking names only takes matches away (see cueView), and most
  // candidates match neither pattern.
  if (LABELLED_RE.test(body) && LABELLED_RE.test(cueView(body))) return CUE_LABELLED;
  if (!outcome) return 1;
  return OUTCOME_LEAD_RE.test(body) && OUTCOME_LEAD_RE.test(cueView(body)) ? CUE_LEAD : CUE;
}

// A parenthetical of some length between words (it may hold one more): an aside a short level
// can leave out.
const ASIDE_RE = /\s\((?:[^()]|\([^()]*\)){12,}\)(?=\s)/gu;

/**
 * Where the point after a sentence's lead-in starts (after its first `: `, when the lead-in is a
 * dozen to {@link MAX_LEAD_IN} UTF-16 units outside brackets and the point at least
 * {@link MIN_POINT}), else -1.
 */
function leadInEnd(sentence: string): number {
  const colon = sentence.indexOf(': ');
  if (colon < 12 || colon > MAX_LEAD_IN || /[([{]/u.test(sentence.slice(0, colon))) return -1;
  let start = colon + 1;
  while (start < sentence.length && /\s/u.test(sentence[start] as string)) start++;
  return sentence.length - start >= MIN_POINT ? start : -1;
}

// A user's question about a cause: "What happened?", "What's going on?", "Why does …?".
const WHY_QUESTION_RE =
  /\b(?:what (?:happened|changed|broke|went wrong|caused)|what(?:'s| is) (?:going on|happening|wrong)|why|how come)\b[^?]*\?/iu;

/**
 * The first sentence each of the user's questions about a cause ("What happened?") gets in
 * reply: the first of another's sentences after it that neither narrates ("Let me check…")
 * nor asks.
 */
function whyAnswers(pool: readonly TextUnit[]): Set<TextUnit> {
  const out = new Set<TextUnit>();
  let asked = false;
  for (const unit of pool) {
    if (unit.role === 'user') {
      if (WHY_QUESTION_RE.test(unit.text)) asked = true;
      continue;
    }
    if (!asked || NARRATION_RE.test(unit.text) || /[?？]["'”’)]*$/u.test(unit.text)) continue;
    out.add(unit);
    asked = false;
  }
  return out;
}

/**
 * For each unit of `pool`, true when it is an item of a list that opens with a sentence of at
 * least four words ending in a colon (its lead-in), in the same block, with only items of the
 * list between (one pass).
 */
function afterLeadIn(pool: readonly TextUnit[]): boolean[] {
  const out: boolean[] = [];
  let lead = false;
  let block = -1;
  for (const unit of pool) {
    if (LIST_ITEM_START_RE.test(unit.text)) {
      out.push(lead && unit.block === block);
      continue;
    }
    out.push(false);
    lead = /[:：]$/u.test(unit.text) && FOUR_WORDS_RE.test(unit.text);
    block = unit.block;
  }
  return out;
}

// What follows a clause and names it as the cause: ", so …" (not one that gives a purpose or a
// standing effect, as in {@link WHY_RE}), "which is why …", "that's why …".
const POINTS_BACK_AT_RE =
  /^\W{0,3}(?:so\b(?! that\b)(?!(?: \S+){1,3} (?:can|can't|cannot|will|won't|never|always|doesn't|don't|no longer)\b)|which is why\b|that(?:'s| is) why\b|hence\b)/iu;

// A sentence that only announces that the cause is found.
const FOUND_RE = /^(?:found it|got it|there it is|that's it|gotcha)[.!]$/iu;
// A sentence that names the one before it as the cause: "That's why only new rows are wrong.",
// "This explains the 502s."
const POINTS_BACK_RE = /^(?:that|this)(?:'s| is| was) (?:why|the reason)\b|^(?:that|this) explains\b/iu;
// What holds now that the work is done: "no longer", or "now" before a verb in the present
// ("now refuses", "now uses", "now passes"). Such a sentence tells what came of the work; its
// "so" or "because" explains the new state ("The script now uses pipefail, so a failed upload
// fails the job"), neither a cause found nor a choice made.
const NEW_STATE_RE = /\b(?:no longer|now (?:\w+ )?\w+s)\b/iu;

/** True when the first cue of `why` in `text` comes after a statement of what holds now ({@link NEW_STATE_RE}). */
function explainsNewState(text: string, why: RegExp): boolean {
  const state = NEW_STATE_RE.exec(text);
  if (state === null) return false;
  const cue = why.exec(text);
  return cue !== null && cue.index > state.index;
}
// A lead-in with nothing to say of its own: what follows it is the point.
const FILLER_LEAD_RE =
  /^(?:found it|got it|here(?:'s| is) (?:why|what happened)|ok(?:ay)?|right|so|yes|good news|bad news)\s*[:—–-]\s+/iu;

/** Where the point after a filler lead-in ("Found it: …") starts, else -1. */
function fillerLeadEnd(sentence: string): number {
  const match = FILLER_LEAD_RE.exec(sentence);
  return match && sentence.length - match[0].length >= MIN_POINT ? match[0].length : -1;
}

/**
 * Where the last clause after a `; ` outside brackets starts in `sentence`, when it and what
 * comes before it are both at least {@link MIN_POINT} UTF-16 units long; else -1.
 */
function lastClauseStart(sentence: string): number {
  const at = sentence.lastIndexOf('; ');
  if (at < MIN_POINT || sentence.length - at - 2 < MIN_POINT) return -1;
  let depth = 0;
  for (let i = 0; i < at; i++) {
    const ch = sentence[i];
    if (ch === '(' || ch === '[' || ch === '{') depth++;
    else if ((ch === ')' || ch === ']' || ch === '}') && depth > 0) depth--;
  }
  return depth === 0 ? at + 2 : -1;
}

// Where a sentence's own point ends and an added clause begins: a relative clause after a comma
// (", which can't go past the end"), a clause after `; ` or a spaced dash.
const TRAILING_CLAUSE_RE = /^(?:,\s+which\b|;\s|\s[—–]\s)/u;

/**
 * Ends of the openings of a shorter sentence (up to {@link CLAUSE_FROM}): only before a clause
 * that adds to a point already made ({@link TRAILING_CLAUSE_RE}), so the opening says it whole.
 */
function trailingClauseEnds(text: string, start: number, end: number): number[] {
  return clausePrefixEnds(text, start, end).filter((at) => TRAILING_CLAUSE_RE.test(text.slice(at, at + 8)));
}

/** Where an offset into the aside-free form of `sentence` ({@link withoutAsides}) falls in `sentence`. */
function originalOffset(sentence: string, at: number): number {
  let shift = 0;
  ASIDE_RE.lastIndex = 0;
  for (let match = ASIDE_RE.exec(sentence); match; match = ASIDE_RE.exec(sentence)) {
    // Where this aside's ` …` stands in the aside-free form.
    const placed = match.index - shift;
    if (placed >= at) break;
    shift += match[0].length - 2;
  }
  return at + shift;
}

/** The sentence with its asides replaced by ` …`, or undefined when it has none. */
function withoutAsides(sentence: string): string | undefined {
  if (!sentence.includes('(')) return undefined;
  const out = sentence.replace(ASIDE_RE, ' …');
  return out === sentence ? undefined : out;
}

function lastAssistantBlock(units: readonly TextUnit[]): number {
  for (let i = units.length - 1; i >= 0; i--) {
    const unit = units[i] as TextUnit;
    if (unit.kind === 'prose' && unit.role !== 'user') return unit.block;
  }
  return -1;
}

function unitFactor(unit: TextUnit, length: number, lastBlock: number): number {
  const at = unit.start / length;
  let factor = 1 + END_WEIGHT * at * at;
  if (unit.block === lastBlock && lastBlock > 0) factor *= LAST_BLOCK;
  if (unit.role === 'user') factor *= USER;
  if (NARRATION_RE.test(unit.text)) factor *= NARRATION;
  if (/[?？]["'”’)]*$/u.test(unit.text)) factor *= QUESTION;
  if (/[:：]$/u.test(unit.text)) factor *= 0.8;
  if (unit.kind !== 'prose') factor *= 0.5;
  return factor;
}

function value(candidate: Candidate, weights: readonly number[], decay?: Float64Array): number {
  const terms = candidate.terms;
  if (terms.length === 0) return 0;
  let sum = 0;
  if (decay) for (const id of terms) sum += (weights[id] ?? 0) * (decay[id] ?? 1);
  else for (const id of terms) sum += weights[id] ?? 0;
  return (sum / Math.sqrt(terms.length + 2)) * candidate.factor;
}

// ---- selection --------------------------------------------------------------------------------

/**
 * Chooses extracts within `room` code points (separators counted), in text order. Greedy with
 * a redundancy discount, evaluated lazily: a candidate's worth only falls as others are chosen,
 * so one whose fresh worth still beats the next one's last known worth is the best.
 */
function choose(
  analysis: Analysis,
  room: number,
  separator: number,
  floor = FLOOR,
  whyFirst = false,
  shown: readonly number[] = [],
): { chosen: Candidate[]; top: number; lead: number; best: number } {
  const decay = decayBuffer(analysis.weights.length);
  try {
    // What the level already shows (the label, the caller's summary) makes extracts that repeat it redundant.
    for (const id of shown) decay[id] = REDUNDANCY;
    const out = chooseWith(analysis, room, separator, floor, whyFirst, decay, shown.length > 0);
    if (whyFirst && out.chosen.length > 0)
      out.chosen = repacked(analysis, out.chosen, room, separator, out.top * FLOOR, shown);
    return out;
  } finally {
    decay.fill(1, 0, analysis.weights.length);
  }
}

// The redundancy discounts of one selection, by term id: one buffer, all 1 between selections
// (selection is synchronous), so a selection allocates none.
let decays = new Float64Array(1024).fill(1);

function decayBuffer(size: number): Float64Array {
  if (decays.length < size) decays = new Float64Array(Math.max(size, decays.length * 2)).fill(1);
  return decays;
}

function chooseWith(
  analysis: Analysis,
  room: number,
  separator: number,
  floor: number,
  whyFirst: boolean,
  decay: Float64Array,
  discounted: boolean,
): { chosen: Candidate[]; top: number; lead: number; best: number } {
  const chosen: Candidate[] = [];
  const groups = new Set<number>();
  let used = 0;
  let top = 0;
  let lead = 0;
  const queue: { candidate: Candidate; worth: number }[] = [];
  for (const candidate of analysis.ranked) {
    if (candidate.size > 0 && candidate.size <= room) queue.push({ candidate, worth: candidate.worth });
    if (queue.length >= CHOOSE_FROM) break;
  }
  // The best whole sentence's worth beside what is shown.
  let best = analysis.best?.worth ?? 0;
  if (discounted) {
    for (const entry of queue) entry.worth = value(entry.candidate, analysis.weights, decay);
    queue.sort((a, b) => b.worth - a.worth);
    best = analysis.best ? value(analysis.best, analysis.weights, decay) : 0;
  }
  const fits = (c: Candidate): boolean =>
    !groups.has(c.group) && used + c.size + (chosen.length > 0 ? separator : 0) + (c.partial ? 1 : 0) <= room;
  // A short level says why first: the best sentence that states a cause or a choice, when it is
  // worth a fair share of the best one.
  let seed = whyFirst ? queue.findIndex((e) => e.candidate.why) : -1;
  if (seed >= 0 && (queue[seed]?.worth ?? 0) < (queue[0]?.worth ?? 0) * WHY_SHARE) seed = -1;
  const accept = (candidate: Candidate, worth: number): void => {
    if (chosen.length === 0) lead = worth;
    top = Math.max(top, worth);
    used += candidate.size + (chosen.length > 0 ? separator : 0) + (candidate.partial ? 1 : 0);
    chosen.push(candidate);
    groups.add(candidate.group);
    for (const id of candidate.terms) decay[id] = (decay[id] ?? 1) * REDUNDANCY;
  };
  // A fix that leads may also bring the cause it answers, when the two together are worth
  // nearly as much as the fix in its longest form.
  const remedyFirst = whyFirst && seed < 0 && queue[0]?.candidate.remedy === true ? queue[0] : undefined;
  const lead0 = seed >= 0 ? queue[seed] : remedyFirst;
  if (lead0) {
    const found = causeAndChoice(queue, lead0.candidate, room, separator, PAIR_SHARE);
    const pair =
      found && (seed >= 0 || found[0].worth + found[1].worth >= lead0.worth * REMEDY_PAIR)
        ? found
        : undefined;
    if (pair) {
      for (const entry of pair) {
        queue.splice(queue.indexOf(entry), 1);
        accept(entry.candidate, entry.worth);
      }
      // The pair leads together.
      lead = pair[0].worth + pair[1].worth;
      seed = -1;
    }
  }
  for (;;) {
    let pick: { candidate: Candidate; worth: number } | undefined;
    if (seed >= 0) {
      pick = queue.splice(seed, 1)[0];
      seed = -1;
    }
    if (pick === undefined) {
      // What no longer fits never will (the room used and the groups taken only grow): it
      // leaves the queue, so its head is the best that fits. The queue stays in order of
      // last known worth, as a worth only falls.
      let kept = 0;
      for (const entry of queue) if (fits(entry.candidate)) queue[kept++] = entry;
      queue.length = kept;
    }
    for (; pick === undefined && queue.length > 0; ) {
      const entry = queue[0] as { candidate: Candidate; worth: number };
      entry.worth = value(entry.candidate, analysis.weights, decay);
      const next = queue[1];
      queue.shift();
      if (!next || entry.worth >= next.worth) {
        pick = entry;
        break;
      }
      let at = 0;
      while (at < queue.length && (queue[at] as { worth: number }).worth > entry.worth) at++;
      queue.splice(at, 0, entry);
    }
    if (!pick || pick.worth <= 0 || pick.worth < top * floor) break;
    accept(pick.candidate, pick.worth);
  }
  return { chosen: chosen.sort((a, b) => a.start - b.start), top, lead, best };
}

/** What an extract costs in a level: its size, and the `…` of a clause opening. */
function costOf(candidate: Candidate): number {
  return candidate.size + (candidate.partial ? 1 : 0);
}

const WHY_ALL_RE = new RegExp(WHY_RE.source, 'giu');

/** How many times `text` says why ({@link WHY_RE}). */
function whyCues(text: string): number {
  let count = 0;
  WHY_ALL_RE.lastIndex = 0;
  const body = cueView(text);
  while (WHY_ALL_RE.exec(body)) count++;
  return count;
}

// The discount buffers of {@link repacked} (selection is synchronous, so one pair serves all).
let repackDecays = { others: new Float64Array(1024), withForm: new Float64Array(1024) };

/**
 * A one-line level chosen greedily may spend its room on the longest form of an extract when a
 * shorter form of it (an opening up to a clause, the sentence without its asides) would leave
 * room for one more extract: that swap is made when the two are worth more than the one.
 */
function repacked(
  analysis: Analysis,
  chosen: Candidate[],
  room: number,
  separator: number,
  floor: number,
  shown: readonly number[],
): Candidate[] {
  const total = (list: readonly Candidate[]): number =>
    list.reduce((sum, c) => sum + costOf(c), 0) + separator * Math.max(0, list.length - 1);
  // Two discount buffers, reused: the one of the other extracts and the one with a shorter form.
  const size = analysis.weights.length;
  if (repackDecays.others.length < size) {
    const room = Math.max(size, repackDecays.others.length * 2);
    repackDecays = { others: new Float64Array(room), withForm: new Float64Array(room) };
  }
  const decayOf = (list: readonly Candidate[], decay: Float64Array): Float64Array => {
    decay.fill(1, 0, size);
    for (const id of shown) decay[id] = REDUNDANCY;
    for (const c of list) for (const id of c.terms) decay[id] = (decay[id] ?? 1) * REDUNDANCY;
    return decay;
  };
  let best: Candidate[] | undefined;
  let bestGain = 0;
  for (const [i, current] of chosen.entries()) {
    const others = chosen.filter((_, k) => k !== i);
    const decay = decayOf(others, repackDecays.others);
    const worth = value(current, analysis.weights, decay);
    const groups = new Set(others.map((c) => c.group));
    groups.add(current.group);
    let currentCues = -1;
    for (const form of analysis.candidates) {
      if (form.group !== current.group || costOf(form) >= costOf(current)) continue;
      // A shorter form that leaves out the words saying why no longer says it.
      if (current.why) {
        if (currentCues < 0) currentCues = whyCues(current.text);
        if (whyCues(form.text) < currentCues) continue;
      }
      const left = room - total([...others, form]) - separator;
      if (left <= 0) continue;
      const formWorth = value(form, analysis.weights, decay);
      const after = decayOf([...others, form], repackDecays.withForm);
      for (const extra of analysis.ranked) {
        // Ranked by undiscounted worth, which a discount only lowers: nothing further can gain more.
        if (extra.worth < floor || formWorth + extra.worth - worth <= bestGain) break;
        if (groups.has(extra.group) || costOf(extra) > left) continue;
        const extraWorth = value(extra, analysis.weights, after);
        if (extraWorth < floor) continue;
        const gain = formWorth + extraWorth - worth;
        if (gain > bestGain) {
          bestGain = gain;
          best = [...others, form, extra];
        }
      }
    }
  }
  return best ? best.sort((a, b) => a.start - b.start) : chosen;
}

// A plan ("Rather than guess, I'll record traces …") is not a choice that came of the work.
const PLAN_RE = /\b(?:I'll|I will|I'm going to|let me|let's)\b/iu;

/**
 * For a one-line level that leads with `lead` (the best extract that says why): `lead`, in
 * whichever of its forms lets a partner fit, and the best partner of the other kind (a choice
 * made beside a cause found, or a cause beside a choice) worth `share` of the best extract;
 * undefined when the text states only one kind or the two do not fit together.
 */
function causeAndChoice(
  queue: readonly { candidate: Candidate; worth: number }[],
  lead: Candidate,
  room: number,
  separator: number,
  share: number,
): [{ candidate: Candidate; worth: number }, { candidate: Candidate; worth: number }] | undefined {
  const floor = (queue[0]?.worth ?? 0) * share;
  const forms = queue.filter((e) => e.candidate.group === lead.group);
  const partners = queue.filter(
    (e) =>
      e.candidate.group !== lead.group &&
      (lead.cause ? e.candidate.remedy : e.candidate.cause) &&
      !PLAN_RE.test(e.candidate.text) &&
      e.worth >= floor,
  );
  const cost = (c: Candidate): number => c.size + (c.partial ? 1 : 0);
  let best: [{ candidate: Candidate; worth: number }, { candidate: Candidate; worth: number }] | undefined;
  let bestWorth = 0;
  for (const form of forms) {
    for (const partner of partners) {
      if (cost(form.candidate) + cost(partner.candidate) + separator > room) continue;
      const worth = form.worth + partner.worth;
      if (worth > bestWorth) {
        best = [form, partner];
        bestWorth = worth;
      }
    }
  }
  return best;
}

const CLOSED_RE = /[.!?。！？…]["'”’)\]»」』]*$/u;

// One-line forms of the extracts (a brief and an origin join the same ones more than once).
const flatForms = new WeakMap<Candidate, string>();
// Whitespace that a one-line form would change.
const UNFLAT_RE = /\s{2}|[^\S ]|^\s|\s$/u;

/** `oneLine(candidate.text)`, computed once per candidate. */
function flatOf(candidate: Candidate): string {
  let flat = flatForms.get(candidate);
  if (flat === undefined) {
    flat = UNFLAT_RE.test(candidate.text) ? oneLine(candidate.text) : candidate.text;
    flatForms.set(candidate, flat);
  }
  return flat;
}

/** Joins extracts: adjacent ones by a space (or line break), others by `…`. */
function joinExtracts(chosen: readonly Candidate[], oneLineMode: boolean): string {
  // Filled by push, not `map`, for the reason given in `analyse` (the same "wrong map" here).
  const adjacent: boolean[] = [];
  const keepsNumber: boolean[] = [];
  for (const [i, candidate] of chosen.entries()) {
    const previous = chosen[i - 1];
    adjacent.push(
      previous !== undefined &&
        candidate.unit === previous.unit + 1 &&
        candidate.block === previous.block &&
        !previous.partial &&
        candidate.opens,
    );
    keepsNumber.push(false);
  }
  // A list item keeps its number only in a run of items that starts at the list's first one
  // (the sentence that introduces the list may open the run); elsewhere ("2." opening a level,
  // as if item 1 were missing) the number goes.
  for (let i = 0; i < chosen.length; i++) {
    if (adjacent[i]) continue;
    let end = i;
    while (end + 1 < chosen.length && adjacent[end + 1]) end++;
    if (end > i && firstListNumber(chosen, i, end) === '1')
      for (let k = i; k <= end; k++) keepsNumber[k] = true;
  }
  let out = '';
  let previous: Candidate | undefined;
  for (const [i, candidate] of chosen.entries()) {
    const text = oneLineMode ? flatOf(candidate) : candidate.text.trim();
    const whole = keepsNumber[i] ? text : withoutListMarker(text, oneLineMode && !adjacent[i]);
    // A clause opening says that its sentence goes on, wherever it stands.
    const body = candidate.partial && !CLOSED_RE.test(whole) ? `${whole}…` : whole;
    if (previous) {
      if (oneLineMode) out += adjacent[i] || out.endsWith('…') ? ' ' : ' … ';
      else if (adjacent[i])
        out += candidate.paragraph === previous.paragraph && !candidate.lineStart ? ' ' : '\n';
      else out += '\n…\n';
    }
    out += body;
    previous = candidate;
  }
  if (previous && !CLOSED_RE.test(out)) out += '…';
  return out;
}

/**
 * The list number of the first of `chosen[from..to]` that opens with one. A loop, not `map` and
 * `find`: their arrays made V8 throw away `joinExtracts`'s optimised code ("wrong map") again.
 */
function firstListNumber(chosen: readonly Candidate[], from: number, to: number): string | undefined {
  for (let k = from; k <= to; k++) {
    const number = LIST_NUMBER_RE.exec((chosen[k] as Candidate).text.trim())?.[1];
    if (number !== undefined) return number;
  }
  return undefined;
}

const NUMBER_MARKER_RE = /^(?:\(?\d{1,3}[.)]|\(\p{L}\)|\p{L}\))\s+(?=\S)/u;
const BULLET_MARKER_RE = /^[-*•]\s+(?=\S)/u;

/** `text` without a leading list number (and, on one line, without a bullet). */
function withoutListMarker(text: string, oneLineMode: boolean): string {
  const number = NUMBER_MARKER_RE.exec(text);
  if (number) return text.slice(number[0].length);
  const bullet = oneLineMode ? BULLET_MARKER_RE.exec(text) : null;
  return bullet ? text.slice(bullet[0].length) : text;
}

/** How many code points the separators between `count` extracts may take at most. */
function separatorCost(oneLineMode: boolean): number {
  return oneLineMode ? 3 : 3;
}

/**
 * An extractive summary of `text` in at most `maxChars` code points (see the module comment).
 * Text that already fits is returned trimmed (on one line for origin/brief levels).
 */
export function extractiveSummary(text: string, maxChars: number, options: ExtractiveOptions = {}): string {
  const max = budgetOf(maxChars);
  const oneLineMode = isOneLineLevel(options.level ?? levelForBudget(max));
  const trimmed = oneLineMode ? oneLine(text) : text.trim();
  if (trimmed.length === 0) return fitWords(oneLine(options.hint ?? ''), max);
  if (codePointLength(trimmed) <= max) return trimmed;
  const analysis = analyse(text, termsOf(options.hint ?? ''));
  return extractsWithin(analysis, max, oneLineMode) || fitWords(trimmed, max);
}

function extractsWithin(analysis: Analysis, max: number, oneLineMode: boolean): string {
  if (max <= 1) return '';
  const { chosen } = choose(analysis, max - 1, separatorCost(oneLineMode));
  if (chosen.length > 0) return clip(joinExtracts(chosen, oneLineMode), max);
  // Nothing fits whole: the best extract, cut at a word.
  const best = analysis.ranked[0];
  return best ? fitWords(oneLineMode ? oneLine(best.text) : best.text.trim(), max) : '';
}

function clip(text: string, max: number): string {
  return codePointLength(text) <= max ? text : fitWords(text, max);
}

// ---- tasks ------------------------------------------------------------------------------------

/** The parts of a task that its levels are made from. */
export interface TaskSource {
  readonly label: string;
  readonly summary: string;
  /** One line per changed file (`[modified] path: what changed`). */
  readonly files: readonly string[];
  readonly todos: readonly string[];
  /** The verbatim working context (a transcript). */
  readonly context: string;
}

/** The summarised levels and their caps in code points. */
export type LevelCaps = Readonly<Record<SummaryLevelName, number>>;

const LABEL_SEPARATOR = ' — ';
/** Share of a level (after the label) the caller's summary may take, so an outcome still fits. */
const SUMMARY_SHARE = 0.5;

/**
 * The four summarised levels of a task from one analysis of its context (see the module
 * comment): the origin is the label with, room permitting, a gist from the caller's summary or
 * an outcome sentence that has content words; the brief says why first and gives the label
 * only the room it can spare ({@link briefLevel}); summary and detailed lead with the label and
 * the caller's summary and go on with the extracts that fit; detailed also lists files and todos.
 */
export function taskLevels(task: TaskSource, caps: LevelCaps): Record<SummaryLevelName, string> {
  const label = oneLine(task.label);
  const summary = task.summary.trim();
  const analysis = analyse(task.context, termsOf(label), termsOf(summary));
  const origin = originLevel(label, summary, analysis, caps.origin);
  const brief = briefLevel(label, summary, analysis, caps.brief);
  const files = task.files.map((f) => f.trim()).filter((f) => f.length > 0);
  const todos = task.todos.map((t) => oneLine(t)).filter((t) => t.length > 0);
  const middle = leveled(label, summary, [], analysis, caps.summary, false);
  const extra = [
    ...(files.length > 0 ? [`Changed files:\n${fitLines(files, Math.floor(caps.detailed * 0.3))}`] : []),
    ...(todos.length > 0 ? [`TODOs: ${fitWords(todos.join('; '), Math.floor(caps.detailed * 0.15))}`] : []),
  ];
  const detailed = leveled(label, summary, extra, analysis, caps.detailed, false);
  return monotone({ origin, brief, summary: middle, detailed }, caps);
}

/** Lines that fit `max` code points, whole, with a count of the rest. */
function fitLines(lines: readonly string[], max: number): string {
  const out: string[] = [];
  let used = 0;
  for (const [i, line] of lines.entries()) {
    const size = codePointLength(line) + 1;
    const rest = lines.length - i;
    if (used + size > max - 16 && rest > 1) {
      out.push(`… and ${rest} more files`);
      break;
    }
    if (used + size > max) {
      out.push(fitWords(line, Math.max(0, max - used)));
      break;
    }
    out.push(line);
    used += size;
  }
  return out.filter((l) => l.length > 0).join('\n');
}

function originLevel(label: string, summary: string, analysis: Analysis, cap: number): string {
  const head = fitWords(label, cap);
  const room = cap - codePointLength(head) - LABEL_SEPARATOR.length;
  if (head.length === 0) return extractsWithin(analysis, cap, true);
  if (room < 16) return head;
  let gist = '';
  if (summary.length > 0) {
    const first = oneLine(sentencesOf(summary)[0] ?? summary);
    gist = codePointLength(first) <= room ? first : (clauseGist(first, room) ?? '');
  } else {
    // What the user reported ("p95 went from 120ms to 2.4s") is the problem, not what came of
    // the work: their sentences give the gist only when no one else's can.
    const byUser = (c: Candidate): boolean => analysis.units[c.unit]?.role === 'user';
    const outcomes = analysis.candidates
      .filter((c) => c.outcome && says(c) && c.size + (c.partial || !CLOSED_RE.test(c.text) ? 1 : 0) <= room)
      .sort((a, b) => b.worth - a.worth);
    // An item of a list shown alone goes without its number ("2." as if item 1 were there).
    const whole = (c: Candidate): string =>
      `${withoutListMarker(oneLine(c.text), true)}${c.partial || !CLOSED_RE.test(c.text) ? '…' : ''}`;
    // In order: another's outcome whole, the best sentence cut (another's), the user's outcome
    // whole, the best sentence cut (the user's).
    const best = outcomes.find((c) => !byUser(c));
    const bestCut = bestOf(analysis);
    const cut = bestCut?.outcome && says(bestCut) ? bestCut : undefined;
    const cutText = (): string => (cut ? cutGist(withoutListMarker(oneLine(cut.text), true), room) : '');
    if (best) gist = whole(best);
    else if (cut && !byUser(cut)) gist = cutText();
    if (gist.length === 0 && outcomes[0]) gist = whole(outcomes[0]);
    else if (gist.length === 0 && cut && byUser(cut)) gist = cutText();
  }
  return gist.length > 0 ? `${head}${LABEL_SEPARATOR}${gist}` : head;
}

// The sentences of the last few texts split: a task's summary is split for every level.
const SENTENCE_TEXTS = 4;
const sentenceCache: { readonly text: string; readonly sentences: readonly string[] }[] = [];

/** {@link splitSentences}, remembered for the last few texts (the result is shared: never change it). */
function sentencesOf(text: string): readonly string[] {
  for (const entry of sentenceCache) if (entry.text === text) return entry.sentences;
  const sentences = splitSentences(text);
  if (sentenceCache.length >= SENTENCE_TEXTS) sentenceCache.shift();
  sentenceCache.push({ text, sentences });
  return sentences;
}

/** Where a sentence divides into clauses that each say something: `;`, a dash between spaces. */
const CLAUSE_BREAK_RE = /\s*;\s+|\s+[—–]\s+/u;

/**
 * A gist of a sentence too long for `room`: its first clause (`;` or a spaced dash ends it) with
 * `…` when that fits, else the sentence or its first clause cut at a word, keeping at least half
 * of it (a cut that keeps less says nothing), else nothing.
 */
function clauseGist(sentence: string, room: number): string | undefined {
  const clause = sentence.split(CLAUSE_BREAK_RE)[0]?.replace(/[\s,:]+$/u, '') ?? '';
  const partial = clause.length > 0 && clause.length < sentence.length;
  if (partial && codePointLength(clause) + 1 <= room && termsOf(clause).ids.length >= GIST_TERMS)
    return `${clause}…`;
  for (const text of partial ? [sentence, clause] : [sentence]) {
    // A clause is cut short of `room` so that its `…` (the sentence goes on) always fits.
    const cut = cutGist(text, text === clause ? room - 1 : room);
    if (cut.length > 0 && codePointLength(cut) * 2 >= codePointLength(text)) return cut;
  }
  return undefined;
}

/** Content words a gist needs ("Found it." or "Done, thanks." say nothing on their own). */
const GIST_TERMS = 3;

// A sentence that announces what follows ("There are two ways to fix it:") says nothing alone.
const ANNOUNCES_RE = /[:：]["'”’)\]]*$/u;

/** True when an extract has enough content words to stand for its task, and does not only announce a list. */
function says(candidate: Candidate): boolean {
  return candidate.terms.length >= GIST_TERMS && !ANNOUNCES_RE.test(candidate.text);
}

/** A sentence cut at a word with `…`, or nothing when too little of it would be left. */
function cutGist(sentence: string, room: number): string {
  const cut = fitWords(sentence, room);
  return codePointLength(cut) >= Math.min(24, room * 0.6) && termsOf(cut).ids.length >= GIST_TERMS ? cut : '';
}

/** Label, caller summary (verbatim, whole or its leading sentences), extra parts, then extracts. */
function leveled(
  label: string,
  summary: string,
  extra: readonly string[],
  analysis: Analysis,
  cap: number,
  oneLineMode: boolean,
): string {
  const separator = oneLineMode ? LABEL_SEPARATOR : '\n';
  const head =
    label.length > 0 && !summaryRestatesLabel(summary, analysis, cap, separator, oneLineMode)
      ? fitWords(label, Math.floor(cap / 2))
      : '';
  const parts: string[] = head.length > 0 ? [head] : [];
  let used = codePointLength(head);
  const cost = (text: string): number =>
    codePointLength(text) + (parts.length > 0 ? codePointLength(separator) : 0);
  if (summary.length > 0) {
    const share = Math.floor((cap - used) * SUMMARY_SHARE);
    const text = leadingSentences(
      oneLineMode ? oneLine(summary) : summary,
      share - codePointLength(separator),
    );
    if (text.length > 0) {
      used += cost(text);
      parts.push(text);
    }
  }
  for (const part of extra) {
    const text = oneLineMode ? oneLine(part) : part;
    if (used + cost(text) > cap) continue;
    used += cost(text);
    parts.push(text);
  }
  const room = cap - used - (parts.length > 0 ? codePointLength(separator) : 0);
  const body = room > 12 ? extractsBody(analysis, room, oneLineMode) : '';
  if (body.length > 0) parts.push(body);
  const out = parts.join(separator);
  return codePointLength(out) <= cap ? out : fitWords(out, cap);
}

/** A label longer than this gives way to its opening in the brief, so the outcome has the room. */
const SHORT_LABEL = 48;
/** A caller's first summary sentence up to this share of the brief's cap keeps its room there. */
const SUMMARY_SENTENCE_SHARE = 0.65;
/** How much better the best extract must be for the brief to leave the label out to fit it. */
const LABEL_GIVES_WAY = 1.25;

/**
 * The brief: one line whose room goes to the outcome first. The best extracts are chosen with
 * room for a short form of the label kept aside (for the whole label when that costs no clearly
 * better extract); then the label (whole when it still fits,
 * else its opening) leads, unless the extracts already hold every content word of it (every
 * view shows the label beside the brief); the caller's leading summary sentences follow when
 * they fit the room that is left.
 */
/**
 * True when the caller's summary opens with a sentence that restates the label ("Implement JWT
 * login. POST /login returns …" for the task "Implement JWT login") and that sentence fits the
 * summary's share of a level: the label before it would say the same thing twice.
 */
function summaryRestatesLabel(
  summary: string,
  analysis: Analysis,
  cap: number,
  separator: string,
  oneLineMode: boolean,
): boolean {
  if (summary.length === 0 || analysis.hint.ids.length === 0) return false;
  const first = oneLine(sentencesOf(summary)[0] ?? '');
  if (first.length === 0 || !restates(first, analysis.hint)) return false;
  const shown = leadingSentences(
    oneLineMode ? oneLine(summary) : summary,
    Math.floor(cap * SUMMARY_SHARE) - codePointLength(separator),
  );
  return oneLine(shown).startsWith(first);
}

function briefLevel(label: string, summary: string, analysis: Analysis, cap: number): string {
  const separator = codePointLength(LABEL_SEPARATOR);
  // The first sentence of the caller's summary is what the caller chose to say: up to 65% of the
  // cap, its room is kept before any extract is chosen. A longer one comes only if room is left.
  const first = summary.length > 0 ? oneLine(sentencesOf(summary)[0] ?? '') : '';
  const kept = first.length > 0 && codePointLength(first) <= cap * SUMMARY_SENTENCE_SHARE ? first : '';
  const keptRoom = kept.length > 0 ? codePointLength(kept) + separator : 0;
  // A kept summary sentence that restates the label says it again with the outcome: the label goes.
  const restated = kept.length > 0 && restates(kept, analysis.hint);
  const short = restated ? '' : shortLabel(label);
  const reserve = keptRoom + (short.length > 0 ? codePointLength(short) + separator : 0);
  const keptTerms = kept.length > 0 ? idsOf(analysis, kept) : [];
  const withLabel =
    cap - reserve > 12
      ? weighedBody(analysis, cap - reserve, true, keptTerms)
      : { text: '', worth: 0, terms: () => new Set<number>() };
  // The label gives way when the room it takes would cost a clearly better extract.
  const whole = weighedBody(analysis, cap - keptRoom, true, keptTerms);
  let pick = whole.worth > withLabel.worth * LABEL_GIVES_WAY ? whole : withLabel;
  // The whole label, when shortening it buys nothing clearly better.
  const fullReserve = keptRoom + codePointLength(label) + separator;
  if (!restated && short !== label && label.length > 0 && cap - fullReserve > 12) {
    const withFull = weighedBody(analysis, cap - fullReserve, true, keptTerms);
    if (withFull.text.length > 0 && pick.worth <= withFull.worth * LABEL_GIVES_WAY) pick = withFull;
  }
  const body = pick.text;
  if (body.length === 0) return leveled(label, summary, [], analysis, cap, true);
  let left = cap - codePointLength(body) - keptRoom;
  const parts: string[] = [];
  const bodyTerms = pick.terms();
  const allInBody = (terms: Terms): boolean =>
    idsIn(analysis, terms).every((id) => id !== undefined && bodyTerms.has(id));
  if (!restated && !allInBody(analysis.hint)) {
    const head = codePointLength(label) + separator <= left ? label : short;
    if (head.length > 0 && codePointLength(head) + separator <= left) {
      parts.push(head);
      left -= codePointLength(head) + separator;
    }
  }
  if (kept.length > 0) left += keptRoom;
  if (summary.length > 0) {
    const lead = wholeLeadingSentences(oneLine(summary), left - separator);
    const leadTerms = termsOf(lead);
    // Only when it says something the extracts do not.
    if (lead.length > 0 && !allInBody(leadTerms)) parts.push(lead);
  }
  parts.push(body);
  return parts.join(LABEL_SEPARATOR);
}

/** Share of the label's content words a summary sentence must use to restate it. */
const RESTATES = 0.6;

/** True when `sentence` uses most of the label's content words (`labelTerms`). */
function restates(sentence: string, labelTerms: Terms): boolean {
  if (labelTerms.names.length === 0) return true;
  const terms = setOf(termsOf(sentence));
  let shared = 0;
  for (const term of labelTerms.names) if (terms.has(term)) shared++;
  return shared >= labelTerms.names.length * RESTATES;
}

/** The ids of the terms of `text` that the analysed text uses. */
function idsOf(analysis: Analysis, text: string): number[] {
  const out: number[] = [];
  for (const id of idsIn(analysis, termsOf(text))) if (id !== undefined) out.push(id);
  return out;
}

/** The label whole when short, else its opening up to a clause mark, else cut at a word (both with `…`). */
function shortLabel(label: string): string {
  if (codePointLength(label) <= SHORT_LABEL) return label;
  const mark = /\s[(—–-]\s?|[:;,]\s/gu;
  let opening = '';
  for (let match = mark.exec(label); match; match = mark.exec(label)) {
    const head = label.slice(0, match.index).trimEnd();
    if (codePointLength(head) > SHORT_LABEL) break;
    opening = head;
  }
  return codePointLength(opening) >= 16 ? `${opening}…` : fitWords(label, SHORT_LABEL);
}

/** The leading whole sentences of `text` within `max` code points (nothing when the first does not fit). */
function wholeLeadingSentences(text: string, max: number): string {
  if (max <= 0) return '';
  if (codePointLength(text) <= max) return text;
  let out = '';
  for (const sentence of sentencesOf(text)) {
    const next = out.length > 0 ? `${out} ${sentence}` : sentence;
    if (codePointLength(next) > max) break;
    out = next;
  }
  return out;
}

/** Below this room an extract is never cut to fit. */
const CUT_ROOM = 60;
/** A cut of the best extract is taken when what fits whole is worth less than this share of it. */
const CUT_WORTH = 0.6;

function extractsBody(analysis: Analysis, room: number, oneLineMode: boolean): string {
  return weighedBody(analysis, room, oneLineMode).text;
}

/** {@link extractsBody} with the worth of its leading extract and (on one line) the terms it holds. */
function weighedBody(
  analysis: Analysis,
  room: number,
  oneLineMode: boolean,
  shown: readonly number[] = [],
): { text: string; worth: number; terms: () => ReadonlySet<number> } {
  const floor = oneLineMode ? BRIEF_FLOOR : room >= DETAIL_ROOM ? DETAIL_FLOOR : SUMMARY_FLOOR;
  const {
    chosen,
    top,
    lead,
    best: bestWorth,
  } = choose(analysis, room - 1, separatorCost(oneLineMode), floor, oneLineMode, shown);
  const best = bestOf(analysis);
  if (
    best &&
    best.size > room - 1 &&
    room >= CUT_ROOM &&
    Math.max(top, lead) < bestWorth * CUT_WORTH &&
    !(oneLineMode && chosen.some((c) => c.why))
  ) {
    // The shortest whole form of the best sentence (its asides left out), cut if it must be.
    const shortest = analysis.candidates
      .filter((c) => c.group === best.group && !c.partial)
      .reduce((a, b) => (b.size < a.size ? b : a), best);
    return {
      text: fitWords(
        withoutListMarker(oneLineMode ? oneLine(shortest.text) : shortest.text.trim(), oneLineMode),
        room,
      ),
      worth: bestWorth * CUT_WORTH,
      terms: () => new Set(shortest.terms),
    };
  }
  return {
    text: chosen.length > 0 ? joinExtracts(chosen, oneLineMode) : '',
    worth: lead,
    terms: () => new Set(chosen.flatMap((c) => c.terms)),
  };
}

function bestOf(analysis: Analysis): Candidate | undefined {
  return analysis.best;
}

/** The leading sentences of `text` that fit `max`; the first one cut at a word if none does. */
function leadingSentences(text: string, max: number): string {
  if (max <= 0) return '';
  if (codePointLength(text) <= max) return text;
  let out = '';
  for (const sentence of sentencesOf(text)) {
    const next = out.length > 0 ? `${out} ${sentence}` : sentence;
    if (codePointLength(next) > max) break;
    out = next;
  }
  if (out.length > 0) return out;
  const first = sentencesOf(text)[0] ?? text;
  const opening = clausePrefixEnds(first, 0, first.length)
    .map((end) => first.slice(0, end))
    .filter((prefix) => codePointLength(prefix) < max)
    .pop();
  return opening !== undefined ? `${opening}…` : cutGist(text, max);
}

/**
 * No level longer than the next one: a level shorter than the one below it (a multi-line level
 * saves the separators of a one-line one) takes that level's text, which fits its larger cap.
 */
function monotone(
  levels: Record<SummaryLevelName, string>,
  caps: LevelCaps,
): Record<SummaryLevelName, string> {
  const order = ['origin', 'brief', 'summary', 'detailed'] as const;
  for (let i = 1; i < order.length; i++) {
    const level = order[i] as (typeof order)[number];
    const below = levels[order[i - 1] as (typeof order)[number]];
    if (codePointLength(below) > codePointLength(levels[level]) && codePointLength(below) <= caps[level]) {
      levels[level] = below;
    }
  }
  return levels;
}
