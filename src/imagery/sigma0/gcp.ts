/**
 * Ground control points → a continuous pixel ↔ map model, as GDAL builds one for a
 * GCP-georeferenced raster (alg/gdal_crs.cpp, GDALCreateGCPTransformer): least-squares
 * polynomials in raster (pixel, line) for the map X and Y, and a second pair in (X, Y) for
 * pixel and line. The order follows GDAL's automatic choice: 2 with 6 or more GCPs, 1 with
 * 3–5 (GDAL avoids order 3 as unstable; so do we).
 *
 * GCP raster coordinates use GDAL's convention: (0, 0) is the upper-left corner of the
 * upper-left pixel, so the centre of pixel (row r, col c) is (c + 0.5, r + 0.5).
 *
 * Coordinates are centred and scaled to about ±1 before fitting, so the normal equations
 * stay well conditioned whatever the units (degrees, metres, pixels). The inverse model is
 * refined by Newton steps on the forward one, so that mapping there and back returns the
 * starting pixel (the land mask and AOI windows rely on it).
 */
import { ImageryError } from '../errors.js';

export interface Gcp {
  /** Raster column, corner convention (GDAL's GCPPixel). */
  pixel: number;
  /** Raster row, corner convention (GDAL's GCPLine). */
  line: number;
  /** Map coordinates in the GCPs' CRS (lon/lat degrees for EPSG:4326). */
  x: number;
  y: number;
}

/** Number of monomials of a bivariate polynomial of this order. */
function termCount(order: number): number {
  return ((order + 1) * (order + 2)) / 2;
}

/** Monomials in GDAL's order: 1, x, y, x², xy, y², x³, x²y, xy², y³. */
function terms(order: number, x: number, y: number, out: Float64Array): Float64Array {
  let k = 0;
  for (let d = 0; d <= order; d++) {
    for (let j = 0; j <= d; j++) out[k++] = x ** (d - j) * y ** j;
  }
  return out;
}

/** Solve A·x = b (n × n, row-major) by Gaussian elimination with partial pivoting; null if singular. */
function solve(a: Float64Array, b: Float64Array, n: number): Float64Array | null {
  const m = Float64Array.from(a);
  const v = Float64Array.from(b);
  let scale = 0;
  for (let i = 0; i < n * n; i++) scale = Math.max(scale, Math.abs(m[i]!));
  for (let col = 0; col < n; col++) {
    let pivot = col;
    for (let r = col + 1; r < n; r++) if (Math.abs(m[r * n + col]!) > Math.abs(m[pivot * n + col]!)) pivot = r;
    if (Math.abs(m[pivot * n + col]!) <= 1e-12 * scale) return null;
    if (pivot !== col) {
      for (let c = 0; c < n; c++) [m[col * n + c], m[pivot * n + c]] = [m[pivot * n + c]!, m[col * n + c]!];
      [v[col], v[pivot]] = [v[pivot]!, v[col]!];
    }
    for (let r = col + 1; r < n; r++) {
      const f = m[r * n + col]! / m[col * n + col]!;
      if (f === 0) continue;
      for (let c = col; c < n; c++) m[r * n + c]! -= f * m[col * n + c]!;
      v[r]! -= f * v[col]!;
    }
  }
  const x = new Float64Array(n);
  for (let r = n - 1; r >= 0; r--) {
    let s = v[r]!;
    for (let c = r + 1; c < n; c++) s -= m[r * n + c]! * x[c]!;
    x[r] = s / m[r * n + r]!;
  }
  return x;
}

interface Normaliser {
  mean: number;
  scale: number;
}

function normaliser(values: number[]): Normaliser {
  const mean = values.reduce((s, v) => s + v, 0) / values.length;
  const spread = Math.max(...values.map((v) => Math.abs(v - mean)));
  return { mean, scale: spread > 0 ? spread : 1 };
}

/** A least-squares polynomial (u, v) → (p, q) of one order. */
class Polynomial2 {
  private readonly buffer: Float64Array;

  private constructor(
    readonly order: number,
    private readonly nu: Normaliser,
    private readonly nv: Normaliser,
    private readonly np: Normaliser,
    private readonly nq: Normaliser,
    private readonly cp: Float64Array,
    private readonly cq: Float64Array,
  ) {
    this.buffer = new Float64Array(termCount(order));
  }

  static fit(order: number, u: number[], v: number[], p: number[], q: number[]): Polynomial2 | null {
    const n = termCount(order);
    const nu = normaliser(u);
    const nv = normaliser(v);
    const np = normaliser(p);
    const nq = normaliser(q);
    const ata = new Float64Array(n * n);
    const atp = new Float64Array(n);
    const atq = new Float64Array(n);
    const t = new Float64Array(n);
    for (let i = 0; i < u.length; i++) {
      terms(order, (u[i]! - nu.mean) / nu.scale, (v[i]! - nv.mean) / nv.scale, t);
      const pi = (p[i]! - np.mean) / np.scale;
      const qi = (q[i]! - nq.mean) / nq.scale;
      for (let r = 0; r < n; r++) {
        atp[r]! += t[r]! * pi;
        atq[r]! += t[r]! * qi;
        for (let c = 0; c < n; c++) ata[r * n + c]! += t[r]! * t[c]!;
      }
    }
    const cp = solve(ata, atp, n);
    const cq = solve(ata, atq, n);
    return cp && cq ? new Polynomial2(order, nu, nv, np, nq, cp, cq) : null;
  }

