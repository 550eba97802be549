// A tile of a scene as detectShipsInTile (tile.ts) takes it: both bands read (DN, or σ0 when
// noise is removed), their valid masks joined, the land mask rasterised and the calibration
// vectors spanning the tile interpolated. The same function serves the main thread (reading
// through the caller's opened product) and the analysis pool, whose tasks here read their own
// tile from the product's source (engine/products.ts), so a scene's decoding and calibration
// never hold the main thread's event loop. Same inputs either way, so the same detections bit
// for bit. A pool task reads into its thread's scratch (raster/scratch.ts): fresh tile arrays
// cost more in page faults than reading them (≈ 13 ns per float32 pixel on the bench box).

import { rasterizeLandMasks } from '../../geo/landMask.ts';
// Not src/imagery/index.ts: a pool thread loads this module for its threadTasks, and the
// readers themselves load with a thread's first scene tile (engine/products.ts).
import { isSafeProduct, type ProductSource, type Sigma0Product } from '../../imagery/sigma0/types.ts';
import type { Tile } from '../../imagery/tiles.ts';
import { withOpenedProduct } from '../engine/products.ts';
import { prepareTileCalibration } from './calibrate.ts';
import type { ShipParams } from './params.ts';
import { detectShipsInTile, detectShipsInTileWithSources, type PooledSources, type ShipDetection, type ShipTileInput } from './tile.ts';
import { defineThreadTasks } from '../../threads/task.ts';
import { Scratch } from '../../raster/scratch.ts';
import type { BlockGrid } from '../port.ts';
import type { PooledPart } from '../common/quicklookCopy.ts';

/** How a scene's tiles are read: plain data, sent to the pool with each tile. */
export interface ShipTileReading {
  /** Polarisation of the cross-pol (vh) and co-pol (vv) band read, e.g. 'VH', 'VV'. */
  vh?: string;
  vv?: string;
  /** Read DN and let detectShipsInTile calibrate it (SAFE without noise removal); else read σ0 (denoised when `denoise`). */
  calibrateOnTask: boolean;
  /** σ0 floor of that calibration (src/imagery SIGMA_FLOOR_LINEAR). */
  floor: number;
  denoise: boolean;
  landMask: boolean;
  landBufferM: number;
  pixelSpacing: { range: number; azimuth: number };
  /** The quicklook's blocks, pooled by each tile's task (ShipTileInput.quicklookBlocks). */
  quicklookBlocks?: BlockGrid;
}

/**
 * Reads one tile of `product` (its halo window) into detectShipsInTile's input. With `reuse`,
 * the bands, their validity and the land mask are that scratch's arrays (overwritten by the
 * next tile read with it): the caller keeps nothing of the input past the tile's detection.
 */
