/**
 * What the scene-based detectors (ship, oil slick) need from a resolved job input: the
 * local SAFE product of the chosen GRD scene, and the polygon to clip to.
 */
import { JobFailure } from '../../contract/errors.ts';
import { isImageryError } from '../../imagery/index.ts';
import type { AoiGeometry } from '../../geo/types.ts';
import type { SceneRecord } from '../../catalog/types.ts';
import type { ResolvedInput } from '../registry.ts';

export function sceneInput(input: ResolvedInput): { scene: SceneRecord; polygon: AoiGeometry | undefined } {
  if (input.kind === 'scene') return { scene: input.scene, polygon: undefined };
  if (input.kind === 'nearest') return { scene: input.scene, polygon: input.extent };
  throw new JobFailure('PROCESSING_ERROR', `a ${input.kind} input cannot feed a single-scene detector`);
}

/**
 * What openSafeProduct opens for a GRD scene: its local SAFE folder or zip, or the URL of
 * its STAC item (a product assembled from the item's assets, read remotely).
 */
export function safeProductPath(scene: SceneRecord): string {
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

/** Imagery errors that mean "this scene's pixels cannot be read here" become a clear job failure. */
export function asImageryFailure(e: unknown): unknown {
  if (isImageryError(e) && e.code !== 'INVALID_WINDOW') {
    return new JobFailure('IMAGERY_UNAVAILABLE', `the scene's pixels cannot be read: ${e.message}`);
  }
  return e;
}
