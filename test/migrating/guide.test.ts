import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/temp.js';
import { chatReply, startScriptedServer, type ScriptedServer } from '../llm/scripted-openai-server.js';

// Every example of docs/migrating.md, run in document order in one folder: ```ts blocks as
// modules (importing 'hedgehop' from this checkout), ```sh blocks line by line with the built
// CLI, and blocks under `<!-- file: NAME -->` written to NAME first. So the guide cannot drift.

const ROOT = resolve(import.meta.dirname, '../..');
const GUIDE = join(ROOT, 'docs/migrating.md');
const CLI = join(ROOT, 'dist/src/cli/main.js');

interface Block {
  readonly lang: string;
  readonly code: string;
  readonly file: string | undefined;
  readonly line: number;
}

function blocksOf(markdown: string): Block[] {
  const blocks: Block[] = [];
  const lines = markdown.split('\n');
  let file: string | undefined;
  for (let i = 0; i < lines.length; i++) {
    const text = lines[i] as string;
    const marker = /^<!-- file: (\S+) -->$/u.exec(text);
    if (marker) {
      file = marker[1];
      continue;
    }
    const fence = /^```(\w+)$/u.exec(text);
    if (!fence) continue;
    const start = i + 1;
    const body: string[] = [];
    for (i++; i < lines.length && lines[i] !== '```'; i++) body.push(lines[i] as string);
    blocks.push({ lang: fence[1] as string, code: `${body.join('\n')}\n`, file, line: start });
    file = undefined;
  }
  return blocks;
}

let server: ScriptedServer;
beforeAll(async () => {
  // Stands in for the LiteLLM proxy of the LiteLLM example.
  server = await startScriptedServer((request) =>
    JSON.stringify(request.body['messages']).includes('keywords')
      ? { json: chatReply('{"keywords":["tokens"]}') }
      : { json: chatReply('{"summary":"Rotates refresh tokens."}') },
  );
});
afterAll(async () => {
  await server.close();
});

describe('docs/migrating.md', () => {
  const blocks = blocksOf(readFileSync(GUIDE, 'utf8'));

  it('has examples of every kind it promises', () => {
    expect(blocks.filter((b) => b.lang === 'ts').length).toBeGreaterThanOrEqual(6);
    expect(blocks.filter((b) => b.lang === 'sh').length).toBeGreaterThanOrEqual(2);
    expect(blocks.filter((b) => b.file !== undefined).length).toBeGreaterThanOrEqual(1);
  });

  it('runs every example, in order', async () => {
    if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build first (npm test does)`);
    const dir = tempDir();
    const cwd = process.cwd();
    process.env['LITELLM_BASE_URL'] = server.origin;
    process.env['LITELLM_API_KEY'] = 'sk-guide';
    process.chdir(dir);
    try {
      let n = 0;
      for (const block of blocks) {
        const where = `docs/migrating.md line ${block.line}`;
        if (block.file !== undefined) {
          mkdirSync(dirname(join(dir, block.file)), { recursive: true });
          writeFileSync(join(dir, block.file), block.code);
        } else if (block.lang === 'ts') {
          const path = join(dir, `example-${n++}.ts`);
          const code = block.code
            .replaceAll("from 'hedgehop/testing'", `from '${join(ROOT, 'src/testing.ts')}'`)
            .replaceAll("from 'hedgehop'", `from '${join(ROOT, 'src/index.ts')}'`);
          writeFileSync(path, code);
          await import(path).catch((error: unknown) => {
            throw new Error(`${where}: ${String(error)}`, { cause: error });
          });
        } else if (block.lang === 'sh') {
          for (const command of block.code.split('\n').filter((l) => l.trim() !== '')) {
            expect(command.startsWith('hedgehop '), where).toBe(true);
            const run = spawnSync('sh', ['-c', `node "${CLI}" ${command.slice('hedgehop '.length)}`], {
              cwd: dir,
              encoding: 'utf8',
            });
            expect(run.status, `${where}: ${command}\n${run.stderr}`).toBe(0);
          }
        }
      }
      expect(server.requests.some((r) => r.body['model'] === 'anthropic/claude-3-5-sonnet')).toBe(true);
    } finally {
      process.chdir(cwd);
    }
  }, 120_000);
});
