// The near-shore band of a ship tile (issue 23 §1): the pixels within a distance of the tile's
// land mask. detectShipsInTile (tile.ts) judges the candidates whose peak lies in the band by
// the candidate classifier, and the rest of the tile by the default detector. The distance is a
// chamfer distance over blocks of about BLOCK_M metres (a block is land when any of its pixels
// is), so the band's edge is good to a block's diagonal (≈ 70 m). Pure, on typed arrays;
// imports only the shared chamfer transform.

import { chamferInPlace } from '../../raster/chamfer.ts';

/** Block size (m) of the distance transforms. */
export const BLOCK_M = 50;

export interface NearShoreBand {
  /** Pixels per block along rows and columns, and the block grid. */
  block: number;
  rows: number;
  cols: number;
  /** Per block: 1 within the distance of a land block (land blocks included: their land pixels are masked anyway). */
  near: Uint8Array;
  /** The band holds a pixel of the tile's core. */
  reachesCore: boolean;
  /**
   * Tile-local window of the band's sea blocks grown by `marginM` (clipped to the tile): the
   * part of the tile the classifier path needs to look at.
   */
  window: { x0: number; y0: number; width: number; height: number };
}

/** Chamfer distance (m) over a block grid from the blocks where `from` is 1 (Infinity where none). */
function chamfer(from: Uint8Array, rows: number, cols: number, dy: number, dx: number): Float32Array {
  const d = new Float32Array(rows * cols);
  for (let k = 0; k < d.length; k++) d[k] = from[k] ? 0 : Infinity;
  return chamferInPlace(d, rows, cols, dy, dx);
}

/**
 * The band of pixels within `distanceM` of `land` (1 = land), or null when the tile has no land,
 * or no valid sea (`valid` and not land), so no coast. `core`: the tile's own part (tile-local).
 */
export function nearShoreBand(
  land: Uint8Array,
  valid: Uint8Array,
  width: number,
  height: number,
  spacing: { range: number; azimuth: number },
  distanceM: number,
  core: { x0: number; y0: number; width: number; height: number },
  marginM = 0,
): NearShoreBand | null {
  // Open sea (nearly every tile of a scene): one native scan, no blocks.
  if (!land.includes(1)) return null;
  const block = Math.max(1, Math.round(BLOCK_M / Math.min(spacing.range, spacing.azimuth)));
  const rows = Math.ceil(height / block);
  const cols = Math.ceil(width / block);
  const landBlock = new Uint8Array(rows * cols);
  const seaBlock = new Uint8Array(rows * cols);
  let anyLand = false;
  let anySea = false;
  // Row by row, run by run (the masks are 0/1 bytes; the native indexOf finds a run's end): a
  // land run marks its blocks land, and the valid runs between land runs mark theirs sea.
  for (let r = 0; r < height; r++) {
    const base = ((r / block) | 0) * cols;
    const landRow = land.subarray(r * width, (r + 1) * width);
    const validRow = valid.subarray(r * width, (r + 1) * width);
    for (let c = 0; c < width; ) {
      let end = landRow.indexOf(1, c);
      if (end < 0) end = width;
      // Sea: the valid runs in [c, end).
      for (let a = c; a < end; ) {
        const v0 = validRow.indexOf(1, a);
        if (v0 < 0 || v0 >= end) break;
        let v1 = validRow.indexOf(0, v0);
        if (v1 < 0 || v1 > end) v1 = end;
        seaBlock.fill(1, base + ((v0 / block) | 0), base + (((v1 - 1) / block) | 0) + 1);
        anySea = true;
        a = v1;
      }
      if (end === width) break;
      let landEnd = landRow.indexOf(0, end);
      if (landEnd < 0) landEnd = width;
      landBlock.fill(1, base + ((end / block) | 0), base + (((landEnd - 1) / block) | 0) + 1);
      anyLand = true;
      c = landEnd;
    }
  }
  if (!anyLand || !anySea) return null;
  const toLand = chamfer(landBlock, rows, cols, block * spacing.azimuth, block * spacing.range);
  const near = new Uint8Array(rows * cols);
  let [r0, r1, c0, c1] = [rows, -1, cols, -1];
  for (let k = 0; k < near.length; k++) {
    near[k] = toLand[k]! <= distanceM ? 1 : 0;
    if (near[k] && seaBlock[k]) {
      const r = (k / cols) | 0;
      const c = k - r * cols;
      if (r < r0) r0 = r;
      if (r > r1) r1 = r;
      if (c < c0) c0 = c;
      if (c > c1) c1 = c;
    }
  }
  if (r1 < 0) return null; // no valid sea within distanceM of land (distanceM under a block)
  const my = Math.ceil(marginM / spacing.azimuth);
  const mx = Math.ceil(marginM / spacing.range);
  const y0 = Math.max(0, r0 * block - my);
  const x0 = Math.max(0, c0 * block - mx);
  const window = { y0, x0, height: Math.min(height, (r1 + 1) * block + my) - y0, width: Math.min(width, (c1 + 1) * block + mx) - x0 };
  let reachesCore = false;
  const br0 = (core.y0 / block) | 0;
  const br1 = ((core.y0 + core.height - 1) / block) | 0;
  const bc0 = (core.x0 / block) | 0;
  const bc1 = ((core.x0 + core.width - 1) / block) | 0;
  for (let r = br0; r <= br1 && !reachesCore; r++) for (let c = bc0; c <= bc1; c++) if (near[r * cols + c]) (reachesCore = true);
  return { block, rows, cols, near, reachesCore, window };
}

/** Whether tile-local pixel (row, col) lies in the band. */
export function inNearShoreBand(band: NearShoreBand, row: number, col: number): boolean {
  return band.near[((row / band.block) | 0) * band.cols + ((col / band.block) | 0)] === 1;
}
