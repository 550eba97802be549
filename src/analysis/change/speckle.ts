// Speckle filters for intensity (linear power: σ0, γ0) images with a validity mask.
//
// Every filter is computed with separable running sums (src/raster/boxMean.ts), so the cost
// per pixel does not depend on the window size, and every filter ignores invalid pixels: a
// window's statistics come from its valid pixels only, and an invalid centre stays NaN. No-data therefore never
// bleeds into the data next to it (the edge of a swath or of a masked area).
//
// ENL (equivalent number of looks) assumptions, documented in docs/change.md:
// - Fully developed speckle in an L-look intensity image is Gamma(L, 1/L) multiplicative
//   noise: coefficient of variation Cu = 1/√L.
// - Sentinel-1 IW GRD-H is specified at ENL ≈ 4.4, and the model assumes it. OPERA RTC-S1
//   at 30 m measures higher (≈ 7 from the Enga stack's log-ratio spread); assuming fewer
//   looks than there are only makes the Lee filter smooth a little less.
// - A boxcar of (2r+1)² pixels multiplies the ENL by at most (2r+1)²; with correlated
//   neighbours the gain is smaller, so `effectiveLooks` is an upper bound.

import { BoxScratch, boxCount, boxMean, maskedBoxSums } from '../../raster/boxMean.ts';
import { ComponentScratch } from '../../raster/components.ts';

export type SpeckleFilterMethod = 'boxcar' | 'trimmed' | 'lee' | 'none';

export interface SpeckleFilterOptions {
  method: SpeckleFilterMethod;
  /** Window half-size in pixels: the window is (2·radius + 1)². */
  radius: number;
  /** ENL of the input (used by the Lee filter's noise model). */
  looks: number;
}

/** The filter of the shipped change model (model.ts): Lee, 5 × 5, ENL 4.4. */
export const DEFAULT_SPECKLE_FILTER: Readonly<SpeckleFilterOptions> = Object.freeze({ method: 'lee', radius: 2, looks: 4.4 });

/** Upper bound of the ENL after a boxcar of (2r+1)² pixels (independent pixels). */
export function effectiveLooks(options: SpeckleFilterOptions): number {
  if (options.method === 'none' || options.radius <= 0) return options.looks;
  const n = (2 * options.radius + 1) ** 2;
  if (options.method === 'boxcar') return options.looks * n;
  if (options.method === 'trimmed') return options.looks * (n - 1);
  return options.looks; // Lee keeps point targets: no fixed gain
}

/**
 * Scratch buffers reused across calls (one set per worker), so tiles do not churn the heap.
 * It also remembers the window counts of the last validity mask per radius: every band of a
 * tile shares one mask, so the counts are computed once per tile and radius.
 */
export class SpeckleScratch extends BoxScratch {
  /** Buffers of the region labelling (change/tile.ts), reused tile after tile. */
  readonly components = new ComponentScratch();
  private counts = new Map<number, { valid: Uint8Array; width: number; count: Float64Array }>();

  /** A named reusable typed array of exactly n elements (content unspecified; raster/scratch.ts). */
  f32(name: string, n: number): Float32Array {
    return this.array(name, Float32Array, n);
  }
  u8(name: string, n: number): Uint8Array {
    return this.array(name, Uint8Array, n);
  }
  i32(name: string, n: number): Int32Array {
    return this.array(name, Int32Array, n);
  }

  /** Forget the cached window counts (call when a mask array is reused with new content). */
  resetCounts(): void {
    this.counts.clear();
  }

  /** Number of valid pixels in each (2r+1)² window (cached for the same mask object). */
  windowCounts(valid: Uint8Array, width: number, height: number, radius: number): Float64Array {
    const cached = this.counts.get(radius);
    if (cached && cached.valid === valid && cached.width === width && cached.count.length === width * height) return cached.count;
    const count = boxCount(valid, width, height, radius, radius, this.get(`count-${radius}`, width * height), this);
    this.counts.set(radius, { valid, width, count });
    return count;
  }
}

/**
 * Windowed sums over valid pixels (src/raster/boxMean.ts): Σv, Σv² (when `squares`) and the
 * count of valid pixels in the (2r+1)² window clipped to the image.
 */
function windowSums(
  values: Float32Array,
  valid: Uint8Array,
  width: number,
  height: number,
  radius: number,
  squares: boolean,
  scratch: SpeckleScratch,
): { sum: Float64Array; sumSq: Float64Array | null; count: Float64Array } {
  const count = scratch.windowCounts(valid, width, height, radius);
  const { sum, sumSq } = maskedBoxSums(values, valid, width, height, radius, radius, squares, scratch);
  return { sum, sumSq, count };
}

/**
 * Boxcar multi-look: the mean of the valid pixels in the (2r+1)² window around each valid
 * pixel; NaN where the centre is invalid.
 */
