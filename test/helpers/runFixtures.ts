/**
 * Results made once per test run and shared by the files that check them (issue 19 §3): the
 * first file to ask makes one under the run's folder (SARWATCH_TEST_RUN_DIR, made by
 * test/globalSetup.ts and removed after the run), the others wait for it. Unlike the demo
 * archive (test/helpers/demoArchive.ts) nothing is kept across runs: these are outputs of the
 * code under test, so each run makes them afresh.
 *
 * - `northSeaShipRun()`: `sarwatch analyze ship` on the real North-Sea crop (about 8 CPU s a
 *   process), checked by test/cli/cli.test.ts (the command a user types) and used as the
 *   reference of test/cli/analyze-sigma0.test.ts (the σ0 GeoTIFFs made from that product).
 */
import fs from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Polygon } from '../../src/geo/index.ts';
import { runSarwatch, type CliRun } from './cli.ts';
import { NORTH_SEA_SAFE } from '../imagery/fixtures.ts';

export interface ShipRun extends CliRun {
  /** The --out file's FeatureCollection (null when the command wrote none). */
  fc: { type: string; features: { id: number; geometry: Polygon; properties: Record<string, unknown> }[] } | null;
  /** The command that was run (after `sarwatch`). */
  args: string[];
}

const WAIT_MS = 600_000;

/**
 * The value `make(dir)` resolves to, made once per run under `<run dir>/<name>`: the caller that
 * creates the lock folder makes it and writes it (JSON, renamed into place whole); every other
 * caller, in this process or another, waits for that file. Outside a vitest run with the
 * global setup (no SARWATCH_TEST_RUN_DIR), each caller makes its own.
 */
async function once<T>(name: string, make: (dir: string) => Promise<T>): Promise<T> {
  const runDir = process.env.SARWATCH_TEST_RUN_DIR;
  if (!runDir) return make(fs.mkdtempSync(path.join(tmpdir(), `sarwatch-${name}-`)));
  const dir = path.join(runDir, name);
  const done = path.join(runDir, `${name}.json`);
  let mine = false;
  try {
    fs.mkdirSync(dir);
    mine = true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
  const failed = path.join(runDir, `${name}.failed`);
  if (mine) {
    let value: T;
    try {
      value = await make(dir);
    } catch (e) {
      // The waiting files fail at once with the maker's reason instead of waiting out WAIT_MS.
      fs.writeFileSync(failed, String((e as Error)?.stack ?? e));
      throw e;
    }
    fs.writeFileSync(`${done}.part`, JSON.stringify(value));
    fs.renameSync(`${done}.part`, done);
    return value;
  }
  const end = Date.now() + WAIT_MS;
  while (!fs.existsSync(done)) {
    if (fs.existsSync(failed)) throw new Error(`the shared fixture ${name} failed in the file that made it:\n${fs.readFileSync(failed, 'utf8')}`);
    if (Date.now() > end) throw new Error(`${done} was not written within ${WAIT_MS / 1000} s (its maker was killed)`);
    await new Promise((r) => setTimeout(r, 250));
  }
  return JSON.parse(fs.readFileSync(done, 'utf8')) as T;
}

/** `sarwatch analyze ship NORTH_SEA_SAFE --out FILE`, once per run: exit code, stdout, stderr and the file's features. */
export function northSeaShipRun(): Promise<ShipRun> {
  return once('north-sea-ships', async (dir) => {
    const out = path.join(dir, 'ships.geojson');
    const args = ['analyze', 'ship', NORTH_SEA_SAFE, '--out', out];
    const run = await runSarwatch(path.join(dir, 'data'), ...args);
    const fc = fs.existsSync(out) ? (JSON.parse(fs.readFileSync(out, 'utf8')) as ShipRun['fc']) : null;
    return { ...run, fc, args };
  });
}
