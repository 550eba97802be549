// Per-cell backscatter series: for every date and polarisation, the mean LINEAR γ0 (RTC) or
// σ0 (GRD geocoded onto a UTM grid, src/imagery/geocode) of the valid pixels whose centre lies in the cell and in the AOI, then converted to
// dB. Averaging in linear power and converting once is the radiometrically correct mean
// (averaging dB values would bias low by about 10·log10(e)·(ψ(L) − ln L) for L looks).
//
// Scenes of one date (several bursts/files covering the AOI) are pooled: their valid pixels
// add to the same sums. A value is NaN (null in the result) when fewer than
// `minValidFraction` of the cell's AOI pixels were valid that date.
//
// Each raster is read once, only over the AOI's pixel window. Pixel → cell maps are cached
// per raster grid (all dates of one burst share one grid), so the work per date is one read
// and one pass over the window. The walk over the dated stack is ./stack.ts (shared with the
// idle-farm fields).

import type { AoiGeometry } from '../../geo/types.ts';
import type { RasterProduct } from '../../imagery/rtc/raster.ts';
import { lonLatTransform } from '../../imagery/rtc/projection.ts';
import { aoiPixelEdges, rasterizeAoi } from '../change/aoiMask.ts';
import { aoiWindow } from '../engine/window.ts';
import { cellOfMapPoint, type CellGrid } from './grid.ts';
import { addValidPixels, scenesByDate, sumStack, type SeriesScene } from './stack.ts';

export type { SeriesScene } from './stack.ts';

export interface CellSeries {
  /** Distinct acquisition dates, ascending. */
  dates: string[];
  /** cells × dates, row-major by cell, dB; NaN where no value. Null when no scene has the polarisation. */
  vv: Float64Array | null;
  vh: Float64Array | null;
  /** Valid pixels per cell and date (the larger of VV and VH). */
  validPixels: Int32Array;
}

export interface ReadSeriesOptions {
  /** Minimum fraction of a cell's AOI pixels that must be valid for a value. Default 0.5. */
  minValidFraction?: number;
  onProgress?: (done: number, total: number) => void;
  signal?: AbortSignal;
}

interface CellMap {
  window: { x0: number; y0: number; width: number; height: number };
  /** Per window pixel: cell index + 1, 0 outside the AOI or the grid. */
  zone: Int32Array;
  /** Per cell: AOI pixels of this raster grid that fall in it. */
  expected: Int32Array;
}

function buildCellMap(raster: RasterProduct, grid: CellGrid, aoi: AoiGeometry): CellMap | null {
  const edges = aoiPixelEdges(aoi, (lon, lat) => raster.lonLatToPixel(lon, lat));
  const window = aoiWindow(edges, raster, 'centres');
  if (!window) return null;
  const { x0, y0 } = window;
  const inside = rasterizeAoi(edges, window);
  const zone = new Int32Array(window.width * window.height);
  const expected = new Int32Array(grid.cells.length);
  const sameCrs = raster.epsg === grid.epsg;
  const toGrid = sameCrs ? null : lonLatTransform(grid.epsg);
  for (let y = 0; y < window.height; y++) {
    for (let x = 0; x < window.width; x++) {
      const i = y * window.width + x;
      if (!inside[i]) continue;
      let [mx, my] = raster.pixelToMap(y0 + y, x0 + x);
      if (toGrid) {
        const [lon, lat] = raster.pixelToLonLat(y0 + y, x0 + x);
        [mx, my] = toGrid.fromLonLat(lon, lat);
      }
      const c = cellOfMapPoint(grid, mx, my);
      zone[i] = c + 1;
      if (c >= 0) expected[c]!++;
    }
  }
  return { window, zone, expected };
}

/** Per cell and date, mean γ0 (RTC) or σ0 (GRD) in dB of VV and VH over the cell's valid AOI pixels. */
export async function readCellSeries(
  scenes: ReadonlyArray<SeriesScene>,
  grid: CellGrid,
  aoi: AoiGeometry,
  options: ReadSeriesOptions = {},
): Promise<CellSeries> {
  const minValidFraction = options.minValidFraction ?? 0.5;
  const byDate = scenesByDate(scenes);
  const dates = [...byDate.keys()];
  const nCells = grid.cells.length;
  const nDates = dates.length;
  const vv = scenes.some((s) => s.vv) ? new Float64Array(nCells * nDates).fill(Number.NaN) : null;
  const vh = scenes.some((s) => s.vh) ? new Float64Array(nCells * nDates).fill(Number.NaN) : null;
  const validPixels = new Int32Array(nCells * nDates);
  const pols = [
    ['vv', vv],
    ['vh', vh],
  ] as const;

  await sumStack(byDate, nCells, {
    layout: (raster) => buildCellMap(raster, grid, aoi),
    add: async (raster, map, into) => {
      if (!map) return;
      for (let c = 0; c < nCells; c++) into.expected[c]! += map.expected[c]!;
      addValidPixels(await raster.readWindow(map.window, { bands: [0] }), map.zone, into.sum, into.count);
    },
    endDate: (d, sums) => {
      for (const [pol, out] of pols) {
        if (!out) continue;
        const { sum, count, expected } = sums[pol];
        for (let c = 0; c < nCells; c++) {
          const n = count[c]!;
          const k = c * nDates + d;
          if (n > validPixels[k]!) validPixels[k] = n;
          if (n > 0 && n >= minValidFraction * expected[c]!) out[k] = 10 * Math.log10(sum[c]! / n);
        }
      }
    },
  }, options);
  return { dates, vv, vh, validPixels };
}
