// Candidate classifier of the ship detector (issue 23 §1): a looser CFAR gives candidates, and
// gradient-boosted trees on each candidate's shape, contrast and surroundings (is it a compact
// bright blob on dark sea, or part of bright cluttered land/quay?) keep the vessels. Features
// are computed here, in the tile function (worker thread); the trees are shared with the
// oil-slick model (../oilslick/gbt.ts), fitted by training/ship/fitClassifier.ts on the SSDD
// development chips and stored in classifierModel.json. Three features come from the scene's
// own sea/land segmentation (seaLand.ts): how land-like the candidate's peak cell and its
// surroundings are; twelve more (axisFeatures) say whether the bright structure continues beyond
// the candidate's ends and whether dark water lies beside it (a quay piece against a hull), and three
// (partTextureFeatures) how its brightness is spread over its own pixels (out of fold, the false
// alarms on open sea are mostly a few bright pixels over a dim body). Imports ../oilslick/gbt.ts, ../common/committedModel.ts, ./cluster.ts (type)
// and ./seaLand.ts.

import { committedModel } from '../common/committedModel.ts';
import { gbtPredict, type GbtModel } from '../oilslick/gbt.ts';
import type { Cluster, ClusterShape } from './cluster.ts';
import { candidateLandFeatures, landAt, type SeaLandField } from './seaLand.ts';

export const CANDIDATE_FEATURES = [
  'peakContrastDb',
  'meanContrastDb',
  'log10AreaM2',
  'lengthM',
  'aspect',
  'fill',
  'detectedFraction',
  'surroundContrastDb',
  'surroundBrightFraction',
  'surroundCv',
  'surroundMaxDb',
  'peakOverSeaLevelDb',
  'meanOverSeaLevelDb',
  'landAtPeak',
  'landMeanSurround',
  'landMaxSurround',
  'landDistanceM',
  // axisFeatures (below): how the bright structure lies along and across the candidate's axis.
  'endMaxDb',
  'endMinDb',
  'endBrightMax',
  'endBrightMin',
  'sideMaxDb',
  'sideMinDb',
  'landEndMax',
  'landEndMin',
  'landSideMax',
  'landSideMin',
  'crossMaxDb',
  'crossBrightMax',
  // partTextureFeatures (below): the texture of the candidate's own pixels.
  'partCv',
  'partCoreShare',
  'partTopOverMedianDb',
] as const;

/** The axis features' place in CANDIDATE_FEATURES (AXIS_FEATURE_COUNT of them, before the part's texture). */
export const AXIS_FEATURES_AT = CANDIDATE_FEATURES.indexOf('endMaxDb');
export const AXIS_FEATURE_COUNT = 12;
/** The part-texture features' place in CANDIDATE_FEATURES (the last PART_TEXTURE_COUNT of them). */
export const PART_TEXTURE_AT = CANDIDATE_FEATURES.indexOf('partCv');
export const PART_TEXTURE_COUNT = 3;

/** How far (px) the surroundings reach beyond a candidate's bounding box of `bh` × `bw` px. */
export function surroundGrowPx(bh: number, bw: number): number {
  return Math.min(40, Math.max(3, Math.round(0.5 * Math.max(bh, bw))));
}

let markScratch = new Uint8Array(0);

/**
 * The candidate's features, in CANDIDATE_FEATURES order. `mask` is the CFAR mask (≥ 1: above
 * the extent threshold), `values` the σ0 of the detection channel, `background` the mean σ0 of
 * the candidate's background ring, `seaLevel` the robust sea level at its peak (seaLevel.ts;
 * NaN when not computed), `land` the tile's land probability with its land distances (seaLand.ts;
 * null: NaN features).
 * The surroundings are the candidate's bounding box grown by half its larger side (3…40 px),
 * less its own pixels (the land features take its cells whole).
 */
