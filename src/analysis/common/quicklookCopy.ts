// The quicklook's copy of a band made by a detector's own tiles (AnalysisOutput.quicklookCopy):
// each tile sums DN² and counts the valid pixels of its core per block of the quicklook's grid
// (BlockGrid: rowStep × runLength full-image pixels, of each block's `lines` middle lines only —
// a pass over every pixel costs more than the strided read it saves); blocks are aligned to the
// grid's origin, so a block cut by a tile edge gets its parts from both tiles and the parts add
// up exactly. The detector merges the parts (mergePooled) and the worker's quicklook calibrates
// and denoises each block mean as the strided read does a run (quicklook/index.ts pooledRaster).
// Used by the ship (ship/tile.ts) and oil-slick (oilslick/sceneTile.ts) tiles; the building
// pair's tiles pool linear values over the same walk (forEachPooledSpan; change/quicklookCopy.ts).
// Pure typed arrays: runs on the analysis pool's threads; imports only the port's types.
import type { BlockGrid, PooledBlocks } from '../port.ts';

/** One tile's part: blocks rowFrom … rowFrom + rows − 1, runFrom … runFrom + runs − 1 of the grid. */
export interface PooledPart {
  rowFrom: number;
  runFrom: number;
  rows: number;
  runs: number;
  sumDn2: Float64Array;
  counts: Uint32Array;
}

/** A full-image window (rows y0 … y0 + height − 1, columns x0 … x0 + width − 1). */
interface Window {
  x0: number;
  y0: number;
  width: number;
  height: number;
}

/** The grid-relative pixel range of `win` (full image) inside the grid's blocks, or null when none. */
function gridRange(win: Window, grid: BlockGrid): { r0: number; r1: number; c0: number; c1: number } | null {
  const r0 = Math.max(0, win.y0 - grid.y0);
  const r1 = Math.min(grid.rows * grid.rowStep, win.y0 + win.height - grid.y0);
  const c0 = Math.max(0, win.x0 - grid.x0);
  const c1 = Math.min(grid.runs * grid.runLength, grid.width ?? Infinity, win.x0 + win.width - grid.x0);
  return r1 > r0 && c1 > c0 ? { r0, r1, c0, c1 } : null;
}

/** A part of zeros over the blocks `win` (full image) reaches; a part of no blocks when it reaches none. */
export function emptyPart(win: Window, grid: BlockGrid): PooledPart {
  const range = gridRange(win, grid);
  if (!range) return { rowFrom: 0, runFrom: 0, rows: 0, runs: 0, sumDn2: new Float64Array(0), counts: new Uint32Array(0) };
  const rowFrom = Math.floor(range.r0 / grid.rowStep);
  const runFrom = Math.floor(range.c0 / grid.runLength);
  const rows = Math.floor((range.r1 - 1) / grid.rowStep) - rowFrom + 1;
  const runs = Math.floor((range.c1 - 1) / grid.runLength) - runFrom + 1;
  return { rowFrom, runFrom, rows, runs, sumDn2: new Float64Array(rows * runs), counts: new Uint32Array(rows * runs) };
}

/** The offset of a block's first pooled line from the block's first line: the `lines` centred on the line the strided read samples (⌊rowStep/2⌋). */
function firstPooledLine(grid: BlockGrid): number {
  return (grid.rowStep >> 1) - (grid.lines >> 1);
}

/**
 * Calls `span(k, from, to)` for each run of pooled pixels of `core` (tile-local; the tile's pixel
 * (0, 0) is full-image `origin`; the tile's rows are `width` long): `k` the block's index in
 * `part` (a part over the blocks `core` reaches: emptyPart), [from, to) the run's indices in the
 * tile's row-major array — each block's `lines` middle lines, cut at the core's and the grid's
 * edges. One walk for every copy: DN² (poolDn2) and linear values (change/quicklookCopy.ts).
 */
