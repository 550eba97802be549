/**
 * Runs once before the test files (vitest globalSetup): expensive shared fixtures are made here,
 * once per machine and reused by later runs (test/helpers/demoArchive.ts).
 */
import { ensureDemoArchiveCache } from './helpers/demoArchive.ts';

export default async function setup(): Promise<void> {
  const t0 = Date.now();
  const demo = await ensureDemoArchiveCache();
  if (demo.generated) console.info(`globalSetup: generated the demo archive for the tests in ${((Date.now() - t0) / 1000).toFixed(1)} s (reused by later runs)`);
}
