import type { NoiseLut } from './noise.js';

/** A sparse LUT row: values at some pixels of one line. */
export interface SparseVector {
  line: number;
  pixels: ArrayLike<number>;
  values: ArrayLike<number>;
}

/** Index i with xs[i] ≤ v < xs[i+1], clamped to 0 … n-2 (n ≥ 2). */
export function bracket(xs: ArrayLike<number>, v: number): number {
  let lo = 0;
  let hi = xs.length - 1;
  if (hi < 1 || v <= xs[0]!) return 0;
  if (v >= xs[hi]!) return hi - 1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (xs[mid]! <= v) lo = mid;
    else hi = mid;
  }
  return lo;
}

/** Linear interpolation in a sorted table, held constant beyond its ends. */
export function interpolate1d(xs: ArrayLike<number>, ys: ArrayLike<number>, x: number): number {
  const n = xs.length;
  if (n === 1 || x <= xs[0]!) return ys[0]!;
  if (x >= xs[n - 1]!) return ys[n - 1]!;
  const i = bracket(xs, x);
  const x0 = xs[i]!;
  const x1 = xs[i + 1]!;
  const t = x1 > x0 ? (x - x0) / (x1 - x0) : 0;
  return ys[i]! + t * (ys[i + 1]! - ys[i]!);
}

/**
 * Bilinear evaluation of a LUT that is sparse in lines and pixels, one row segment at a time.
 *
 * Each vector is interpolated along range once per window (x0, width) and kept while rows
 * still fall between it and its neighbour, so a row costs one lerp per pixel and no
 * allocation. Outside the LUT's lines or pixels the edge value is held (clamped).
 */
export class LutRowInterpolator {
  private readonly lines: Float64Array;
  private readonly rows = new Map<number, Float32Array>();
  private x0 = Number.NaN;
  private width = -1;

  constructor(private readonly vectors: readonly SparseVector[]) {
    this.lines = Float64Array.from(vectors, (v) => v.line);
  }

  /** out[i] = LUT(line, x0 + i) for every i < out.length. */
  fillRow(line: number, x0: number, out: Float32Array): void {
    if (this.vectors.length === 1) {
      this.reset(x0, out.length);
      out.set(this.vectorRow(0));
      return;
    }
    const { r0, r1, t } = this.rowPair(line, x0, out.length);
    for (let i = 0; i < out.length; i++) out[i] = r0[i]! + t * (r1[i]! - r0[i]!);
  }

  /**
   * What fillRow blends for `line` over columns x0 … x0 + width − 1: fillRow's out[i] is
   * Math.fround(r0[i] + t · (r1[i] − r0[i])). With one vector r1 is r0 and t is 0, which gives
   * r0's values (fillRow copies them). For callers that interpolate as they go (calibrate.ts).
   */
  rowPair(line: number, x0: number, width: number): { r0: Float32Array; r1: Float32Array; t: number } {
    this.reset(x0, width);
    if (this.vectors.length === 1) {
      const r0 = this.vectorRow(0);
      return { r0, r1: r0, t: 0 };
    }
    const k = bracket(this.lines, line);
    const l0 = this.lines[k]!;
    const l1 = this.lines[k + 1]!;
    const t = l1 > l0 ? Math.min(1, Math.max(0, (line - l0) / (l1 - l0))) : 0;
    const r0 = this.vectorRow(k);
    const r1 = this.vectorRow(k + 1);
    // Rows of a window are visited top to bottom: vectors above k are no longer needed.
    for (const key of this.rows.keys()) if (key < k) this.rows.delete(key);
    return { r0, r1, t };
  }

  private reset(x0: number, width: number): void {
    if (x0 !== this.x0 || width !== this.width) {
      this.rows.clear();
      this.x0 = x0;
      this.width = width;
    }
  }

  private vectorRow(k: number): Float32Array {
    let row = this.rows.get(k);
    if (row) return row;
    const { pixels, values } = this.vectors[k]!;
    row = interpolateVectorRow(pixels, values, this.x0, this.width);
    this.rows.set(k, row);
    return row;
  }
}

