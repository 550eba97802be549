/**
 * Fits the ship candidate classifier (src/analysis/ship/classifier.ts → classifierModel.json) on
 * the SSDD DEVELOPMENT chips only (eval/shipChips.ts split: runs of 20 chip numbers, every third
 * run is validation and is never read here). Candidates: the detector's CFAR at `candidatePfa`
 * with no land mask (a chip has no coastline), labelled by the eval's matching (centroid ≤ 100 m
 * of a ship's box centre, one-to-one, closest first). The threshold is chosen on out-of-fold
 * probabilities (3 folds by run inside the development chips) for the best F1; the committed
 * trees are then fitted on all development chips. The three land features (seaLand.ts) are
 * computed from OUT-OF-FOLD land fields: per fold a sea/land segmenter fitted on the other two
 * folds (training/ship/seaLandData.ts), so the trees learn how much to trust the segmenter on
 * chips it has not seen, as in use. The same out-of-fold land cells (at the committed segmenter
 * threshold) are the candidates' land mask, as `classifier.sceneLandMask` does in the detector
 * (--no-mask: none), and give each candidate its distance to land. Two thresholds are chosen on
 * the out-of-fold probabilities: near shore (land within NEAR_SHORE_M of the peak) and away from
 * it, for the best sum of the inshore-chip and offshore-chip F1.
 *
 *   node --import tsx training/ship/fitClassifier.ts [--pfa 1e-4] [--factor 16] [--no-mask] [--land-cache FILE] [--ablate-part] [--dry | --out FILE]
 *
 * --land-cache: the three out-of-fold segmenters are read from FILE when it exists, else fitted
 * and written there (oofLand.ts; the same models either way). --ablate-part: also the out-of-fold
 * precision at fixed recalls with the four part-against-land features (seaLand.ts
 * partLandFeatures) added, each alone and all four.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { SSDD_PIXEL_M, loadSsddChips } from '../../eval/shipChips.ts';
import { CANDIDATE_FEATURES, type CandidateModel } from '../../src/analysis/ship/classifier.ts';
import { partLandFeatures, seaLandModel } from '../../src/analysis/ship/seaLand.ts';
import { foldsByRun, runOf } from './seaLandData.ts';
import { outOfFoldLandModels } from './oofLand.ts';
import { CANDIDATE_GBT as GBT, chipCandidates, precisionAtRecall } from './chipCandidates.ts';
import { gbtPredict } from '../../src/analysis/oilslick/gbt.ts';
import { trainGbt } from '../oilslick/gbtTrain.ts';
import { arg } from './args.ts';

const candidatePfa = Number(arg('pfa', '1e-4'));
const seaLevelFactor = Number(arg('factor', '16'));
const useMask = !process.argv.includes('--no-mask');
/** Candidates with land this close (m) to their peak are near shore: their own threshold. */
const NEAR_SHORE_M = 2000;

interface Row {
  run: number;
  inshore: boolean;
  chip: number;
  x: number[];
  /** --ablate-part: the candidate's part-against-land features (seaLand.ts partLandFeatures, PART_FEATURES). */
  part?: number[];
  y: number;
}
const ablate = process.argv.includes('--ablate-part');
const PART_FEATURES = ['partLandShare', 'partNearLandShare', 'landContactShare', 'landContactOverLength'] as const;
const partOf = new Map<object, number[]>();

