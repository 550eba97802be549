// Box sums and box means over a validity mask (row-major rasters, width × height): the one
// moving-window mean behind the change detector's speckle filters (analysis/change/speckle.ts).
//
// The window around pixel (row, col) is rows row−ry … row+ry and columns col−rx … col+rx,
// clipped to the raster (no padding, no mirroring). Sums are separable running sums in
// float64: along each row (add the entering pixel, drop the leaving one), then down the
// columns, each output row derived from the one above. The cost per pixel does not depend on
// the window size. The exact order of these additions is part of the contract: the change
// model is calibrated on results computed this way. Float64 sums of float32 data are often
// exact, and then any summation agrees; where they round, a different one (a summed-area
// table, pairwise sums) changes low-order bits (measured on a synthetic oil SAFE: region
// statistics moved in the 11th digit). test/raster/boxMean.test.ts pins the order and
// test/raster/callerPins.test.ts the callers' outputs.
//
// No-data: a window's statistics come from its valid pixels only (`valid` ≠ 0), and a centre
// that is not to be computed gets NaN, so no-data never bleeds into the data next to it. The
// mask, not the values, says what is data: a NaN value at a valid pixel adds 0 to the sums and
// still counts as valid (callers' masks exclude NaN; this keeps the arithmetic branch-free).

import { Scratch } from './scratch.ts';

/** Named float64 buffers reused across calls (one set per thread; scratch.ts). */
export class BoxScratch extends Scratch {
  /** A named reusable float64 array of exactly n elements (content unspecified). */
  get(name: string, n: number): Float64Array {
    return this.array(name, Float64Array, n);
  }
}

/**
 * Horizontal running sums of one row: dst[x] = Σ src[x−r … x+r] (clipped), or of src². For
 * each x the entering pixel is added, then the leaving one dropped; the loops are split where
 * a window stops touching the row's ends, so the middle runs without bound checks.
 */
function rowSums(src: Float64Array, base: number, width: number, r: number, dst: Float64Array, squares: boolean): void {
  if (squares) rowSumsOfSquares(src, base, width, r, dst);
  else rowSumsOfValues(src, base, width, r, dst);
}

function rowSumsOfValues(src: Float64Array, base: number, width: number, r: number, dst: Float64Array): void {
  let s = 0;
  const first = Math.min(r, width);
  for (let x = 0; x < first; x++) s += src[base + x]!;
  // x + r < width ⇔ x < width − r; x − r − 1 ≥ 0 ⇔ x ≥ r + 1.
  const addEnd = Math.max(0, width - r);
  const dropStart = Math.min(width, r + 1);
  let x = 0;
  for (const end = Math.min(addEnd, dropStart); x < end; x++) {
    s += src[base + x + r]!;
    dst[base + x] = s;
  }
  for (; x < addEnd; x++) {
    s += src[base + x + r]!;
    s -= src[base + x - r - 1]!;
    dst[base + x] = s;
  }
  for (; x < dropStart; x++) dst[base + x] = s;
  for (; x < width; x++) {
    s -= src[base + x - r - 1]!;
    dst[base + x] = s;
  }
}

function rowSumsOfSquares(src: Float64Array, base: number, width: number, r: number, dst: Float64Array): void {
  let s = 0;
  const first = Math.min(r, width);
  for (let x = 0; x < first; x++) {
    const v = src[base + x]!;
    s += v * v;
  }
  const addEnd = Math.max(0, width - r);
  const dropStart = Math.min(width, r + 1);
  let x = 0;
  for (const end = Math.min(addEnd, dropStart); x < end; x++) {
    const a = src[base + x + r]!;
    s += a * a;
    dst[base + x] = s;
  }
  for (; x < addEnd; x++) {
    const a = src[base + x + r]!;
    s += a * a;
    const d = src[base + x - r - 1]!;
    s -= d * d;
    dst[base + x] = s;
  }
  for (; x < dropStart; x++) dst[base + x] = s;
  for (; x < width; x++) {
    const d = src[base + x - r - 1]!;
    s -= d * d;
    dst[base + x] = s;
  }
}

/** Columns of each clipped window along a row: cols[x] = min(width−1, x+r) − max(0, x−r) + 1. */
function windowColumns(width: number, r: number, scratch: BoxScratch): Float64Array {
  const cols = scratch.get('boxCols', width);
  for (let x = 0; x < width; x++) cols[x] = Math.min(width - 1, x + r) - Math.max(0, x - r) + 1;
  return cols;
}

