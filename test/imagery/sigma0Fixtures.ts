/**
 * σ0 GeoTIFFs made from a real SAFE GRD product with the project's own reader (calibration
 * as src/imagery/safe does it) and writer (src/synth/tiff.ts), the two ways σ0 reaches
 * users outside a SAFE:
 *
 * - radar geometry with GCPs, like SNAP's GeoTIFF export or `gdal_translate` of a
 *   measurement: the product's geolocation grid as EPSG:4326 tie points (corner convention:
 *   annotation pixel + 0.5), shifted by the crop offset;
 * - map geometry: resampled (nearest neighbour) onto a north-up UTM grid, positions from the
 *   SAFE geolocation grid (exact Newton inversion on a 16-px lattice, bilinear between),
 *   independent of the GCP model under test.
 */
import proj4 from 'proj4';
import { openSafeProduct, type SafeProduct } from '../../src/imagery/index.ts';
import { TiffWriter, type GdalMetadata } from '../../src/synth/tiff.ts';

export interface Sigma0Bands {
  width: number;
  height: number;
  /** Linear σ0 by polarisation, row-major, NaN where invalid. */
  bands: Record<string, Float32Array>;
  product: SafeProduct;
  /** Full-image offset of the arrays' (0, 0). */
  x0: number;
  y0: number;
}

/** Linear σ0 (no noise removal, as the ship detector reads it) of the product's valid window. */
export async function readSigma0(safePath: string, pols: string[] = ['VV', 'VH']): Promise<Sigma0Bands> {
  const product = await openSafeProduct(safePath);
  const w = product.validWindow!;
  const bands: Record<string, Float32Array> = {};
  for (const p of pols) {
    const read = await product.bands[p]!.readWindow(w, { quantity: 'sigma0', denoise: false });
    const out = new Float32Array(w.width * w.height);
    for (let i = 0; i < out.length; i++) out[i] = read.valid[i] ? read.data[i]! : Number.NaN;
    bands[p] = out;
  }
  return { width: w.width, height: w.height, bands, product, x0: w.x0, y0: w.y0 };
}

const toDb = (v: number) => (Number.isFinite(v) && v > 0 ? 10 * Math.log10(v) : Number.NaN);

function interleave(arrays: Float32Array[], convert: (v: number) => number): Float32Array {
  const n = arrays[0]!.length;
  const out = new Float32Array(n * arrays.length);
  for (let i = 0; i < n; i++) for (let b = 0; b < arrays.length; b++) out[i * arrays.length + b] = convert(arrays[b]![i]!);
  return out;
}

export interface WriteOptions {
  units?: 'linear' | 'db';
  /** Band descriptions; null writes none (then the file needs --pol). */
  descriptions?: string[] | null;
  pols?: string[];
  /** Linear files: write invalid pixels as 0 (SNAP's no-data) instead of NaN. */
  zeroNodata?: boolean;
}

function metadata(pols: string[], options: WriteOptions): GdalMetadata | undefined {
  if (options.descriptions === null) return undefined;
  const names = options.descriptions ?? pols.map((p) => (options.units === 'db' ? `Sigma0_${p}_db` : `Sigma0_${p}`));
  return { bands: names.map((description) => ({ description })) };
}

/** A radar-geometry σ0 GeoTIFF georeferenced by the product's geolocation grid as GCPs. */
export async function writeGcpSigma0(src: Sigma0Bands, out: string, options: WriteOptions = {}): Promise<void> {
  const pols = options.pols ?? Object.keys(src.bands);
  const grid = src.product.bands[pols[0]!]!.annotation.geolocationGrid;
  const gcps = grid.map((g) => ({ pixel: g.pixel - src.x0 + 0.5, line: g.line - src.y0 + 0.5, lon: g.longitude, lat: g.latitude, height: g.height }));
  const db = options.units === 'db';
  const writer = await TiffWriter.create(out, {
    width: src.width,
    height: src.height,
    bands: pols.length,
    sampleType: 'float32',
    georeference: { type: 'gcps', gcps },
    ...(options.zeroNodata ? {} : { nodata: Number.NaN }),
    gdalMetadata: metadata(pols, options),
  });
  const data = interleave(
    pols.map((p) => src.bands[p]!),
    db ? toDb : (v) => (Number.isFinite(v) ? v : options.zeroNodata ? 0 : Number.NaN),
  );
  await writer.writeRows(data, src.height);
  await writer.close();
}

export interface UtmGrid {
  epsg: number;
  originX: number;
  originY: number;
  pixel: number;
  width: number;
  height: number;
}