/**
 * Thermal noise power η(line, pixel) in DN² units, per row segment.
 * IPF ≥ 2.9: η = rangeLUT(line, pixel) × azimuthLUT_block(line) for the sub-swath block that
 * holds the pixel (pixels in no block keep the range value). Older products: η = rangeLUT.
 */
export class NoiseRowInterpolator {
  private readonly range: LutRowInterpolator;

  constructor(private readonly noise: NoiseLut) {
    this.range = new LutRowInterpolator(noise.rangeVectors.map((v) => ({ line: v.line, pixels: v.pixels, values: v.values })));
  }

  fillRow(line: number, x0: number, out: Float32Array): void {
    this.range.fillRow(line, x0, out);
    const last = x0 + out.length - 1;
    for (const block of this.noise.azimuthVectors) {
      if (line < block.firstAzimuthLine || line > block.lastAzimuthLine) continue;
      const from = Math.max(x0, block.firstRangeSample);
      const to = Math.min(last, block.lastRangeSample);
      if (from > to) continue;
      const factor = interpolate1d(block.lines, block.values, line);
      for (let x = from; x <= to; x++) out[x - x0] *= factor;
    }
  }

  /**
   * fillRow's row as parts for callers that interpolate as they go (calibrate.ts): the range
   * LUT's rowPair, and the columns (0-based in the segment) split where the azimuth factor
   * changes — `starts[j]` … `starts[j + 1]` − 1 take `factors[j]` (1 where no block applies:
   * x · 1 is x). fillRow's out[i] is then Math.fround(Math.fround(r0[i] + t · (r1[i] − r0[i])) ·
   * factor). Null when two blocks overlap on this row (a pixel multiplied twice): use fillRow.
   */
  rowParts(line: number, x0: number, width: number): { r0: Float32Array; r1: Float32Array; t: number; starts: number[]; factors: number[] } | null {
    const pair = this.range.rowPair(line, x0, width);
    const last = x0 + width - 1;
    const spans: { from: number; to: number; factor: number }[] = [];
    for (const block of this.noise.azimuthVectors) {
      if (line < block.firstAzimuthLine || line > block.lastAzimuthLine) continue;
      const from = Math.max(x0, block.firstRangeSample);
      const to = Math.min(last, block.lastRangeSample);
      if (from > to) continue;
      spans.push({ from: from - x0, to: to - x0, factor: interpolate1d(block.lines, block.values, line) });
    }
    spans.sort((a, b) => a.from - b.from);
    const starts: number[] = [0];
    const factors: number[] = [];
    let next = 0;
    for (const s of spans) {
      if (s.from < next) return null;
      if (s.from > next) {
        factors.push(1);
        starts.push(s.from);
      }
      factors.push(s.factor);
      starts.push(s.to + 1);
      next = s.to + 1;
    }
    if (next < width) {
      factors.push(1);
      starts.push(width);
    }
    if (factors.length === 0) {
      // width 0
      starts.push(0);
      factors.push(1);
    }
    return { ...pair, starts, factors };
  }
}

/**
 * One LUT vector along range, linearly interpolated over columns x0 … x0 + width − 1 and held
 * constant beyond its end pixels. Shared by the LUT above and the ship workers' own DN → σ0
 * calibration (src/analysis/ship/calibrate.ts), which must agree with it bit for bit.
 */
export function interpolateVectorRow(pixels: ArrayLike<number>, values: ArrayLike<number>, x0: number, width: number): Float32Array {
  const row = new Float32Array(width);
  const n = pixels.length;
  let j = 0;
  for (let i = 0; i < width; i++) {
    const x = x0 + i;
    if (n === 1 || x <= pixels[0]!) {
      row[i] = values[0]!;
      continue;
    }
    if (x >= pixels[n - 1]!) {
      row[i] = values[n - 1]!;
      continue;
    }
    while (j + 1 < n - 1 && pixels[j + 1]! <= x) j++;
    while (j > 0 && pixels[j]! > x) j--;
    const p0 = pixels[j]!;
    const p1 = pixels[j + 1]!;
    const t = p1 > p0 ? (x - p0) / (p1 - p0) : 0;
    row[i] = values[j]! + t * (values[j + 1]! - values[j]!);
  }
  return row;
}
