// The building-change quicklook's copy of the later scene for a GRD pair (detect family, issue
// 22): the quicklook shows the later SAFE in image geometry (a strided read: one line per block,
// DN² averaged over runs of runLength pixels, calibrated at the run's centre), while the pair's
// tiles hold it geocoded onto a UTM grid. Each tile's geocoded read decodes the GRD window its
// pixels map into (imagery/geocode/grdRaster.ts); the read hands those DN over (`onDn`) and the
// tile sums DN² of the picture's blocks there — each block's middle line, the run whole — so
// the quicklook calibrates the sums as the strided read does a run (CalibratedRunSampler.fromSums):
// the same values bit for bit.
//
// The GRD windows of neighbouring tiles overlap, so each block has one owner: the tile whose
// core holds the UTM pixel of the block's centre, mapped image → lon/lat → UTM at a lattice of
// blocks every OWNER_LATTICE blocks (bilinear in between: the same numbers on every thread, so
// exactly one core holds it, or none). A block its owner did not read whole, or that no core
// holds (the picture's window reaches past the analysed region: it is the image-geometry box of
// the AOI's Mercator frame), stays `covered` 0 and the quicklook reads its run itself.
// Pure typed arrays and the raster's own models: runs on the analysis pool's threads.

import type { BlockGrid, PooledBlocks } from '../port.ts';
import type { PixelWindow } from '../../imagery/window.ts';
import type { PixelRect } from './tile.ts';

/** Blocks between exact evaluations of the owner map (bilinear in between). */
const OWNER_LATTICE = 16;

/** A GRD pair's copy: DN² sums and counts per block (PooledBlocks) and which blocks a tile pooled. */
export interface GrdPooledBlocks extends PooledBlocks {
  /** 1 where a tile pooled the block (its sums are the run's); 0 where the quicklook reads it. */
  covered: Uint8Array;
}

/** One tile's share: blocks rowFrom … rowFrom + rows − 1, runFrom … runFrom + runs − 1. */
export interface GrdPooledPart {
  rowFrom: number;
  runFrom: number;
  rows: number;
  runs: number;
  sumDn2: Float64Array;
  counts: Uint32Array;
  covered: Uint8Array;
}

/** Where a GRD pair's tiles pool the quicklook's copy: plain data, sent with each tile. */
export interface GrdQuicklookPooling {
  /** The strided read's own rows and runs over the later SAFE band (quicklook/index.ts grdQuicklookBlockGrid). */
  grid: BlockGrid;
  /** Which of the later date's rasters (ChangeTileReading's vvIndex / vhIndex) is the band shown. */
  band: 'vv' | 'vh';
}

/** What the tile needs of the geocoded raster: image (line, pixel) → lon/lat, and lon/lat → grid (row, col). */
export interface OwnerModel {
  imageToLonLat(line: number, pixel: number): [number, number];
  lonLatToGrid(lon: number, lat: number): { row: number; col: number };
}

export function isGrdPooledBlocks(copy: unknown): copy is GrdPooledBlocks {
  return typeof copy === 'object' && copy !== null && 'covered' in copy && 'sumDn2' in copy;
}

export function emptyGrdPooled(grid: BlockGrid): GrdPooledBlocks {
  const n = grid.rows * grid.runs;
  return { grid, sumDn2: new Float64Array(n), counts: new Uint32Array(n), covered: new Uint8Array(n) };
}

/** Adds a tile's part into the copy (blocks are pooled by one tile only: the sums are that tile's). */
export function mergeGrdPooled(into: GrdPooledBlocks, part: GrdPooledPart): void {
  const { runs } = into.grid;
  for (let r = 0; r < part.rows; r++) {
    const to = (part.rowFrom + r) * runs + part.runFrom;
    const from = r * part.runs;
    for (let c = 0; c < part.runs; c++) {
      into.sumDn2[to + c]! += part.sumDn2[from + c]!;
      into.counts[to + c]! += part.counts[from + c]!;
      into.covered[to + c]! |= part.covered[from + c]!;
    }
  }
}

/**
 * A tile's pooling: `onDn` takes each GRD window its later band's read decodes; `parts()` the
 * blocks it pooled. `core` is the tile's core on the UTM grid (cores partition the region).
 */
export class GrdBlockPooler {
  private readonly nodes = new Map<number, { row: number; col: number }>();
  private readonly done: PixelWindow[] = [];
  private readonly out: GrdPooledPart[] = [];
  private readonly latticeRuns: number;

  constructor(
    private readonly grid: BlockGrid,
    private readonly core: PixelRect,
    private readonly model: OwnerModel,
  ) {
    this.latticeRuns = Math.ceil((grid.runs - 1) / OWNER_LATTICE) + 1;
  }

