/**
 * Main-thread half of a quicklook: where each output pixel falls in the source image (a
 * lattice of exact inverse mappings, interpolated on the worker thread), and the source
 * sampled at about one row and one run of pixels per output pixel — read on the analysis pool
 * when another thread can open the source (sampleTask.ts), else here.
 */
import { bboxOf } from '../../geo/index.ts';
import type { AoiGeometry } from '../../geo/types.ts';
import { intersectWindows, type PixelWindow } from '../../imagery/index.ts';
import { mercatorGrid, mercatorToLonLat, type MercatorGrid } from './mercator.ts';
import { groundSpacing, type QuicklookSource } from './source.ts';
import { runTileTask } from '../engine/pool.ts';
import { threadTasks as sampleTasks } from './sampleTask.ts';

/** Pool tasks a pooled strided read is cut into (bands of rows): enough to keep every thread busy to the end. */
const POOLED_CHUNKS = 8;

/** Output pixels between lattice nodes: the exact inverse is evaluated there, bilinear in between. */
export const LATTICE_STEP = 64;
/** The long side of every quicklook and overlay, at most. */
export const MAX_SIDE = 2048;

/** Source (row, col) at output pixels (min(i·step, width−1), min(j·step, height−1)); NaN where the model has none. */
export interface Lattice {
  step: number;
  nx: number;
  ny: number;
  rows: Float64Array;
  cols: Float64Array;
}

/** The source sampled: row k is source row firstRow + k·rowStep; value j the mean of columns x0 + j·runLength … + runLength − 1. */
export interface SampledRaster {
  data: Float32Array;
  rows: number;
  runs: number;
  firstRow: number;
  rowStep: number;
  x0: number;
  runLength: number;
}

export interface Sampled {
  grid: MercatorGrid;
  lattice: Lattice;
  raster: SampledRaster;
}

const yieldToLoop = () => new Promise<void>((r) => setImmediate(r));

function latticeShape(grid: MercatorGrid): { step: number; nx: number; ny: number } {
  const step = LATTICE_STEP;
  return { step, nx: grid.width > 1 ? Math.ceil((grid.width - 1) / step) + 1 : 1, ny: grid.height > 1 ? Math.ceil((grid.height - 1) / step) + 1 : 1 };
}

/** Lattice row j: the exact inverse at each node. */
function latticeRow(grid: MercatorGrid, source: QuicklookSource, lattice: Lattice, j: number): void {
  const { step, nx } = lattice;
  const py = Math.min(j * step, grid.height - 1) + 0.5;
  for (let i = 0; i < nx; i++) {
    const px = Math.min(i * step, grid.width - 1) + 0.5;
    const [lon, lat] = mercatorToLonLat(grid.x0 + px * grid.pixel, grid.y0 - py * grid.pixel);
    const p = source.lonLatToPixel(lon, lat);
    lattice.rows[j * nx + i] = p.row;
    lattice.cols[j * nx + i] = p.col;
  }
}

function emptyLattice(grid: MercatorGrid): Lattice {
  const { step, nx, ny } = latticeShape(grid);
  return { step, nx, ny, rows: new Float64Array(nx * ny), cols: new Float64Array(nx * ny) };
}

async function latticeOf(grid: MercatorGrid, source: QuicklookSource): Promise<Lattice> {
  const lattice = emptyLattice(grid);
  for (let j = 0; j < lattice.ny; j++) {
    latticeRow(grid, source, lattice, j);
    // A SAFE band's inverse is a Newton solve per node: let the loop breathe between lattice rows.
    await yieldToLoop();
  }
  return lattice;
}

/** The source pixels the lattice reaches, grown by `margin`, within the source's data. */
function sourceWindow(lattice: Lattice, source: QuicklookSource, margin: number): PixelWindow | null {
  let r0 = Infinity;
  let r1 = -Infinity;
  let c0 = Infinity;
  let c1 = -Infinity;
  for (let k = 0; k < lattice.rows.length; k++) {
    const r = lattice.rows[k]!;
    const c = lattice.cols[k]!;
    if (!Number.isFinite(r) || !Number.isFinite(c)) continue;
    r0 = Math.min(r0, r);
    r1 = Math.max(r1, r);
    c0 = Math.min(c0, c);
    c1 = Math.max(c1, c);
  }
  if (!(r1 >= r0 && c1 >= c0)) return null;
  const x0 = Math.floor(c0) - margin;
  const y0 = Math.floor(r0) - margin;
  return intersectWindows(source.window, { x0, y0, width: Math.ceil(c1) + margin + 1 - x0, height: Math.ceil(r1) + margin + 1 - y0 });
}

/**
 * The output grid over `extent` (or the source's footprint) and the sampling steps: source
 * rows between sampled rows and pixels per run, about one output pixel on the ground each.
 */
