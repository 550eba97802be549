// Learnt ship candidates (issue 23 §1): instead of thresholding σ0 (CFAR, sea level), a
// per-pixel classifier says how likely each pixel is part of a ship, and the vessels are the
// connected components of that probability. The features are multi-scale and relative to the
// robust sea level (seaLevel.ts), so they do not depend on the image's calibration: the pixel
// and its 3 × 3 … 63 × 63 box means over the sea level (dB), local maximum, texture (coefficient
// of variation), log-gradient, and the share of bright pixels around it (quays and land are
// broad and bright, a ship is compact on dark water). Windows are in pixels (the SSDD chips it is
// fitted on have no known pixel size). The trees are ../oilslick/gbt.ts's, fitted by
// training/ship/fitPixelClassifier.ts and stored in pixelModel.json. Pure, on typed arrays;
// imports ../oilslick/gbt.ts, ../common/committedModel.ts, ../../raster/boxMean.ts, ../../raster/components.ts,
// ./cluster.ts (type), ./seaLevel.ts.

import { committedModel } from '../common/committedModel.ts';
import { gbtPredict, type GbtModel } from '../oilslick/gbt.ts';
import { BoxScratch, boxMean } from '../../raster/boxMean.ts';
import { connectedComponents } from '../../raster/components.ts';
import type { Cluster } from './cluster.ts';
import { seaLevel } from './seaLevel.ts';

export const PIXEL_FEATURES = [
  'pixelDb',
  'mean3Db',
  'mean7Db',
  'mean15Db',
  'mean31Db',
  'mean63Db',
  'max7Db',
  'cv7',
  'cv31',
  'gradient3',
  'bright31',
  'bright63',
  'levelOverMedianDb',
  'mean3OverMean15Db',
  'mean7OverMean63Db',
] as const;

export const PIXEL_FEATURE_COUNT = PIXEL_FEATURES.length;
/** Block (px) of the robust sea level the features are relative to. */
export const PIXEL_LEVEL_BLOCK = 64;
/** A pixel is "bright" (bright31/63) at this factor over the sea level. */
const BRIGHT_FACTOR = 8;

export interface PixelFeatureField {
  width: number;
  height: number;
  /** Feature planes, plane k at [k·n, (k+1)·n); NaN outside the target pixels. */
  planes: Float32Array;
  /** 3 × 3 mean over the sea level (linear ratio), the gate of `pixelProbability`. */
  gate: Float32Array;
}

const db = (x: number) => 10 * Math.log10(Math.max(x, 1e-12));

/** Running maximum over (2r+1) × (2r+1), clipped, separable. */
function boxMax(src: Float32Array, width: number, height: number, r: number): Float32Array {
  const tmp = new Float32Array(src.length);
  const out = new Float32Array(src.length);
  for (let y = 0; y < height; y++) {
    const b = y * width;
    for (let x = 0; x < width; x++) {
      let m = -Infinity;
      for (let k = Math.max(0, x - r); k <= Math.min(width - 1, x + r); k++) if (src[b + k]! > m) m = src[b + k]!;
      tmp[b + x] = m;
    }
  }
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      let m = -Infinity;
      for (let k = Math.max(0, y - r); k <= Math.min(height - 1, y + r); k++) if (tmp[k * width + x]! > m) m = tmp[k * width + x]!;
      out[y * width + x] = m;
    }
  return out;
}

/** The feature planes of every target pixel (`target` ≠ 0: valid sea or unknown). */
export function pixelFeatureField(values: Float32Array, target: Uint8Array, width: number, height: number): PixelFeatureField {
  const n = width * height;
  const d = PIXEL_FEATURE_COUNT;
  const planes = new Float32Array(d * n).fill(Number.NaN);
  const gate = new Float32Array(n);
  const level = seaLevel(values, target, width, height, PIXEL_LEVEL_BLOCK);
  // Per-pixel level (block value; a block with no target pixel takes the tile's median level).
  const finite = Array.from(level.level).filter((v) => v > 0).sort((a, b) => a - b);
  const medianLevel = finite.length ? finite[finite.length >> 1]! : Number.NaN;
  if (!(medianLevel > 0)) return { width, height, planes, gate };
  const lv = new Float32Array(n);
  for (let r = 0; r < height; r++) {
    const base = Math.floor(r / level.block) * level.cols;
    for (let c = 0; c < width; c++) {
      const v = level.level[base + Math.floor(c / level.block)]!;
      lv[r * width + c] = v > 0 ? v : medianLevel;
    }
  }
  const scratch = new BoxScratch();
  const mean = (src: ArrayLike<number>, r: number) => boxMean(src, target, width, height, r, r, new Float32Array(n), { scratch });
  const m3 = mean(values, 1);
  const m7 = mean(values, 3);
  const m15 = mean(values, 7);
  const m31 = mean(values, 15);
  const m63 = mean(values, 31);
  const sq = new Float32Array(n);
  const bright = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    sq[i] = values[i]! * values[i]!;
    bright[i] = values[i]! >= BRIGHT_FACTOR * lv[i]! ? 1 : 0;
  }
  const q7 = mean(sq, 3);
  const q31 = mean(sq, 15);
  const b31 = mean(bright, 15);
  const b63 = mean(bright, 31);
  const masked = new Float32Array(n);
  for (let i = 0; i < n; i++) masked[i] = target[i] ? values[i]! : 0;
  const max7 = boxMax(masked, width, height, 3);
  const cv = (m: number, q: number) => (m > 0 ? Math.sqrt(Math.max(0, q - m * m)) / m : Number.NaN);
  for (let r = 0; r < height; r++)
    for (let c = 0; c < width; c++) {
      const i = r * width + c;
      if (!target[i]) continue;
      const L = lv[i]!;
      const ln = (rr: number, cc: number) => Math.log(Math.max(m3[Math.min(height - 1, Math.max(0, rr)) * width + Math.min(width - 1, Math.max(0, cc))]!, 1e-12));
      const gx = ln(r, c + 2) - ln(r, c - 2);
      const gy = ln(r + 2, c) - ln(r - 2, c);
      const f = [
        db(values[i]! / L),
        db(m3[i]! / L),
        db(m7[i]! / L),
        db(m15[i]! / L),
        db(m31[i]! / L),
        db(m63[i]! / L),
        db(max7[i]! / L),
        cv(m7[i]!, q7[i]!),
        cv(m31[i]!, q31[i]!),
        Math.hypot(gx, gy),
        b31[i]!,
        b63[i]!,
        db(L / medianLevel),
        db(m3[i]! / m15[i]!),
        db(m7[i]! / m63[i]!),
      ];
      for (let k = 0; k < d; k++) planes[k * n + i] = f[k]!;
      gate[i] = m3[i]! / L;
    }
  return { width, height, planes, gate };
}

