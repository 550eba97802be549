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
// Σx² and hides the first (the North-Sea crop has ships 100 m apart). The second pass does not
// rebuild the tables: the censored ring is the first ring minus the removed pixels' ring, from
// small sparse tables of the removed pixels alone, and only blocks within a ring's reach of a
// removed pixel are visited.
//
// Cost (open sea, per tile of 3434² px): one pass over the pixels for the block sums, block
// maxima and tables (2 × 2 blocks read four pixels at once, the maximum taken on the float32
// bits without branches), then one O(1) ring per block; a block whose brightest pixel is below
// mean × the smallest extent multiplier stops there (nearly all sea blocks). The usual case (no
// target window, linear σ0) has a loop of its own per pass (scanFirst, scanSecond) holding only
// what nearly every block needs; every path does the same arithmetic in the same order, so the
// same bits (cfar.test.ts pins them). All buffers live in a per-thread scratch reused tile after
// tile: fresh pages cost more than the work here (≈ 14 µs per 4 KiB page fault on the bench box).
//
// Output per pixel: 2 above the detection threshold (PFA), 1 above the extent threshold
// (extentPfa, for hysteresis), 0 otherwise.

import { ComponentScratch, connectedComponents } from '../../raster/components.ts';
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
  /**
   * Vessel sizes in pixels along each axis (metres / spacing): pass 2 also censors every
   * 8-connected component of first-pass pixels above the extent threshold whose bounding box's
   * diagonal reaches `min`, (rows / min.rows)² + (cols / min.cols)² ≥ 1, and that holds no
   * detection — or whose box reaches `max` (larger than any vessel) whatever it holds. Without
   * it, only the detections are censored.
   */
  censorObjectPx?: { min: { rows: number; cols: number }; max: { rows: number; cols: number } };
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
  /** Indices of the pixels with mask 2, each once, in the order first detected (block rows top to bottom, pass 2's after). */
  detected: Int32Array;
  /** Mean σ0 of the (censored) background ring of a pixel; NaN where there is too little background. */
  backgroundMean(row: number, col: number): number;
}

interface Tables {
  s1: Float64Array;
  s2: Float64Array;
  n: Int32Array;
}

/** Tables of the pixels the censoring removed, and per block row the block columns whose ring can hold any. */
interface RemovedTables {
  tables: Tables;
  /** Offset of summed-area row R (0…hb) in the tables (rows without removals in between share one). */
  rowBase: Int32Array;
  /** Block rows firstRow…lastRow (inclusive) may be affected; in block row `by`, columns colFrom[by] ≤ bx < colTo[by]. */
  firstRow: number;
  lastRow: number;
  colFrom: Int32Array;
  colTo: Int32Array;
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
  readonly components = new ComponentScratch();
}

const defaultScratch = new CfarScratch();

/**
 * Buffer `k` of `list`, `size` long. A buffer that must grow is allocated at the power of two
 * over max(size, reserve): only the pages a tile touches fault in, and the next, slightly
 * larger tile (the scene's edge tiles come first) or removed tables with more rows reuse it
 * instead of faulting a fresh one in whole.
 */
function take<T extends Float64Array | Int32Array | Float32Array | Uint8Array>(list: T[], k: number, size: number, make: (n: number) => T, reserve = size): T {
  let a = list[k];
  if (!a || a.length < size) {
    const want = Math.max(size, reserve, 1);
    a = make(Math.max(want, 2 ** Math.ceil(Math.log2(want))));
    list[k] = a;
  }
  return a.length === size ? a : (a.subarray(0, size) as T);
}

/**
 * How a ring's moments become the two thresholds, for one model: `set(mean, m2)` leaves the
 * detection threshold in `hi` and the extent threshold in `lo`. The one formula of every loop
 * (scan, decideBlock): a small monomorphic method that V8 inlines, writing two fields instead of
 * returning an object per block. Log-normal is the Gaussian formula on ln x (the loops log).
 */
class Thresholds {
  /** The last thresholds `set` computed: detection (PFA) and extent (extentPfa). Doubles from the start. */
  hi = Number.NaN;
  lo = Number.NaN;
  readonly isK: boolean;
  readonly log: boolean;
  /** Gaussian / log-normal: the normal quantiles of the two PFAs. */
  readonly z: number;
  readonly zLow: number;
  /** K: the multiplier tables by texture excess 1/ν (distributions.ts excessLookup), their step and range. */
  readonly kTable: Float64Array;
  readonly kLowTable: Float64Array;
  readonly kLast: number;
  readonly kScale: number;
  readonly kMaxExcess: number;
  readonly invLooksPlusOne: number;
  /**
   * A lower bound of extent threshold / background mean over every background (the K table's
   * smallest extent multiplier; 1 for the other models, whose thresholds lie above the mean):
   * a block whose brightest pixel is at most mean × lowFloor is decided without its ring's
   * second moment. Nearly every sea block stops there.
   */
  readonly lowFloor: number;

