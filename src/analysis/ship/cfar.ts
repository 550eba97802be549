// Two-parameter CFAR on σ0 (linear) with summed-area tables.
//
// The background of a pixel is the ring between a guard box and a background box around it
// (SNAP AdaptiveThresholding's geometry). Its count, Σx and Σx² (Σln x and Σ(ln x)² for the
// log-normal model) come from summed-area tables over the pixels eligible as background (valid,
// not land, not censored), so a ring costs O(1) whatever the window sizes.
//
// Rings are evaluated per block of `block` × `block` pixels (2 by default): the tables are built
// over block sums and every pixel of a block is tested against its block's ring, whose boxes are
// the pixel boxes snapped to the block grid (within half a block of the requested sizes). Rings
// 80 px across do not change over one pixel, and this makes the CFAR 3–4× cheaper and its tables
// 4× smaller. Blocks are aligned to even full-image coordinates (`origin`), so overlapping tiles
// form the same rings. `block: 1` gives the exact per-pixel ring.
//
// Two passes: the first detects with every valid sea pixel in the background; the detections,
// grown by `censorDilationPx`, are then left out of the background and the blocks whose ring
// contained any of them are decided again. Without this a second ship inside the ring inflates
// Σx² and hides the first (the North-Sea crop has ships 100 m apart).
//
// Output per pixel: 2 above the detection threshold (PFA), 1 above the extent threshold
// (extentPfa, for hysteresis), 0 otherwise.

import { kMultiplierTable, normalQuantileUpper } from './distributions.ts';
import type { ClutterModel } from './params.ts';

/** Half sizes in pixels: rows (azimuth) and columns (range). A box spans 2·half + 1 pixels. */
export interface HalfWindow {
  rows: number;
  cols: number;
}

export interface CfarWindows {
  target: HalfWindow;
  guard: HalfWindow;
  background: HalfWindow;
}

/**
 * Window half sizes in pixels from sizes in metres, as SNAP computes them: a window of W m is
 * ⌊W/spacing⌋ + 1 pixels; target and guard halves are half of that rounded down, the background
 * half is (⌊W/spacing⌋)/2. Per axis, since GRD range and azimuth spacings may differ.
 * targetWindowM = 0 means a single pixel.
 */
export function cfarWindows(
  sizes: { targetWindowM: number; guardWindowM: number; backgroundWindowM: number },
  spacing: { range: number; azimuth: number },
): CfarWindows {
  const half = (m: number, s: number): number => Math.floor((Math.floor(m / s) + 1) / 2);
  const halfBackground = (m: number, s: number): number => Math.floor(Math.floor(m / s) / 2);
  const target =
    sizes.targetWindowM > 0
      ? { rows: half(sizes.targetWindowM, spacing.azimuth), cols: half(sizes.targetWindowM, spacing.range) }
      : { rows: 0, cols: 0 };
  const guard = { rows: half(sizes.guardWindowM, spacing.azimuth), cols: half(sizes.guardWindowM, spacing.range) };
  const background = {
    rows: Math.max(guard.rows + 1, halfBackground(sizes.backgroundWindowM, spacing.azimuth)),
    cols: Math.max(guard.cols + 1, halfBackground(sizes.backgroundWindowM, spacing.range)),
  };
  return { target, guard, background };
}

export interface CfarOptions {
  model: ClutterModel;
  pfa: number;
  extentPfa: number;
  looks: number;
  windows: CfarWindows;
  minBackgroundFraction: number;
  censorDilationPx: number;
  /** Second, censored pass (default true; false only to measure what it brings). */
  censor?: boolean;
  /** Ring evaluation block size (1 or 2 pixels). Default 2. */
  block?: number;
}

export interface CfarInput {
  /** σ0, linear, row-major width × height. */
  values: Float32Array;
  /** 1 where a pixel may be a target (valid and not land). */
  target: Uint8Array;
  /** 1 where a pixel may be background (valid and not land); defaults to `target`. */
  background?: Uint8Array;
  width: number;
  height: number;
  /** Full-image (row, col) of pixel (0, 0), to align blocks across tiles. Default (0, 0). */
  origin?: { row: number; col: number };
}

