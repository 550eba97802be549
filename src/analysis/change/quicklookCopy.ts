// The building-change quicklook's copy of the later scene (issue 22): each pair tile pools the
// later date's band it already holds (linear γ0/σ0, on the reference grid) on the quicklook's
// blocks over its core, so the worker's quicklook needs no second read of the scene. The parts
// of a block cut by tile edges are added by the driver (mergePooledValues): the same sums
// whatever the tiling, up to the order of the additions.
//
// The quicklook's strided read (src/analysis/quicklook/sample.ts) takes one line per block (its
// middle line) and the mean of the finite values over each run of runLength pixels; this pools
// exactly that line and those pixels (lines = 1), or `lines` lines centred on it, over the same
// walk as the ship and oil tiles' DN² copy (common/quicklookCopy.ts forEachPooledSpan).

import type { BlockGrid, PooledValues } from '../port.ts';
import { emptyPart, forEachPooledSpan } from '../common/quicklookCopy.ts';
import type { PixelRect } from './tile.ts';

/** Where a tile's read sits on the quicklook's blocks, and which of its bands they pool: plain data, sent with each tile. */
export interface QuicklookPooling {
  grid: BlockGrid;
  /** Which of the later date's rasters (ChangeTileReading's vvIndex / vhIndex) is pooled. */
  band: 'vv' | 'vh';
  /** The later raster's pixel = the reference grid's pixel + (dy, dx) (an 'offset' relation; 0 for 'identical'). */
  dx: number;
  dy: number;
}

/** One tile's share of the copy: blocks [runFrom, runFrom + runs) × [rowFrom, rowFrom + rows). */
export interface PooledValuesPart {
  rowFrom: number;
  runFrom: number;
  rows: number;
  runs: number;
  sum: Float64Array;
  counts: Uint32Array;
}

/**
 * Sums and counts of the finite values of `values` (row-major, `width` wide; its pixel (0, 0) is
 * the grid's raster pixel (origin.row, origin.col)) within `core`, per block of `grid`: only
 * each block's `lines` middle lines, and columns up to grid.x0 + grid.width.
 */
export function poolLinear(values: Float32Array, width: number, core: PixelRect, origin: { row: number; col: number }, grid: BlockGrid): PooledValuesPart {
  const { rowFrom, runFrom, rows, runs, sumDn2: sum, counts } = emptyPart({ x0: origin.col + core.x0, y0: origin.row + core.y0, width: core.width, height: core.height }, grid);
  forEachPooledSpan(width, core, origin, grid, { rowFrom, runFrom, runs }, (k, from, to) => {
    let s = 0;
    let n = 0;
    for (let i = from; i < to; i++) {
      const v = values[i]!;
      // NaN (no data) and ±Infinity left out, as the strided read's run means leave them out.
      if (v - v === 0) {
        s += v;
        n++;
      }
    }
    sum[k]! += s;
    counts[k]! += n;
  });
  return { rowFrom, runFrom, rows, runs, sum, counts };
}

/** An empty copy on `grid`. */
export function emptyPooledValues(grid: BlockGrid): PooledValues {
  return { grid, sum: new Float64Array(grid.rows * grid.runs), counts: new Uint32Array(grid.rows * grid.runs) };
}

/** Adds a tile's part into the copy. */
export function mergePooledValues(into: PooledValues, part: PooledValuesPart): void {
  const { runs } = into.grid;
  for (let r = 0; r < part.rows; r++) {
    const to = (part.rowFrom + r) * runs + part.runFrom;
    const from = r * part.runs;
    for (let c = 0; c < part.runs; c++) {
      into.sum[to + c]! += part.sum[from + c]!;
      into.counts[to + c]! += part.counts[from + c]!;
    }
  }
}
