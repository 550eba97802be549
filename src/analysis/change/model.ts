// The per-pixel building-change model: a logistic regression on speckle-filtered backscatter.
//
// For `newbuilding` the "before" image is the pre scene and the "after" image the post
// scene; for `disappearbuilding` the roles swap (a vanished building is a building that
// "appears" when time runs backwards: bright before, dark after). One model serves both.
//
// Features, all in dB, of the filtered intensities (γ0 for RTC, σ0 for GRD):
//   lrVv = 10·log10(after_vv / before_vv)    log-ratio, VV
//   lrVh = 10·log10(after_vh / before_vh)    log-ratio, VH
//   bVv  = 10·log10(after_vv)                 brightness of the after image, VV
//   bVh  = 10·log10(after_vh)                 brightness of the after image, VH
// p = 1 / (1 + exp(−(β0 + β1·lrVv + β2·lrVh + β3·bVv + β4·bVh)))
//
// The log-ratio says "it got brighter", the brightness says "and it is now as bright as a
// building" (crops, wet soil and wind on water get brighter too, but stay far darker than
// a double-bounce target). Coefficients were fitted on generated scenes with ground truth
// (training/change/calibrate.ts, docs/change.md): class-balanced maximum likelihood, so
// p is the posterior probability of "new building" at even prior odds. The detection
// threshold was chosen on separate generated scenes for the best per-object F1.
//
// Single-polarisation input uses its own coefficient set (fitted the same way with the
// other polarisation's terms left out), so VV-only or VH-only pairs still work.

import type { SpeckleFilterOptions } from './speckle.ts';

export type ChangeKind = 'newbuilding' | 'disappearbuilding';

export interface LogisticCoefficients {
  intercept: number;
  logRatioVv: number;
  logRatioVh: number;
  brightVv: number;
  brightVh: number;
  contrastVv: number;
  contrastVh: number;
}

/** Feature names in the order of the feature vector (after the intercept). */
export const FEATURE_NAMES = ['logRatioVv', 'logRatioVh', 'brightVv', 'brightVh', 'contrastVv', 'contrastVh'] as const;
export type FeatureName = (typeof FEATURE_NAMES)[number];
/** Which features a channel set uses. */
export const CHANNEL_FEATURES: Record<'dual' | 'vv' | 'vh', readonly FeatureName[]> = {
  dual: FEATURE_NAMES,
  vv: ['logRatioVv', 'brightVv', 'contrastVv'],
  vh: ['logRatioVh', 'brightVh', 'contrastVh'],
};

export interface ChangeModel {
  /** Identifies the calibration (reported in docs/change.md). */
  version: string;
  /** Filter the coefficients were fitted with; changing it invalidates them. */
  filter: SpeckleFilterOptions;
  /** Half-size (pixels) of the boxcar that estimates the local background for the contrast features. */
  backgroundRadius: number;
  dual: LogisticCoefficients;
  vvOnly: LogisticCoefficients;
  vhOnly: LogisticCoefficients;
  /** Detection threshold on p: pixels with p ≥ threshold are change. Also confidence's lower bound. */
  threshold: number;
  /** Connected regions smaller than this are dropped (m²). */
  minAreaSqm: number;
  /**
   * …and regions of fewer pixels than this, whatever the pixel size: at 30 m posting one
   * pixel is 900 m², and a lone pixel's change is as likely speckle as a building.
   */
  minRegionPixels: number;
  /**
   * Region test: the mean over the region's unfiltered pixels of 10·log10(after / before)
   * (then the mean over the polarisations used) must reach this many dB. Averaging N pixels
   * divides the speckle spread of the log-ratio (≈ 3.1 dB per pixel at ENL 4.4) by √N, so
   * a region that only looked like change because a few bright, fluctuating pixels (stable
   * buildings, corner reflections) lined up is rejected, while a real new building passes.
   */
  minRegionLogRatioDb: number;
}

/** Calibrated on generated 10 m scenes; see docs/change.md for the fit and its scores. */
export const DEFAULT_CHANGE_MODEL: ChangeModel = Object.freeze({
  version: 'logistic-2025.1',
  filter: Object.freeze({ method: 'lee', radius: 2, looks: 4.4 }),
  backgroundRadius: 6,
  dual: Object.freeze({ intercept: 2.8821, logRatioVv: 0.6735, logRatioVh: -0.1599, brightVv: -0.2327, brightVh: 0.5112, contrastVv: 0.3487, contrastVh: 0.1896 }),
  vvOnly: Object.freeze({ intercept: -1.1484, logRatioVv: 0.4989, logRatioVh: 0, brightVv: 0.2255, brightVh: 0, contrastVv: 0.3258, contrastVh: 0 }),
  vhOnly: Object.freeze({ intercept: 2.7067, logRatioVv: 0, logRatioVh: 0.2867, brightVv: 0, brightVh: 0.2654, contrastVv: 0, contrastVh: 0.6144 }),
  threshold: 0.8,
  minAreaSqm: 400,
  minRegionPixels: 3,
  minRegionLogRatioDb: 5,
}) as ChangeModel;

export type Channels = 'dual' | 'vv' | 'vh';

export function coefficientsFor(model: ChangeModel, channels: Channels): LogisticCoefficients {
  return channels === 'dual' ? model.dual : channels === 'vv' ? model.vvOnly : model.vhOnly;
}

const DB = 10 / Math.LN10;

/**
 * Filtered linear intensities of one tile (NaN where invalid). `before`/`after` are already
 * in model order (for disappearbuilding: before = post scene, after = pre scene).
 * `background*` is the wide boxcar mean of the after image (contrast features).
 */
