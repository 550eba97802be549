/**
 * Candidates and patches for the patch-CNN experiment (training/ship/patchCnn.ts), SSDD
 * DEVELOPMENT chips only (validation runs never read). The candidates are exactly those of
 * training/ship/fitClassifier.ts (CFAR at `pfa`, out-of-fold sea/land cells as land mask, the
 * out-of-fold land features), labelled by the eval's matching, with the GBT candidate
 * classifier's out-of-fold probability (3 folds by run, fitClassifier's trees), so the CNN is
 * compared with the trees on the same candidates. Patches: a WINDOW × WINDOW px window
 * (WINDOW = 2·(PATCH + 2·JITTER) at the chip's pixels), 2 × 2 mean-pooled in σ0, in dB minus
 * the window's median, / 10, clipped to [-2, 4]; pixels outside the chip are 0 (the median).
 * Kinds: every candidate (centred on its centroid), every ship box centre (extra positives), and
 * random positions ≥ 100 m from any ship (extra negatives; 6 per inshore chip, 1 per offshore).
 *
 *   node --import tsx training/ship/patchCnnData.ts --pfa 1e-4 --out /tmp/x   (writes x.json + x.f32)
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { MATCH_DISTANCE_M, SSDD_DIR, SSDD_PIXEL_M, decodeLuma, detectOnChip, greyAmplitudeToSigma0, loadSsddChips } from '../../eval/shipChips.ts';
import { scoreMatches } from '../../eval/scoring/shipEval.ts';
import { CANDIDATE_FEATURES } from '../../src/analysis/ship/classifier.ts';
import { landMaskOfField, seaLandModel, seaLandProbability, withLandDistance } from '../../src/analysis/ship/seaLand.ts';
import { gbtPredict } from '../../src/analysis/oilslick/gbt.ts';
import { mulberry32 } from '../../src/prng.ts';
import { trainGbt, type GbtOptions } from '../oilslick/gbtTrain.ts';
import { SPACING, chipCandidateLandFeatures, chipCells, fitSeaLand, foldsByRun, runOf, seaLandRows } from './seaLandData.ts';
import { PATCH } from './patchCnnNet.ts';

/** Random crop offset (pooled px) of the training patches. */
export const JITTER = 4;
/** Pooled side of a stored patch. */
export const STORED = PATCH + 2 * JITTER;
/** Window side at the chip's pixels. */
export const WINDOW = 2 * STORED;
/** fitClassifier.ts's trees. */
const GBT: Partial<GbtOptions> = { trees: 150, maxDepth: 3, learningRate: 0.08, minChildWeight: 5, subsample: 0.8, seed: 23 };

/**
 * The normalised patch (side `side` pooled px, 2 × 2 pooling) centred at (row, col) of a σ0
 * image: dB of the pooled σ0 minus the median over the patch, / 10, clipped to [-2, 4].
 */
export function extractPatch(sigma0: Float32Array, width: number, height: number, row: number, col: number, side: number, out = new Float32Array(side * side)): Float32Array {
  const r0 = Math.round(row) - side;
  const c0 = Math.round(col) - side;
  const inside: number[] = [];
  for (let r = 0; r < side; r++)
    for (let c = 0; c < side; c++) {
      let s = 0;
      let n = 0;
      for (let dr = 0; dr < 2; dr++)
        for (let dc = 0; dc < 2; dc++) {
          const rr = r0 + 2 * r + dr;
          const cc = c0 + 2 * c + dc;
          if (rr < 0 || cc < 0 || rr >= height || cc >= width) continue;
          s += sigma0[rr * width + cc]!;
          n++;
        }
      const v = n > 0 ? 10 * Math.log10(Math.max(s / n, 1e-10)) : Number.NaN;
      out[r * side + c] = v;
      if (n > 0) inside.push(v);
    }
  inside.sort((a, b) => a - b);
  const med = inside.length ? inside[inside.length >> 1]! : 0;
  for (let i = 0; i < out.length; i++) {
    const v = out[i]!;
    out[i] = Number.isNaN(v) ? 0 : Math.min(4, Math.max(-2, (v - med) / 10));
  }
  return out;
}

export interface PatchRow {
  kind: 'candidate' | 'ship' | 'random';
  chip: number;
  run: number;
  fold: number;
  inshore: boolean;
  y: number;
  row: number;
  col: number;
  /** Candidates only: the GBT's out-of-fold probability, distance to land (m). */
  gbt?: number;
  landDistanceM?: number;
}

export interface PatchData {
  pfa: number;
  chips: Array<{ number: number; inshore: boolean; fold: number; ships: Array<{ row: number; col: number }> }>;
  rows: PatchRow[];
  patches: Float32Array;
}

export function readPatchData(base: string): PatchData {
  const meta = JSON.parse(readFileSync(`${base}.json`, 'utf8')) as Omit<PatchData, 'patches'>;
  const b = readFileSync(`${base}.f32`);
  return { ...meta, patches: new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength)) };
}