  constructor(options: CfarOptions) {
    // Every field assigned once, in one order, whatever the model: one hidden class, so `set` stays monomorphic.
    const lookup = (pfa: number) => kMultiplierTable(options.looks, pfa).excessLookup();
    const k = options.model === 'k' ? { hi: lookup(options.pfa), lo: lookup(options.extentPfa) } : null;
    const none = new Float64Array(2);
    this.isK = k !== null;
    this.log = options.model === 'lognormal';
    this.z = k ? 0 : normalQuantileUpper(options.pfa);
    this.zLow = k ? 0 : normalQuantileUpper(options.extentPfa);
    this.kTable = k ? k.hi.table : none;
    this.kLowTable = k ? k.lo.table : none;
    this.kLast = this.kTable.length - 2;
    this.kScale = k ? k.hi.scale : 0;
    this.kMaxExcess = k ? k.hi.maxExcess : 0;
    this.invLooksPlusOne = k ? 1 / (1 + 1 / options.looks) : 1;
    // Interpolation between two entries stays above the smaller; the margin covers rounding.
    this.lowFloor = k ? Math.max(1, k.lo.table.reduce((m, v) => Math.min(m, v), Infinity) * (1 - 1e-9)) : 1;
  }

  /** The thresholds of a ring with mean `mean` and second moment `m2` (of x, or of ln x), into hi and lo. */
  set(mean: number, m2: number): void {
    if (this.isK) {
      const kTable = this.kTable;
      const kLow = this.kLowTable;
      // K moments: <x²>/<x>² = (1 + 1/L)(1 + 1/ν), so 1/ν = ratio/(1 + 1/L) − 1.
      let ex = (m2 / (mean * mean)) * this.invLooksPlusOne - 1;
      if (ex < 0) ex = 0;
      else if (ex > this.kMaxExcess) ex = this.kMaxExcess;
      const f = ex * this.kScale;
      const k = Math.min(this.kLast, f | 0);
      const frac = f - k;
      this.hi = mean * (kTable[k]! + (kTable[k + 1]! - kTable[k]!) * frac);
      this.lo = mean * (kLow[k]! + (kLow[k + 1]! - kLow[k]!) * frac);
    } else {
      const variance = m2 - mean * mean;
      const sd = variance > 0 ? Math.sqrt(variance) : 0;
      this.hi = mean + this.z * sd;
      this.lo = mean + this.zLow * sd;
    }
  }
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

/** The summed-area tables over the block grid, from scratch slot `slot`: row 0 zeroed, the rest for the caller to fill. */
function blockTables(pool: CfarScratch, slot: number, grid: BlockGrid): Tables {
  const W1 = grid.wb + 1;
  const size = W1 * (grid.hb + 1);
  const s1 = take(pool.f64, 2 * slot, size, (m) => new Float64Array(m));
  const s2 = take(pool.f64, 2 * slot + 1, size, (m) => new Float64Array(m));
  const n = take(pool.i32, slot, size, (m) => new Int32Array(m));
  s1.fill(0, 0, W1);
  s2.fill(0, 0, W1);
  n.fill(0, 0, W1);
  return { s1, s2, n };
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
  if (grid.b === 2 && !log && targets && targets.mask === eligible) return buildTables2(pool, slot, values, eligible, w, h, grid, targets.max, targets.count);
  const { b, oy, hb, wb, colBlock } = grid;
  const W1 = wb + 1;
  const tables = blockTables(pool, slot, grid);
  const { s1, s2, n } = tables;
  // Row sums of one block row, accumulated across the block's pixel rows.
  const r1 = take(pool.f64, 100 + slot * 2, wb, (m) => new Float64Array(m));
  const r2 = take(pool.f64, 101 + slot * 2, wb, (m) => new Float64Array(m));
  const rn = take(pool.i32, 100 + slot, wb, (m) => new Int32Array(m));
  const rowSums: Tables = { s1: r1, s2: r2, n: rn };
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
    const row = (by + 1) * W1 + 1;
    s1[row - 1] = 0;
    s2[row - 1] = 0;
    n[row - 1] = 0;
    prefixRow(tables, row, by * W1 + 1, rowSums, 0, wb);
  }
  return tables;
}

/**
 * Summed-area row at `row` (wb cells): the row at `above` plus the running sum of one block
 * row's sums, read from `sums` at `at`… (which may be the row itself: each cell is read before
 * it is written).
 */
function prefixRow(t: Tables, row: number, above: number, sums: Tables, at: number, wb: number): void {
  const { s1, s2, n } = t;
  const q1 = sums.s1;
  const q2 = sums.s2;
  const qn = sums.n;
  let a1 = 0;
  let a2 = 0;
  let an = 0;
  for (let k = 0; k < wb; k++) {
    a1 += q1[at + k]!;
    a2 += q2[at + k]!;
    an += qn[at + k]!;
    s1[row + k] = s1[above + k]! + a1;
    s2[row + k] = s2[above + k]! + a2;
    n[row + k] = n[above + k]! + an;
  }
}

