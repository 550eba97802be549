/**
 * One oil-slick tile: dark spots against the local background, labelled regions, and the
 * parts of each region inside the tile's core plus the labels along the core's edges (for
 * mergeTileRegions in detect.ts). Pure typed arrays in and out: this is what runs on the
 * analysis worker threads (src/analysis/engine), so it imports no reader (src/imagery would
 * pull geotiff and its worker shim into the thread).
 */
import { darkSpotSupportPx, detectDarkSpots, labelRegions, THREAD_DARK_SPOT_SCRATCH, type PixelSpacing } from './darkSpots.ts';
import { measureRegionParts, measureSupportPx, type RegionPart } from './discriminate.ts';
import { DEFAULT_OIL_SLICK_PARAMS, type OilSlickParams } from './params.ts';
import type { PixelWindow } from '../../imagery/window.ts';
import { defineThreadTasks } from '../../threads/task.ts';

export interface SlickTileInput {
  /** Linear σ0 VV of the tile's halo window, row-major width × height. */
  sigma0VV: Float32Array;
  valid: Uint8Array;
  /** 1 on land (shore buffer included). */
  land?: Uint8Array;
  width: number;
  height: number;
  /** Metres between full-resolution columns (range) and rows (azimuth). */
  pixelSpacing: PixelSpacing;
  /**
   * The tile's core in this array's pixel coordinates. With multilook m, the array's origin
   * must lie on the global m-grid and core.x0/core.y0 must be multiples of m (a core may end
   * off the grid only at the image edge).
   */
  core: PixelWindow;
}

export interface TileRegions {
  multilook: number;
  /** Working-grid size of the tile and working-pixel spacing (m). */
  width: number;
  height: number;
  spacing: PixelSpacing;
  /** The core in working pixels of this tile. */
  core: PixelWindow;
  /** Each region's part inside the core (tile-local working coordinates). */
  parts: RegionPart[];
  /** Region labels (0 none) along the core's first/last row and first/last column. */
  edges: { top: Int32Array; bottom: Int32Array; left: Int32Array; right: Int32Array };
}

/**
 * The halo (full-resolution pixels) a tile needs for its core to match a whole-image pass:
 * the dark-spot filters plus what measurements look at, rounded up to the multilook grid.
 */
export function requiredHaloPx(params: OilSlickParams, pixelSpacing: PixelSpacing): number {
  const m = params.multilook;
  const spacing = { range: pixelSpacing.range * m, azimuth: pixelSpacing.azimuth * m };
  return m * (darkSpotSupportPx(params, spacing) + measureSupportPx(params, spacing) + 1);
}

export function minPixels(params: OilSlickParams, spacing: PixelSpacing): number {
  return Math.ceil((params.minAreaSqkm * 1e6) / (spacing.range * spacing.azimuth));
}

/**
 * Dark regions of one tile: pure typed arrays in and out, so it can run in a worker thread.
 * Returns the parts of the regions inside the core; merge tiles with `mergeTileRegions`.
 */
export function detectSlicksInTile(input: SlickTileInput, params: OilSlickParams = { ...DEFAULT_OIL_SLICK_PARAMS }): TileRegions {
  const m = params.multilook;
  const { core } = input;
  if (core.x0 % m !== 0 || core.y0 % m !== 0) throw new RangeError(`detectSlicksInTile: core origin must be a multiple of multilook ${m}`);
  if (core.x0 < 0 || core.y0 < 0 || core.x0 + core.width > input.width || core.y0 + core.height > input.height) {
    throw new RangeError('detectSlicksInTile: core must lie inside the tile');
  }
  const map = detectDarkSpots(
    { sigma0: input.sigma0VV, valid: input.valid, land: input.land, width: input.width, height: input.height, pixelSpacing: input.pixelSpacing },
    params,
    // The map and labels are this thread's arrays, reused by its next tile: nothing below keeps them.
    THREAD_DARK_SPOT_SCRATCH,
  );
  const lab = labelRegions(map.dark, map.width, map.height, THREAD_DARK_SPOT_SCRATCH);
  const wx0 = core.x0 / m;
  const wy0 = core.y0 / m;
  const wcore = {
    x0: wx0,
    y0: wy0,
    width: Math.ceil((core.x0 + core.width) / m) - wx0,
    height: Math.ceil((core.y0 + core.height) / m) - wy0,
  };
  const { parts, kept } = measureRegionParts(map, lab, wcore, params, minPixels(params, map.spacing));
  const w = map.width;
  const strip = (x0: number, y0: number, dx: number, dy: number, n: number): Int32Array => {
    const out = new Int32Array(n);
    for (let k = 0; k < n; k++) {
      const l = lab.labels[(y0 + k * dy) * w + x0 + k * dx]!;
      out[k] = kept[l] ? l : 0;
    }
    return out;
  };
  return {
    multilook: m,
    width: map.width,
    height: map.height,
    spacing: map.spacing,
    core: wcore,
    parts,
    edges: {
      top: strip(wcore.x0, wcore.y0, 1, 0, wcore.width),
      bottom: strip(wcore.x0, wcore.y0 + wcore.height - 1, 1, 0, wcore.width),
      left: strip(wcore.x0, wcore.y0, 0, 1, wcore.height),
      right: strip(wcore.x0 + wcore.width - 1, wcore.y0, 0, 1, wcore.height),
    },
  };
}

/** What the analysis pool may run of this module (src/threads/task.ts). */
export const threadTasks = defineThreadTasks(import.meta.url, { detectSlicksInTile });
