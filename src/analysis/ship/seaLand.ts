// Scene sea/land segmenter of the ship candidate stage (issue 23 §1): the probability that a
// patch of the image is land (quays, piers, breakwaters, coastal towns), learnt from the SSDD
// sea/land masks so the candidate classifier can refuse bright land clutter without a coastline.
// The image is cut into cells of about CELL_M metres; per cell the mean σ0 and its speckle CV,
// then box statistics of the cell means at 60 / 140 / 300 / 620 m (mean level, spread of the
// cells in dB, share of bright and of dark cells), all relative to the tile's dark level (the
// 10th percentile of cell means), so they do not depend on the image's calibration and the
// windows are in metres (3 m chips and 10 m Sentinel-1 tiles alike). Memory: 16 float planes
// of the cell grid (cells of 2 × 2 px at 10 m: 16 B per image pixel), whose planes not yet
// written hold most temporaries, plus ~1 plane's worth (a summed-area table, then the anchored
// field's reach plane; box-sum rows) the thread keeps for its next tile, and the planes of a released field kept for
// the same (releaseSeaLandField: on this box fresh memory costs more in page faults than the
// planes' arithmetic). The trees are ../oilslick/gbt.ts's, fitted by training/ship/fitSeaLand.ts
// and stored in seaLandModel.json. On typed arrays, no state but those reused buffers; imports
// ../oilslick/gbt.ts, ../common/committedModel.ts, ../../raster/boxMean.ts, ../../raster/log10.ts,
// ../../raster/select.ts and ../../raster/chamfer.ts. The detector's field skips the trees on cells a bound over the trees
// proves sea (seaLandProbabilityDeferred), and on the near-shore path on cells whose decision
// can change nothing a candidate reads (seaLandProbabilityAnchored), and computes them when a
// candidate reads them.

import { committedModel } from '../common/committedModel.ts';
import { sigmoid, thresholdsAtMost, type GbtModel } from '../oilslick/gbt.ts';
import { BoxScratch, boxMeanInPlace } from '../../raster/boxMean.ts';
import { chamferInPlace } from '../../raster/chamfer.ts';
import { log10Float32Bits } from '../../raster/log10.ts';
import { nanToEnd, selectInPlace } from '../../raster/select.ts';

/** Cell size (m) along each axis. */
export const CELL_M = 20;
/** Radii (cells) of the box statistics: windows of 3, 7, 15 and 31 cells (60 … 620 m). */
const RADII = [1, 3, 7, 15] as const;
/** A cell is bright / dark at these levels over the tile's dark level (dB). */
const BRIGHT_DB = 9;
const DARK_DB = 3;

export const SEA_LAND_FEATURES = [
  'cellDb',
  'cellCv',
  'mean60Db',
  'mean140Db',
  'mean300Db',
  'mean620Db',
  'spread60Db',
  'spread140Db',
  'spread300Db',
  'bright140',
  'bright300',
  'bright620',
  'dark140',
  'dark300',
  'dark620',
  'darkLevelDb',
] as const;
export const SEA_LAND_FEATURE_COUNT = SEA_LAND_FEATURES.length;

export interface SeaLandGrid {
  /** Pixels per cell along rows (azimuth) and columns (range). */
  cellRows: number;
  cellCols: number;
  rows: number;
  cols: number;
  /** 1 where the cell holds a target pixel. */
  valid: Uint8Array;
}

export interface SeaLandFeatures extends SeaLandGrid {
  /** Feature planes of the cell grid, plane k at [k·n, (k+1)·n) (n = rows × cols). */
  planes: Float32Array;
}

export interface SeaLandField extends SeaLandGrid {
  /** Land probability per cell (NaN where the cell holds no target pixel). */
  land: Float32Array;
  /** Distance (m) from each cell to the nearest land cell of the tile, capped (withLandDistance). */
  distanceM?: Float32Array;
  /**
   * Cells the sea screen proved sea whose probability is not computed yet (seaLandProbabilityDeferred):
   * `land` holds 0 there until landProbability reads it. Shared by the field's copies.
   */
  deferred?: DeferredCells;
}

export interface DeferredCells {
  /** 1 where the cell's probability is still to compute; `count` of them. */
  pending: Uint8Array;
  count: number;
  /** Every deferred cell's probability lies under this. */
  threshold: number;
  features: SeaLandFeatures;
  trees: FlatTrees;
  /**
   * Of `count` at the start, the cells deferred undecided (out of the anchor's reach, or no
   * near cell's nearest land: seaLandProbabilityAnchored) rather than screened sea: their land
   * decision is unknown until read.
   */
  outOfReach: number;
  /** Feature vector scratch of the cells computed on demand. */
  x: Float64Array;
}

/** Land distances are capped here (m): farther, or no land in the tile. */
export const LAND_DISTANCE_CAP_M = 3000;

export function cellGrid(width: number, height: number, spacing: { range: number; azimuth: number }): Omit<SeaLandGrid, 'valid'> {
  const cellRows = Math.max(1, Math.round(CELL_M / spacing.azimuth));
  const cellCols = Math.max(1, Math.round(CELL_M / spacing.range));
  return { cellRows, cellCols, rows: Math.ceil(height / cellRows), cols: Math.ceil(width / cellCols) };
}

const db = (x: number) => 10 * Math.log10(Math.max(x, 1e-12));

/**
 * The k-th smallest of `a` (0-based), as `a.sort()[k]` would give it (NaN sorted last), found by
 * partitioning `a` in place (its order is left changed): linear time, where the typed sort of
 * 2.6 M cell means cost 1.5–2.5 CPU s on a 3253² tile.
 */
export function orderStatistic(a: Float64Array, k: number): number {
  // NaN to the end, as the sort puts it.
  const n = nanToEnd(a, a.length);
  return k >= n ? Number.NaN : selectInPlace(a, n, k);
}

/**
 * How far dbOverDark's dB may be from db(a / dark), at most, with room to spare: the table and
 * series are good to ~1e-15 in log10, the exponent's term to ~4e-15, the division a / dark to
 * half an ulp, Math.log10 (of the quotient and of `dark`) to an ulp — ~1e-13 dB in all.
 */
export const DB_SLACK = 1e-9;

/**
 * 10 · log10(a / dark) for a float32 `a` given by its bits, `log10Dark` = Math.log10(dark), to
 * within DB_SLACK of db(a / dark): the table's log10 (raster/log10.ts, as the quicklook's toDb)
 * with the dark level's subtracted. NaN for zero, subnormal, infinite, NaN or negative `a` (the
 * caller then takes db itself).
 */
export function dbOverDark(bits: number, log10Dark: number): number {
  return 10 * (log10Float32Bits(bits) - log10Dark);
}

/**
 * db(a / dark) as a float32 plane stores it, for a float32 `a` (its `bits`): dbOverDark where
 * the values within DB_SLACK of it round to one float32 (then db's rounds there too: rounding is
 * monotone) and lie far over db's 1e-12 floor (−120 dB); db itself elsewhere (within 1e-9 of a
 * float32 rounding edge, or `a` not a positive normal float32).
 */
