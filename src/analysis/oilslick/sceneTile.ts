// A tile of a scene as detectSlicksInTile (tile.ts) takes it: the land mask first (a tile that
// is land throughout is not read at all), then the VV σ0 of the tile's halo window. The same
// function serves the calling thread (reading through its opened product) and the analysis
// pool, whose task here reads its own tile from the product's source (engine/products.ts), so
// a scene's decoding and land masks never hold the calling thread's event loop. Same inputs
// either way, so the same regions bit for bit. Given the quicklook's blocks, a tile also pools
// its core's DN² on them (the quicklook's copy, common/quicklookCopy.ts) from the DN its σ0 is
// calibrated from, and a land tile reads the few lines of its core the copy needs.

import { rasterizeLandMask, type LandPolygons } from '../../geo/landMask.ts';
// Not src/imagery/index.ts: a pool thread loads this module for its threadTasks, and the
// readers themselves load with a thread's first scene tile (engine/products.ts).
import type { ProductSource, Sigma0Product } from '../../imagery/sigma0/types.ts';
import type { Tile } from '../../imagery/tiles.ts';
import type { PixelWindow } from '../../imagery/window.ts';
import { withOpenedProduct } from '../engine/products.ts';
import { THREAD_DARK_SPOT_SCRATCH, type PixelSpacing } from './darkSpots.ts';
import type { Scratch } from '../../raster/scratch.ts';
import type { OilSlickParams } from './params.ts';
import { detectSlicksInTile, type SlickTileInput, type TileRegions } from './tile.ts';
import { defineThreadTasks } from '../../threads/task.ts';
import { addPart, emptyPart, poolDn2, pooledLines, type PooledPart } from '../common/quicklookCopy.ts';
import type { BlockGrid } from '../port.ts';

/** How a scene's tiles are read: plain data, sent to the pool with each tile. */
export interface SlickTileReading {
  multilook: number;
  /** Full-resolution pixel spacing of the VV band (m). */
  pixelSpacing: PixelSpacing;
  shoreBufferM: number;
  denoise: boolean;
  /** Land polygons: undefined for the default (Natural Earth 10 m, loaded by the reading thread), null for no land mask. */
  land: LandPolygons | null | undefined;
  /** The quicklook's blocks (a SAFE product's VV band): each tile pools its core's DN² on them (SlickTileRead.quicklook). */
  quicklookBlocks?: BlockGrid;
}

/** A tile read: detectSlicksInTile's input (null for a tile of land throughout, not read), and its part of the quicklook's copy when `reading.quicklookBlocks`. */
export interface SlickTileRead {
  input: SlickTileInput | null;
  quicklook?: PooledPart;
}

/**
 * Reads one tile of `product` (its halo window) into detectSlicksInTile's input; null when the
 * tile is land throughout (not read). With `reuse`, σ0 and validity are that scratch's arrays
 * (valid until its next use): a thread that reads and detects its own tiles. With
 * `reading.quicklookBlocks`, also the core's part of the quicklook's copy: DN² summed on the
 * blocks from the DN the σ0 is calibrated from (ReadWindowOptions.onDn: no second read), or for
 * a land tile from the copy's lines of the core read as DN — the lines the strided read would
 * read there, so the copy shows the coast as it does.
 */
export async function readSlickTile(product: Sigma0Product, reading: SlickTileReading, tile: Tile, reuse?: Scratch): Promise<SlickTileRead> {
  const win = tile.halo;
  const { multilook: m, pixelSpacing } = reading;
  const blocks = reading.quicklookBlocks;
  const core = { x0: win.x0 + tile.coreInHalo.x0, y0: win.y0 + tile.coreInHalo.y0, width: tile.coreInHalo.width, height: tile.coreInHalo.height };
  const band = product.bands['VV']!;
  let land: Uint8Array | undefined;
  if (reading.land !== null) {
    const coarse = coarseLandMask(product, win, m, pixelSpacing, reading.shoreBufferM, reading.land);
    if (coarse.cells === coarse.mask.length) return { input: null, ...(blocks ? { quicklook: await poolLines(band, core, blocks) } : {}) };
    // A tile without land (most of a sea scene) needs no mask: no land ≡ a mask of zeros.
    if (coarse.cells > 0) land = expandLandMask(coarse.mask, win, m);
  }
  const n = win.width * win.height;
  const into = reuse ? { data: reuse.array('tileSigma0', Float32Array, n), valid: reuse.array('tileValid', Uint8Array, n) } : undefined;
  // A window outside the measurement is not read (onDn not called): its blocks keep count 0, no data.
  let quicklook = blocks ? emptyPart(core, blocks) : undefined;
  const onDn = blocks ? (dn: Float32Array, nodata: number) => void (quicklook = poolDn2(dn, win.width, tile.coreInHalo, { row: win.y0, col: win.x0 }, blocks, nodata)) : undefined;
  const data = await band.readWindow(win, { quantity: 'sigma0', denoise: reading.denoise, into, ...(onDn ? { onDn } : {}) });
  const input = { sigma0VV: data.data, valid: data.valid, land, width: win.width, height: win.height, pixelSpacing, core: tile.coreInHalo };
  return { input, ...(quicklook ? { quicklook } : {}) };
}