export interface CfarResult {
  /** 2 detected, 1 above the extent threshold, 0 otherwise. Lives in the scratch: valid until its next use. */
  mask: Uint8Array;
  /** Number of target pixels that got a decision (enough background). */
  decided: number;
  /** Indices of the pixels with mask 2 (ascending within each block row; may repeat after pass 2). */
  detected: Int32Array;
  /** Mean σ0 of the (censored) background ring of a pixel; NaN where there is too little background. */
  backgroundMean(row: number, col: number): number;
}

interface Tables {
  s1: Float64Array;
  s2: Float64Array;
  n: Int32Array;
}

/**
 * Reusable buffers, the bulk of a tile's memory. Allocating them per tile costs more than
 * filling them (the kernel zeroes fresh pages), so a thread keeps one scratch per channel. A
 * CfarResult's backgroundMean reads the scratch: it is valid until the scratch is used again.
 */
export class CfarScratch {
  readonly f64: Float64Array[] = [];
  readonly i32: Int32Array[] = [];
  readonly f32: Float32Array[] = [];
  readonly u8: Uint8Array[] = [];
}

const defaultScratch = new CfarScratch();

function take<T extends Float64Array | Int32Array | Float32Array | Uint8Array>(list: T[], k: number, size: number, make: (n: number) => T): T {
  let a = list[k];
  if (!a || a.length < size) {
    a = make(size);
    list[k] = a;
  }
  return a.length === size ? a : (a.subarray(0, size) as T);
}

/** Model constants: how a background (mean, second moment) becomes the two thresholds. */
interface ModelConstants {
  kind: 0 | 1 | 2; // 0 gaussian, 1 lognormal (the same formula on ln x), 2 K
  z: number;
  zLow: number;
  kTable: Float64Array;
  kLowTable: Float64Array;
  kScale: number;
  kMaxExcess: number;
  invLooksPlusOne: number;
}

function modelConstants(options: CfarOptions): ModelConstants {
  const empty = new Float64Array(2);
  if (options.model === 'k') {
    const hi = kMultiplierTable(options.looks, options.pfa).excessLookup();
    const lo = kMultiplierTable(options.looks, options.extentPfa).excessLookup();
    return {
      kind: 2,
      z: 0,
      zLow: 0,
      kTable: hi.table,
      kLowTable: lo.table,
      kScale: hi.scale,
      kMaxExcess: hi.maxExcess,
      invLooksPlusOne: 1 / (1 + 1 / options.looks),
    };
  }
  return {
    kind: options.model === 'lognormal' ? 1 : 0,
    z: normalQuantileUpper(options.pfa),
    zLow: normalQuantileUpper(options.extentPfa),
    kTable: empty,
    kLowTable: empty,
    kScale: 0,
    kMaxExcess: 0,
    invLooksPlusOne: 1,
  };
}

/** Geometry of the block grid over a tile. */
interface BlockGrid {
  b: number;
  /** Offsets so that block k covers local rows k·b − oy … k·b − oy + b − 1. */
  oy: number;
  ox: number;
  hb: number;
  wb: number;
  /** Block column of each pixel column. */
  colBlock: Int32Array;
  /** Ring half sizes in blocks. */
  outerRows: number;
  outerCols: number;
  guardRows: number;
  guardCols: number;
}

function blockGrid(w: number, h: number, b: number, origin: { row: number; col: number }, windows: CfarWindows): BlockGrid {
  const mod = (a: number): number => ((a % b) + b) % b;
  const oy = mod(origin.row);
  const ox = mod(origin.col);
  const centre = (b - 1) / 2;
  // Guard rounded up (never closer to the target than asked), background to the nearest block.
  const guardRows = Math.ceil((windows.guard.rows - centre) / b - 1e-9);
  const guardCols = Math.ceil((windows.guard.cols - centre) / b - 1e-9);
  const outerRows = Math.max(guardRows + 1, Math.round((windows.background.rows - centre) / b));
  const outerCols = Math.max(guardCols + 1, Math.round((windows.background.cols - centre) / b));
  const colBlock = new Int32Array(w);
  for (let x = 0; x < w; x++) colBlock[x] = Math.floor((x + ox) / b);
  return { b, oy, ox, hb: Math.floor((h - 1 + oy) / b) + 1, wb: Math.floor((w - 1 + ox) / b) + 1, colBlock, outerRows, outerCols, guardRows, guardCols };
}

