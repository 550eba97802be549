/**
 * The pixel window an area of interest covers: one rule for every detector (ship, oil slick,
 * building change, time series, idle farmland). The AOI is first mapped to the image's pixel
 * space by the caller (its vertices, or its densified edges), then its bounds are rounded to
 * whole pixels — outwards and grown by a margin (the scene detectors read context around the
 * AOI), or inwards to the pixels whose centre it can contain (the raster drivers) — and
 * clipped to the image. Pixel coordinates: integer (row, col) is a pixel centre.
 */
import type { AoiGeometry } from '../../geo/types.ts';
import type { PixelWindow } from '../../imagery/window.ts';

/** Bounds in pixel space: x = column, y = row. Empty when minX > maxX. */
export interface PixelBounds {
  minX: number;
  minY: number;
  maxX: number;
  maxY: number;
}

/**
 * Bounds of the AOI's vertices mapped by `toPixel`. Vertices the mapping cannot invert (far
 * off the image: a non-finite row or column) are left out and counted in `unmapped`.
 */
export function aoiVertexBounds(aoi: AoiGeometry, toPixel: (lon: number, lat: number) => { row: number; col: number }): PixelBounds & { unmapped: number } {
  const bounds = { minX: Infinity, minY: Infinity, maxX: -Infinity, maxY: -Infinity, unmapped: 0 };
  const rings = aoi.type === 'Polygon' ? aoi.coordinates : aoi.coordinates.flat();
  for (const ring of rings) {
    for (const [lon, lat] of ring) {
      const p = toPixel(lon, lat);
      if (!Number.isFinite(p.row) || !Number.isFinite(p.col)) {
        bounds.unmapped++;
        continue;
      }
      bounds.minX = Math.min(bounds.minX, p.col);
      bounds.maxX = Math.max(bounds.maxX, p.col);
      bounds.minY = Math.min(bounds.minY, p.row);
      bounds.maxY = Math.max(bounds.maxY, p.row);
    }
  }
  return bounds;
}

/** A radar image's lon/lat → (row, col) as aoiVertexBounds takes it (line = row, pixel = column). */
export function imagePixelOf(image: { geolocation: { lonLatToPixel(lon: number, lat: number): { line: number; pixel: number } } }): (lon: number, lat: number) => { row: number; col: number } {
  return (lon, lat) => {
    const p = image.geolocation.lonLatToPixel(lon, lat);
    return { row: p.line, col: p.pixel };
  };
}

/**
 * The window of `image` that `bounds` cover, or null when it misses the image (or the bounds
 * are empty). `grow`: 'centres' keeps the pixels whose centre lies within the bounds; a margin
 * {x, y} (pixels) takes every pixel the bounds touch and that many more on each side.
 */
export function aoiWindow(bounds: PixelBounds, image: { width: number; height: number }, grow: 'centres' | { x: number; y: number }): PixelWindow | null {
  if (!(bounds.minX <= bounds.maxX && bounds.minY <= bounds.maxY)) return null;
  const inner = grow === 'centres';
  const x0 = Math.max(0, inner ? Math.ceil(bounds.minX) : Math.floor(bounds.minX) - grow.x);
  const y0 = Math.max(0, inner ? Math.ceil(bounds.minY) : Math.floor(bounds.minY) - grow.y);
  const x1 = Math.min(image.width - 1, inner ? Math.floor(bounds.maxX) : Math.ceil(bounds.maxX) + grow.x);
  const y1 = Math.min(image.height - 1, inner ? Math.floor(bounds.maxY) : Math.ceil(bounds.maxY) + grow.y);
  if (x1 < x0 || y1 < y0) return null;
  return { x0, y0, width: x1 - x0 + 1, height: y1 - y0 + 1 };
}