function dbPlaneValue(a: number, bits: number, dark: number, log10Dark: number): number {
  const d = dbOverDark(bits, log10Dark);
  if (d > -100 && Math.fround(d - DB_SLACK) === Math.fround(d + DB_SLACK)) return d;
  return db(a / dark);
}

/** Temporaries of seaLandFeatures, reused by the thread's later tiles (scratch.ts: no page faults after the first). */
const featureScratch = new BoxScratch();

/**
 * Feature planes given back (releaseSeaLandField, seaLandField) for the thread's next
 * seaLandFeatures: on this machine the first touch of a fresh array costs ~5 ms CPU per MB in
 * page faults, ~1 CPU s for the 190 MB of a 3434² window's planes — more than computing them.
 */
let sparePlanes: Float32Array | null = null;

/**
 * Capacity for n values: the power of two at or over n. Fresh memory costs only where it is
 * touched, so the spare planes and the scratch arrays of a thread's tiles of different sizes
 * grow a few times, and each time fault in only what the larger tile touches.
 */
const reserve = (n: number) => 2 ** Math.ceil(Math.log2(Math.max(1, n)));

/** n floats for the planes: a view of the spare ones' start if they are large enough, else of new ones (capacity `reserve`). */
function takePlanes(n: number): Float32Array {
  const spare = sparePlanes;
  if (spare && spare.length >= n) {
    sparePlanes = null;
    return spare.length === n ? spare : spare.subarray(0, n);
  }
  return new Float32Array(reserve(n)).subarray(0, n);
}

/** The thread's scratch array `name` of n values, a view of one of capacity reserve(n). */
function scratchOf<T extends Float32Array | Float64Array | Int32Array>(name: string, ctor: { new (n: number): T; readonly BYTES_PER_ELEMENT: number }, n: number): T {
  return featureScratch.array(name, ctor, reserve(n)).subarray(0, n) as T;
}

/** The whole buffer of `planes` kept for the next seaLandFeatures (the larger of it and the one kept). */
function givePlanes(planes: Float32Array): void {
  const whole = new Float32Array(planes.buffer);
  if (whole.length && (!sparePlanes || whole.length > sparePlanes.length)) sparePlanes = whole;
}

/**
 * The feature planes of every cell (`target` ≠ 0: pixels to look at), the same bits as the
 * plane-by-plane form with boxMean and a sorted dark level (test/analysis/shipSeaLandGolden.test.ts,
 * and shipSeaLand.test.ts against that form written out):
 * - the cell sums are taken one row of cells at a time (each cell's additions in raster order,
 *   as before) and the cell's mean, CV and validity at once: no raster of sums or counts;
 * - the dark level is selected (orderStatistic), not sorted;
 * - the dB of a float32 value over the dark level comes from a table (dbPlaneValue), db itself
 *   only near a float32 rounding edge — and for the cell level, whose float64 square and
 *   comparisons with the bright / dark levels are kept too, near their edges;
 * - the box means of the cell means and dB levels are boxMeanInPlace's (boxMean's values,
 *   value for value) over a copy in their own plane, no raster of row sums;
 * - the shares of bright and dark cells are window counts over window counts, exact integers
 *   whatever the order of their sums, so one summed-area table gives all three radii: boxMean's
 *   float64 quotient of the same integers.
 * Temporaries are the thread's (featureScratch); the planes and the validity are the caller's
 * (the planes' memory may be planes a released field gave back: releaseSeaLandField).
 */