const chips = loadSsddChips().filter((c) => c.split === 'dev');
const rows: Row[] = [];
const foldOf = foldsByRun(chips);
const t0 = process.cpuUsage();
const cpu = () => {
  const u = process.cpuUsage(t0);
  return `${((u.user + u.system) / 1e6).toFixed(0)} CPU s`;
};
// Out-of-fold sea/land segmenters (one per fold, fitted on the other folds' chips).
const landModels = outOfFoldLandModels(chips, process.argv.includes('--land-cache') ? arg('land-cache', '') : undefined);
console.log(`3 out-of-fold sea/land segmenters; ${cpu()}`);
const LENGTH = CANDIDATE_FEATURES.indexOf('lengthM');
const OUT = process.argv.includes('--dry') ? null : process.argv.includes('--out') ? path.resolve(arg('out', '')) : new URL('../../src/analysis/ship/classifierModel.json', import.meta.url);
/** Ships per chip kind (the recall's denominator). */
const ships = { inshore: 0, offshore: 0 };
/** Where ships are lost, per chip kind: box centre on the mask's land, matched by a candidate. */
const stages = { inshore: { onLand: 0, candidates: 0 }, offshore: { onLand: 0, candidates: 0 } };
const landThreshold = seaLandModel().threshold;
for (const chip of chips) {
  const { land, mask, dets, y, truePositives } = chipCandidates(chip, landModels[foldOf.get(runOf(chip))!]!, { candidatePfa, seaLevelFactor, useMask });
  if (ablate)
    for (const d of dets) partOf.set(d, partLandFeatures(land, Array.from(d.pixels.rows, (r, j) => r * chip.width + d.pixels.cols[j]!), chip.width, chip.height, SSDD_PIXEL_M, d.candidate!.features[LENGTH]!, landThreshold));
  ships[chip.inshore ? 'inshore' : 'offshore'] += chip.ships.length;
  const st = stages[chip.inshore ? 'inshore' : 'offshore'];
  st.candidates += truePositives;
  for (const t of chip.ships) if (mask?.[Math.min(chip.height - 1, Math.round(t.row)) * chip.width + Math.min(chip.width - 1, Math.round(t.col))]) st.onLand++;
  dets.forEach((d, i) => rows.push({ run: Math.floor((chip.number - 1) / 20), inshore: chip.inshore, chip: chip.number, x: d.candidate!.features, ...(ablate ? { part: partOf.get(d)! } : {}), y: y[i]! }));
}
console.log(`${chips.length} development chips, ${rows.length} candidates (${rows.filter((r) => r.y).length} ships matched) at candidate PFA ${candidatePfa}, sea-level factor ${seaLevelFactor}; ships: ${JSON.stringify(ships)}; ${cpu()}`);

// Out-of-fold probabilities, 3 folds by run.
const oof = new Array<number>(rows.length).fill(0);
for (let f = 0; f < 3; f++) {
  const train = rows.filter((r) => foldOf.get(r.run) !== f);
  const model = trainGbt(train.map((r) => r.x), train.map((r) => r.y), null, GBT);
  rows.forEach((r, i) => {
    if (foldOf.get(r.run) === f) oof[i] = gbtPredict({ ...model, featureNames: [...CANDIDATE_FEATURES] }, r.x);
  });
}
// Ablation (--ablate-part, issue 23 §1: judge the split parts): the same folds with the four
// part-against-land features added (each alone, and all four), and per chip kind the precision
// each reaches at fixed recalls (a threshold-free comparison; development chips only). The
// committed trees keep CANDIDATE_FEATURES: the four did not gain inshore (docs/ship.md).
if (ablate) {
  const variants: Array<[string, number[]]> = [...PART_FEATURES.map((nm, j): [string, number[]] => [`+ ${nm}`, [j]]), ['+ all four', [0, 1, 2, 3]]];
  const precisionAt = (prob: number[], inshore: boolean, recall: number) => precisionAtRecall(rows, prob, inshore, inshore ? ships.inshore : ships.offshore, recall)?.toFixed(3) ?? 'unreached';
  const results: Array<[string, number[]]> = [[`${CANDIDATE_FEATURES.length} features (committed)`, oof]];
  for (const [name, extra] of variants) {
    const names = [...CANDIDATE_FEATURES, ...extra.map((j) => PART_FEATURES[j]!)];
    const xOf = (r: Row) => [...r.x, ...extra.map((j) => r.part![j]!)];
    const prob = new Array<number>(rows.length).fill(0);
    for (let f = 0; f < 3; f++) {
      const train = rows.filter((r) => foldOf.get(r.run) !== f);
      const m = trainGbt(train.map(xOf), train.map((r) => r.y), null, GBT);
      rows.forEach((r, i) => {
        if (foldOf.get(r.run) === f) prob[i] = gbtPredict({ ...m, featureNames: names }, xOf(r));
      });
    }
    results.push([name, prob]);
  }
  for (const [kind, recalls] of [[true, [0.4, 0.45, 0.479, 0.5, 0.539, 0.6]], [false, [0.9, 0.909, 0.92, 0.93]]] as const)
    for (const [name, prob] of results) console.log(`ablation, ${kind ? 'inshore' : 'offshore'}, ${name}: precision at recall ${recalls.map((r) => `${r}: ${precisionAt(prob, kind, r)}`).join(', ')}`);
}
function prAt(threshold: number | number[], kind?: boolean) {
  let tp = 0;
  let fp = 0;
  rows.forEach((r, i) => {
    if (kind !== undefined && r.inshore !== kind) return;
    if (oof[i]! >= (typeof threshold === 'number' ? threshold : threshold[i]!)) r.y ? tp++ : fp++;
  });
  const n = kind === undefined ? ships.inshore + ships.offshore : kind ? ships.inshore : ships.offshore;
  const p = tp + fp ? tp / (tp + fp) : 1;
  const r = tp / n;
  return { p, r, f1: p + r ? (2 * p * r) / (p + r) : 0 };
}
const DIST = CANDIDATE_FEATURES.indexOf('landDistanceM');
const near = rows.map((r) => r.x[DIST]! <= NEAR_SHORE_M);
const f3 = (v: number) => v.toFixed(3);
let best = { t: 0.5, f1: -1 };
for (let t = 0.05; t < 0.96; t += 0.01) {
  const f1 = prAt(t).f1;
  if (f1 > best.f1) best = { t: Math.round(t * 100) / 100, f1 };
}
{
  const i = prAt(best.t, true);
  const o = prAt(best.t, false);
  console.log(`one threshold ${best.t} (best out-of-fold F1 ${f3(best.f1)}): inshore P ${f3(i.p)} R ${f3(i.r)}, offshore P ${f3(o.p)} R ${f3(o.r)}`);
}
// Per kind: candidates near shore at tNear, the others at tFar.
const grid: number[] = [];
for (let t = 0.05; t < 0.96; t += 0.01) grid.push(Math.round(t * 100) / 100);
let pair = { far: best.t, near: best.t, score: -1 };
for (const far of grid)
  for (const nr of grid) {
    const th = rows.map((_, i) => (near[i] ? nr : far));
    const score = prAt(th, true).f1 + prAt(th, false).f1;
    if (score > pair.score) pair = { far, near: nr, score };
  }