export interface FeatureInputs {
  beforeVv?: Float32Array;
  afterVv?: Float32Array;
  backgroundVv?: Float32Array;
  beforeVh?: Float32Array;
  afterVh?: Float32Array;
  backgroundVh?: Float32Array;
}

const usable = (v: number): boolean => v > 0 && v < Infinity;

/**
 * The six features of pixel i in FEATURE_NAMES order (unused channel: 0). Returns false when
 * a used value is not a positive finite number (the pixel cannot be scored).
 */
export function featuresAt(inputs: FeatureInputs, i: number, out: Float64Array): boolean {
  out.fill(0);
  if (inputs.beforeVv && inputs.afterVv) {
    const b = inputs.beforeVv[i]!;
    const a = inputs.afterVv[i]!;
    const g = inputs.backgroundVv ? inputs.backgroundVv[i]! : a;
    if (!usable(b) || !usable(a) || !usable(g)) return false;
    const la = Math.log(a) * DB;
    out[0] = la - Math.log(b) * DB;
    out[2] = la;
    out[4] = la - Math.log(g) * DB;
  }
  if (inputs.beforeVh && inputs.afterVh) {
    const b = inputs.beforeVh[i]!;
    const a = inputs.afterVh[i]!;
    const g = inputs.backgroundVh ? inputs.backgroundVh[i]! : a;
    if (!usable(b) || !usable(a) || !usable(g)) return false;
    const la = Math.log(a) * DB;
    out[1] = la - Math.log(b) * DB;
    out[3] = la;
    out[5] = la - Math.log(g) * DB;
  }
  return true;
}

/** Logistic probability from a feature vector (FEATURE_NAMES order). */
export function logisticProbability(c: LogisticCoefficients, features: ArrayLike<number>): number {
  let z = c.intercept;
  FEATURE_NAMES.forEach((name, k) => {
    z += c[name] * features[k]!;
  });
  return 1 / (1 + Math.exp(-z));
}

/**
 * Per-pixel probability of the model; NaN where `valid` is 0 or the pixel cannot be scored.
 * Writes into `out`.
 */
export function probabilityMap(
  inputs: FeatureInputs,
  valid: Uint8Array,
  coefficients: LogisticCoefficients,
  out: Float32Array = new Float32Array(valid.length),
): Float32Array {
  logitMap(inputs, valid, coefficients, out);
  for (let i = 0; i < out.length; i++) out[i] = 1 / (1 + Math.exp(-out[i]!));
  return out;
}

/** logit(p) = ln(p / (1 − p)) of the model per pixel (NaN where unscored): thresholding it needs no exp. */
export function logit(p: number): number {
  return Math.log(p / (1 - p));
}

/** The model's linear predictor z per pixel, p = 1 / (1 + e^−z); NaN where not scored. */
export function logitMap(
  inputs: FeatureInputs,
  valid: Uint8Array,
  coefficients: LogisticCoefficients,
  out: Float32Array = new Float32Array(valid.length),
): Float32Array {
  const useVv = !!(inputs.beforeVv && inputs.afterVv);
  const useVh = !!(inputs.beforeVh && inputs.afterVh);
  if (!useVv && !useVh) throw new RangeError('logitMap: need VV or VH in both images');
  // Natural logs throughout; the dB scale is folded into the coefficients.
  const c = coefficients;
  const lrV = c.logRatioVv * DB;
  const bV = c.brightVv * DB;
  const cV = c.contrastVv * DB;
  const lrH = c.logRatioVh * DB;
  const bH = c.brightVh * DB;
  const cH = c.contrastVh * DB;
  const bvv = inputs.beforeVv;
  const avv = inputs.afterVv;
  const gvv = inputs.backgroundVv ?? inputs.afterVv;
  const bvh = inputs.beforeVh;
  const avh = inputs.afterVh;
  const gvh = inputs.backgroundVh ?? inputs.afterVh;
  for (let i = 0; i < valid.length; i++) {
    out[i] = Number.NaN;
    if (!valid[i]) continue;
    let z = c.intercept;
    if (useVv) {
      const b = bvv![i]!;
      const a = avv![i]!;
      const g = gvv![i]!;
      if (!(b > 0 && a > 0 && g > 0 && b < Infinity && a < Infinity && g < Infinity)) continue;
      const la = Math.log(a);
      z += lrV * (la - Math.log(b)) + bV * la + cV * (la - Math.log(g));
    }
    if (useVh) {
      const b = bvh![i]!;
      const a = avh![i]!;
      const g = gvh![i]!;
      if (!(b > 0 && a > 0 && g > 0 && b < Infinity && a < Infinity && g < Infinity)) continue;
      const la = Math.log(a);
      z += lrH * (la - Math.log(b)) + bH * la + cH * (la - Math.log(g));
    }
    out[i] = z;
  }
  return out;
}

/**
 * The spec's confidence for one polygon: the median of the model's probability over the
 * polygon's pixels, bounded below by the detection threshold; null when none of its pixels
 * could be read (no finite probability). Rounded to 4 decimals, never below the threshold.
 */
export function confidenceFromProbabilities(probabilities: ArrayLike<number>, threshold: number): number | null {
  const finite: number[] = [];
  for (let i = 0; i < probabilities.length; i++) {
    const p = probabilities[i]!;
    if (Number.isFinite(p)) finite.push(p);
  }
  if (finite.length === 0) return null;
  finite.sort((a, b) => a - b);
  const m = finite.length >> 1;
  const median = finite.length % 2 ? finite[m]! : (finite[m - 1]! + finite[m]!) / 2;
  return Math.max(threshold, Math.round(median * 1e4) / 1e4);
}
