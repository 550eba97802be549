/**
 * Where the data this repository reads lives, in one place for src, tests, eval, bench and
 * training.
 *
 * - `samples/`: the real Sentinel-1 samples, committed (samples/README.md, s1/SOURCES.md),
 *   so a fresh clone tests itself and `npm start` links them into the demo archive.
 * - Development-only data that stays outside the repository (too large, or kept apart on
 *   purpose) — today the CSIRO oil / no-oil chips, `oil-csiro-dev` — is looked for beside
 *   the clone (`../shared/data`, or SARWATCH_DEV_DATA). This is the one place that looks
 *   outside; a fresh clone has nothing there, so whatever needs such data is skipped and
 *   says so.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's root folder. */
export const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url)).replace(/[/\\]$/, '');
export const SAMPLES = path.join(REPO_ROOT, 'samples');
/** Real Sentinel-1 products (SAFE folders and zips, RTC GeoTIFFs), original paths kept per folder. */
export const S1_DATA = path.join(SAMPLES, 's1');
/** Real STAC Items and Collections for Sentinel-1 (stactools-packages/sentinel1 examples/). */
export const STAC_EXAMPLES = path.join(SAMPLES, 'stac-examples', 'examples');

/** Where development-only data sets are looked for. */
export const DEV_DATA = process.env.SARWATCH_DEV_DATA ?? path.resolve(REPO_ROOT, '../shared/data');

/** The development-only data sets known here. */
export type DevDatasetName = 'oil-csiro-dev';

export interface DevDataset {
  name: DevDatasetName;
  dir: string;
  present: boolean;
  /**
   * Append to a `describe.skipIf(!ds.present)` name: empty when present, otherwise
   * " (SKIPPED: development-only data <name> is not at <dir>)", so the report says why.
   */
  skipNote: string;
}

export function devDataset(name: DevDatasetName): DevDataset {
  const dir = path.join(DEV_DATA, name);
  const present = existsSync(dir);
  return { name, dir, present, skipNote: present ? '' : ` (SKIPPED: development-only data ${name} is not at ${dir}; set SARWATCH_DEV_DATA)` };
}
