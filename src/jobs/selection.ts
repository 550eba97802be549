/**
 * From a validated request to the imagery a job analyses: the scene of a scene_id, or the
 * catalog search + selection rule of each endpoint (spec: What the service does, items
 * 9–10). The same function serves the preview (predicted coverage) and the worker. The
 * search runs here; the geometry of the selection runs off the main thread for large
 * polygons (issue 10 item 1: no request may hold the event loop).
 */
import type { Config } from '../config.ts';
import { resolveSceneForJob, type SceneCatalog } from '../catalog/index.ts';
import { geodesicAreaSqkm } from '../geo/index.ts';
import { selectOffMainThread } from './geometry/pool.ts';
import { candidateQuery, type ResolutionOutcome } from './selectAmong.ts';
import type { ValidatedRequest } from './validate.ts';

export { coverageForResponse, type Resolution, type ResolutionOutcome, type ResolvedInput } from './selectAmong.ts';

export async function resolveRequest(request: ValidatedRequest, catalog: SceneCatalog, config: Config): Promise<ResolutionOutcome> {
  if (request.pattern === 'scene') {
    const found = await resolveSceneForJob(catalog, request.sceneId);
    if (!found.ok) return found;
    return {
      ok: true,
      resolution: {
        input: { kind: 'scene', scene: found.scene },
        coverage: null,
        sceneSelection: null,
        warnings: [],
        expectedAreaSqkm: geodesicAreaSqkm(found.scene.footprint),
      },
    };
  }
  const candidates = await catalog.search(candidateQuery(request));
  return selectOffMainThread(request, candidates, config);
}
