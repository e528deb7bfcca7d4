import { describe, expect, it } from 'vitest';
import { LEVEL_CAPS } from '../core/model/levels.js';
import { codePointLength } from '../core/text.js';
import { taskLevels } from './extractive-summary.js';

const flat = (text: string): string => text.replace(/\s+/gu, ' ');

/** A made-up session: a cause found in the middle, the fix stated at the end, tool output between. */
function session(): string {
  const log = Array.from(
    { length: 30 },
    (_, i) => `2025-01-0${(i % 9) + 1}T10:${String(i).padStart(2, '0')}:00Z worker-7 job=${4000 + i} ok`,
  ).join('\n');
  return [
    '[user]',
    'The nightly export to the billing warehouse has been late every night this week. Please find out why.',
    '[tool:bash]',
    '$ tail -n 30 /var/log/export/worker.log',
    log,
    '[assistant]',
    'The queue drains one job at a time. Root cause: the 2.4 config template (rolled out on Monday with the new runner images) set export.workers to 1 instead of 8, so every batch waits for the one before it.',
    'I checked the warehouse side as well; its load times are normal.',
    '[tool:edit]',
    'deploy/export.yaml',
    '@@ -3,1 +3,1 @@',
    '-  workers: 1',
    '+  workers: 8',
    '[assistant]',
    'Fix: set export.workers back to 8 and refuse fewer than 4 workers at startup.',
    'A template change can no longer slow the export silently.',
    'Last night the export finished at 02:10 instead of 05:40.',
  ].join('\n');
}

describe('taskLevels: the summary level', () => {
  it('keeps the cause found beside a labelled decision, rather than leaving its room empty', () => {
    const trace = Array.from(
      { length: 30 },
      (_, i) => `    at Object.<anonymous> (node_modules/pg-pool/index.js:${45 + i}:${11 + (i % 7)})`,
    ).join('\n');
    const context = [
      '[user]',
      'We get bursts of 500s from the API when traffic goes up. Sentry shows "sorry, too many clients already".',
      '[tool:bash]',
      '$ kubectl logs deploy/api --since=1h | grep -m1 -A32 "too many clients"',
      'error: sorry, too many clients already',
      trace,
      '[tool:bash]',
      '$ psql -c "show max_connections" -c "select count(*) from pg_stat_activity"',
      ' max_connections',
      '-----------------',
      ' 200',
      ' count',
      '-------',
      '   200',
      '[assistant]',
      'The autoscaler took the API from 8 to 24 pods at the peak, and each pod opens a pool of up to 10 connections, so 240 connections against max_connections 200. Raising max_connections would cost memory on the database for connections that mostly sit idle.',
      '[assistant]',
      'Decision: put PgBouncer in transaction pooling mode between the API and Postgres (default_pool_size 60), and lower the per-pod pool to 4. The database then sees at most 60 server connections however many pods run.',
      '[tool:bash]',
      '$ hey -z 60s -c 400 https://api.staging.internal/v1/orders | grep -E "Requests/sec|\\[5"',
      '  Requests/sec:\t1843.2',
      '[assistant]',
      'Under a 400-client load test on staging there are no 5xx responses (1,843 requests/s) and Postgres shows 58 connections.',
    ].join('\n');
    const { summary } = taskLevels(
      {
        label: 'API errors: too many clients already',
        summary: 'The API returned 500s under load: "sorry, too many clients already".',
        files: [],
        todos: [],
        context,
      },
      LEVEL_CAPS,
    );
    expect(summary).toContain('so 240 connections against max_connections 200');
    expect(summary).toContain('Decision: put PgBouncer in transaction pooling mode');
    expect(codePointLength(summary)).toBeLessThanOrEqual(LEVEL_CAPS.summary);
  });
});