export function seaLandFeatures(values: Float32Array, target: Uint8Array, width: number, height: number, spacing: { range: number; azimuth: number }): SeaLandFeatures {
  const g = cellGrid(width, height, spacing);
  const m = g.rows * g.cols;
  const { cols, cellRows, cellCols } = g;
  const sc = featureScratch;
  const valid = new Uint8Array(m);
  const planes = takePlanes(SEA_LAND_FEATURE_COUNT * m);
  const out: SeaLandFeatures = { ...g, valid, planes };
  const plane = (j: number) => planes.subarray(j * m, (j + 1) * m);
  const cvPlane = plane(1);
  // Per cell its sums, pixels in raster order (the order of each cell's additions); float64 means kept for the dark level.
  // Temporaries in planes not written yet (memory, not bits: each is written before it is read):
  // the float32 means in plane 9 (read until the box means; the shares, written last, overwrite
  // it), the float64 means in planes 2–3 (read by the dark level's selection, before the box
  // means write there), the squared levels and the spreads' squares in planes 10 and 11 (read
  // by the spreads, before the shares). A 3434² window then keeps 20 B per cell less scratch
  // on its thread (≈ 59 MB).
  const mean = plane(9);
  const means64 = new Float64Array(planes.buffer, planes.byteOffset + 2 * m * 4, m);
  const s1 = sc.get('seaLandRowS1', cols);
  const s2 = sc.get('seaLandRowS2', cols);
  const cnt = sc.array('seaLandRowCount', Int32Array, cols);
  let n = 0;
  for (let cr = 0, k0 = 0; cr < g.rows; cr++, k0 += cols) {
    s1.fill(0);
    s2.fill(0);
    cnt.fill(0);
    for (let r = cr * cellRows, rEnd = Math.min(height, r + cellRows); r < rEnd; r++) {
      const row = r * width;
      const rowEnd = row + width;
      // Each cell's sums in registers over its pixels of the row (the same additions in the same order).
      for (let p = row, k = 0; p < rowEnd; k++) {
        const end = Math.min(rowEnd, p + cellCols);
        let a = s1[k]!;
        let b = s2[k]!;
        let got = 0;
        for (; p < end; p++) {
          if (target[p] === 0) continue;
          const v = values[p]!;
          a += v;
          b += v * v;
          got++;
        }
        if (got) {
          s1[k] = a;
          s2[k] = b;
          cnt[k]! += got;
        }
      }
    }
    for (let c = 0; c < cols; c++) {
      const k = k0 + c;
      const count = cnt[c]!;
      if (count === 0) {
        mean[k] = 0;
        cvPlane[k] = Number.NaN;
        continue;
      }
      valid[k] = 1;
      const mu = s1[c]! / count;
      mean[k] = mu;
      cvPlane[k] = mu > 0 ? Math.sqrt(Math.max(0, s2[c]! / count - mu * mu)) / mu : 0;
      // The float64 mean (not its float32 copy) sets the dark level.
      means64[n++] = mu;
    }
  }
  if (n === 0) {
    planes.fill(Number.NaN);
    return out;
  }
  // The 10th percentile and the median of the cell means, as the sorted list would give them.
  const finite = means64.subarray(0, n);
  const k10 = Math.floor(0.1 * (n - 1));
  const tenth = orderStatistic(finite, k10);
  const dark = Math.max(tenth, 1e-12);
  // After that selection `finite` holds its k10 + 1 smallest first: the median is the rest's (n >> 1) − k10 − 1-th.
  const darkLevelDb = db(((n >> 1) > k10 ? orderStatistic(finite.subarray(k10 + 1), (n >> 1) - k10 - 1) : tenth) / dark);
  const log10Dark = Math.log10(dark);
  // Cell level (dB over the dark level) and its square; bright and dark cells (and the valid
  // ones) packed per cell for the summed-area table below.
  const cdb = plane(0);
  const level = plane(15);
  const cdb2 = plane(10);
  const meanBits = new Uint32Array(mean.buffer, mean.byteOffset, m);
  const W = cols + 1;
  const sat = scratchOf('seaLandSat', Int32Array, (g.rows + 1) * W);
  sat.fill(0, 0, W);
  const edge = 2 * DB_SLACK;
  for (let r = 0, k = 0; r < g.rows; r++) {
    let run = 0;
    const above = r * W;
    const here = above + W;
    sat[here] = 0;
    for (let c = 0; c < cols; c++, k++) {
      if (!valid[k]) {
        cdb[k] = Number.NaN;
        cdb2[k] = 0;
        level[k] = Number.NaN;
        sat[here + c + 1] = (sat[above + c + 1]! + run) | 0;
        continue;
      }
      const a = mean[k]!;
      // d: db(a / dark) in float64, which the square and the two comparisons read.
      let d = dbOverDark(meanBits[k]!, log10Dark);
      const lo = Math.abs(d) - edge;
      const hi = Math.abs(d) + edge;
      if (
        !(d > -100) ||
        lo <= 0 ||
        Math.fround(d - DB_SLACK) !== Math.fround(d + DB_SLACK) ||
        Math.fround(lo * lo) !== Math.fround(hi * hi) ||
        Math.abs(d - BRIGHT_DB) <= edge ||
        Math.abs(d - DARK_DB) <= edge
      ) {
        d = db(a / dark);
        cdb2[k] = d * d;
      } else cdb2[k] = lo * lo;
      cdb[k] = d;
      level[k] = darkLevelDb;
      // bright + dark · 2^11 + valid · 2^22: window counts of 31 × 31 cells at most (< 2^10 each).
      run = (run + (d >= BRIGHT_DB ? 1 : 0) + (d <= DARK_DB ? 2048 : 0) + 4194304) | 0;
      sat[here + c + 1] = (sat[above + c + 1]! + run) | 0;
    }
  }
  // Box means of the cell means (dB over the dark level) at every radius.
  RADII.forEach((r, j) => {
    const a = plane(2 + j);
    a.set(mean);
    boxMeanInPlace(a, valid, cols, g.rows, r, r, sc);
    const bits = new Uint32Array(planes.buffer, a.byteOffset, m);
    for (let k = 0; k < m; k++) if (valid[k]) a[k] = dbPlaneValue(a[k]!, bits[k]!, dark, log10Dark);
  });
  // Spreads of the cell levels: √(mean of squares − square of the mean).
  const squares = plane(11);
  RADII.slice(0, 3).forEach((r, j) => {
    const a = plane(6 + j);
    a.set(cdb);
    boxMeanInPlace(a, valid, cols, g.rows, r, r, sc);
    squares.set(cdb2);
    boxMeanInPlace(squares, valid, cols, g.rows, r, r, sc);
    for (let k = 0; k < m; k++) if (valid[k]) a[k] = Math.sqrt(Math.max(0, squares[k]! - a[k]! * a[k]!));
  });
  // Shares of bright and of dark cells among the valid ones of each window.
  RADII.slice(1).forEach((rad, j) => {
    const bright = plane(9 + j);
    const darkShare = plane(12 + j);
    for (let r = 0, k = 0; r < g.rows; r++) {
      const top = Math.max(0, r - rad) * W;
      const bottom = (Math.min(g.rows - 1, r + rad) + 1) * W;
      for (let c = 0; c < cols; c++, k++) {
        if (!valid[k]) {
          bright[k] = Number.NaN;
          darkShare[k] = Number.NaN;
          continue;
        }
        const c0 = Math.max(0, c - rad);
        const c1 = Math.min(cols - 1, c + rad) + 1;
        const s = (sat[bottom + c1]! - sat[bottom + c0]! - sat[top + c1]! + sat[top + c0]!) >>> 0;
        const count = s >>> 22;
        bright[k] = (s & 2047) / count;
        darkShare[k] = ((s >>> 11) & 2047) / count;
      }
    }
  });
  return out;
}

export function seaLandFeaturesAt(f: SeaLandFeatures, k: number, out: number[] = new Array<number>(SEA_LAND_FEATURE_COUNT)): number[] {
  const m = f.rows * f.cols;
  for (let j = 0; j < SEA_LAND_FEATURE_COUNT; j++) out[j] = f.planes[j * m + k]!;
  return out;
}

export interface SeaLandModel {
  model: GbtModel;
  /** A cell is called land at probability ≥ this (chosen on out-of-fold cells). */
  threshold: number;
  fitted: Record<string, unknown>;
}

/** The committed model (seaLandModel.json beside this file), read once per thread. */
export const seaLandModel = committedModel<SeaLandModel>(
  new URL('./seaLandModel.json', import.meta.url),
  'ship seaLandModel.json',
  (m) => m.model.featureNames,
  SEA_LAND_FEATURES,
  'training/ship/fitSeaLand.ts',
);

/**
 * The trees in flat typed arrays (gbt.ts's nodes, concatenated; children as absolute indices):
 * one cell's walk through 100 trees then reads a few small arrays instead of 600 JSON ones.
 */
interface FlatTrees {
  base: number;
  roots: Int32Array;
  feature: Int32Array;
  threshold: Float64Array;
  left: Int32Array;
  right: Int32Array;
  value: Float64Array;
  missingLeft: Uint8Array;
  /**
   * The same trees as complete binary trees of depth `depth` in heap order (node n's children
   * 2n + 1 and 2n + 2): per tree 2^depth − 1 split nodes (`heapFeature`, `heapThreshold`) and
   * 2^depth leaves (`heapValue`). A leaf above the last level becomes a split on feature 0 at
   * +∞ with the leaf copied to both sides, so a finite feature vector ends at the same value.
   * Null when a tree is deeper than HEAP_MAX_DEPTH.
   */
  depth: number;
  heapFeature: Int32Array | null;
  heapThreshold: Float64Array | null;
  heapValue: Float64Array | null;
}

/** Deeper trees keep the linked walk only (2^depth leaves per tree). */
const HEAP_MAX_DEPTH = 8;

function treeDepth(t: GbtModel['trees'][number], k = 0): number {
  return t.feature[k]! < 0 ? 0 : 1 + Math.max(treeDepth(t, t.left[k]!), treeDepth(t, t.right[k]!));
}

const flatCache = new WeakMap<GbtModel, FlatTrees>();

