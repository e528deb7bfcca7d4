import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/**
 * The layers of src/ (DESIGN.md §2) and what each may import: core <- store <- recall <- memory <-
 * api <- {cli, mcp, http}; llm beside, used by recall, memory and api. Surfaces reach the domain
 * only through api/ and core/ (core/model is the vocabulary; core's other modules are errors and
 * text helpers). cli, the entry point, composes mcp, http and eval; mcp and http never import each
 * other. `npm run lint` also runs a cycle check (dependency-cruiser, .dependency-cruiser.cjs).
 */
const LAYERS = {
  core: [],
  store: ['core'],
  llm: ['core'],
  recall: ['core', 'store', 'llm'],
  memory: ['core', 'store', 'recall', 'llm'],
  api: ['core', 'store', 'recall', 'llm', 'memory'],
  eval: ['core', 'api'],
  mcp: ['core', 'api'],
  http: ['core', 'api'],
  cli: ['core', 'api', 'mcp', 'http', 'eval'],
};
const ALL_LAYERS = [...Object.keys(LAYERS), 'web'];
const SQLITE_BAN = { name: 'better-sqlite3', message: 'Only src/store/ may import better-sqlite3.' };

/** One no-restricted-imports block per layer: every layer it may not import, by folder. */
function layerRules() {
  return Object.entries(LAYERS).map(([layer, allowed]) => {
    const forbidden = ALL_LAYERS.filter((other) => other !== layer && !allowed.includes(other));
    return {
      files: [`src/${layer}/**/*.ts`],
      rules: {
        'no-restricted-imports': [
          'error',
          {
            paths: layer === 'store' ? [] : [SQLITE_BAN],
            patterns: [
              {
                regex: `^(\\.\\./)+(${forbidden.join('|')})/`,
                message: `src/${layer}/ may import only ${allowed.length ? allowed.join(', ') : 'core'} (DESIGN.md §2: imports point one way).`,
              },
              {
                regex: '^(\\.\\./)+index\\.js$',
                message: 'Import the module itself, not the package entry src/index.ts.',
              },
            ],
          },
        ],
      },
    };
  });
}

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'src/web/dist/**', 'docs/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  { languageOptions: { globals: { ...globals.node } } },
  { files: ['src/web/**/*.{ts,tsx}'], languageOptions: { globals: { ...globals.browser } } },
  {
    rules: {
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-syntax': [
        'error',
        { selector: 'ExportDefaultDeclaration', message: 'No default exports (CONVENTIONS.md §8).' },
        { selector: 'ExportAllDeclaration', message: 'No export * (CONVENTIONS.md §8).' },
      ],
    },
  },
  ...layerRules(),
  // A repository call may return a Promise (the engine seam), so a missing await must not pass.
  // Type-aware, hence slow on our shared machines: `HEDGEHOP_LINT_TYPED=1 npx eslint src test bench`.
  ...(process.env.HEDGEHOP_LINT_TYPED ? [typedPromiseRules()] : []),
  {
    files: ['*.config.ts', '*.config.js', 'eslint.config.js'],
    rules: { 'no-restricted-syntax': 'off' },
  },
);

function typedPromiseRules() {
  return {
    files: ['src/**/*.ts', 'test/**/*.ts', 'bench/**/*.ts'],
    ignores: ['src/web/**'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }],
    },
  };
}
