/**
 * What the ship and oil-slick engines read of a product: calibrated σ0 by band and window,
 * a pixel ↔ lon/lat model, pixel spacing, the valid window. A Sentinel-1 GRD SAFE product
 * (src/imagery/safe) has this shape as it is; a GeoTIFF of calibrated σ0 (./geotiff.ts)
 * provides it from its georeferencing, without the SAFE annotation (no orbit, PRF or
 * incidence-angle grid).
 */
import type { BlockReaderOptions } from '../blockreader.js';
import type { CalibratedWindow, ReadWindowOptions } from '../safe/calibrate.js';
import type { SafeProduct, SafeSource } from '../safe/product.js';
import type { LonLatPolygon, PixelWindow } from '../window.js';

/** One polarisation's σ0. */
export interface Sigma0Band {
  readonly polarisation: string;
  /** True when the band's pixels can be read. */
  readonly hasMeasurement: boolean;
  /** Window of the image that holds pixels; null without. */
  readonly validWindow: PixelWindow | null;
  /**
   * Metres between columns (range) and rows (azimuth). A SAFE band takes them from its
   * annotation; a GeoTIFF from its georeferencing at the image centre.
   */
  readonly annotation: { readonly rangePixelSpacing: number; readonly azimuthPixelSpacing: number };
  /** Linear σ0 of a window (0 where invalid), as CalibratedWindow. Only quantity 'sigma0' is universal. */
  readWindow(window: PixelWindow, options: ReadWindowOptions): Promise<CalibratedWindow>;
}

/** Image (line, pixel) ↔ lon/lat; integer line/pixel is the centre of that pixel. */
export interface Sigma0Geolocation {
  pixelToLonLat(line: number, pixel: number): [number, number];
  /** NaN coordinates where the model cannot invert. */
  lonLatToPixel(lon: number, lat: number): { line: number; pixel: number };
  /** Incidence angle (degrees) at an image position. */
  incidenceAngle(line: number, pixel: number): number;
}

export interface Sigma0Product {
  readonly location: string;
  readonly productId: string;
  /** Polarisations with a band, e.g. ['VV', 'VH']. */
  readonly polarisations: string[];
  readonly width: number;
  readonly height: number;
  readonly bands: Readonly<Record<string, Sigma0Band>>;
  readonly geolocation: Sigma0Geolocation;
  /** Window of the image that every band covers; null when none has pixels. */
  readonly validWindow: PixelWindow | null;
  /** Outline of validWindow in lon/lat. */
  readonly validFootprint: LonLatPolygon | null;
  /** How another thread opens this same product (openProductSource); absent when it cannot (a remote or assembled product). */
  readonly source?: ProductSource;
  close(): Promise<void>;
}

/**
 * A product as plain, structured-cloneable data: the opener and its arguments. A worker thread
 * opens the same product from it (src/imagery/source.ts) and reads its own windows.
 */
export type ProductSource = SafeSource | { kind: 'sigma0-geotiff'; path: string; options: OpenSigma0Options };

export type Sigma0Units = 'linear' | 'db';

/** How ./geotiff.ts opens a σ0 GeoTIFF: here, beside ProductSource, which carries them to another thread. */
export interface OpenSigma0Options {
  /** Polarisation of each band in band order (e.g. ['VV', 'VH']); overrides the names. */
  pols?: string[];
  /** Default 'linear'. */
  units?: Sigma0Units;
  blockCache?: BlockReaderOptions;
}

/** A SAFE GRD product (with its annotation: orbit, PRF, incidence grid), not a bare σ0 raster. */
export function isSafeProduct(product: Sigma0Product): product is SafeProduct {
  return 'manifest' in product && 'missionId' in product;
}