function flatTrees(model: GbtModel): FlatTrees {
  const cached = flatCache.get(model);
  if (cached) return cached;
  const size = model.trees.reduce((s, t) => s + t.feature.length, 0);
  const f: FlatTrees = {
    base: model.base,
    roots: new Int32Array(model.trees.length),
    feature: new Int32Array(size),
    threshold: new Float64Array(size),
    left: new Int32Array(size),
    right: new Int32Array(size),
    value: new Float64Array(size),
    missingLeft: new Uint8Array(size),
    depth: 0,
    heapFeature: null,
    heapThreshold: null,
    heapValue: null,
  };
  let at = 0;
  model.trees.forEach((t, i) => {
    f.roots[i] = at;
    for (let k = 0; k < t.feature.length; k++) {
      f.feature[at + k] = t.feature[k]!;
      f.threshold[at + k] = t.threshold[k]!;
      f.left[at + k] = at + t.left[k]!;
      f.right[at + k] = at + t.right[k]!;
      f.value[at + k] = t.value[k]!;
      f.missingLeft[at + k] = t.missingLeft[k] === 1 ? 1 : 0;
    }
    at += t.feature.length;
  });
  const depth = model.trees.reduce((d, t) => Math.max(d, treeDepth(t)), 0);
  if (depth <= HEAP_MAX_DEPTH) {
    const inner = (1 << depth) - 1;
    const leaves = 1 << depth;
    const hf = new Int32Array(model.trees.length * inner);
    const ht = new Float64Array(model.trees.length * inner);
    const hv = new Float64Array(model.trees.length * leaves);
    model.trees.forEach((t, i) => {
      const place = (node: number, slot: number, level: number) => {
        if (level === depth) {
          hv[i * leaves + slot - inner] = t.value[node]!;
          return;
        }
        const leaf = t.feature[node]! < 0;
        hf[i * inner + slot] = leaf ? 0 : t.feature[node]!;
        ht[i * inner + slot] = leaf ? Infinity : t.threshold[node]!;
        place(leaf ? node : t.left[node]!, 2 * slot + 1, level + 1);
        place(leaf ? node : t.right[node]!, 2 * slot + 2, level + 1);
      };
      place(0, 0, 0);
    });
    Object.assign(f, { depth, heapFeature: hf, heapThreshold: ht, heapValue: hv });
  }
  flatCache.set(model, f);
  return f;
}

/**
 * One cell's log-odds: gbtPredict's trees and sums, operation for operation (the same float64
 * additions in tree order; a non-finite value — v − v ≠ 0 — takes its node's missing side), on
 * the flat trees and the reused feature vector `x`. The whole field and the deferred cells
 * read on demand (landProbability) both come from here, so they are the same bits.
 */
function cellLogit(t: FlatTrees, planes: Float32Array, m: number, k: number, x: Float64Array): number {
  const { roots, feature, threshold, left, right, value, missingLeft } = t;
  const trees = roots.length;
  let finite = true;
  for (let j = 0, o = k; j < SEA_LAND_FEATURE_COUNT; j++, o += m) {
    const v = planes[o]!;
    x[j] = v;
    if (v - v !== 0) finite = false;
  }
  let s = t.base;
  const { depth, heapFeature: hf, heapThreshold: ht, heapValue: hv } = t;
  if (finite && hf && ht && hv) {
    const inner = (1 << depth) - 1;
    // Every feature finite (the usual cell): the complete trees, no missing side, no branch on the path.
    // Four trees walked side by side (independent paths), their leaves added in tree order.
    let i = 0;
    for (let b = 0, l = -inner; i + 4 <= trees; i += 4, b += 4 * inner, l += 4 * (inner + 1)) {
      let n0 = 0;
      let n1 = 0;
      let n2 = 0;
      let n3 = 0;
      const b1 = b + inner;
      const b2 = b1 + inner;
      const b3 = b2 + inner;
      for (let d = 0; d < depth; d++) {
        n0 = 2 * n0 + 2 - +(x[hf[b + n0]!]! < ht[b + n0]!);
        n1 = 2 * n1 + 2 - +(x[hf[b1 + n1]!]! < ht[b1 + n1]!);
        n2 = 2 * n2 + 2 - +(x[hf[b2 + n2]!]! < ht[b2 + n2]!);
        n3 = 2 * n3 + 2 - +(x[hf[b3 + n3]!]! < ht[b3 + n3]!);
      }
      const leaves = inner + 1;
      s += hv[l + n0]!;
      s += hv[l + leaves + n1]!;
      s += hv[l + 2 * leaves + n2]!;
      s += hv[l + 3 * leaves + n3]!;
    }
    for (let b = i * inner, l = i * (inner + 1) - inner; i < trees; i++, b += inner, l += inner + 1) {
      let n = 0;
      for (let d = 0; d < depth; d++) n = 2 * n + 2 - +(x[hf[b + n]!]! < ht[b + n]!);
      s += hv[l + n]!;
    }
  } else {
    for (let i = 0; i < trees; i++) {
      let n = roots[i]!;
      for (let j = feature[n]!; j >= 0; j = feature[n]!) {
        const v = x[j]!;
        n = (v - v === 0 ? v < threshold[n]! : missingLeft[n] === 1) ? left[n]! : right[n]!;
      }
      s += value[n]!;
    }
  }
  return s;
}

/** Land probability per cell: gbtPredict per cell (cellLogit, then the sigmoid). */
export function seaLandProbability(f: SeaLandFeatures, model: Pick<SeaLandModel, 'model'>): SeaLandField {
  const m = f.rows * f.cols;
  const land = new Float32Array(m).fill(Number.NaN);
  const t = flatTrees(model.model);
  const x = new Float64Array(SEA_LAND_FEATURE_COUNT);
  for (let k = 0; k < m; k++) if (f.valid[k]) land[k] = sigmoid(cellLogit(t, f.planes, m, k, x));
  return { cellRows: f.cellRows, cellCols: f.cellCols, rows: f.rows, cols: f.cols, valid: f.valid, land };
}

/**
 * The sea screen (issue 23 §5): features whose value, cut into the intervals between the
 * trees' own split thresholds on it, decides a bound. Within one interval of each, every split
 * on these features goes one known way; every split on the other features may go either way
 * (their missing sides included). So the largest leaf each tree can reach there, summed, bounds
 * the log-odds of every cell whose screen features lie in those intervals. Open sea (no bright
 * cell within 620 m, nearly all cells dark, the tile's dark level) is where the bound falls
 * below the land threshold.
 */
export const SEA_SCREEN_FEATURES = ['bright140', 'bright300', 'bright620', 'darkLevelDb', 'dark620'] as const;
/**
 * The screen of a field whose dark level is one where the five features cannot prove even open
 * sea (no bright cell, every cell dark) — on a generated coastal IW scene two windows, dark
 * levels 1.43 and 1.79 dB, whose trees then ran on every cell: the share of dark cells within
 * 300 m as well, which proves ≈ 97 % of their sea cells. Not the screen of every field: on
 * land-heavy windows a sixth interval to stay in costs more cells the cursor's shortcut.
 */
export const SEA_SCREEN_FEATURES_DARK = [...SEA_SCREEN_FEATURES, 'dark300'] as const;
type ScreenFeatures = typeof SEA_SCREEN_FEATURES | typeof SEA_SCREEN_FEATURES_DARK;
/** Log-odds margin of the bound under the threshold: float rounding of the sum, sigmoid and float32 store is ~1e-13. */
const SCREEN_MARGIN = 1e-4;

