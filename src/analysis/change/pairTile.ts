// A tile of a pair as detectChangeTileTask (tile.ts) takes it: both dates read on the pre
// image's grid (pairGrid.ts), the AOI mask of the tile's window, its pixel's ground size, and
// its cores' share of the coverage lattice. The same function serves the calling thread
// (reading through its opened rasters) and the analysis pool, whose task here opens the pair
// from its sources (engine/products.ts, once per thread) and reads its own tile, so the
// decoding, resampling and masks never hold the calling thread's event loop. Same inputs
// either way, so the same regions bit for bit.

import { geodesicAreaSqm } from '../../geo/area.ts';
import type { AoiGeometry, Position } from '../../geo/types.ts';
// Types only: a pool thread loads this module for its threadTasks, and the readers
// themselves load with a thread's first pair tile (engine/products.ts).
import type { RasterSource } from '../../imagery/geocode/source.ts';
import type { RasterProduct } from '../../imagery/rtc/raster.ts';
import type { Tile } from '../../imagery/tiles.ts';
import type { PixelWindow } from '../../imagery/window.ts';
import { withOpenedRasters } from '../engine/products.ts';
import { rasterizeAoi, type PixelEdges } from './aoiMask.ts';
import { readOnReferenceGrid, type GridRelation } from './pairGrid.ts';
import { tileDetections, type TileDetections } from './regionPolygons.ts';
import { detectChangeTileTask, type ChangeTileInput, type ChangeTileOptions } from './tile.ts';
import { poolLinear, type PooledValuesPart, type QuicklookPooling } from './quicklookCopy.ts';
import { defineThreadTasks } from '../../threads/task.ts';

/** How a pair's tiles are read: plain data, sent to the pool with each tile. */
export interface ChangeTileReading {
  /** How the post grid relates to the pre grid (the reference: the first pre raster). */
  relation: GridRelation;
  /** Index of VV and of VH among each date's rasters (−1: not used). */
  vvIndex: number;
  vhIndex: number;
  /** The AOI in the reference's pixel space. */
  edges: PixelEdges;
  /** The analysed region and its coverage lattice's cell size (f × f pixels). */
  region: PixelWindow;
  cell: number;
  /** Pixel size (m) from the geotransform, when the geodesic one cannot be had. */
  nominalPixelM: number;
  /** The quicklook's blocks the later date's band is pooled on (quicklookCopy.ts); absent: no copy. */
  quicklook?: QuicklookPooling;
}

/** A tile's cores' counts on the coverage lattice: cells [x0, x0 + width) × [y0, y0 + height), pixels inside the AOI and of those valid in both dates. */
export interface LatticeCounts {
  x0: number;
  y0: number;
  width: number;
  height: number;
  inside: Int32Array;
  valid: Int32Array;
}

/** A read tile: the task's input, the AOI mask (kept for clipping polygons), the pixel size and the lattice counts. */
export interface ChangeTileRead {
  input: ChangeTileInput;
  inside: Uint8Array;
  pixelSizeM: number;
  lattice: LatticeCounts;
  /** The tile core's share of the quicklook's copy (when the reading asks for one). */
  quicklook?: PooledValuesPart;
}

/** Geodesic area of one pixel (m²) around the middle of a window: corners through lon/lat. */
function pixelAreaSqm(raster: RasterProduct, window: PixelWindow): number {
  const ring: Position[] = [];
  const steps = 4;
  const corner = (x: number, y: number): Position => raster.pixelToLonLat(y - 0.5, x - 0.5);
  const { x0, y0, width: w, height: h } = window;
  for (let i = 0; i < steps; i++) ring.push(corner(x0 + (w * i) / steps, y0));
  for (let i = 0; i < steps; i++) ring.push(corner(x0 + w, y0 + (h * i) / steps));
  for (let i = 0; i < steps; i++) ring.push(corner(x0 + w - (w * i) / steps, y0 + h));
  for (let i = 0; i < steps; i++) ring.push(corner(x0, y0 + h - (h * i) / steps));
  ring.push(ring[0]!);
  return geodesicAreaSqm({ type: 'Polygon', coordinates: [ring] }) / (w * h);
}

/**
 * The part of a tile's read (halo-local) it pools for the quicklook: its core, grown to the
 * halo's edge on each side where the core ends at the region's edge — the picture's blocks
 * reach a little past the analysed region (the AOI's pixel centres: an output pixel at the
 * AOI's edge may show the pixel just outside), and the cores alone would leave those blank.
 * Cores partition the region, so the grown parts do not overlap either.
 */
function pooledRect(tile: Tile, region: PixelWindow): PixelWindow {
  const { core, coreInHalo, halo } = tile;
  const x0 = core.x0 === region.x0 ? 0 : coreInHalo.x0;
  const y0 = core.y0 === region.y0 ? 0 : coreInHalo.y0;
  const x1 = core.x0 + core.width === region.x0 + region.width ? halo.width : coreInHalo.x0 + coreInHalo.width;
  const y1 = core.y0 + core.height === region.y0 + region.height ? halo.height : coreInHalo.y0 + coreInHalo.height;
  return { x0, y0, width: x1 - x0, height: y1 - y0 };
}