/** Block sums of the eligible pixels (x or ln x), then their summed-area tables. */
function buildTables(
  pool: CfarScratch,
  slot: number,
  values: Float32Array,
  eligible: Uint8Array,
  w: number,
  h: number,
  grid: BlockGrid,
  log: boolean,
  /** First pass only: per block, the max target value (prescreen) and the number of target pixels. */
  targets?: { mask: Uint8Array; max: Float32Array; count: Uint8Array },
): Tables {
  const { b, oy, hb, wb, colBlock } = grid;
  const W1 = wb + 1;
  const size = W1 * (hb + 1);
  const s1 = take(pool.f64, 2 * slot, size, (n) => new Float64Array(n));
  const s2 = take(pool.f64, 2 * slot + 1, size, (n) => new Float64Array(n));
  const n = take(pool.i32, slot, size, (m) => new Int32Array(m));
  // Row sums of one block row, accumulated across the block's pixel rows.
  const r1 = take(pool.f64, 100 + slot * 2, wb, (m) => new Float64Array(m));
  const r2 = take(pool.f64, 101 + slot * 2, wb, (m) => new Float64Array(m));
  const rn = take(pool.i32, 100 + slot, wb, (m) => new Int32Array(m));
  s1.fill(0, 0, W1);
  s2.fill(0, 0, W1);
  n.fill(0, 0, W1);
  for (let by = 0; by < hb; by++) {
    r1.fill(0);
    r2.fill(0);
    rn.fill(0);
    const yStart = Math.max(0, by * b - oy);
    const yEnd = Math.min(h, by * b - oy + b);
    if (targets) {
      const base = by * wb;
      targets.max.fill(-Infinity, base, base + wb);
      targets.count.fill(0, base, base + wb);
    }
    for (let y = yStart; y < yEnd; y++) {
      const src = y * w;
      if (targets && targets.mask === eligible && !log) {
        // The usual case (targets and background are the same pixels): one pass for both.
        const bmax = targets.max;
        const bcount = targets.count;
        const base = by * wb;
        for (let x = 0; x < w; x++) {
          if (eligible[src + x] === 0) continue;
          const v = values[src + x]!;
          const k = colBlock[x]!;
          r1[k] = r1[k]! + v;
          r2[k] = r2[k]! + v * v;
          rn[k] = rn[k]! + 1;
          if (v > bmax[base + k]!) bmax[base + k] = v;
          bcount[base + k]!++;
        }
        continue;
      }
      if (targets) {
        const tm = targets.mask;
        const bmax = targets.max;
        const bcount = targets.count;
        const base = by * wb;
        for (let x = 0; x < w; x++) {
          if (tm[src + x] === 0) continue;
          const k = base + colBlock[x]!;
          const v = values[src + x]!;
          if (v > bmax[k]!) bmax[k] = v;
          bcount[k]!++;
        }
      }
      for (let x = 0; x < w; x++) {
        if (eligible[src + x] === 0) continue;
        let v = values[src + x]!;
        if (log) v = Math.log(v > 1e-12 ? v : 1e-12);
        const k = colBlock[x]!;
        r1[k] = r1[k]! + v;
        r2[k] = r2[k]! + v * v;
        rn[k] = rn[k]! + 1;
      }
    }
    let a1 = 0;
    let a2 = 0;
    let an = 0;
    const above = by * W1 + 1;
    const row = (by + 1) * W1 + 1;
    s1[row - 1] = 0;
    s2[row - 1] = 0;
    n[row - 1] = 0;
    for (let k = 0; k < wb; k++) {
      a1 += r1[k]!;
      a2 += r2[k]!;
      an += rn[k]!;
      s1[row + k] = s1[above + k]! + a1;
      s2[row + k] = s2[above + k]! + a2;
      n[row + k] = n[above + k]! + an;
    }
  }
  return { s1, s2, n };
}

