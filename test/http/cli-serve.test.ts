import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { fileDigest, tempFile } from '../helpers/temp.js';
import { openDemo } from './demo-memory.js';

const cli = fileURLToPath(new URL('../../dist/src/cli/main.js', import.meta.url));
const built = existsSync(cli);
if (!built) console.warn(`[cli serve tests skipped] ${cli} is absent: run 'npm run build' first`);

function serve(args: readonly string[], env: NodeJS.ProcessEnv = {}) {
  const child = spawn(process.execPath, [cli, 'serve', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const started = new Promise<{ url: string }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start: ${stderr}`)), 20_000);
    child.stdout.on('data', () => {
      const line = stdout.split('\n').find((l) => l.includes('"url"'));
      if (!line && !stdout.includes('}')) return;
      try {
        const parsed = JSON.parse(stdout) as { url: string };
        clearTimeout(timer);
        resolve(parsed);
      } catch {
        // wait for the whole document
      }
    });
    void exited.then(() => reject(new Error(`serve exited: ${stderr}`)));
  });
  started.catch(() => undefined); // a run that is expected to fail never awaits it
  return { child, started, exited, output: () => ({ stdout, stderr }) };
}

describe.skipIf(!built)('hedgehop serve (built CLI, child process)', () => {
  it('serves the file read-only, refuses writes, and stops on SIGTERM', async () => {
    const path = tempFile();
    const db = await openDemo(path);
    await db.close();
    const before = fileDigest(path);
    const run = serve(['--file', path, '--port', '0', '--read-only', '--watch', '--json']);
    const { url } = await run.started;
    const lines = await fetch(`${url}/api/agents/primary/lines`);
    expect(lines.status).toBe(200);
    const write = await fetch(`${url}/api/agents/primary/lines`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ id: 'new' }),
    });
    expect(write.status).toBe(403);
    expect(await (await fetch(`${url}/api/server`)).json()).toMatchObject({
      readOnly: true,
      watch: true,
      mcp: true,
    });
    const initialize = await fetch(`${url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'test', version: '1' },
        },
      }),
    });
    expect(initialize.status).toBe(200);
    expect(await initialize.json()).toMatchObject({ id: 1, result: { serverInfo: { name: 'hedgehop' } } });
    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(0);
    expect(fileDigest(path)).toBe(before);
  });

  it('refuses to bind a non-loopback address without a token (exit 1)', async () => {
    const path = tempFile();
    const db = await openDemo(path);
    await db.close();
    const run = serve(['--file', path, '--host', '0.0.0.0', '--port', '0']);
    expect(await run.exited).toBe(1);
    expect(run.output().stderr).toMatch(/INVALID_INPUT: --token: binding 0\.0\.0\.0/);
  });

  it('takes the token from HEDGEHOP_TOKEN', async () => {
    const path = tempFile();
    const db = await openDemo(path);
    await db.close();
    const token = 'env-token-0123456789abcdef';
    const run = serve(['--file', path, '--port', '0', '--json'], { HEDGEHOP_TOKEN: token });
    const { url } = await run.started;
    expect((await fetch(`${url}/api/stats`)).status).toBe(401);
    expect((await fetch(`${url}/mcp`, { method: 'POST', body: '{}' })).status).toBe(401);
    expect((await fetch(`${url}/api/stats`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(
      200,
    );
    run.child.kill('SIGINT');
    expect(await run.exited).toBe(0);
  });
});
