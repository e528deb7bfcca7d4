/**
 * Synthetic coding-agent transcripts of any length, in the block format the offline summariser
 * reads (`[user]`, `[assistant]`, `[tool:bash]`, `[tool:read]`, `[tool:edit]`): narration and
 * conclusions in prose, then what tools print (test-runner lines with timings, JSON log lines,
 * stack frames, numbered source lines, diff hunks), with ISO timestamps, `key:value:ids`,
 * versions and amounts as real transcripts have them. Deterministic for a seed.
 */
import { seededRandom } from './harness.js';

type Rng = () => number;

const SERVICES = ['ingest-gateway', 'device-api', 'billing', 'ledger', 'scheduler', 'search', 'mailer'];
const FILES = [
  'src/cache/user-cache.ts',
  'src/http/retry.ts',
  'src/db/pool.ts',
  'src/jobs/export.ts',
  'src/auth/session.ts',
  'src/queue/consumer.ts',
  'lib/config/load.ts',
];
const NOUNS = [
  'cache',
  'retry budget',
  'connection pool',
  'export job',
  'session token',
  'consumer lag',
  'config loader',
  'lock',
  'timeout',
  'index',
  'migration',
  'replica',
  'batch size',
  'worker',
];
const VERBS = ['checked', 'read', 'traced', 'timed', 'reproduced', 'bisected', 'compared', 'profiled'];
const FINDINGS = [
  'the pool is capped at 10 connections while the export job opens 24',
  'the retry loop has no jitter, so every client retries at the same moment',
  'the session token is refreshed after the request that needs it',
  'the consumer commits offsets before the batch is written',
  'the config loader reads the file on every request',
  'the replica lags 41 s behind the primary under the nightly load',
];
const REMEDIES = [
  'raise the pool to 32 and give the export job its own pool',
  'add full jitter to the backoff and cap it at 8 s',
  'refresh the token 60 s before it expires',
  'commit offsets only after the batch is flushed',
  'load the config once at start and watch the file',
  'read from the primary for the dashboard queries',
];

const pick = <T>(rng: Rng, items: readonly T[]): T => items[Math.floor(rng() * items.length)] as T;
const int = (rng: Rng, low: number, high: number): number => low + Math.floor(rng() * (high - low + 1));

function timestamp(rng: Rng, minute: number): string {
  const seconds = String(int(rng, 0, 59)).padStart(2, '0');
  return `2024-03-12T${String(8 + Math.floor(minute / 60)).padStart(2, '0')}:${String(minute % 60).padStart(2, '0')}:${seconds}Z`;
}

function userBlock(rng: Rng): string {
  const service = pick(rng, SERVICES);
  return `[user]\nThe ${pick(rng, NOUNS)} in ${service} misbehaves again since v2.${int(rng, 1, 9)}.${int(rng, 0, 20)}: p99 went from ${int(rng, 80, 200)} ms to ${int(rng, 900, 4000)} ms and ticket OPS-${int(rng, 1000, 9999)} is open. Can you find out why and fix it? Keep the public API as it is.`;
}

function narration(rng: Rng): string {
  const sentences = [
    `Let me look at ${pick(rng, FILES)} first.`,
    `I ${pick(rng, VERBS)} the ${pick(rng, NOUNS)} and the ${pick(rng, NOUNS)} under the same load.`,
    `The numbers say ${pick(rng, FINDINGS)}.`,
    `That does not explain the ${pick(rng, NOUNS)} on its own, so I ${pick(rng, VERBS)} it again with logging on.`,
    `Cost so far is $${int(rng, 1, 400)}.${String(int(rng, 0, 99)).padStart(2, '0')} in CI minutes; the key cache:user:${int(rng, 1, 999)} shows up in every slow trace.`,
  ];
  const count = int(rng, 2, 5);
  return `[assistant]\n${Array.from({ length: count }, () => pick(rng, sentences)).join(' ')}`;
}

function conclusion(rng: Rng): string {
  const at = Math.floor(rng() * FINDINGS.length);
  return `[assistant]\nRoot cause: ${FINDINGS[at] as string}. Decision: ${REMEDIES[at] as string}, because it keeps the API unchanged. Options were:\n1. ${pick(rng, REMEDIES)}.\n2. ${REMEDIES[at] as string}.\nGoing with 2.`;
}