/**
 * Where boxSum keeps its row sums: the scratch array `name`, every row recomputed, or with
 * `only` just the rows y with only[y] ≠ 0 — the others must still hold the sums of the same
 * source row, radius and width from an earlier call (boxMean's `changedRows`).
 */
export interface BoxRows {
  name: string;
  only: Uint8Array | null;
}

/**
 * out[i] = Σ of `src` (or of src², with `squares`) over the window of half-sizes (rx, ry)
 * around i, clipped to the raster. `out` must not be `src`.
 */
export function boxSum(
  src: Float64Array,
  width: number,
  height: number,
  rx: number,
  ry: number,
  out: Float64Array,
  scratch: BoxScratch = new BoxScratch(),
  squares = false,
  rows: BoxRows = { name: 'boxRow', only: null },
): Float64Array {
  const n = width * height;
  if (src.length !== n || out.length !== n) throw new RangeError(`boxSum: arrays must hold ${width} × ${height} values`);
  if (n === 0) return out;
  const row = scratch.get(rows.name, n);
  const r = Math.min(rx, width - 1);
  for (let y = 0; y < height; y++) if (!rows.only || rows.only[y]) rowSums(src, y * width, width, r, row, squares);
  const rv = Math.min(ry, height - 1);
  out.fill(0, 0, width);
  for (let k = 0; k <= rv; k++) {
    const base = k * width;
    for (let x = 0; x < width; x++) out[x]! += row[base + x]!;
  }
  for (let y = 1; y < height; y++) {
    const o = y * width;
    const p = o - width;
    const add = y + rv;
    const drop = y - rv - 1;
    if (add < height && drop >= 0) {
      const a = add * width;
      const d = drop * width;
      for (let x = 0; x < width; x++) out[o + x] = out[p + x]! + row[a + x]! - row[d + x]!;
    } else if (add < height) {
      const a = add * width;
      for (let x = 0; x < width; x++) out[o + x] = out[p + x]! + row[a + x]!;
    } else if (drop >= 0) {
      const d = drop * width;
      for (let x = 0; x < width; x++) out[o + x] = out[p + x]! - row[d + x]!;
    } else {
      for (let x = 0; x < width; x++) out[o + x] = out[p + x]!;
    }
  }
  return out;
}

/** Number of valid pixels in each clipped window (exact integers). */
export function boxCount(valid: Uint8Array, width: number, height: number, rx: number, ry: number, out: Float64Array, scratch: BoxScratch = new BoxScratch()): Float64Array {
  const n = width * height;
  if (valid.length !== n || out.length !== n) throw new RangeError(`boxCount: arrays must hold ${width} × ${height} values`);
  let all = true;
  for (let i = 0; i < n && all; i++) if (!valid[i]) all = false;
  if (all) {
    // Every pixel valid (the usual tile): the count is the clipped window's area.
    const cols = windowColumns(width, rx, scratch);
    for (let y = 0; y < height; y++) {
      const rows = Math.min(height - 1, y + ry) - Math.max(0, y - ry) + 1;
      const o = y * width;
      for (let x = 0; x < width; x++) out[o + x] = rows * cols[x]!;
    }
    return out;
  }
  const ones = scratch.get('boxOnes', n);
  for (let i = 0; i < n; i++) ones[i] = valid[i]!;
  // Its own row sums: boxMean's (of values) may be reused by its next call (changedRows).
  return boxSum(ones, width, height, rx, ry, out, scratch, false, { name: 'boxCountRow', only: null });
}

/**
 * Windowed sums over valid pixels: Σv and, with `squares`, Σv². The arrays are the scratch's
 * ('boxSum', 'boxSumSq'): valid until its next use.
 */
export function maskedBoxSums(
  values: ArrayLike<number>,
  valid: Uint8Array,
  width: number,
  height: number,
  rx: number,
  ry: number,
  squares: boolean,
  scratch: BoxScratch = new BoxScratch(),
): { sum: Float64Array; sumSq: Float64Array | null } {
  const n = width * height;
  if (values.length !== n || valid.length !== n) throw new RangeError(`maskedBoxSums: arrays must hold ${width} × ${height} values`);
  // Invalid pixels contribute 0, so the running sums need no branches.
  const masked = scratch.get('boxMasked', n);
  for (let i = 0; i < n; i++) {
    const v = values[i]!;
    masked[i] = valid[i] && v === v ? v : 0;
  }
  const sum = boxSum(masked, width, height, rx, ry, scratch.get('boxSum', n), scratch);
  const sumSq = squares ? boxSum(masked, width, height, rx, ry, scratch.get('boxSumSq', n), scratch, true) : null;
  return { sum, sumSq };
}

