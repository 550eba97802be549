import { ImageryError } from './errors.js';

/** A rectangle of whole pixels: columns x0 … x0+width-1, rows y0 … y0+height-1. */
export interface PixelWindow {
  x0: number;
  y0: number;
  width: number;
  height: number;
}

/** A closed GeoJSON polygon in lon/lat (EPSG:4326), exterior ring counter-clockwise. */
export interface LonLatPolygon {
  type: 'Polygon';
  coordinates: [number, number][][];
}

export function assertWindow(window: PixelWindow): void {
  const { x0, y0, width, height } = window;
  if (![x0, y0, width, height].every(Number.isInteger) || width <= 0 || height <= 0) {
    throw new ImageryError(
      'INVALID_WINDOW',
      `window must have integer x0/y0 and positive integer width/height, got ${JSON.stringify(window)}`,
    );
  }
}

/** The overlap of two windows, or null when they do not overlap. */
export function intersectWindows(a: PixelWindow, b: PixelWindow): PixelWindow | null {
  const x0 = Math.max(a.x0, b.x0);
  const y0 = Math.max(a.y0, b.y0);
  const x1 = Math.min(a.x0 + a.width, b.x0 + b.width);
  const y1 = Math.min(a.y0 + a.height, b.y0 + b.height);
  if (x1 <= x0 || y1 <= y0) return null;
  return { x0, y0, width: x1 - x0, height: y1 - y0 };
}

/** Shoelace sign: GeoJSON (RFC 7946) wants exterior rings counter-clockwise. */
export function closeCounterClockwise(ring: [number, number][]): [number, number][] {
  const out = ring.slice();
  const first = out[0];
  const last = out[out.length - 1];
  if (first && last && (first[0] !== last[0] || first[1] !== last[1])) out.push([first[0], first[1]]);
  let area2 = 0;
  for (let i = 0; i + 1 < out.length; i++) {
    const p = out[i]!;
    const q = out[i + 1]!;
    area2 += p[0] * q[1] - q[0] * p[1];
  }
  return area2 < 0 ? out.reverse() : out;
}
