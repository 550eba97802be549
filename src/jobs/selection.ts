/**
 * From a validated request to the imagery a job analyses: the scene of a scene_id, or the
 * catalog search + selection rule of each endpoint (spec: What the service does, items
 * 9–10). The same function serves the preview (predicted coverage) and the worker.
 */
import type { Config } from '../config.ts';
import type { Coverage, SceneSelection, Warning } from '../contract/schemas.ts';
import {
  imageryProductFor,
  resolveSceneForJob,
  sceneQueryForNearest,
  sceneQueryForPeriod,
  selectChangePair,
  selectNearestScene,
  selectSeries,
  type CoverageEstimate,
  type SceneCatalog,
  type SceneRecord,
} from '../catalog/index.ts';
import { geodesicAreaSqkm, simplifyToWktBudget, type AoiGeometry } from '../geo/index.ts';
import type { ResolvedInput } from '../analysis/registry.ts';
import type { ValidatedRequest } from './validate.ts';

export type { ResolvedInput };

export interface Resolution {
  input: ResolvedInput;
  /** Estimated coverage (polygon input); null for scene_id input, where it is unknown. */
  coverage: Coverage | null;
  sceneSelection: SceneSelection | null;
  warnings: Warning[];
  /** Area the analysis is expected to cover, km². */
  expectedAreaSqkm: number;
}

export type ResolutionOutcome = { ok: true; resolution: Resolution } | { ok: false; code: 'SCENE_NOT_FOUND' | 'NO_SCENE_FOUND'; message: string };

/**
 * Bytes kept free in a request for the JSON around a resubmitted `coverage.polygon`
 * (spec: Coverage rules — the polygon is simplified to fit within the request size limit).
 */
const REQUEST_ENVELOPE_BYTES = 1024;

export function coverageForResponse(estimate: CoverageEstimate, config: Config, extent: AoiGeometry | null): Coverage {
  return {
    method: estimate.method,
    requested_area_sqkm: estimate.requested_area_sqkm,
    ratio: estimate.ratio,
    polygon: extent && estimate.polygon ? simplifyToWktBudget(extent, config.maxRequestBytes - REQUEST_ENVELOPE_BYTES) : null,
  };
}

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

  const productType = imageryProductFor(request.family, request.endpoint);
  const orbitDirection = request.orbitDirection ?? undefined;
  if (request.pattern === 'polygon_date') {
    const opts = { aoi: request.aoi, date: request.date, direction: request.dateDirection, orbitDirection, productTypes: [productType] };
    const selected = selectNearestScene(await catalog.search(sceneQueryForNearest(opts)), opts);
    if (!selected.ok) return selected;
    return fromSelection(selected, { kind: 'nearest', scene: selected.scene, extent: selected.analysisExtent, aoi: request.aoi }, config);
  }

  const opts = { aoi: request.aoi, dateStart: request.dateStart, dateEnd: request.dateEnd, orbitDirection, productTypes: [productType] };
  const candidates = await catalog.search(sceneQueryForPeriod(opts));
  if (request.endpoint === 'timeseries') {
    const selected = selectSeries(candidates, opts);
    if (!selected.ok) return selected;
    return fromSelection(selected, { kind: 'series', scenes: selected.scenes, extent: selected.analysisExtent, aoi: request.aoi }, config);
  }
  const selected = selectChangePair(candidates, opts);
  if (!selected.ok) return selected;
  return fromSelection(
    selected,
    { kind: 'pair', earlier: selected.earlier, later: selected.later, extent: selected.analysisExtent, aoi: request.aoi },
    config,
  );
}

/** The job fields every polygon selection yields, whatever rule chose the scenes. */
function fromSelection(
  selected: { analysisExtent: AoiGeometry; coverage: CoverageEstimate; scene_selection: SceneSelection; warnings: Warning[] },
  input: ResolvedInput,
  config: Config,
): ResolutionOutcome {
  return {
    ok: true,
    resolution: {
      input,
      coverage: coverageForResponse(selected.coverage, config, selected.analysisExtent),
      sceneSelection: selected.scene_selection,
      warnings: selected.warnings,
      expectedAreaSqkm: geodesicAreaSqkm(selected.analysisExtent),
    },
  };
}