export function candidateFeatures(
  cluster: Cluster,
  shape: ClusterShape,
  values: Float32Array,
  mask: Uint8Array,
  width: number,
  height: number,
  spacing: { range: number; azimuth: number },
  background: number,
  seaLevel: number,
  land: SeaLandField | null,
): number[] {
  const n = cluster.pixels.length;
  if (markScratch.length < values.length) markScratch = new Uint8Array(values.length);
  let sum = 0;
  for (let k = 0; k < n; k++) {
    const p = cluster.pixels[k]!;
    sum += values[p]!;
    markScratch[p] = 1;
  }
  const bh = cluster.rowMax - cluster.rowMin + 1;
  const bw = cluster.colMax - cluster.colMin + 1;
  const g = surroundGrowPx(bh, bw);
  const r0 = Math.max(0, cluster.rowMin - g);
  const r1 = Math.min(height - 1, cluster.rowMax + g);
  const c0 = Math.max(0, cluster.colMin - g);
  const c1 = Math.min(width - 1, cluster.colMax + g);
  let sn = 0;
  let s1 = 0;
  let s2 = 0;
  let bright = 0;
  let smax = 0;
  for (let r = r0; r <= r1; r++)
    for (let c = c0; c <= c1; c++) {
      const p = r * width + c;
      if (markScratch[p] === 1) continue;
      const v = values[p]!;
      sn++;
      s1 += v;
      s2 += v * v;
      if (mask[p]! >= 1) bright++;
      if (v > smax) smax = v;
    }
  for (let k = 0; k < n; k++) markScratch[cluster.pixels[k]!] = 0;
  const db = (x: number) => (x > 0 && background > 0 ? 10 * Math.log10(x / background) : Number.NaN);
  const sMean = sn > 0 ? s1 / sn : Number.NaN;
  const sVar = sn > 0 ? Math.max(0, s2 / sn - sMean * sMean) : Number.NaN;
  return [
    db(cluster.peak),
    db(sum / n),
    Math.log10(n * spacing.range * spacing.azimuth),
    shape.lengthM,
    shape.lengthM / Math.max(shape.widthM, Math.min(spacing.range, spacing.azimuth)),
    n / (bh * bw),
    cluster.detected / n,
    db(sMean),
    sn > 0 ? bright / sn : Number.NaN,
    sMean > 0 ? Math.sqrt(sVar) / sMean : Number.NaN,
    db(smax),
    seaLevel > 0 ? 10 * Math.log10(cluster.peak / seaLevel) : Number.NaN,
    seaLevel > 0 ? 10 * Math.log10(sum / n / seaLevel) : Number.NaN,
    ...(land ? candidateLandFeatures(land, (cluster.peakIndex / width) | 0, cluster.peakIndex % width, cluster, g) : [Number.NaN, Number.NaN, Number.NaN, Number.NaN]),
    ...axisFeatures(values, width, height, cluster.centroidRow, cluster.centroidCol, shape.orientationDeg, shape.lengthM, shape.widthM, spacing, background, sum / n, land),
    ...partTextureFeatures(values, cluster.pixels, sum / n),
  ];
}

export interface CandidateModel {
  model: GbtModel;
  /** Kept when the probability is at least this (chosen on the development chips). */
  threshold: number;
  /**
   * Near shore (land within `distanceM` of the candidate's peak, landDistanceM, or the peak in
   * the near-shore band of the tile's coastline mask: candidateThreshold) the candidate is kept
   * at this threshold instead; absent: one threshold everywhere.
   */
  nearShore?: { distanceM: number; threshold: number };
  /** Candidate CFAR PFA the model was fitted with. */
  candidatePfa: number;
  /** Sea-level factor the model was fitted with (params.classifier.seaLevelFactor). */
  seaLevelFactor: number;
  /** How it was fitted and what it scored (for the reader; not used). */
  fitted: Record<string, unknown>;
}

