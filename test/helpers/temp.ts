import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';

const dirs: string[] = [];

/** A fresh temporary folder for this test, removed after it. */
export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'hedgehop-test-'));
  dirs.push(dir);
  return dir;
}

/** A path for a new memory file in a fresh folder. */
export function tempFile(name = 'memory.db'): string {
  return join(tempDir(), name);
}

afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** SHA-256 of the file and its WAL, to prove a rejected call changed nothing. */
export function fileDigest(path: string): string {
  const hash = createHash('sha256');
  for (const suffix of ['', '-wal']) {
    if (existsSync(path + suffix)) hash.update(readFileSync(path + suffix));
  }
  return hash.digest('hex');
}