export function boxcarFilter(
  values: Float32Array,
  valid: Uint8Array,
  width: number,
  height: number,
  radius: number,
  out: Float32Array = new Float32Array(width * height),
  scratch: SpeckleScratch = new SpeckleScratch(),
): Float32Array {
  if (radius <= 0) {
    for (let i = 0; i < out.length; i++) out[i] = valid[i] ? values[i]! : Number.NaN;
    return out;
  }
  return boxMean(values, valid, width, height, radius, radius, out, { count: scratch.windowCounts(valid, width, height, radius), scratch });
}

/**
 * Lee (1980) minimum-mean-square-error filter with a multiplicative noise model:
 *   x̂ = m + k (z − m),   k = max(0, (V − m² Cu²) / (V (1 + Cu²))),   Cu² = 1/L,
 * where m and V are the mean and variance of the valid pixels in the window. Homogeneous
 * areas (V ≈ m² Cu²) get the local mean; strong point targets and edges (V ≫ m² Cu²) keep
 * their value, which is what keeps small buildings small.
 */
export function leeFilter(
  values: Float32Array,
  valid: Uint8Array,
  width: number,
  height: number,
  radius: number,
  looks: number,
  out: Float32Array = new Float32Array(width * height),
  scratch: SpeckleScratch = new SpeckleScratch(),
): Float32Array {
  if (radius <= 0) return boxcarFilter(values, valid, width, height, 0, out, scratch);
  const cu2 = 1 / looks;
  const { sum, sumSq, count } = windowSums(values, valid, width, height, radius, true, scratch);
  for (let i = 0; i < width * height; i++) {
    if (!valid[i]) {
      out[i] = Number.NaN;
      continue;
    }
    const c = count[i]!;
    const m = sum[i]! / c;
    const variance = Math.max(0, sumSq![i]! / c - m * m);
    const k = variance > 0 ? Math.max(0, (variance - m * m * cu2) / (variance * (1 + cu2))) : 0;
    out[i] = m + k * (values[i]! - m);
  }
  return out;
}

/**
 * Trimmed boxcar: the mean of the valid pixels in the window without the brightest one.
 * A single-pixel bright transient (a vehicle, a container, a sidelobe) then leaves no trace
 * in any window, where a plain boxcar would spread it into a (2r+1)² block that looks like
 * a building; a target of two or more pixels survives. Everywhere else it is a boxcar
 * (ENL gain (2r+1)² − 1), biased low by the dropped maximum in the same way in both images.
 */
export function trimmedBoxcarFilter(
  values: Float32Array,
  valid: Uint8Array,
  width: number,
  height: number,
  radius: number,
  out: Float32Array = new Float32Array(width * height),
  scratch: SpeckleScratch = new SpeckleScratch(),
): Float32Array {
  if (radius <= 0) return boxcarFilter(values, valid, width, height, 0, out, scratch);
  const { sum, count } = windowSums(values, valid, width, height, radius, false, scratch);
  const n = width * height;
  // Separable window maximum over valid pixels (−Infinity where the window has none).
  const rowMax = scratch.get('rowMax', n);
  for (let y = 0; y < height; y++) {
    const base = y * width;
    for (let x = 0; x < width; x++) {
      let m = -Infinity;
      const x0 = Math.max(0, x - radius);
      const x1 = Math.min(width - 1, x + radius);
      for (let k = x0; k <= x1; k++) {
        const i = base + k;
        if (valid[i] && values[i]! > m) m = values[i]!;
      }
      rowMax[base + x] = m;
    }
  }
  for (let y = 0; y < height; y++) {
    const y0 = Math.max(0, y - radius);
    const y1 = Math.min(height - 1, y + radius);
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      if (!valid[i]) {
        out[i] = Number.NaN;
        continue;
      }
      const c = count[i]!;
      if (c <= 1) {
        out[i] = values[i]!;
        continue;
      }
      let m = -Infinity;
      for (let k = y0; k <= y1; k++) {
        const v = rowMax[k * width + x]!;
        if (v > m) m = v;
      }
      out[i] = (sum[i]! - m) / (c - 1);
    }
  }
  return out;
}

/** Apply the configured filter (NaN where invalid). */
export function filterSpeckle(
  values: Float32Array,
  valid: Uint8Array,
  width: number,
  height: number,
  options: SpeckleFilterOptions,
  out?: Float32Array,
  scratch?: SpeckleScratch,
): Float32Array {
  if (options.method === 'lee') return leeFilter(values, valid, width, height, options.radius, options.looks, out, scratch);
  if (options.method === 'trimmed') return trimmedBoxcarFilter(values, valid, width, height, options.radius, out, scratch);
  return boxcarFilter(values, valid, width, height, options.method === 'none' ? 0 : options.radius, out, scratch);
}