/** +Infinity as float32 bits; larger non-negative patterns are NaN. */
const FLOAT32_INF_BITS = 0x7f800000;

/**
 * buildTables for the usual case — 2 × 2 blocks, linear σ0, targets and background the same
 * pixels — in one pass over the pixels, block by block: a full block of four eligible pixels
 * (open sea: nearly all of them) takes four loads and no per-pixel branching. Sums are
 * accumulated in the same order as the general loop (row by row, left to right), so the tables
 * are bit-identical to it.
 */
function buildTables2(
  pool: CfarScratch,
  slot: number,
  values: Float32Array,
  eligible: Uint8Array,
  w: number,
  h: number,
  grid: BlockGrid,
  bmax: Float32Array,
  bcount: Uint8Array,
): Tables {
  const { oy, ox, hb, wb } = grid;
  const W1 = wb + 1;
  const { s1, s2, n } = blockTables(pool, slot, grid);
  // The same memory as values and bmax, read and written as float32 bit patterns.
  const bits = new Int32Array(values.buffer, values.byteOffset, values.length);
  const bmaxBits = new Int32Array(bmax.buffer, bmax.byteOffset, bmax.length);
  // Block columns whose two pixel columns are both inside the tile.
  const kFirst = ox === 0 ? 0 : 1;
  const kEnd = (w - 1 + ox) % 2 === 1 ? wb : wb - 1;
  for (let by = 0; by < hb; by++) {
    const ya = 2 * by - oy;
    const both = ya >= 0 && ya + 1 < h;
    const above = by * W1 + 1;
    const row = (by + 1) * W1 + 1;
    const base = by * wb;
    s1[row - 1] = 0;
    s2[row - 1] = 0;
    n[row - 1] = 0;
    let a1 = 0;
    let a2 = 0;
    let an = 0;
    for (let k = 0; k < wb; k++) {
      let bs = 0;
      let bq = 0;
      let bc = 0;
      let mx = -Infinity;
      const xa = 2 * k - ox;
      if (both && k >= kFirst && k < kEnd) {
        const i0 = ya * w + xa;
        const i1 = i0 + w;
        if (eligible[i0]! + eligible[i0 + 1]! + eligible[i1]! + eligible[i1 + 1]! === 4) {
          const v0 = values[i0]!;
          const v1 = values[i0 + 1]!;
          const v2 = values[i1]!;
          const v3 = values[i1 + 1]!;
          bs = v0 + v1 + v2 + v3;
          bq = v0 * v0 + v1 * v1 + v2 * v2 + v3 * v3;
          bc = 4;
          // The maximum on the float32 bits: for non-negative floats that are not NaN the bit
          // patterns order as the values, and an integer maximum compiles without branches
          // (the float comparisons mispredicted on speckle and cost half of this function).
          const b0 = bits[i0]!;
          const b1 = bits[i0 + 1]!;
          const b2 = bits[i1]!;
          const b3 = bits[i1 + 1]!;
          const m01 = b0 ^ ((b0 ^ b1) & -(b0 < b1));
          const m23 = b2 ^ ((b2 ^ b3) & -(b2 < b3));
          const m = m01 ^ ((m01 ^ m23) & -(m01 < m23));
          if ((b0 | b1 | b2 | b3) >= 0 && m <= FLOAT32_INF_BITS) {
            bmaxBits[base + k] = m;
            bcount[base + k] = 4;
            a1 += bs;
            a2 += bq;
            an += 4;
            s1[row + k] = s1[above + k]! + a1;
            s2[row + k] = s2[above + k]! + a2;
            n[row + k] = n[above + k]! + an;
            continue;
          }
          // A negative value or NaN: the comparisons, in the order the general loop makes them.
          mx = v0 > v1 ? v0 : v1;
          if (v2 > mx) mx = v2;
          if (v3 > mx) mx = v3;
        } else {
          for (let q = 0; q < 4; q++) {
            const i = q < 2 ? i0 + q : i1 + q - 2;
            if (eligible[i] === 0) continue;
            const v = values[i]!;
            bs += v;
            bq += v * v;
            bc++;
            if (v > mx) mx = v;
          }
        }
      } else {
        // Tile edges: the block's pixels inside the tile.
        for (let y = Math.max(0, ya); y < Math.min(h, ya + 2); y++) {
          for (let x = Math.max(0, xa); x < Math.min(w, xa + 2); x++) {
            const i = y * w + x;
            if (eligible[i] === 0) continue;
            const v = values[i]!;
            bs += v;
            bq += v * v;
            bc++;
            if (v > mx) mx = v;
          }
        }
      }
      bmax[base + k] = mx;
      bcount[base + k] = bc;
      a1 += bs;
      a2 += bq;
      an += bc;
      s1[row + k] = s1[above + k]! + a1;
      s2[row + k] = s2[above + k]! + a2;
      n[row + k] = n[above + k]! + an;
    }
  }
  return { s1, s2, n };
}