  /** The grid (row, col) of lattice node (a, b): the centre of block (min(a·L, rows − 1), min(b·L, runs − 1)). */
  private node(a: number, b: number): { row: number; col: number } {
    const key = a * this.latticeRuns + b;
    let hit = this.nodes.get(key);
    if (!hit) {
      const g = this.grid;
      const k = Math.min(a * OWNER_LATTICE, g.rows - 1);
      const j = Math.min(b * OWNER_LATTICE, g.runs - 1);
      const [lon, lat] = this.model.imageToLonLat(g.y0 + k * g.rowStep + (g.rowStep >> 1), g.x0 + j * g.runLength + (g.runLength - 1) / 2);
      hit = this.model.lonLatToGrid(lon, lat);
      this.nodes.set(key, hit);
    }
    return hit;
  }

  /** Whether block (k, j)'s centre falls in this tile's core (the owner map, bilinear between lattice nodes). */
  private owns(k: number, j: number): boolean {
    const g = this.grid;
    const L = OWNER_LATTICE;
    const a = Math.min(Math.floor(k / L), Math.max(0, Math.ceil((g.rows - 1) / L) - 1));
    const b = Math.min(Math.floor(j / L), Math.max(0, this.latticeRuns - 2));
    const ka = a * L;
    const kb = Math.min((a + 1) * L, g.rows - 1);
    const ja = b * L;
    const jb = Math.min((b + 1) * L, g.runs - 1);
    const fy = kb > ka ? (k - ka) / (kb - ka) : 0;
    const fx = jb > ja ? (j - ja) / (jb - ja) : 0;
    const p00 = this.node(a, b);
    const p01 = this.node(a, jb > ja ? b + 1 : b);
    const p10 = this.node(kb > ka ? a + 1 : a, b);
    const p11 = this.node(kb > ka ? a + 1 : a, jb > ja ? b + 1 : b);
    const row = (p00.row * (1 - fx) + p01.row * fx) * (1 - fy) + (p10.row * (1 - fx) + p11.row * fx) * fy;
    const col = (p00.col * (1 - fx) + p01.col * fx) * (1 - fy) + (p10.col * (1 - fx) + p11.col * fx) * fy;
    const r = Math.floor(row + 0.5);
    const c = Math.floor(col + 0.5);
    const { core } = this;
    return r >= core.y0 && r < core.y0 + core.height && c >= core.x0 && c < core.x0 + core.width;
  }

  /** DN of the full-image window `win` (row-major, 0 or `nodata` where there is no data): pools the blocks this tile owns whose run lies whole in it. */
  readonly onDn = (dn: Float32Array, nodata: number, win: PixelWindow): void => {
    const g = this.grid;
    const gridWidth = g.width ?? g.runs * g.runLength;
    const first = g.rowStep >> 1;
    // Block rows whose line is in the window, runs wholly inside its columns.
    const k0 = Math.max(0, Math.ceil((win.y0 - g.y0 - first) / g.rowStep));
    const k1 = Math.min(g.rows - 1, Math.floor((win.y0 + win.height - 1 - g.y0 - first) / g.rowStep));
    const j0 = Math.max(0, Math.ceil((win.x0 - g.x0) / g.runLength));
    // Candidates up to the run starting in the window; a run is taken only when it ends in it (the last run may be cut short where the grid ends).
    const j1 = Math.min(g.runs - 1, Math.floor((win.x0 + win.width - 1 - g.x0) / g.runLength));
    const lastEnd = g.x0 + gridWidth;
    if (k1 < k0 || j1 < j0) {
      this.done.push({ ...win });
      return;
    }
    const rows = k1 - k0 + 1;
    const runs = j1 - j0 + 1;
    const part: GrdPooledPart = { rowFrom: k0, runFrom: j0, rows, runs, sumDn2: new Float64Array(rows * runs), counts: new Uint32Array(rows * runs), covered: new Uint8Array(rows * runs) };
    let any = false;
    for (let k = k0; k <= k1; k++) {
      const line = g.y0 + k * g.rowStep + first;
      const base = (line - win.y0) * win.width - win.x0;
      for (let j = j0; j <= j1; j++) {
        const from = g.x0 + j * g.runLength;
        const to = Math.min(from + g.runLength, lastEnd);
        if (to > win.x0 + win.width) continue;
        if (this.pooledBefore(line, from, to) || !this.owns(k, j)) continue;
        let sum = 0;
        let n = 0;
        // As the strided read's run (safe/overview.ts CalibratedRunSampler.line): DN² summed in order over the valid pixels.
        for (let x = from; x < to; x++) {
          const v = dn[base + x]!;
          if (v === 0 || v === nodata) continue;
          sum += v * v;
          n++;
        }
        const at = (k - k0) * runs + (j - j0);
        part.sumDn2[at] = sum;
        part.counts[at] = n;
        part.covered[at] = 1;
        any = true;
      }
    }
    this.done.push({ ...win });
    if (any) this.out.push(part);
  };

  /** Whether an earlier window of this tile held the run whole (it was pooled there, if owned). */
  private pooledBefore(line: number, from: number, to: number): boolean {
    for (const w of this.done) {
      if (line >= w.y0 && line < w.y0 + w.height && from >= w.x0 && to <= w.x0 + w.width) return true;
    }
    return false;
  }

  /** The blocks pooled so far, one part per GRD window that held any. */
  parts(): GrdPooledPart[] {
    return this.out;
  }
}