interface SeaScreen {
  names: ScreenFeatures;
  /** Feature index of each screen feature, and the sorted distinct split thresholds the trees use on it. */
  features: Int32Array;
  cuts: Float64Array[];
  /** Interval index (the count of cuts ≤ the value) key → 1: the bound is under the threshold, 0: not. */
  memo: Map<number, number>;
  threshold: number;
  trees: FlatTrees;
  /** screenFor's scratch. */
  openBins: Int32Array;
}

const screenCache = new WeakMap<GbtModel, Map<string, SeaScreen>>();

function seaScreen(model: GbtModel, threshold: number, names: ScreenFeatures = SEA_SCREEN_FEATURES): SeaScreen {
  let byThreshold = screenCache.get(model);
  if (!byThreshold) screenCache.set(model, (byThreshold = new Map()));
  const id = `${threshold}|${names.length}`;
  const cached = byThreshold.get(id);
  if (cached) return cached;
  const features = Int32Array.from(names, (name) => model.featureNames.indexOf(name));
  const cuts = Array.from(features, (j) => {
    const set = new Set<number>();
    for (const t of model.trees) for (let k = 0; k < t.feature.length; k++) if (t.feature[k] === j) set.add(t.threshold[k]!);
    return Float64Array.from([...set].sort((a, b) => a - b));
  });
  const screen: SeaScreen = { names, features, cuts, memo: new Map(), threshold, trees: flatTrees(model), openBins: new Int32Array(names.length) };
  byThreshold.set(id, screen);
  return screen;
}

/**
 * The screen for field `f`: the five features, or with its dark level (one value over the
 * field) one where they cannot prove open sea, SEA_SCREEN_FEATURES_DARK. Either bound holds, so
 * the choice changes which cells are deferred, never a probability read.
 */
function screenFor(model: GbtModel, threshold: number, f: SeaLandFeatures): SeaScreen {
  const five = seaScreen(model, threshold);
  const m = f.rows * f.cols;
  const k = f.valid.indexOf(1);
  const levelAt = model.featureNames.indexOf('darkLevelDb');
  if (k < 0 || levelAt < 0) return five;
  const level = f.planes[levelAt * m + k]!;
  if (level - level !== 0) return five;
  const openSea = (sc: SeaScreen): boolean => {
    for (let s = 0; s < sc.features.length; s++) {
      const name = model.featureNames[sc.features[s]!]!;
      sc.openBins[s] = thresholdsAtMost(sc.cuts[s]!, name === 'darkLevelDb' ? level : name.startsWith('bright') ? 0 : 1);
    }
    return screenVerdict(sc, model, sc.openBins);
  };
  return openSea(five) ? five : seaScreen(model, threshold, SEA_SCREEN_FEATURES_DARK);
}

/** Whether the bound of the intervals `bins` lies under the threshold (memoised per screen). */
function screenVerdict(sc: SeaScreen, model: GbtModel, bins: Int32Array): boolean {
  let key = 0;
  for (let s = 0; s < bins.length; s++) key = key * (sc.cuts[s]!.length + 1) + bins[s]!;
  let ok = sc.memo.get(key);
  if (ok === undefined) {
    const bound = seaScreenBound(model, bins, sc.threshold, sc.names);
    ok = Math.fround(sigmoid(bound + SCREEN_MARGIN)) < sc.threshold ? 1 : 0;
    sc.memo.set(key, ok);
  }
  return ok === 1;
}

/**
 * The bound of SeaScreen for the screen features' intervals `bins` (bins[s]: the count of
 * cuts[s] ≤ the value): base + Σ per tree (in tree order) the largest leaf reachable. Rounding
 * is monotone, so the float sum bounds the cells' float sums. Exported for the tests.
 */
export function seaScreenBound(model: GbtModel, bins: ArrayLike<number>, threshold: number, names: ScreenFeatures = SEA_SCREEN_FEATURES): number {
  const sc = seaScreen(model, threshold, names);
  const { roots, feature, threshold: split, left, right, value } = sc.trees;
  const lo = new Float64Array(SEA_LAND_FEATURE_COUNT).fill(-Infinity);
  const hi = new Float64Array(SEA_LAND_FEATURE_COUNT).fill(Infinity);
  const free = new Uint8Array(SEA_LAND_FEATURE_COUNT).fill(1);
  sc.features.forEach((j, s) => {
    if (j < 0) return;
    const b = bins[s]!;
    const c = sc.cuts[s]!;
    free[j] = 0;
    lo[j] = b > 0 ? c[b - 1]! : -Infinity;
    hi[j] = b < c.length ? c[b]! : Infinity;
  });
  const best = (n: number): number => {
    const j = feature[n]!;
    if (j < 0) return value[n]!;
    const t = split[n]!;
    if (!free[j]) {
      // Values in [lo, hi): all below a split at or over hi, none below one at or under lo.
      if (t >= hi[j]!) return best(left[n]!);
      if (t <= lo[j]!) return best(right[n]!);
    }
    return Math.max(best(left[n]!), best(right[n]!));
  };
  let s = sc.trees.base;
  for (let i = 0; i < roots.length; i++) s += best(roots[i]!);
  return s;
}

/**
 * The intervals of the last cell screened and their verdict: neighbouring sea cells share
 * them, so most cells are decided by five range checks (the same verdict as the memo's).
 */
interface ScreenCursor {
  bins: Int32Array;
  lo: Float64Array;
  hi: Float64Array;
  ok: boolean;
}

function screenCursor(sc: SeaScreen): ScreenCursor {
  const n = sc.features.length;
  // Empty intervals (lo > hi): the first cell misses.
  return { bins: new Int32Array(n), lo: new Float64Array(n).fill(Infinity), hi: new Float64Array(n).fill(-Infinity), ok: false };
}

/** Whether cell k is sea for sure by the screen (every screen feature finite, its intervals' bound under the threshold). */
function screenedSea(sc: SeaScreen, model: GbtModel, planes: Float32Array, m: number, k: number, cur: ScreenCursor): boolean {
  const n = sc.features.length;
  let same = true;
  for (let s = 0; s < n && same; s++) {
    const v = planes[sc.features[s]! * m + k]!;
    same = v >= cur.lo[s]! && v < cur.hi[s]! && v - v === 0;
  }
  if (same) return cur.ok;
  for (let s = 0; s < n; s++) {
    const j = sc.features[s]!;
    if (j < 0) return false;
    const v = planes[j * m + k]!;
    if (v - v !== 0) return false; // non-finite: the trees take its missing side, not an interval
    cur.bins[s] = thresholdsAtMost(sc.cuts[s]!, v);
  }
  const ok = screenVerdict(sc, model, cur.bins);
  for (let s = 0; s < n; s++) {
    const c = sc.cuts[s]!;
    const b = cur.bins[s]!;
    cur.lo[s] = b > 0 ? c[b - 1]! : -Infinity;
    cur.hi[s] = b < c.length ? c[b]! : Infinity;
  }
  cur.ok = ok;
  return cur.ok;
}

