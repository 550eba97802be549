/**
 * 8-bit scaled SAR images (like the CSIRO oil / no-oil chips) as σ0 for the oil-slick engine.
 *
 * The grey → σ0 mapping of such images is not published. The working assumption, stated here
 * and in docs/oilslick.md and the CLI help: grey is linear in dB, 0 … 255 ↦ −35 … 0 dB
 * (GREY_DB_RANGE), which puts open sea near −16 … −10 dB, plausible for VV at mid incidence.
 * Contrasts in dB therefore scale with (maxDb − minDb) / 255 per grey level. Pixel spacing is
 * not given either: 10 m (IW GRD) is assumed.
 *
 * Masks: grey 0 is no data (scene borders are padded with 0); grey 255 in patches of at least
 * LAND_MIN_PIXELS pixels is land masked white by the dataset's authors — not sea. Smaller
 * saturated spots (ships, platforms) stay in: they are context.
 */
import jpeg from 'jpeg-js';
import { ImageryError } from '../../imagery/errors.ts';
import type { Sigma0Band, Sigma0Product } from '../../imagery/sigma0/types.ts';
import { labelRegions } from './darkSpots.ts';

export interface GreyDbMapping {
  /** dB of grey 0 and of grey 255. */
  minDb: number;
  maxDb: number;
}

export const GREY_DB_RANGE: Readonly<GreyDbMapping> = Object.freeze({ minDb: -35, maxDb: 0 });

/** Working assumption for chips without metadata (m). */
export const CHIP_PIXEL_SPACING_M = 10;

/** Saturated patches at least this large (pixels, 10 m: 0.04 km²) are masked land. */
export const LAND_MIN_PIXELS = 400;

export interface GreyImage {
  width: number;
  height: number;
  /** One byte per pixel, row-major. */
  grey: Uint8Array;
}

export interface GreySigma0 {
  width: number;
  height: number;
  /** Linear σ0. */
  sigma0: Float32Array;
  /** 1 where there is data (grey > 0). */
  valid: Uint8Array;
  /** 1 on masked land (large saturated patches). */
  land: Uint8Array;
}

/** Decode a JPEG (grey or RGB; the first channel is taken) to one byte per pixel. */
export function decodeGreyJpeg(bytes: Uint8Array): GreyImage {
  const im = jpeg.decode(bytes, { useTArray: true, formatAsRGBA: true, maxMemoryUsageInMB: 256 });
  const n = im.width * im.height;
  const grey = new Uint8Array(n);
  for (let i = 0; i < n; i++) grey[i] = im.data[4 * i]!;
  return { width: im.width, height: im.height, grey };
}

/** dB of a grey value under `mapping`. */
export function greyToDb(grey: number, mapping: GreyDbMapping = GREY_DB_RANGE): number {
  return mapping.minDb + ((mapping.maxDb - mapping.minDb) * grey) / 255;
}

/** σ0 (linear), data and land masks of an 8-bit image under `mapping`. */
export function greyToSigma0(image: GreyImage, mapping: GreyDbMapping = GREY_DB_RANGE): GreySigma0 {
  const { width, height, grey } = image;
  const n = width * height;
  const lut = new Float32Array(256);
  for (let g = 0; g < 256; g++) lut[g] = 10 ** (greyToDb(g, mapping) / 10);
  const sigma0 = new Float32Array(n);
  const valid = new Uint8Array(n);
  const saturated = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const g = grey[i]!;
    sigma0[i] = lut[g]!;
    valid[i] = g > 0 ? 1 : 0;
    saturated[i] = g === 255 ? 1 : 0;
  }
  const land = new Uint8Array(n);
  const lab = labelRegions(saturated, width, height);
  for (let i = 0; i < n; i++) {
    const l = lab.labels[i]!;
    if (l !== 0 && lab.sizes[l]! >= LAND_MIN_PIXELS) land[i] = 1;
  }
  return { width, height, sigma0, valid, land };
}

/**
 * A σ0 GeoTIFF of grey levels (read as raw values) as a product of linear σ0: its VV band's
 * grey g ↦ greyToDb(g) ↦ σ0; grey 0 (and any value outside 1 … 255) is no data.
 */
export function greySigma0Product(product: Sigma0Product, mapping: GreyDbMapping): Sigma0Product {
  const band = product.bands.VV;
  if (!band) throw new ImageryError('MEASUREMENT_UNAVAILABLE', `${product.productId} has no VV band (has ${product.polarisations.join(', ')}); oil slicks need VV`);
  const lut = new Float32Array(256);
  for (let g = 0; g < 256; g++) lut[g] = 10 ** (greyToDb(g, mapping) / 10);
  const vv: Sigma0Band = {
    polarisation: band.polarisation,
    hasMeasurement: band.hasMeasurement,
    validWindow: band.validWindow,
    annotation: band.annotation,
    async readWindow(window, options) {
      const out = await band.readWindow(window, options);
      for (let i = 0; i < out.data.length; i++) {
        if (out.valid[i] === 0) continue;
        const g = Math.round(out.data[i]!);
        if (g < 1 || g > 255) out.valid[i] = 0;
        out.data[i] = out.valid[i] ? lut[g]! : 0;
      }
      return out;
    },
  };
  return {
    location: product.location,
    productId: product.productId,
    polarisations: ['VV'],
    width: product.width,
    height: product.height,
    bands: { VV: vv },
    geolocation: product.geolocation,
    validWindow: product.validWindow,
    validFootprint: product.validFootprint,
    close: () => product.close(),
  };
}
