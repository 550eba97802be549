/**
 * Which scenes a polygon request analyses, among candidates the catalog returned, and the
 * coverage that follows (spec: What the service does, items 9–10). Pure and synchronous;
 * on a large polygon it is heavy (clipping against every footprint, simplifying the
 * covered extent), so selection.ts runs it on the geometry thread (geometry/pool.ts).
 */
import type { Config } from '../config.ts';
import type { Coverage, SceneSelection, Warning } from '../contract/schemas.ts';
// The selection module itself, not catalog/index.ts: the geometry thread loads this file
// and needs none of the catalogs' readers (GeoTIFF, zip, STAC clients).
import { SCENE_SELECTORS, areaSqkm, sceneQueryForNearest, sceneQueryForPeriod, type CoverageEstimate } from '../catalog/selection.ts';
import { endpointOf } from '../endpoints/index.ts';
import type { SceneQuery, SceneRecord } from '../catalog/types.ts';
import { bboxOf, simplifyToWktBudget, type AoiGeometry } from '../geo/index.ts';
import type { ResolvedInput } from '../analysis/port.ts';
import type { ValidatedRequest } from './request.ts';

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

export type PolygonRequest = Extract<ValidatedRequest, { pattern: 'polygon_date' | 'polygon_period' }>;

/**
 * Bytes kept free in a request for the JSON around a resubmitted `coverage.polygon`
 * (spec: Coverage rules — the polygon is simplified to fit within the request size limit).
 */
const REQUEST_ENVELOPE_BYTES = 1024;

export function coverageForResponse(estimate: CoverageEstimate, config: Pick<Config, 'maxRequestBytes'>, extent: AoiGeometry | null): Coverage {
  return {
    method: estimate.method,
    requested_area_sqkm: estimate.requested_area_sqkm,
    ratio: estimate.ratio,
    polygon: extent && estimate.polygon ? simplifyToWktBudget(extent, config.maxRequestBytes - REQUEST_ENVELOPE_BYTES) : null,
  };
}

function boundingBox(aoi: AoiGeometry): AoiGeometry {
  const [x0, y0, x1, y1] = bboxOf(aoi);
  return { type: 'Polygon', coordinates: [[[x0, y0], [x1, y0], [x1, y1], [x0, y1], [x0, y0]]] };
}

/**
 * The catalog query for a polygon request. It asks for scenes meeting the polygon's
 * bounding box: a catalog then matches four edges, not the polygon's every vertex, on the
 * main thread; `selectAmong` drops the scenes that miss the polygon itself.
 */
export function candidateQuery(request: PolygonRequest): SceneQuery {
  const productTypes = [endpointOf(request.endpoint).imagery[request.family]];
  const orbitDirection = request.orbitDirection ?? undefined;
  const aoi = boundingBox(request.aoi);
  if (request.pattern === 'polygon_date') {
    return sceneQueryForNearest({ aoi, date: request.date, direction: request.dateDirection, orbitDirection, productTypes });
  }
  return sceneQueryForPeriod({ aoi, dateStart: request.dateStart, dateEnd: request.dateEnd, orbitDirection, productTypes });
}

/** The endpoint's selection rule (its descriptor's `selector`) among `candidates`, and the coverage it gives. */
export function selectAmong(request: PolygonRequest, candidates: readonly SceneRecord[], config: Pick<Config, 'maxRequestBytes'>): ResolutionOutcome {
  const endpoint = endpointOf(request.endpoint);
  const productTypes = [endpoint.imagery[request.family]];
  const orbitDirection = request.orbitDirection ?? undefined;
  if (request.pattern === 'polygon_date') {
    const opts = { aoi: request.aoi, date: request.date, direction: request.dateDirection, orbitDirection, productTypes };
    const selected = SCENE_SELECTORS.nearest(candidates, opts);
    if (!selected.ok) return selected;
    return fromSelection(selected, { kind: 'nearest', scene: selected.scene, extent: selected.analysisExtent, aoi: request.aoi }, config);
  }

  const opts = { aoi: request.aoi, dateStart: request.dateStart, dateEnd: request.dateEnd, orbitDirection, productTypes };
  if (endpoint.selector === 'series') {
    const selected = SCENE_SELECTORS.series(candidates, opts);
    if (!selected.ok) return selected;
    return fromSelection(selected, { kind: 'series', scenes: selected.scenes, extent: selected.analysisExtent, aoi: request.aoi }, config);
  }
  if (endpoint.selector !== 'pair') throw new Error(`${endpoint.id}: a period request cannot use the ${endpoint.selector} selector`);
  const selected = SCENE_SELECTORS.pair(candidates, opts);
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
  config: Pick<Config, 'maxRequestBytes'>,
): ResolutionOutcome {
  return {
    ok: true,
    resolution: {
      input,
      coverage: coverageForResponse(selected.coverage, config, selected.analysisExtent),
      sceneSelection: selected.scene_selection,
      warnings: selected.warnings,
      expectedAreaSqkm: areaSqkm(selected.analysisExtent),
    },
  };
}
