/**
 * Splitting a working transcript into units that know what they are: prose sentences (with the
 * role of who wrote them), and lines of tool output, code, logs, diffs, JSON, stack frames,
 * shell commands and tables. Summaries are drawn from prose; the rest is kept verbatim in the
 * full view.
 *
 * Two rules hold for every unit: its `text` is exactly `source.slice(start, end)` (a verbatim
 * span), and a boundary never falls inside a token: sentences end only at `. ! ? …` followed by
 * whitespace (or at `。！？`), so `08:31:12`, `2024-03-12T08:31:12Z`, `cache:user:42`, `$301.77`,
 * `v2.1.0`, `src/a.ts`, URLs and `[tool: edit]` stay whole; abbreviations (`e.g.`, `i.e.`,
 * `vs.`, initials) do not end a sentence and list numbers stay with their item.
 */

/** What a unit is. Only `prose` is written for a reader; everything else is machine output. */
export type UnitKind = 'prose' | 'tool' | 'code' | 'log' | 'diff' | 'json' | 'stack' | 'command' | 'table';

/** Who wrote a unit, when the transcript says (`[user]`, `Assistant:`, `[tool:bash]` …). */
export type UnitRole = 'user' | 'assistant' | 'tool' | 'none';

/** One unit of a text. */
export interface TextUnit {
  readonly kind: UnitKind;
  readonly role: UnitRole;
  /** UTF-16 offsets in the source; `text === source.slice(start, end)`. */
  readonly start: number;
  readonly end: number;
  readonly text: string;
  /** Units of one paragraph share this number (a blank line, a header or machine output ends one). */
  readonly paragraph: number;
  /** Number of the role block the unit belongs to (0 before the first header). */
  readonly block: number;
  /** True for a unit that starts a new line in the source. */
  readonly lineStart: boolean;
}

// A header line: `[assistant]`, `[tool:bash]`; in chats exported as Markdown also `## User` or
// `**Assistant**` (only the speakers: a document's `## System` section is not a turn); in prompts
// and logs written with tags, `<user>`, `<tool_result>` (a closing tag, `</user>`, ends the turn
// and opens none). One source for the line's own test and for the search of the next header.
const SPEAKERS = 'user|human|assistant|ai|agent|model';
const TAGS = `${SPEAKERS}|system|tool[\\w-]*|function[\\w-]*`;
const HEADER_FORMS =
  `\\[(${SPEAKERS}|system|tool(?:[:\\s][^\\]\\n]*)?|function(?:[:\\s][^\\]\\n]*)?)\\]` +
  `|#{1,6}[ \\t]*(${SPEAKERS})[ \\t]*:?|\\*\\*(${SPEAKERS}):?\\*\\*[ \\t]*:?` +
  `|<(${TAGS})>|</(?:${TAGS})>`;