describe('taskLevels: the brief', () => {
  const levels = taskLevels(
    { label: 'Nightly billing export is late', summary: '', files: [], todos: [], context: session() },
    LEVEL_CAPS,
  );

  it('holds the cause found and the fix made, within its cap, on one line', () => {
    expect(codePointLength(levels.brief)).toBeLessThanOrEqual(LEVEL_CAPS.brief);
    expect(levels.brief).not.toMatch(/\n/u);
    expect(levels.brief).toMatch(/Root cause: the 2\.4 config template/u);
    expect(levels.brief).toMatch(/Fix: set export\.workers back to 8/u);
  });

  it('leads with the ", so" that tells what followed, not one that gives the purpose of a step', () => {
    const context = [
      '[user]',
      'Uploads over 1 GB fail with a 502 since Friday. Nothing changed in the upload service.',
      '[tool:bash]',
      '$ kubectl get events -n media --field-selector reason=OOMKilling | tail -2',
      '12m  Warning  OOMKilling  pod/uploader-7d9c  Memory cgroup out of memory: Killed process 1 (node)',
      '31m  Warning  OOMKilling  pod/uploader-7d9c  Memory cgroup out of memory: Killed process 1 (node)',
      '[assistant]',
      'The uploader pods were OOM killed during every large upload. The new virus scanner client reads the whole upload into memory before it scans it, so a 2 GB file filled the pod and the proxy answered 502.',
      'I see two changes. First, stream each upload to the scanner in 8 MB parts instead of one buffer. Second, move the scan to the upload worker queue and answer the upload request at once, so the client never waits on the scanner.',
      '[user]',
      'Do both.',
      '[assistant]',
      'Both are in: uploads of 1, 2 and 4 GB went through, and the pods stayed under 300 MB.',
    ].join('\n');
    const { brief } = taskLevels(
      { label: 'Large uploads fail with 502', summary: '', files: [], todos: [], context },
      LEVEL_CAPS,
    );
    expect(brief).toMatch(
      /The new virus scanner client reads the whole upload into memory before it scans it/u,
    );
    expect(brief).not.toMatch(/so the client never waits/u);
  });

  it('gives an opening of a sentence the cue after it, not a cue further on: no cause from a later ", so"', () => {
    const context = [
      '[user]',
      'Merchants say newly published products take up to an hour to appear in search. Why?',
      '[tool:bash]',
      "$ grep -rn 'subscribe(' services/indexer/src/consumer.ts",
      "14:  bus.subscribe('product.updated', onProductChange);",
      '[assistant]',
      'The indexer only listens to product.updated and product.deleted. Publishing emits product.published, which it ignores, so a new product is only indexed by the hourly full sweep.',
      '[user]',
      'Add the subscription. Do we need to backfill?',
      '[assistant]',
      'The indexer now handles product.published, so a product is searchable seconds after it is published. The hourly sweep already picked up everything older than an hour; only the 212 products published this week that were later edited could be stale, so a one-off backfill of those is on the todo list.',
    ].join('\n');
    const { brief } = taskLevels(
      {
        label: 'Search results missing new products',
        summary:
          'New products did not show in search for up to an hour; the indexer now reindexes on publish.',
        files: [],
        todos: [],
        context,
      },
      LEVEL_CAPS,
    );
    // Before: "… — The hourly sweep already picked up everything older than an hour…", an opening
    // offered as the cause because its sentence goes on, past a "; ", with ", so a backfill …".
    expect(brief).not.toMatch(/The hourly sweep/u);
    expect(brief).toMatch(/product\.(?:updated|published)/u);
  });

  it('weighs a lower-case point of a list less than the sentence it goes on from', () => {
    const context = [
      '[user]',
      'The nightly report says the Berlin office booked 25 hours on March 31. Nobody works 25 hours.',
      '[assistant]',
      'The report adds up local wall-clock times, and March 31 had a daylight saving change. For the Berlin rows that day the numbers look like this:',
      '- the office clock jumped from 02:00 to 03:00, so the day was 23 hours long;',
      '- the summing code still assumes 24 hours and pads the missing hour twice.',
      'Fix: sum durations in UTC and convert to local time only for display.',
    ].join('\n');
    const { brief } = taskLevels(
      { label: 'Wrong hour totals in the nightly report', summary: '', files: [], todos: [], context },
      LEVEL_CAPS,
    );
    // Before: "… — the office clock jumped from 02:00 to 03:00, so the day was 23 hours long; … Fix: …",
    // a point that reads as a fragment without the sentence it goes on from.
    expect(brief).not.toMatch(/— the |^the /u);
    expect(brief).toMatch(/Fix: sum durations in UTC/u);
  });

  it('reads no cue word inside a branch, path or identifier', () => {
    const context = [
      '[user]',
      'Checkout totals are a cent off for some orders. Can you look?',
      '[assistant]',
      'Line prices were summed as floats and rounded once at the end, so 0.1 + 0.2 style errors crossed a rounding boundary.',
      'Changed the totals to sum integer cents.',
      '[tool:bash]',
      '$ npm test -- totals',
      'Tests: 48 passed',
      '[assistant]',
      'Totals now match the ledger for all 1,204 March orders.',
      'The branch is fix/checkout-rounding; the backfill is scripts/migrate_order_totals.sh.',
    ].join('\n');
    const { brief } = taskLevels(
      { label: 'Checkout totals off by a cent', summary: '', files: [], todos: [], context },
      LEVEL_CAPS,
    );
    // Before: "… Totals now match the ledger … The branch is fix/checkout-rounding…": the "fix" of the
    // branch's name and the "migrat" of the script's counted as words that state an outcome.
    expect(brief).not.toMatch(/fix\/checkout-rounding|migrate_order_totals/u);
    expect(brief).toMatch(/summed as floats/u);
  });

  it('reads a transcript whose bracket headers carry the turn on the same line (`[user] …`)', () => {
    const context = [
      '[user] In the web app the cart badge does not update after "Add all ingredients" on a recipe page. Can you find out why?',
      '',
      '[assistant] I will check how the header reads the cart count and how the recipe button changes the cart.',
      '',
      '[tool: bash] grep -rn "useSWR\\|mutate(" src | grep -i cart',
      '[tool output]',
      "src/header/CartBadge.tsx:8:  const { data } = useSWR(['/api/cart', session?.id], fetchCart)",
      "src/recipes/AddIngredientsButton.tsx:31:  await mutate('/api/cart')",
      '',
      "[assistant] The badge subscribes to the key ['/api/cart', sessionId], but the recipe button revalidates the plain string, so the badge is never told to refetch.",
      '',
      '[tool: bash] npm test -- cart',
      '[tool output]',
      'Tests: 12 passed, 12 total',
      '',
      '[assistant] Done: added a cartKey() helper and switched all three callers to it; the badge now updates after a bulk add.',
    ].join('\n');
    const { brief, summary } = taskLevels(
      { label: 'Cart badge stale after recipe bulk add', summary: '', files: [], todos: [], context },
      LEVEL_CAPS,
    );
    // Before: the turns were not read as turns; tool output ran from the first `[tool output]` to
    // the end, and the brief was the user's request.
    expect(brief).toMatch(/revalidates the plain string|cartKey\(\) helper/u);
    expect(brief).not.toMatch(/Can you find out why/u);
    expect(summary).not.toMatch(/Tests: 12 passed|useSWR/u);
  });

  it('is made of verbatim spans of the input, marked where an aside or the rest of a sentence is left out', () => {
    const input = flat(session());
    const pieces = levels.brief
      .split(/ — | … |…/u)
      .map((piece) => piece.trim())
      .filter((piece) => piece.length > 0 && piece !== 'Nightly billing export is late');
    expect(pieces.length).toBeGreaterThanOrEqual(2);
    for (const piece of pieces) expect(input).toContain(piece);
  });

  it('keeps tool output out of the brief and the summary', () => {
    for (const text of [levels.brief, levels.summary]) expect(text).not.toMatch(/worker-7 job=/u);
  });
});