/** Pixel-level tables of the target pixels, for a target window of more than one pixel. */
function buildPixelTables(pool: CfarScratch, values: Float32Array, mask: Uint8Array, w: number, h: number): Tables {
  const W1 = w + 1;
  const size = W1 * (h + 1);
  const s1 = take(pool.f64, 10, size, (n) => new Float64Array(n));
  const n = take(pool.i32, 10, size, (m) => new Int32Array(m));
  s1.fill(0, 0, W1);
  n.fill(0, 0, W1);
  for (let y = 0; y < h; y++) {
    let a1 = 0;
    let an = 0;
    const above = y * W1 + 1;
    const row = (y + 1) * W1 + 1;
    s1[row - 1] = 0;
    n[row - 1] = 0;
    for (let x = 0; x < w; x++) {
      if (mask[y * w + x]) {
        a1 += values[y * w + x]!;
        an++;
      }
      s1[row + x] = s1[above + x]! + a1;
      n[row + x] = n[above + x]! + an;
    }
  }
  return { s1, s2: s1, n };
}

/**
 * The ring test, as a class so the hot loop is plain field and typed-array access (no closures
 * created per block).
 */
class RingDetector {
  readonly minCount: number;
  /** Per block column: summed-area column indices of the outer and guard boxes. */
  readonly ox0: Int32Array;
  readonly ox1: Int32Array;
  readonly gx0: Int32Array;
  readonly gx1: Int32Array;
  /** Pixel target-window tables (only with a target window). */
  readonly target: Tables | null;
  readonly tx0: Int32Array;
  readonly tx1: Int32Array;
  /** Max target value per block (prescreen; filled by the first buildTables). */
  readonly blockMax: Float32Array;
  /** Target pixels per block. */
  readonly blockCount: Uint8Array;

  constructor(
    readonly values: Float32Array,
    readonly targetMask: Uint8Array,
    readonly w: number,
    readonly h: number,
    readonly grid: BlockGrid,
    readonly windows: CfarWindows,
    readonly model: ModelConstants,
    minBackgroundFraction: number,
    pool: CfarScratch,
  ) {
    const { b, outerRows, outerCols, guardRows, guardCols, wb, hb, oy } = grid;
    const fullRing = ((2 * outerRows + 1) * (2 * outerCols + 1) - (2 * guardRows + 1) * (2 * guardCols + 1)) * b * b;
    this.minCount = Math.max(8, Math.ceil(minBackgroundFraction * fullRing));
    this.ox0 = new Int32Array(wb);
    this.ox1 = new Int32Array(wb);
    this.gx0 = new Int32Array(wb);
    this.gx1 = new Int32Array(wb);
    for (let k = 0; k < wb; k++) {
      this.ox0[k] = Math.max(0, k - outerCols);
      this.ox1[k] = Math.min(wb, k + outerCols + 1);
      this.gx0[k] = Math.max(0, k - guardCols);
      this.gx1[k] = Math.min(wb, k + guardCols + 1);
    }
    const T = windows.target;
    this.target = T.rows > 0 || T.cols > 0 ? buildPixelTables(pool, values, targetMask, w, h) : null;
    this.tx0 = new Int32Array(w);
    this.tx1 = new Int32Array(w);
    for (let x = 0; x < w; x++) {
      this.tx0[x] = Math.max(0, x - T.cols);
      this.tx1[x] = Math.min(w, x + T.cols + 1);
    }
    this.blockMax = take(pool.f32, 0, wb * hb, (m) => new Float32Array(m));
    this.blockCount = take(pool.u8, 2, wb * hb, (m) => new Uint8Array(m));
  }

  /**
   * Decide the target pixels of every block into `mask` (2/1/0). With `previous` (the first
   * pass's counts), only blocks whose ring count differs from it are decided again.
   * Returns the number of pixels decided.
   */
  /** Pixels set to 2 by the last scans (appended). */
  hits: number[] = [];

