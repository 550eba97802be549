/**
 * Development-only data that stays outside the repository (too large, or kept apart on
 * purpose) — the CSIRO oil / no-oil chips (`oil-csiro-dev`), the SSDD and OpenSARShip ship chips — looked for beside the
 * clone (`../shared/data`, or SARWATCH_DEV_DATA). This is the one place that looks outside;
 * a fresh clone has nothing there, so whatever needs such data is skipped and says so.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from './repoPaths.ts';

/** Where development-only data sets are looked for. */
export const DEV_DATA = process.env.SARWATCH_DEV_DATA ?? path.resolve(REPO_ROOT, '../shared/data');

/** The development-only data sets known here. */
export type DevDatasetName = 'oil-csiro-dev' | 'ship-ssdd-dev' | 'ship-opensarship-dev';

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
