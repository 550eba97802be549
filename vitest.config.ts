import path from 'node:path';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

// SARWATCH_TEST_REPORT=<file>: also write vitest's JSON report there (each file's duration), so .ci/run
// can print the slowest files while it runs exactly the README's `npm test`.
const report = process.env.SARWATCH_TEST_REPORT;

/**
 * The slowest files of a plain `npm test` (README, "The test suite"), slowest first. They start
 * first, so the two workers end together instead of one running a minutes-long file alone at the
 * end. vitest orders by the last run's durations only when it has them (node_modules/.vite): a
 * fresh clone's first run would otherwise order by file size, which put these anywhere.
 */
const SLOWEST_FIRST = [
  'test/cli/analyze-sigma0.test.ts',
  'test/e2e/scaledOut.test.ts',
  // Only with SARWATCH_E2E_FULL=1 (.ci/run); skipped at once otherwise.
  'test/e2e/scaledOutTiles.test.ts',
  'test/e2e/cancelFullScene.test.ts',
  'test/cli/cli.test.ts',
  'test/e2e/shipOilslick.test.ts',
  'test/web/dashboard.test.ts',
  'test/cli/analyze-rtc.test.ts',
  'test/cli/roles.test.ts',
  'test/analysis/endpointPins.test.ts',
  'test/api/jobEvents.test.ts',
];

class SlowestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (f: TestSpecification) => {
      const i = SLOWEST_FIRST.indexOf(path.relative(f.project.config.root, f.moduleId).split(path.sep).join('/'));
      return i < 0 ? SLOWEST_FIRST.length : i;
    };
    // A stable sort: the rest keep vitest's order (last durations, else size).
    return sorted.map((f, i) => ({ f, i, r: rank(f) })).sort((a, b) => a.r - b.r || a.i - b.i).map(({ f }) => f);
  }
}

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
    sequence: { sequencer: SlowestFirstSequencer },
  },
});
