import os from 'node:os';
import path from 'node:path';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

// SARWATCH_TEST_REPORT=<file>: also write vitest's JSON report there (each file's duration), so .ci/run
// can print the slowest files while it runs exactly the README's `npm test`.
const report = process.env.SARWATCH_TEST_REPORT;
// SARWATCH_TEST_CPU=<file>: each file's CPU seconds, its processes' included (test/helpers/cpuReport.ts).
const cpuReport = process.env.SARWATCH_TEST_CPU;

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

/**
 * Files that keep a fresh process each (vitest's isolation); every other file runs in a worker
 * shared with the files before it (`isolate: false`), so the service's modules (src/runtime.ts:
 * fastify, geotiff, proj4, the store, the detectors; about 2.5 CPU s a file) load once per worker
 * instead of once per file. The shared files hold no process-wide state of their own: no
 * vi.mock or stubbed globals, process.env restored where set (test/catalog/provider-cdse), and
 * the source installs no process handlers and keeps no global metric registry at import. Kept
 * isolated: files that start `sarwatch` processes or browsers (where module loading is not the
 * cost), check what this process has loaded (test/cli/noAwsSdk), or time this process's event
 * loop, memory or shutdown (another file's leftover pool threads or buffers could disturb it).
 */
const ISOLATED = [
  'test/cli/**',
  'test/e2e/**',
  'test/web/**',
  'test/repo/**',
  'test/bench/**',
  'test/api/cancel.test.ts',
  'test/api/jobEvents.test.ts',
  'test/api/storeUnavailable.test.ts',
  'test/imagery/safe-rome.test.ts',
  // Sets the AWS credentials in process.env for the whole file, as the SDK reads them in production.
  'test/objects/s3.test.ts',
  'test/store/sqliteBusy.test.ts',
  'test/worker/shutdown.test.ts',
];

export default defineConfig({
  test: {
    ...(report ? { reporters: ['default', 'json'], outputFile: { json: report } } : {}),
    projects: [
      { extends: true, test: { name: 'isolated', include: ISOLATED } },
      { extends: true, test: { name: 'shared', include: ['test/**/*.test.ts'], exclude: ISOLATED, isolate: false } },
    ],
    // Shared fixtures made once per run (and cached across runs): the demo archive.
    globalSetup: ['test/globalSetup.ts'],
    ...(cpuReport ? { setupFiles: ['test/helpers/cpuReport.ts'] } : {}),
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // One fork more than the cores: many files spend part of their time waiting (leases, timers,
    // child processes, browsers), and a third fork on two cores fills that time — a newcomer's
    // run 6.5 → 4.9 min, less CPU in all (README, The test suite).
    pool: 'forks',
    maxWorkers: os.availableParallelism() + 1,
    sequence: { sequencer: SlowestFirstSequencer },
  },
});