/**
 * Summed-area tables of what the censoring removes from the background: the eligible pixels
 * within `r` pixels (Chebyshev) of a first-pass detection (x or ln x). The censored ring is the
 * first pass's ring minus this one, and a block needs deciding again only where its removed
 * count is non-zero.
 *
 * Removed pixels are few, so the tables are sparse in rows: a summed-area row only differs from
 * the one above it where the block row between them holds removed pixels. Only those rows are
 * stored; `rowBase[R]` is the offset of summed-area row R (0…hb), shared with the row above
 * when nothing was removed in between.
 */
function buildRemovedTables(
  pool: CfarScratch,
  values: Float32Array,
  eligible: Uint8Array,
  hits: readonly number[],
  r: number,
  w: number,
  h: number,
  grid: BlockGrid,
  log: boolean,
): RemovedTables {
  const { b, oy, ox, hb, wb, outerRows, outerCols } = grid;
  const W1 = wb + 1;
  // The removed pixels, each once. `seen` is all zeros between calls (reset below).
  const seen = take(pool.u8, 1, w * h, (m) => new Uint8Array(m));
  const removedPixels: number[] = [];
  // Per block row, the first and last block column holding a removed pixel.
  const minCol = new Int32Array(hb).fill(wb);
  const maxCol = new Int32Array(hb).fill(-1);
  for (const i of hits) {
    const y = (i / w) | 0;
    const x = i - y * w;
    for (let yy = Math.max(0, y - r); yy <= Math.min(h - 1, y + r); yy++) {
      const by = ((yy + oy) / b) | 0;
      for (let xx = Math.max(0, x - r); xx <= Math.min(w - 1, x + r); xx++) {
        const j = yy * w + xx;
        if (seen[j] !== 0 || eligible[j] === 0) continue;
        seen[j] = 1;
        removedPixels.push(j);
        const bx = ((xx + ox) / b) | 0;
        if (bx < minCol[by]!) minCol[by] = bx;
        if (bx > maxCol[by]!) maxCol[by] = bx;
      }
    }
  }
  // Summed-area row R covers block rows < R: a new stored row after each block row with removals.
  const rowBase = new Int32Array(hb + 1);
  let stored = 1; // row 0: zeros
  for (let R = 1; R <= hb; R++) rowBase[R] = maxCol[R - 1]! >= 0 ? W1 * stored++ : rowBase[R - 1]!;
  const size = W1 * stored;
  // Reserved at the full table's size: the stored rows vary from tile to tile.
  const full = W1 * (hb + 1);
  const s1 = take(pool.f64, 4, size, (m) => new Float64Array(m), full);
  const s2 = take(pool.f64, 5, size, (m) => new Float64Array(m), full);
  const n = take(pool.i32, 2, size, (m) => new Int32Array(m), full);
  s1.fill(0);
  s2.fill(0);
  n.fill(0);
  const tables: Tables = { s1, s2, n };
  // Block sums into the stored row below each block row (column bx + 1), then prefix sums.
  for (const j of removedPixels) {
    seen[j] = 0;
    const y = (j / w) | 0;
    const x = j - y * w;
    let v = values[j]!;
    if (log) v = Math.log(v > 1e-12 ? v : 1e-12);
    const cell = rowBase[(((y + oy) / b) | 0) + 1]! + 1 + (((x + ox) / b) | 0);
    s1[cell] = s1[cell]! + v;
    s2[cell] = s2[cell]! + v * v;
    n[cell] = n[cell]! + 1;
  }
  for (let R = 1; R <= hb; R++) {
    const row = rowBase[R]!;
    const above = rowBase[R - 1]!;
    if (row !== above) prefixRow(tables, row + 1, above + 1, tables, row + 1, wb);
  }
  // A removed block at (q, p) is in the ring of the blocks within outerRows × outerCols of it.
  const colFrom = new Int32Array(hb);
  const colTo = new Int32Array(hb);
  let firstRow = hb;
  let lastRow = -1;
  for (let by = 0; by < hb; by++) {
    let lo = wb;
    let hi = -1;
    for (let q = Math.max(0, by - outerRows); q <= Math.min(hb - 1, by + outerRows); q++) {
      if (minCol[q]! < lo) lo = minCol[q]!;
      if (maxCol[q]! > hi) hi = maxCol[q]!;
    }
    if (hi < 0) continue;
    colFrom[by] = Math.max(0, lo - outerCols);
    colTo[by] = Math.min(wb, hi + outerCols + 1);
    if (by < firstRow) firstRow = by;
    lastRow = by;
  }
  return { tables, rowBase, firstRow, lastRow, colFrom, colTo };
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
    readonly model: Thresholds,
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

  /** Pixels set to 2 by the last scans (appended). */
  hits: number[] = [];

  /**
   * The first pass (`scan` without `removed`) for the usual case — no target window, σ0 not
   * logged — with the same arithmetic in the same order, so the same decisions. The loop holds
   * only what nearly every block needs (count, Σx, the prescreen); the rare block above the
   * prescreen is decided in `decideBlock`. Interior block columns take their ring columns by
   * arithmetic instead of the per-column tables.
   */
  scanFirst(t: Tables, mask: Uint8Array): number {
    const { grid, minCount, ox0, ox1, gx0, gx1, blockMax, blockCount } = this;
    const { hb, wb, outerRows, outerCols, guardRows, guardCols } = grid;
    const W1 = wb + 1;
    const n = t.n;
    const s1 = t.s1;
    const lowFloor = this.model.lowFloor;
    // Block columns whose outer box lies inside the tables: a = bx − outerCols, c = bx + outerCols + 1.
    const inFrom = Math.min(wb, outerCols);
    const inTo = Math.max(inFrom, wb - outerCols - 1);
    let decided = 0;
    for (let by = 0; by < hb; by++) {
      const oy0 = Math.max(0, by - outerRows) * W1;
      const oy1 = Math.min(hb, by + outerRows + 1) * W1;
      const iy0 = Math.max(0, by - guardRows) * W1;
      const iy1 = Math.min(hb, by + guardRows + 1) * W1;
      const row = by * wb;
      for (let bx = 0; bx < wb; bx++) {
        const cnt = blockCount[row + bx]!;
        if (cnt === 0) continue; // no target pixel in this block
        let a: number;
        let c: number;
        let d: number;
        let e: number;
        if (bx >= inFrom && bx < inTo) {
          a = bx - outerCols;
          c = bx + outerCols + 1;
          d = bx - guardCols;
          e = bx + guardCols + 1;
        } else {
          a = ox0[bx]!;
          c = ox1[bx]!;
          d = gx0[bx]!;
          e = gx1[bx]!;
        }
        const count = n[oy1 + c]! - n[oy0 + c]! - n[oy1 + a]! + n[oy0 + a]! - (n[iy1 + e]! - n[iy0 + e]! - n[iy1 + d]! + n[iy0 + d]!);
        if (count < minCount) continue;
        decided += cnt;
        const sum = s1[oy1 + c]! - s1[oy0 + c]! - s1[oy1 + a]! + s1[oy0 + a]! - (s1[iy1 + e]! - s1[iy0 + e]! - s1[iy1 + d]! + s1[iy0 + d]!);
        const mean = sum / count;
        // Every model's extent threshold lies above mean × lowFloor: most blocks stop here.
        if (blockMax[row + bx]! <= mean * lowFloor) continue;
        this.decideBlock(t, mask, by, bx, oy0, oy1, iy0, iy1, a, c, d, e, count, mean, null, 0, 0, 0, 0);
      }
    }
    return decided;
  }

  /**
   * The second pass (`scan` with `removed`) for the usual case — no target window, σ0 not
   * logged — with the same arithmetic in the same order: only the block columns whose ring can
   * hold a removed pixel, and of those only the blocks whose ring lost any are decided again.
   */
  scanSecond(t: Tables, mask: Uint8Array, removed: RemovedTables): void {
    const { w, h, grid, minCount, ox0, ox1, gx0, gx1, blockMax, blockCount } = this;
    const { b, oy, ox, hb, wb, outerRows, guardRows } = grid;
    const W1 = wb + 1;
    const n = t.n;
    const s1 = t.s1;
    const rn = removed.tables.n;
    const r1 = removed.tables.s1;
    const r2 = removed.tables.s2;
    const rowBase = removed.rowBase;
    const colFrom = removed.colFrom;
    const colTo = removed.colTo;
    const lowFloor = this.model.lowFloor;
    for (let by = removed.firstRow; by <= removed.lastRow; by++) {
      const oy0 = Math.max(0, by - outerRows) * W1;
      const oy1 = Math.min(hb, by + outerRows + 1) * W1;
      const iy0 = Math.max(0, by - guardRows) * W1;
      const iy1 = Math.min(hb, by + guardRows + 1) * W1;
      // The removed tables' rows (sparse: see buildRemovedTables).
      const ro0 = rowBase[Math.max(0, by - outerRows)]!;
      const ro1 = rowBase[Math.min(hb, by + outerRows + 1)]!;
      const ri0 = rowBase[Math.max(0, by - guardRows)]!;
      const ri1 = rowBase[Math.min(hb, by + guardRows + 1)]!;
      const yStart = Math.max(0, by * b - oy);
      const yEnd = Math.min(h, by * b - oy + b);
      const row = by * wb;
      const bxEnd = colTo[by]!;
      for (let bx = colFrom[by]!; bx < bxEnd; bx++) {
        if (blockCount[row + bx] === 0) continue; // no target pixel in this block
        const a = ox0[bx]!;
        const c = ox1[bx]!;
        const d = gx0[bx]!;
        const e = gx1[bx]!;
        const lost = rn[ro1 + c]! - rn[ro0 + c]! - rn[ro1 + a]! + rn[ro0 + a]! - (rn[ri1 + e]! - rn[ri0 + e]! - rn[ri1 + d]! + rn[ri0 + d]!);
        if (lost === 0) continue;
        const count = n[oy1 + c]! - n[oy0 + c]! - n[oy1 + a]! + n[oy0 + a]! - (n[iy1 + e]! - n[iy0 + e]! - n[iy1 + d]! + n[iy0 + d]!) - lost;
        // A block's few pixels: plain stores (a fill call per row cost more than the ring).
        const xStart = Math.max(0, bx * b - ox);
        const xEnd = Math.min(w, bx * b - ox + b);
        for (let y = yStart; y < yEnd; y++) for (let i = y * w + xStart, end = y * w + xEnd; i < end; i++) mask[i] = 0;
        if (count < minCount) continue;
        let sum = s1[oy1 + c]! - s1[oy0 + c]! - s1[oy1 + a]! + s1[oy0 + a]! - (s1[iy1 + e]! - s1[iy0 + e]! - s1[iy1 + d]! + s1[iy0 + d]!);
        sum -= r1[ro1 + c]! - r1[ro0 + c]! - r1[ro1 + a]! + r1[ro0 + a]! - (r1[ri1 + e]! - r1[ri0 + e]! - r1[ri1 + d]! + r1[ri0 + d]!);
        const mean = sum / count;
        if (blockMax[row + bx]! <= mean * lowFloor) continue;
        this.decideBlock(t, mask, by, bx, oy0, oy1, iy0, iy1, a, c, d, e, count, mean, r2, ro0, ro1, ri0, ri1);
      }
    }
  }

  /** `scan`'s decision of one block (no target window, linear σ0) past the prescreen; `r2` and its rows: pass 2's removed Σx². */
  decideBlock(t: Tables, mask: Uint8Array, by: number, bx: number, oy0: number, oy1: number, iy0: number, iy1: number, a: number, c: number, d: number, e: number, count: number, mean: number, r2: Float64Array | null, ro0: number, ro1: number, ri0: number, ri1: number): void {
    const { values, targetMask, w, h, grid, model } = this;
    const { b, oy, ox } = grid;
    const s2 = t.s2;
    let sq = s2[oy1 + c]! - s2[oy0 + c]! - s2[oy1 + a]! + s2[oy0 + a]! - (s2[iy1 + e]! - s2[iy0 + e]! - s2[iy1 + d]! + s2[iy0 + d]!);
    if (r2 !== null) sq -= r2[ro1 + c]! - r2[ro0 + c]! - r2[ro1 + a]! + r2[ro0 + a]! - (r2[ri1 + e]! - r2[ri0 + e]! - r2[ri1 + d]! + r2[ri0 + d]!);
    model.set(mean, sq / count);
    const hi = model.hi;
    const lo = model.lo;
    const yEnd = Math.min(h, by * b - oy + b);
    const xStart = Math.max(0, bx * b - ox);
    const xEnd = Math.min(w, bx * b - ox + b);
    for (let y = Math.max(0, by * b - oy); y < yEnd; y++) {
      for (let x = xStart; x < xEnd; x++) {
        const i = y * w + x;
        if (targetMask[i] === 0) continue;
        const v = values[i]!;
        if (v > hi) {
          mask[i] = 2;
          this.hits.push(i);
        } else if (v > lo) mask[i] = 1;
      }
    }
  }

  /**
   * Decide the target pixels of every block into `mask` (2/1/0); returns the number of pixels
   * decided. With `removed` (second pass: what the censoring took out of the background), the
   * ring is the first pass's minus the removed one, and only blocks whose ring lost pixels are
   * decided again.
   */
  scan(t: Tables, mask: Uint8Array, removed: RemovedTables | null): number {
    const { values, targetMask, w, h, grid, minCount, ox0, ox1, gx0, gx1, target, tx0, tx1, blockMax, blockCount, model } = this;
    const { b, oy, ox, hb, wb, outerRows, guardRows } = grid;
    const W1 = wb + 1;
    const PW1 = w + 1;
    const T = this.windows.target;
    const n = t.n;
    const s1 = t.s1;
    const s2 = t.s2;
    const rn = removed ? removed.tables.n : n;
    const r1 = removed ? removed.tables.s1 : s1;
    const r2 = removed ? removed.tables.s2 : s2;
    const rowBase = removed ? removed.rowBase : null;
    const log = model.log;
    const lowFloor = model.lowFloor;
    // Second pass: only block rows whose ring can reach a removed pixel.
    const byFirst = removed ? removed.firstRow : 0;
    const byEnd = removed ? removed.lastRow + 1 : hb;
    let decided = 0;
    for (let by = byFirst; by < byEnd; by++) {
      const oy0 = Math.max(0, by - outerRows) * W1;
      const oy1 = Math.min(hb, by + outerRows + 1) * W1;
      const iy0 = Math.max(0, by - guardRows) * W1;
      const iy1 = Math.min(hb, by + guardRows + 1) * W1;
      // The removed tables' rows (sparse: see buildRemovedTables).
      const ro0 = rowBase ? rowBase[Math.max(0, by - outerRows)]! : 0;
      const ro1 = rowBase ? rowBase[Math.min(hb, by + outerRows + 1)]! : 0;
      const ri0 = rowBase ? rowBase[Math.max(0, by - guardRows)]! : 0;
      const ri1 = rowBase ? rowBase[Math.min(hb, by + guardRows + 1)]! : 0;
      const yStart = Math.max(0, by * b - oy);
      const yEnd = Math.min(h, by * b - oy + b);
      const bxEnd = removed ? removed.colTo[by]! : wb;
      for (let bx = removed ? removed.colFrom[by]! : 0; bx < bxEnd; bx++) {
        if (blockCount[by * wb + bx] === 0) continue; // no target pixel in this block
        // With a target window the statistic is a mean, which no pixel maximum bounds: no prescreen.
        const vmax = target ? Infinity : blockMax[by * wb + bx]!;
        const a = ox0[bx]!;
        const c = ox1[bx]!;
        const d = gx0[bx]!;
        const e = gx1[bx]!;
        let count = n[oy1 + c]! - n[oy0 + c]! - n[oy1 + a]! + n[oy0 + a]! - (n[iy1 + e]! - n[iy0 + e]! - n[iy1 + d]! + n[iy0 + d]!);
        const xStart = Math.max(0, bx * b - ox);
        const xEnd = Math.min(w, bx * b - ox + b);
        let lost = 0;
        if (removed !== null) {
          lost = rn[ro1 + c]! - rn[ro0 + c]! - rn[ro1 + a]! + rn[ro0 + a]! - (rn[ri1 + e]! - rn[ri0 + e]! - rn[ri1 + d]! + rn[ri0 + d]!);
          if (lost === 0) continue;
          count -= lost;
          // A block's few pixels: plain stores (a fill call per row cost more than the ring).
          for (let y = yStart; y < yEnd; y++) for (let i = y * w + xStart, end = y * w + xEnd; i < end; i++) mask[i] = 0;
        }
        if (count < minCount) continue;
        decided += blockCount[by * wb + bx]!;
        let sum = s1[oy1 + c]! - s1[oy0 + c]! - s1[oy1 + a]! + s1[oy0 + a]! - (s1[iy1 + e]! - s1[iy0 + e]! - s1[iy1 + d]! + s1[iy0 + d]!);
        if (lost !== 0) sum -= r1[ro1 + c]! - r1[ro0 + c]! - r1[ro1 + a]! + r1[ro0 + a]! - (r1[ri1 + e]! - r1[ri0 + e]! - r1[ri1 + d]! + r1[ri0 + d]!);
        const mean = sum / count;
        // Every model's extent threshold lies above mean × lowFloor: most blocks stop here.
        if (log ? Math.log(vmax > 1e-12 ? vmax : 1e-12) <= mean : vmax <= mean * lowFloor) continue;
        let sq = s2[oy1 + c]! - s2[oy0 + c]! - s2[oy1 + a]! + s2[oy0 + a]! - (s2[iy1 + e]! - s2[iy0 + e]! - s2[iy1 + d]! + s2[iy0 + d]!);
        if (lost !== 0) sq -= r2[ro1 + c]! - r2[ro0 + c]! - r2[ro1 + a]! + r2[ro0 + a]! - (r2[ri1 + e]! - r2[ri0 + e]! - r2[ri1 + d]! + r2[ri0 + d]!);
        model.set(mean, sq / count);
        const hi = model.hi;
        const lo = model.lo;
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

  /** Mean σ0 of the (censored) ring of the block holding pixel (y, x); NaN with too little background. */
  backgroundMean(t: Tables, removed: RemovedTables | null, y: number, x: number): number {
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
    let lost = (_: Float64Array | Int32Array): number => 0;
    if (removed) {
      const rb = removed.rowBase;
      const [ro0, ro1, ri0, ri1] = [rb[oy0 / W1]!, rb[oy1 / W1]!, rb[iy0 / W1]!, rb[iy1 / W1]!];
      lost = (s) => s[ro1 + c]! - s[ro0 + c]! - s[ro1 + a]! + s[ro0 + a]! - (s[ri1 + e]! - s[ri0 + e]! - s[ri1 + d]! + s[ri0 + d]!);
    }
    const r = removed?.tables;
    const count = box(t.n) - (r ? lost(r.n) : 0);
    if (count < this.minCount) return Number.NaN;
    const mean = (box(t.s1) - (r ? lost(r.s1) : 0)) / count;
    if (!this.model.log) return mean;
    const variance = Math.max(0, (box(t.s2) - (r ? lost(r.s2) : 0)) / count - mean * mean);
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
  const detector = new RingDetector(values, targetMask, w, h, grid, options.windows, new Thresholds(options), options.minBackgroundFraction, scratch);

  const tables = buildTables(scratch, 0, values, eligible, w, h, grid, log, { mask: targetMask, max: detector.blockMax, count: detector.blockCount });
  const mask = take(scratch.u8, 0, w * h, (m) => new Uint8Array(m));
  mask.fill(0);
  const decided = log || detector.target !== null ? detector.scan(tables, mask, null) : detector.scanFirst(tables, mask);

  // Pass 2: censor the detections and the vessel-sized objects (censoredObjects), grown by
  // censorDilationPx, and re-decide the blocks whose ring held any of them, against the ring
  // without them.
  let removed: RemovedTables | null = null;
  const first = options.censor === false ? [] : censoredObjects(mask, detector.hits, w, h, options.censorObjectPx, scratch.components);
  if (first.length > 0) {
    removed = buildRemovedTables(scratch, values, eligible, first, options.censorDilationPx, w, h, grid, log);
    if (log || detector.target !== null) detector.scan(tables, mask, removed);
    else detector.scanSecond(tables, mask, removed);
  }
  // Pass 2 may clear first-pass detections; keep the indices still marked, each once, in the
  // order of their first hit. A kept pixel is marked 3 until the list is done (no Set to hash into).
  const hits = detector.hits;
  const kept = new Int32Array(hits.length);
  let nKept = 0;
  for (let k = 0; k < hits.length; k++) {
    const i = hits[k]!;
    if (mask[i] !== 2) continue;
    mask[i] = 3;
    kept[nKept++] = i;
  }
  for (let k = 0; k < nKept; k++) mask[kept[k]!] = 2;
  const detected = kept.slice(0, nKept);

  const finalRemoved = removed;
  return {
    mask,
    decided,
    detected,
    backgroundMean: (row, col) => detector.backgroundMean(tables, finalRemoved, row, col),
  };
}

/**
 * What pass 2 leaves out of the background: the first pass's detections (in the order found)
 * and, with `minSize`, the other pixels of every 8-connected component of first-pass pixels
 * (mask ≥ 1) whose bounding box reaches the smallest vessel, in raster order. A group of ships
 * whose hulls lie in one another's ring raises the ring's second moment so far that none passes
 * the detection threshold; their pixels above the extent threshold still form vessel-sized
 * objects, and an object the size of a vessel is no sea, whether it passed or not. Smaller
 * components (speckle, the clutter's own tail) stay in the background: censoring them would trim
 * the sea's tail and raise the false-alarm rate.
 *
 * Cost: one pass over the mask four bytes at a time to find its set pixels (few), then the
 * components grown from them alone (components.ts with the thread's scratch) and each one's
 * bounding box over its own pixels.
 *
 * Tiling: the order is the same in every tile for the pixels a tile's core can see (detections by
 * block, the rest by full-image raster order), so the censored sums hold the same bits. A
 * component that reaches a core pixel's ring and is cut by the tile's edge is longer than the
 * largest vessel (requiredHalo), so it is censored in the tile as in the whole image.
 */
function censoredObjects(mask: Uint8Array, hits: readonly number[], w: number, h: number, sizes: CfarOptions['censorObjectPx'], scratch: ComponentScratch): number[] {
  const first = hits.slice();
  if (!sizes) return first;
  const { min, max } = sizes;
  const n = w * h;
  const set: number[] = [];
  let i = 0;
  if (mask.byteOffset % 4 === 0) {
    const words = n >>> 2;
    const m32 = new Uint32Array(mask.buffer, mask.byteOffset, words);
    for (let k = 0; k < words; k++) {
      if (m32[k] === 0) continue;
      for (let j = 4 * k; j < 4 * k + 4; j++) if (mask[j] !== 0) set.push(j);
    }
    i = words * 4;
  }
  for (; i < n; i++) if (mask[i] !== 0) set.push(i);
  if (set.length === 0) return first;
  const { count, pixels, offsets } = connectedComponents(mask, w, h, { connectivity: 8, seeds: set, scratch });
  const objects: number[] = [];
  for (let k = 0; k < count; k++) {
    const end = offsets[k + 1]!;
    let r0 = h;
    let r1 = -1;
    let c0 = w;
    let c1 = -1;
    let detected = false;
    for (let j = offsets[k]!; j < end; j++) {
      const p = pixels[j]!;
      if (mask[p] === 2) detected = true;
      const r = (p / w) | 0;
      const c = p - r * w;
      if (r < r0) r0 = r;
      if (r > r1) r1 = r;
      if (c < c0) c0 = c;
      if (c > c1) c1 = c;
    }
    const rows = r1 - r0 + 1;
    const cols = c1 - c0 + 1;
    if ((rows / min.rows) ** 2 + (cols / min.cols) ** 2 < 1) continue;
    // A detected vessel keeps the skirt of its extent in the ring (its detections, grown, leave
    // it): censoring that too bared faint wakes beside large ships on the North-Sea crop.
    if (detected && (rows / max.rows) ** 2 + (cols / max.cols) ** 2 < 1) continue;
    for (let j = offsets[k]!; j < end; j++) if (mask[pixels[j]!] === 1) objects.push(pixels[j]!);
  }
  objects.sort((a, b) => a - b);
  for (const p of objects) first.push(p);
  return first;
}