  apply(u: number, v: number): [number, number] {
    const t = terms(this.order, (u - this.nu.mean) / this.nu.scale, (v - this.nv.mean) / this.nv.scale, this.buffer);
    let p = 0;
    let q = 0;
    for (let k = 0; k < t.length; k++) {
      p += this.cp[k]! * t[k]!;
      q += this.cq[k]! * t[k]!;
    }
    return [this.np.mean + p * this.np.scale, this.nq.mean + q * this.nq.scale];
  }
}

export interface GcpModelInfo {
  order: number;
  gcps: number;
  /** Root-mean-square and largest distance (raster pixels) between each GCP's raster position and where the model puts its map position. */
  rmsResidualPx: number;
  maxResidualPx: number;
}

/**
 * The GCP model of a raster. `forward(pixel, line)` and `inverse(x, y)` work in GDAL's
 * corner convention, as the GCPs do.
 */
export class GcpTransform {
  readonly info: GcpModelInfo;

  private constructor(
    private readonly toMap: Polynomial2,
    private readonly toRaster: Polynomial2,
    gcps: readonly Gcp[],
  ) {
    let sum = 0;
    let max = 0;
    for (const g of gcps) {
      // The residual in pixels: where the GCP's map position lands in the raster.
      const at = this.inverse(g.x, g.y);
      const d = Math.hypot(at[0] - g.pixel, at[1] - g.line);
      sum += d * d;
      max = Math.max(max, d);
    }
    this.info = { order: toMap.order, gcps: gcps.length, rmsResidualPx: Math.sqrt(sum / gcps.length), maxResidualPx: max };
  }

  /** Fit GDAL's polynomial to `gcps` (order: automatic as GDAL, or given). */
  static fit(gcps: readonly Gcp[], order?: 1 | 2 | 3): GcpTransform {
    const usable = gcps.filter((g) => [g.pixel, g.line, g.x, g.y].every(Number.isFinite));
    if (usable.length < 3) throw new ImageryError('INVALID_PRODUCT', `${usable.length} ground control points; at least 3 are needed`);
    const chosen = order ?? (usable.length >= 6 ? 2 : 1);
    if (usable.length < termCount(chosen)) {
      throw new ImageryError('INVALID_PRODUCT', `a polynomial of order ${chosen} needs ${termCount(chosen)} ground control points, got ${usable.length}`);
    }
    const pixel = usable.map((g) => g.pixel);
    const line = usable.map((g) => g.line);
    const x = usable.map((g) => g.x);
    const y = usable.map((g) => g.y);
    const toMap = Polynomial2.fit(chosen, pixel, line, x, y);
    const toRaster = Polynomial2.fit(chosen, x, y, pixel, line);
    if (!toMap || !toRaster) {
      throw new ImageryError('INVALID_PRODUCT', 'the ground control points are degenerate (collinear or repeated); no polynomial fits them');
    }
    return new GcpTransform(toMap, toRaster, usable);
  }

  get order(): number {
    return this.toMap.order;
  }

  /** Raster (pixel, line), corner convention → map (x, y). */
  forward(pixel: number, line: number): [number, number] {
    return this.toMap.apply(pixel, line);
  }

  /**
   * Map (x, y) → raster (pixel, line): GDAL's reverse polynomial, then Newton steps on the
   * forward polynomial (numeric Jacobian) until they agree to 1e-6 px.
   */
  inverse(x: number, y: number): [number, number] {
    let [p, l] = this.toRaster.apply(x, y);
    const h = 0.5;
    for (let it = 0; it < 10; it++) {
      const [fx, fy] = this.toMap.apply(p, l);
      const [xp1, yp1] = this.toMap.apply(p + h, l);
      const [xp0, yp0] = this.toMap.apply(p - h, l);
      const [xl1, yl1] = this.toMap.apply(p, l + h);
      const [xl0, yl0] = this.toMap.apply(p, l - h);
      const dxdp = (xp1 - xp0) / (2 * h);
      const dydp = (yp1 - yp0) / (2 * h);
      const dxdl = (xl1 - xl0) / (2 * h);
      const dydl = (yl1 - yl0) / (2 * h);
      const det = dxdp * dydl - dxdl * dydp;
      if (!Number.isFinite(det) || det === 0) break;
      const ex = fx - x;
      const ey = fy - y;
      const dp = (ex * dydl - ey * dxdl) / det;
      const dl = (dxdp * ey - dydp * ex) / det;
      p -= dp;
      l -= dl;
      if (Math.abs(dp) < 1e-6 && Math.abs(dl) < 1e-6) break;
    }
    return [p, l];
  }
}