const thresholds = rows.map((_, i) => (near[i] ? pair.near : pair.far));
for (const kind of ['inshore', 'offshore'] as const) {
  const n = ships[kind];
  const kept = prAt(thresholds, kind === 'inshore');
  const st = stages[kind];
  console.log(
    `stages, ${kind} (${n} ships): centre on the mask's land ${st.onLand} (${f3(st.onLand / n)}), no candidate otherwise ${n - st.candidates - st.onLand}, ` +
      `candidate ${st.candidates} (${f3(st.candidates / n)}), kept out of fold ${Math.round(kept.r * n)} (${f3(kept.r)}) at precision ${f3(kept.p)}`,
  );
}
const oofIn = prAt(thresholds, true);
const oofOff = prAt(thresholds, false);
console.log(`thresholds away ${pair.far} / near shore (land ≤ ${NEAR_SHORE_M} m) ${pair.near} (${near.filter(Boolean).length} near-shore candidates): inshore P ${f3(oofIn.p)} R ${f3(oofIn.r)}, offshore P ${f3(oofOff.p)} R ${f3(oofOff.r)}`);

const model = trainGbt(rows.map((r) => r.x), rows.map((r) => r.y), null, GBT);
const out: CandidateModel = {
  model: { ...model, featureNames: [...CANDIDATE_FEATURES] },
  threshold: pair.far,
  nearShore: { distanceM: NEAR_SHORE_M, threshold: pair.near },
  candidatePfa,
  seaLevelFactor,
  fitted: {
    by: 'training/ship/fitClassifier.ts',
    data: `SSDD development chips only (${chips.length} chips; validation runs never read), assumed ${SSDD_PIXEL_M} m pixels, σ0 ∝ (grey + ½)², ${useMask ? 'out-of-fold scene sea/land cells as land mask' : 'no land mask'}`,
    candidates: rows.length,
    positives: rows.filter((r) => r.y).length,
    gbt: GBT,
    outOfFold: { threshold: pair.far, nearShoreThreshold: pair.near, inshore: { precision: +f3(oofIn.p), recall: +f3(oofIn.r) }, offshore: { precision: +f3(oofOff.p), recall: +f3(oofOff.r) } },
  },
};
console.log(`fitted; ${cpu()}`);
if (OUT) {
  writeFileSync(OUT, `${JSON.stringify(out)}\n`);
  console.log(`wrote ${String(OUT)}`);
}
