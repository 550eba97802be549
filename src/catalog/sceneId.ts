/**
 * scene_id input (ship, oilslick): what each family accepts at submission and how a job
 * resolves it (spec: Endpoints, "Differences between the two families"; Errors).
 *   detect:  a non-GRD (or unparsable) scene_id → 400 INVALID_SCENE at submission.
 *   analyze: accepted at submission; the job fails with SCENE_NOT_FOUND.
 */
import type { SceneCatalog } from './port.ts';
import { ProductNameError, parseProductName, sceneIdFromPath, type ProductName } from './productName.ts';
import type { SceneRecord } from './types.ts';

export type SceneIdSubmissionCheck =
  | { ok: true; name: ProductName | null }
  | { ok: false; code: 'INVALID_SCENE'; message: string };

/** The product name in a scene_id as a client may send it (`.SAFE`, `.zip`, `_COG` tolerated). */
export function normaliseSceneId(sceneId: string): string {
  return sceneIdFromPath(sceneId.trim());
}

function describe(sceneId: string): { name: ProductName | null; problem: string | null } {
  try {
    const name = parseProductName(normaliseSceneId(sceneId));
    if (name.productType !== 'GRD') {
      return { name, problem: `scene_id is a Sentinel-1 ${name.productType} product; only GRD products are accepted` };
    }
    return { name, problem: null };
  } catch (e) {
    // The reason, not the message: a scene_id is the client's text and is never repeated back.
    if (e instanceof ProductNameError) return { name: null, problem: `scene_id is not a Sentinel-1 product name: ${e.reason}` };
    throw e;
  }
}

export function checkSceneIdAtSubmission(sceneId: string, family: 'analyze' | 'detect'): SceneIdSubmissionCheck {
  const { name, problem } = describe(sceneId);
  if (family === 'analyze') return { ok: true, name: problem ? null : name };
  if (problem) return { ok: false, code: 'INVALID_SCENE', message: problem };
  return { ok: true, name };
}

export type SceneResolution = { ok: true; scene: SceneRecord } | { ok: false; code: 'SCENE_NOT_FOUND'; message: string };

/**
 * The GRD scene a scene_id job analyses. Non-GRD, unparsable and unknown ids give
 * SCENE_NOT_FOUND; a catalog that cannot be reached throws CatalogError (server-class).
 */
export async function resolveSceneForJob(catalog: SceneCatalog, sceneId: string): Promise<SceneResolution> {
  const { problem } = describe(sceneId);
  if (problem) return { ok: false, code: 'SCENE_NOT_FOUND', message: problem };
  const scene = await catalog.get(normaliseSceneId(sceneId));
  if (!scene) return { ok: false, code: 'SCENE_NOT_FOUND', message: 'scene_id was not found in the scene catalog' };
  if (scene.productType !== 'GRD') {
    return { ok: false, code: 'SCENE_NOT_FOUND', message: `scene_id resolves to a ${scene.productType} product; only GRD products are accepted` };
  }
  return { ok: true, scene };
}
