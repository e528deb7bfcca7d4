import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const webSource = fileURLToPath(new URL('./src/web', import.meta.url));
const webOutput = fileURLToPath(new URL('./dist/web', import.meta.url));

// Bundles the browser UI (src/web) into dist/web, which `hedgehop serve` serves from memory.
// Everything the page needs ends up in that folder: no CDN, no external request at run time.
export default defineConfig({
  root: webSource,
  base: '/',
  publicDir: false,
  logLevel: 'warn',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: webOutput,
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    reportCompressedSize: false,
  },
});
