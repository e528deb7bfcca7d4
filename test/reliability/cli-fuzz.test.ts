import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import type { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seededRandom } from '../../bench/harness.js';
import { EXIT, exitCodeOf } from '../../src/cli/output.js';
import { buildProgram } from '../../src/cli/program.js';
import { HedgehopError, type ErrorCode } from '../../src/core/errors.js';
import { runCliInProcess, type CliRun } from '../helpers/cli-in-process.js';
import { fileDigest, tempDir } from '../helpers/temp.js';
import { openDemo } from '../http/demo-memory.js';

// Seeded random argv over every command of the CLI. Most cases run the CLI's program in this
// process (runCli, the function the binary calls); a smaller sample runs the built binary as a
// child process. Set HEDGEHOP_FUZZ_SEED to replay a run, HEDGEHOP_FUZZ_CASES to change its size.
const SEED = Number(process.env.HEDGEHOP_FUZZ_SEED ?? 17_2026);
const CASES = Number(process.env.HEDGEHOP_FUZZ_CASES ?? 2000);
const CHILD_CASES = Math.max(10, Math.round(CASES / 200));
const WATCHDOG_MS = 30_000;
const CLI = fileURLToPath(new URL('../../dist/src/cli/main.js', import.meta.url));

/** Commands left out: they serve until stopped, or run benchmarks and evaluations for minutes. */
const SKIPPED = new Set(['mcp', 'serve', 'bench', 'eval', 'demo']);

interface Leaf {
  readonly path: string[];
  readonly options: { flag: string; takesValue: boolean }[];
  readonly argumentCount: number;
}

/** Every runnable command of the real program, with its options and positional arguments. */
function commandLeaves(): Leaf[] {
  const program = buildProgram({ stdout: process.stdout, stderr: process.stderr, env: {} }, () => undefined);
  const leaves: Leaf[] = [];
  const visit = (command: Command, path: string[]): void => {
    if (SKIPPED.has(path[0] ?? '')) return;
    const options = command.options.map((option) => ({
      flag: option.long ?? option.short ?? '',
      takesValue: option.required || option.optional,
    }));
    if (path.length > 0) leaves.push({ path, options, argumentCount: command.registeredArguments.length });
    for (const sub of command.commands) visit(sub, [...path, sub.name()]);
  };
  visit(program, []);
  return leaves;
}

interface World {
  readonly dir: string;
  readonly file: string;
  readonly values: readonly string[];
}

/** A file with the demo memory and a folder of inputs: good, bad, missing, a folder, huge. */
async function world(): Promise<World> {
  const dir = tempDir();
  const file = join(dir, 'memory.db');
  const db = await openDemo(file);
  await db.agent('helper');
  await db.close();
  mkdirSync(join(dir, 'folder'));
  writeFileSync(join(dir, 'text.txt'), 'a plain verbatim context\nwith two lines\n');
  writeFileSync(join(dir, 'bad-utf8.txt'), Buffer.from('bad \xff\xfe bytes\n', 'latin1'));
  writeFileSync(
    join(dir, 'graph.jsonl'),
    '{"type":"entity","name":"Ada","entityType":"person","observations":["writes code"]}\n',
  );
  writeFileSync(join(dir, 'garbage.jsonl'), '{"type":"entity",\nnot json\n');
  const values = [
    ...['auth', 'infra', 'primary', 'helper', 'memory', 'missing', 'refresh token', 'login'],
    ...['0', '1', '2', '3', '-1', '1.5', '1e3', '0x1', 'NaN', 'Infinity', '99999999999999999999'],
    ...['origin', 'brief', 'summary', 'detailed', 'full', 'merge', 'skip', 'overwrite', 'jsonl'],
    ...['hedgehog', 'memory-server', 'utterance', 'event', 'user', 'agent', '2026-01-01', 'yesterday'],
    ...['', ' ', '-', '--', '-x', '--nope', 'x'.repeat(300), 'y'.repeat(20_000), '%s%n', 'null', '{}'],
    ...['\u001b[2J\u001b]52;c;ZXZpbA==\u0007', 'line\nbreak', 'tab\there', '\u202eevil', '🦔 ünï', '\ud800'],
    ...['../../../etc/passwd', join(dir, 'text.txt'), join(dir, 'bad-utf8.txt'), join(dir, 'graph.jsonl')],
    ...[
      join(dir, 'garbage.jsonl'),
      join(dir, 'folder'),
      join(dir, 'nope', 'x.jsonl'),
      join(dir, 'absent.txt'),
    ],
    ...[file, join(dir, 'out.jsonl'), join(dir, 'copy.db')],
  ];
  return { dir, file, values };
}