export async function readShipTile(product: Sigma0Product, reading: ShipTileReading, tile: Tile, reuse?: Scratch): Promise<ShipTileInput> {
  const win = tile.halo;
  const n = win.width * win.height;
  const safe = isSafeProduct(product) ? product : null;
  const readOptions = reading.calibrateOnTask ? { quantity: 'dn' as const, denoise: false } : { quantity: 'sigma0' as const, denoise: reading.denoise };
  const into = (name: string) => (reuse ? { into: { data: reuse.array(`shipTile.${name}`, Float32Array, n), valid: reuse.array(`shipTile.${name}Valid`, Uint8Array, n) } } : {});
  const band = (pol: string | undefined) => (pol === undefined ? undefined : product.bands[pol]!);
  const [vh, vv] = await Promise.all([band(reading.vh)?.readWindow(win, { ...readOptions, ...into('vh') }), band(reading.vv)?.readWindow(win, { ...readOptions, ...into('vv') })]);
  let valid = (vh ?? vv)!.valid;
  if (vh && vv) {
    // A scratch array is this read's own: joined in place.
    if (!reuse) valid = valid.slice();
    const other = vv.valid;
    for (let i = 0; i < n; i++) valid[i] = valid[i]! & other[i]!;
  }
  let land: Uint8Array | undefined;
  let landUnbuffered: Uint8Array | undefined;
  if (reading.landMask) {
    const geolocation = product.geolocation;
    ({ land, unbuffered: landUnbuffered } = rasterizeLandMasks({
      width: win.width,
      height: win.height,
      pixelToLonLat: (r, c) => geolocation.pixelToLonLat(win.y0 + r, win.x0 + c),
      lonLatToPixel: (lon, lat) => {
        const p = geolocation.lonLatToPixel(lon, lat);
        return [p.line - win.y0, p.pixel - win.x0];
      },
      bufferMeters: reading.landBufferM,
      pixelSpacing: reading.pixelSpacing,
      ...(reuse ? { scratch: reuse } : {}),
    }));
  }
  const vectors = (pol: string | undefined) => {
    if (!reading.calibrateOnTask || pol === undefined) return undefined;
    if (!safe) throw new RangeError('readShipTile: DN calibration needs a SAFE product');
    return prepareTileCalibration(safe.bands[pol]!.calibration.vectors, win, reading.floor);
  };
  const calVh = vh ? vectors(reading.vh) : undefined;
  const calVv = vv ? vectors(reading.vv) : undefined;
  return {
    sigma0: { ...(vh ? { vh: vh.data } : {}), ...(vv ? { vv: vv.data } : {}) },
    valid,
    ...(land ? { land } : {}),
    ...(landUnbuffered && landUnbuffered !== land ? { landUnbuffered } : {}),
    width: win.width,
    height: win.height,
    pixelSpacing: reading.pixelSpacing,
    core: tile.coreInHalo,
    origin: { row: win.y0, col: win.x0 },
    ...(reading.quicklookBlocks ? { quicklookBlocks: reading.quicklookBlocks } : {}),
    ...(reading.calibrateOnTask ? { calibrate: { ...(calVh ? { vh: calVh } : {}), ...(calVv ? { vv: calVv } : {}) } } : {}),
  };
}

/** A tile the task reads itself: the scene's source, how to read it, and the tile. */
export interface ShipSceneTile {
  source: ProductSource;
  reading: ShipTileReading;
  tile: Tile;
}

/** This thread's tile arrays (readShipTile's `reuse`), and whether a task is using them. */
const THREAD_TILE_SCRATCH = new Scratch();
let tileArraysInUse = false;

/**
 * Reads the task's tile into this thread's scratch and runs `detect` on it: the detector keeps
 * nothing of its input (its results are new arrays, cloned to the caller). A second task on
 * this thread while the first still runs (the pool runs one at a time) gets fresh arrays.
 */
async function withSceneTile<T>(task: ShipSceneTile, detect: (input: ShipTileInput) => T): Promise<T> {
  const reuse = !tileArraysInUse;
  if (reuse) tileArraysInUse = true;
  try {
    const input = await withOpenedProduct(task.source, (product) => readShipTile(product, task.reading, task.tile, reuse ? THREAD_TILE_SCRATCH : undefined));
    return detect(input);
  } finally {
    if (reuse) tileArraysInUse = false;
  }
}

/** Pool task: read the tile from its scene on this thread, then detectShipsInTile. */
export function detectShipsInSceneTile(task: ShipSceneTile, params: ShipParams): Promise<ShipDetection[]> {
  return withSceneTile(task, (input) => detectShipsInTile(input, params));
}

/** Pool task: read the tile from its scene on this thread, then detectShipsInTileWithSources. */
export function detectShipsInSceneTileWithSources(task: ShipSceneTile, params: ShipParams): Promise<{ detections: ShipDetection[]; sources: PooledSources; quicklook?: PooledPart }> {
  return withSceneTile(task, (input) => detectShipsInTileWithSources(input, params));
}

/** What the analysis pool may run of this module (src/threads/task.ts). */
export const threadTasks = defineThreadTasks(import.meta.url, { detectShipsInSceneTile, detectShipsInSceneTileWithSources });
