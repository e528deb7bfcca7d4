import { readFileSync } from 'node:fs';

/** The package's version, read from its package.json (found above this module in src/ or dist/src/). */
export function packageVersion(): string {
  for (const relative of ['../../package.json', '../../../package.json']) {
    try {
      const json = JSON.parse(readFileSync(new URL(relative, import.meta.url), 'utf8')) as {
        name?: string;
        version?: string;
      };
      if (json.name === 'hedgehop' && typeof json.version === 'string') return json.version;
    } catch {
      // not at this level; try the next
    }
  }
  return '0.0.0';
}
