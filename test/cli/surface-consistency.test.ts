/**
 * The CLI's rough edges a new user hits (issue 17: exit codes, echoes of input, versions,
 * decimal integers, import reports), through the built CLI as a child process.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI, hop } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp.js';

/** A memory file with one line `auth` and one task on it. */
function withTask(): { dir: string; file: string } {
  const dir = tempDir();
  const file = join(dir, 'm.db');
  const run = hop(
    ['commit', '--line', 'auth', '--label', 'Rotate refresh tokens', '--summary', 'rotated', '--file', file],
    'the full context of the task',
  );
  expect(run.status, run.stderr).toBe(0);
  return { dir, file };
}

/** No control character other than the final newline, and no U+FFFD. */
function printable(text: string): boolean {
  // eslint-disable-next-line no-control-regex -- what must not be printed
  return !/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\ufffd]/u.test(text);
}

describe('CLI consistency', { timeout: 180_000 }, () => {
  it('prints its version with --version and -V', () => {
    for (const flag of ['--version', '-V']) {
      const run = hop([flag]);
      expect(run.status).toBe(0);
      expect(run.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/u);
    }
  });

  it('takes integers in decimal only', () => {
    const { file } = withTask();
    expect(hop(['load', '--line', 'auth', '--position', '1', '--file', file]).status).toBe(0);
    for (const value of ['0x1', '1e0', '0b1', ' 1', '1.0', '+1']) {
      const run = hop(['load', '--line', 'auth', '--position', value, '--file', file]);
      expect(run.status, value).toBe(1);
      expect(run.stderr).toContain('--position: must be a whole number');
    }
    expect(hop(['recall', 'x', '--budget', '0x10', '--file', file]).status).toBe(1);
    expect(hop(['origin', '--busy-timeout', '1e3', '--file', file]).status).toBe(1);
  });

  it('exits 1 for a directory where a file is expected, and for an export into a missing folder', () => {
    const { dir, file } = withTask();
    const imported = hop(['import', dir, '--file', join(dir, 'new.db')]);
    expect(imported.status).toBe(1);
    expect(imported.stderr).toMatch(/INVALID_INPUT: <path>: .* is a directory/u);
    expect(existsSync(join(dir, 'new.db'))).toBe(false);
    const context = hop([
      'commit',
      '--line',
      'auth',
      '--label',
      'x',
      '--summary',
      'y',
      '--context',
      dir,
      '--file',
      file,
    ]);
    expect(context.status).toBe(1);
    expect(context.stderr).toMatch(/INVALID_INPUT: --context: .* is a directory/u);
    const exported = hop(['export', '--out', join(dir, 'nodir', 'x.jsonl'), '--file', file]);
    expect(exported.status).toBe(1);
    expect(exported.stderr).toMatch(/INVALID_INPUT: --out: the folder .*nodir does not exist/u);
    expect(exported.stderr).not.toContain('.tmp');
    expect(readdirSync(dir).filter((name) => name.includes('tmp'))).toEqual([]);
  });

  it('exits 1 for an unknown benchmark', () => {
    const run = hop(['bench', '--only', 'nothing']);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('--only: unknown benchmark nothing');
  });

  it('quotes at most about 200 characters of input back, and never raw binary', () => {
    const { dir, file } = withTask();
    const long = hop(['navigate', `${'zq'.repeat(3000)}`, '--file', file]);
    expect(long.status).toBe(2);
    expect(long.stderr.length).toBeLessThan(600);
    expect(long.stderr).toContain('(6000 characters)');
    const binary = Buffer.from(Array.from({ length: 3000 }, (_, i) => (i * 7919 + 13) % 256));
    writeFileSync(join(dir, 'junk.bin'), binary);
    for (const format of ['jsonl', 'memory-server', 'hedgehog', undefined]) {
      const run = hop([
        'import',
        join(dir, 'junk.bin'),
        ...(format ? ['--format', format] : []),
        '--file',
        join(dir, `${format}.db`),
      ]);
      expect(run.status, format).toBe(1);
      expect(printable(run.stderr), run.stderr).toBe(true);
      expect(run.stderr.length).toBeLessThan(800);
      // A refused import into a new file leaves no file behind.
      expect(
        readdirSync(dir).filter((name) => name.startsWith(`${format}.db`)),
        format,
      ).toEqual([]);
    }
    const position = hop([
      'load',
      '--line',
      'auth',
      '--position',
      `\u001b]52;c;${'A'.repeat(500)}\u0007`,
      '--file',
      file,
    ]);
    expect(position.status).toBe(1);
    expect(printable(position.stderr)).toBe(true);
    expect(position.stderr.length).toBeLessThan(600);
  });

  it('says which memory-server relations an import skipped, as --json does', () => {
    const dir = tempDir();
    const jsonl = [
      '{"type":"entity","name":"Ada","entityType":"person","observations":["writes Rust"]}',
      '{"type":"entity","name":"Acme","entityType":"organization","observations":[]}',
      '{"type":"relation","from":"Ada","to":"Acme","relationType":"works_at"}',
      '{"type":"relation","from":"Ada","to":"Ghost","relationType":"haunts"}',
      '',
    ].join('\n');
    writeFileSync(join(dir, 'memory.jsonl'), jsonl);
    const run = hop(['import', join(dir, 'memory.jsonl'), '--file', join(dir, 'kg.db')]);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain('imported 2 entities and 1 relation into graph');
    expect(run.stdout).toContain('skipped 1 relation naming an entity');
    expect(run.stdout).toContain("line 4: relation 'Ada' -> 'Ghost' names no entity 'Ghost'");
  });

  it('refuses to start a read-only MCP server for an agent the file does not hold (exit 2)', () => {
    const { file } = withTask();
    const run = hop(['mcp', '--read-only', '--agent', 'ghost', '--file', file]);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/NOT_FOUND: no agent named 'ghost'/u);
    expect(run.stdout).toBe('');
    expect(hop(['mcp', '--read-only', '--file', file]).status).toBe(0);
  });

  it('names its own flags and arguments, never a library call, and gives hints that fit the error', () => {
    const { dir, file } = withTask();
    const library = /\w+\(\)|createLine|options\.|update\(|search\(/u;
    const cases: [readonly string[], RegExp, RegExp | undefined][] = [
      [
        ['history', 'nope', '--file', file],
        /NOT_FOUND: --line: no line 'nope'/u,
        /hint: commit a task to the line/u,
      ],
      [
        ['turn', 'end', '--input', 'hi', '--file', file],
        /INVALID_INPUT: no turn is open/u,
        /hint: open one with '(npx )?hedgehop turn begin'/u,
      ],
      [
        ['lines', '--file', join(dir, 'missing.db')],
        /NOT_FOUND: .*missing\.db does not exist/u,
        /hint: check the path/u,
      ],
      [
        ['kg', 'get', 'nothing', '--file', file],
        /NOT_FOUND: no knowledge graph/u,
        /hint: list the graphs with '(npx )?hedgehop kg list'/u,
      ],
      [
        ['load', '--line', 'auth', '--position', '9', '--file', file],
        /NOT_FOUND: --position: no task at position 9/u,
        /hint: list the line's tasks/u,
      ],
      [
        ['load', '--line', 'nope', '--file', file],
        /NOT_FOUND: --line: no line 'nope'/u,
        /hint: .*list the lines with '(npx )?hedgehop lines'/u,
      ],
      [
        ['eval', 'locomo', '--data', join(dir, 'none.json')],
        /NOT_FOUND: LoCoMo data not found/u,
        /hint: check the path/u,
      ],
    ];
    for (const [args, message, hint] of cases) {
      const run = hop(args);
      expect(run.stderr, args.join(' ')).toMatch(message);
      if (hint) expect(run.stderr, args.join(' ')).toMatch(hint);
      expect(run.stderr, args.join(' ')).not.toMatch(library);
      expect(run.stderr, args.join(' ')).not.toContain("'hedgehop lines' or");
    }
  });

  it('ends the demo with commands that run where the user is (npx hedgehop without a global install)', () => {
    const dir = tempDir();
    const run = spawnSync(process.execPath, [CLI, 'demo', '--json', '--file', join(dir, 'tern.db')], {
      encoding: 'utf8',
      env: { ...process.env, NO_COLOR: '1', PATH: '/usr/bin:/bin' },
      timeout: 120_000,
    });
    expect(run.status, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout) as { next: string[] };
    expect(report.next.length).toBeGreaterThan(3);
    for (const line of report.next) expect(line).toMatch(/^npx hedgehop /u);
  });
});
