/**
 * What the scene-based detectors (ship, oil slick) need from a resolved job input: the SAFE
 * product of the chosen GRD scene or of an uploaded zip, or an uploaded σ0 GeoTIFF (read as
 * linear σ0, as its upload was validated and as `sarwatch analyze` reads one by default),
 * and the polygon to clip to.
 */
import { JobFailure } from '../../contract/errors.ts';
import { DEFAULT_INCIDENCE_DEG, isImageryError, openSigma0GeoTiff, type ImageryErrorCode, type Sigma0GeoTiff } from '../../imagery/index.ts';
import type { AoiGeometry } from '../../geo/types.ts';
import type { Warning } from '../../contract/schemas.ts';
import type { GeoTiffEncoding, ResolvedInput, ResolvedScene } from '../port.ts';

export type SceneSource = { kind: 'safe' | 'geotiff'; path: string; polygon: AoiGeometry | undefined; encoding?: GeoTiffEncoding };

export function sceneInput(input: ResolvedInput): SceneSource {
  if (input.kind === 'scene') return { kind: 'safe', path: safeProductPath(input.scene), polygon: undefined };
  if (input.kind === 'nearest') return { kind: 'safe', path: safeProductPath(input.scene), polygon: input.extent };
  if (input.kind === 'image') {
    if (input.file === null) throw new JobFailure('PROCESSING_ERROR', 'the uploaded image was not fetched before the analysis');
    return { kind: input.image === 'safe' ? 'safe' : 'geotiff', path: input.file, polygon: input.extent, encoding: input.encoding };
  }
  throw new JobFailure('PROCESSING_ERROR', `a ${input.kind} input cannot feed a single-scene detector`);
}

/** Runs `use` on an uploaded σ0 GeoTIFF (grey levels are read as they are, for the caller to map), closed after. */
export async function withSigma0GeoTiff<T>(file: string, encoding: GeoTiffEncoding | undefined, use: (product: Sigma0GeoTiff) => Promise<T>): Promise<T> {
  const product = await openSigma0GeoTiff(file, { pols: encoding?.pols, units: encoding?.grey ? 'linear' : encoding?.units });
  try {
    return await use(product);
  } finally {
    await product.close();
  }
}

/**
 * What a job on an uploaded σ0 GeoTIFF analyses differently from a SAFE product (which
 * carries its annotation): the job's warnings, as `sarwatch analyze` prints them.
 */
export const GEOTIFF_WARNINGS = {
  /** ship: the GeoTIFF has no orbit or PRF, so azimuth ghosts of bright targets are not removed. */
  ambiguityNotSuppressed: {
    code: 'AZIMUTH_AMBIGUITY_NOT_SUPPRESSED',
    message:
      'The GeoTIFF has no SAFE annotation (orbit, PRF): azimuth-ambiguity suppression was skipped, so ghosts of bright targets may be reported as vessels. The SAFE product (zipped, for an upload) has them removed.',
  },
  /** oilslick: no incidence-angle band, so the low-wind look-alike test used one angle everywhere. */
  incidenceAssumed: {
    code: 'INCIDENCE_ANGLE_ASSUMED',
    message: `The GeoTIFF has no incidence-angle band: the low-wind look-alike test assumed ${DEFAULT_INCIDENCE_DEG}° everywhere.`,
  },
} as const satisfies Record<string, Warning>;

/**
 * What openSafeProduct opens for a GRD scene: its local SAFE folder or zip, or the URL of
 * its STAC item (a product assembled from the item's assets, read remotely).
 */
export function safeProductPath(scene: ResolvedScene): string {
  const product = scene.assets.product;
  const href = product?.href;
  const remoteItem = product?.role === 'stac-item' && href !== undefined && /^(https?|s3):\/\//i.test(href);
  if (!href || (!remoteItem && (/^[a-z]+:\/\//i.test(href) || href.startsWith('/vsizip/')))) {
    throw new JobFailure(
      'IMAGERY_UNAVAILABLE',
      'the selected scene has no SAFE product to read: neither a local copy nor STAC assets with its annotation (safe-manifest, schema-product-<pol>)',
    );
  }
  return href;
}

/**
 * Why a scene's pixels cannot be read, for the job's error_message: by code only, since the
 * imagery message names files and products (scene ids never appear in job output).
 */
const UNREADABLE: Record<Exclude<ImageryErrorCode, 'INVALID_WINDOW'>, string> = {
  NOT_FOUND: 'its files cannot be opened',
  INVALID_PRODUCT: 'the product is damaged or incomplete',
  UNSUPPORTED_PRODUCT: 'the product is of a kind this service does not read',
  MEASUREMENT_UNAVAILABLE: 'the product has no measurement raster (metadata only)',
  COMPRESSED_ZIP_MEMBER: 'its measurement is compressed inside the zip (random access needs it stored or extracted)',
  UNSUPPORTED_CRS: 'its coordinate reference system is not supported',
  UNSUPPORTED_RASTER: 'its raster encoding is not supported',
  REMOTE_UNAVAILABLE: 'the archive serving its files did not answer after every retry',
};

/** Imagery errors that mean "this scene's pixels cannot be read here" become a clear job failure. */
export function asImageryFailure(e: unknown): unknown {
  if (isImageryError(e) && e.code !== 'INVALID_WINDOW') {
    return new JobFailure('IMAGERY_UNAVAILABLE', `the scene's pixels cannot be read: ${UNREADABLE[e.code]}`, { cause: e });
  }
  return e;
}
