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
// `minValidFraction` of the field's pixels were valid that date. The walk over the dated stack
// is the time-series detector's (src/analysis/timeseries/stack.ts), with fields for zones.

import type { AoiGeometry } from '../../geo/types.ts';
import type { RasterProduct } from '../../imagery/rtc/raster.ts';
import { aoiPixelEdges, rasterizeAoi } from '../change/aoiMask.ts';
import { aoiWindow } from '../engine/window.ts';
import { addValidPixels, POLS, scenesByDate, sumStack, type SeriesScene } from '../timeseries/stack.ts';

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
  /** Per window pixel: 1 when its centre lies in the field. */
  inside: Uint8Array;
  count: number;
}

function fieldMask(raster: RasterProduct, field: AoiGeometry): FieldMask | null {
  const edges = aoiPixelEdges(field, (lon, lat) => raster.lonLatToPixel(lon, lat), 0.001);
  const window = aoiWindow(edges, raster, 'centres');
  if (!window) return null;
  const inside = rasterizeAoi(edges, window);
  let count = 0;
  for (let i = 0; i < inside.length; i++) count += inside[i]!;
  return count > 0 ? { window, inside, count } : null;
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
  // One field's window of one raster: summed on its own, then added to the date's sums.
  const fieldSum = new Float64Array(1);
  const fieldCount = new Int32Array(1);

  await sumStack(byDate, nFields, {
    layout: (raster) => fields.map((f) => (f ? fieldMask(raster, f) : null)),
    add: async (raster, masks, into) => {
      for (let f = 0; f < nFields; f++) {
        const mask = masks[f];
        if (!mask) continue;
        options.signal?.throwIfAborted();
        fieldSum[0] = 0;
        fieldCount[0] = 0;
        addValidPixels(await raster.readWindow(mask.window, { bands: [0] }), mask.inside, fieldSum, fieldCount);
        into.sum[f]! += fieldSum[0]!;
        into.count[f]! += fieldCount[0]!;
        into.expected[f]! += mask.count;
      }
    },
    endDate: (d, sums) => {
      for (const pol of POLS) {
        const { sum, count, expected } = sums[pol];
        for (let f = 0; f < nFields; f++) {
          const n = count[f]!;
          const exp = expected[f]!;
          if (exp > pixels[f]!) pixels[f] = exp;
          if (n > 0 && n >= minValidFraction * exp) out[pol][f]![d] = 10 * Math.log10(sum[f]! / n);
        }
      }
    },
  }, options);
  return { dates, vv: out.vv, vh: out.vh, pixels };
}
