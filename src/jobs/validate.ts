/**
 * Semantic validation of a submission body, after its JSON schema has passed. Submission
 * and preview call exactly this function, so they reject the same inputs in the same
 * order with the same codes (spec: Preview, "Validation runs the same functions in the
 * same order as submission").
 *
 * Order: input pattern → ais_id's, include_fixed_structures' and near_shore_detection's endpoint → scene_id → dates → tif_id, polygon_id (404 unknown,
 * 409 not ready) → polygon (size limits, WKT, rings) → area limit → ais_id (404, 409). A `polygon_id` stands for the union of a
 * ready upload (src/uploads/lookup.ts), validated as a `polygon`; a `tif_id` for a ready
 * image upload, whose footprint is the AOI when no polygon is given.
 * A large polygon is checked on the geometry thread (jobs/geometry/pool.ts), hence async.
 */
import { ApiError } from '../contract/errors.ts';
import type { Family, SubmittableEndpoint } from '../contract/enums.ts';
import { endpointOf } from '../endpoints/index.ts';
import type { PeriodJobBody, SceneJobBody, SubmissionBody } from '../contract/schemas.ts';
import { NEAR_SHORE_DETECTION_DEFAULT } from '../contract/bodies.ts';
import type { Config } from '../config.ts';
import type { AoiGeometry } from '../geo/index.ts';
import type { ValidatedInput, ValidatedRequest } from './request.ts';
import { checkPolygonOffMainThread } from './geometry/pool.ts';
import { checkSceneIdAtSubmission } from '../catalog/sceneId.ts';
import { priceMicros } from './credits.ts';
import { NO_UPLOADS, type UploadLookups } from '../uploads/lookup.ts';

const invalid = (message: string) => new ApiError('VALIDATION_ERROR', message);

/**
 * `uploads` resolves a `polygon_id` of the caller's account to its union's WKT and a `tif_id`
 * to its image, or throws 404 / 409 (src/uploads/lookup.ts).
 */
export async function validateSubmission(
  endpoint: SubmittableEndpoint,
  family: Family,
  body: SubmissionBody,
  config: Config,
  uploads: UploadLookups = NO_UPLOADS,
): Promise<ValidatedRequest> {
  checkAoiFields(endpoint, body);
  const aisId = checkAisField(endpoint, body);
  const includeFixedStructures = (body as SceneJobBody).include_fixed_structures;
  if (includeFixedStructures !== undefined && endpoint !== 'ship') throw invalid(`include_fixed_structures applies to ship jobs only, not to ${endpoint}`);
  const nearShoreDetection = (body as SceneJobBody).near_shore_detection;
  if (nearShoreDetection !== undefined && endpoint !== 'ship') throw invalid(`near_shore_detection applies to ship jobs only, not to ${endpoint}`);
  const request = endpointOf(endpoint).input === 'scene' ? await validateSceneBody(endpoint, family, body as SceneJobBody, config, uploads) : await validatePeriodBody(endpoint, family, body as PeriodJobBody, config, uploads);
  const fixed = includeFixedStructures === undefined ? request : { ...request, includeFixedStructures };
  const ship = endpoint === 'ship' ? { ...fixed, nearShoreDetection: nearShoreDetection ?? NEAR_SHORE_DETECTION_DEFAULT } : fixed;
  return aisId === undefined ? ship : { ...ship, ais: await uploads.ais(aisId) };
}

/** `ais_id`: ship only, on a scene or polygon + date (a scene's acquisition time), not on an uploaded image. */
function checkAisField(endpoint: SubmittableEndpoint, body: SubmissionBody): string | undefined {
  const aisId = (body as SceneJobBody).ais_id;
  if (aisId === undefined) return undefined;
  if (endpoint !== 'ship') throw invalid(`ais_id applies to ship jobs only, not to ${endpoint}`);
  if ((body as SceneJobBody).tif_id !== undefined) throw invalid('ais_id cannot be given with tif_id: an uploaded image has no known acquisition time to move the AIS positions to');
  return aisId;
}

/** `polygon` and `polygon_id` are one AOI given two ways: never both; `polygon_id` only where the endpoint takes uploads only. */
function checkAoiFields(endpoint: SubmittableEndpoint, body: SubmissionBody): void {
  if (body.polygon !== undefined && body.polygon_id !== undefined) throw invalid('polygon and polygon_id are mutually exclusive: give one of them');
  if (endpointOf(endpoint).aoi === 'upload' && body.polygon !== undefined) throw invalid(`${endpoint} takes polygon_id (an upload), not polygon`);
  if (endpointOf(endpoint).input === 'period' && body.polygon === undefined && body.polygon_id === undefined) {
    throw invalid('body: missing required field "polygon" (or "polygon_id", a polygon upload)');
  }
}

