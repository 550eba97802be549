// A stack of dated scenes read into sums per date, polarisation and zone: the one raster walk
// of the time-series detector (zones: grid cells, ./series.ts) and the idle-farm detector
// (zones: fields, ../idlefarm/series.ts).
//
// Per date, every scene of that date is read (several bursts/files covering the area are
// pooled: their valid pixels add to the same sums); a scene's polarisations are opened together
// (a GRD product is parsed once) and closed before the next scene. What a reader takes from a
// raster grid (its layout: the pixel windows to read and which zone each pixel adds to) is built
// once per grid: all dates of one burst, or all GRD dates geocoded onto one grid, share it.

import type { RasterSource } from '../../imagery/geocode/source.ts';
import { openRasterSources } from '../../imagery/geocode/source.ts';
import type { RasterProduct, RasterWindow } from '../../imagery/rtc/raster.ts';

export interface SeriesScene {
  /** Acquisition date, `YYYY-MM-DD` (a longer ISO timestamp is cut to its date). */
  date: string;
  /** RTC GeoTIFF paths/URLs, or GRD polarisations geocoded onto one UTM grid (the same grid for every scene). */
  vv?: RasterSource;
  vh?: RasterSource;
}

export type Pol = 'vv' | 'vh';
export const POLS: readonly Pol[] = ['vv', 'vh'];

/** One date's sums of one polarisation, per zone. */
export interface ZoneSums {
  /** Linear values of the valid pixels, summed. */
  sum: Float64Array;
  /** Valid pixels. */
  count: Int32Array;
  /** Pixels of the zone on the rasters read, valid or not. */
  expected: Int32Array;
}

/** What a series reader does with the stack; `Layout` is what it needs of one raster grid. */
export interface StackReader<Layout> {
  /** Built once per raster grid. */
  layout(raster: RasterProduct): Layout;
  /** Reads `raster` (one scene's polarisation) over its layout and adds it to `into`, that polarisation's sums of the date. */
  add(raster: RasterProduct, layout: Layout, into: ZoneSums): Promise<void>;
  /** Called once every scene of date `d` (index into the ascending dates) is added. */
  endDate(d: number, sums: Readonly<Record<Pol, ZoneSums>>): void;
}

/** Rasters on the same grid (CRS, geotransform, size) share one layout. */
export function gridKey(r: RasterProduct): string {
  return `${r.epsg}|${r.geotransform.join(',')}|${r.width}x${r.height}`;
}

/** Dates of the scenes with a VV or VH raster (cut to `YYYY-MM-DD`) with the scenes of each, ascending. */
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
 * Walks the dates of `byDate` (scenesByDate) in order: the date's sums are zeroed, each raster of
 * its scenes goes through `reader.add`, then `reader.endDate`.
 */
export async function sumStack<Layout>(
  byDate: ReadonlyMap<string, ReadonlyArray<SeriesScene>>,
  zones: number,
  reader: StackReader<Layout>,
  options: { signal?: AbortSignal; onProgress?: (done: number, total: number) => void } = {},
): Promise<void> {
  const zoneSums = (): ZoneSums => ({ sum: new Float64Array(zones), count: new Int32Array(zones), expected: new Int32Array(zones) });
  const sums: Record<Pol, ZoneSums> = { vv: zoneSums(), vh: zoneSums() };
  const layouts = new Map<string, Layout>();
  const scenesOfDate = [...byDate.values()];
  for (let d = 0; d < scenesOfDate.length; d++) {
    const scenes = scenesOfDate[d]!;
    options.signal?.throwIfAborted();
    for (const pol of POLS) {
      sums[pol].sum.fill(0);
      sums[pol].count.fill(0);
      sums[pol].expected.fill(0);
    }
    for (const scene of scenes) {
      const wanted = POLS.filter((pol) => scene[pol]);
      const rasters = await openRasterSources(wanted.map((pol) => scene[pol]!));
      try {
        for (let k = 0; k < wanted.length; k++) {
          const raster = rasters[k]!;
          const key = gridKey(raster);
          if (!layouts.has(key)) layouts.set(key, reader.layout(raster));
          await reader.add(raster, layouts.get(key) as Layout, sums[wanted[k]!]);
        }
      } finally {
        await Promise.all(rasters.map((r) => r.close()));
      }
    }
    reader.endDate(d, sums);
    options.onProgress?.(d + 1, scenesOfDate.length);
  }
}

/**
 * Adds the valid pixels of a window read (band 0; valid, finite and ≥ 0: linear power) to their
 * zones. `zone` has one entry per window pixel: 0 leaves the pixel out, k > 0 adds it to
 * `sum[k − 1]` and `count[k − 1]`.
 */
export function addValidPixels(read: RasterWindow, zone: Uint8Array | Int32Array, sum: Float64Array, count: Int32Array): void {
  const values = read.data[0]!;
  const valid = read.valid;
  for (let i = 0; i < zone.length; i++) {
    const k = zone[i]!;
    if (k === 0 || !valid[i]) continue;
    const v = values[i]!;
    if (!(v >= 0) || v === Infinity) continue;
    sum[k - 1]! += v;
    count[k - 1]!++;
  }
}