const ROLE_HEADER_RE = new RegExp(`^(?:${HEADER_FORMS})\\s*$`, 'iu');
// A prefix that opens a turn on its line: `User: …`, `assistant: …`, `Tool output: …`, `**User:** …`,
// and a speaker's bracket header with the turn's first words after it (`[user] The badge …`);
// in a log, after the line's time (`[10:32:01] user: …`, `2024-03-12T08:31:12Z assistant: …`).
const LINE_TIME = String.raw`\[?(?:\d{4}-\d{2}-\d{2}[T ])?\d{1,2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?\]?[ \t]+`;
const ROLE_PREFIX_RE = new RegExp(
  String.raw`^(?:${LINE_TIME})?(?:(user|human|assistant|ai|agent|system|tool(?: output| result)?)\s*:` +
    String.raw`|\*\*(${SPEAKERS})(?::\*\*|\*\*[ \t]*:)|\[(${SPEAKERS}|system)\](?=[ \t]+\S))(?:\s+|$)`,
  'iu',
);
// A tool call on one line with what was run (`[tool: bash] npm test`, `[function:search] {…}`),
// in transcripts whose turns open with a prefix (`assistant: …`): its output follows on the next lines.
const INLINE_TOOL_RE = /^\[(?:tool|function)(?:[:\s][^\]]*)?\][ \t]+\S/iu;
// Claude Code's terminal transcript: `> request` opens a user turn, `⏺ text` an assistant one,
// `⏺ Bash(npm test)` a tool call whose output follows on indented `⎿` lines. Read so only in a
// text that has such `⏺` lines at the start of a line (elsewhere `> ` is a shell prompt).
const AGENT_MARK_RE = /^⏺[ \t]/mu;
const AGENT_CALL_RE = /^⏺[ \t]+[A-Z][\w.-]*(?: \([^)]*\))?\(/u;
const AGENT_TURN_RE = /^(⏺|>)[ \t]+/u;
const FENCE_RE = /^(```|~~~)/u;
const DIFF_START_RE = /^(?:diff --git |index [0-9a-f]{6,}|@@ -\d|--- a\/|\+\+\+ b\/|--- \/|\+\+\+ \/)/u;
const DIFF_LINE_RE = /^[+\- ]/u;
const STACK_RE =
  /^(?:at \S+ \(|at \S+:\d+|at <anonymous>|File "[^"]+", line \d+|Traceback \(most recent call last\)|#\d+\s+0x[0-9a-f]+|\.\.\. \d+ more|Caused by: |thread '[^']*' panicked at|goroutine \d+ \[|[\w.$]+(?:Error|Exception|Invalid|Panic)(?::\s|$))/u;
const LOG_RE =
  /^(?:\[?\d{4}-\d{2}-\d{2}[T ,]\s?\d{2}:\d{2}|\[?\d{2}:\d{2}:\d{2}[.,\]\s]|(?:level|ts|time|msg|lvl)=\S|\[?(?:INFO|WARN|WARNING|ERROR|DEBUG|TRACE|FATAL|CRITICAL)\]?[\s:]|[IWEF]\d{4} \d{2}:\d{2})/u;
const JSON_RE = /^(?:[{[]\s*["'][^"']*["']\s*:|[{[][\]}]?,?$|"[^"]+"\s*:\s*\S|[}\]],?$|\{.*\}$)/u;
const COMMAND_RE = /^(?:\$|>|❯|%|PS [A-Z]:\\[^>]*>)\s+\S/u;
const TABLE_RE = /\|.*\|.*\||\S {2,}\S.*\S {2,}\S|^[-=+|: ]{6,}$/u;
const CODE_RE =
  /^(?:def |class |fn |pub |func |import |from \S+ import |const |let |var |return\b|if \(|for \(|while \(|#include|package |use [\w:]+;|[})\]];?$|\{$|\d+\s{2,}\S|\/\/|\/\*|\*\/)|[{;]$/u;

/** The kind of one line outside tool blocks and code fences. */
export function lineKind(line: string, inDiff: boolean): UnitKind {
  if (DIFF_START_RE.test(line) || (inDiff && DIFF_LINE_RE.test(line))) return 'diff';
  if (STACK_RE.test(line)) return 'stack';
  if (LOG_RE.test(line)) return 'log';
  if (JSON_RE.test(line)) return 'json';
  if (COMMAND_RE.test(line)) return 'command';
  if (TABLE_RE.test(line)) return 'table';
  if ((CODE_RE.test(line) && !wordy(line)) || symbolHeavy(line)) return 'code';
  return 'prose';
}

const WORDISH_RE = /^[\p{L}\s]$/u;
const PLAIN_WORD_RE = /^["'(]?\p{L}[\p{Ll}'’-]*[,.;:)"']*$/u;

/**
 * A line of plain words that ends like code (`… the only target that keeps failing;` in a list
 * of reasons): at least six words, three in five of its tokens plain words, and no `=`, `{`
 * or `}`.
 */
function wordy(line: string): boolean {
  if (/^(?:\/\/|\/\*|\*\/)|[={}]/u.test(line)) return false;
  const tokens = line.split(/\s+/u);
  const plain = tokens.filter((t) => PLAIN_WORD_RE.test(t)).length;
  return plain >= 6 && plain >= tokens.length * 0.6;
}

/** Lines that are mostly punctuation and digits (data, code) rather than words. */
function symbolHeavy(line: string): boolean {
  if (line.length < 12) return false;
  // UTF-16 units that are neither letters nor whitespace (ASCII by its code, the rest by class).
  let other = 0;
  for (let i = 0; i < line.length; i++) {
    const code = line.charCodeAt(i);
    if (code < 0x80) {
      const letter = (code >= 97 && code <= 122) || (code >= 65 && code <= 90);
      if (!letter && !(code === 32 || (code >= 9 && code <= 13))) other++;
      continue;
    }
    const point = line.codePointAt(i) ?? code;
    const width = point > 0xffff ? 2 : 1;
    if (!WORDISH_RE.test(String.fromCodePoint(point))) other += width;
    i += width - 1;
  }
  return other / line.length > 0.4;
}

function roleOf(name: string): UnitRole {
  const lower = name.toLowerCase();
  // A closing tag (`</user>`) names no one: what follows it belongs to no turn.
  if (lower === '') return 'none';
  if (lower === 'user' || lower === 'human') return 'user';
  if (lower.startsWith('tool') || lower.startsWith('function')) return 'tool';
  if (lower === 'system') return 'none';
  return 'assistant';
}

const TERMINAL_RE = /[.!?。！？:;…]["'”’)\]»」』]*$/u;
const LOWER_START_RE = /^[\p{Ll}\d(]/u;
const LIST_ITEM_RE = /^(?:\d{1,3}[.)]|[-*•]|\(\w\))\s/u;

interface Line {
  readonly start: number;
  readonly end: number;
  readonly text: string;
}

const HEADER_LINE_RE = new RegExp(`^[ \\t]*(?:${HEADER_FORMS})[ \\t]*\\r?$`, 'gimu');

/** The role name a header or prefix match captured (whichever of its forms matched). */
function capturedName(match: RegExpExecArray): string {
  return match.slice(1).find((name) => name !== undefined) ?? '';
}

/** The trimmed line starting at `at`, and where the next one starts. */
function lineAt(text: string, at: number): Line & { next: number } {
  let next = text.indexOf('\n', at);
  if (next < 0) next = text.length;
  const line = trimmed(text, at, next);
  return line
    ? { start: line.start, end: line.end, text: line.text, next: next + 1 }
    : { start: at, end: at, text: '', next: next + 1 };
}

/** `text.slice(start, end)` without surrounding whitespace, or undefined when nothing is left. */
function trimmed(text: string, start: number, end: number): Line | undefined {
  let s = start;
  let e = end;
  while (s < e && isSpace(text.charCodeAt(s))) s++;
  while (e > s && isSpace(text.charCodeAt(e - 1))) e--;
  return e > s ? { start: s, end: e, text: text.slice(s, e) } : undefined;
}

/** Where `text.slice(start, end)` ends without its trailing line breaks and spaces. */
function withoutTrailingBreaks(text: string, start: number, end: number): number {
  let e = end;
  while (e > start && (text.charCodeAt(e - 1) === 10 || isSpace(text.charCodeAt(e - 1)))) e--;
  return e;
}

function isSpace(code: number): boolean {
  return (
    code === 32 || code === 9 || code === 13 || code === 11 || code === 12 || code === 0xa0 || code === 0x3000
  );
}

/**
 * The units of `text`, in order (see the module comment). Blank lines are dropped; header lines
 * (`[assistant]`, `[tool:bash]`) set the role of what follows and are not units themselves.
 */
export function splitUnits(text: string): TextUnit[] {
  const units: TextUnit[] = [];
  let role: UnitRole = 'none';
  let block = 0;
  let paragraph = 0;
  let inFence = false;
  let inDiff = false;
  let prose: Line | undefined;
  const flushProse = (): void => {
    if (!prose) return;
    for (const [start, end] of sentenceSpans(text, prose.start, prose.end)) {
      const lineStart = start === prose.start || afterLineBreak(text, prose.start, start);
      units.push({
        kind: 'prose',
        role,
        start,
        end,
        text: text.slice(start, end),
        paragraph,
        block,
        lineStart,
      });
    }
    prose = undefined;
  };
  const newParagraph = (): void => {
    flushProse();
    paragraph++;
  };
  // A tool block opened by a prefix or an inline call ends at the next line that opens a turn.
  let prefixed = false;
  // Whether turns open with a prefix (`Human: …`, `assistant: …`): there, a tool block opened by
  // a header line (`[Tool result]`) also ends at the next turn's prefix, not only at a header.
  let prefixTurns = false;
  const agentTranscript = AGENT_MARK_RE.test(text);
  /** True when the line at `start` (`line` its trimmed text) opens a turn of an agent transcript. */
  const opensAgentTurn = (line: Line, start: number): boolean =>
    agentTranscript && line.start === start && AGENT_TURN_RE.test(line.text);
  let at = 0;
  while (at <= text.length) {
    if (role === 'tool' && prefixed && !inFence) {
      // Its output runs to the next line that opens a turn (a header, a prefix, another call).
      let stop = at;
      while (stop < text.length) {
        const next = lineAt(text, stop);
        if (
          ROLE_HEADER_RE.test(next.text) ||
          ROLE_PREFIX_RE.test(next.text) ||
          INLINE_TOOL_RE.test(next.text) ||
          opensAgentTurn(next, stop)
        )
          break;
        stop = next.next;
      }
      const run = trimmed(text, at, withoutTrailingBreaks(text, at, Math.min(stop, text.length)));
      if (run) units.push(machine('tool', run));
      if (stop >= text.length) break;
      at = stop;
    } else if (role === 'tool' && !inFence) {
      // Tool output runs to the next header: one unit, found without reading it line by line.
      HEADER_LINE_RE.lastIndex = at;
      const next = HEADER_LINE_RE.exec(text);
      const stop = next ? next.index : text.length;
      const run = trimmed(text, at, withoutTrailingBreaks(text, at, stop));
      if (run) units.push(machine('tool', run));
      if (!next) break;
      at = stop;
    }
    const lineStart = at;
    const line = lineAt(text, at);
    at = line.next;
    if (line.text.length === 0) {
      newParagraph();
      inDiff = false;
      continue;
    }
    const header = inFence ? null : ROLE_HEADER_RE.exec(line.text);
    if (header) {
      newParagraph();
      role = roleOf(capturedName(header));
      prefixed = role === 'tool' && prefixTurns;
      block++;
      inDiff = false;
      continue;
    }
    if (
      !inFence &&
      (INLINE_TOOL_RE.test(line.text) || (opensAgentTurn(line, lineStart) && AGENT_CALL_RE.test(line.text)))
    ) {
      // The call line itself (what was run) is tool output too.
      newParagraph();
      role = 'tool';
      prefixed = true;
      block++;
      inDiff = false;
      units.push(machine('tool', line));
      continue;
    }
    let current: Line = line;
    const agentTurn = !inFence && opensAgentTurn(line, lineStart) ? AGENT_TURN_RE.exec(line.text) : null;
    const prefix =
      agentTurn ?? (inFence || (role === 'tool' && !prefixed) ? null : ROLE_PREFIX_RE.exec(line.text));
    if (prefix) {
      newParagraph();
      role = agentTurn
        ? agentTurn[1] === '>'
          ? 'user'
          : 'assistant'
        : roleOf(capturedName(prefix).split(/\s/u)[0] ?? '');
      prefixed = true;
      prefixTurns = true;
      block++;
      const skip = prefix[0].length;
      if (skip >= line.text.length) continue;
      current = { start: line.start + skip, end: line.end, text: line.text.slice(skip) };
    }
    if (FENCE_RE.test(current.text)) {
      newParagraph();
      inFence = !inFence;
      units.push(machine('code', current));
      continue;
    }
    const kind: UnitKind = inFence ? 'code' : role === 'tool' ? 'tool' : lineKind(current.text, inDiff);
    if (kind === 'diff' && DIFF_START_RE.test(current.text)) inDiff = true;
    if (kind !== 'prose') {
      newParagraph();
      units.push(machine(kind, current));
      continue;
    }
    inDiff = false;
    if (
      prose &&
      !TERMINAL_RE.test(prose.text) &&
      LOWER_START_RE.test(current.text) &&
      !LIST_ITEM_RE.test(current.text)
    ) {
      // A wrapped line: the sentence goes on.
      prose = { start: prose.start, end: current.end, text: text.slice(prose.start, current.end) };
      continue;
    }
    flushProse();
    prose = current;
  }
  flushProse();
  return units;

  function machine(kind: UnitKind, line: Line): TextUnit {
    return {
      kind,
      role,
      start: line.start,
      end: line.end,
      text: line.text,
      paragraph,
      block,
      lineStart: true,
    };
  }
}

/** True when only whitespace, including a line break, lies between `from` and `at`'s line start. */
function afterLineBreak(text: string, from: number, at: number): boolean {
  const lineBreak = text.lastIndexOf('\n', at - 1);
  if (lineBreak < from) return false;
  for (let i = lineBreak + 1; i < at; i++) if (!isSpace(text.charCodeAt(i))) return false;
  return true;
}

// Words after which a full stop does not end a sentence.
const ABBREVIATIONS = new Set(
  (
    'e.g i.e vs cf viz approx incl esp fig figs no nos nr vol vols ca resp al mr mrs ms dr prof st jr sr inc ltd co corp dept est ' +
    'min max avg ref refs sec secs approx eq eqs ch pp p a.m p.m u.s u.k e.u ph.d et jan feb mar apr jun jul aug sep sept oct nov dec ' +
    'mon tue tues wed thu thur thurs fri sat sun ver v op pt pts art'
  ).split(' '),
);
// After these, a full stop ends a sentence only before a capital letter.
const SOFT_ABBREVIATIONS = new Set(['etc', 'al', 'approx', 'incl', 'est', 'sec', 'min', 'max', 'avg']);

const END_RE = /[.!?…]+["'”’)\]»」』]*(?=\s|$)|[。！？]+["'”’)\]»」』]*/gu;

/**
 * Sentence spans of `text.slice(from, to)` as [start, end) offsets into `text`, trimmed.
 * Exported for tests through {@link splitSentences}.
 */
function sentenceSpans(text: string, from: number, to: number): [number, number][] {
  const spans: [number, number][] = [];
  const segment = text.slice(from, to);
  let start = 0;
  END_RE.lastIndex = 0;
  for (let match = END_RE.exec(segment); match; match = END_RE.exec(segment)) {
    const end = match.index + match[0].length;
    if (end >= segment.length) break;
    if (!endsSentence(segment, start, match.index, match[0], end)) continue;
    pushSpan(spans, text, from + start, from + end);
    start = end;
  }
  pushSpan(spans, text, from + start, to);
  return spans;
}

function pushSpan(spans: [number, number][], text: string, start: number, end: number): void {
  let s = start;
  let e = end;
  while (s < e && isSpace(text.charCodeAt(s))) s++;
  while (e > s && isSpace(text.charCodeAt(e - 1))) e--;
  if (e > s) spans.push([s, e]);
}

function endsSentence(
  segment: string,
  sentenceStart: number,
  markAt: number,
  mark: string,
  end: number,
): boolean {
  // A mark holds one of `。！？` only as its first character, and `!` or `?` only in its run of
  // stops (END_RE); these tests are the patterns' `/[。！？]/u` and `/[!?]/u` without a match.
  const first = mark.charCodeAt(0);
  if (first === 0x3002 || first === 0xff01 || first === 0xff1f) return true;
  if (mark.includes('!') || mark.includes('?')) return true;
  const next = nextWord(segment, end);
  if (mark.startsWith('…') || mark.startsWith('..')) {
    // An elision standing between words before a capitalised keyword (`SELECT … FOR UPDATE`)
    // leaves out part of one statement; it does not end a sentence.
    const standsAlone = markAt > 0 && isSpace(segment.charCodeAt(markAt - 1));
    if (standsAlone && /^\p{Lu}{2,}\b/u.test(next) && !/\p{Ll}/u.test(next)) return false;
    return next.length > 0 && !/^\p{Ll}/u.test(next);
  }
  const word = previousWord(segment, markAt);
  const lower = withoutOpeners(word.toLowerCase());
  if (lower.length === 0) return true;
  if (ABBREVIATIONS.has(lower)) {
    if (!SOFT_ABBREVIATIONS.has(lower)) return false;
    return /^\p{Lu}/u.test(next);
  }
  // An initial (`J. Smith`) or a dotted abbreviation (`e.g.`, `U.S.`). (The length and `.` tests
  // only skip patterns that cannot match: one code point is at most two units.)
  if (
    (word.length <= 2 && /^\p{Lu}$/u.test(word)) ||
    (lower.includes('.') && /^(?:\p{L}\.)+\p{L}$/u.test(lower))
  )
    return false;
  // A list number (`1. Do this`) at the start of the sentence or after `:` stays with its item.
  if (lower.length <= 3 && /^\d{1,3}$/u.test(lower)) {
    const before = segment.slice(sentenceStart, markAt - word.length).trimEnd();
    if (before.length === 0 || /[:;,(]$/u.test(before)) return false;
  }
  return true;
}

/** `word` without the brackets and quotes it opens with (`/^[("'[{]+/u` replaced by nothing). */
function withoutOpeners(word: string): string {
  let at = 0;
  for (; at < word.length; at++) {
    const code = word.charCodeAt(at);
    if (code !== 40 && code !== 34 && code !== 39 && code !== 91 && code !== 123) break;
  }
  return at === 0 ? word : word.slice(at);
}

function previousWord(segment: string, markAt: number): string {
  let i = markAt;
  while (i > 0 && !isSpace(segment.charCodeAt(i - 1))) i--;
  return segment.slice(i, markAt);
}

function nextWord(segment: string, end: number): string {
  let i = end;
  while (i < segment.length && isSpace(segment.charCodeAt(i))) i++;
  let j = i;
  while (j < segment.length && !isSpace(segment.charCodeAt(j))) j++;
  return segment.slice(i, j);
}

/** The sentences of one paragraph of prose, each a verbatim (trimmed) span. */
export function splitSentences(text: string): string[] {
  return sentenceSpans(text, 0, text.length).map(([s, e]) => text.slice(s, e));
}

const CLAUSE_RE = /[,;:，；：](?=\s)|\s[—–]\s/gu;

/**
 * Clauses of a long sentence as [start, end) offsets into `text`: cut only after `, ; :` that
 * are followed by whitespace, or around a spaced dash, so no token is split.
 */
export function clauseSpans(text: string, start: number, end: number): [number, number][] {
  const out: [number, number][] = [];
  const segment = text.slice(start, end);
  let at = 0;
  CLAUSE_RE.lastIndex = 0;
  for (let match = CLAUSE_RE.exec(segment); match; match = CLAUSE_RE.exec(segment)) {
    const cut = match[0].startsWith(' ') ? match.index : match.index + 1;
    pushSpan(out, text, start + at, start + cut);
    at = match[0].startsWith(' ') ? match.index + match[0].length : cut;
  }
  pushSpan(out, text, start + at, end);
  return out;
}

const PREFIX_CUT_RE = /[,;:，；：](?=\s)|\s[—–]\s/gu;

/**
 * Ends of the clause prefixes of a long sentence: the offsets (into `text`) just before each
 * `, ` `; ` or spaced dash that is not inside brackets, so `text.slice(start, end)` is the
 * sentence's opening up to that clause, without the mark.
 */
export function clausePrefixEnds(text: string, start: number, end: number): number[] {
  const out: number[] = [];
  const segment = text.slice(start, end);
  let depth = 0;
  let scanned = 0;
  PREFIX_CUT_RE.lastIndex = 0;
  for (let match = PREFIX_CUT_RE.exec(segment); match; match = PREFIX_CUT_RE.exec(segment)) {
    for (; scanned < match.index; scanned++) {
      const ch = segment[scanned];
      if (ch === '(' || ch === '[' || ch === '{') depth++;
      else if ((ch === ')' || ch === ']' || ch === '}') && depth > 0) depth--;
    }
    if (depth === 0 && match.index > 0) out.push(start + match.index);
  }
  return out;
}