function build(pfa: number, base: string): void {
  const t0 = process.cpuUsage();
  const cpu = () => `${((process.cpuUsage(t0).user + process.cpuUsage(t0).system) / 1e6).toFixed(0)} CPU s`;
  const chips = loadSsddChips().filter((c) => c.split === 'dev');
  const foldOf = foldsByRun(chips);
  const landRows = seaLandRows(chips.map(chipCells));
  const landModels = [0, 1, 2].map((f) => fitSeaLand(landRows.filter((r) => foldOf.get(r.run) !== f)));
  console.log(`3 out-of-fold sea/land segmenters; ${cpu()}`);
  const LAND_AT = CANDIDATE_FEATURES.indexOf('landAtPeak');
  const DIST = CANDIDATE_FEATURES.indexOf('landDistanceM');
  const landThreshold = seaLandModel().threshold;
  const rand = mulberry32(23);
  const rows: PatchRow[] = [];
  const feats: number[][] = [];
  const patches: Float32Array[] = [];
  const meta: PatchData['chips'] = [];
  for (const chip of chips) {
    const fold = foldOf.get(runOf(chip))!;
    const img = decodeLuma(readFileSync(path.join(SSDD_DIR, 'images', chip.file)));
    const sigma0 = greyAmplitudeToSigma0(img.grey);
    const land = withLandDistance(seaLandProbability(chipCells(chip).features, { model: landModels[fold]! }), SPACING, landThreshold);
    const mask = landMaskOfField(land, chip.width, chip.height, landThreshold);
    const dets = detectOnChip(sigma0, chip.width, chip.height, SSDD_PIXEL_M, { land: mask, params: { classifier: { enabled: true, candidatePfa: pfa, seaLevelFactor: 16, threshold: 0 } } });
    const truth = chip.ships.map((s, id) => ({ ...s, certain: true, id }));
    const s = scoreMatches(dets.length, truth, MATCH_DISTANCE_M / SSDD_PIXEL_M, (d, t) => Math.hypot(dets[d]!.centroidRow - t.row, dets[d]!.centroidCol - t.col));
    const false_ = new Set(s.falseAlarms);
    const base_ = { chip: chip.number, run: runOf(chip), fold, inshore: chip.inshore };
    dets.forEach((d, i) => {
      const x = d.candidate!.features;
      x.splice(LAND_AT, 4, ...chipCandidateLandFeatures(d, land));
      feats.push(x);
      rows.push({ ...base_, kind: 'candidate', y: false_.has(i) ? 0 : 1, row: d.centroidRow, col: d.centroidCol, landDistanceM: x[DIST]! });
      patches.push(extractPatch(sigma0, chip.width, chip.height, d.centroidRow, d.centroidCol, STORED));
    });
    for (const t of chip.ships) {
      rows.push({ ...base_, kind: 'ship', y: 1, row: t.row, col: t.col });
      patches.push(extractPatch(sigma0, chip.width, chip.height, t.row, t.col, STORED));
    }
    const far = MATCH_DISTANCE_M / SSDD_PIXEL_M;
    for (let k = 0, tries = 0; k < (chip.inshore ? 6 : 1) && tries < 100; tries++) {
      const r = rand() * chip.height;
      const c = rand() * chip.width;
      if (chip.ships.some((t) => Math.hypot(t.row - r, t.col - c) < far)) continue;
      rows.push({ ...base_, kind: 'random', y: 0, row: r, col: c });
      patches.push(extractPatch(sigma0, chip.width, chip.height, r, c, STORED));
      k++;
    }
    meta.push({ number: chip.number, inshore: chip.inshore, fold, ships: chip.ships.map((t) => ({ row: t.row, col: t.col })) });
  }
  const cand = rows.map((r, i) => [r, i] as const).filter(([r]) => r.kind === 'candidate');
  console.log(`${chips.length} development chips; ${cand.length} candidates (${cand.filter(([r]) => r.y).length} on ships) at PFA ${pfa}; ${rows.length} patches; ${cpu()}`);
  // The GBT's out-of-fold probabilities (fitClassifier.ts's trees and folds).
  const candFeats = cand.map((_, k) => feats[k]!);
  for (let f = 0; f < 3; f++) {
    const tr = cand.map(([r], k) => [r, k] as const).filter(([r]) => r.fold !== f);
    const model = trainGbt(tr.map(([, k]) => candFeats[k]!), tr.map(([r]) => r.y), null, GBT);
    cand.forEach(([r], k) => {
      if (r.fold === f) r.gbt = gbtPredict({ ...model, featureNames: [...CANDIDATE_FEATURES] }, candFeats[k]!);
    });
  }
  console.log(`GBT out of fold; ${cpu()}`);
  const all = new Float32Array(patches.length * STORED * STORED);
  patches.forEach((p, i) => all.set(p, i * STORED * STORED));
  writeFileSync(`${base}.json`, JSON.stringify({ pfa, chips: meta, rows }));
  writeFileSync(`${base}.f32`, all);
  console.log(`wrote ${base}.json/.f32`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const arg = (name: string, dflt: string) => {
    const i = process.argv.indexOf(`--${name}`);
    return i > 0 ? process.argv[i + 1]! : dflt;
  };
  build(Number(arg('pfa', '1e-4')), path.resolve(arg('out', '/tmp/patchcnn')));
}
