/**
 * The candidate classifier's training candidates on one SSDD chip, shared by fitClassifier.ts
 * (the trees) and patchCnnData.ts (the patch CNN), so both judge exactly the same candidates: the
 * detector with the classifier on at threshold 0 (CFAR at `candidatePfa` plus the sea level,
 * clusters too large for a vessel split — `splitLarge`, the detector's default), the out-of-fold
 * segmenter's land cells as land mask (unless `useMask` is false), the four land features from
 * that out-of-fold field (and the four land probabilities of the axis features), each candidate labelled by the eval's matching (centroid ≤ 100 m of a
 * ship's box centre, one-to-one, closest first). Also the trees' options and the threshold-free
 * comparison (precision at fixed recalls) used by both.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { MATCH_DISTANCE_M, SSDD_DIR, SSDD_PIXEL_M, decodeLuma, detectOnChip, greyAmplitudeToSigma0, type SsddChip } from '../../eval/shipChips.ts';
import { scoreMatches } from '../../eval/scoring/shipEval.ts';
import { AXIS_FEATURES_AT, AXIS_FEATURE_COUNT, CANDIDATE_FEATURES, axisFeatures } from '../../src/analysis/ship/classifier.ts';
import { landMaskOfField, seaLandModel, seaLandProbability, withLandDistance, type SeaLandField } from '../../src/analysis/ship/seaLand.ts';
import type { ShipDetection } from '../../src/analysis/ship/tile.ts';
import type { GbtOptions } from '../oilslick/gbtTrain.ts';
import { SPACING, chipCandidateLandFeatures, chipCells } from './seaLandData.ts';
import type { LandModel } from './oofLand.ts';

/** The candidate trees (classifierModel.json): fitClassifier.ts and the patch-CNN experiment alike. */
export const CANDIDATE_GBT: Partial<GbtOptions> = { trees: 150, maxDepth: 3, learningRate: 0.08, minChildWeight: 5, subsample: 0.8, seed: 23 };

export interface ChipCandidates {
  sigma0: Float32Array;
  /** The out-of-fold land field (with distance to land). */
  land: SeaLandField;
  /** Land pixels given to the detector (undefined with useMask false). */
  mask: Uint8Array | undefined;
  /** Candidates; each one's `candidate.features` already carries the out-of-fold land features. */
  dets: ShipDetection[];
  /** 1 where the candidate matches a ship. */
  y: number[];
  /** Ships matched by a candidate. */
  truePositives: number;
}

export function chipCandidates(chip: SsddChip, landModel: LandModel, opts: { candidatePfa: number; seaLevelFactor: number; useMask: boolean }): ChipCandidates {
  const landThreshold = seaLandModel().threshold;
  const LAND_AT = CANDIDATE_FEATURES.indexOf('landAtPeak');
  const img = decodeLuma(readFileSync(path.join(SSDD_DIR, 'images', chip.file)));
  const sigma0 = greyAmplitudeToSigma0(img.grey);
  const land = withLandDistance(seaLandProbability(chipCells(chip).features, { model: landModel }), SPACING, landThreshold);
  const mask = opts.useMask ? landMaskOfField(land, chip.width, chip.height, landThreshold) : undefined;
  const dets = detectOnChip(sigma0, chip.width, chip.height, SSDD_PIXEL_M, {
    ...(mask ? { land: mask } : {}),
    params: { classifier: { enabled: true, candidatePfa: opts.candidatePfa, seaLevelFactor: opts.seaLevelFactor, threshold: 0 } },
  });
  const truth = chip.ships.map((s, id) => ({ ...s, certain: true, id }));
  const s = scoreMatches(dets.length, truth, MATCH_DISTANCE_M / SSDD_PIXEL_M, (d, t) => Math.hypot(dets[d]!.centroidRow - t.row, dets[d]!.centroidCol - t.col));
  const false_ = new Set(s.falseAlarms);
  for (const d of dets) {
    const f = d.candidate!.features;
    f.splice(LAND_AT, 4, ...chipCandidateLandFeatures(d, land));
    // The axis features' four land probabilities from the out-of-fold field too (the intensity ones are the detector's).
    f.splice(AXIS_FEATURES_AT + 6, 4, ...candidateAxisFeatures(d, sigma0, chip.width, chip.height, land).slice(6, 10));
  }
  return { sigma0, land, mask, dets, y: dets.map((_, i) => (false_.has(i) ? 0 : 1)), truePositives: s.truePositives };
}

/** A detection's axis features (classifier.ts axisFeatures) on a chip, with the given land field. */
export function candidateAxisFeatures(d: ShipDetection, sigma0: Float32Array, width: number, height: number, land: SeaLandField | null): number[] {
  let sum = 0;
  const n = d.pixels.rows.length;
  for (let j = 0; j < n; j++) sum += sigma0[d.pixels.rows[j]! * width + d.pixels.cols[j]!]!;
  const out = axisFeatures(sigma0, width, height, d.centroidRow, d.centroidCol, d.orientationDeg, d.lengthM, d.widthM, SPACING, d.background, sum / n, land);
  if (out.length !== AXIS_FEATURE_COUNT) throw new Error('axisFeatures: unexpected length');
  return out;
}

/**
 * Precision of the candidates of one chip kind, ranked by `prob`, when just enough are kept to
 * reach `recall` of that kind's `ships` (candidate-level matches: a kept candidate with y = 1 is
 * one ship found); null when the candidates never reach it.
 */
export function precisionAtRecall(rows: Array<{ inshore: boolean; y: number }>, prob: ArrayLike<number>, inshore: boolean, ships: number, recall: number): number | null {
  const idx = rows.map((_, i) => i).filter((i) => rows[i]!.inshore === inshore).sort((a, b) => prob[b]! - prob[a]!);
  const need = Math.ceil(recall * ships);
  let tp = 0;
  for (let j = 0; j < idx.length; j++) {
    tp += rows[idx[j]!]!.y;
    if (tp >= need) return tp / (j + 1);
  }
  return null;
}
