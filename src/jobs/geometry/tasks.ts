/**
 * The geometry a request needs, as tasks that run on the geometry thread for large
 * polygons (pool.ts, src/threads/geometryThread.ts) and inline for small ones. Polygons cross between threads as flat
 * arrays (geo/flat.ts): one Float64Array to clone, not 100,000 little arrays.
 */
import type { SceneRecord } from '../../catalog/index.ts';
import { GeometryError, type AoiGeometry, type PolygonLimits } from '../../geo/index.ts';
import { flatAreaSqm } from '../../geo/area.ts';
import { flatCentroidLonLat } from '../../geo/centroid.ts';
import { flattenAoi, toAoiGeometry, type FlatPolygons } from '../../geo/flat.ts';
import { parseAoiWktFlat } from '../../geo/wkt.ts';
import { readPolygonWkt } from '../../geo/wkt-reader.ts';
import { estimateCoverage, type CoverageEstimate } from '../../catalog/selection.ts';
import { parseAoiWkt } from '../../geo/wkt.ts';
import { selectAmong, type PolygonRequest, type Resolution, type ResolutionOutcome, type ResolvedInput } from '../selectAmong.ts';
import { defineThreadTasks } from '../../threads/task.ts';

type Checked<A> = { ok: true; aoi: A; areaSqkm: number; centroid: { lon: number; lat: number } } | { ok: false; message: string };

export type PolygonCheck = Checked<AoiGeometry>;
/** What the geometry thread sends back: the polygon flat. */
export type PackedCheck = Checked<FlatPolygons>;

/** Parse, limits, validity, geodesic area and centroid of a request polygon, kept flat. */
export function checkPolygonFlat(wkt: string, limits: PolygonLimits): PackedCheck {
  let aoi: FlatPolygons;
  try {
    aoi = parseAoiWktFlat(wkt, limits);
  } catch (e) {
    if (e instanceof GeometryError) return { ok: false, message: e.message };
    throw e;
  }
  return { ok: true, aoi, areaSqkm: flatAreaSqm(aoi) / 1e6, centroid: flatCentroidLonLat(aoi) };
}

/** Parse, limits, validity, geodesic area and centroid of a request polygon. */
export function checkPolygon(wkt: string, limits: PolygonLimits): PolygonCheck {
  const checked = checkPolygonFlat(wkt, limits);
  return checked.ok ? { ...checked, aoi: toAoiGeometry(checked.aoi) } : checked;
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** A polygon job's input without its AOI (the caller has it) and with the extent packed. */
export type PackedInput = DistributiveOmit<Exclude<ResolvedInput, { kind: 'scene' }>, 'extent' | 'aoi'> & { extent: FlatPolygons };

export type PackedOutcome =
  | Exclude<ResolutionOutcome, { ok: true }>
  | { ok: true; resolution: Omit<Resolution, 'input'> & { input: PackedInput } };

/** Scene selection for a request polygon given as its (already validated) WKT, the chosen input's extent packed. */
export function selectFlat(task: { wkt: string; request: Omit<PolygonRequest, 'aoi'>; candidates: SceneRecord[]; maxRequestBytes: number }): PackedOutcome {
  // Already validated on the way in: read it back without checking it again.
  const aoi = toAoiGeometry(readPolygonWkt(task.wkt));
  const outcome = selectAmong({ ...task.request, aoi } as PolygonRequest, task.candidates, task);
  if (!outcome.ok) return outcome;
  const input = outcome.resolution.input as Exclude<ResolvedInput, { kind: 'scene' }>;
  const { aoi: _aoi, extent, ...rest } = input;
  return { ok: true, resolution: { ...outcome.resolution, input: { ...rest, extent: flattenAoi(extent) } as PackedInput } };
}

/** The part of a request polygon an uploaded image covers, its extent flat for the way back. */
export type PackedCover = { estimate: CoverageEstimate; extent: FlatPolygons | null };

/**
 * How much of `aoi` (validated) the image footprint covers, and the covered extent: clipping a
 * polygon of many vertices, so large ones run on the geometry thread (pool.ts).
 */
export function coverFlat(aoi: AoiGeometry, footprintWkt: string): PackedCover {
  const estimate = estimateCoverage(aoi, [parseAoiWkt(footprintWkt)]);
  return { estimate, extent: estimate.polygon === null ? null : flattenAoi(parseAoiWkt(estimate.polygon)) };
}

/** coverFlat for a request polygon given as its (already validated) WKT. */
export function coverWktFlat(wkt: string, footprintWkt: string): PackedCover {
  return coverFlat(toAoiGeometry(readPolygonWkt(wkt)), footprintWkt);
}

/** What the geometry thread runs of this module (src/threads/task.ts). */
export const threadTasks = defineThreadTasks(import.meta.url, { checkPolygonFlat, selectFlat, coverWktFlat });
