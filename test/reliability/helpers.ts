import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll } from 'vitest';

const here = dirname(fileURLToPath(import.meta.url));

/** The repository root (children import the built package from its dist/). */
export const ROOT = join(here, '..', '..');

/** The built package the children import: dist/, or `$HEDGEHOP_DIST` (another build of the same sources). */
export const DIST = process.env.HEDGEHOP_DIST ?? join(ROOT, 'dist');

/** Fails fast, with the fix, when the package has not been built. */
export function requireBuild(): void {
  if (!existsSync(join(DIST, 'src', 'index.js'))) {
    throw new Error('dist/src/index.js is missing: run `npm run build` before `npm run test:reliability`');
  }
}

const dirs: string[] = [];

/** A fresh temporary folder, removed when the test file ends. */
export function scratch(prefix = 'hedgehop-reliability-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}

afterAll(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/**
 * Records one figure of the suite: printed, and appended as a JSON line to the file named by
 * `HEDGEHOP_RELIABILITY_REPORT` when set (docs/reliability.md is written from it).
 */
export function recordFigure(figure: Record<string, unknown>): void {
  const line = JSON.stringify({ ...figure, at: new Date().toISOString() });
  console.info(`[reliability] ${line}`);
  const target = process.env.HEDGEHOP_RELIABILITY_REPORT;
  if (target) appendFileSync(target, `${line}\n`);
}

/** A child process whose stdout is split into lines. */
export interface Child {
  readonly process: ChildProcess;
  readonly lines: string[];
  readonly stderr: () => string;
  waitFor(match: (line: string) => boolean, timeoutMs?: number): Promise<string>;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts `node test/reliability/children/<script> ...args`. */
export function startChild(script: string, args: readonly string[], env: Record<string, string> = {}): Child {
  const child = spawn(process.execPath, [join(here, 'children', script), ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  const lines: string[] = [];
  const waiters: { match: (line: string) => boolean; resolve: (line: string) => void }[] = [];
  let buffer = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    buffer += chunk;
    for (let index = buffer.indexOf('\n'); index >= 0; index = buffer.indexOf('\n')) {
      const line = buffer.slice(0, index);
      buffer = buffer.slice(index + 1);
      lines.push(line);
      for (const waiter of waiters.splice(0)) {
        if (waiter.match(line)) waiter.resolve(line);
        else waiters.push(waiter);
      }
    }
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on('exit', (code, signal) => resolve({ code, signal }));
  });
  return {
    process: child,
    lines,
    stderr: () => stderr,
    exited,
    waitFor(match, timeoutMs = 20_000) {
      const found = lines.find(match);
      if (found !== undefined) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () =>
            reject(
              new Error(
                `child ${script} did not print the expected line in ${timeoutMs} ms; stderr: ${stderr}`,
              ),
            ),
          timeoutMs,
        );
        waiters.push({
          match,
          resolve: (line) => {
            clearTimeout(timer);
            resolve(line);
          },
        });
      });
    },
  };
}

/** Runs a child to completion (killed after `timeoutMs`: a hang is a failure) and parses its last stdout line as JSON. */
export async function runChildJson<T>(
  script: string,
  args: readonly string[],
  timeoutMs = 30_000,
): Promise<T> {
  const child = startChild(script, args);
  const timer = setTimeout(() => child.process.kill('SIGKILL'), timeoutMs);
  const { code, signal } = await child.exited;
  clearTimeout(timer);
  if (signal === 'SIGKILL')
    throw new Error(`${script} ${args.join(' ')} hung (killed after ${timeoutMs} ms)`);
  const last = child.lines.filter((line) => line.trim().length > 0).pop();
  if (code !== 0 || last === undefined) throw new Error(`${script} exited with ${code}: ${child.stderr()}`);
  return JSON.parse(last) as T;
}

/** Kills a child with SIGKILL and waits for it. */
export async function kill(child: Child): Promise<void> {
  child.process.kill('SIGKILL');
  await child.exited;
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
