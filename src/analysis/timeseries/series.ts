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
// and one pass over the window.

import type { AoiGeometry } from '../../geo/types.ts';
import type { RasterProduct } from '../../imagery/rtc/raster.ts';
import { openRasterSources, type RasterSource } from '../../imagery/geocode/source.ts';
import { lonLatTransform } from '../../imagery/rtc/projection.ts';
import { aoiPixelEdges, rasterizeAoi } from '../change/aoiMask.ts';
import { cellOfMapPoint, type CellGrid } from './grid.ts';

export interface SeriesScene {
  /** Acquisition date, `YYYY-MM-DD` (a longer ISO timestamp is cut to its date). */
  date: string;
  /** RTC GeoTIFF paths/URLs, or GRD polarisations geocoded onto one UTM grid (the same grid for every scene). */
  vv?: RasterSource;
  vh?: RasterSource;
}

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
  /** Per window pixel: cell index, −1 outside the AOI or the grid. */
  cell: Int32Array;
  /** Per cell: AOI pixels of this raster grid that fall in it. */
  expected: Int32Array;
}

/** Rasters on the same grid (CRS, geotransform, size) share one pixel mask. */
export function gridKey(r: RasterProduct): string {
  return `${r.epsg}|${r.geotransform.join(',')}|${r.width}x${r.height}`;
}

function buildCellMap(raster: RasterProduct, grid: CellGrid, aoi: AoiGeometry): CellMap | null {
  const edges = aoiPixelEdges(aoi, (lon, lat) => raster.lonLatToPixel(lon, lat));
  const x0 = Math.max(0, Math.ceil(edges.minX));
  const y0 = Math.max(0, Math.ceil(edges.minY));
  const x1 = Math.min(raster.width - 1, Math.floor(edges.maxX));
  const y1 = Math.min(raster.height - 1, Math.floor(edges.maxY));
  if (edges.count === 0 || x1 < x0 || y1 < y0) return null;
  const window = { x0, y0, width: x1 - x0 + 1, height: y1 - y0 + 1 };
  const inside = rasterizeAoi(edges, window);
  const cell = new Int32Array(window.width * window.height).fill(-1);
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
      cell[i] = c;
      if (c >= 0) expected[c]!++;
    }
  }
  return { window, cell, expected };
}

/** Per cell and date, mean γ0 (RTC) or σ0 (GRD) in dB of VV and VH over the cell's valid AOI pixels. */
export async function readCellSeries(
  scenes: ReadonlyArray<SeriesScene>,
  grid: CellGrid,
  aoi: AoiGeometry,
  options: ReadSeriesOptions = {},
): Promise<CellSeries> {
  const minValidFraction = options.minValidFraction ?? 0.5;
  const byDate = new Map<string, SeriesScene[]>();
  for (const scene of scenes) {
    const date = scene.date.slice(0, 10);
    if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) throw new RangeError(`scene date must be YYYY-MM-DD, got ${JSON.stringify(scene.date)}`);
    if (!scene.vv && !scene.vh) continue;
    const list = byDate.get(date) ?? [];
    list.push(scene);
    byDate.set(date, list);
  }
  const dates = [...byDate.keys()].sort();
  const nCells = grid.cells.length;
  const nDates = dates.length;
  const hasVv = scenes.some((s) => s.vv);
  const hasVh = scenes.some((s) => s.vh);
  const vv = hasVv ? new Float64Array(nCells * nDates).fill(Number.NaN) : null;
  const vh = hasVh ? new Float64Array(nCells * nDates).fill(Number.NaN) : null;
  const validPixels = new Int32Array(nCells * nDates);
  const maps = new Map<string, CellMap | null>();
  const pols = [
    ['vv', vv],
    ['vh', vh],
  ] as const;
  // Per polarisation: sums over the date's scenes.
  const sums = { vv: new Float64Array(nCells), vh: new Float64Array(nCells) };
  const counts = { vv: new Int32Array(nCells), vh: new Int32Array(nCells) };
  const expected = { vv: new Int32Array(nCells), vh: new Int32Array(nCells) };

  const accumulate = (read: { data: Float32Array[]; valid: Uint8Array }, map: CellMap, pol: 'vv' | 'vh'): void => {
    const sum = sums[pol];
    const count = counts[pol];
    const exp = expected[pol];
    for (let c = 0; c < nCells; c++) exp[c]! += map.expected[c]!;
    const values = read.data[0]!;
    const valid = read.valid;
    for (let i = 0; i < map.cell.length; i++) {
      const c = map.cell[i]!;
      if (c < 0 || !valid[i]) continue;
      const v = values[i]!;
      if (!(v >= 0) || v === Infinity) continue;
      sum[c]! += v;
      count[c]!++;
    }
  };

  for (let d = 0; d < nDates; d++) {
    options.signal?.throwIfAborted();
    const list = byDate.get(dates[d]!)!;
    for (const pol of ['vv', 'vh'] as const) {
      sums[pol].fill(0);
      counts[pol].fill(0);
      expected[pol].fill(0);
    }
    for (const scene of list) {
      // Both polarisations of a scene are opened together (a GRD product is parsed once).
      const wanted = pols.filter(([pol, out]) => out && scene[pol]).map(([pol]) => pol);
      if (wanted.length === 0) continue;
      const rasters = await openRasterSources(wanted.map((pol) => scene[pol]!));
      try {
        for (let k = 0; k < wanted.length; k++) {
          const raster = rasters[k]!;
          const key = gridKey(raster);
          if (!maps.has(key)) maps.set(key, buildCellMap(raster, grid, aoi));
          const map = maps.get(key)!;
          if (!map) continue;
          accumulate(await raster.readWindow(map.window, { bands: [0] }), map, wanted[k]!);
        }
      } finally {
        await Promise.all(rasters.map((r) => r.close()));
      }
    }
    for (const [pol, out] of pols) {
      if (!out) continue;
      const sum = sums[pol];
      const count = counts[pol];
      const exp = expected[pol];
      for (let c = 0; c < nCells; c++) {
        const n = count[c]!;
        const k = c * nDates + d;
        if (n > validPixels[k]!) validPixels[k] = n;
        if (n > 0 && n >= minValidFraction * exp[c]!) out[k] = 10 * Math.log10(sum[c]! / n);
      }
    }
    options.onProgress?.(d + 1, nDates);
  }
  return { dates, vv, vh, validPixels };
}
