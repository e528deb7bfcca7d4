import { expect, it } from 'vitest';
import { createHttpApp } from '../../src/http/create-http-app.js';
import { openMemory } from '../../src/api/memory-db.js';
import { startChild } from '../helpers/child.js';
import { runCliInProcess } from '../helpers/cli-in-process.js';
import { describeEngines } from '../helpers/engines.js';
import { openDemo } from '../http/demo-memory.js';

// "Reads never block": while another process holds the write lock (SQLite: BEGIN IMMEDIATE;
// PostgreSQL: every table of the memory locked IN EXCLUSIVE MODE, see children/hold-write-lock.mjs),
// opening an up-to-date memory and every read command and read endpoint still succeed.
describeEngines('reads while another process holds the write lock', (engine) => {
  it('every read command of the CLI succeeds, and a write still reports BUSY', async () => {
    const path = engine.memoryPath();
    const db = await openDemo(path);
    await db.agent('helper');
    await db.close();
    const holder = startChild('hold-write-lock.mjs', [path]);
    try {
      await holder.waitFor((line) => line === 'holding');
      const before = await engine.digest(path);
      const reads = [
        ['origin'],
        ['lines'],
        ['history', 'auth'],
        ['recall', 'refresh token'],
        ['navigate', 'refresh token rotation'],
        ['load', '--line', 'auth', '--position', '1'],
        ['load', 'refresh token'],
        ['stats'],
        ['agents'],
        ['origin', '--agent', 'helper'],
        ['kg', 'list'],
      ];
      for (const args of reads) {
        const run = await runCliInProcess([...args, '--file', path, '--busy-timeout', '200', '--json']);
        expect(run.status, `${args.join(' ')}: ${run.stderr}`).toBe(0);
        expect(() => JSON.parse(run.stdout) as unknown, args.join(' ')).not.toThrow();
      }
      const write = await runCliInProcess(
        [
          'commit',
          '--file',
          path,
          '--busy-timeout',
          '200',
          '--line',
          'auth',
          '--label',
          'blocked',
          '--context',
          '-',
        ],
        { stdin: 'text' },
      );
      expect(write.status, write.stderr).toBe(3);
      expect(write.stderr).toContain('BUSY');
      expect(await engine.digest(path)).toBe(before);
    } finally {
      holder.process.kill('SIGKILL');
      await holder.exited;
    }
  });

  it('an HTTP app opened while the lock is held answers every read endpoint', async () => {
    const path = engine.memoryPath();
    const seeded = await openDemo(path);
    const nodeId = (await seeded.primary().radial.getLineHistory('auth'))[0]!.nodeId;
    await seeded.close();
    const holder = startChild('hold-write-lock.mjs', [path]);
    try {
      await holder.waitFor((line) => line === 'holding');
      const db = await openMemory(path, { busyTimeoutMs: 200 });
      const app = createHttpApp(db, { webRoot: false });
      const gets = [
        '/api/stats',
        '/api/agents',
        '/api/data-version',
        '/api/knowledge',
        '/api/agents/primary/origin',
        '/api/agents/primary/radial',
        '/api/agents/primary/lines',
        '/api/agents/primary/lines/auth',
        '/api/agents/primary/lines/auth/history',
        '/api/agents/primary/lines/auth/nodes/1',
        `/api/agents/primary/nodes/${nodeId}/full`,
        '/api/agents/primary/profile',
        '/api/agents/primary/scenes',
        '/api/agents/primary/archive?text=token',
        '/api/agents/primary/engram',
        '/api/agents/primary/dreams',
      ];
      for (const url of gets) {
        const response = await app.request(url);
        expect(response.status, `${url}: ${await response.clone().text()}`).toBe(200);
      }
      for (const [url, body] of [
        ['/api/agents/primary/recall', { query: 'refresh token' }],
        ['/api/agents/primary/navigate', { query: 'refresh token rotation' }],
      ] as const) {
        const response = await app.request(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        expect(response.status, `${url}: ${await response.clone().text()}`).toBe(200);
      }
      await db.close();
    } finally {
      holder.process.kill('SIGKILL');
      await holder.exited;
    }
  });
});