export interface BoxMeanOptions {
  /** Pixels to compute (default: the valid ones); the others get NaN. */
  where?: Uint8Array;
  /**
   * Smallest share of the clipped window's area that must be valid for a mean (default 0: one
   * valid pixel is enough). Below it, or with no valid pixel at all, the pixel gets `fallback`.
   */
  minFraction?: number;
  /** Value per pixel where the mean is not estimated (default NaN). */
  fallback?: ArrayLike<number>;
  /** Valid-pixel counts per window if already known (boxCount of the same mask and radii). */
  count?: Float64Array;
  scratch?: BoxScratch;
  /**
   * The rows (1 each, `height` of them) where `values` or `valid` differ from the previous
   * boxMean with this scratch, which had the same width, height and rx and no boxSum or
   * maskedBoxSums on the scratch since: only those rows' masked values and row sums are
   * recomputed, the others are that call's — the same numbers, since a row's sums depend on
   * that row alone (the dark spots' second background pass, which drops a few dark pixels).
   */
  changedRows?: Uint8Array;
}

/**
 * Mean of the valid pixels in the window of half-sizes (rx, ry) around each pixel.
 *
 * The sums are boxSum's, operation for operation (masked row sums kept in the scratch's
 * 'boxRow', then the running column sums), but the column sums are carried one output row at
 * a time and each row's means are taken at once: no raster of masked values, of window sums or
 * of window counts is written and read back (counts of a mask with no-data are exact integers,
 * so their own running sums give boxCount's values whatever the order).
 */
export function boxMean(
  values: ArrayLike<number>,
  valid: Uint8Array,
  width: number,
  height: number,
  rx: number,
  ry: number,
  out: Float32Array = new Float32Array(width * height),
  options: BoxMeanOptions = {},
): Float32Array {
  const n = width * height;
  if (out.length !== n) throw new RangeError(`boxMean: output must hold ${width} × ${height} values`);
  if (values.length !== n || valid.length !== n) throw new RangeError(`boxMean: arrays must hold ${width} × ${height} values`);
  if (n === 0) return out;
  const scratch = options.scratch ?? new BoxScratch();
  const where = options.where ?? valid;
  const minFraction = options.minFraction ?? 0;
  const fallback = options.fallback;
  const count = options.count ?? null;
  // Counts: the clipped window's area, rows · cols[x] as boxCount writes it, less the window's
  // invalid pixels — counted in the rows that have any (none in the usual sea tile; a few in
  // the dark spots' second pass), as integers, so boxCount's values exactly.
  const rowMissing = count ? null : scratch.array('boxRowMissing', Uint8Array, height);
  let missingRows = 0;
  if (rowMissing) {
    for (let y = 0; y < height; y++) {
      let all = 1;
      for (let i = y * width, end = i + width; i < end; i++) all &= valid[i]! !== 0 ? 1 : 0;
      rowMissing[y] = 1 - all;
      missingRows += 1 - all;
    }
  }
  const changed = options.changedRows;
  if (changed && changed.length !== height) throw new RangeError(`boxMean: changedRows must hold ${height} rows`);

  // Row sums of the masked values (boxSum's 'boxRow'; with changedRows only those rows).
  const r = Math.min(rx, width - 1);
  const rowSum = scratch.get('boxRow', n);
  const masked = scratch.get('boxMaskedRow', width);
  for (let y = 0; y < height; y++) {
    if (changed && !changed[y]) continue;
    const o = y * width;
    for (let x = 0; x < width; x++) {
      const v = values[o + x]!;
      masked[x] = valid[o + x] && v === v ? v : 0;
    }
    rowSumsOfValues(masked, 0, width, r, rowSum.subarray(o, o + width));
  }
  // Invalid pixels per row window, in the rows that have any.
  const missing = rowMissing && missingRows > 0 ? scratch.array('boxRowMissingCount', Int32Array, n) : null;
  if (rowMissing && missing) for (let y = 0; y < height; y++) if (rowMissing[y]) rowMissingCounts(valid, y * width, width, r, missing);

  const cx = Math.min(rx, width - 1);
  const cy = Math.min(ry, height - 1);
  const cols = windowColumns(width, cx, scratch);
  const sum = scratch.get('boxColumnSum', width);
  // Invalid pixels per window of the current output row, and the row's counts.
  const absent = missing ? scratch.get('boxColumnMissing', width).fill(0) : null;
  const counts = missing ? scratch.get('boxColumnCount', width) : null;
  let absentRows = 0;
  for (let y = 0; y < height; y++) {
    columnStep(rowSum, width, height, cy, y, sum);
    const rows = Math.min(height - 1, y + cy) - Math.max(0, y - cy) + 1;
    // The share test below multiplies as (minFraction · rows) · columns, as it always has.
    const need = minFraction * rows;
    const o = y * width;
    if (count) {
      meanRowCounted(out, o, width, where, sum, count.subarray(o, o + width), cols, minFraction, need, fallback);
      continue;
    }
    if (rowMissing && missing && absent && counts) {
      // Rows entering and leaving the window of row y (row 0: the first cy + 1).
      for (let k = y === 0 ? 0 : y + cy; k <= y + cy && k < height; k++) {
        if (!rowMissing[k]) continue;
        for (let x = 0, m = k * width; x < width; x++) absent[x]! += missing[m + x]!;
        absentRows++;
      }
      const drop = y - cy - 1;
      if (drop >= 0 && rowMissing[drop]) {
        for (let x = 0, m = drop * width; x < width; x++) absent[x]! -= missing[m + x]!;
        absentRows--;
      }
    }
    if (absentRows > 0 && absent && counts) {
      for (let x = 0; x < width; x++) counts[x] = rows * cols[x]! - absent[x]!;
      meanRowCounted(out, o, width, where, sum, counts, cols, minFraction, need, fallback);
    } else {
      meanRow(out, o, width, where, sum, rows, cols, minFraction, need, fallback);
    }
  }
  return out;
}

