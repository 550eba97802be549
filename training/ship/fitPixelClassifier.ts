/**
 * Fits the per-pixel ship classifier (src/analysis/ship/pixelClassifier.ts → pixelModel.json) on
 * the SSDD DEVELOPMENT chips only (eval/shipChips.ts split; validation runs are never read here).
 * Labels: a pixel is a ship pixel when its centre lies inside a ship outline (labels.json
 * polygons). Rows: pixels passing the widest gate (3 × 3 mean ≥ 1.5 × the sea level), ship pixels
 * sampled at 1 in 20, others at 1 in 500 (1 in 50 where the 3 × 3 mean is ≥ 4 × the sea level: the
 * quays and land the model must learn to refuse). The gate, the component thresholds (low, high)
 * and the smallest object are chosen on out-of-fold probabilities (3 folds by run inside the
 * development chips), scored as the eval scores objects (centroid ≤ 100 m of a box centre,
 * one-to-one), for the best mean of the inshore and offshore F1; the committed trees are then
 * fitted on all development rows.
 *
 *   node --import tsx training/ship/fitPixelClassifier.ts [--half] [--dry]
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { MATCH_DISTANCE_M, SSDD_DIR, SSDD_PIXEL_M, decodeLuma, greyAmplitudeToSigma0, loadSsddChips, type SsddChip } from '../../eval/shipChips.ts';
import { scoreMatches } from '../../eval/scoring/shipEval.ts';
import { gbtPredict } from '../../src/analysis/oilslick/gbt.ts';
import { PIXEL_FEATURES, PIXEL_FEATURE_COUNT, featuresAt, pixelFeatureField, pixelObjects, type PixelModel } from '../../src/analysis/ship/pixelClassifier.ts';
import { fillRingSpans } from '../../src/raster/canvas.ts';
import { mulberry32 } from '../../src/prng.ts';
import { trainGbt, type GbtOptions } from '../oilslick/gbtTrain.ts';
import { ssddOutlines } from './seaLandData.ts';

const GBT: Partial<GbtOptions> = { trees: 80, maxDepth: 4, learningRate: 0.1, minChildWeight: 5, subsample: 0.7, seed: 23 };
const GATES = [1.5, 2.5];
const LOWS = [0.3, 0.5];
const HIGHS = [0.6, 0.8, 0.9, 0.95];
const MIN_PIXELS = [4, 16, 40];
const t0 = process.cpuUsage();

/** Ship-pixel mask of a chip from its outlines (COCO polygons, even-odd). */
function shipMask(chip: SsddChip, polygons: number[][][]): Uint8Array {
  const m = new Uint8Array(chip.width * chip.height);
  for (const rings of polygons) fillRingSpans(rings, chip.width, chip.height, (y, xa, xb) => m.fill(1, y * chip.width + xa, y * chip.width + xb));
  return m;
}

const outlinesOf = ssddOutlines();

const runOf = (c: SsddChip) => Math.floor((c.number - 1) / 20);
// Every development run, or with --half every other one (the fit's CPU time halves; the
// validation runs are never read either way).
const half = process.argv.includes('--half');
const chips = loadSsddChips().filter((c) => c.split === 'dev' && (!half || runOf(c) % 2 === 0));
const runs = [...new Set(chips.map(runOf))].sort((a, b) => a - b);
const foldOf = new Map(runs.map((r, i) => [r, i % 3]));

interface Row {
  fold: number;
  gate: number;
  x: number[];
  y: number;
}
const rows: Row[] = [];
const rand = mulberry32(23);
/** Per chip, the pixels passing the widest gate and their features (so the folds need not recompute them). */
const cache = new Map<number, { index: Int32Array; gate: Float32Array; x: Float32Array }>();
const gateHist = { ship: GATES.map(() => 0), shipAll: 0 };
for (const chip of chips) {
  const img = decodeLuma(readFileSync(path.join(SSDD_DIR, 'images', chip.file)));
  const sigma0 = greyAmplitudeToSigma0(img.grey);
  const target = new Uint8Array(chip.width * chip.height).fill(1);
  const field = pixelFeatureField(sigma0, target, chip.width, chip.height);
  const ship = shipMask(chip, outlinesOf(chip.file));
  const fold = foldOf.get(runOf(chip))!;
  const index: number[] = [];
  for (let i = 0; i < ship.length; i++) if (field.gate[i]! >= GATES[0]!) index.push(i);
  const x = new Float32Array(index.length * PIXEL_FEATURE_COUNT);
  const gates = new Float32Array(index.length);
  index.forEach((i, j) => {
    gates[j] = field.gate[i]!;
    for (let k = 0; k < PIXEL_FEATURE_COUNT; k++) x[j * PIXEL_FEATURE_COUNT + k] = field.planes[k * ship.length + i]!;
  });
  cache.set(chip.number, { index: Int32Array.from(index), gate: gates, x });
  for (let i = 0; i < ship.length; i++) {
    const g = field.gate[i]!;
    if (ship[i]) {
      gateHist.shipAll++;
      GATES.forEach((G, k) => g >= G && gateHist.ship[k]!++);
    }
    if (!(g >= GATES[0]!)) continue;
    const keep = ship[i] ? 0.05 : g >= 4 ? 0.02 : 0.002;
    if (rand() < keep) rows.push({ fold, gate: g, x: featuresAt(field, i), y: ship[i]! });
  }
}
const cpu = () => {
  const u = process.cpuUsage(t0);
  return `${((u.user + u.system) / 1e6).toFixed(0)} CPU s`;
};
console.log(`${chips.length} development chips, ${rows.length} rows (${rows.filter((r) => r.y).length} ship pixels); ship pixels passing gate ${GATES.map((G, k) => `${G}: ${(gateHist.ship[k]! / gateHist.shipAll).toFixed(3)}`).join(', ')}; ${cpu()}`);