function testRun(rng: Rng, minute: number): string {
  const lines = [`[tool:bash]\n$ npx vitest run test/${pick(rng, ['cache', 'http', 'db', 'jobs'])}`];
  for (let i = 0, n = int(rng, 4, 12); i < n; i++) {
    const ok = rng() > 0.15;
    lines.push(
      ` ${ok ? '✓' : '×'} test/${pick(rng, ['cache', 'http', 'db'])}/${pick(rng, NOUNS).replace(' ', '-')}.test.ts (${int(rng, 1, 30)} tests) ${int(rng, 5, 900)}ms`,
    );
  }
  lines.push(
    ` Test Files  ${int(rng, 1, 3)} failed | ${int(rng, 5, 40)} passed`,
    `   Start at  ${timestamp(rng, minute).slice(11, 19)}`,
    `   Duration  ${int(rng, 2, 60)}.${int(rng, 10, 99)}s (transform ${int(rng, 1, 4)}.${int(rng, 10, 99)}s, setup 0ms, collect ${int(rng, 1, 9)}.${int(rng, 10, 99)}s)`,
  );
  return lines.join('\n');
}

function logTail(rng: Rng, minute: number): string {
  const service = pick(rng, SERVICES);
  const lines = [`[tool:bash]\n$ kubectl logs deploy/${service} --since=10m | tail -n 20`];
  for (let i = 0, n = int(rng, 5, 20); i < n; i++) {
    lines.push(
      JSON.stringify({
        ts: timestamp(rng, minute),
        level: pick(rng, ['info', 'warn', 'error']),
        service,
        msg: `${pick(rng, NOUNS)} ${pick(rng, ['timeout', 'retry', 'evicted', 'slow', 'ok'])}`,
        key: `cache:user:${int(rng, 1, 999)}`,
        ms: int(rng, 1, 5000),
      }),
    );
  }
  return lines.join('\n');
}

function stackTrace(rng: Rng): string {
  const lines = [`[tool:bash]\n$ node dist/jobs/export.js --dry-run`, `Error: ${pick(rng, NOUNS)} exhausted`];
  for (let i = 0, n = int(rng, 4, 10); i < n; i++) {
    lines.push(
      `    at ${pick(rng, ['acquire', 'query', 'run', 'flush', 'next'])} (${pick(rng, FILES)}:${int(rng, 10, 400)}:${int(rng, 1, 40)})`,
    );
  }
  return lines.join('\n');
}

function readFile(rng: Rng): string {
  const file = pick(rng, FILES);
  const lines = [`[tool:read]\n${file}`];
  const start = int(rng, 1, 200);
  for (let i = 0, n = int(rng, 8, 30); i < n; i++) {
    const code = pick(rng, [
      `  const ${pick(rng, ['pool', 'cache', 'retry'])} = new ${pick(rng, ['Pool', 'Map', 'Backoff'])}({ max: ${int(rng, 1, 64)} });`,
      `  if (attempt > ${int(rng, 1, 9)}) throw new Error('${pick(rng, NOUNS)} exhausted');`,
      `  await sleep(${int(rng, 10, 2000)} * 2 ** attempt);`,
      `  return ${pick(rng, ['rows', 'entry', 'result'])}.map((r) => r.id);`,
      `}`,
      `export async function ${pick(rng, ['load', 'fetch', 'flush', 'refresh'])}(key: string): Promise<void> {`,
    ]);
    lines.push(`${String(start + i).padStart(4)}  ${code}`);
  }
  return lines.join('\n');
}

function edit(rng: Rng): string {
  const file = pick(rng, FILES);
  const line = int(rng, 10, 300);
  const lines = [`[tool:edit]\n${file}`, `@@ -${line},6 +${line},7 @@`];
  for (let i = 0, n = int(rng, 3, 9); i < n; i++) {
    const sign = pick(rng, [' ', '-', '+', '+']);
    lines.push(`${sign}  const ${pick(rng, ['max', 'delay', 'ttl'])} = ${int(rng, 1, 5000)};`);
  }
  return lines.join('\n');
}

/**
 * A transcript of about `targetChars` UTF-16 units: a user's request, then rounds of narration
 * and tool output with a root cause and a decision along the way, ending with a "Done" summary.
 */
export function codingTranscript(seed: number, targetChars: number): string {
  const rng = seededRandom(seed);
  const blocks = [userBlock(rng)];
  let size = blocks[0]?.length ?? 0;
  let minute = 0;
  const tools = [testRun, logTail, stackTrace, readFile, edit] as const;
  while (size < targetChars) {
    minute = (minute + int(rng, 1, 7)) % 600;
    const roll = rng();
    const block =
      roll < 0.3
        ? narration(rng)
        : roll < 0.36
          ? conclusion(rng)
          : roll < 0.4
            ? userBlock(rng)
            : pick(rng, tools)(rng, minute);
    blocks.push(block);
    size += block.length + 2;
  }
  blocks.push(
    `[assistant]\nDone. The ${pick(rng, NOUNS)} fix is merged in v2.${int(rng, 1, 9)}.${int(rng, 0, 20)}; p99 is back under ${int(rng, 100, 300)} ms and all tests pass.`,
  );
  return blocks.join('\n\n');
}
