import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
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
