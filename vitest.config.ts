import { defineConfig } from 'vitest/config';

// SARWATCH_TEST_REPORT=<file>: also write vitest's JSON report there (each file's duration), so .ci/run
// can print the slowest files while it runs exactly the README's `npm test`.
const report = process.env.SARWATCH_TEST_REPORT;

export default defineConfig({
  test: {
    ...(report ? { reporters: ['default', 'json'], outputFile: { json: report } } : {}),
    include: ['test/**/*.test.ts'],
    // Shared fixtures made once per run (and cached across runs): the demo archive.
    globalSetup: ['test/globalSetup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Two cores: more forks than that only thrash.
    pool: 'forks',
    maxWorkers: 2,
  },
});
