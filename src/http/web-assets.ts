import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, extname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** One file of the built web UI, held in memory. */
interface WebAsset {
  readonly body: Uint8Array;
  readonly contentType: string;
  /** Vite names bundled files by content hash, so they may be cached forever. */
  readonly immutable: boolean;
}

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
  '.woff2': 'font/woff2',
};

/** Largest total the loader accepts, so a wrong `webRoot` cannot pull a huge tree into memory. */
const MAX_TOTAL_BYTES = 32 * 1024 * 1024;

function walk(root: string, dir: string, into: Map<string, WebAsset>, budget: { left: number }): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) {
      walk(root, full, into, budget);
      continue;
    }
    if (!entry.isFile()) continue;
    const type = TYPES[extname(entry.name).toLowerCase()];
    if (type === undefined) continue;
    budget.left -= statSync(full).size;
    if (budget.left < 0) throw new Error(`web root ${root} holds more than ${MAX_TOTAL_BYTES} bytes`);
    const url = `/${relative(root, full).split(sep).join('/')}`;
    into.set(url, { body: readFileSync(full), contentType: type, immutable: url.startsWith('/assets/') });
  }
}

/**
 * The built UI (`dist/web`), read once into a map from URL path to content. Serving only exact
 * keys of this map means no request path, however encoded (`..`, `%2F`, NUL), can reach any
 * other file on disk.
 */
export class WebAssets {
  readonly #files: ReadonlyMap<string, WebAsset>;
  readonly root: string | undefined;

  private constructor(root: string | undefined, files: ReadonlyMap<string, WebAsset>) {
    this.root = root;
    this.#files = files;
  }

  /** Loads every servable file under `root`; an absent folder gives an empty set. */
  static load(root: string | undefined): WebAssets {
    const files = new Map<string, WebAsset>();
    if (root !== undefined && existsSync(join(root, 'index.html'))) {
      walk(root, root, files, { left: MAX_TOTAL_BYTES });
    }
    return new WebAssets(root, files);
  }

  /** True when the UI has been built. */
  get available(): boolean {
    return this.#files.has('/index.html');
  }

  /** The asset for a request path (`/` is `index.html`). */
  get(path: string): WebAsset | undefined {
    return this.#files.get(path === '/' ? '/index.html' : path);
  }
}

/**
 * Where the built UI lives: `<package>/dist/web`, found from this module whether it runs
 * from `dist/src/http/` (built) or `src/http/` (tests on the sources).
 */
export function defaultWebRoot(): string | undefined {
  const here = dirname(fileURLToPath(import.meta.url));
  const candidates = [join(here, '..', '..', 'web'), join(here, '..', '..', 'dist', 'web')];
  return candidates.find((candidate) => existsSync(join(candidate, 'index.html')));
}
