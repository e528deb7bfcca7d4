import { PassThrough } from 'node:stream';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HedgehopError, openMemory } from '../../src/index.js';
import { runCli } from '../../src/cli/program.js';
import { runCliInProcess } from '../helpers/cli-in-process.js';
import { fileDigest, tempDir } from '../helpers/temp.js';

/** A character a terminal would act on: C0 but tab and newline, DEL, C1, bidi controls. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/u;
const RED = 'E\u001b[1;31mVIL';
const OSC52 = 'copy \u001b]52;c;cm0gLXJmIH4=\u0007 done';
const CSI_C1 = 'c1 \u009b2J cleared';
const BIDI = 'admin\u202e txt.exe';

async function hostileFile(): Promise<{ dir: string; path: string }> {
  const dir = tempDir();
  const path = join(dir, 'memory.db');
  const db = await openMemory(path);
  const radial = db.primary().radial;
  await radial.createLine('ops', `Ops ${RED}`, `desc ${OSC52}`);
  await radial.completeTask({
    lineId: 'ops',
    taskLabel: `Deploy ${RED}`,
    fullContext: `log ${OSC52} ${CSI_C1} \u007f`,
    conversationSummary: `summary ${BIDI}`,
  });
  await db.close();
  const jsonl = [
    { type: 'entity', name: RED, entityType: `type ${CSI_C1}`, observations: [OSC52, BIDI] },
    { type: 'entity', name: 'plain', entityType: 't', observations: ['ok'] },
    { type: 'relation', from: RED, to: 'plain', relationType: `rel \u001b[2J` },
  ]
    .map((record) => JSON.stringify(record))
    .join('\n');
  writeFileSync(join(dir, 'memory.jsonl'), jsonl);
  const imported = await runCliInProcess(['kg', 'import', join(dir, 'memory.jsonl'), '--file', path]);
  expect(imported.status, imported.stderr).toBe(0);
  return { dir, path };
}

describe('stored control characters never reach the terminal', () => {
  it('human output of every listing command shows them as visible escapes', async () => {
    const { path } = await hostileFile();
    const commands = [
      ['origin'],
      ['lines'],
      ['history', 'ops'],
      ['navigate', 'deploy'],
      ['load', '--line', 'ops', '--level', 'detailed'],
      ['recall', 'deploy log'],
      ['kg', 'list'],
      ['kg', 'get', 'memory'],
      ['kg', 'search', 'EVIL'],
      ['agents'],
      ['stats'],
    ];
    let sawEscape = false;
    for (const args of commands) {
      const run = await runCliInProcess([...args, '--file', path]);
      expect(run.status, `${args.join(' ')}: ${run.stderr}`).toBe(0);
      expect(RAW_CONTROL.exec(run.stdout), `${args.join(' ')} printed a raw control`).toBeNull();
      expect(RAW_CONTROL.exec(run.stderr)).toBeNull();
      sawEscape ||= run.stdout.includes('\\u001b');
    }
    expect(sawEscape).toBe(true);
    const got = await runCliInProcess(['kg', 'get', 'memory', '--file', path]);
    expect(got.stdout).toContain('E\\u001b[1;31mVIL');
    expect(got.stdout).toContain('\\u001b]52;c;cm0gLXJmIH4=\\u0007');
  });

  it('--json keeps the same values, with DEL, C1 and bidi controls as \\u escapes', async () => {
    const { path } = await hostileFile();
    const run = await runCliInProcess(['kg', 'get', 'memory', '--file', path, '--json']);
    expect(run.status, run.stderr).toBe(0);
    expect(RAW_CONTROL.exec(run.stdout)).toBeNull();
    expect(run.stdout).toContain('\\u009b2J');
    const parsed = JSON.stringify(JSON.parse(run.stdout));
    expect(parsed).toContain(CSI_C1);
    expect(parsed).toContain(BIDI);
  });

  it('load --full-state is verbatim into a pipe and escaped on a terminal', async () => {
    const { path } = await hostileFile();
    const piped = await runCliInProcess(['load', '--line', 'ops', '--full-state', '--file', path]);
    expect(piped.stdout).toBe(`log ${OSC52} ${CSI_C1} \u007f`);
    const terminal = await runOnTerminal(['load', '--line', 'ops', '--full-state', '--file', path]);
    expect(RAW_CONTROL.exec(terminal)).toBeNull();
    expect(terminal).toContain('\\u001b]52');
  });

  it("on a colour terminal the CLI's own colours stay while stored escapes are shown", async () => {
    const { path } = await hostileFile();
    const text = await runOnTerminal(['lines', '--file', path]);
    expect(text).toContain('\u001b[1m'); // the painter's bold, real
    expect(text).toContain('Deploy E\\u001b[1;31mVIL'); // the stored one, visible
    // eslint-disable-next-line no-control-regex -- removing the painter's own SGR codes
    expect(text.replaceAll(/\u001b\[\d+m/g, '')).not.toMatch(RAW_CONTROL);
  });

  it('agent names and line ids with control characters are refused at the API, file unchanged', async () => {
    const { path } = await hostileFile();
    const before = fileDigest(path);
    const db = await openMemory(path);
    for (const attempt of [
      () => db.agent(`bad\u001b[2Jname`),
      () => db.agent(`rtl${BIDI}`),
      () => db.primary().radial.createLine(`ops\u0007`, 'x', 'y'),
      () =>
        db.primary().radial.completeTask({
          lineId: `line\u009b`,
          taskLabel: 'x',
          fullContext: 'x',
          conversationSummary: 'x',
        }),
    ]) {
      const error = await attempt().catch((e: unknown) => e);
      expect(HedgehopError.isInstance(error) && error.code, String(error)).toBe('INVALID_INPUT');
      expect((error as Error).message).toContain('must not contain control characters');
    }
    await db.close();
    expect(fileDigest(path)).toBe(before);
    const cli = await runCliInProcess(['origin', '--agent', 'x\u001b]0;pwned\u0007', '--file', path]);
    expect(cli.status).not.toBe(0);
    expect(RAW_CONTROL.exec(cli.stderr)).toBeNull();
  });
});

/** Runs the CLI with stdout posing as a colour terminal; returns what it printed. */
async function runOnTerminal(args: readonly string[]): Promise<string> {
  const stdout = Object.assign(new PassThrough(), { isTTY: true });
  const stderr = new PassThrough();
  const chunks: Buffer[] = [];
  stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
  stderr.resume();
  const status = await runCli(args, { stdout, stderr, env: {} });
  expect(status).toBe(0);
  return Buffer.concat(chunks).toString('utf8');
}
