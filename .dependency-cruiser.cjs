/**
 * Import rules for src/ and training/, checked by test/repo/imports.test.ts (part of `npm test`;
 * by hand: `npx depcruise src training`). Type-only and dynamic imports count.
 */
module.exports = {
  forbidden: [
    {
      name: 'no-folder-circle',
      severity: 'error',
      comment: 'Two folders that import each other (directly or round a ring) cannot be read on their own.',
      scope: 'folder',
      from: { path: '^(src|training)/' },
      to: { circular: true },
    },
    {
      name: 'contract-imports-nothing',
      severity: 'error',
      comment: 'src/contract/ is the interface spec as types and schemas: it imports nothing else of the project.',
      from: { path: '^src/contract/' },
      to: { path: '^(src|training|bench|eval|test|bin)/', pathNot: '^src/contract/' },
    },
    {
      name: 'port-imports-no-wiring',
      severity: 'error',
      comment: 'The detectors\' port (src/analysis/port.ts) is types over the contract, geometry and scene records only.',
      from: { path: '^src/analysis/port[.]ts$' },
      to: { path: '^src/', pathNot: '^src/(contract|geo|catalog/types[.]ts$)' },
    },
    {
      name: 'analysis-not-endpoints',
      severity: 'error',
      comment: 'Detectors do not know the endpoint table or the registry: src/endpoints/ imports them.',
      from: { path: '^src/analysis/' },
      to: { path: '^src/endpoints/' },
    },
    {
      name: 'detectors-not-adapters',
      severity: 'error',
      comment: 'A detector is called by its adapter (src/analysis/modules/), never the reverse.',
      from: { path: '^src/analysis/(ship|oilslick|change|timeseries|idlefarm|common)/' },
      to: { path: '^src/analysis/modules/' },
    },
    {
      name: 'src-not-training',
      severity: 'error',
      comment: 'Model fitting lives in training/; the product (src/) reads only the fitted model files.',
      from: { path: '^src/' },
      to: { path: '^training/' },
    },
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^src/web/' },
  },
};
