/**
 * What the scene-based detectors (ship, oil slick) need from a resolved job input: the
 * local SAFE product of the chosen GRD scene, and the polygon to clip to.
 */
import { JobFailure } from '../../contract/errors.ts';
import { isImageryError, type ImageryErrorCode } from '../../imagery/index.ts';
import type { AoiGeometry } from '../../geo/types.ts';
import type { SceneRecord } from '../../catalog/types.ts';
import type { ResolvedInput } from '../registry.ts';

export function sceneInput(input: ResolvedInput): { scene: SceneRecord; polygon: AoiGeometry | undefined } {
  if (input.kind === 'scene') return { scene: input.scene, polygon: undefined };
  if (input.kind === 'nearest') return { scene: input.scene, polygon: input.extent };
  throw new JobFailure('PROCESSING_ERROR', `a ${input.kind} input cannot feed a single-scene detector`);
}

/** The SAFE folder or zip of a GRD scene, if this service can read it locally. */
export function safeProductPath(scene: SceneRecord): string {
  const href = scene.assets.product?.href;
  if (!href || /^[a-z]+:\/\//i.test(href) || href.startsWith('/vsizip/')) {
    throw new JobFailure(
      'IMAGERY_UNAVAILABLE',
      'the selected scene has no local SAFE product to read (remote catalog entries need a local copy of the product)',
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
};

/** Imagery errors that mean "this scene's pixels cannot be read here" become a clear job failure. */
export function asImageryFailure(e: unknown): unknown {
  if (isImageryError(e) && e.code !== 'INVALID_WINDOW') {
    return new JobFailure('IMAGERY_UNAVAILABLE', `the scene's pixels cannot be read: ${UNREADABLE[e.code]}`);
  }
  return e;
}