async function validateSceneBody(endpoint: SubmittableEndpoint, family: Family, body: SceneJobBody, config: Config, uploads: UploadLookups): Promise<ValidatedInput> {
  if (body.tif_id !== undefined) return validateImageBody(endpoint, family, body, config, uploads);
  const hasScene = body.scene_id !== undefined;
  const hasPolygon = body.polygon !== undefined || body.polygon_id !== undefined;
  if (hasScene && hasPolygon) throw invalid(`${endpoint} takes either scene_id or polygon + date, not both`);
  if (!hasScene && !hasPolygon) throw invalid(`${endpoint} needs scene_id, or polygon + date (polygon as WKT, or polygon_id naming an upload)`);

  if (hasScene) {
    const extras = (['date', 'date_direction', 'orbit_direction'] as const).filter((k) => body[k] !== undefined);
    if (extras.length) throw invalid(`${extras.join(', ')} only apply with polygon input, not with scene_id`);
    const sceneId = body.scene_id!.trim();
    const check = checkSceneIdAtSubmission(sceneId, family);
    if (!check.ok) throw new ApiError('INVALID_SCENE', check.message);
    return { pattern: 'scene', endpoint, family, sceneId };
  }

  if (body.date === undefined) throw invalid(`${endpoint} with polygon needs date (YYYY-MM-DD)`);
  checkCalendarDate('date', body.date);
  const wkt = body.polygon ?? (await uploads.aoi(body.polygon_id!));
  const { aoi, areaSqkm, centroid } = await validatePolygon(endpoint, wkt, config);
  return {
    pattern: 'polygon_date',
    endpoint,
    family,
    aoi,
    wkt,
    polygonId: body.polygon_id ?? null,
    areaSqkm,
    centroid,
    date: body.date,
    dateDirection: body.date_direction ?? 'nearest',
    orbitDirection: body.orbit_direction ?? null,
  };
}

/** `tif_id`: the uploaded image instead of a scene; a polygon (either way) only narrows it. */
async function validateImageBody(endpoint: SubmittableEndpoint, family: Family, body: SceneJobBody, config: Config, uploads: UploadLookups): Promise<ValidatedInput> {
  const extras = (['scene_id', 'date', 'date_direction', 'orbit_direction'] as const).filter((k) => body[k] !== undefined);
  if (extras.length) throw invalid(`tif_id names the image to analyse: ${extras.join(', ')} cannot be given with it`);
  const image = await uploads.image(body.tif_id!);
  const polygon = body.polygon ?? (body.polygon_id !== undefined ? await uploads.aoi(body.polygon_id) : undefined);
  const wkt = polygon ?? image.footprintWkt;
  const { aoi, areaSqkm, centroid } = await validatePolygon(endpoint, wkt, config);
  return { pattern: 'image', endpoint, family, image, aoi, wkt, polygonId: body.polygon_id ?? null, areaSqkm, centroid };
}

async function validatePeriodBody(endpoint: SubmittableEndpoint, family: Family, body: PeriodJobBody, config: Config, uploads: UploadLookups): Promise<ValidatedInput> {
  checkCalendarDate('date_start', body.date_start);
  checkCalendarDate('date_end', body.date_end);
  if (body.date_end < body.date_start) throw invalid('date_end must not be before date_start');
  const maxYears = endpointOf(endpoint).limits.maxPeriodYears;
  if (maxYears !== undefined) {
    const limit = addYears(body.date_start, maxYears);
    if (body.date_end > limit) {
      throw invalid(`${endpoint} date range exceeds the limit of ${maxYears} years (date_end at most ${limit})`);
    }
  }
  const wkt = body.polygon ?? (await uploads.aoi(body.polygon_id!));
  const { aoi, areaSqkm, centroid } = await validatePolygon(endpoint, wkt, config);
  return {
    pattern: 'polygon_period',
    endpoint,
    family,
    aoi,
    wkt,
    polygonId: body.polygon_id ?? null,
    areaSqkm,
    centroid,
    dateStart: body.date_start,
    dateEnd: body.date_end,
    orbitDirection: body.orbit_direction ?? null,
  };
}

async function validatePolygon(
  endpoint: SubmittableEndpoint,
  wkt: string,
  config: Config,
): Promise<{ aoi: AoiGeometry; areaSqkm: number; centroid: { lon: number; lat: number } }> {
  const checked = await checkPolygonOffMainThread(wkt, config.polygonLimits);
  if (!checked.ok) throw invalid(`polygon: ${checked.message}`);
  const { aoi, areaSqkm, centroid } = checked;
  const limit = config.areaLimitsSqkm[endpoint];
  if (areaSqkm > limit) {
    throw invalid(`polygon area ${areaSqkm.toFixed(2)} km² exceeds the limit of ${limit} km² for ${endpoint}`);
  }
  if (!(areaSqkm > 0)) throw invalid('polygon has zero area');
  return { aoi, areaSqkm, centroid };
}

/** The schema checks the shape; this rejects dates that do not exist (2023-02-30). */
function checkCalendarDate(field: string, value: string): void {
  const d = new Date(`${value}T00:00:00Z`);
  if (Number.isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== value) {
    throw invalid(`${field} is not a valid calendar date (YYYY-MM-DD)`);
  }
}

/** Same month and day N years later; 29 February maps to 28 February in a common year. */
export function addYears(date: string, years: number): string {
  const [y, m, d] = date.split('-').map(Number);
  const target = new Date(Date.UTC(y + years, m - 1, d));
  if (target.getUTCMonth() !== m - 1) target.setUTCDate(0);
  return target.toISOString().slice(0, 10);
}

/** What a submission reserves: its estimate, or a nominal full scene for scene_id input. */
export function reservationMicros(req: ValidatedRequest, config: Config): number {
  const price = config.pricesPerSqkm[req.endpoint];
  return priceMicros(req.pattern === 'scene' ? config.sceneReserveSqkm : req.areaSqkm, price);
}