/** A north-up UTM σ0 GeoTIFF (nearest neighbour from the SAFE geometry). */
export async function writeUtmSigma0(src: Sigma0Bands, out: string, options: WriteOptions & { pixel?: number } = {}): Promise<UtmGrid> {
  const pols = options.pols ?? Object.keys(src.bands);
  const pixel = options.pixel ?? 10;
  const geo = src.product.geolocation;
  const [clon, clat] = geo.pixelToLonLat(src.y0 + src.height / 2, src.x0 + src.width / 2);
  const zone = Math.floor((clon + 180) / 6) + 1;
  const epsg = (clat >= 0 ? 32600 : 32700) + zone;
  const utm = proj4('EPSG:4326', `+proj=utm +zone=${zone}${clat < 0 ? ' +south' : ''} +datum=WGS84 +units=m +no_defs`);
  let minX = Infinity;
  let minY = Infinity;
  let maxX = -Infinity;
  let maxY = -Infinity;
  for (const [r, c] of [
    [0, 0],
    [0, src.width],
    [src.height, 0],
    [src.height, src.width],
  ] as const) {
    const [x, y] = utm.forward(geo.pixelToLonLat(src.y0 + r - 0.5, src.x0 + c - 0.5));
    minX = Math.min(minX, x!);
    maxX = Math.max(maxX, x!);
    minY = Math.min(minY, y!);
    maxY = Math.max(maxY, y!);
  }
  const originX = Math.floor(minX / pixel) * pixel;
  const originY = Math.ceil(maxY / pixel) * pixel;
  const width = Math.ceil((maxX - originX) / pixel);
  const height = Math.ceil((originY - minY) / pixel);

  // (line, pixel) of every output pixel centre: exact on a lattice, bilinear in between.
  const step = 16;
  const lw = Math.ceil(width / step) + 1;
  const lh = Math.ceil(height / step) + 1;
  const latticeLine = new Float64Array(lw * lh);
  const latticePixel = new Float64Array(lw * lh);
  for (let j = 0; j < lh; j++) {
    for (let i = 0; i < lw; i++) {
      const [lon, lat] = utm.inverse([originX + (i * step + 0.5) * pixel, originY - (j * step + 0.5) * pixel]);
      const p = geo.lonLatToPixel(lon!, lat!);
      latticeLine[j * lw + i] = p.line - src.y0;
      latticePixel[j * lw + i] = p.pixel - src.x0;
    }
  }
  const db = options.units === 'db';
  const arrays = pols.map(() => new Float32Array(width * height).fill(Number.NaN));
  for (let y = 0; y < height; y++) {
    const j = Math.min(lh - 2, Math.floor(y / step));
    const v = (y - j * step) / step;
    for (let x = 0; x < width; x++) {
      const i = Math.min(lw - 2, Math.floor(x / step));
      const u = (x - i * step) / step;
      const at = (a: Float64Array) =>
        (1 - v) * ((1 - u) * a[j * lw + i]! + u * a[j * lw + i + 1]!) + v * ((1 - u) * a[(j + 1) * lw + i]! + u * a[(j + 1) * lw + i + 1]!);
      const r = Math.round(at(latticeLine));
      const c = Math.round(at(latticePixel));
      if (r < 0 || c < 0 || r >= src.height || c >= src.width) continue;
      pols.forEach((p, b) => {
        const value = src.bands[p]![r * src.width + c]!;
        arrays[b]![y * width + x] = db ? toDb(value) : value;
      });
    }
  }
  const writer = await TiffWriter.create(out, {
    width,
    height,
    bands: pols.length,
    sampleType: 'float32',
    nodata: Number.NaN,
    georeference: { type: 'epsg', epsg, originX, originY, pixelWidth: pixel, pixelHeight: pixel },
    gdalMetadata: metadata(pols, options),
  });
  await writer.writeRows(interleave(arrays, (x) => x), height);
  await writer.close();
  return { epsg, originX, originY, pixel, width, height };
}

/** Centroid (mean of the outer ring's vertices) of a Polygon feature. */
export function featureCentre(f: { geometry: { coordinates: number[][][] } }): [number, number] {
  const ring = f.geometry.coordinates[0]!;
  let x = 0;
  let y = 0;
  for (const p of ring.slice(1)) {
    x += p[0]!;
    y += p[1]!;
  }
  return [x / (ring.length - 1), y / (ring.length - 1)];
}

/** Ground distance (m) between two lon/lat points (equirectangular; fine under a few km). */
export function distanceM(a: readonly number[], b: readonly number[]): number {
  const lat = ((a[1]! + b[1]!) / 2) * (Math.PI / 180);
  return Math.hypot((a[0]! - b[0]!) * 111_320 * Math.cos(lat), (a[1]! - b[1]!) * 110_574);
}

/** For each of `from`, the distance to the nearest of `to` (Infinity when `to` is empty). */
export function nearestDistances(from: readonly (readonly number[])[], to: readonly (readonly number[])[]): number[] {
  return from.map((p) => Math.min(Infinity, ...to.map((q) => distanceM(p, q))));
}
