/**
 * The cycle check of `npm run lint` (dependency-cruiser). Layer rules live in eslint.config.js
 * (no-restricted-imports per layer); this file forbids import cycles anywhere in src/, type-only
 * imports included: a cycle is a knot the next engineer must untie before changing either side.
 */
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'Imports point one way (DESIGN.md §2): no module may reach itself through its imports.',
      from: { path: '^src' },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)dist/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.tsx', '.js'] },
  },
};