/** A session whose user relays a decision made elsewhere, then asks for work the rest is about. */
function relayedDecision(): string {
  const log = Array.from(
    { length: 24 },
    (_, i) =>
      `2025-02-1${i % 10}T03:${String(i).padStart(2, '0')}:11Z session-api pod=${i % 3} login latency_ms=${900 + i * 7}`,
  ).join('\n');
  return [
    '[user]',
    "From Tuesday's platform sync: we're keeping the current store, not moving to Memcached.",
    'Logins time out every night around 03:00 in the session service, so please find out why and fix it there.',
    '[tool:bash]',
    '$ kubectl logs deploy/session-api --since=2h | grep login',
    log,
    '[assistant]',
    'The login latency climbs from 40 ms to over 900 ms between 03:00 and 03:20 on every session-api pod, and the session service logs a Redis timeout for each slow login request in that window.',
    'The Redis instance for the session service runs its nightly snapshot at 03:00, and the session service waits on every Redis call while the snapshot forks the instance and copies its memory pages.',
    '[assistant]',
    'The session service now keeps a local cache of recent Redis session reads, and the nightly snapshot of the session Redis instance now runs on the replica at 03:00, so login latency in the session service stays near 40 ms all night.',
    'Login latency on every session-api pod stayed under 60 ms through the 03:00 snapshot window last night, and the session service logged no Redis timeout.',
  ].join('\n');
}