const f3 = (v: number) => v.toFixed(3);
// Out-of-fold object scores per (gate, low, high, minPixels), inshore / offshore.
type Counts = { tp: number; fp: number; fn: number };
const key = (g: number, lo: number, hi: number, mp: number) => `${g}|${lo}|${hi}|${mp}`;
const counts = new Map<string, { inshore: Counts; offshore: Counts }>();
for (let f = 0; f < 3; f++) {
  const train = rows.filter((r) => r.fold !== f);
  const model = { ...trainGbt(train.map((r) => r.x), train.map((r) => r.y), null, GBT), featureNames: [...PIXEL_FEATURES] };
  console.log(`fold ${f}: fitted on ${train.length} rows; ${cpu()}`);
  for (const chip of chips) {
    if (foldOf.get(runOf(chip)) !== f) continue;
    const c = cache.get(chip.number)!;
    const p = new Float32Array(chip.width * chip.height);
    const pg = new Float32Array(p.length);
    c.index.forEach((i, j) => (p[i] = gbtPredict(model, c.x.subarray(j * PIXEL_FEATURE_COUNT, (j + 1) * PIXEL_FEATURE_COUNT))));
    const truth = chip.ships.map((s, id) => ({ ...s, certain: true, id }));
    for (const G of GATES) {
      pg.set(p);
      if (G !== GATES[0]) c.index.forEach((i, j) => c.gate[j]! < G && (pg[i] = 0));
      for (const lo of LOWS)
        for (const hi of HIGHS) {
          if (hi < lo) continue;
          for (const mp of MIN_PIXELS) {
            const objs = pixelObjects(pg, chip.width, chip.height, { low: lo, high: hi, minPixels: mp });
            const s = scoreMatches(objs.length, truth, MATCH_DISTANCE_M / SSDD_PIXEL_M, (d, t) => Math.hypot(objs[d]!.centroidRow - t.row, objs[d]!.centroidCol - t.col));
            const k = key(G, lo, hi, mp);
            const cnt = counts.get(k) ?? { inshore: { tp: 0, fp: 0, fn: 0 }, offshore: { tp: 0, fp: 0, fn: 0 } };
            const side = chip.inshore ? cnt.inshore : cnt.offshore;
            side.tp += s.truePositives;
            side.fp += s.falsePositives;
            side.fn += s.falseNegatives;
            counts.set(k, cnt);
          }
        }
    }
  }
  console.log(`fold ${f}: scored; ${cpu()}`);
}
const prf = (c: Counts) => {
  const p = c.tp + c.fp ? c.tp / (c.tp + c.fp) : 1;
  const r = c.tp + c.fn ? c.tp / (c.tp + c.fn) : 0;
  return { p, r, f1: p + r ? (2 * p * r) / (p + r) : 0 };
};
let best = { k: '', score: -1 };
for (const [k, c] of counts) {
  const score = (prf(c.inshore).f1 + prf(c.offshore).f1) / 2;
  if (score > best.score) best = { k, score };
}
const [G, lo, hi, mp] = best.k.split('|').map(Number) as [number, number, number, number];
const oofIn = prf(counts.get(best.k)!.inshore);
const oofOff = prf(counts.get(best.k)!.offshore);
console.log(`chosen gate ${G}, low ${lo}, high ${hi}, min ${mp} px: out-of-fold inshore P ${f3(oofIn.p)} R ${f3(oofIn.r)}, offshore P ${f3(oofOff.p)} R ${f3(oofOff.r)}`);

const all = rows.filter((r) => r.gate >= G);
const model = trainGbt(all.map((r) => r.x), all.map((r) => r.y), null, GBT);
if (model.featureNames.length !== PIXEL_FEATURE_COUNT) model.featureNames = [...PIXEL_FEATURES];
const out: PixelModel = {
  model: { ...model, featureNames: [...PIXEL_FEATURES] },
  gate: G,
  low: lo,
  high: hi,
  minPixels: mp,
  fitted: {
    by: 'training/ship/fitPixelClassifier.ts',
    data: `SSDD development chips only (${chips.length} chips${half ? ', every other development run' : ''}; validation runs never read), σ0 ∝ (grey + ½)², labels = outline polygons; windows in pixels`,
    rows: all.length,
    shipPixels: all.filter((r) => r.y).length,
    gbt: GBT,
    outOfFold: { inshore: { precision: +f3(oofIn.p), recall: +f3(oofIn.r) }, offshore: { precision: +f3(oofOff.p), recall: +f3(oofOff.r) } },
  },
};
if (!process.argv.includes('--dry')) {
  writeFileSync(new URL('../../src/analysis/ship/pixelModel.json', import.meta.url), `${JSON.stringify(out)}\n`);
  console.log(`wrote src/analysis/ship/pixelModel.json; ${cpu()}`);
}