/**
 * The land probability field with the trees skipped where the sea screen proves a cell sea
 * (probability under `threshold`): those cells are `deferred` (land holds 0 there) and their
 * exact probability is computed when read (landProbability, landAt, candidateLandFeatures),
 * the same bits as seaLandProbability's. Land decisions at `threshold` or above
 * (withLandDistance, landMaskOfField, partLandFeatures) are the full field's exactly; below it
 * they first resolve every deferred cell. `outOfReach` (seaLandProbabilityAnchored): those cells are
 * deferred too, without the trees or the screen, holding 0 until read; decisions at the
 * threshold are then exact only within the reach (see there).
 */
export function seaLandProbabilityDeferred(f: SeaLandFeatures, model: Pick<SeaLandModel, 'model' | 'threshold'>, outOfReach?: Uint8Array): SeaLandField {
  const m = f.rows * f.cols;
  const land = new Float32Array(m).fill(Number.NaN);
  const pending = new Uint8Array(m);
  const t = flatTrees(model.model);
  const sc = screenFor(model.model, model.threshold, f);
  const x = new Float64Array(SEA_LAND_FEATURE_COUNT);
  const cur = screenCursor(sc);
  let count = 0;
  let far = 0;
  for (let k = 0; k < m; k++) {
    if (!f.valid[k]) continue;
    if (outOfReach && outOfReach[k] === 1) {
      land[k] = 0;
      pending[k] = 1;
      count++;
      far++;
    } else if (screenedSea(sc, model.model, f.planes, m, k, cur)) {
      land[k] = 0;
      pending[k] = 1;
      count++;
    } else land[k] = sigmoid(cellLogit(t, f.planes, m, k, x));
  }
  return { cellRows: f.cellRows, cellCols: f.cellCols, rows: f.rows, cols: f.cols, valid: f.valid, land, ...(count ? { deferred: { pending, count, threshold: model.threshold, features: f, trees: t, x, outOfReach: far } } : {}) };
}

/** The exact land probability of cell k (NaN: no target pixel there), computing a deferred cell now. */
export function landProbability(f: SeaLandField, k: number): number {
  const d = f.deferred;
  if (d && d.pending[k] === 1) {
    if (d.features.planes.length === 0) throw new Error('landProbability: a deferred cell of a released field (releaseSeaLandField)');
    const m = f.rows * f.cols;
    f.land[k] = sigmoid(cellLogit(d.trees, d.features.planes, m, k, d.x));
    d.pending[k] = 0;
    d.count--;
  }
  return f.land[k]!;
}

/** Every deferred cell computed: `f.land` is then seaLandProbability's field. Returns f.land. */
export function resolveLandField(f: SeaLandField): Float32Array {
  const d = f.deferred;
  if (d && d.count > 0) for (let k = 0; k < d.pending.length; k++) if (d.pending[k] === 1) landProbability(f, k);
  return f.land;
}

/** Land decisions at `threshold` are exact on `f.land` as it stands (deferred cells resolved when the threshold is under the screen's). */
function decisionsAt(f: SeaLandField, threshold: number): void {
  if (f.deferred && f.deferred.count > 0 && !(threshold >= f.deferred.threshold)) resolveLandField(f);
}

/** The tile's land probability field from the committed model. */
export function seaLandField(values: Float32Array, target: Uint8Array, width: number, height: number, spacing: { range: number; azimuth: number }, model: Pick<SeaLandModel, 'model'> = seaLandModel()): SeaLandField {
  const f = seaLandFeatures(values, target, width, height, spacing);
  const field = seaLandProbability(f, model);
  givePlanes(f.planes); // f does not leave here: its planes serve the thread's next features
  return field;
}

/**
 * Gives the memory of a deferred field's feature planes to the thread's next seaLandFeatures
 * (the detector, once a tile is done with its field): ~5 ms CPU per MB of page faults saved, ~1 s
 * on a 3434² window. The field and its copies (withLandDistance) may still be read where they
 * are decided — land probabilities already computed, distances, land decisions at the screen's
 * threshold or above — but a deferred cell's probability can no longer be computed: reading one
 * throws. The features the field was made from must not be read after.
 */
export function releaseSeaLandField(f: SeaLandField): void {
  const d = f.deferred;
  if (!d || d.features.planes.length === 0) return;
  givePlanes(d.features.planes);
  d.features = { ...d.features, planes: new Float32Array(0) };
}

/**
 * seaLandField with the sea screen's cells deferred (seaLandProbabilityDeferred): the detector's
 * field, whose readers see the full field's numbers and land decisions. With `anchor` (a pixel
 * mask), seaLandProbabilityAnchored's: cells whose decision cannot matter to the anchor are
 * deferred too; every probability read is still the full field's, and so are the distances and
 * land decisions within REACH_MARGIN_M of the anchor's cells; farther out they may count land as sea.
 */
export function deferredSeaLandField(
  values: Float32Array,
  target: Uint8Array,
  width: number,
  height: number,
  spacing: { range: number; azimuth: number },
  model: Pick<SeaLandModel, 'model' | 'threshold'> = seaLandModel(),
  anchor?: Uint8Array,
): SeaLandField {
  const f = seaLandFeatures(values, target, width, height, spacing);
  return anchor ? seaLandProbabilityAnchored(f, model, anchor, width, height, spacing) : seaLandProbabilityDeferred(f, model);
}

/** Margin (m) beyond LAND_DISTANCE_CAP_M of cellsOutOfReach: reads within it of an anchor cell stay exact. */
export const REACH_MARGIN_M = 500;

/**
 * Per cell 1 where a cell holding a pixel of `anchor` lies within `reachM` along both axes (the
 * box of ⌈reachM / cell size⌉ cells each side: a superset of the cells within reachM), else 0;
 * null when every cell is within it of every other.
 */
function cellsNearAnchor(anchor: Uint8Array, width: number, height: number, grid: Omit<SeaLandGrid, 'valid'>, spacing: { range: number; azimuth: number }, reachM: number): Uint8Array | null {
  const { rows, cols, cellRows, cellCols } = grid;
  const hr = Math.ceil(reachM / (cellRows * spacing.azimuth));
  const hc = Math.ceil(reachM / (cellCols * spacing.range));
  if (rows <= hr + 1 && cols <= hc + 1) return null; // every cell within reach of every other
  // The cells holding an anchor pixel: per pixel row, each cell's run of pixels until one is set.
  const has = new Uint8Array(rows * cols);
  for (let r = 0; r < height; r++) {
    const base = ((r / cellRows) | 0) * cols;
    const row = r * width;
    for (let c0 = 0, k = base; c0 < width; c0 += cellCols, k++) {
      if (has[k]) continue;
      for (let p = row + c0, end = row + Math.min(width, c0 + cellCols); p < end; p++)
        if (anchor[p]) {
          has[k] = 1;
          break;
        }
    }
  }
  // Summed-area table of the anchor cells: (rows + 1) × (cols + 1).
  const W = cols + 1;
  const sat = new Int32Array((rows + 1) * W);
  for (let r = 0; r < rows; r++) {
    let run = 0;
    for (let c = 0; c < cols; c++) {
      run += has[r * cols + c]!;
      sat[(r + 1) * W + c + 1] = sat[r * W + c + 1]! + run;
    }
  }
  const out = has; // each cell's test reads the table only
  for (let r = 0; r < rows; r++) {
    const r0 = Math.max(0, r - hr) * W;
    const r1 = Math.min(rows, r + hr + 1) * W;
    for (let c = 0; c < cols; c++) {
      const c0 = Math.max(0, c - hc);
      const c1 = Math.min(cols, c + hc + 1);
      out[r * cols + c] = sat[r1 + c1]! - sat[r0 + c1]! - sat[r1 + c0]! + sat[r0 + c0]! === 0 ? 0 : 1;
    }
  }
  return out;
}