  scan(t: Tables, mask: Uint8Array, previous: Int32Array | null): number {
    const { values, targetMask, w, h, grid, minCount, ox0, ox1, gx0, gx1, target, tx0, tx1, blockMax, blockCount, model } = this;
    const { b, oy, ox, hb, wb, outerRows, guardRows } = grid;
    const W1 = wb + 1;
    const PW1 = w + 1;
    const T = this.windows.target;
    const n = t.n;
    const s1 = t.s1;
    const s2 = t.s2;
    const log = model.kind === 1;
    const isK = model.kind === 2;
    const kTable = model.kTable;
    const kLow = model.kLowTable;
    const kScale = model.kScale;
    const kMax = model.kMaxExcess;
    const kNorm = model.invLooksPlusOne;
    const kLast = kTable.length - 2;
    const z = model.z;
    const zLow = model.zLow;
    let decided = 0;
    for (let by = 0; by < hb; by++) {
      const oy0 = Math.max(0, by - outerRows) * W1;
      const oy1 = Math.min(hb, by + outerRows + 1) * W1;
      const iy0 = Math.max(0, by - guardRows) * W1;
      const iy1 = Math.min(hb, by + guardRows + 1) * W1;
      const yStart = Math.max(0, by * b - oy);
      const yEnd = Math.min(h, by * b - oy + b);
      for (let bx = 0; bx < wb; bx++) {
        if (blockCount[by * wb + bx] === 0) continue; // no target pixel in this block
        // With a target window the statistic is a mean, which no pixel maximum bounds: no prescreen.
        const vmax = target ? Infinity : blockMax[by * wb + bx]!;
        const a = ox0[bx]!;
        const c = ox1[bx]!;
        const d = gx0[bx]!;
        const e = gx1[bx]!;
        const count = n[oy1 + c]! - n[oy0 + c]! - n[oy1 + a]! + n[oy0 + a]! - (n[iy1 + e]! - n[iy0 + e]! - n[iy1 + d]! + n[iy0 + d]!);
        const xStart = Math.max(0, bx * b - ox);
        const xEnd = Math.min(w, bx * b - ox + b);
        if (previous !== null) {
          const before =
            previous[oy1 + c]! - previous[oy0 + c]! - previous[oy1 + a]! + previous[oy0 + a]! -
            (previous[iy1 + e]! - previous[iy0 + e]! - previous[iy1 + d]! + previous[iy0 + d]!);
          if (before === count) continue;
          for (let y = yStart; y < yEnd; y++) mask.fill(0, y * w + xStart, y * w + xEnd);
        }
        if (count < minCount) continue;
        decided += blockCount[by * wb + bx]!;
        const mean = (s1[oy1 + c]! - s1[oy0 + c]! - s1[oy1 + a]! + s1[oy0 + a]! - (s1[iy1 + e]! - s1[iy0 + e]! - s1[iy1 + d]! + s1[iy0 + d]!)) / count;
        // Every model's thresholds lie above the background mean (PFA ≤ 0.1): most blocks stop here.
        if ((log ? Math.log(vmax > 1e-12 ? vmax : 1e-12) : vmax) <= mean) continue;
        const m2 = (s2[oy1 + c]! - s2[oy0 + c]! - s2[oy1 + a]! + s2[oy0 + a]! - (s2[iy1 + e]! - s2[iy0 + e]! - s2[iy1 + d]! + s2[iy0 + d]!)) / count;
        let hi: number;
        let lo: number;
        if (isK) {
          // K moments: <x²>/<x>² = (1 + 1/L)(1 + 1/ν), so 1/ν = ratio/(1 + 1/L) − 1.
          let ex = (m2 / (mean * mean)) * kNorm - 1;
          if (ex < 0) ex = 0;
          else if (ex > kMax) ex = kMax;
          const f = ex * kScale;
          const k = Math.min(kLast, f | 0);
          const frac = f - k;
          hi = mean * (kTable[k]! + (kTable[k + 1]! - kTable[k]!) * frac);
          lo = mean * (kLow[k]! + (kLow[k + 1]! - kLow[k]!) * frac);
        } else {
          const variance = m2 - mean * mean;
          const sd = variance > 0 ? Math.sqrt(variance) : 0;
          hi = mean + z * sd;
          lo = mean + zLow * sd;
        }
        for (let y = yStart; y < yEnd; y++) {
          const ty0 = Math.max(0, y - T.rows) * PW1;
          const ty1 = Math.min(h, y + T.rows + 1) * PW1;
          for (let x = xStart; x < xEnd; x++) {
            const i = y * w + x;
            if (targetMask[i] === 0) continue;
            let v: number;
            if (target !== null) {
              const ta = tx0[x]!;
              const tb = tx1[x]!;
              const cnt = target.n[ty1 + tb]! - target.n[ty0 + tb]! - target.n[ty1 + ta]! + target.n[ty0 + ta]!;
              v = cnt > 0 ? (target.s1[ty1 + tb]! - target.s1[ty0 + tb]! - target.s1[ty1 + ta]! + target.s1[ty0 + ta]!) / cnt : values[i]!;
            } else {
              v = values[i]!;
            }
            if (log) v = Math.log(v > 1e-12 ? v : 1e-12);
            if (v > hi) {
              mask[i] = 2;
              this.hits.push(i);
            } else if (v > lo) mask[i] = 1;
          }
        }
      }
    }
    return decided;
  }

