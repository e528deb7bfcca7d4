import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { join, dirname } from 'node:path';

const here = dirname(fileURLToPath(import.meta.url));

/** Path of a child script in test/children/. Children import the built package from dist/. */
export function childScript(name: string): string {
  return join(here, '..', 'children', name);
}

/** A running child with its stdout split into lines. */
export interface Child {
  readonly process: ChildProcess;
  readonly lines: string[];
  /** Resolves with the first line that satisfies `match`. */
  waitFor(match: (line: string) => boolean, timeoutMs?: number): Promise<string>;
  /** Resolves when the process has exited. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export function startChild(script: string, args: readonly string[]): Child {
  const child = spawn(process.execPath, [childScript(script), ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const waiters: { match: (line: string) => boolean; resolve: (line: string) => void }[] = [];
  let buffer = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    buffer += chunk;
    let index = buffer.indexOf('\n');
    while (index >= 0) {
      const line = buffer.slice(0, index);
      buffer = buffer.slice(index + 1);
      lines.push(line);
      for (const waiter of waiters.splice(0)) {
        if (waiter.match(line)) waiter.resolve(line);
        else waiters.push(waiter);
      }
      index = buffer.indexOf('\n');
    }
  });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on('exit', (code, signal) => resolve({ code, signal }));
  });
  return {
    process: child,
    lines,
    exited,
    waitFor(match, timeoutMs = 15_000) {
      const found = lines.find(match);
      if (found !== undefined) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`child ${script} did not print the expected line; stderr: ${stderr}`)),
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