/**
 * The cells farther than LAND_DISTANCE_CAP_M + REACH_MARGIN_M from every cell holding a pixel
 * of `anchor` (1 = out of reach), or null when there are none. A cell out of reach can change
 * no distance withLandDistance gives within REACH_MARGIN_M of an anchor cell: its chamfer paths
 * there are longer than the cap (the chamfer metric is at least the Euclidean distance between
 * cell centres, and that at least the larger axis offset, which the box test bounds). The
 * anchored field (seaLandProbabilityAnchored) defers these and more: see there.
 */
export function cellsOutOfReach(anchor: Uint8Array, width: number, height: number, grid: Omit<SeaLandGrid, 'valid'>, spacing: { range: number; azimuth: number }): Uint8Array | null {
  const near = cellsNearAnchor(anchor, width, height, grid, spacing, LAND_DISTANCE_CAP_M + REACH_MARGIN_M);
  if (!near) return null;
  let any = false;
  for (let k = 0; k < near.length; k++) any = (near[k]! ^= 1) === 1 || any;
  return any ? near : null;
}

/**
 * Slack (m) of the reach test of seaLandProbabilityAnchored: a cell is decided when it lies
 * within this of being some anchor-side cell's nearest land. The float32 chamfer sums (≤ ~200
 * steps to the cap, an ulp of ≤ 2.4e-4 m each) err by < 0.05 m, so 1 m is room to spare.
 */
const REACH_SLACK_M = 1;

/**
 * The near-shore path's field (tile.ts), anchored on `anchor` (the valid pixels off the tile's
 * land mask: its candidates, their peaks and boxes lie within a vessel's size of them): every
 * probability read is the full field's (deferred cells computed on demand), and so are the
 * distances (withLandDistance) and land decisions at the committed threshold on the cells
 * within REACH_MARGIN_M of an anchor cell (the "near" cells); farther out a land cell may be
 * counted sea. Only the cells that can matter there get a decision:
 * 1. the near cells, as seaLandProbabilityDeferred (sea screen, else the trees);
 * 2. the distance to the land found so far, D (withLandDistance's chamfer), at the near cells;
 * 3. G(u) = max over near cells a of D(a) − δ(u, a), δ the chamfer's path length (two passes,
 *    forward then backward, of max(G, G(neighbour) − step): a path u → a of forward then
 *    backward steps, as chamferInPlace takes it, reversed is one of forward then backward steps
 *    again). A cell whose G is under −REACH_SLACK_M is farther from every near cell a than a's
 *    distance to known land, so it can be no near cell's nearest land: adding it as land
 *    changes no near distance (chamferInPlace is monotone and min-plus: the winning path to a
 *    starts at a land cell the test keeps). Those stay deferred without a decision (land 0
 *    until read, counted in `outOfReach`), the others get one as in 1.
 * Cells without an anchor pixel add land only to pixels the anchor leaves out, so the land mask
 * (landMaskOfField) leaves the same target pixels. On the coastal IW bench scene 1.4 M of the
 * 6.2 M cells the trees ran on are left to decide. Without near cells out of the box of any
 * anchor (a small window), seaLandProbabilityDeferred's field.
 */
export function seaLandProbabilityAnchored(
  f: SeaLandFeatures,
  model: Pick<SeaLandModel, 'model' | 'threshold'>,
  anchor: Uint8Array,
  width: number,
  height: number,
  spacing: { range: number; azimuth: number },
): SeaLandField {
  const near = cellsNearAnchor(anchor, width, height, f, spacing, REACH_MARGIN_M);
  if (!near) return seaLandProbabilityDeferred(f, model);
  const { rows, cols } = f;
  const m = rows * cols;
  // 1: the near cells decided, the others deferred undecided (near as the mask of the far ones, flipped back below).
  for (let k = 0; k < m; k++) near[k]! ^= 1;
  const field = seaLandProbabilityDeferred(f, model, near);
  for (let k = 0; k < m; k++) near[k]! ^= 1;
  const d = field.deferred;
  if (!d || d.outOfReach === 0) return field;
  // 2: D, the capped chamfer distance to the land decided so far (withLandDistance's).
  const t = model.threshold;
  const dy = f.cellRows * spacing.azimuth;
  const dx = f.cellCols * spacing.range;
  // In the memory of seaLandFeatures' summed-area table (the thread's, (rows + 1) × (cols + 1) values, no longer read).
  const sat = scratchOf('seaLandSat', Int32Array, (rows + 1) * (cols + 1));
  const g = new Float32Array(sat.buffer, sat.byteOffset, m);
  for (let k = 0; k < m; k++) g[k] = field.land[k]! >= t ? 0 : LAND_DISTANCE_CAP_M;
  chamferInPlace(g, rows, cols, dy, dx);
  // 3: G from the near cells' D.
  for (let k = 0; k < m; k++) if (!near[k]) g[k] = -Infinity;
  reachInPlace(g, rows, cols, dy, dx);
  const sc = screenFor(model.model, model.threshold, f);
  const cur = screenCursor(sc);
  for (let k = 0; k < m; k++) {
    if (near[k] || d.pending[k] !== 1 || !(g[k]! >= -REACH_SLACK_M)) continue;
    d.outOfReach--;
    if (screenedSea(sc, model.model, f.planes, m, k, cur)) continue; // decided sea, its probability still deferred
    field.land[k] = sigmoid(cellLogit(d.trees, f.planes, m, k, d.x));
    d.pending[k] = 0;
    d.count--;
  }
  return field;
}

/**
 * chamferInPlace's two passes with max(g, g(neighbour) − step) for min(d, d(neighbour) + step):
 * per cell the largest g(a) − δ(cell, a) over the cells a, δ the chamfer path length.
 */
function reachInPlace(g: Float32Array, rows: number, cols: number, dy: number, dx: number): void {
  const dd = Math.hypot(dx, dy);
  for (let r = 0; r < rows; r++)
    for (let c = 0, k = r * cols; c < cols; c++, k++) {
      let v = g[k]!;
      if (r > 0) {
        const up = k - cols;
        if (c > 0 && g[up - 1]! - dd > v) v = g[up - 1]! - dd;
        if (g[up]! - dy > v) v = g[up]! - dy;
        if (c + 1 < cols && g[up + 1]! - dd > v) v = g[up + 1]! - dd;
      }
      if (c > 0 && g[k - 1]! - dx > v) v = g[k - 1]! - dx;
      g[k] = v;
    }
  for (let r = rows - 1; r >= 0; r--)
    for (let c = cols - 1, k = r * cols + c; c >= 0; c--, k--) {
      let v = g[k]!;
      if (r + 1 < rows) {
        const down = k + cols;
        if (c + 1 < cols && g[down + 1]! - dd > v) v = g[down + 1]! - dd;
        if (g[down]! - dy > v) v = g[down]! - dy;
        if (c > 0 && g[down - 1]! - dd > v) v = g[down - 1]! - dd;
      }
      if (c + 1 < cols && g[k + 1]! - dx > v) v = g[k + 1]! - dx;
      g[k] = v;
    }
}

