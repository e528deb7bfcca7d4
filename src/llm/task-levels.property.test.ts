import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { codePointLength } from '../core/text.js';
import { taskLevels } from './extractive-summary.js';

const CAPS = { origin: 80, brief: 200, summary: 600, detailed: 1800 } as const;
const ORDER = ['origin', 'brief', 'summary', 'detailed'] as const;

const token = fc.constantFrom(
  'cache:user:42',
  '2024-03-12T08:31:12Z',
  '14:03:12',
  '$301.77',
  'v2.1.0',
  'src/lake/writer.py',
  'https://docs.example.dev/a.b?x=1',
  'e.g.',
  'vs.',
  '数据库迁移',
  '👨‍👩‍👧',
  'Root cause:',
  'Fixed:',
  'because',
  'decided',
  '2024-02-12,',
  'on the 6th,',
  'limit:',
  '(see #241),',
);
const word = fc.oneof(fc.stringMatching(/^[a-z]{1,10}$/u), token);
const sentence = fc
  .array(word, { minLength: 1, maxLength: 30 })
  .map((words) => `${words.join(' ')}${['.', '!', '?', '', '。'][words.length % 5] ?? '.'}`);
const prose = fc.array(sentence, { minLength: 1, maxLength: 8 }).map((s) => s.join(' '));
const toolBlock = fc
  .array(
    fc.constantFrom(
      '$ npm test',
      '4 passed in 1.92s',
      '{"level":"info"}',
      '@@ -1,2 +1,3 @@',
      '+added',
      'at f (a.ts:1:2)',
    ),
    {
      maxLength: 8,
    },
  )
  .map((lines) => ['[tool:bash]', ...lines].join('\n'));
const block = fc.oneof(
  prose.map((p) => `[user]\n${p}`),
  prose.map((p) => `[assistant]\n${p}`),
  toolBlock,
  prose,
);
const transcript = fc.array(block, { maxLength: 40 }).map((blocks) => blocks.join('\n\n'));
const task = fc.record({
  label: fc.oneof(
    fc.constant(''),
    fc.array(word, { minLength: 1, maxLength: 14 }).map((w) => w.join(' ')),
  ),
  summary: fc.oneof(fc.constant(''), prose),
  context: transcript,
});

const collapse = (text: string): string => text.replace(/\s+/gu, ' ').trim();

/**
 * The pieces a level is made of: split at its separators (` — `, a line break, a `…` before a
 * space, which ends a clause opening or separates distant extracts), the `…` of a cut removed.
 */
function fragments(level: string): string[] {
  return level
    .split(/ — |\s?…(?=\s)|\n/u)
    .map((piece) => collapse(piece.replace(/…$/u, '')))
    .filter((piece) => piece.length > 0 && piece !== '…');
}

