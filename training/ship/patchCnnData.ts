/**
 * Candidates and patches for the patch-CNN experiment (training/ship/patchCnn.ts), SSDD
 * DEVELOPMENT chips only (validation runs never read). The candidates are exactly those of
 * training/ship/fitClassifier.ts — the same code, chipCandidates.ts (CFAR at `pfa` plus the sea
 * level, large clusters split, out-of-fold sea/land cells as land mask, the out-of-fold land
 * features) — labelled by the eval's matching, each with its 17 tree features and the GBT candidate
 * classifier's out-of-fold probability (3 folds by run, fitClassifier's trees), so the CNN is
 * compared with (and stacked on) the trees on the same candidates. Patches: a WINDOW × WINDOW px window
 * (WINDOW = 2·(PATCH + 2·JITTER) at the chip's pixels), 2 × 2 mean-pooled in σ0, in dB minus
 * the window's median, / 10, clipped to [-2, 4]; pixels outside the chip are 0 (the median).
 * Kinds: every candidate (centred on its centroid), every ship box centre (extra positives), and
 * random positions ≥ 100 m from any ship (extra negatives; 6 per inshore chip, 1 per offshore).
 *
 *   node --import tsx training/ship/patchCnnData.ts --pfa 1e-4 --out /tmp/x [--land-cache FILE]   (writes x.json + x.f32)
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { MATCH_DISTANCE_M, SSDD_PIXEL_M, loadSsddChips } from '../../eval/shipChips.ts';
import { CANDIDATE_FEATURES } from '../../src/analysis/ship/classifier.ts';
import { gbtPredict } from '../../src/analysis/oilslick/gbt.ts';
import { mulberry32 } from '../../src/prng.ts';
import { trainGbt } from '../oilslick/gbtTrain.ts';
import { foldsByRun, runOf } from './seaLandData.ts';
import { outOfFoldLandModels } from './oofLand.ts';
import { CANDIDATE_GBT, chipCandidates } from './chipCandidates.ts';
import { PATCH } from './patchCnnNet.ts';
import { arg } from './args.ts';

/** Random crop offset (pooled px) of the training patches. */
export const JITTER = 4;
/** Pooled side of a stored patch. */
export const STORED = PATCH + 2 * JITTER;
/** Window side at the chip's pixels. */
export const WINDOW = 2 * STORED;

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
  /** Candidates only: the GBT's out-of-fold probability, distance to land (m), the trees' 17 features. */
  gbt?: number;
  landDistanceM?: number;
  x?: number[];
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

function build(pfa: number, base: string, landCache: string | undefined): void {
  const t0 = process.cpuUsage();
  const cpu = () => `${((process.cpuUsage(t0).user + process.cpuUsage(t0).system) / 1e6).toFixed(0)} CPU s`;
  const chips = loadSsddChips().filter((c) => c.split === 'dev');
  const foldOf = foldsByRun(chips);
  const landModels = outOfFoldLandModels(chips, landCache);
  console.log(`3 out-of-fold sea/land segmenters; ${cpu()}`);
  const DIST = CANDIDATE_FEATURES.indexOf('landDistanceM');
  const rand = mulberry32(23);
  const rows: PatchRow[] = [];
  const patches: Float32Array[] = [];
  const meta: PatchData['chips'] = [];
  for (const chip of chips) {
    const fold = foldOf.get(runOf(chip))!;
    const { sigma0, dets, y } = chipCandidates(chip, landModels[fold]!, { candidatePfa: pfa, seaLevelFactor: 16, useMask: true });
    const base_ = { chip: chip.number, run: runOf(chip), fold, inshore: chip.inshore };
    dets.forEach((d, i) => {
      const x = d.candidate!.features;
      rows.push({ ...base_, kind: 'candidate', y: y[i]!, row: d.centroidRow, col: d.centroidCol, landDistanceM: x[DIST]!, x });
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
  const cand = rows.filter((r) => r.kind === 'candidate');
  console.log(`${chips.length} development chips; ${cand.length} candidates (${cand.filter((r) => r.y).length} on ships) at PFA ${pfa}; ${rows.length} patches; ${cpu()}`);
  // The trees' out-of-fold probabilities (fitClassifier.ts's trees and folds).
  for (let f = 0; f < 3; f++) {
    const tr = cand.filter((r) => r.fold !== f);
    const model = trainGbt(tr.map((r) => r.x!), tr.map((r) => r.y), null, CANDIDATE_GBT);
    for (const r of cand) if (r.fold === f) r.gbt = gbtPredict({ ...model, featureNames: [...CANDIDATE_FEATURES] }, r.x!);
  }
  console.log(`GBT out of fold; ${cpu()}`);
  const all = new Float32Array(patches.length * STORED * STORED);
  patches.forEach((p, i) => all.set(p, i * STORED * STORED));
  writeFileSync(`${base}.json`, JSON.stringify({ pfa, chips: meta, rows }));
  writeFileSync(`${base}.f32`, all);
  console.log(`wrote ${base}.json/.f32`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  build(Number(arg('pfa', '1e-4')), path.resolve(arg('out', '/tmp/patchcnn')), process.argv.includes('--land-cache') ? arg('land-cache', '') : undefined);
}
