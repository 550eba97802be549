import { ImageryError } from './errors.js';
import { intersectWindows, type PixelWindow } from './window.js';

/**
 * One tile of a plan. `core` tiles the region without overlap; `halo` is the core grown by
 * the halo on every side and clipped to the image, so neighbourhood operators (CFAR
 * windows, speckle filters) see real context at tile borders and write only the core.
 */
export interface Tile {
  index: number;
  row: number;
  col: number;
  core: PixelWindow;
  halo: PixelWindow;
  /** Position of the core inside the halo window (for slicing results). */
  coreInHalo: PixelWindow;
}

export interface TilePlan {
  width: number;
  height: number;
  tileSize: number;
  halo: number;
  /** Region the cores cover (the full image unless a region was given). */
  region: PixelWindow;
  rows: number;
  cols: number;
  /** Row-major, so strip-organised TIFFs are decoded once per row of tiles. */
  tiles: Tile[];
}

/**
 * Tiles of `tileSize` × `tileSize` (the last row/column smaller) over an image, or over
 * `region` of it (e.g. the valid window of a cropped GRD), with `halo` pixels of context.
 */
export function planTiles(width: number, height: number, tileSize: number, halo: number, region?: PixelWindow): TilePlan {
  if (!Number.isInteger(width) || !Number.isInteger(height) || width <= 0 || height <= 0) {
    throw new ImageryError('INVALID_WINDOW', `image size must be positive integers, got ${width}×${height}`);
  }
  if (!Number.isInteger(tileSize) || tileSize <= 0 || !Number.isInteger(halo) || halo < 0) {
    throw new ImageryError('INVALID_WINDOW', `tileSize must be a positive integer and halo ≥ 0, got ${tileSize}/${halo}`);
  }
  const image = { x0: 0, y0: 0, width, height };
  const area = region ? intersectWindows(region, image) : image;
  if (!area) throw new ImageryError('INVALID_WINDOW', `region ${JSON.stringify(region)} is outside the ${width}×${height} image`);

  const rows = Math.ceil(area.height / tileSize);
  const cols = Math.ceil(area.width / tileSize);
  const tiles: Tile[] = [];
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      const x0 = area.x0 + c * tileSize;
      const y0 = area.y0 + r * tileSize;
      const core = {
        x0,
        y0,
        width: Math.min(tileSize, area.x0 + area.width - x0),
        height: Math.min(tileSize, area.y0 + area.height - y0),
      };
      const hx0 = Math.max(0, x0 - halo);
      const hy0 = Math.max(0, y0 - halo);
      const hx1 = Math.min(width, core.x0 + core.width + halo);
      const hy1 = Math.min(height, core.y0 + core.height + halo);
      const haloWindow = { x0: hx0, y0: hy0, width: hx1 - hx0, height: hy1 - hy0 };
      tiles.push({
        index: tiles.length,
        row: r,
        col: c,
        core,
        halo: haloWindow,
        coreInHalo: { x0: x0 - hx0, y0: y0 - hy0, width: core.width, height: core.height },
      });
    }
  }
  return { width, height, tileSize, halo, region: area, rows, cols, tiles };
}

export interface TileResult<T> {
  tile: Tile;
  data: T;
}

/**
 * Read a plan tile by tile: `read(tile.halo, tile)` for each tile in order, with at most
 * `prefetch` further reads in flight (default 1: the next tile loads while the caller
 * works on this one). Memory stays at (1 + prefetch) tiles plus the reader's block cache,
 * whatever the image size.
 */
export async function* readTiles<T>(
  plan: TilePlan | readonly Tile[],
  read: (window: PixelWindow, tile: Tile) => Promise<T>,
  options: { prefetch?: number } = {},
): AsyncGenerator<TileResult<T>, void, undefined> {
  const tiles = Array.isArray(plan) ? (plan as readonly Tile[]) : (plan as TilePlan).tiles;
  const prefetch = Math.max(0, options.prefetch ?? 1);
  const pending: Promise<TileResult<T>>[] = [];
  let next = 0;
  const start = (): void => {
    const tile = tiles[next++]!;
    const request = read(tile.halo, tile).then((data) => ({ tile, data }));
    request.catch(() => {}); // surfaced when awaited below; avoids an unhandled rejection meanwhile
    pending.push(request);
  };
  for (;;) {
    while (next < tiles.length && pending.length < prefetch + 1) start();
    const request = pending.shift();
    if (!request) return;
    const result = await request;
    // While the caller holds this tile, only `prefetch` further reads run.
    while (next < tiles.length && pending.length < prefetch) start();
    yield result;
  }
}

/** Copy the core part of a halo-sized row-major array out (e.g. to stitch results). */
export function extractCore<A extends Float32Array | Uint8Array>(tile: Tile, haloData: A, make: (n: number) => A): A {
  const { coreInHalo, halo } = tile;
  const out = make(coreInHalo.width * coreInHalo.height);
  for (let y = 0; y < coreInHalo.height; y++) {
    const src = (y + coreInHalo.y0) * halo.width + coreInHalo.x0;
    out.set(haloData.subarray(src, src + coreInHalo.width) as never, y * coreInHalo.width);
  }
  return out;
}