export function featuresAt(field: PixelFeatureField, i: number, out: number[] = new Array<number>(PIXEL_FEATURE_COUNT)): number[] {
  const n = field.width * field.height;
  for (let k = 0; k < PIXEL_FEATURE_COUNT; k++) out[k] = field.planes[k * n + i]!;
  return out;
}

export interface PixelModel {
  model: GbtModel;
  /** Pixels whose 3 × 3 mean is below this × the sea level are not evaluated (probability 0). */
  gate: number;
  /** Component pixels: probability ≥ low; a component is a vessel when it holds a pixel ≥ high. */
  low: number;
  high: number;
  /** Smallest component (px). */
  minPixels: number;
  fitted: Record<string, unknown>;
}

/** The committed model (pixelModel.json beside this file), read once per thread. */
export const pixelModel = committedModel<PixelModel>(
  new URL('./pixelModel.json', import.meta.url),
  'ship pixelModel.json',
  (m) => m.model.featureNames,
  PIXEL_FEATURES,
  'training/ship/fitPixelClassifier.ts',
);

/** Ship probability per pixel (0 outside the gate and the target pixels). */
export function pixelProbability(field: PixelFeatureField, model: Pick<PixelModel, 'model' | 'gate'>): Float32Array {
  const n = field.width * field.height;
  const p = new Float32Array(n);
  const x = new Array<number>(PIXEL_FEATURE_COUNT);
  for (let i = 0; i < n; i++) if (field.gate[i]! >= model.gate) p[i] = gbtPredict(model.model, featuresAt(field, i, x));
  return p;
}

export interface PixelObject {
  /** Linear pixel indices. */
  pixels: Int32Array;
  centroidRow: number;
  centroidCol: number;
  /** Highest probability in the object. */
  score: number;
}

/**
 * Objects from a probability map: 8-connected components of pixels ≥ `low` that hold a pixel
 * ≥ `high` and at least `minPixels` pixels; the centroid is probability-weighted.
 */
export function pixelObjects(p: Float32Array, width: number, height: number, o: Pick<PixelModel, 'low' | 'high' | 'minPixels'>): PixelObject[] {
  const n = width * height;
  const mask = new Uint8Array(n);
  const seeds: number[] = [];
  for (let i = 0; i < n; i++) {
    if (p[i]! >= o.low) mask[i] = 1;
    if (p[i]! >= o.high) seeds.push(i);
  }
  const comps = connectedComponents(mask, width, height, { seeds });
  const out: PixelObject[] = [];
  for (let k = 0; k < comps.count; k++) {
    const pixels = comps.pixels.slice(comps.offsets[k]!, comps.offsets[k + 1]!);
    if (pixels.length < o.minPixels) continue;
    let sw = 0;
    let sr = 0;
    let sc = 0;
    let score = 0;
    for (const i of pixels) {
      const w = p[i]!;
      sw += w;
      sr += w * ((i / width) | 0);
      sc += w * (i % width);
      if (w > score) score = w;
    }
    out.push({ pixels, centroidRow: sr / sw, centroidCol: sc / sw, score });
  }
  return out;
}

/**
 * The vessels of a tile as the detector's clusters: pixelObjects of the committed model's
 * probability on `values` (every object pixel counts as detected; the peak is the brightest σ0; the centroid is
 * probability-weighted, as in pixelObjects).
 */
export function pixelClusters(values: Float32Array, target: Uint8Array, width: number, height: number, model: PixelModel = pixelModel()): Array<Cluster & { score: number }> {
  const field = pixelFeatureField(values, target, width, height);
  const objects = pixelObjects(pixelProbability(field, model), width, height, model);
  return objects.map((o) => {
    let rowMin = height;
    let rowMax = -1;
    let colMin = width;
    let colMax = -1;
    let peak = -Infinity;
    let peakIndex = -1;
    for (const i of o.pixels) {
      const r = (i / width) | 0;
      const c = i - r * width;
      if (r < rowMin) rowMin = r;
      if (r > rowMax) rowMax = r;
      if (c < colMin) colMin = c;
      if (c > colMax) colMax = c;
      if (values[i]! > peak) {
        peak = values[i]!;
        peakIndex = i;
      }
    }
    const n = o.pixels.length;
    return { pixels: o.pixels, detected: n, rowMin, rowMax, colMin, colMax, centroidRow: o.centroidRow, centroidCol: o.centroidCol, peak, peakIndex, score: o.score };
  });
}
