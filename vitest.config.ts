import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Two cores: more forks than that only thrash.
    pool: 'forks',
    maxWorkers: 2,
  },
});
