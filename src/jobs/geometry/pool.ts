/**
 * The request polygon's geometry off the main thread (issue 10 item 1: no request may hold
 * the event loop for more than ~100 ms). Parsing, validating, measuring and clipping a
 * polygon of 100,000 vertices takes seconds of CPU, so polygons whose WKT is longer than
 * INLINE_WKT_CHARS go to the geometry thread (src/threads/geometryThread.ts: one worker thread,
 * separate from the analysis pool so a request never queues behind a detector's tiles);
 * smaller ones, a few milliseconds of work, run inline.
 */
import { onGeometryThread } from '../../threads/geometryThread.ts';
import type { Config } from '../../config.ts';
import type { SceneRecord } from '../../catalog/index.ts';
import type { AoiGeometry, PolygonLimits } from '../../geo/index.ts';
import type { CoverageEstimate } from '../../catalog/selection.ts';
import { selectAmong, type PolygonRequest, type ResolutionOutcome } from '../selectAmong.ts';
import { toAoiGeometry } from '../../geo/flat.ts';
import { checkPolygon, coverFlat, threadTasks, type PolygonCheck } from './tasks.ts';

/** About 1,500 vertices: validation, area and centroid stay within a few milliseconds. */
export const INLINE_WKT_CHARS = 32_768;

/**
 * Selection clips the polygon against every candidate scene (a time series may have a
 * hundred): inline while WKT characters × candidates stay under this, about 20 ms of
 * clipping.
 */
export const INLINE_SELECT_WORK = 65_536;

export async function checkPolygonOffMainThread(wkt: string, limits: PolygonLimits): Promise<PolygonCheck> {
  if (wkt.length <= INLINE_WKT_CHARS) return checkPolygon(wkt, limits);
  const checked = await onGeometryThread({ task: threadTasks.checkPolygonFlat, input: wkt, params: limits });
  return checked.ok ? { ...checked, aoi: toAoiGeometry(checked.aoi) } : checked;
}

export async function selectOffMainThread(request: PolygonRequest, candidates: SceneRecord[], config: Pick<Config, 'maxRequestBytes'>): Promise<ResolutionOutcome> {
  if (request.wkt.length * Math.max(1, candidates.length) <= INLINE_SELECT_WORK) return selectAmong(request, candidates, config);
  const { aoi, ...rest } = request;
  const outcome = await onGeometryThread({ task: threadTasks.selectFlat, input: { wkt: request.wkt, request: rest, candidates, maxRequestBytes: config.maxRequestBytes } });
  if (!outcome.ok) return outcome;
  const { input, ...resolution } = outcome.resolution;
  return { ok: true, resolution: { ...resolution, input: { ...input, extent: toAoiGeometry(input.extent), aoi } } };
}

/**
 * The part of a request polygon an uploaded image's footprint covers (a `tif_id` job), and the
 * covered extent (null when they do not meet): inline for small polygons, else on the request
 * thread, since clipping 100,000 vertices would hold the event loop.
 */
export async function coverOffMainThread(wkt: string, aoi: AoiGeometry, footprintWkt: string): Promise<{ estimate: CoverageEstimate; extent: AoiGeometry | null }> {
  const packed = wkt.length <= INLINE_WKT_CHARS ? coverFlat(aoi, footprintWkt) : await onGeometryThread({ task: threadTasks.coverWktFlat, input: wkt, params: footprintWkt });
  return { estimate: packed.estimate, extent: packed.extent && toAoiGeometry(packed.extent) };
}
