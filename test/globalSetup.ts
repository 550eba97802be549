/**
 * Runs once before the test files (vitest globalSetup): build/ is brought up to date with src/
 * (bin/build-src.js), so the `sarwatch` processes and pool threads the tests start run the code
 * under test precompiled; expensive shared fixtures are made here, once per machine and reused
 * by later runs (test/helpers/demoArchive.ts); and the run's own folder is made, where the files
 * share results made once per run (test/helpers/runFixtures.ts).
 */
import fs from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { build } from '../bin/build-src.js';
import { ensureDemoArchiveCache } from './helpers/demoArchive.ts';

export default async function setup(): Promise<() => void> {
  // The test processes are forked after this, with this environment. Kept if set (a setup per project).
  const made = !process.env.SARWATCH_TEST_RUN_DIR;
  if (made) process.env.SARWATCH_TEST_RUN_DIR = fs.mkdtempSync(path.join(tmpdir(), 'sarwatch-test-run-'));
  const runDir = process.env.SARWATCH_TEST_RUN_DIR!;
  const built = await build();
  if (built.compiled + built.copied + built.removed > 0) {
    console.info(`globalSetup: built src/ into build/ (${built.compiled} compiled, ${built.copied} copied, ${built.removed} removed) in ${(built.ms / 1000).toFixed(1)} s`);
  }
  const t0 = Date.now();
  const demo = await ensureDemoArchiveCache();
  if (demo.generated) console.info(`globalSetup: generated the demo archive for the tests in ${((Date.now() - t0) / 1000).toFixed(1)} s (reused by later runs)`);
  return () => {
    if (made) fs.rmSync(runDir, { recursive: true, force: true });
  };
}
