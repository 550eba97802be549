/**
 * From a validated request to the imagery a job analyses: the scene of a scene_id, or the
 * catalog search + selection rule of each endpoint (spec: What the service does, items
 * 9–10). The same function serves the preview (predicted coverage) and the worker. The
 * search runs here; the geometry of the selection runs off the main thread for large
 * polygons (issue 10 item 1: no request may hold the event loop).
 */
import type { Config } from '../config.ts';
import { lowCoverageWarning, resolveSceneForJob, type CoverageEstimate, type SceneCatalog } from '../catalog/index.ts';
import { geodesicAreaSqkm, type AoiGeometry } from '../geo/index.ts';
import { coverOffMainThread, selectOffMainThread } from './geometry/pool.ts';
import { candidateQuery, type ResolutionOutcome } from './selectAmong.ts';
import type { ValidatedRequest } from './request.ts';

import { coverageForResponse } from './selectAmong.ts';
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
  if (request.pattern === 'image') return await resolveImage(request, config);
  const candidates = await catalog.search(candidateQuery(request));
  return selectOffMainThread(request, candidates, config);
}

/**
 * A `tif_id` job analyses its uploaded image where it meets the AOI: no catalog search, no
 * scene selection (scene_selection null: an upload's acquisition month is not trusted).
 */
async function resolveImage(request: Extract<ValidatedRequest, { pattern: 'image' }>, config: Pick<Config, 'maxRequestBytes'>): Promise<ResolutionOutcome> {
  // Without a polygon the AOI is the footprint: all of it is covered, without clipping noise.
  const whole = request.wkt === request.image.footprintWkt;
  let estimate: CoverageEstimate;
  let extent: AoiGeometry | null;
  if (whole) {
    estimate = { method: 'estimated', requested_area_sqkm: Math.round(request.areaSqkm * 1e6) / 1e6, ratio: 1, polygon: request.wkt };
    extent = request.aoi;
  } else {
    ({ estimate, extent } = await coverOffMainThread(request.wkt, request.aoi, request.image.footprintWkt));
  }
  if (extent === null) return { ok: false, code: 'NO_SCENE_FOUND', message: 'the uploaded image (tif_id) does not cover the polygon' };
  const low = lowCoverageWarning(estimate.ratio);
  return {
    ok: true,
    resolution: {
      input: { kind: 'image', image: request.image.kind, key: request.image.key, file: null, extent, aoi: request.aoi },
      coverage: coverageForResponse(estimate, config, extent),
      sceneSelection: null,
      warnings: low ? [low] : [],
      expectedAreaSqkm: geodesicAreaSqkm(extent),
    },
  };
}