describe('taskLevels: what the user settled and what the caller wrote', () => {
  it('brings a decision relayed from a meeting at the start into the brief', () => {
    const levels = taskLevels(
      {
        label: 'Night login timeouts in the session service',
        summary: '',
        files: [],
        todos: [],
        context: relayedDecision(),
      },
      LEVEL_CAPS,
    );
    expect(levels.brief).toMatch(/keeping the current store, not moving to Memcached/u);
    // The request that follows ("…, so please find out why") is not taken for a cause found.
    expect(levels.brief).not.toMatch(/please find out why/u);
  });

  it('leads the brief with a caller summary that restates the label, without repeating the label', () => {
    const label = 'Logins fail at night';
    const summary = 'Logins fail at night because of the Redis snapshot; fixed by moving it to the replica.';
    const levels = taskLevels(
      { label, summary, files: [], todos: [], context: relayedDecision() },
      LEVEL_CAPS,
    );
    expect(levels.brief.startsWith(summary)).toBe(true);
    expect(levels.brief.split(label).length - 1).toBe(1);
    expect(codePointLength(levels.brief)).toBeLessThanOrEqual(LEVEL_CAPS.brief);
  });
});

describe('taskLevels: shorter forms for the brief', () => {
  const context = [
    '[user]',
    'The nightly report job has been skipping the EU tenants since the weekend. Why?',
    '[assistant]',
    'The scheduler logs show the EU tenants being listed and then dropped before any report is rendered for them, on every run since Saturday, while the US tenants render as before.',
    'Found it: the tenant filter compares region codes case-sensitively, and the config loader change on Friday lower-cased every region code read from tenants.yaml while the report job still asks for "EU".',
    'Fix: compare region codes without regard to case; the EU reports for Saturday to Monday were sent again.',
  ].join('\n');

  it('keeps the caller summary sentence verbatim, then the cause without its filler lead-in beside the fix', () => {
    const summary = 'Looked into the missing EU tenant reports and re-sent the last three days.';
    const levels = taskLevels(
      { label: 'Nightly report job skips EU tenants', summary, files: [], todos: [], context },
      LEVEL_CAPS,
    );
    expect(levels.brief).toContain(summary);
    expect(levels.brief).toMatch(/the tenant filter compares region codes case-sensitively/u);
    expect(levels.brief).not.toMatch(/Found it/u);
    expect(levels.brief).toMatch(/Fix: compare region codes without regard to case/u);
    expect(codePointLength(levels.brief)).toBeLessThanOrEqual(LEVEL_CAPS.brief);
  });
});

