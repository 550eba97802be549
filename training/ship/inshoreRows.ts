/**
 * Issue 23 §1 (near-shore accuracy): the candidate classifier's training candidates on the SSDD
 * DEVELOPMENT chips (chipCandidates.ts, exactly as fitClassifier.ts takes them: out-of-fold
 * segmenters, their land cells as mask), written once to a JSON file so that the near-shore
 * experiments (inshoreExperiment.ts) can refit and score without re-running the detector. Per
 * candidate: its first 17 features (those before the axis features), its label, its chip, run and position, the axis features
 * (classifier.ts axisFeatures) and, for the diagnosis only, where it lies against the chip's
 * hand-drawn SL-SSDD mask and the nearest ship box. Validation chips are never read.
 *
 * Also the twelve part features (partFeatures.ts) and, with --pixel-models (oofPixel.ts's file),
 * the out-of-fold per-pixel ship probability over the candidate's pixels.
 *
 *   node --import tsx training/ship/inshoreRows.ts --out /tmp/inshore-rows.json [--land-cache FILE] [--pixel-models FILE]
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { gbtPredict, type GbtModel } from '../../src/analysis/oilslick/gbt.ts';
import { featuresAt, pixelFeatureField } from '../../src/analysis/ship/pixelClassifier.ts';
import { SSDD_PIXEL_M, loadSsddChips, readSsddLand } from '../../eval/shipChips.ts';
import { AXIS_FEATURES_AT } from '../../src/analysis/ship/classifier.ts';
import { partFeatures } from './partFeatures.ts';
import { SPACING, foldsByRun, runOf } from './seaLandData.ts';
import { outOfFoldLandModels } from './oofLand.ts';
import { candidateAxisFeatures, chipCandidates } from './chipCandidates.ts';
import { arg } from './args.ts';

export interface InshoreRow {
  chip: number;
  run: number;
  inshore: boolean;
  x: number[];
  axis: number[];
  /** The twelve part features (partFeatures.ts PART_FEATURES: the committed texture three, then nine tried). */
  part: number[];
  /** With --pixel-models: the out-of-fold per-pixel ship probability over its pixels (mean, max, share ≥ 0.5; oofPixel.ts). */
  pix?: number[];
  y: number;
  centroidRow: number;
  centroidCol: number;
  pixels: number;
  orientationDeg: number;
  lengthPx: number;
  widthPx: number;
  /** Share of its pixels on (or within 3 px of) the hand-drawn mask's land (diagnosis only). */
  refLandShare: number;
  /** Distance (px) from its centroid to the nearest ship box centre, and that box's long side (px). */
  nearestShipPx: number;
  nearestShipSizePx: number;
}

const chips = loadSsddChips().filter((c) => c.split === 'dev');
const foldOf = foldsByRun(chips);
const t0 = process.cpuUsage();
const cpu = () => `${((process.cpuUsage(t0).user + process.cpuUsage(t0).system) / 1e6).toFixed(0)} CPU s`;
const landModels = outOfFoldLandModels(chips, process.argv.includes('--land-cache') ? arg('land-cache', '') : undefined);
console.log(`3 out-of-fold sea/land segmenters; ${cpu()}`);
const pixelModels = process.argv.includes('--pixel-models') ? (JSON.parse(readFileSync(arg('pixel-models', ''), 'utf8')) as GbtModel[]) : null;
const rows: InshoreRow[] = [];
for (const chip of chips) {
  const { sigma0, land, dets, y } = chipCandidates(chip, landModels[foldOf.get(runOf(chip))!]!, { candidatePfa: 1e-4, seaLevelFactor: 16, useMask: true });
  const w = chip.width;
  const h = chip.height;
  const field = pixelModels ? pixelFeatureField(sigma0, new Uint8Array(w * h).fill(1), w, h) : null;
  const pixelModel = pixelModels?.[foldOf.get(runOf(chip))!];
  const fx: number[] = [];
  // Hand-drawn land grown by 3 px (a quay edge), for the diagnosis.
  let ref: Uint8Array | null = null;
  if (chip.inshore) {
    const m = readSsddLand(chip);
    ref = new Uint8Array(w * h);
    for (let r = 0; r < h; r++)
      for (let c = 0; c < w; c++) {
        if (!m[r * w + c]) continue;
        for (let dr = -3; dr <= 3; dr++)
          for (let dc = -3; dc <= 3; dc++) {
            const rr = r + dr;
            const cc = c + dc;
            if (rr >= 0 && cc >= 0 && rr < h && cc < w) ref[rr * w + cc] = 1;
          }
      }
  }
  dets.forEach((d, i) => {
    const n = d.pixels.rows.length;
    let onRef = 0;
    const idx = new Int32Array(n);
    let sum = 0;
    for (let j = 0; j < n; j++) {
      idx[j] = d.pixels.rows[j]! * w + d.pixels.cols[j]!;
      sum += sigma0[idx[j]!]!;
    }
    for (let j = 0; j < n; j++) {
      const p = d.pixels.rows[j]! * w + d.pixels.cols[j]!;
      if (ref?.[p]) onRef++;
    }
    let best = Infinity;
    let size = Number.NaN;
    for (const s of chip.ships) {
      const dd = Math.hypot(s.row - d.centroidRow, s.col - d.centroidCol);
      if (dd < best) [best, size] = [dd, s.sizePx];
    }
    let pix: number[] | undefined;
    if (field && pixelModel) {
      let pm = 0;
      let px = 0;
      let half = 0;
      for (let j = 0; j < n; j++) {
        const q = field.gate[idx[j]!]! >= 1.5 ? gbtPredict(pixelModel, featuresAt(field, idx[j]!, fx)) : 0;
        pm += q;
        if (q > px) px = q;
        if (q >= 0.5) half++;
      }
      pix = [pm / n, px, half / n];
    }
    rows.push({
      chip: chip.number,
      run: runOf(chip),
      inshore: chip.inshore,
      x: d.candidate!.features.slice(0, AXIS_FEATURES_AT),
      axis: candidateAxisFeatures(d, sigma0, w, h, land),
      part: partFeatures(sigma0, w, h, SPACING, idx, sum / n),
      ...(pix ? { pix } : {}),
      y: y[i]!,
      centroidRow: d.centroidRow,
      centroidCol: d.centroidCol,
      pixels: n,
      orientationDeg: d.orientationDeg,
      lengthPx: d.lengthM / SSDD_PIXEL_M,
      widthPx: d.widthM / SSDD_PIXEL_M,
      refLandShare: onRef / n,
      nearestShipPx: best,
      nearestShipSizePx: size,
    });
  });
}
console.log(`${chips.length} development chips, ${rows.length} candidates, ${rows.filter((r) => r.y).length} on ships; ${cpu()}`);
writeFileSync(arg('out', '/tmp/inshore-rows.json'), JSON.stringify(rows));
