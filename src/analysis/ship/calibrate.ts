// σ0 calibration of a tile's DN on the worker thread. Reading a tile (src/imagery) runs on the
// main thread, one tile after another, and was the ship detector's critical path: decoding the
// TIFF strips and calibrating each pixel. The detector therefore reads DN (readWindow quantity
// 'dn': the same decoding and validity, no calibration), the main thread interpolates the few
// calibration LUT vectors that span the tile along range (prepareTileCalibration, cheap), and
// the worker turns DN into σ0 in place (calibrateDnInPlace) before the CFAR.
//
// The arithmetic is src/imagery/safe/calibrate.ts's for σ0 without noise removal, step for step
// (A bilinear between LUT vectors, rounded to float32 as its row buffers are, then squared;
// σ0 = DN² / A², floored), so the values are bit-identical to band.readWindow(…, { quantity:
// 'sigma0', denoise: false }); test/analysis/shipCalibrate.test.ts holds the two together.
// Noise removal (denoise: true) keeps the main-thread path.
//
// From src/imagery only the LUT's interpolation helpers (lut.ts, no further imports), which
// must be the same code for the values to be the same bits.

import type { PixelWindow } from '../../imagery/window.ts';
import { bracket, interpolateVectorRow } from '../../imagery/safe/lut.ts';

/** What the worker needs to calibrate one tile: A_σ along the tile's columns at the LUT vectors spanning its lines. */
export interface TileCalibration {
  /** Lines of all LUT vectors (full image), ascending. */
  lines: Float64Array;
  /** rows[j] is vector firstVector + j interpolated along range over the tile's columns. */
  firstVector: number;
  rows: Float32Array[];
  /** σ0 floor (src/imagery SIGMA_FLOOR_LINEAR unless overridden). */
  floor: number;
}

/** A sparse calibration vector (src/imagery CalibrationVector: line, pixels and the σ0 LUT). */
export interface SigmaVector {
  line: number;
  pixels: ArrayLike<number>;
  sigmaNought: ArrayLike<number>;
}

/** One vector along range over columns x0 … x0 + width − 1 (the LUT's own interpolation). */
function vectorRow(v: SigmaVector, x0: number, width: number): Float32Array {
  return interpolateVectorRow(v.pixels, v.sigmaNought, x0, width);
}

/** Main thread: the LUT vectors that lines window.y0 … y0 + height − 1 interpolate between, along the window's columns. */
export function prepareTileCalibration(vectors: readonly SigmaVector[], window: PixelWindow, floor: number): TileCalibration {
  if (vectors.length === 0) throw new RangeError('prepareTileCalibration: no calibration vectors');
  const lines = Float64Array.from(vectors, (v) => v.line);
  let first = 0;
  let last = 0;
  if (vectors.length > 1) {
    first = bracket(lines, window.y0);
    last = bracket(lines, window.y0 + window.height - 1) + 1;
  }
  const rows: Float32Array[] = [];
  for (let k = first; k <= last; k++) rows.push(vectorRow(vectors[k]!, window.x0, window.width));
  return { lines, firstVector: first, rows, floor };
}

/**
 * Worker: DN (as read with quantity 'dn': 0 where invalid) → σ0 in place, row by row, for a
 * window of `width` × `height` whose first line is full-image line `y0`. Invalid pixels stay 0.
 */
export function calibrateDnInPlace(data: Float32Array, valid: Uint8Array, width: number, height: number, y0: number, cal: TileCalibration): void {
  const { lines, rows, firstVector } = cal;
  // A float64 copy of the floor (as calibrate.ts's calibrateSpan): the select below stays unboxed.
  const floor = cal.floor * 1;
  for (let y = 0; y < height; y++) {
    const row = y * width;
    // One vector: r0 = r1 and t = 0, so A is that vector's value (r + 0 · (r − r) = r for every
    // finite r; an infinite or NaN A floors the pixel either way).
    let t = 0;
    let r0 = rows[0]!;
    let r1 = r0;
    if (lines.length > 1) {
      const line = y0 + y;
      const k = bracket(lines, line);
      const l0 = lines[k]!;
      const l1 = lines[k + 1]!;
      t = l1 > l0 ? Math.min(1, Math.max(0, (line - l0) / (l1 - l0))) : 0;
      r0 = rows[k - firstVector]!;
      r1 = rows[k + 1 - firstVector]!;
    }
    // A per pixel, rounded to float32 as the row buffer it was once stored in (the same bits),
    // and only where there is data: one pass over the row instead of two.
    for (let x = 0; x < width; x++) {
      const i = row + x;
      if (valid[i] === 0) continue;
      const dn = data[i]!;
      const ak = Math.fround(r0[x]! + t * (r1[x]! - r0[x]!));
      const value = (dn * dn) / (ak * ak);
      data[i] = value > floor ? value : floor;
    }
  }
}
