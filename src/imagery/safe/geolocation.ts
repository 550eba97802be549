import { ImageryError } from '../errors.js';
import { closeCounterClockwise, type LonLatPolygon, type PixelWindow } from '../window.js';
import type { GeolocationPoint } from './annotation.js';
import { bracket } from './lut.js';

export type GridInterpolation = 'bilinear' | 'bicubic';

export interface ImagePoint {
  line: number;
  pixel: number;
}

export interface LonLatToPixelOptions {
  /** Stop when a Newton step is smaller than this (pixels). Default 1e-6. */
  tolerance?: number;
  maxIterations?: number;
  /** Where Newton starts (e.g. a neighbouring point's answer); default the nearest grid point. */
  start?: ImagePoint;
}

/** 1-D cubic Hermite on a non-uniform grid; slopes by the three-point formula (exact for parabolas). */
function hermite(xs: Float64Array, f: (k: number) => number, k: number, x: number): number {
  const n = xs.length;
  const x0 = xs[k]!;
  const x1 = xs[k + 1]!;
  const h = x1 - x0;
  const f0 = f(k);
  const f1 = f(k + 1);
  const slope = (i: number, fi: number): number => {
    if (i === 0) return (f(1) - f(0)) / (xs[1]! - xs[0]!);
    if (i === n - 1) return (f(n - 1) - f(n - 2)) / (xs[n - 1]! - xs[n - 2]!);
    const hl = xs[i]! - xs[i - 1]!;
    const hr = xs[i + 1]! - xs[i]!;
    return (hl * hl * (f(i + 1) - fi) + hr * hr * (fi - f(i - 1))) / (hl * hr * (hl + hr));
  };
  const m0 = slope(k, f0) * h;
  const m1 = slope(k + 1, f1) * h;
  const t = (x - x0) / h;
  const t2 = t * t;
  const t3 = t2 * t;
  return (2 * t3 - 3 * t2 + 1) * f0 + (t3 - 2 * t2 + t) * m0 + (-2 * t3 + 3 * t2) * f1 + (t3 - t2) * m1;
}

/**
 * The annotation's geolocation grid (lines × pixels, full-image coordinates) as a
 * continuous model: (line, pixel) → lon/lat/incidence/height by bilinear or bicubic
 * interpolation between grid points, and its inverse by Newton iteration.
 *
 * Coordinates follow the annotation: integer line/pixel is the centre of that pixel.
 * Beyond the grid the edge cells are extrapolated linearly (bilinear) so Newton steps
 * that leave the image still have a model.
 */
export class GeolocationGrid {
  readonly lines: Float64Array;
  readonly pixels: Float64Array;
  readonly interpolation: GridInterpolation;
  /** Row-major [lineIndex * nPixels + pixelIndex]. Longitudes unwrapped around the first point. */
  private readonly lat: Float64Array;
  private readonly lon: Float64Array;
  private readonly incidence: Float64Array;
  private readonly height: Float64Array;

  private constructor(
    lines: Float64Array,
    pixels: Float64Array,
    lat: Float64Array,
    lon: Float64Array,
    incidence: Float64Array,
    height: Float64Array,
    interpolation: GridInterpolation,
  ) {
    this.lines = lines;
    this.pixels = pixels;
    this.lat = lat;
    this.lon = lon;
    this.incidence = incidence;
    this.height = height;
    this.interpolation = interpolation;
  }

  static fromPoints(points: readonly GeolocationPoint[], interpolation: GridInterpolation = 'bicubic'): GeolocationGrid {
    const lines = Float64Array.from(new Set(points.map((p) => p.line))).sort();
    const pixels = Float64Array.from(new Set(points.map((p) => p.pixel))).sort();
    const nl = lines.length;
    const np = pixels.length;
    if (nl < 2 || np < 2 || nl * np !== points.length) {
      throw new ImageryError(
        'INVALID_PRODUCT',
        `geolocation grid is not rectilinear: ${points.length} points on ${nl} lines × ${np} pixels`,
      );
    }
    const lineIndex = new Map(Array.from(lines, (l, i) => [l, i]));
    const pixelIndex = new Map(Array.from(pixels, (p, i) => [p, i]));
    const lat = new Float64Array(nl * np).fill(Number.NaN);
    const lon = new Float64Array(nl * np).fill(Number.NaN);
    const incidence = new Float64Array(nl * np);
    const height = new Float64Array(nl * np);
    const lon0 = points[0]!.longitude;
    for (const p of points) {
      const k = lineIndex.get(p.line)! * np + pixelIndex.get(p.pixel)!;
      lat[k] = p.latitude;
      lon[k] = p.longitude + 360 * Math.round((lon0 - p.longitude) / 360);
      incidence[k] = p.incidenceAngle;
      height[k] = p.height;
    }
    if (lat.some(Number.isNaN)) throw new ImageryError('INVALID_PRODUCT', 'geolocation grid has duplicate points');
    return new GeolocationGrid(lines, pixels, lat, lon, incidence, height, interpolation);
  }

  /** Same grid, other interpolation. */
  withInterpolation(interpolation: GridInterpolation): GeolocationGrid {
    return new GeolocationGrid(this.lines, this.pixels, this.lat, this.lon, this.incidence, this.height, interpolation);
  }

