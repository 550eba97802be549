/**
 * The measured footprint of a raster: how much of it holds valid data, and the outline of the
 * valid pixels in lon/lat. Shared by every RasterProduct (RTC GeoTIFFs, geocoded GRDs).
 */
import { planTiles, readTiles } from './tiles.js';
import { closeCounterClockwise, type LonLatPolygon, type PixelWindow } from './window.js';

export interface RasterFootprint {
  /** Outline of the valid pixels (row-span hull, outer envelope), null if no pixel is valid. */
  polygon: LonLatPolygon | null;
  validPixels: number;
  totalPixels: number;
  /** validPixels / totalPixels. */
  validFraction: number;
}

export interface FootprintSource {
  width: number;
  height: number;
  /** Reads one window's validity mask (a RasterWindow's `valid`: 1 where the pixel has data). */
  readWindow(window: PixelWindow): Promise<{ valid: Uint8Array }>;
  /** Lon/lat of a pixel corner (x = column edge, y = row edge). */
  cornerToLonLat(x: number, y: number): [number, number];
}

/**
 * Valid fraction and the outer envelope of the valid pixels' row spans, read tile by tile
 * (memory: one tile and two Int32Arrays of the height). The envelope is traced in chunks of
 * rows (at most 64), so the ring stays small whatever the raster's size.
 */
export async function traceFootprint(source: FootprintSource, tileSize = 512): Promise<RasterFootprint> {
  const { width, height } = source;
  const first = new Int32Array(height).fill(-1);
  const last = new Int32Array(height).fill(-1);
  let validPixels = 0;
  const plan = planTiles(width, height, tileSize, 0);
  for await (const { tile, data } of readTiles(plan, (w) => source.readWindow(w))) {
    const { x0, y0, width: tw, height: th } = tile.halo;
    for (let y = 0; y < th; y++) {
      const row = y0 + y;
      for (let x = 0; x < tw; x++) {
        if (!data.valid[y * tw + x]) continue;
        validPixels++;
        const col = x0 + x;
        if (first[row]! < 0 || col < first[row]!) first[row] = col;
        if (col > last[row]!) last[row] = col;
      }
    }
  }
  const total = width * height;
  const result = { validPixels, totalPixels: total, validFraction: total ? validPixels / total : 0 };
  if (validPixels === 0) return { polygon: null, ...result };

  const rows: number[] = [];
  for (let r = 0; r < height; r++) if (first[r]! >= 0) rows.push(r);
  const chunk = Math.max(1, Math.ceil(rows.length / 64));
  const left: [number, number][] = [];
  const right: [number, number][] = [];
  for (let k = 0; k < rows.length; k += chunk) {
    const group = rows.slice(k, k + chunk);
    const top = group[0]!;
    const bottom = group[group.length - 1]! + 1;
    const minCol = Math.min(...group.map((r) => first[r]!));
    const maxCol = Math.max(...group.map((r) => last[r]!)) + 1;
    left.push([minCol, top], [minCol, bottom]);
    right.push([maxCol, top], [maxCol, bottom]);
  }
  const ring = [...left, ...right.reverse()].map(([px, py]) => source.cornerToLonLat(px, py));
  return { polygon: { type: 'Polygon', coordinates: [closeCounterClockwise(ring)] }, ...result };
}