describe('taskLevels: properties', () => {
  it('keeps every level within its cap and no level longer than the next', () => {
    fc.assert(
      fc.property(task, ({ label, summary, context }) => {
        const levels = taskLevels({ label, summary, files: [], todos: [], context }, CAPS);
        for (const level of ORDER) expect(codePointLength(levels[level])).toBeLessThanOrEqual(CAPS[level]);
        for (let i = 0; i + 1 < ORDER.length; i++) {
          expect(codePointLength(levels[ORDER[i]!])).toBeLessThanOrEqual(
            codePointLength(levels[ORDER[i + 1]!]),
          );
        }
      }),
      { numRuns: 150 },
    );
  });

  it('makes every fragment a verbatim span of the input (modulo whitespace)', () => {
    fc.assert(
      fc.property(task, ({ label, summary, context }) => {
        const levels = taskLevels({ label, summary, files: [], todos: [], context }, CAPS);
        const input = collapse([label, summary, context].join('\n'));
        for (const level of ORDER) {
          for (const fragment of fragments(levels[level])) expect(input).toContain(fragment);
        }
      }),
      { numRuns: 150 },
    );
  });

  it('never tears a token: each is one of the input, or the opening of one marked with …', () => {
    fc.assert(
      fc.property(task, ({ label, summary, context }) => {
        const levels = taskLevels({ label, summary, files: [], todos: [], context }, CAPS);
        const tokens = new Set([label, summary, context].join('\n').split(/\s+/u));
        const opens = (cut: string): boolean => [...tokens].some((t) => t.startsWith(cut));
        for (const level of ORDER) {
          for (const raw of levels[level].split(/\s+/u)) {
            const bare = raw.replace(/^…/u, '');
            if (bare.length === 0 || bare === '—' || tokens.has(bare)) continue;
            const cut = bare.endsWith('…') ? bare.slice(0, -1) : undefined;
            expect(cut !== undefined && (cut.length === 0 || opens(cut)), `${level}: ${raw}`).toBe(true);
          }
        }
      }),
      { numRuns: 150 },
    );
  });

  it('ends every level at a sentence end, with …, or with a whole part the caller wrote (label, summary)', () => {
    fc.assert(
      fc.property(task, ({ label, summary, context }) => {
        const levels = taskLevels({ label, summary, files: [], todos: [], context }, CAPS);
        for (const level of ORDER) {
          const text = levels[level].trim();
          if (text.length === 0) continue;
          const ok =
            /[.!?。！？…]["'”’)\]»」』]*$/u.test(text) ||
            collapse(text).endsWith(collapse(label)) ||
            collapse(text).endsWith(collapse(summary));
          expect(ok, `${level}: ${text}`).toBe(true);
        }
      }),
      { numRuns: 150 },
    );
  });
});

describe('taskLevels: a transcript of our own', () => {
  const context = [
    '[user]',
    'The nightly export failed at 02:17 with a timestamp cast error after the dependency bump.',
    '',
    '[tool:bash]',
    '$ pytest tests/lake -q',
    '....                                   [100%]',
    '4 passed in 1.92s',
    '',
    '[assistant]',
    "Let me look at the writer first. The failing column carries nanosecond digits now; I'd rather not pin the library back.",
    '',
    '[tool:edit]',
    'plugins/lake/writer.py',
    '@@ -46,1 +46,2 @@',
    '+    allow_truncated_timestamps=True)',
    '',
    '[assistant]',
    'Fixed: the writer truncates ns to µs explicitly and the library stays on 15.0.0. Re-ran the export for 2024-03-08, it succeeded in 3m11s.',
  ].join('\n');

  it('leads with the label, gives the outcome, and never quotes tool output in brief or summary', () => {
    const levels = taskLevels(
      { label: 'Fix the export timestamp cast', summary: '', files: [], todos: [], context },
      CAPS,
    );
    expect(levels.origin.startsWith('Fix the export timestamp cast — ')).toBe(true);
    expect(levels.brief).toContain('Fixed: the writer truncates ns to µs explicitly');
    for (const level of [levels.brief, levels.summary]) {
      expect(level).not.toContain('passed in');
      expect(level).not.toContain('@@');
    }
  });

  it('puts the caller summary verbatim right after the label', () => {
    const summary = 'Export fixed; writer options changed.';
    const levels = taskLevels({ label: 'Fix export', summary, files: [], todos: [], context }, CAPS);
    // Every word of this label is in the outcome the brief gives, so the brief leaves it to the
    // views (they all show the label beside it) and starts with the caller's summary.
    expect(levels.brief.startsWith(`${summary} — Fixed: the writer truncates`)).toBe(true);
    // "Export fixed" says what the label says: the summary level does not say it twice.
    expect(levels.summary.startsWith(`${summary}\n`)).toBe(true);
    expect(levels.origin).toBe(`Fix export — ${summary}`);
  });

  it('gives the brief a first summary sentence of the caller that states the outcome', () => {
    const summary =
      'Investigated the cold-start regression on the dashboard and fixed it; launch p50 is back under 2 s.';
    const levels = taskLevels(
      { label: 'Fix the export timestamp cast', summary, files: [], todos: [], context },
      CAPS,
    );
    expect(levels.brief).toContain(summary);
    expect(codePointLength(levels.brief)).toBeLessThanOrEqual(CAPS.brief);
  });

  it('leads the brief with a label that adds words, shortened when it would crowd the outcome out', () => {
    const short = taskLevels(
      { label: 'Nightly lake export broke', summary: '', files: [], todos: [], context },
      CAPS,
    );
    expect(short.brief.startsWith('Nightly lake export broke — Fixed: the writer truncates')).toBe(true);
    // A long label stays whole while the outcome still fits beside it…
    const label =
      'Lake export broke after the dependency bump (ArrowInvalid on the loaded-at column, 2024-03-08 run)';
    const long = taskLevels({ label, summary: '', files: [], todos: [], context }, CAPS);
    expect(long.brief.startsWith(`${label} — Fixed: the writer truncates`)).toBe(true);
    expect([...long.brief].length).toBeLessThanOrEqual(CAPS.brief);
    // …and gives way to its opening when it would crowd the outcome out.
    const longer = `${label}, found on the morning after the nightly run and retried twice before anyone looked`;
    const crowded = taskLevels({ label: longer, summary: '', files: [], todos: [], context }, CAPS);
    expect(crowded.brief.startsWith('Lake export broke after the dependency bump… — Fixed:')).toBe(true);
    expect([...crowded.brief].length).toBeLessThanOrEqual(CAPS.brief);
  });
});

describe('taskLevels: what a brief says first', () => {
  const task = (context: string, label = 'Checkout latency alerts'): Parameters<typeof taskLevels>[0] => ({
    label,
    summary: '',
    files: [],
    todos: [],
    context,
  });

  it('says why (the cause found) before what came of it, even when the result sits at the end', () => {
    const context = [
      '[user]',
      'Checkout p99 latency alerts fire every evening around 19:00. Can you find out why?',
      '[tool:bash]',
      '$ kubectl top pods -n checkout',
      'checkout-api-7f9c   1430m   2011Mi',
      '[assistant]',
      'The evening spike lines up with the nightly report job. Root cause: the report job and checkout share one Postgres pool of 20 connections, so checkout requests queue behind the long report queries.',
      'I moved the report job to its own pool of 5 connections on the read replica.',
      '[tool:bash]',
      '$ npm test',
      'Tests  212 passed (212)',
      '[assistant]',
      "Checkout p99 latency stayed at 180 ms through tonight's report run, down from 2.4 s, and the latency alerts stayed quiet. All 212 tests pass and the change is deployed to production.",
    ].join('\n');
    const { brief } = taskLevels(task(context), CAPS);
    expect(brief).toContain('Root cause: the report job and checkout share one Postgres pool');
    expect(codePointLength(brief)).toBeLessThanOrEqual(CAPS.brief);
  });

  it('gives the room to the option a later sentence picks, shown without its list number unless its whole list is shown', () => {
    const context = [
      '[assistant]',
      'The image build takes 14 minutes because every layer is rebuilt on each push.',
      'Options:',
      '1. Bigger runners: faster, but the cost doubles and the layers are still rebuilt on every push.',
      '2. Cache the dependency layers in the registry with BuildKit cache mounts, keyed by the lockfile hash.',
      '3. Split the image into base and app images; more moving parts for the small team.',
      '[user]',
      'Going with 2.',
      '[tool:bash]',
      '$ docker buildx build --cache-from type=registry,ref=ci/cache .',
      ' => CACHED [deps 3/4] RUN npm ci',
      '[assistant]',
      'Done; the next push built in 3 minutes 10 seconds.',
    ].join('\n');
    const levels = taskLevels(task(context, 'Slow image builds in CI'), CAPS);
    for (const level of [levels.brief, levels.summary]) {
      expect(level).toContain('Cache the dependency layers in the registry with BuildKit cache mounts');
    }
    expect(levels.brief).not.toMatch(/(?:^|— |\n)2\. Cache/u);
    // A level with room for the whole list may show it numbered, and then says which was picked.
    if (/(?:^|\n)2\. Cache/u.test(levels.summary)) expect(levels.summary).toContain('Going with 2.');
  });

  it('reads the items of a list that a decision introduces as choices made', () => {
    const context = [
      '[user]',
      'Time to cut the 3.0 release. What we agreed on Monday:',
      '1. the Android build moves from the old NDK r21 to r26, because r21 cannot target API 34;',
      '2. we stop publishing the armv7 APK, which is under 1% of installs and doubles the build time;',
      '3. the changelog is generated from the merged pull requests.',
      'Please build and upload everything.',
      '[tool:bash]',
      '$ ./gradlew assembleRelease',
      'BUILD SUCCESSFUL in 6m 12s',
      '[assistant]',
      'Built and uploaded: the arm64 and x86_64 APKs are on the release page with their checksums, and the store listing shows 3.0.0.',
      'The upload script needed its token refreshed, which I did with the CI secret, and the Play console accepted the bundle on the second try.',
    ].join('\n');
    const { brief, summary } = taskLevels(task(context, 'Release 3.0'), CAPS);
    expect(brief).toContain('we stop publishing the armv7 APK');
    expect(summary).toContain('2. we stop publishing the armv7 APK');
  });

  it('fills the detailed level with every sentence when the prose fits it', () => {
    const lines = [
      '[user]',
      'The nightly invoice export to the billing warehouse keeps timing out after 40 minutes. Can you look?',
      '[assistant]',
    ];
    const checks = [
      'the replica lag',
      'the upload retries',
      'the COPY command',
      'the pool size',
      'the cron schedule',
    ];
    for (const [i, what] of checks.entries())
      lines.push(`I checked ${what} next: nothing unusual there, ${i + 3} samples looked normal.`);
    lines.push(
      'Root cause: the invoice export reads the whole invoices table through one cursor, and the warehouse export waits on it; it now streams in pages of 10,000 rows and finishes in 6 minutes.',
    );
    const { detailed, summary } = taskLevels(
      task(lines.join('\n'), 'Nightly invoice export times out'),
      CAPS,
    );
    for (const what of checks) expect(detailed).toContain(`I checked ${what} next`);
    expect(detailed).toContain('Root cause: the invoice export reads the whole invoices table');
    expect(summary).toContain('Root cause: the invoice export reads the whole invoices table');
  });

  it('holds both the cause found and the choice made when each is worth a fair share', () => {
    const context = [
      '[user]',
      'The resume of run-52 fails with a shape mismatch for the embedding table. Can you find out why?',
      '[tool:bash]',
      '$ git log --oneline -- tokenizers/shared',
      'a1b2c3d add 4 special tokens for tool calling',
      '[assistant]',
      'Confirmed: four special tokens were added to the shared tokenizer after run-52 started, because the run config points at the tokenizer by path (vocab 50000 -> 50004).',
      'Resizing the embeddings would work mechanically, but the new rows would be dead weight for a run whose data never contains those tokens, and its dashboards would no longer compare with its own first 8,000 steps.',
      'Pin run-52 to the tokenizer revision it was launched with instead of resizing.',
      '[tool:bash]',
      '$ sbatch resume.sh run-52',
      'Submitted batch job 88121',
      '[assistant]',
      'Resumed from step 8,000; the loss continues from 1.71 as before.',
    ].join('\n');
    const { brief } = taskLevels(task(context, 'Resume of run-52 fails'), CAPS);
    expect(brief).toContain('four special tokens were added to the shared tokenizer');
    expect(brief).toContain('Pin run-52 to the tokenizer revision');
    expect(codePointLength(brief)).toBeLessThanOrEqual(CAPS.brief);
  });

  it("gives the origin a clause of the caller's summary when its first sentence is too long", () => {
    const summary =
      'Export job OOMKilled after soft-deleted rows tripled its size; rewrote it to stream; added a slow-export alert.';
    const context = ['[assistant]', 'The export now streams rows through a cursor.'].join('\n');
    const short = taskLevels({ ...task(context, 'Fix export OOM'), summary }, CAPS).origin;
    expect(short).toBe('Fix export OOM — Export job OOMKilled after soft-deleted rows tripled its size…');
    // Too long for its clause as well: the clause cut at a word, still marked as going on.
    const long = taskLevels({ ...task(context, 'Fix the nightly export OOM'), summary }, CAPS).origin;
    expect(long).toBe('Fix the nightly export OOM — Export job OOMKilled after soft-deleted rows…');
    expect(codePointLength(long)).toBeLessThanOrEqual(CAPS.origin);
    // A cut that would keep less than half of the clause says nothing: the label stands alone.
    const crowded = 'Fix the nightly export OOM in production';
    expect(taskLevels({ ...task(context, crowded), summary }, CAPS).origin).toBe(crowded);
  });

  it("gives the origin what came of the work before the user's report or request", () => {
    const context = [
      '[user]',
      'The nightly export job has been failing since Tuesday.',
      '[assistant]',
      'Exit code 137 means the kernel killed it for memory.',
      'Commit a91c2e0 added soft-deleted rows, which roughly tripled the row count (1.1M to 3.4M rows), so the in-memory CSV no longer fits in 512Mi.',
      '[user]',
      'Ship it, and add an alert if the export takes longer than 20 minutes.',
      '[assistant]',
      'Done.',
    ].join('\n');
    const { origin } = taskLevels(task(context, 'Task 12'), CAPS);
    expect(origin).toMatch(/^Task 12 — Commit a91c2e0 added soft-deleted rows/u);
    // With nothing but the user's words to go on, they still give the gist.
    const alone = ['[user]', 'Ship the export fix today and add a slow-export alert.'].join('\n');
    expect(taskLevels(task(alone, 'Export OOM'), CAPS).origin).toBe(
      'Export OOM — Ship the export fix today and add a slow-export alert.',
    );
  });

  it('gives an origin gist only when the sentence says something', () => {
    const context = ['[assistant]', 'Found it.', 'Done, thanks.'].join('\n');
    const { origin } = taskLevels(task(context, 'Look at the disk alert'), CAPS);
    expect(origin).toBe('Look at the disk alert');
  });
});