/** The committed model (classifierModel.json beside this file), read once per thread. */
export const candidateModel = committedModel<CandidateModel>(
  new URL('./classifierModel.json', import.meta.url),
  'ship classifierModel.json',
  (m) => m.model.featureNames,
  CANDIDATE_FEATURES,
  'training/ship/fitClassifier.ts',
);

/**
 * The threshold the committed model applies to a candidate with these features: near shore when
 * its landDistanceM feature (the scene segmenter's land) is within the model's distance, or when
 * `inBand` — its peak lies in the near-shore band of the tile's coastline mask (nearShore.ts), the
 * band that sent it to the classifier (tile.ts). The segmenter's distance may read more than the
 * band's (docs/ship.md "Small vessels within 2 km of the coast": 55–175 m), so a vessel inside the
 * band would otherwise be judged by the open-sea threshold.
 */
export function candidateThreshold(model: CandidateModel, features: number[], inBand = false): number {
  const d = features[LAND_DISTANCE]!;
  return model.nearShore && (inBand || d <= model.nearShore.distanceM) ? model.nearShore.threshold : model.threshold;
}
const LAND_DISTANCE = CANDIDATE_FEATURES.indexOf('landDistanceM');

export function candidateProbability(model: CandidateModel, features: number[]): number {
  return gbtPredict(model.model, features);
}


/**
 * How the bright structure around a candidate lies along and across its principal axis (issue 23
 * §1: a piece of a quay or pier, or land, against a hull on water): does it continue beyond the
 * candidate's ends, and is there dark water beside it? Strips in the candidate's own frame, in
 * metres (centre `cRow`, `cCol`, tile-local px; axis `orientationDeg` from the row axis towards
 * the columns; `lengthM` × `widthM`), sampled every min(pixel spacing) m at the nearest pixel:
 * two end strips beyond its ends, reaching half its length further (4…40 samples) and its width
 * across (≥ 3 samples), and two side strips beside it over its length, reaching its width further
 * (≥ 4 samples). Per strip the mean σ0 over `background` (dB) and, for the ends, the share of
 * pixels at least half the candidate's mean σ0 (`meanValue`); then the larger and the smaller of
 * each pair (CANDIDATE_FEATURES 'endMaxDb' … 'sideMinDb'), and the land probability (`land`; NaN
 * without one) at the far middle of each strip ('landEndMax' … 'landSideMin'). Last, two cross
 * strips beside it over its length reaching as far as the end strips, the brighter one's mean
 * over `background` (dB) and the larger share of bright pixels ('crossMaxDb', 'crossBrightMax'):
 * a square chunk of a wide pier may have its axis across the pier, dark water beyond its ends,
 * and the pier continuing across. Pixels outside the tile are skipped; a strip with none gives
 * NaN.
 */
