import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { ESLint } from 'eslint';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const run = promisify(execFile);

/** The import rule messages ESLint gives `code` as if it stood at `filePath`. */
async function importErrors(filePath: string, code: string): Promise<string[]> {
  const eslint = new ESLint({ cwd: ROOT });
  const [result] = await eslint.lintText(code, { filePath: join(ROOT, filePath) });
  return (result?.messages ?? [])
    .filter((message) => message.ruleId === 'no-restricted-imports')
    .map((message) => message.message);
}

describe('layer rules (eslint.config.js)', () => {
  it.each([
    ['src/store/upward.ts', "import type { MemoryContext } from '../memory/context.js';"],
    ['src/core/upward.ts', "import type { Store } from '../store/store.js';"],
    ['src/llm/upward.ts', "import { recall } from '../recall/recall.js';"],
    ['src/recall/upward.ts', "import type { Agent } from '../api/agent.js';"],
    ['src/memory/radial/upward.ts', "import { openMemory } from '../../api/memory-db.js';"],
    ['src/cli/commands/around.ts', "import { Store } from '../../store/store.js';"],
    ['src/http/routes/around.ts', "import { archiveInputSchema } from '../../memory/archive/archive.js';"],
    ['src/mcp/sideways.ts', "import { createHttpApp } from '../http/create-http-app.js';"],
    ['src/http/sideways.ts', "import { createMcpServer } from '../mcp/create-mcp-server.js';"],
    ['src/api/engine.ts', "import Database from 'better-sqlite3';"],
  ])('refuses %s: %s', async (filePath, code) => {
    const errors = await importErrors(filePath, `${code}\nexport {};\n`);
    expect(errors.length, errors.join('\n')).toBeGreaterThan(0);
  });

  it.each([
    ['src/memory/radial/down.ts', "import type { Store } from '../../store/store.js';"],
    ['src/api/down.ts', "import { recall } from '../recall/recall.js';"],
    ['src/cli/commands/down.ts', "import type { RecallHit } from '../../core/model/recall.js';"],
    ['src/cli/compose.ts', "import { createMcpServer } from '../mcp/create-mcp-server.js';"],
    ['src/store/sqlite.ts', "import Database from 'better-sqlite3';"],
  ])('allows %s: %s', async (filePath, code) => {
    expect(await importErrors(filePath, `${code}\nexport {};\n`)).toEqual([]);
  });
});

describe('cycle check (.dependency-cruiser.cjs)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'hedgehop-cycle-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** Runs the project's cycle check over a tree of `files`; its exit code and report. */
  async function cruise(files: Record<string, string>): Promise<{ code: number; output: string }> {
    rmSync(join(dir, 'src'), { recursive: true, force: true });
    for (const [name, text] of Object.entries(files)) {
      mkdirSync(join(dir, 'src', name, '..'), { recursive: true });
      writeFileSync(join(dir, 'src', name), text);
    }
    copyFileSync(join(ROOT, '.dependency-cruiser.cjs'), join(dir, '.dependency-cruiser.cjs'));
    copyFileSync(join(ROOT, 'tsconfig.json'), join(dir, 'tsconfig.json'));
    const bin = join(ROOT, 'node_modules', '.bin', 'depcruise');
    try {
      const { stdout } = await run(
        bin,
        ['src', '--config', '.dependency-cruiser.cjs', '--output-type', 'err'],
        {
          cwd: dir,
        },
      );
      return { code: 0, output: stdout };
    } catch (error) {
      const failed = error as { code?: number; stdout?: string };
      return { code: failed.code ?? -1, output: failed.stdout ?? '' };
    }
  }

  it('fails on a cycle, type-only imports included', async () => {
    const result = await cruise({
      'a.ts': "import type { B } from './b.js';\nexport interface A { b?: B }\n",
      'b.ts': "import type { A } from './a.js';\nexport interface B { a?: A }\n",
    });
    expect(result.code).not.toBe(0);
    expect(result.output).toMatch(/no-circular/);
  }, 60_000);

  it('passes a tree whose imports point one way', async () => {
    const result = await cruise({
      'a.ts': "import { b } from './b.js';\nexport const a = b + 1;\n",
      'b.ts': 'export const b = 1;\n',
    });
    expect(result.code, result.output).toBe(0);
  }, 60_000);
});