  private evaluate(values: Float64Array, line: number, pixel: number, method = this.interpolation): number {
    const np = this.pixels.length;
    const i = bracket(this.lines, line);
    const j = bracket(this.pixels, pixel);
    const inside =
      line >= this.lines[0]! && line <= this.lines[this.lines.length - 1]! && pixel >= this.pixels[0]! && pixel <= this.pixels[np - 1]!;
    if (method === 'bicubic' && inside) {
      // Separable: along pixels on each grid line near `line`, then along lines.
      const alongPixels = (li: number): number => hermite(this.pixels, (pj) => values[li * np + pj]!, j, pixel);
      return hermite(this.lines, alongPixels, i, line);
    }
    const u = (line - this.lines[i]!) / (this.lines[i + 1]! - this.lines[i]!);
    const v = (pixel - this.pixels[j]!) / (this.pixels[j + 1]! - this.pixels[j]!);
    const a = values[i * np + j]!;
    const b = values[i * np + j + 1]!;
    const c = values[(i + 1) * np + j]!;
    const d = values[(i + 1) * np + j + 1]!;
    return (1 - u) * ((1 - v) * a + v * b) + u * ((1 - v) * c + v * d);
  }

  /** [lon, lat] in degrees (WGS84 ellipsoid, at the grid's annotated terrain height). */
  pixelToLonLat(line: number, pixel: number): [number, number] {
    const lon = this.evaluate(this.lon, line, pixel);
    const lat = this.evaluate(this.lat, line, pixel);
    return [normaliseLongitude(lon), lat];
  }

  incidenceAngle(line: number, pixel: number): number {
    return this.evaluate(this.incidence, line, pixel);
  }

  terrainHeight(line: number, pixel: number): number {
    return this.evaluate(this.height, line, pixel);
  }

  /**
   * Full-image (line, pixel) of a lon/lat, by Newton iteration on pixelToLonLat
   * (numeric Jacobian), started from options.start or the nearest grid point. Points off the image
   * come back with coordinates outside 0…width/height; NaN if Newton does not converge.
   */
  lonLatToPixel(lon: number, lat: number, options: LonLatToPixelOptions = {}): ImagePoint {
    const tolerance = options.tolerance ?? 1e-6;
    const maxIterations = options.maxIterations ?? 50;
    const lonU = lon + 360 * Math.round((this.lon[0]! - lon) / 360);
    let { line, pixel } = options.start ?? this.nearestGridPoint(lonU, lat);

    const h = 0.5;
    for (let it = 0; it < maxIterations; it++) {
      const fx = this.evaluate(this.lon, line, pixel) - lonU;
      const fy = this.evaluate(this.lat, line, pixel) - lat;
      const dxdl = (this.evaluate(this.lon, line + h, pixel) - this.evaluate(this.lon, line - h, pixel)) / (2 * h);
      const dydl = (this.evaluate(this.lat, line + h, pixel) - this.evaluate(this.lat, line - h, pixel)) / (2 * h);
      const dxdp = (this.evaluate(this.lon, line, pixel + h) - this.evaluate(this.lon, line, pixel - h)) / (2 * h);
      const dydp = (this.evaluate(this.lat, line, pixel + h) - this.evaluate(this.lat, line, pixel - h)) / (2 * h);
      const det = dxdl * dydp - dxdp * dydl;
      if (!Number.isFinite(det) || det === 0) break;
      const dl = (fx * dydp - fy * dxdp) / det;
      const dp = (dxdl * fy - dydl * fx) / det;
      line -= dl;
      pixel -= dp;
      if (Math.abs(dl) < tolerance && Math.abs(dp) < tolerance) return { line, pixel };
    }
    return { line: Number.NaN, pixel: Number.NaN };
  }

  /** The grid point nearest to (lon, lat), lon already unwrapped to the grid's side. */
  private nearestGridPoint(lonU: number, lat: number): ImagePoint {
    const coslat = Math.cos((lat * Math.PI) / 180);
    let best = 0;
    let bestD = Infinity;
    for (let k = 0; k < this.lat.length; k++) {
      const dx = (this.lon[k]! - lonU) * coslat;
      const dy = this.lat[k]! - lat;
      const d = dx * dx + dy * dy;
      if (d < bestD) {
        bestD = d;
        best = k;
      }
    }
    const np = this.pixels.length;
    return { line: this.lines[Math.floor(best / np)]!, pixel: this.pixels[best % np]! };
  }

  /**
   * Outline of a full-image window in lon/lat, walking its edges with a vertex at every
   * grid line/pixel crossed (so long edges follow the grid's curvature).
   */
  windowFootprint(window: PixelWindow): LonLatPolygon {
    const l0 = window.y0;
    const l1 = window.y0 + window.height - 1;
    const p0 = window.x0;
    const p1 = window.x0 + window.width - 1;
    const between = (xs: Float64Array, a: number, b: number): number[] => [a, ...Array.from(xs).filter((x) => x > a && x < b), b];
    const ps = between(this.pixels, p0, p1);
    const ls = between(this.lines, l0, l1);
    const ring: [number, number][] = [];
    for (const p of ps) ring.push(this.pixelToLonLat(l0, p));
    for (const l of ls.slice(1)) ring.push(this.pixelToLonLat(l, p1));
    for (const p of ps.slice(0, -1).reverse()) ring.push(this.pixelToLonLat(l1, p));
    for (const l of ls.slice(1, -1).reverse()) ring.push(this.pixelToLonLat(l, p0));
    return { type: 'Polygon', coordinates: [closeCounterClockwise(ring)] };
  }

  /** Outline of the whole grid (the scene): every grid point on its border. */
  footprint(): LonLatPolygon {
    return this.windowFootprint({
      x0: this.pixels[0]!,
      y0: this.lines[0]!,
      width: this.pixels[this.pixels.length - 1]! - this.pixels[0]! + 1,
      height: this.lines[this.lines.length - 1]! - this.lines[0]! + 1,
    });
  }
}

export function normaliseLongitude(lon: number): number {
  const wrapped = ((((lon + 180) % 360) + 360) % 360) - 180;
  return wrapped === -180 && lon > 0 ? 180 : wrapped;
}