/**
 * Column sums of output row y from those of row y − 1 (boxSum's vertical pass, the same
 * operations): row 0 is 0 + the first rv + 1 row sums; then the entering row is added and the
 * leaving one dropped.
 */
function columnStep(row: Float64Array, width: number, height: number, rv: number, y: number, acc: Float64Array): void {
  if (y === 0) {
    acc.fill(0);
    for (let k = 0; k <= rv; k++) {
      const base = k * width;
      for (let x = 0; x < width; x++) acc[x]! += row[base + x]!;
    }
    return;
  }
  const add = y + rv;
  const drop = y - rv - 1;
  if (add < height && drop >= 0) {
    const a = add * width;
    const d = drop * width;
    for (let x = 0; x < width; x++) acc[x] = acc[x]! + row[a + x]! - row[d + x]!;
  } else if (add < height) {
    const a = add * width;
    for (let x = 0; x < width; x++) acc[x] = acc[x]! + row[a + x]!;
  } else if (drop >= 0) {
    const d = drop * width;
    for (let x = 0; x < width; x++) acc[x] = acc[x]! - row[d + x]!;
  }
}

/** out[outBase + x] = invalid pixels of row `base` in columns x − r … x + r (clipped). */
function rowMissingCounts(valid: Uint8Array, base: number, width: number, r: number, out: Int32Array, outBase = base): void {
  let s = 0;
  for (let x = 0; x < Math.min(r, width); x++) s += valid[base + x] ? 0 : 1;
  for (let x = 0; x < width; x++) {
    if (x + r < width && !valid[base + x + r]) s++;
    if (x - r - 1 >= 0 && !valid[base + x - r - 1]) s--;
    out[outBase + x] = s;
  }
}

/** One row of boxMean's means from `o` on, every pixel valid: the count is rows · cols[x] (the clipped window's area); sum[x] is the window sum. */
function meanRow(
  out: Float32Array,
  o: number,
  width: number,
  where: Uint8Array,
  sum: Float64Array,
  rows: number,
  cols: Float64Array,
  minFraction: number,
  need: number,
  fallback: ArrayLike<number> | undefined,
): void {
  for (let x = 0; x < width; x++) {
    const i = o + x;
    if (!where[i]) {
      out[i] = Number.NaN;
      continue;
    }
    const c = rows * cols[x]!;
    if (c > 0 && (minFraction <= 0 || c >= need * cols[x]!)) out[i] = sum[x]! / c;
    else out[i] = fallback ? fallback[i]! : Number.NaN;
  }
}

/** meanRow with the counts of a mask with no-data (counts[x]). */
function meanRowCounted(
  out: Float32Array,
  o: number,
  width: number,
  where: Uint8Array,
  sum: Float64Array,
  counts: Float64Array,
  cols: Float64Array,
  minFraction: number,
  need: number,
  fallback: ArrayLike<number> | undefined,
): void {
  for (let x = 0; x < width; x++) {
    const i = o + x;
    if (!where[i]) {
      out[i] = Number.NaN;
      continue;
    }
    const c = counts[x]!;
    if (c > 0 && (minFraction <= 0 || c >= need * cols[x]!)) out[i] = sum[x]! / c;
    else out[i] = fallback ? fallback[i]! : Number.NaN;
  }
}

