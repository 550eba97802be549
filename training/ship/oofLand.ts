/**
 * Out-of-fold sea/land segmenters of the SSDD development chips (one per fold of
 * seaLandData.ts `foldsByRun`, fitted on the other two folds), shared by fitClassifier.ts and
 * diagnoseInshore.ts. Fitting the three costs ~1–2 CPU min on the shared box, so with `cacheFile`
 * they are written there once and read back while the file exists (delete it after changing the
 * segmenter's features or data).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { SsddChip } from '../../eval/shipChips.ts';
import type { GbtModel } from '../../src/analysis/oilslick/gbt.ts';
import { chipCells, fitSeaLand, foldsByRun, seaLandRows } from './seaLandData.ts';

export type LandModel = GbtModel & { featureNames: string[] };

export function outOfFoldLandModels(chips: SsddChip[], cacheFile?: string): LandModel[] {
  if (cacheFile && existsSync(cacheFile)) return JSON.parse(readFileSync(cacheFile, 'utf8')) as LandModel[];
  const foldOf = foldsByRun(chips);
  const landRows = seaLandRows(chips.map(chipCells));
  const models = [0, 1, 2].map((f) => fitSeaLand(landRows.filter((r) => foldOf.get(r.run) !== f)));
  if (cacheFile) writeFileSync(cacheFile, JSON.stringify(models));
  return models;
}
