// Per-field backscatter series: for every date and polarisation, the mean LINEAR γ0 (RTC) or
// σ0 (GRD geocoded onto a UTM grid) of the valid pixels whose centre lies in the field, then
// converted to dB — the time-series detector's convention (src/analysis/timeseries/series.ts:
// averaging dB values would bias low), with fields in place of grid cells.
//
// Memory is bounded by one field's window, not a scene: per date each raster is opened once
// and read field by field over the field's pixel window. Pixel masks are cached per raster
// grid (all dates of one burst, or all GRD dates on the common grid, share one), so the work
// per date and field is one small read and one pass over its window. Scenes of one date are
// pooled (their valid pixels add to the same sums). A value is NaN when fewer than
// `minValidFraction` of the field's pixels were valid that date.

import type { AoiGeometry } from '../../geo/types.ts';
import { openRasterSources } from '../../imagery/geocode/source.ts';
import type { RasterProduct } from '../../imagery/rtc/raster.ts';
import { aoiPixelEdges, rasterizeAoi } from '../change/aoiMask.ts';
import { gridKey, type SeriesScene } from '../timeseries/series.ts';

export interface FieldSeries {
  /** Distinct acquisition dates, ascending (`YYYY-MM-DD`), shared by every field. */
  dates: string[];
  /** Per field (input order): dB per date, NaN where no value. */
  vv: Float64Array[];
  vh: Float64Array[];
  /** Per field: pixels whose centre lies in the field on the rasters read (the largest over dates); 0 when none did. */
  pixels: Int32Array;
}

export interface ReadFieldSeriesOptions {
  /** Minimum fraction of a field's pixels valid on a date for a value. Default 0.5. */
  minValidFraction?: number;
  /** Called after each date. */
  onProgress?: (done: number, total: number) => void;
  signal?: AbortSignal;
}

interface FieldMask {
  window: { x0: number; y0: number; width: number; height: number };
  inside: Uint8Array;
  count: number;
}

function fieldMask(raster: RasterProduct, field: AoiGeometry): FieldMask | null {
  const edges = aoiPixelEdges(field, (lon, lat) => raster.lonLatToPixel(lon, lat), 0.001);
  const x0 = Math.max(0, Math.ceil(edges.minX));
  const y0 = Math.max(0, Math.ceil(edges.minY));
  const x1 = Math.min(raster.width - 1, Math.floor(edges.maxX));
  const y1 = Math.min(raster.height - 1, Math.floor(edges.maxY));
  if (edges.count === 0 || x1 < x0 || y1 < y0) return null;
  const window = { x0, y0, width: x1 - x0 + 1, height: y1 - y0 + 1 };
  const inside = rasterizeAoi(edges, window);
  let count = 0;
  for (let i = 0; i < inside.length; i++) count += inside[i]!;
  return count > 0 ? { window, inside, count } : null;
}

/** Dates of the scenes (cut to `YYYY-MM-DD`) with the scenes of each, ascending. */
export function scenesByDate(scenes: ReadonlyArray<SeriesScene>): Map<string, SeriesScene[]> {
  const byDate = new Map<string, SeriesScene[]>();
  for (const scene of scenes) {
    const date = scene.date.slice(0, 10);
    if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) throw new RangeError(`scene date must be YYYY-MM-DD, got ${JSON.stringify(scene.date).slice(0, 40)}`);
    if (!scene.vv && !scene.vh) continue;
    const list = byDate.get(date) ?? [];
    list.push(scene);
    byDate.set(date, list);
  }
  return new Map([...byDate.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/**
 * Per field (null geometries are skipped and get all-NaN series) and date, the mean γ0/σ0 in dB
 * of VV and VH over the field's valid pixels.
 */
export async function readFieldSeries(
  scenes: ReadonlyArray<SeriesScene>,
  fields: ReadonlyArray<AoiGeometry | null>,
  options: ReadFieldSeriesOptions = {},
): Promise<FieldSeries> {
  const minValidFraction = options.minValidFraction ?? 0.5;
  const byDate = scenesByDate(scenes);
  const dates = [...byDate.keys()];
  const nFields = fields.length;
  const nDates = dates.length;
  const out = {
    vv: fields.map(() => new Float64Array(nDates).fill(Number.NaN)),
    vh: fields.map(() => new Float64Array(nDates).fill(Number.NaN)),
  };
  const pixels = new Int32Array(nFields);
  const masks = new Map<string, (FieldMask | null)[]>();
  const sums = { vv: new Float64Array(nFields), vh: new Float64Array(nFields) };
  const counts = { vv: new Int32Array(nFields), vh: new Int32Array(nFields) };
  const expected = { vv: new Int32Array(nFields), vh: new Int32Array(nFields) };

  for (let d = 0; d < nDates; d++) {
    options.signal?.throwIfAborted();
    for (const pol of ['vv', 'vh'] as const) {
      sums[pol].fill(0);
      counts[pol].fill(0);
      expected[pol].fill(0);
    }
    for (const scene of byDate.get(dates[d]!)!) {
      const wanted = (['vv', 'vh'] as const).filter((pol) => scene[pol]);
      // Both polarisations of a scene are opened together (a GRD product is parsed once).
      const rasters = await openRasterSources(wanted.map((pol) => scene[pol]!));
      try {
        for (let k = 0; k < wanted.length; k++) {
          const raster = rasters[k]!;
          const pol = wanted[k]!;
          const key = gridKey(raster);
          let list = masks.get(key);
          if (!list) {
            list = fields.map((f) => (f ? fieldMask(raster, f) : null));
            masks.set(key, list);
          }
          for (let f = 0; f < nFields; f++) {
            const mask = list[f];
            if (!mask) continue;
            options.signal?.throwIfAborted();
            const read = await raster.readWindow(mask.window, { bands: [0] });
            const values = read.data[0]!;
            let sum = 0;
            let n = 0;
            for (let i = 0; i < mask.inside.length; i++) {
              if (!mask.inside[i] || !read.valid[i]) continue;
              const v = values[i]!;
              if (!(v >= 0) || v === Infinity) continue;
              sum += v;
              n++;
            }
            sums[pol][f]! += sum;
            counts[pol][f]! += n;
            expected[pol][f]! += mask.count;
          }
        }
      } finally {
        await Promise.all(rasters.map((r) => r.close()));
      }
    }
    for (const pol of ['vv', 'vh'] as const) {
      for (let f = 0; f < nFields; f++) {
        const n = counts[pol][f]!;
        const exp = expected[pol][f]!;
        if (exp > pixels[f]!) pixels[f] = exp;
        if (n > 0 && n >= minValidFraction * exp) out[pol][f]![d] = 10 * Math.log10(sums[pol][f]! / n);
      }
    }
    options.onProgress?.(d + 1, nDates);
  }
  return { dates, vv: out.vv, vh: out.vh, pixels };
}
