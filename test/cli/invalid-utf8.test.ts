import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { openMemory } from '../../src/index.js';
import { createHttpApp } from '../../src/http/create-http-app.js';
import { runCliInProcess } from '../helpers/cli-in-process.js';
import { fileDigest, tempDir } from '../helpers/temp.js';

const CLI = fileURLToPath(new URL('../../dist/src/cli/main.js', import.meta.url));
/** The sample: two bad bytes at offset 4, then a truncated sequence at offset 13. */
const BAD = Buffer.from('bad \xff\xfe bytes \xc3\x28 end\n', 'latin1');

async function seeded(): Promise<{ dir: string; path: string }> {
  const dir = tempDir();
  const path = join(dir, 'memory.db');
  const db = await openMemory(path);
  await db.primary().radial.createLine('a', 'A', 'the a line');
  await db
    .primary()
    .radial.completeTask({ lineId: 'a', taskLabel: 'one', fullContext: 'ok', conversationSummary: 's' });
  await db.close();
  return { dir, path };
}

describe('invalid UTF-8 is refused on every surface, and nothing is written', () => {
  it('commit --context <file> and --context - (stdin): INVALID_INPUT naming the offset, no file created', async () => {
    const dir = tempDir();
    const path = join(dir, 'memory.db');
    writeFileSync(join(dir, 'bad.txt'), BAD);
    const fromFile = await runCliInProcess([
      'commit',
      '--file',
      path,
      '--line',
      'a',
      '--label',
      'x',
      '--context',
      join(dir, 'bad.txt'),
    ]);
    expect(fromFile.status).toBe(1);
    expect(fromFile.stderr).toMatch(
      /INVALID_INPUT: --context \(.*bad\.txt\): not valid UTF-8 \(first bad byte at offset 4\)/,
    );
    const fromStdin = await runCliInProcess(
      ['commit', '--file', path, '--line', 'a', '--label', 'x', '--context', '-'],
      {
        stdin: BAD,
      },
    );
    expect(fromStdin.status).toBe(1);
    expect(fromStdin.stderr).toContain(
      'context (standard input): not valid UTF-8 (first bad byte at offset 4)',
    );
    expect(existsSync(path)).toBe(false);
  });

  it('an existing file stays byte-identical after refused commit, turn append, import and kg import', async () => {
    const { dir, path } = await seeded();
    const bad = join(dir, 'bad.jsonl');
    writeFileSync(
      bad,
      Buffer.concat([Buffer.from('{"type":"entity","name":"A","entityType":"t","observations":[]}\n'), BAD]),
    );
    const before = fileDigest(path);
    const runs = [
      await runCliInProcess(['commit', '--file', path, '--line', 'a', '--label', 'x', '--context', '-'], {
        stdin: BAD,
      }),
      await runCliInProcess(['turn', 'append', '-', '--file', path], { stdin: BAD }),
      await runCliInProcess(['kg', 'import', bad, '--file', path]),
      await runCliInProcess(['import', bad, '--file', path, '--format', 'memory-server']),
    ];
    for (const run of runs) {
      expect(run.status, run.stderr).toBe(1);
      expect(run.stderr).toMatch(/INVALID_INPUT: .*not valid UTF-8 \(first bad byte at offset \d+\)/);
    }
    const firstLine = '{"type":"entity","name":"A","entityType":"t","observations":[]}\n';
    expect(runs[2]!.stderr).toContain(`first bad byte at offset ${firstLine.length + 4}`);
    expect(fileDigest(path)).toBe(before);
  });

  it('a JSONL dump with a bad line is refused naming its offset in the file', async () => {
    const dir = tempDir();
    const dump = join(dir, 'dump.jsonl');
    writeFileSync(dump, Buffer.concat([Buffer.from('{"type":"'), BAD]));
    const target = join(dir, 'new.db');
    const run = await runCliInProcess(['import', dump, '--file', target, '--format', 'jsonl']);
    expect(run.status, run.stderr).toBe(1);
    expect(run.stderr).toContain('not valid UTF-8 (first bad byte at offset 13)');
  });

  it('a command-line argument that is not UTF-8 is refused by the binary (read from /proc/self/cmdline)', async () => {
    const { path } = await seeded();
    const before = fileDigest(path);
    // Node's spawn encodes arguments as UTF-8, so the raw byte goes through a shell's printf.
    const script = `exec "$0" "$1" commit --file "$2" --line a --label "$(printf 'x\\377')" --context -`;
    const result = spawnSync('sh', ['-c', script, process.execPath, CLI, path], {
      input: 'ok',
      encoding: 'utf8',
      env: { ...process.env, NO_COLOR: '1' },
    });
    if (!existsSync('/proc/self/cmdline')) return;
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(
      'INVALID_INPUT: argument 7 (after --label): not valid UTF-8 (first bad byte at offset 1)',
    );
    expect(fileDigest(path)).toBe(before);
  });

  it('HTTP: a body that is not UTF-8 gets 400 INVALID_INPUT naming the offset', async () => {
    const { path } = await seeded();
    const db = await openMemory(path);
    const app = createHttpApp(db, { webRoot: false });
    const before = fileDigest(path);
    const head = Buffer.from('{"taskLabel":"t","fullContext":"bad ');
    const response = await app.request('/api/agents/primary/lines/a/tasks', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: Buffer.concat([head, Buffer.from([0xc3, 0x28]), Buffer.from('","conversationSummary":"s"}')]),
    });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('INVALID_INPUT');
    expect(body.error.message).toContain(`first bad byte at offset ${head.length}`);
    const lone = await app.request('/api/agents/primary/lines/a/tasks', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"taskLabel":"t","fullContext":"x","conversationSummary":"lone \\ud800"}',
    });
    expect(lone.status).toBe(400);
    expect(((await lone.json()) as { error: { message: string } }).error.message).toContain('lone surrogate');
    expect(fileDigest(path)).toBe(before);
    // A good body still goes through (the check reads a clone of the body).
    const good = await app.request('/api/agents/primary/lines/a/tasks', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ taskLabel: 'ünï', fullContext: 'ok ✓', conversationSummary: 's' }),
    });
    expect(good.status, await good.clone().text()).toBeLessThan(300);
    await db.close();
  });
});
