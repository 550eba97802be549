/**
 * Out-of-fold per-pixel ship classifiers (src/analysis/ship/pixelClassifier.ts) of the SSDD
 * DEVELOPMENT chips, one per fold of seaLandData.ts `foldsByRun` (the candidate classifier's
 * folds), fitted on the other two folds with fitPixelClassifier.ts's rows and trees, so that a
 * candidate's pixel probabilities (inshoreRows.ts --pixel-models) come from a model that never saw
 * its chip (issue 23 §1 experiment). Written to `--out` (read back by inshoreRows.ts).
 *
 *   node --import tsx training/ship/oofPixel.ts --out /tmp/pixel-models.json [--every 2]
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { SSDD_DIR, decodeLuma, greyAmplitudeToSigma0, loadSsddChips, type SsddChip } from '../../eval/shipChips.ts';
import { PIXEL_FEATURES, featuresAt, pixelFeatureField } from '../../src/analysis/ship/pixelClassifier.ts';
import { fillRingSpans } from '../../src/raster/canvas.ts';
import { mulberry32 } from '../../src/prng.ts';
import { trainGbt, type GbtOptions } from '../oilslick/gbtTrain.ts';
import { foldsByRun, runOf, ssddOutlines } from './seaLandData.ts';
import { arg } from './args.ts';

/** fitPixelClassifier.ts's trees and gate. */
const GBT: Partial<GbtOptions> = { trees: 80, maxDepth: 4, learningRate: 0.1, minChildWeight: 5, subsample: 0.7, seed: 23 };
const GATE = 1.5;
const every = Number(arg('every', '1'));
const t0 = process.cpuUsage();
const cpu = () => `${((process.cpuUsage(t0).user + process.cpuUsage(t0).system) / 1e6).toFixed(0)} CPU s`;
const outlinesOf = ssddOutlines();
const chips = loadSsddChips().filter((c) => c.split === 'dev');
const foldOf = foldsByRun(chips);
const rand = mulberry32(23);
const rows: Array<{ fold: number; x: number[]; y: number }> = [];
const used = chips.filter((c) => runOf(c) % every === 0);
for (const chip of used as SsddChip[]) {
  const img = decodeLuma(readFileSync(path.join(SSDD_DIR, 'images', chip.file)));
  const sigma0 = greyAmplitudeToSigma0(img.grey);
  const field = pixelFeatureField(sigma0, new Uint8Array(chip.width * chip.height).fill(1), chip.width, chip.height);
  const ship = new Uint8Array(chip.width * chip.height);
  for (const rings of outlinesOf(chip.file)) fillRingSpans(rings, chip.width, chip.height, (y, xa, xb) => ship.fill(1, y * chip.width + xa, y * chip.width + xb));
  for (let i = 0; i < ship.length; i++) {
    const g = field.gate[i]!;
    if (!(g >= GATE)) continue;
    const keep = ship[i] ? 0.05 : g >= 4 ? 0.02 : 0.002;
    if (rand() < keep) rows.push({ fold: foldOf.get(runOf(chip))!, x: featuresAt(field, i), y: ship[i]! });
  }
}
console.log(`${used.length} development chips, ${rows.length} rows (${rows.filter((r) => r.y).length} ship pixels); ${cpu()}`);
const models = [0, 1, 2].map((f) => {
  const train = rows.filter((r) => r.fold !== f);
  return { ...trainGbt(train.map((r) => r.x), train.map((r) => r.y), null, GBT), featureNames: [...PIXEL_FEATURES] };
});
writeFileSync(arg('out', '/tmp/pixel-models.json'), JSON.stringify(models));
console.log(`3 out-of-fold pixel models; ${cpu()}`);