export function axisFeatures(
  values: Float32Array,
  width: number,
  height: number,
  cRow: number,
  cCol: number,
  orientationDeg: number,
  lengthM: number,
  widthM: number,
  spacing: { range: number; azimuth: number },
  background: number,
  meanValue: number,
  land: SeaLandField | null,
): number[] {
  const step = Math.min(spacing.range, spacing.azimuth);
  const th = (orientationDeg * Math.PI) / 180;
  const ur = Math.cos(th);
  const uc = Math.sin(th);
  const halfL = lengthM / 2;
  const halfW = Math.max(1.5 * step, widthM / 2);
  const ext = Math.min(40 * step, Math.max(4 * step, halfL));
  const sideExt = Math.max(4 * step, widthM);
  const at = (t: number, s: number) => {
    const r = Math.round(cRow + (t * ur - s * uc) / spacing.azimuth);
    const c = Math.round(cCol + (t * uc + s * ur) / spacing.range);
    return r < 0 || c < 0 || r >= height || c >= width ? -1 : r * width + c;
  };
  const samples = (a: number, b: number) => Math.floor((b - a) / step + 1e-9) + 1;
  const strip = (t0: number, t1: number, s0: number, s1: number): [number, number] => {
    let n = 0;
    let sum = 0;
    let bright = 0;
    const nt = samples(t0, t1);
    const ns = samples(s0, s1);
    for (let i = 0; i < nt; i++)
      for (let j = 0; j < ns; j++) {
        const p = at(t0 + i * step, s0 + j * step);
        if (p < 0) continue;
        const v = values[p]!;
        n++;
        sum += v;
        if (v >= 0.5 * meanValue) bright++;
      }
    if (!n || !(background > 0)) return [Number.NaN, Number.NaN];
    return [sum > 0 ? 10 * Math.log10(sum / n / background) : Number.NaN, bright / n];
  };
  const e1 = strip(halfL + step, halfL + ext, -halfW, halfW);
  const e2 = strip(-halfL - ext, -halfL - step, -halfW, halfW);
  const s1 = strip(-halfL, halfL, halfW + step, halfW + sideExt);
  const s2 = strip(-halfL, halfL, -halfW - sideExt, -halfW - step);
  const landAtPoint = (t: number, s: number) => {
    const p = land ? at(t, s) : -1;
    return p < 0 ? Number.NaN : landAt(land!, (p / width) | 0, p % width);
  };
  const hi = (a: number, b: number) => (Number.isNaN(a) ? b : Number.isNaN(b) ? a : Math.max(a, b));
  const lo = (a: number, b: number) => (Number.isNaN(a) ? b : Number.isNaN(b) ? a : Math.min(a, b));
  const le1 = landAtPoint(halfL + ext, 0);
  const le2 = landAtPoint(-halfL - ext, 0);
  const ls1 = landAtPoint(0, halfW + sideExt);
  const ls2 = landAtPoint(0, -halfW - sideExt);
  // Across the axis as far as the ends reach (a square chunk of a wide pier, whose axis may lie across it).
  const x1 = strip(-halfL, halfL, halfW + step, halfW + ext);
  const x2 = strip(-halfL, halfL, -halfW - ext, -halfW - step);
  return [hi(e1[0], e2[0]), lo(e1[0], e2[0]), hi(e1[1], e2[1]), lo(e1[1], e2[1]), hi(s1[0], s2[0]), lo(s1[0], s2[0]), hi(le1, le2), lo(le1, le2), hi(ls1, ls2), lo(ls1, ls2), hi(x1[0], x2[0]), hi(x1[1], x2[1])];
}

/**
 * The texture of a candidate's own pixels (issue 23 §1: is its brightness a few pixels over a dim
 * body, or the body itself? docs/ship.md "The candidate's own texture"): the coefficient of variation of
 * their σ0 ('partCv'), the share of them at least half the brightest ('partCoreShare') and the
 * mean of the brightest tenth over the median, dB ('partTopOverMedianDb'). `pixels`: tile-local
 * linear indices; `meanValue` their mean σ0.
 */
export function partTextureFeatures(values: Float32Array, pixels: ArrayLike<number>, meanValue: number): [number, number, number] {
  const n = pixels.length;
  if (partValues.length < n) partValues = new Float64Array(Math.max(n, 2 * partValues.length));
  let s2 = 0;
  let peak = 0;
  for (let k = 0; k < n; k++) {
    const v = values[pixels[k]!]!;
    partValues[k] = v;
    s2 += v * v;
    if (v > peak) peak = v;
  }
  const sorted = partValues.subarray(0, n).sort();
  const median = sorted[n >> 1]!;
  const top = Math.max(1, Math.round(n / 10));
  let topSum = 0;
  for (let k = n - top; k < n; k++) topSum += sorted[k]!;
  let core = 0;
  for (let k = n - 1; k >= 0 && sorted[k]! >= 0.5 * peak; k--) core++;
  return [
    meanValue > 0 ? Math.sqrt(Math.max(0, s2 / n - meanValue * meanValue)) / meanValue : Number.NaN,
    core / n,
    median > 0 ? 10 * Math.log10(topSum / top / median) : Number.NaN,
  ];
}
let partValues = new Float64Array(0);