  /** Mean σ0 of the ring of the block holding pixel (y, x); NaN with too little background. */
  backgroundMean(t: Tables, y: number, x: number): number {
    const { grid, ox0, ox1, gx0, gx1 } = this;
    const { b, oy, ox, hb, wb, outerRows, guardRows } = grid;
    const W1 = wb + 1;
    const by = ((y + oy) / b) | 0;
    const bx = ((x + ox) / b) | 0;
    const oy0 = Math.max(0, by - outerRows) * W1;
    const oy1 = Math.min(hb, by + outerRows + 1) * W1;
    const iy0 = Math.max(0, by - guardRows) * W1;
    const iy1 = Math.min(hb, by + guardRows + 1) * W1;
    const a = ox0[bx]!;
    const c = ox1[bx]!;
    const d = gx0[bx]!;
    const e = gx1[bx]!;
    const box = (s: Float64Array | Int32Array): number =>
      s[oy1 + c]! - s[oy0 + c]! - s[oy1 + a]! + s[oy0 + a]! - (s[iy1 + e]! - s[iy0 + e]! - s[iy1 + d]! + s[iy0 + d]!);
    const count = box(t.n);
    if (count < this.minCount) return Number.NaN;
    const mean = box(t.s1) / count;
    if (this.model.kind !== 1) return mean;
    const variance = Math.max(0, box(t.s2) / count - mean * mean);
    return Math.exp(mean + variance / 2);
  }
}

/** Run the CFAR over a tile. */
export function cfarDetect(input: CfarInput, options: CfarOptions, scratch: CfarScratch = defaultScratch): CfarResult {
  const { values, width: w, height: h } = input;
  const targetMask = input.target;
  const eligible = input.background ?? targetMask;
  const log = options.model === 'lognormal';
  const grid = blockGrid(w, h, options.block ?? 2, input.origin ?? { row: 0, col: 0 }, options.windows);
  const detector = new RingDetector(values, targetMask, w, h, grid, options.windows, modelConstants(options), options.minBackgroundFraction, scratch);

  let tables = buildTables(scratch, 0, values, eligible, w, h, grid, log, { mask: targetMask, max: detector.blockMax, count: detector.blockCount });
  const mask = take(scratch.u8, 0, w * h, (m) => new Uint8Array(m));
  mask.fill(0);
  const decided = detector.scan(tables, mask, null);

  // Pass 2: censor the detections and re-decide the blocks whose ring saw any of them.
  const first = detector.hits.slice();
  const r = options.censorDilationPx;
  if (first.length > 0 && options.censor !== false) {
    const censored = take(scratch.u8, 1, w * h, (m) => new Uint8Array(m));
    censored.set(eligible);
    for (const i of first) {
      const y = (i / w) | 0;
      const x = i - y * w;
      for (let yy = Math.max(0, y - r); yy <= Math.min(h - 1, y + r); yy++) {
        censored.fill(0, yy * w + Math.max(0, x - r), yy * w + Math.min(w - 1, x + r) + 1);
      }
    }
    const firstCounts = tables.n;
    tables = buildTables(scratch, 1, values, censored, w, h, grid, log);
    detector.scan(tables, mask, firstCounts);
  }
  // Pass 2 may clear first-pass detections; keep the indices still marked.
  const detected = Int32Array.from(new Set(detector.hits.filter((i) => mask[i] === 2)));

  const finalTables = tables;
  return {
    mask,
    decided,
    detected,
    backgroundMean: (row, col) => detector.backgroundMean(finalTables, row, col),
  };
}