/** The copy's part of `core` (full image) from its pooled lines read as DN, one line at a time (a land tile, whose σ0 is not read). */
async function poolLines(band: Sigma0Product['bands'][string], core: PixelWindow, grid: BlockGrid): Promise<PooledPart> {
  const part = emptyPart(core, grid);
  for (const line of pooledLines(core, grid)) {
    const { data } = await band.readWindow({ x0: core.x0, y0: line, width: core.width, height: 1 }, { quantity: 'dn', denoise: false });
    addPart(part, poolDn2(data, core.width, { x0: 0, y0: 0, width: core.width, height: 1 }, { row: line, col: core.x0 }, grid));
  }
  return part;
}

/** A tile the task reads itself: the scene's source, how to read it, and the tile. */
export interface SlickSceneTile {
  source: ProductSource;
  reading: SlickTileReading;
  tile: Tile;
}

/**
 * Pool task: read the tile from its scene on this thread, then detectSlicksInTile; null for a
 * tile of land throughout. The tile's σ0 is read into this thread's scratch: detectSlicksInTile
 * keeps nothing of its input, and a tile's ~33 MB of fresh arrays cost their page faults and
 * the collections they set off.
 */
export async function detectSlicksInSceneTile(task: SlickSceneTile, params: OilSlickParams): Promise<TileRegions | null> {
  return (await detectSlicksInSceneTileWithCopy(task, params)).regions;
}

/** detectSlicksInSceneTile with the tile's part of the quicklook's copy (when task.reading.quicklookBlocks). */
export async function detectSlicksInSceneTileWithCopy(task: SlickSceneTile, params: OilSlickParams): Promise<{ regions: TileRegions | null; quicklook?: PooledPart }> {
  // A second task on this thread while the first still reads (the pool runs one at a time) gets fresh arrays.
  const reuse = !tileArraysInUse;
  if (reuse) tileArraysInUse = true;
  try {
    const read = await withOpenedProduct(task.source, (product) => readSlickTile(product, task.reading, task.tile, reuse ? THREAD_DARK_SPOT_SCRATCH : undefined));
    return { regions: read.input ? detectSlicksInTile(read.input, params) : null, ...(read.quicklook ? { quicklook: read.quicklook } : {}) };
  } finally {
    if (reuse) tileArraysInUse = false;
  }
}

let tileArraysInUse = false;

/**
 * Land mask of a full-resolution window (a tile's halo, a slick's outline window) whose origin
 * is on the multilook grid. It is rasterised on the multilook grid (m² fewer pixels to fill
 * and dilate; the shore buffer dwarfs the 20 m step) and expanded to full resolution.
 */
export function windowLandMask(product: Sigma0Product, win: PixelWindow, m: number, spacing: PixelSpacing, bufferM: number, land: LandPolygons | undefined): Uint8Array {
  const coarse = coarseLandMask(product, win, m, spacing, bufferM, land);
  return coarse.cells === 0 && m > 1 ? new Uint8Array(win.width * win.height) : expandLandMask(coarse.mask, win, m);
}

/** windowLandMask on the multilook grid (m = 1: the window's own), with its count of land cells. */
function coarseLandMask(product: Sigma0Product, win: PixelWindow, m: number, spacing: PixelSpacing, bufferM: number, land: LandPolygons | undefined): { mask: Uint8Array; cells: number } {
  const w = Math.ceil(win.width / m);
  const h = Math.ceil(win.height / m);
  const c = (m - 1) / 2;
  const mask = rasterizeLandMask({
    width: w,
    height: h,
    pixelToLonLat: (row, col) => product.geolocation.pixelToLonLat(win.y0 + row * m + c, win.x0 + col * m + c),
    bufferMeters: bufferM,
    pixelSpacing: { range: spacing.range * m, azimuth: spacing.azimuth * m },
    land,
  });
  let cells = 0;
  for (let i = 0; i < mask.length; i++) if (mask[i]) cells++;
  return { mask, cells };
}

/** A multilook-grid mask expanded to the full-resolution window (every cell covers ≥ 1 pixel). */
function expandLandMask(coarse: Uint8Array, win: PixelWindow, m: number): Uint8Array {
  if (m === 1) return coarse;
  const w = Math.ceil(win.width / m);
  const out = new Uint8Array(win.width * win.height);
  for (let y = 0; y < win.height; y++) {
    const src = ((y / m) | 0) * w;
    const row = y * win.width;
    for (let x = 0; x < win.width; x++) out[row + x] = coarse[src + ((x / m) | 0)]!;
  }
  return out;
}

/** What the analysis pool may run of this module (src/threads/task.ts). */
export const threadTasks = defineThreadTasks(import.meta.url, { detectSlicksInSceneTile, detectSlicksInSceneTileWithCopy });
