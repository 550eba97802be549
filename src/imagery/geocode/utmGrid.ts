// The common map grid GRD scenes are geocoded onto: north-up WGS84 UTM, square pixels,
// origin snapped to multiples of the pixel size (so the same AOI always gets the same grid,
// whichever scene or date is geocoded onto it).

import { centroidLonLat } from '../../geo/centroid.js';
import type { AoiGeometry, Position } from '../../geo/types.js';
import { lonLatTransform } from '../rtc/projection.js';

export interface UtmGrid {
  /** WGS84 UTM: 326xx (north) or 327xx (south). */
  epsg: number;
  /** Map coordinates of the grid's upper-left corner (multiples of pixelSizeM). */
  originX: number;
  originY: number;
  /** Pixel edge in metres. */
  pixelSizeM: number;
  width: number;
  height: number;
}

/** GRD pixel spacing (IW GRDH): the default posting of a geocoded GRD. */
export const GRD_GRID_PIXEL_M = 10;

/** EPSG code of the WGS84 UTM zone holding a point (standard 6° zones, no Norway/Svalbard exceptions). */
export function utmEpsgFor(lon: number, lat: number): number {
  const zone = Math.min(60, Math.max(1, Math.floor((((lon + 180) % 360) + 360) % 360 / 6) + 1));
  return (lat >= 0 ? 32600 : 32700) + zone;
}

/** Points along a lon/lat ring, edges densified so their UTM image is followed closely. */
function densify(ring: readonly Position[], stepDeg: number): Position[] {
  const out: Position[] = [];
  for (let i = 0; i + 1 < ring.length; i++) {
    const [x0, y0] = ring[i]!;
    const [x1, y1] = ring[i + 1]!;
    const n = Math.max(1, Math.ceil(Math.max(Math.abs(x1 - x0), Math.abs(y1 - y0)) / stepDeg));
    for (let k = 0; k < n; k++) out.push([x0 + ((x1 - x0) * k) / n, y0 + ((y1 - y0) * k) / n]);
  }
  if (ring.length) out.push(ring[ring.length - 1]!);
  return out;
}

/**
 * The UTM grid of `pixelSizeM` covering the AOI's bounding box in the zone of the AOI's
 * centroid, plus `marginPixels` on every side (default 1).
 */
export function utmGridForAoi(aoi: AoiGeometry, pixelSizeM = GRD_GRID_PIXEL_M, options: { marginPixels?: number; epsg?: number } = {}): UtmGrid {
  if (!(pixelSizeM > 0) || !Number.isFinite(pixelSizeM)) throw new RangeError(`pixelSizeM must be a positive number, got ${pixelSizeM}`);
  const c = centroidLonLat(aoi);
  const epsg = options.epsg ?? utmEpsgFor(c.lon, c.lat);
  const t = lonLatTransform(epsg);
  let minX = Infinity;
  let minY = Infinity;
  let maxX = -Infinity;
  let maxY = -Infinity;
  const polygons = aoi.type === 'Polygon' ? [aoi.coordinates] : aoi.coordinates;
  for (const rings of polygons) {
    // Outer rings bound the AOI; holes lie inside them.
    for (const p of densify(rings[0] ?? [], 0.01)) {
      const [x, y] = t.fromLonLat(p[0], p[1]);
      if (x < minX) minX = x;
      if (x > maxX) maxX = x;
      if (y < minY) minY = y;
      if (y > maxY) maxY = y;
    }
  }
  if (!Number.isFinite(minX)) throw new RangeError('the AOI has no outer ring');
  const s = pixelSizeM;
  const margin = (options.marginPixels ?? 1) * s;
  const originX = Math.floor((minX - margin) / s) * s;
  const originY = Math.ceil((maxY + margin) / s) * s;
  const width = Math.max(1, Math.ceil((maxX + margin - originX) / s));
  const height = Math.max(1, Math.ceil((originY - (minY - margin)) / s));
  return { epsg, originX, originY, pixelSizeM: s, width, height };
}

/** Two grids are the same pixel grid. */
export function sameUtmGrid(a: UtmGrid, b: UtmGrid): boolean {
  return a.epsg === b.epsg && a.originX === b.originX && a.originY === b.originY && a.pixelSizeM === b.pixelSizeM && a.width === b.width && a.height === b.height;
}