export function samplingSteps(source: QuicklookSource, extent: AoiGeometry | null): { grid: MercatorGrid; rowStep: number; runLength: number } {
  const spacing = groundSpacing(source);
  const finest = Math.min(spacing.col, spacing.row);
  if (!(finest > 0)) throw new Error('the source has no usable pixel spacing');
  const grid = mercatorGrid(bboxOf(extent ?? source.footprint), finest, MAX_SIDE);
  // Ground size of an output pixel: Mercator metres × cos(latitude) at the grid's middle.
  const midLat = ((grid.bounds[1] + grid.bounds[3]) / 2) * (Math.PI / 180);
  const groundPixel = grid.pixel * Math.cos(midLat);
  const rowStep = Math.max(1, Math.floor(groundPixel / spacing.row));
  const runLength = Math.max(1, Math.floor(groundPixel / spacing.col));
  return { grid, rowStep, runLength };
}

/** The strided read's window (the lattice's reach grown by a block), its first sampled row, and its rows and runs. */
function stridedRows(lattice: Lattice, source: QuicklookSource, rowStep: number, runLength: number): { window: PixelWindow; firstRow: number; rows: number; runs: number } {
  const window = sourceWindow(lattice, source, Math.max(rowStep, runLength) + 1);
  if (!window) throw new Error('the extent does not overlap the image');
  const firstRow = window.y0 + (rowStep >> 1);
  const rows = Math.max(0, Math.floor((window.y0 + window.height - 1 - firstRow) / rowStep) + 1);
  const runs = Math.ceil(window.width / runLength);
  return { window, firstRow, rows, runs };
}

/**
 * What the strided read over `extent` would read, worked out at once (the lattice without
 * yielding: cheap for a map-grid raster, ≤ 33 × 33 proj4 inversions): its steps, window, rows
 * and runs — so a detector can pool the same blocks (building change: change/quicklookCopy.ts).
 */
export function stridedPlan(source: QuicklookSource, extent: AoiGeometry | null): { rowStep: number; runLength: number; window: PixelWindow; firstRow: number; rows: number; runs: number } {
  const { grid, rowStep, runLength } = samplingSteps(source, extent);
  const lattice = emptyLattice(grid);
  for (let j = 0; j < lattice.ny; j++) latticeRow(grid, source, lattice, j);
  return { rowStep, runLength, ...stridedRows(lattice, source, rowStep, runLength) };
}

/**
 * The output grid over `extent` (or the source's footprint), the lattice, and the source
 * read at about one row per output pixel (rows `rowStep` apart, each averaged over runs of
 * `runLength` pixels): a strided read, so a whole scene costs a fraction of its pixels.
 */
export async function sampleSource(
  source: QuicklookSource,
  extent: AoiGeometry | null,
  opts: {
    signal?: AbortSignal;
    concurrency?: number;
    /** The source already pooled on blocks of rowStep × runLength (the detector's copy: common/quicklookCopy.ts poolDn2): used instead of the strided read when it returns a raster. */
    pooled?: (rowStep: number, runLength: number) => Promise<SampledRaster | null>;
  } = {},
): Promise<Sampled> {
  const { grid, rowStep, runLength } = samplingSteps(source, extent);
  const lattice = await latticeOf(grid, source);
  opts.signal?.throwIfAborted();
  const pooled = await opts.pooled?.(rowStep, runLength);
  if (pooled) return { grid, lattice, raster: pooled };
  const { window, firstRow, rows, runs } = stridedRows(lattice, source, rowStep, runLength);
  const data = new Float32Array(rows * runs);
  const raster = { data, rows, runs, firstRow, rowStep, x0: window.x0, runLength };
  if (source.pooled && rows > 0) {
    const per = Math.ceil(rows / Math.min(rows, POOLED_CHUNKS));
    const bands = Array.from({ length: Math.ceil(rows / per) }, (_, b) => ({ from: b * per, count: Math.min(per, rows - b * per) }));
    await Promise.all(
      bands.map(async ({ from, count }) => {
        const input = { ...source.pooled!, x0: window.x0, width: window.width, runLength, first: firstRow + from * rowStep, step: rowStep, count };
        data.set(await runTileTask({ task: sampleTasks.sampleRows, input }, [], opts.signal), from * runs);
      }),
    );
    return { grid, lattice, raster };
  }
  const read = source.runReader(window.x0, window.width, runLength);
  let next = 0;
  const worker = async () => {
    for (;;) {
      const k = next++;
      if (k >= rows) return;
      opts.signal?.throwIfAborted();
      data.set(await read(firstRow + k * rowStep), k * runs);
    }
  };
  await Promise.all(Array.from({ length: Math.min(rows, opts.concurrency ?? 4) }, worker));
  return { grid, lattice, raster };
}