/**
 * boxMean with its default options (every valid pixel computed, one valid pixel enough, NaN at
 * the others), value for value the same, written over `values` itself: the masked row sums are
 * kept for the 2·ry + 2 rows the running column sums still need (a ring), not for the whole
 * raster. For a caller with no other use for its input (a quicklook's sampled raster): no
 * raster-sized scratch or output — boxMean's row sums are 8 bytes a pixel, and on this machine
 * the first touch of a fresh 42 MB array (a 5 M-value raster) costs ~130 ms CPU in page faults
 * alone. Each row's sums are taken before the row is overwritten; the column sums, the invalid
 * pixels per window and the means are boxMean's operations in boxMean's order.
 */
export function boxMeanInPlace(values: Float32Array, valid: Uint8Array, width: number, height: number, rx: number, ry: number, scratch: BoxScratch = new BoxScratch()): Float32Array {
  const n = width * height;
  if (values.length !== n || valid.length !== n) throw new RangeError(`boxMeanInPlace: arrays must hold ${width} × ${height} values`);
  if (n === 0) return values;
  const r = Math.min(rx, width - 1);
  const cy = Math.min(ry, height - 1);
  const slots = 2 * cy + 2;
  const rowSum = scratch.get('boxRingRow', slots * width);
  const missing = scratch.array('boxRingMissing', Int32Array, slots * width);
  const rowMissing = scratch.array('boxRingRowMissing', Uint8Array, slots);
  const masked = scratch.get('boxMaskedRow', width);
  const cols = windowColumns(width, r, scratch);
  const sum = scratch.get('boxColumnSum', width);
  const absent = scratch.get('boxColumnMissing', width).fill(0);
  let prepared = 0;
  // Row k's masked sums (and, when it has invalid pixels, its invalid counts) into its slot.
  const prepare = (last: number) => {
    for (const to = Math.min(last, height - 1); prepared <= to; prepared++) {
      const k = prepared;
      const o = k * width;
      const at = (k % slots) * width;
      let all = 1;
      for (let x = 0; x < width; x++) {
        const v = values[o + x]!;
        const ok = valid[o + x]!;
        masked[x] = ok && v === v ? v : 0;
        all &= ok !== 0 ? 1 : 0;
      }
      rowSumsOfValues(masked, 0, width, r, rowSum.subarray(at, at + width));
      rowMissing[k % slots] = 1 - all;
      if (!all) rowMissingCounts(valid, o, width, r, missing, at);
    }
  };
  let absentRows = 0;
  for (let y = 0; y < height; y++) {
    prepare(y + cy);
    // boxMean's columnStep over the ring's slots.
    if (y === 0) {
      sum.fill(0);
      for (let k = 0; k <= cy; k++) {
        const base = (k % slots) * width;
        for (let x = 0; x < width; x++) sum[x]! += rowSum[base + x]!;
      }
    } else {
      const add = y + cy;
      const drop = y - cy - 1;
      const a = (add % slots) * width;
      const d = drop >= 0 ? (drop % slots) * width : 0;
      if (add < height && drop >= 0) for (let x = 0; x < width; x++) sum[x] = sum[x]! + rowSum[a + x]! - rowSum[d + x]!;
      else if (add < height) for (let x = 0; x < width; x++) sum[x] = sum[x]! + rowSum[a + x]!;
      else if (drop >= 0) for (let x = 0; x < width; x++) sum[x] = sum[x]! - rowSum[d + x]!;
    }
    // Invalid pixels per window: rows entering (row 0: the first cy + 1) and leaving.
    for (let k = y === 0 ? 0 : y + cy; k <= y + cy && k < height; k++) {
      if (!rowMissing[k % slots]) continue;
      for (let x = 0, m = (k % slots) * width; x < width; x++) absent[x]! += missing[m + x]!;
      absentRows++;
    }
    const drop = y - cy - 1;
    if (drop >= 0 && rowMissing[drop % slots]) {
      for (let x = 0, m = (drop % slots) * width; x < width; x++) absent[x]! -= missing[m + x]!;
      absentRows--;
    }
    const rows = Math.min(height - 1, y + cy) - Math.max(0, y - cy) + 1;
    const o = y * width;
    if (absentRows > 0) {
      for (let x = 0; x < width; x++) values[o + x] = valid[o + x] ? sum[x]! / (rows * cols[x]! - absent[x]!) : Number.NaN;
    } else {
      for (let x = 0; x < width; x++) values[o + x] = valid[o + x] ? sum[x]! / (rows * cols[x]!) : Number.NaN;
    }
  }
  return values;
}