export function forEachPooledSpan(
  width: number,
  core: Window,
  origin: { row: number; col: number },
  grid: BlockGrid,
  part: { rowFrom: number; runFrom: number; runs: number },
  span: (k: number, from: number, to: number) => void,
): void {
  const range = gridRange({ x0: origin.col + core.x0, y0: origin.row + core.y0, width: core.width, height: core.height }, grid);
  if (!range) return;
  const { r0, r1, c0, c1 } = range;
  const { rowStep, runLength } = grid;
  const { rowFrom, runFrom, runs } = part;
  // Grid-relative (r, c) → tile-local (r + grid.y0 − origin.row, c + grid.x0 − origin.col).
  const dy = grid.y0 - origin.row;
  const dx = grid.x0 - origin.col;
  const first = firstPooledLine(grid);
  for (let r = r0; r < r1; r++) {
    const inBlock = r % rowStep;
    if (inBlock < first || inBlock >= first + grid.lines) continue;
    const base = (Math.floor(r / rowStep) - rowFrom) * runs - runFrom;
    const line = (r + dy) * width + dx;
    for (let c = c0; c < c1; ) {
      const spanEnd = Math.min(c1, c - (c % runLength) + runLength);
      span(base + Math.floor(c / runLength), line + c, line + spanEnd);
      c = spanEnd;
    }
  }
}

/**
 * Sums of DN² and counts of the valid pixels of `core` (tile-local; the tile's pixel (0, 0) is
 * full-image `origin`) per block of `grid`; pixels outside the grid's blocks are left out. `dn`
 * is DN as read (0 where there is no data; `nodata`, the TIFF's no-data value, is left out too).
 */
export function poolDn2(
  dn: Float32Array,
  width: number,
  core: Window,
  origin: { row: number; col: number },
  grid: BlockGrid,
  nodata = 0,
): PooledPart {
  const part = emptyPart({ x0: origin.col + core.x0, y0: origin.row + core.y0, width: core.width, height: core.height }, grid);
  const { sumDn2, counts } = part;
  forEachPooledSpan(width, core, origin, grid, part, (k, from, to) => {
    let sum = 0;
    let n = 0;
    // DN is 0 wherever the pixel has no data: no branch on a validity mask.
    for (let i = from; i < to; i++) {
      const v = dn[i]!;
      const ok = v !== 0 && v !== nodata;
      sum += ok ? v * v : 0;
      n += ok ? 1 : 0;
    }
    sumDn2[k]! += sum;
    counts[k]! += n;
  });
  return part;
}

/** The full-image lines of `win` that poolDn2 pools (each block's `lines` middle lines), ascending. */
export function pooledLines(win: Window, grid: BlockGrid): number[] {
  const range = gridRange(win, grid);
  if (!range) return [];
  const out: number[] = [];
  const first = firstPooledLine(grid);
  for (let k = Math.floor(range.r0 / grid.rowStep); k * grid.rowStep < range.r1; k++) {
    for (let j = 0; j < grid.lines; j++) {
      const r = k * grid.rowStep + first + j;
      if (r >= range.r0 && r < range.r1) out.push(grid.y0 + r);
    }
  }
  return out;
}

/** Adds `part` into `into` (a part over the same grid that holds every block of `part`). */
export function addPart(into: PooledPart, part: PooledPart): void {
  for (let r = 0; r < part.rows; r++) {
    const to = (part.rowFrom - into.rowFrom + r) * into.runs + part.runFrom - into.runFrom;
    const from = r * part.runs;
    for (let c = 0; c < part.runs; c++) {
      into.sumDn2[to + c]! += part.sumDn2[from + c]!;
      into.counts[to + c]! += part.counts[from + c]!;
    }
  }
}

/** An empty copy on `grid` (every block count 0: no data). */
export function emptyPooled(grid: BlockGrid): PooledBlocks {
  return { grid, sumDn2: new Float64Array(grid.rows * grid.runs), counts: new Uint32Array(grid.rows * grid.runs) };
}

/** Adds a tile's part into the whole copy. */
export function mergePooled(into: PooledBlocks, part: PooledPart): void {
  addPart({ rowFrom: 0, runFrom: 0, rows: into.grid.rows, runs: into.grid.runs, sumDn2: into.sumDn2, counts: into.counts }, part);
}
