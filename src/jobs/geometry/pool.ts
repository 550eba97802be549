/**
 * The request polygon's geometry off the main thread (issue 10 item 1: no request may hold
 * the event loop for more than ~100 ms). Parsing, validating, measuring and clipping a
 * polygon of 100,000 vertices takes seconds of CPU, so polygons whose WKT is longer than
 * INLINE_WKT_CHARS go to one worker thread (piscina, separate from the analysis pool so a
 * request never queues behind a detector's tiles); smaller ones, a few milliseconds of
 * work, run inline.
 */
import { Piscina } from 'piscina';
import type { Config } from '../../config.ts';
import type { SceneRecord } from '../../catalog/index.ts';
import type { AoiGeometry, PolygonLimits } from '../../geo/index.ts';
import type { CoverageEstimate } from '../../catalog/selection.ts';
import { selectAmong, type PolygonRequest, type ResolutionOutcome } from '../selectAmong.ts';
import { toAoiGeometry } from '../../geo/flat.ts';
import { checkPolygon, coverFlat, type GeometryTask, type PackedCover, type PackedCheck, type PackedOutcome, type PolygonCheck, type UploadCount } from './tasks.ts';
import type { UploadFormat, UploadLimits, Validated } from '../../uploads/read.ts';
import type { ImageFacts, ImageKind } from '../../uploads/image.ts';

/** About 1,500 vertices: validation, area and centroid stay within a few milliseconds. */
export const INLINE_WKT_CHARS = 32_768;

/**
 * Selection clips the polygon against every candidate scene (a time series may have a
 * hundred): inline while WKT characters × candidates stay under this, about 20 ms of
 * clipping.
 */
export const INLINE_SELECT_WORK = 65_536;

let pool: Piscina | null = null;

function getPool(): Piscina {
  pool ??= new Piscina({
    filename: new URL('./worker-entry.mjs', import.meta.url).href,
    minThreads: 0,
    maxThreads: 1,
    idleTimeout: 60_000,
    // Some dependencies (web-worker, via geotiff) read workerData when loaded in a thread.
    workerData: {},
  });
  return pool;
}

function offThread<T>(task: GeometryTask): Promise<T> {
  return getPool().run(task) as Promise<T>;
}

export async function checkPolygonOffMainThread(wkt: string, limits: PolygonLimits): Promise<PolygonCheck> {
  if (wkt.length <= INLINE_WKT_CHARS) return checkPolygon(wkt, limits);
  const checked = await offThread<PackedCheck>({ kind: 'check', wkt, limits });
  return checked.ok ? { ...checked, aoi: toAoiGeometry(checked.aoi) } : checked;
}

export async function selectOffMainThread(request: PolygonRequest, candidates: SceneRecord[], config: Pick<Config, 'maxRequestBytes'>): Promise<ResolutionOutcome> {
  if (request.wkt.length * Math.max(1, candidates.length) <= INLINE_SELECT_WORK) return selectAmong(request, candidates, config);
  const { aoi, ...rest } = request;
  const outcome = await offThread<PackedOutcome>({ kind: 'select', wkt: request.wkt, request: rest, candidates, maxRequestBytes: config.maxRequestBytes });
  if (!outcome.ok) return outcome;
  const { input, ...resolution } = outcome.resolution;
  return { ok: true, resolution: { ...resolution, input: { ...input, extent: toAoiGeometry(input.extent), aoi } } };
}

/** An uploaded file's feature count, or why it cannot be read: always on the geometry thread. */
export function countUploadFeaturesOffMainThread(format: UploadFormat, bytes: Uint8Array, limits: UploadLimits): Promise<UploadCount> {
  return offThread<UploadCount>({ kind: 'upload', validate: false, format, bytes, limits });
}

/** An uploaded file parsed and every feature validated, on the geometry thread. */
export function validateUploadOffMainThread(format: UploadFormat, bytes: Uint8Array, limits: UploadLimits): Promise<Validated> {
  return offThread<Validated>({ kind: 'upload', validate: true, format, bytes, limits });
}

/** An uploaded image (a file on this machine) opened with its reader, on the geometry thread. */
export function inspectImageOffMainThread(imageKind: ImageKind, path: string): Promise<ImageFacts> {
  return offThread<ImageFacts>({ kind: 'image', imageKind, path });
}

/** Stops the geometry thread (tests, shutdown); idle, it does not keep the process alive. */
export async function closeGeometryPool(): Promise<void> {
  const p = pool;
  pool = null;
  if (p) await p.destroy();
}

/**
 * The part of a request polygon an uploaded image's footprint covers (a `tif_id` job), and the
 * covered extent (null when they do not meet): inline for small polygons, else on the geometry
 * thread, since clipping 100,000 vertices would hold the event loop.
 */
export async function coverOffMainThread(wkt: string, aoi: AoiGeometry, footprintWkt: string): Promise<{ estimate: CoverageEstimate; extent: AoiGeometry | null }> {
  const packed = wkt.length <= INLINE_WKT_CHARS ? coverFlat(aoi, footprintWkt) : await offThread<PackedCover>({ kind: 'cover', wkt, footprintWkt });
  return { estimate: packed.estimate, extent: packed.extent && toAoiGeometry(packed.extent) };
}
