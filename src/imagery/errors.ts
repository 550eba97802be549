/**
 * Imagery failures as values with a code. Layers above map these codes to the
 * public error table (e.g. UNSUPPORTED_PRODUCT → INVALID_SCENE / SCENE_NOT_FOUND).
 */
export type ImageryErrorCode =
  /** The path or URL does not exist or cannot be opened. */
  | 'NOT_FOUND'
  /** The product is structurally broken: missing manifest/annotation, unparsable XML, inconsistent grid. */
  | 'INVALID_PRODUCT'
  /** A real product of a kind this module does not read (SLC, OCN, non-Sentinel-1, …). */
  | 'UNSUPPORTED_PRODUCT'
  /** The band has no measurement raster (metadata-only SAFE, e.g. a zip without tiffs). */
  | 'MEASUREMENT_UNAVAILABLE'
  /** A measurement TIFF inside a zip is compressed; random access needs it stored or extracted. */
  | 'COMPRESSED_ZIP_MEMBER'
  /** A pixel window that is empty, non-integer or otherwise unusable. */
  | 'INVALID_WINDOW'
  /** A coordinate reference system this module cannot build a proj4 definition for. */
  | 'UNSUPPORTED_CRS'
  /** A TIFF feature (compression, sample layout) geotiff.js cannot decode. */
  | 'UNSUPPORTED_RASTER'
  /** A remote archive (HTTP, S3) did not deliver after its retries: throttled, down, timed out. */
  | 'REMOTE_UNAVAILABLE';

export class ImageryError extends Error {
  readonly code: ImageryErrorCode;

  constructor(code: ImageryErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ImageryError';
    this.code = code;
  }
}

export function isImageryError(value: unknown, code?: ImageryErrorCode): value is ImageryError {
  return value instanceof ImageryError && (code === undefined || value.code === code);
}