/** One random argv for a random command, plus optional stdin. */
function randomCase(
  random: () => number,
  leaves: readonly Leaf[],
  w: World,
): { args: string[]; stdin?: string } {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const leaf = pick(leaves);
  const args = [...leaf.path];
  const positional = Math.floor(random() * (leaf.argumentCount + 2));
  for (let i = 0; i < positional; i++) args.push(pick(w.values));
  const optionCount = Math.floor(random() * 4);
  for (let i = 0; i < optionCount && leaf.options.length > 0; i++) {
    const option = pick(leaf.options);
    args.push(option.flag);
    if (option.takesValue && random() < 0.9) args.push(pick(w.values));
  }
  if (random() < 0.05) args.push(pick(['--what', '-z', '--file']));
  if (random() < 0.03) args.push('--busy-timeout', pick(w.values));
  if (random() < 0.03) args.push('--agent', pick(w.values));
  // Most cases work on the seeded file; some on a missing one or on no --file at all.
  const roll = random();
  if (roll < 0.85) args.push('--file', w.file);
  else if (roll < 0.95) args.push('--file', join(w.dir, 'absent.db'));
  if (random() < 0.5) args.push('--json');
  return random() < 0.2 ? { args, stdin: pick(w.values) } : { args };
}

/** What the documented exit codes say a run should have returned, from what it printed. */
function checkRun(args: readonly string[], run: CliRun): void {
  const label = JSON.stringify(args).slice(0, 300);
  expect([0, 1, 2, 3, 4, 5, 6], label).toContain(run.status);
  if (run.status === EXIT.ok) {
    if (args.includes('--json') && !args.includes('--full-state')) {
      expect(
        () => JSON.parse(run.stdout) as unknown,
        `${label}: stdout is not one JSON document`,
      ).not.toThrow();
    }
    return;
  }
  const typed = /^hedgehop: ([A-Z_]+): /m.exec(run.stderr);
  if (typed) {
    const code = typed[1] as ErrorCode;
    expect(exitCodeOf(new HedgehopError(code, 'x')), `${label}: ${run.stderr}`).toBe(run.status);
    expect(code, `${label}: untyped error: ${run.stderr}`).not.toBe('ERROR');
  } else {
    // Commander's own usage errors ("error: unknown option …", or a group's help) exit 1.
    expect(run.stderr, `${label}: neither typed nor a usage error`).toMatch(/^(error: |Usage: )/m);
    expect(run.status, label).toBe(EXIT.usage);
  }
  if (args.includes('--json')) expect(run.stdout, `${label}: a refusal printed to stdout`).toBe('');
}

/** Folds the WAL into the file, so a refused call's digest compares content, not checkpoints. */
function settle(path: string): void {
  const db = new Database(path);
  try {
    db.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    db.close();
  }
}

function withWatchdog<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const watchdog = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`watchdog: ${what} ran over ${WATCHDOG_MS} ms`)), WATCHDOG_MS);
  });
  return Promise.race([promise, watchdog]).finally(() => clearTimeout(timer));
}

describe(`CLI fuzzing (seed ${SEED}, ${CASES} in-process cases + ${CHILD_CASES} child processes)`, () => {
  const cwd = process.cwd();
  let scratch = '';
  beforeAll(() => {
    // Relative paths among the random arguments land in a scratch folder, never in the repo.
    scratch = mkdtempSync(join(tmpdir(), 'hedgehop-fuzz-'));
    process.chdir(scratch);
  });
  afterAll(() => {
    process.chdir(cwd);
    rmSync(scratch, { recursive: true, force: true });
  });

  it('every run ends with a documented exit code, a typed error, and the file unchanged after a refusal', async () => {
    const random = seededRandom(SEED);
    const leaves = commandLeaves();
    expect(leaves.length).toBeGreaterThan(30);
    const w = await world();
    const seen = new Map<string, number>();
    let before = fileDigest(w.file);
    for (let i = 0; i < CASES; i++) {
      const { args, stdin } = randomCase(random, leaves, w);
      const run = await withWatchdog(
        runCliInProcess(args, stdin === undefined ? {} : { stdin }),
        `case ${i} ${JSON.stringify(args).slice(0, 200)}`,
      );
      checkRun(args, run);
      const key = `${args[0]}:${run.status}`;
      seen.set(key, (seen.get(key) ?? 0) + 1);
      if (run.status === EXIT.ok) {
        settle(w.file);
        before = fileDigest(w.file);
      } else {
        expect(fileDigest(w.file), `case ${i} ${JSON.stringify(args).slice(0, 200)} changed the file`).toBe(
          before,
        );
      }
    }
    // The sample reached both outcomes across the command set.
    const statuses = new Set([...seen.keys()].map((key) => key.split(':')[1]));
    expect(statuses.has('0') && statuses.has('1') && statuses.has('2')).toBe(true);
  });

  it('the built binary, as a child process, keeps the same promises (a smaller sample)', () => {
    const random = seededRandom(SEED + 1);
    const leaves = commandLeaves();
    return world().then((w) => {
      let before = fileDigest(w.file);
      for (let i = 0; i < CHILD_CASES; i++) {
        const { args, stdin } = randomCase(random, leaves, w);
        const result = spawnSync(process.execPath, [CLI, ...args], {
          input: stdin ?? '',
          encoding: 'utf8',
          cwd: scratch,
          env: { ...process.env, NO_COLOR: '1', HEDGEHOP_FILE: '', HEDGEHOP_AGENT: '' },
          timeout: WATCHDOG_MS,
        });
        expect(result.error, `case ${i}: ${String(result.error)}`).toBeUndefined();
        const run = { status: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
        checkRun(args, run);
        if (run.status === EXIT.ok) {
          settle(w.file);
          before = fileDigest(w.file);
        } else expect(fileDigest(w.file), `child case ${i} changed the file`).toBe(before);
      }
    });
  });
});