/** Reads one tile of the pair (`pre[0]` the reference grid) into detectChangeTileTask's input. */
export async function readChangeTile(pre: readonly RasterProduct[], post: readonly RasterProduct[], reading: ChangeTileReading, tile: Tile): Promise<ChangeTileRead> {
  const reference = pre[0]!;
  const w = tile.halo;
  const [preRead, postRead] = await Promise.all([
    readOnReferenceGrid(reference, pre, { kind: 'identical' }, w),
    readOnReferenceGrid(reference, post, reading.relation, w),
  ]);
  const inside = rasterizeAoi(reading.edges, w);
  const pixelSizeM = Math.sqrt(pixelAreaSqm(reference, tile.core)) || reading.nominalPixelM;

  // Coverage lattice, from the core pixels (cores partition the region).
  const { region, cell: f } = reading;
  const { coreInHalo } = tile;
  const lx0 = Math.floor((tile.core.x0 - region.x0) / f);
  const ly0 = Math.floor((tile.core.y0 - region.y0) / f);
  const lw = Math.floor((tile.core.x0 + tile.core.width - 1 - region.x0) / f) - lx0 + 1;
  const lh = Math.floor((tile.core.y0 + tile.core.height - 1 - region.y0) / f) - ly0 + 1;
  const lattice: LatticeCounts = { x0: lx0, y0: ly0, width: lw, height: lh, inside: new Int32Array(lw * lh), valid: new Int32Array(lw * lh) };
  const cellOfColumn = new Int32Array(coreInHalo.width);
  for (let x = 0; x < coreInHalo.width; x++) cellOfColumn[x] = Math.floor((w.x0 + x + coreInHalo.x0 - region.x0) / f) - lx0;
  const preValid = preRead.valid;
  const postValid = postRead.valid;
  for (let y = 0; y < coreInHalo.height; y++) {
    const hy = y + coreInHalo.y0;
    const rowBase = (Math.floor((w.y0 + hy - region.y0) / f) - ly0) * lw;
    const base = hy * w.width + coreInHalo.x0;
    for (let x = 0; x < coreInHalo.width; x++) {
      const i = base + x;
      if (!inside[i]) continue;
      const c = rowBase + cellOfColumn[x]!;
      lattice.inside[c]!++;
      lattice.valid[c]! += preValid[i]! & postValid[i]!;
    }
  }

  const pick = (read: { data: Float32Array[] }, index: number): Float32Array | undefined => (index >= 0 ? read.data[index] : undefined);
  const input: ChangeTileInput = {
    pre: { vv: pick(preRead, reading.vvIndex), vh: pick(preRead, reading.vhIndex) },
    post: { vv: pick(postRead, reading.vvIndex), vh: pick(postRead, reading.vhIndex) },
    validPre: preValid,
    validPost: postValid,
    inside,
    width: w.width,
    height: w.height,
    pixelSizeM,
    core: coreInHalo,
  };
  // The quicklook's copy of the later band, pooled from the values just read (before the task filters anything).
  const ql = reading.quicklook;
  const qlBand = ql ? pick(postRead, ql.band === 'vv' ? reading.vvIndex : reading.vhIndex) : undefined;
  const quicklook = ql && qlBand ? poolLinear(qlBand, w.width, pooledRect(tile, region), { row: w.y0 + ql.dy, col: w.x0 + ql.dx }, ql.grid) : undefined;
  return { input, inside, pixelSizeM, lattice, ...(quicklook ? { quicklook } : {}) };
}

/** A tile the task reads itself: each date's raster sources (as openRasterSources opens them, pre first), how to read them, the tile, and the AOI its polygons are clipped to. */
export interface ChangePairTile {
  pre: RasterSource[];
  post: RasterSource[];
  reading: ChangeTileReading;
  tile: Tile;
  aoi: AoiGeometry;
}

/** What the pool task returns: the tile's polygons (traced and clipped on the task's thread) and what the merge counts of its read. */
export interface ChangePairTileResult {
  detections: TileDetections;
  /** Core pixels valid in both dates and inside the AOI. */
  validCount: number;
  pixelSizeM: number;
  lattice: LatticeCounts;
  quicklook?: PooledValuesPart;
}

/**
 * Pool task: open the pair on this thread (or reuse it), read the tile, detectChangeTileTask,
 * then trace and clip the tile's regions to polygons on the reference grid — so the job's own
 * thread (scaled out: its worker) only appends them, whichever worker ran the tile.
 */
export async function detectChangeInPairTile(task: ChangePairTile, options: Omit<ChangeTileOptions, 'scratch'>): Promise<ChangePairTileResult> {
  const n = task.pre.length;
  return withOpenedRasters([...task.pre, ...task.post], async (rasters) => {
    const read = await readChangeTile(rasters.slice(0, n), rasters.slice(n), task.reading, task.tile);
    const result = detectChangeTileTask(read.input, options);
    const detections = tileDetections(result, task.tile.halo, read.inside, rasters[0]!, task.aoi);
    return { detections, validCount: result.validCount, pixelSizeM: read.pixelSizeM, lattice: read.lattice, ...(read.quicklook ? { quicklook: read.quicklook } : {}) };
  });
}

/** What the analysis pool may run of this module (src/threads/task.ts). */
export const threadTasks = defineThreadTasks(import.meta.url, { detectChangeInPairTile });
