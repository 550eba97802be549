/**
 * What an uploaded image is (issue 14): a GeoTIFF of calibrated σ0 (src/imagery/sigma0, the
 * reader `sarwatch analyze ship|oilslick` uses on GeoTIFFs) or a zipped Sentinel-1 GRD SAFE
 * product (src/imagery/safe). Validation opens the stored file with that reader — it needs
 * a georeference (a CRS or GCPs) and at least one σ0 band of a known polarisation — and
 * keeps its polarisations, size and valid footprint. It runs on the geometry thread
 * (src/threads/geometryThread.ts, one thread: bounded); the reader reads headers and a few
 * samples, never the whole raster.
 *
 * Messages name the rule that failed in our words: band names, paths and other text of the
 * file are never echoed.
 */
import { ImageryError, type ImageryErrorCode } from '../imagery/errors.ts';
import { openSafeProduct } from '../imagery/safe/index.ts';
import { openSigma0GeoTiff } from '../imagery/sigma0/index.ts';
import type { Sigma0Product } from '../imagery/sigma0/types.ts';
import { parseAoiWkt, toWkt } from '../geo/index.ts';
import { defineThreadTasks } from '../threads/task.ts';

export type ImageKind = 'geotiff' | 'safe';

/** Content-Types of image uploads and the kind each names. */
export const IMAGE_MEDIA_TYPES: Record<string, ImageKind> = {
  'image/tiff': 'geotiff',
  'application/zip': 'safe',
};

/** The first bytes of each kind: a TIFF or BigTIFF header, a zip's first local file header. */
export function magicMatches(kind: ImageKind, head: Uint8Array): boolean {
  const b = (i: number) => head[i];
  if (kind === 'safe') return b(0) === 0x50 && b(1) === 0x4b && b(2) === 0x03 && b(3) === 0x04;
  const ii = b(0) === 0x49 && b(1) === 0x49 && b(3) === 0x00 && (b(2) === 42 || b(2) === 43);
  const mm = b(0) === 0x4d && b(1) === 0x4d && b(2) === 0x00 && (b(3) === 42 || b(3) === 43);
  return ii || mm;
}

export type ImageFacts =
  | { ok: true; polarisations: string[]; width: number; height: number; footprintWkt: string }
  | { ok: false; message: string };

const POLARISATIONS = new Set(['VV', 'VH', 'HH', 'HV']);

const GEOTIFF_REASONS: Partial<Record<ImageryErrorCode, string>> = {
  NOT_FOUND: 'the file is not a readable TIFF',
  UNSUPPORTED_CRS: 'the GeoTIFF is georeferenced in a coordinate reference system this service cannot read (use EPSG:4326, a WGS84 UTM zone, or GCPs)',
  UNSUPPORTED_RASTER: 'the TIFF uses a compression or sample layout this service cannot decode',
};

function geotiffReason(e: ImageryError): string {
  const known = GEOTIFF_REASONS[e.code];
  if (known) return known;
  if (/georef|geotransform|tie ?point|gcp|crs|geokey/i.test(e.message)) {
    return 'the GeoTIFF has no georeference: it needs a CRS (GeoKeys with a geotransform) or ground control points';
  }
  if (/σ0|sigma0|polarisation/i.test(e.message)) {
    return 'no band of the GeoTIFF is σ0 of a polarisation: name the bands (GDAL band descriptions such as "Sigma0_VV" or "VH")';
  }
  if (/pixel spacing/i.test(e.message)) return 'the georeference of the GeoTIFF gives no usable pixel spacing';
  return 'the file is not a GeoTIFF of calibrated σ0 this service reads';
}

function safeReason(e: ImageryError): string {
  switch (e.code) {
    case 'UNSUPPORTED_PRODUCT':
      return 'the zip holds a product this service does not analyse: it takes Sentinel-1 GRD products';
    case 'COMPRESSED_ZIP_MEMBER':
      return 'a measurement TIFF in the zip is compressed; zip the SAFE folder with its TIFFs stored (zip -0), as ESA does';
    case 'MEASUREMENT_UNAVAILABLE':
      return 'the zip has no measurement TIFF for its polarisations';
    default:
      return 'the zip is not a Sentinel-1 SAFE product (a .SAFE folder with manifest.safe, annotation and measurement files)';
  }
}

/** Opens the file at `path` (ending .tif or .zip) with the reader of its kind and reads its facts. */
export async function inspectImage(kind: ImageKind, path: string): Promise<ImageFacts> {
  let product: Sigma0Product;
  try {
    product = kind === 'safe' ? await openSafeProduct(path) : await openSigma0GeoTiff(path);
  } catch (e) {
    if (e instanceof ImageryError) return { ok: false, message: kind === 'safe' ? safeReason(e) : geotiffReason(e) };
    // geotiff.js throws plain errors on bytes that are not a TIFF.
    return { ok: false, message: kind === 'safe' ? safeReason(new ImageryError('INVALID_PRODUCT', '')) : 'the file is not a readable TIFF' };
  }
  try {
    const polarisations = product.polarisations.filter((p) => POLARISATIONS.has(p) && product.bands[p]);
    if (polarisations.length === 0) return { ok: false, message: 'the image has no σ0 band of a polarisation (VV, VH, HH or HV)' };
    if (!polarisations.some((p) => product.bands[p]!.hasMeasurement)) return { ok: false, message: 'the image has no readable pixels' };
    const footprint = product.validFootprint;
    if (!footprint || !footprint.coordinates[0]!.every(([lon, lat]) => Number.isFinite(lon) && Number.isFinite(lat) && Math.abs(lat) <= 90 && Math.abs(lon) <= 540)) {
      return { ok: false, message: 'the georeference of the image gives no valid footprint' };
    }
    const footprintWkt = toWkt(footprint);
    try {
      parseAoiWkt(footprintWkt);
    } catch {
      return { ok: false, message: 'the georeference of the image gives no valid footprint' };
    }
    return { ok: true, polarisations, width: product.width, height: product.height, footprintWkt };
  } finally {
    await product.close().catch(() => {});
  }
}

/** What the geometry thread runs of this module (src/threads/task.ts): an uploaded image inspected (its kind, then the file's path). */
export const threadTasks = defineThreadTasks(import.meta.url, { inspectImage });