describe('taskLevels: a cause announced by "Found it."', () => {
  it('reads the sentence after a bare "Found it." as the cause found, though it has no cue word', () => {
    const context = [
      '[user]',
      'The CSV import drops the last row of every file from the billing tool. Why?',
      '[tool:bash]',
      '$ wc -l exports/*.csv | tail -3',
      '  1201 exports/2025-03-01.csv',
      '  1198 exports/2025-03-02.csv',
      '  2399 total',
      '[assistant]',
      'The importer reads each CSV file in 64 KB chunks and parses every complete row of a chunk as soon as the chunk arrives.',
      'Found it.',
      'The chunk reader keeps the final partial row only when the file ends with a newline, and the billing tool writes its files without one.',
      'Every CSV file from the billing tool now imports all its rows; the importer also reads the final partial row at the end of a file.',
    ].join('\n');
    const { brief } = taskLevels(
      { label: 'CSV import drops the last row', summary: '', files: [], todos: [], context },
      LEVEL_CAPS,
    );
    expect(brief).toMatch(
      /The chunk reader keeps the final partial row only when the file ends with a newline/u,
    );
  });

  it('reads the sentence before "That\'s why …" as the cause found, though it has no cue word', () => {
    const context = [
      '[user]',
      'The greenhouse dashboard shows 80-degree nights since Monday. The plants look fine. Can you check?',
      '[tool:bash]',
      '$ curl -s localhost:9100/metrics | grep greenhouse_temp | head -3',
      'greenhouse_temp{sensor="north-1",fw="3.2"} 79.8',
      'greenhouse_temp{sensor="north-2",fw="3.1"} 26.4',
      'greenhouse_temp{sensor="south-1",fw="3.2"} 80.6',
      '[assistant]',
      'I compared the readings of every sensor with the greenhouse log for the last seven days.',
      'The sensors on firmware 3.2, installed on Monday, report Fahrenheit while the dashboard expects Celsius.',
      "That's why only this week's nights look too hot.",
      'I added a conversion step to the collector for firmware 3.2 and newer, and backfilled the seven days of readings.',
      'The dashboard now shows 26 to 27 degrees for every sensor at night, in line with the greenhouse log for the week.',
    ].join('\n');
    const { brief } = taskLevels(
      { label: 'Greenhouse dashboard shows hot nights', summary: '', files: [], todos: [], context },
      LEVEL_CAPS,
    );
    expect(brief).toMatch(/report Fahrenheit while the dashboard expects Celsius/u);
    expect(brief).not.toMatch(/That's why/u);
  });

  it('leads with the cause found over a sentence that says what holds now and why', () => {
    const log = Array.from(
      { length: 12 },
      (_, i) => `2025-02-1${i % 10}T06:0${i % 10}:00Z mailer job=weekly-report rows=0 sent=true`,
    ).join('\n');
    const context = [
      '[user]',
      'The weekly sales report went out empty on Monday. Can you look?',
      '[tool:bash]',
      '$ grep weekly-report /var/log/mailer.log | tail -12',
      log,
      '[assistant]',
      "The report query timed out because Friday's migration dropped the orders table's created_at index.",
      "I restored the index and re-sent Monday's report to the sales list.",
      'The mailer now refuses to send a report without rows, so a failed query pages the on-call engineer instead of mailing nothing.',
    ].join('\n');
    const { brief } = taskLevels(
      {
        label: 'Weekly sales report email was empty',
        summary: 'The weekly report went out empty; restored the index and re-sent it.',
        files: [],
        todos: [],
        context,
      },
      LEVEL_CAPS,
    );
    expect(brief).toMatch(/because Friday's migration dropped the orders table's created_at index/u);
  });

  it('weighs the announced cause as a labelled one: it leads the brief over a closing note that repeats the label', () => {
    const context = [
      '[user]',
      "The /api/search endpoint got really slow after yesterday's deploy. p95 went from ~120ms to 2.4s. Can you find out why?",
      '[tool:bash]',
      '$ git log --oneline v3.8.1..v3.8.2',
      'e41a9b7 search: add fuzzy matching on product titles (#1532)',
      '[assistant]',
      'The fuzzy matching change looks like the prime suspect. Let me look at the query plan.',
      '[tool:bash]',
      ' Seq Scan on products  (actual time=0.311..2380.220 rows=1412 loops=1)',
      ' Execution Time: 2391.611 ms',
      '[assistant]',
      'Found it. The query calls similarity() as a function in the WHERE clause, which no index can serve, so Postgres scans all 412k products and computes the trigram similarity for each one.',
      "There's no trigram index at all. I'll add a GIN index on title with gin_trgm_ops and use the % operator.",
      '[assistant]',
      'With the index, the same query takes 38 ms instead of 2.39 s. The migration uses CREATE INDEX CONCURRENTLY, so it will not lock the table during the deploy.',
      '[assistant]',
      'I opened PR #1541 with the migration and the query change; after it deploys, p95 on /api/search should return to about 120 ms.',
    ].join('\n');
    const { brief } = taskLevels(
      { label: 'Slow /api/search after v3.8.2', summary: '', files: [], todos: [], context },
      LEVEL_CAPS,
    );
    expect(brief).toMatch(/similarity\(\) as a function in the WHERE clause/u);
  });
});

describe('taskLevels: a caller summary that restates the label', () => {
  it('says the label once in the summary and detailed levels', () => {
    const label = 'Speed up the nightly billing export';
    const levels = taskLevels(
      {
        label,
        summary: 'Sped up the nightly billing export. It now runs with 8 workers and finishes by 02:10.',
        files: ['deploy/export.yaml'],
        todos: [],
        context: session(),
      },
      LEVEL_CAPS,
    );
    for (const level of ['summary', 'detailed'] as const) {
      expect(levels[level].startsWith('Sped up the nightly billing export.')).toBe(true);
      expect(levels[level]).not.toContain(label);
    }
  });

  it('keeps the label above a caller summary about something else', () => {
    const levels = taskLevels(
      {
        label: 'Nightly billing export is late',
        summary: 'It now runs with 8 workers and finishes by 02:10.',
        files: [],
        todos: [],
        context: session(),
      },
      LEVEL_CAPS,
    );
    expect(levels.summary.startsWith('Nightly billing export is late\nIt now runs with 8 workers')).toBe(
      true,
    );
  });
});

describe('taskLevels: a `Human:` / `Assistant:` transcript with tool calls on header lines', () => {
  const context = [
    'Human: The orders export to the finance SFTP fails since last night; the cron mail only says "exit status 1".',
    '',
    "Assistant: I'll start with the job's log.",
    '',
    '[Tool call: bash]',
    'tail -n 3 /var/log/exports/orders-sftp.log',
    '',
    '[Tool result]',
    '2024-05-21T01:00:10Z INFO  connecting sftp.finance.example.com:22 user=exporter',
    '2024-05-21T01:00:11Z ERROR ssh: handshake failed: no common algorithm for host key',
    '',
    'Assistant: Found it. Our exporter pins HostKeyAlgorithms to ssh-rsa (SHA-1), which the finance server stopped accepting on Monday.',
    '',
    'There are two ways to fix it:',
    '1. Allow rsa-sha2-512 and rsa-sha2-256 after upgrading golang.org/x/crypto.',
    "2. Switch to the server's ed25519 host key.",
    '',
    'Human: Go with 1 for now.',
    '',
    '[Tool call: bash]',
    'cd exporter && go get golang.org/x/crypto@v0.23.0 && go test ./...',
    '',
    '[Tool result]',
    'ok  	example.com/exporter	0.412s',
    '',
    'Assistant: Done. The export for 2024-05-20 is uploaded, and the exporter now offers rsa-sha2-512 and rsa-sha2-256.',
  ].join('\n');
  const levels = taskLevels(
    { label: 'Orders export to finance SFTP failing', summary: '', files: [], todos: [], context },
    LEVEL_CAPS,
  );

  it("reads the assistant's turns after a tool result as prose, not as the tool's output", () => {
    expect(levels.brief).toContain('pins HostKeyAlgorithms to ssh-rsa');
    expect(levels.summary).toContain('The export for 2024-05-20 is uploaded');
    expect(levels.summary).not.toContain('ERROR');
  });

  it('keeps the numbers of a list shown whole after the sentence that introduces it ("Go with 1" refers to them)', () => {
    expect(levels.detailed).toContain(
      "There are two ways to fix it:\n1. Allow rsa-sha2-512 and rsa-sha2-256 after upgrading golang.org/x/crypto.\n2. Switch to the server's ed25519 host key.",
    );
  });

  it('gives the origin no sentence that only announces a list', () => {
    expect(levels.origin).not.toContain('two ways to fix it');
  });
});

describe("taskLevels: Claude Code's terminal transcript", () => {
  const context = [
    '> the nightly invoice job crashed again with "KeyError: \'currency\'", can you fix it?',
    '',
    "⏺ I'll look at the job and the failing record.",
    '',
    '⏺ Bash(python -m billing.nightly --date 2024-06-03 --dry-run 2>&1 | tail -n 4)',
    '  ⎿  Traceback (most recent call last):',
    '       File "billing/nightly.py", line 88, in build_invoice',
    '         amount = Money(line["amount"], line["currency"])',
    "     KeyError: 'currency'",
    '',
    '⏺ Found it. Line items created by the new partner API since May 30 have no currency field: the partner integration stores the currency once on the order, and build_invoice reads it from the line.',
    '',
    '⏺ Update(billing/nightly.py)',
    '  ⎿  Updated billing/nightly.py with 2 additions and 1 removal',
    '       87 -        amount = Money(line["amount"], line["currency"])',
    '       87 +        currency = line.get("currency") or order["currency"]',
    '',
    '⏺ Bash(pytest tests/billing -q)',
    '  ⎿  40 passed in 3.21s',
    '',
    "⏺ Fixed: a line item without its own currency now takes the order's currency, so partner orders invoice again. I re-ran the job for June 3: 1,284 invoices built, none failed.",
  ].join('\n');
  const levels = taskLevels(
    {
      label: 'Nightly invoice job crashes with KeyError currency',
      summary: '',
      files: [],
      todos: [],
      context,
    },
    LEVEL_CAPS,
  );

  it('summarises what was said, without the markers or the tool output', () => {
    expect(levels.summary).toContain('have no currency field');
    expect(levels.summary).toContain("takes the order's currency");
    for (const level of ['origin', 'brief', 'summary', 'detailed'] as const) {
      expect(levels[level]).not.toMatch(/⏺|⎿|Traceback|passed in/u);
    }
  });
});

describe('taskLevels: a brief packed with a shorter form', () => {
  it('cuts the fix before its trailing ", which" clause when that leaves room for the sentence that says what went wrong', () => {
    const context = [
      '[user]',
      'Top crash in 3.9.1: "Index out of range" in ReceiptHeaderView.swift:41, 812 users. It happens whenever the store name on a receipt has accents, like "Café Müller am Hauptbahnhof".',
      '[tool:bash]',
      '$ grep -n "count" Sources/Receipts/ReceiptHeaderView.swift',
      '38:    guard name.utf8.count > maxLength else { return name }',
      '41:    return String(name[..<name.index(name.startIndex, offsetBy: maxLength)])',
      '[assistant]',
      'The store name "Café Müller am Hauptbahnhof" is 27 Characters but 29 UTF-8 bytes.',
      'The check counts UTF-8 bytes of the store name, but the cut walks Characters.',
      'Fix: check and cut in Characters, with prefix(_:), which cannot run past the end.',
      'Let me look for the same pattern elsewhere.',
      '[user]',
      'Good. Put it in 3.9.2 and ask for an expedited review.',
    ].join('\n');
    const label = 'Crash in ReceiptHeaderView when a store name has accents';
    const { brief } = taskLevels(
      {
        label,
        summary: '',
        files: [],
        todos: [],
        context,
      },
      LEVEL_CAPS,
    );
    // The whole fix (81 code points) beside the label leaves no room for either sentence naming
    // the two units; its opening up to ", which" does.
    expect(brief).toMatch(/Fix: check and cut in Characters, with prefix\(_:\)…/u);
    expect(brief).toMatch(/UTF-8 bytes/u);
    expect(codePointLength(brief)).toBeLessThanOrEqual(LEVEL_CAPS.brief);
    for (const piece of brief
      .split(/ — | … |…/u)
      .map((p) => p.trim())
      .filter((p) => p.length > 0 && p !== label)) {
      expect(flat(context)).toContain(piece);
    }
  });
});

describe('taskLevels: an opening before a trailing clause says the point whole', () => {
  it('weighs the fix cut before ", which" nearly as the whole fix, so the cause it answers joins it', () => {
    const context = [
      '[user]',
      'Top crash in 3.9.1: "Index out of range" in ReceiptHeaderView.swift:41, 812 users. It happens whenever the store name on a receipt has accents, like "Café Müller am Hauptbahnhof".',
      '[assistant]',
      '"Café Müller am Hauptbahnhof" is 27 Characters but 29 UTF-8 bytes.',
      'The guard counts UTF-8 bytes of the store name, but the cut walks Characters.',
      'Fix: check and cut the name in Characters, with prefix(_:), which cannot run past the end.',
      'Let me look for the same pattern elsewhere.',
      '[user]',
      'Good. Put it in 3.9.2 and ask for an expedited review.',
    ].join('\n');
    const { brief } = taskLevels(
      {
        label: 'Crash in ReceiptHeaderView when a store name has accents',
        summary: '',
        files: [],
        todos: [],
        context,
      },
      LEVEL_CAPS,
    );
    // Adjacent in the text, so joined without a `…` between them.
    expect(brief).toContain(
      'The guard counts UTF-8 bytes of the store name, but the cut walks Characters. Fix: check and cut the name in Characters, with prefix(_:)…',
    );
    expect(codePointLength(brief)).toBeLessThanOrEqual(LEVEL_CAPS.brief);
  });
});

describe('taskLevels: a sentence that introduces tool output', () => {
  it('leaves out "Alerts:" and the like, whose block no level shows', () => {
    const alerts = Array.from(
      { length: 12 },
      (_, i) =>
        `{"alertname":"Gateway5xxHigh","severity":"page","startsAt":"2024-03-12T14:${String(i + 5).padStart(2, '0')}:00Z"}`,
    ).join('\n');
    const context = [
      '[user]',
      'Fill in the timeline and the impact of last Tuesday’s ingest outage in the postmortem.',
      '[assistant]',
      'The gateway errors began at 14:04 right after the 2.14.0 rollout, when the new chart set upstream_keepalive to 0 and every request opened a new connection to device-api.',
      'Alerts:',
      '[tool:bash]',
      "$ curl -s http://alertmanager:9093/api/v2/alerts | jq -c '.[]'",
      alerts,
      '[assistant]',
      'Detection took 4 minutes because Gateway5xxHigh needs 3 minutes above 2% before it pages.',
      'Now the device-api side:',
      '[tool:bash]',
      '$ kubectl -n device-api logs deploy/device-api --since=2h | grep -c "too many open connections"',
      '18234',
      '[assistant]',
      'device-api hit its 4,096 connection limit at 14:04:50 and rejected new handshakes until the rollback at 14:19.',
      'Impact: 182,344 5xx responses out of 1,899,418 requests, 9.6% of ingest traffic in the window.',
      ...Array.from(
        { length: 14 },
        (_, i) =>
          `At 14:${String(20 + i).padStart(2, '0')} the alerts on replica ${i + 1} of the gateway (${300 + i * 7} open sockets) resolved as the rollback reached pod group ${String.fromCharCode(65 + i)}.`,
      ),
      'Timeline and impact are written into the postmortem draft.',
    ].join('\n');
    const levels = taskLevels(
      { label: 'Alerts and timeline of the ingest outage', summary: '', files: [], todos: [], context },
      LEVEL_CAPS,
    );
    for (const level of ['brief', 'summary', 'detailed'] as const) {
      expect(levels[level]).not.toMatch(/Alerts:|device-api side:/u);
    }
    // The prose is longer than the detailed level: the level is a choice of sentences, not all of them.
    const prose = context
      .split('\n')
      .filter((line) => /^[A-Z][^{$]*[.:]$/u.test(line) && !line.startsWith('['));
    expect(codePointLength(prose.join(' '))).toBeGreaterThan(LEVEL_CAPS.detailed);
    expect(flat(levels.detailed)).toContain('Detection took 4 minutes');
    expect(flat(levels.detailed)).toContain('182,344 5xx responses');
  });
});

describe("taskLevels: the reply to the user's question about a cause", () => {
  it('reads the first reply to "What happened?" as the cause, even without a cue word', () => {
    const plan = Array.from({ length: 20 }, (_, i) => `  ${i + 1}  Seq Scan on invoices_2024_${i}`).join(
      '\n',
    );
    const context = [
      '[user]',
      'The invoice export froze for twenty minutes last night and the billing page timed out. What happened?',
      '[assistant]',
      'Let me check the database first.',
      '[tool:bash]',
      '$ psql -c "select pid, state, wait_event from pg_stat_activity"',
      plan,
      '[assistant]',
      'The nightly vacuum of invoices held a lock on the partition table while the export rebuilt its index, and the billing queries waited behind both.',
      'I moved the vacuum to 04:00 and gave the export a lock timeout of 5 s, with a retry in the export job.',
      '[tool:bash]',
      '$ ./export.sh --dry-run',
      'export ok in 41 s',
      '[assistant]',
      'The export now finishes in 41 s on a copy of last night’s data, and the billing page answers while it runs.',
      'Tonight’s run will be watched by the usual export alert; nothing else changes for the billing team.',
    ].join('\n');
    const { brief } = taskLevels(
      {
        label: 'Invoice export froze the billing page',
        summary: 'Moved the vacuum and gave the export a lock timeout; the billing page stays up.',
        files: [],
        todos: [],
        context,
      },
      LEVEL_CAPS,
    );
    expect(brief).toMatch(/vacuum of invoices held a lock|billing queries waited/u);
    expect(brief).not.toContain('Let me check');
  });
});

describe('taskLevels: the origin of a task that picked an item of a list', () => {
  it('shows the picked item without its number', () => {
    const context = [
      '[user]',
      'We need to store money amounts in the new ledger service. What should the column type be?',
      '[assistant]',
      'Options:',
      '1. NUMERIC(19,4) in Postgres: exact, but every service must agree on the scale.',
      '2. Integer minor units (BIGINT) with the currency exponent from ISO 4217: exact and fast to sum.',
      '3. Floating point: fast, but rounding errors show up in totals.',
      'Going with 2.',
    ].join('\n');
    const { origin } = taskLevels(
      { label: 'Money type for the ledger', summary: '', files: [], todos: [], context },
      LEVEL_CAPS,
    );
    expect(origin).toContain('Integer minor units');
    expect(origin).not.toMatch(/— 2\./u);
  });
});

describe('taskLevels: the options a later sentence did not pick', () => {
  it('does not give the brief an option not taken as if it were the outcome', () => {
    const context = [
      '[user]',
      'rivet check prints every finding twice on Windows when the hook passes explicit file names.',
      '[assistant]',
      'Walked files keep their plain C:\\ form; explicit files are canonicalized to the long \\\\?\\C:\\ form, and the set of paths holds both.',
      'Two ways out:',
      '1. dunce::canonicalize: the plain form whenever it can represent the path, the long form otherwise.',
      '2. Canonicalize the walked files too, so both sides carry the long form.',
      'Going with 1: the long form would show up in every printed path.',
      '[tool:bash]',
      '$ cargo test -p rivet-cli',
      'test result: ok. 214 passed; 0 failed',
      '[assistant]',
      'Findings print once on Windows now; the new test covers a hook call with explicit files.',
    ].join('\n');
    const { brief } = taskLevels(
      { label: 'rivet check reports findings twice on Windows', summary: '', files: [], todos: [], context },
      LEVEL_CAPS,
    );
    expect(brief).not.toContain('Canonicalize the walked files too');
  });
});
