// Reading the two images of a pair on one pixel grid: the pre image's.
//
// RTC products of one burst/frame share a grid, so the usual case is "identical" (the same
// window is read from both) or "offset" (same CRS and pixel size, origin shifted by whole
// pixels: a shifted window). Anything else — a sub-pixel shift, another pixel size, another
// UTM zone — is resampled onto the pre grid by NEAREST NEIGHBOUR: every output pixel takes
// one input pixel unchanged, so the speckle statistics the model was calibrated on (Gamma,
// ENL 4.4) hold; bilinear resampling would average neighbours and raise the ENL unevenly.
// The pre→post pixel map is exact for an affine relation; across CRSs it is evaluated with
// proj4 on a lattice every 16 pixels and interpolated bilinearly (error ≪ 0.1 pixel).

import type { RasterProduct } from '../../imagery/rtc/raster.ts';
import type { PixelWindow } from '../../imagery/window.ts';

export type GridRelation = { kind: 'identical' } | { kind: 'offset'; dx: number; dy: number } | { kind: 'resample' };

const LATTICE = 16;

function close(a: number, b: number, tolerance: number): boolean {
  return Math.abs(a - b) <= tolerance;
}

/** How `other` relates to `reference`'s pixel grid. */
export function gridRelation(reference: RasterProduct, other: RasterProduct): GridRelation {
  const [ox, a, b, oy, d, e] = reference.geotransform;
  const [px, a2, b2, py, d2, e2] = other.geotransform;
  const tol = 1e-6 * Math.max(Math.abs(a), Math.abs(e));
  if (reference.epsg !== other.epsg || !close(a, a2, tol) || !close(b, b2, tol) || !close(d, d2, tol) || !close(e, e2, tol) || b !== 0 || d !== 0) {
    return { kind: 'resample' };
  }
  const dx = (ox - px) / a;
  const dy = (oy - py) / e;
  if (!close(dx, Math.round(dx), 1e-6) || !close(dy, Math.round(dy), 1e-6)) return { kind: 'resample' };
  if (Math.round(dx) === 0 && Math.round(dy) === 0 && reference.width === other.width && reference.height === other.height) {
    return { kind: 'identical' };
  }
  return { kind: 'offset', dx: Math.round(dx) || 0, dy: Math.round(dy) || 0 };
}

/** For every pixel of `window` (reference grid): the other raster's fractional (row, col). */
export function mapWindow(reference: RasterProduct, other: RasterProduct, window: PixelWindow): { rows: Float64Array; cols: Float64Array } {
  const { x0, y0, width, height } = window;
  const sameCrs = reference.epsg === other.epsg;
  const map = (row: number, col: number): { row: number; col: number } => {
    if (sameCrs) {
      const [x, y] = reference.pixelToMap(row, col);
      return other.mapToPixel(x, y);
    }
    const [lon, lat] = reference.pixelToLonLat(row, col);
    return other.lonLatToPixel(lon, lat);
  };
  const lw = Math.ceil((width - 1) / LATTICE) + 1;
  const lh = Math.ceil((height - 1) / LATTICE) + 1;
  const lr = new Float64Array(lw * lh);
  const lc = new Float64Array(lw * lh);
  for (let j = 0; j < lh; j++) {
    for (let i = 0; i < lw; i++) {
      const m = map(y0 + Math.min(j * LATTICE, height - 1), x0 + Math.min(i * LATTICE, width - 1));
      lr[j * lw + i] = m.row;
      lc[j * lw + i] = m.col;
    }
  }
  const rows = new Float64Array(width * height);
  const cols = new Float64Array(width * height);
  for (let y = 0; y < height; y++) {
    const j = Math.min(lh - 2, Math.floor(y / LATTICE));
    const ya = j * LATTICE;
    const yb = Math.min((j + 1) * LATTICE, height - 1);
    const fy = lh === 1 || yb === ya ? 0 : (y - ya) / (yb - ya);
    for (let x = 0; x < width; x++) {
      const i = Math.min(lw - 2, Math.floor(x / LATTICE));
      const xa = i * LATTICE;
      const xb = Math.min((i + 1) * LATTICE, width - 1);
      const fx = lw === 1 || xb === xa ? 0 : (x - xa) / (xb - xa);
      const jj = Math.max(0, j);
      const ii = Math.max(0, i);
      const i00 = jj * lw + ii;
      const i01 = lw === 1 ? i00 : i00 + 1;
      const i10 = lh === 1 ? i00 : i00 + lw;
      const i11 = lh === 1 ? i01 : i01 + lw;
      const k = y * width + x;
      rows[k] = (lr[i00]! * (1 - fx) + lr[i01]! * fx) * (1 - fy) + (lr[i10]! * (1 - fx) + lr[i11]! * fx) * fy;
      cols[k] = (lc[i00]! * (1 - fx) + lc[i01]! * fx) * (1 - fy) + (lc[i10]! * (1 - fx) + lc[i11]! * fx) * fy;
    }
  }
  return { rows, cols };
}

