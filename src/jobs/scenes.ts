/**
 * Scene search for users (GET /api/v1/scenes, `sarwatch catalog list`): lets a user find
 * scene ids for `scene_id` input without leaving the service.
 */
import { ApiError } from '../contract/errors.ts';
import type { SceneListResponse, SceneSummary } from '../contract/schemas.ts';
import type { SceneCatalog, SceneQuery, SceneRecord } from '../catalog/index.ts';
import { GeometryError, parseAoiWkt, toWkt } from '../geo/index.ts';

const PRODUCT_TYPES = ['GRD', 'SLC', 'OCN', 'RAW', 'RTC'];
export const MAX_SCENE_LIMIT = 500;

export function toSceneSummary(r: SceneRecord): SceneSummary {
  return {
    scene_id: r.sceneId,
    product_type: r.productType,
    platform: r.platform,
    start_time: r.startTime,
    stop_time: r.stopTime,
    relative_orbit: r.relativeOrbit,
    frame: { start_deg: r.frame.startDeg, end_deg: r.frame.endDeg, ...(r.frame.burstId ? { burst_id: r.frame.burstId } : {}) },
    orbit_direction: r.orbitDirection,
    polarisations: r.polarisations,
    footprint: toWkt(r.footprint),
  };
}

function one(query: Record<string, unknown>, key: string): string | undefined {
  const v = query[key];
  if (v === undefined) return undefined;
  if (Array.isArray(v)) throw new ApiError('VALIDATION_ERROR', `${key} may be given once`);
  return String(v);
}

function day(query: Record<string, unknown>, key: string, endOfDay: boolean): Date | undefined {
  const v = one(query, key);
  if (v === undefined) return undefined;
  const d = new Date(`${v}T00:00:00Z`);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(v) || Number.isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== v) {
    throw new ApiError('VALIDATION_ERROR', `${key} must be a date in YYYY-MM-DD form`);
  }
  return endOfDay ? new Date(d.getTime() + 86_400_000 - 1) : d;
}

export function parseSceneQuery(query: Record<string, unknown>): SceneQuery & { limit: number } {
  const q: SceneQuery & { limit: number } = { limit: 100 };
  const polygon = one(query, 'polygon');
  if (polygon !== undefined) {
    try {
      q.intersects = parseAoiWkt(polygon);
    } catch (e) {
      if (e instanceof GeometryError) throw new ApiError('VALIDATION_ERROR', `polygon: ${e.message}`);
      throw e;
    }
  }
  q.start = day(query, 'date_start', false);
  q.end = day(query, 'date_end', true);
  if (q.start && q.end && q.end < q.start) throw new ApiError('VALIDATION_ERROR', 'date_end must not be before date_start');
  const types = one(query, 'product_type');
  if (types !== undefined) {
    const list = [...new Set(types.split(',').filter(Boolean))];
    for (const t of list) if (!PRODUCT_TYPES.includes(t)) throw new ApiError('VALIDATION_ERROR', `product_type has an invalid value; allowed: ${PRODUCT_TYPES.join(', ')}`);
    if (list.length) q.productTypes = list;
  }
  const dir = one(query, 'orbit_direction');
  if (dir !== undefined) {
    if (dir !== 'ascending' && dir !== 'descending') throw new ApiError('VALIDATION_ERROR', 'orbit_direction must be ascending or descending');
    q.orbitDirection = dir;
  }
  const limit = one(query, 'limit');
  if (limit !== undefined) {
    if (!/^\d+$/.test(limit) || Number(limit) < 1 || Number(limit) > MAX_SCENE_LIMIT) {
      throw new ApiError('VALIDATION_ERROR', `limit must be an integer from 1 to ${MAX_SCENE_LIMIT}`);
    }
    q.limit = Number(limit);
  }
  for (const k of Object.keys(q) as (keyof SceneQuery)[]) if (q[k] === undefined) delete q[k];
  return q;
}

export async function searchScenes(catalog: SceneCatalog, query: Record<string, unknown>): Promise<SceneListResponse> {
  const q = parseSceneQuery(query);
  const scenes = await catalog.search(q);
  return { scenes: scenes.slice(0, q.limit).map(toSceneSummary) };
}
