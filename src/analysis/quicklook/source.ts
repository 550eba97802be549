/**
 * The raster a quicklook is drawn from, whatever reads it: a σ0 product (SAFE GRD band or σ0
 * GeoTIFF, in image geometry) or an analysis-ready raster (RTC GeoTIFF/COG, on a map grid).
 * All a quicklook needs is a pixel ↔ lon/lat model, the ground spacing, and single rows read
 * as means over runs of pixels — never a full-resolution read of the whole image.
 */
// Not src/imagery/index.ts: pool threads load this module for sampleTask.ts, and the readers
// they already have (a scene tile's) should be all it costs them.
import { CalibratedRunSampler } from '../../imagery/safe/overview.ts';
import { isSafeProduct, type ProductSource, type Sigma0Product } from '../../imagery/sigma0/types.ts';
import type { RasterProduct } from '../../imagery/rtc/raster.ts';
import type { PixelWindow } from '../../imagery/window.ts';
import type { Polygon } from '../../geo/types.ts';

export interface QuicklookSource {
  /** The image's pixels that hold data. */
  readonly window: PixelWindow;
  /** The outline of `window` in lon/lat (the picture of a whole scene covers it). */
  readonly footprint: Polygon;
  /** NaN where the model has no answer. Integer row/col is a pixel centre. */
  lonLatToPixel(lon: number, lat: number): { row: number; col: number };
  pixelToLonLat(row: number, col: number): [number, number];
  /** Row means of linear backscatter over runs of `runLength` pixels of columns x0 … x0 + width − 1; NaN where a run has no data. */
  runReader(x0: number, width: number, runLength: number): (row: number) => Promise<Float32Array>;
  /** What the values are, for the picture's notes: 'σ0' (GRD) or 'γ0' (RTC). */
  readonly quantity: string;
  /**
   * How a thread of the analysis pool reads the same rows (sampleTask.ts): the product as
   * another thread opens it and the band. Absent when only this thread can read it.
   */
  readonly pooled?: PooledSource;
}

/** A quicklook's source as a pool thread opens it: a σ0 product's band, or a local raster file's band. */
export type PooledSource = { kind: 'sigma0'; source: ProductSource; polarisation: string } | { kind: 'raster'; path: string; band: number };

/** Means of the finite values over runs of `runLength` (NaN where a run has none). */
function runMeans(values: ArrayLike<number>, valid: ArrayLike<number> | null, runLength: number): Float32Array {
  const runs = Math.ceil(values.length / runLength);
  const out = new Float32Array(runs);
  for (let r = 0; r < runs; r++) {
    const to = Math.min(values.length, (r + 1) * runLength);
    let sum = 0;
    let n = 0;
    for (let x = r * runLength; x < to; x++) {
      const v = values[x]!;
      if ((valid && !valid[x]) || !Number.isFinite(v)) continue;
      sum += v;
      n++;
    }
    out[r] = n ? sum / n : Number.NaN;
  }
  return out;
}

/** One polarisation of a σ0 product, in image geometry (rows are lines, columns pixels). */
export function sigma0Source(product: Sigma0Product, polarisation: string): QuicklookSource {
  const band = product.bands[polarisation];
  const window = product.validWindow;
  const footprint = product.validFootprint;
  if (!band || !band.hasMeasurement || !window || !footprint) throw new Error(`the product has no readable ${polarisation} measurement`);
  const geo = product.geolocation;
  return {
    window,
    footprint: { type: 'Polygon', coordinates: footprint.coordinates },
    quantity: 'σ0',
    ...(product.source ? { pooled: { kind: 'sigma0' as const, source: threadSource(product.source), polarisation } } : {}),
    lonLatToPixel(lon, lat) {
      const p = geo.lonLatToPixel(lon, lat);
      return { row: p.line, col: p.pixel };
    },
    pixelToLonLat: (row, col) => geo.pixelToLonLat(row, col),
    runReader(x0, width, runLength) {
      // A SAFE band: DN decoded, calibrated and denoised once per run (src/imagery/safe/overview.ts).
      if (isSafeProduct(product)) {
        const sampler = new CalibratedRunSampler(product.bands[polarisation]!, x0, width, runLength, { denoise: true });
        return (row) => sampler.line(row);
      }
      return async (row) => {
        const { data, valid } = await band.readWindow({ x0, y0: row, width, height: 1 }, { quantity: 'sigma0', denoise: true });
        return runMeans(data, valid, runLength);
      };
    },
  };
}

/**
 * A SAFE source as the detector opened it on the pool (every band: `firstOf` dropped): a pool
 * thread then finds the scene already open (engine/products.ts keys by the source) instead of
 * parsing its XML again.
 */
function threadSource(source: ProductSource): ProductSource {
  if (source.kind !== 'safe') return source;
  const { firstOf: _firstOf, ...options } = source.options;
  return { kind: 'safe', path: source.path, options };
}

/** One band of an analysis-ready raster (RTC γ0, linear), on its map grid. */
export function rasterSource(raster: RasterProduct, band = 0, path?: string): QuicklookSource {
  return {
    window: { x0: 0, y0: 0, width: raster.width, height: raster.height },
    // A local file another thread can open (not a URL: its byte cache is this thread's).
    ...(path && !/^[a-z][a-z0-9+.-]*:\/\//i.test(path) ? { pooled: { kind: 'raster' as const, path, band } } : {}),
    footprint: raster.bounds(),
    quantity: 'γ0',
    lonLatToPixel: (lon, lat) => raster.lonLatToPixel(lon, lat),
    pixelToLonLat: (row, col) => raster.pixelToLonLat(row, col),
    runReader(x0, width, runLength) {
      return async (row) => {
        const { data } = await raster.readWindow({ x0, y0: row, width, height: 1 }, { bands: [band] });
        return runMeans(data[0]!, null, runLength);
      };
    },
  };
}

/** Metres between the centres of neighbouring pixels at the window's centre: [along rows (between columns), across rows (between rows)]. */
export function groundSpacing(source: QuicklookSource): { col: number; row: number } {
  const { x0, y0, width, height } = source.window;
  const r = y0 + Math.floor(height / 2);
  const c = x0 + Math.floor(width / 2);
  const here = source.pixelToLonLat(r, c);
  const metres = (p: [number, number]) => {
    const k = Math.PI / 180;
    return Math.hypot((p[0] - here[0]) * Math.cos(here[1] * k) * 6_371_008.8 * k, (p[1] - here[1]) * 6_371_008.8 * k);
  };
  return { col: metres(source.pixelToLonLat(r, c + 1)), row: metres(source.pixelToLonLat(r + 1, c)) };
}