/** Land probability of the cell holding pixel (row, col) (NaN: no target pixel there). */
export function landAt(f: SeaLandField, row: number, col: number): number {
  return landProbability(f, Math.floor(row / f.cellRows) * f.cols + Math.floor(col / f.cellCols));
}

/**
 * The field with `distanceM`: per cell the distance (m, chamfer over the cell grid, capped at
 * LAND_DISTANCE_CAP_M) to the nearest cell whose land probability reaches `threshold` (default:
 * the committed one). Two passes over the cells.
 */
export function withLandDistance(f: SeaLandField, spacing: { range: number; azimuth: number }, threshold = seaLandModel().threshold): SeaLandField {
  const { rows, cols } = f;
  decisionsAt(f, threshold);
  const d = new Float32Array(rows * cols);
  for (let k = 0; k < d.length; k++) d[k] = f.land[k]! >= threshold ? 0 : LAND_DISTANCE_CAP_M;
  chamferInPlace(d, rows, cols, f.cellRows * spacing.azimuth, f.cellCols * spacing.range);
  return { ...f, distanceM: d };
}

/**
 * A candidate's land features: the land probability at its peak, the mean and maximum over
 * the cells of its box grown by `growPx` pixels (NaN where no cell holds a target pixel), and
 * the distance to land at its peak (NaN when the field has no distances).
 */
export function candidateLandFeatures(f: SeaLandField, peakRow: number, peakCol: number, box: { rowMin: number; rowMax: number; colMin: number; colMax: number }, growPx: number): [number, number, number, number] {
  const r0 = Math.max(0, Math.floor((box.rowMin - growPx) / f.cellRows));
  const r1 = Math.min(f.rows - 1, Math.floor((box.rowMax + growPx) / f.cellRows));
  const c0 = Math.max(0, Math.floor((box.colMin - growPx) / f.cellCols));
  const c1 = Math.min(f.cols - 1, Math.floor((box.colMax + growPx) / f.cellCols));
  let n = 0;
  let s = 0;
  let mx = Number.NaN;
  for (let r = r0; r <= r1; r++)
    for (let c = c0; c <= c1; c++) {
      const v = landProbability(f, r * f.cols + c);
      if (Number.isNaN(v)) continue;
      n++;
      s += v;
      if (!(v <= mx)) mx = v;
    }
  const cell = Math.floor(peakRow / f.cellRows) * f.cols + Math.floor(peakCol / f.cellCols);
  return [landAt(f, peakRow, peakCol), n ? s / n : Number.NaN, mx, f.distanceM ? f.distanceM[cell]! : Number.NaN];
}

/** The field's land cells (probability ≥ `threshold`) as a pixel mask, or-ed with `land` (not written into). */
export function landMaskOfField(f: SeaLandField, width: number, height: number, threshold = seaLandModel().threshold, land?: Uint8Array): Uint8Array {
  decisionsAt(f, threshold);
  const out = land ? Uint8Array.from(land) : new Uint8Array(width * height);
  const { cellRows, cellCols, cols } = f;
  for (let r = 0; r < height; r++) {
    const base = ((r / cellRows) | 0) * cols;
    const row = r * width;
    // Per cell its run of the row's pixels.
    for (let c0 = 0, k = base; c0 < width; c0 += cellCols, k++) {
      if (!(f.land[k]! >= threshold)) continue;
      for (let p = row + c0, end = row + Math.min(width, c0 + cellCols); p < end; p++) out[p] = 1;
    }
  }
  return out;
}

/**
 * The segmenter as a land mask: 1 on every pixel of a cell whose land probability reaches the
 * committed threshold, or where `land` (if given) is already 1. The field is computed on the
 * `valid` pixels.
 */
export function sceneLandMask(values: Float32Array, valid: Uint8Array, width: number, height: number, spacing: { range: number; azimuth: number }, land?: Uint8Array): Uint8Array {
  return landMaskOfField(deferredSeaLandField(values, valid, width, height, spacing), width, height, seaLandModel().threshold, land);
}

/** A part's pixels count as near land within this distance (m) of a land cell (withLandDistance). */
export const PART_NEAR_LAND_M = 60;

/**
 * How a candidate part lies against the scene's land (issue 23 §1, split parts of quays and
 * moored ships): the share of its pixels in land cells (probability ≥ `threshold`), the share
 * within PART_NEAR_LAND_M of land (NaN without distances), the share of its boundary (pixels
 * with a 4-neighbour outside it) that touches land — a 4-neighbour outside the part in a land
 * cell — and that contact length over the part's length (`lengthM`; a hull moored along a quay
 * touches it over a fraction of its length, a piece of quay over all of it). `pixels` are linear
 * indices in a raster `width` wide; `pixelM` is the mean pixel spacing.
 */
export function partLandFeatures(f: SeaLandField, pixels: ArrayLike<number>, width: number, height: number, pixelM: number, lengthM: number, threshold = seaLandModel().threshold): [number, number, number, number] {
  const n = pixels.length;
  if (!n) return [Number.NaN, Number.NaN, Number.NaN, Number.NaN];
  decisionsAt(f, threshold);
  const cellOf = (r: number, c: number) => Math.floor(r / f.cellRows) * f.cols + Math.floor(c / f.cellCols);
  const own = new Set<number>();
  for (let k = 0; k < n; k++) own.add(pixels[k]!);
  let onLand = 0;
  let near = 0;
  let boundary = 0;
  let contact = 0;
  for (let k = 0; k < n; k++) {
    const p = pixels[k]!;
    const r = (p / width) | 0;
    const c = p - r * width;
    const cell = cellOf(r, c);
    if (f.land[cell]! >= threshold) onLand++;
    if (f.distanceM && f.distanceM[cell]! <= PART_NEAR_LAND_M) near++;
    let edge = false;
    let touches = false;
    for (const [dr, dc] of [[-1, 0], [1, 0], [0, -1], [0, 1]] as const) {
      const rr = r + dr;
      const cc = c + dc;
      if (rr < 0 || rr >= height || cc < 0 || cc >= width || own.has(rr * width + cc)) continue;
      edge = true;
      if (f.land[cellOf(rr, cc)]! >= threshold) touches = true;
    }
    if (edge) boundary++;
    if (touches) contact++;
  }
  return [onLand / n, f.distanceM ? near / n : Number.NaN, boundary ? contact / boundary : Number.NaN, lengthM > 0 ? (contact * pixelM) / lengthM : Number.NaN];
}