export interface GridRead {
  /** One array per product, on the reference window; NaN where invalid. */
  data: Float32Array[];
  /** 1 where every product has data. */
  valid: Uint8Array;
}

/**
 * Read band 0 of each product (e.g. the VV and VH files of one date, which share a grid) for
 * `window` of the reference grid, mapping through `relation`.
 */
export async function readOnReferenceGrid(
  reference: RasterProduct,
  products: readonly RasterProduct[],
  relation: GridRelation,
  window: PixelWindow,
): Promise<GridRead> {
  const n = window.width * window.height;
  if (relation.kind !== 'resample') {
    const shifted = relation.kind === 'offset' ? { ...window, x0: window.x0 + relation.dx, y0: window.y0 + relation.dy } : window;
    const reads = await Promise.all(products.map((p) => p.readWindow(shifted, { bands: [0] })));
    const valid = new Uint8Array(n).fill(1);
    for (const r of reads) for (let i = 0; i < n; i++) valid[i]! &= r.valid[i]!;
    return { data: reads.map((r) => r.data[0]!), valid };
  }
  const source = products[0]!;
  const { rows, cols } = mapWindow(reference, source, window);
  let minR = Infinity;
  let minC = Infinity;
  let maxR = -Infinity;
  let maxC = -Infinity;
  for (let i = 0; i < n; i++) {
    const r = Math.round(rows[i]!);
    const c = Math.round(cols[i]!);
    if (r < minR) minR = r;
    if (r > maxR) maxR = r;
    if (c < minC) minC = c;
    if (c > maxC) maxC = c;
  }
  const data = products.map(() => new Float32Array(n).fill(Number.NaN));
  const valid = new Uint8Array(n);
  // Only the part of the source that exists is read.
  const r0 = Math.max(0, minR);
  const c0 = Math.max(0, minC);
  const r1 = Math.min(source.height - 1, maxR);
  const c1 = Math.min(source.width - 1, maxC);
  if (r1 < r0 || c1 < c0) return { data, valid };
  const srcWindow = { x0: c0, y0: r0, width: c1 - c0 + 1, height: r1 - r0 + 1 };
  const reads = await Promise.all(products.map((p) => p.readWindow(srcWindow, { bands: [0] })));
  for (let i = 0; i < n; i++) {
    const r = Math.round(rows[i]!) - r0;
    const c = Math.round(cols[i]!) - c0;
    if (r < 0 || c < 0 || r >= srcWindow.height || c >= srcWindow.width) continue;
    const k = r * srcWindow.width + c;
    let ok = 1;
    for (const read of reads) ok &= read.valid[k]!;
    valid[i] = ok;
    if (ok) reads.forEach((read, b) => (data[b]![i] = read.data[0]![k]!));
  }
  return { data, valid };
}
