/**
 * Public API schemas (TypeBox → JSON Schema). The same objects validate request bodies in
 * Fastify, describe responses in /openapi.json, and type the SDK.
 */
import Type, { type Static } from 'typebox';
import { ENDPOINT_IDS, JOB_STATUSES, SCOPES, WARNING_CODES } from './enums.ts';
import { IsoDate, OrbitDirection } from './bodies.ts';
import { JOB_FAILURES, type JobFailureCode } from './errors.ts';

const IsoTimestamp = Type.String({ description: 'ISO 8601 UTC timestamp with Z suffix', examples: ['2024-06-01T12:00:00.000Z'] });

export { FieldsJobBody, PeriodJobBody, SceneJobBody, type SubmissionBody } from './bodies.ts';

const EndpointIdSchema = Type.Enum([...ENDPOINT_IDS]);
const StatusSchema = Type.Enum([...JOB_STATUSES]);

export const Warning = Type.Object({ code: Type.String({ description: `Machine-readable code, one of ${WARNING_CODES.join(', ')}` }), message: Type.String() });
export type Warning = Static<typeof Warning>;

export const Coverage = Type.Object({
  method: Type.Union([Type.Literal('measured'), Type.Literal('estimated')]),
  requested_area_sqkm: Type.Number(),
  ratio: Type.Number({ minimum: 0, maximum: 1, description: 'Fraction analysed, rounded down to two decimals' }),
  polygon: Type.Union([Type.String(), Type.Null()], {
    description: 'WKT of the analysed extent, simplified to fit the request size limit',
  }),
});
export type Coverage = Static<typeof Coverage>;

export const SceneSelection = Type.Object({
  first_month: Type.Union([Type.String({ pattern: '^\\d{4}-\\d{2}$' }), Type.Null()]),
  last_month: Type.Union([Type.String({ pattern: '^\\d{4}-\\d{2}$' }), Type.Null()]),
});
export type SceneSelection = Static<typeof SceneSelection>;

const NullableString = Type.Union([Type.String(), Type.Null()]);
/** A failed job's `error_code`: one of the error table's job failure codes (docs/api.md, Job failure codes). */
const ErrorCodeSchema = Type.Union([Type.Enum(Object.keys(JOB_FAILURES) as JobFailureCode[]), Type.Null()], {
  description: 'Why a failed job failed; null unless status is failed',
});
const NullableNumber = Type.Union([Type.Number(), Type.Null()]);

export const JobSubmissionResponse = Type.Object({
  job_id: Type.String({ format: 'uuid' }),
  status: Type.Literal('pending'),
  created_at: IsoTimestamp,
  completed_at: Type.Null(),
  result_path: Type.Null(),
  error: Type.Null(),
});
export type JobSubmissionResponse = Static<typeof JobSubmissionResponse>;

/** A job's georeferenced overlay: the image is placed on a web map by its four corners. */
export const Overlay = Type.Object({
  path: Type.String({ description: 'GET it (with the API key) for a 302 to the PNG: grey σ0 (γ0 for RTC) in dB, transparent where there is no data' }),
  bounds: Type.Tuple([Type.Number(), Type.Number(), Type.Number(), Type.Number()], {
    description: "The image's corners in WGS84 degrees: [west, south, east, north]",
  }),
  crs: Type.Literal('EPSG:3857', { description: 'The pixel grid: north-up Web Mercator, so a web map stretches the image linearly between its corners' }),
});
export type Overlay = Static<typeof Overlay>;

export const JobStatusResponse = Type.Object({
  job_id: Type.String({ format: 'uuid' }),
  endpoint_id: Type.Union([EndpointIdSchema, Type.Null()]),
  satellite_id: NullableString,
  status: StatusSchema,
  created_at: IsoTimestamp,
  completed_at: NullableString,
  result_path: NullableString,
  error_code: ErrorCodeSchema,
  error_message: NullableString,
  error: Type.Union([Type.String(), Type.Null()], { description: 'Deprecated: equals error_code' }),
  area_sqkm: NullableNumber,
  coverage: Type.Union([Coverage, Type.Null()]),
  scene_selection: Type.Union([SceneSelection, Type.Null()]),
  warnings: Type.Array(Warning),
  progress: Type.Union([Type.Integer({ minimum: 0, maximum: 100 }), Type.Null()], {
    description: 'Percent done (sarwatch extension, additive to v1); null while pending',
  }),
  monitor_id: Type.Union([Type.String({ format: 'uuid' }), Type.Null()], {
    description: 'The monitor this job is a run of (sarwatch extension, additive to v1); null for a submitted job',
  }),
  max_credits: Type.Union([Type.Number(), Type.Null()], {
    description: 'The spending cap given at submission (sarwatch extension, additive to v1); null when none',
  }),
  quicklook_path: Type.Union([Type.String(), Type.Null()], {
    description:
      'PNG picture of what was analysed with the detections drawn (timeseries: a deviation map), at most 2,048 px on the long side; null when the job has none (sarwatch extension, additive to v1)',
  }),
  overlay: Type.Union([Overlay, Type.Null()], {
    description: 'The analysed imagery as a PNG on a Web-Mercator grid, for a web map; null when the job has none (sarwatch extension, additive to v1)',
  }),
  map_layer_path: Type.Union([Type.String(), Type.Null()], {
    description:
      "A timeseries job's map layer: GET it (with the API key) for a 302 to a GeoJSON FeatureCollection of the result's cells, in the result's order with its ids, coordinates rounded to 6 decimals and only properties.deviation — what a web map needs to colour the cells without downloading every cell's chart; null for other endpoints and when the job has none (sarwatch extension, additive to v1)",
  }),
  credits_used: Type.Union([Type.Number(), Type.Null()], {
    description: 'Credits charged, as on the list item (sarwatch extension, additive to v1); null until the job has settled',
  }),
  request_params: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()], {
    description: 'Parameters passed at submission, as on the list item (sarwatch extension, additive to v1). Untrusted user input: escape before display',
  }),
});
export type JobStatusResponse = Static<typeof JobStatusResponse>;

export const JobListItem = Type.Object({
  job_id: Type.String({ format: 'uuid' }),
  endpoint_id: EndpointIdSchema,
  satellite_id: NullableString,
  status: StatusSchema,
  created_at: IsoTimestamp,
  completed_at: NullableString,
  credits_used: NullableNumber,
  area_sqkm: NullableNumber,
  lat: NullableNumber,
  lon: NullableNumber,
  request_params: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()], {
    description: 'Parameters passed at submission. Untrusted user input: escape before display',
  }),
  result_path: NullableString,
  error_code: ErrorCodeSchema,
  error_message: NullableString,
  monitor_id: Type.Union([Type.String({ format: 'uuid' }), Type.Null()], {
    description: 'The monitor this job is a run of (sarwatch extension, additive to v1); null for a submitted job',
  }),
});
export type JobListItem = Static<typeof JobListItem>;

export const JobListResponse = Type.Object({ jobs: Type.Array(JobListItem) });
export type JobListResponse = Static<typeof JobListResponse>;

export const PreviewResponse = Type.Object({
  endpoint_id: Type.String(),
  area_sqkm: NullableNumber,
  coverage: Type.Optional(Coverage),
  credits: Type.Object({
    estimated: NullableNumber,
    balance: Type.Number(),
    sufficient: Type.Union([Type.Boolean(), Type.Null()]),
    max_credits: Type.Optional(Type.Number({ description: 'The max_credits sent, when one was (sarwatch extension, additive to v1)' })),
    exceeds_max_credits: Type.Optional(
      Type.Union([Type.Boolean(), Type.Null()], {
        description: 'With max_credits: whether the estimate exceeds it (a submission would be 400); null when the credits cannot be estimated',
      }),
    ),
  }),
  warnings: Type.Array(Warning),
});
export type PreviewResponse = Static<typeof PreviewResponse>;

export const ErrorResponse = Type.Object({
  error: Type.Object({
    code: Type.String(),
    message: Type.String(),
    details: Type.Optional(Type.Unknown()),
  }),
});

/**
 * A route's error responses for the OpenAPI document: the statuses it names, and 500 and 503,
 * which any route can answer (an unexpected error; a store, object store or Redis that does
 * not answer — src/api/errors.ts).
 */
export function errorResponses(...statuses: number[]): Record<number, typeof ErrorResponse> {
  return Object.fromEntries([...new Set([...statuses, 500, 503])].map((s) => [s, ErrorResponse]));
}

export const JobIdParams = Type.Object({ job_id: Type.String() });

export const SceneSummary = Type.Object({
  scene_id: Type.String(),
  product_type: Type.String({ description: 'GRD, SLC, OCN, RAW or RTC' }),
  platform: Type.String(),
  start_time: IsoTimestamp,
  stop_time: IsoTimestamp,
  relative_orbit: Type.Integer(),
  frame: Type.Object(
    { start_deg: Type.Number(), end_deg: Type.Number(), burst_id: Type.Optional(Type.String()) },
    { description: 'Along-track position: argument of latitude span in degrees (docs/catalog.md)' },
  ),
  orbit_direction: Type.String(),
  polarisations: Type.Array(Type.String()),
  footprint: Type.String({ description: 'WKT POLYGON/MULTIPOLYGON, EPSG:4326' }),
});
export type SceneSummary = Static<typeof SceneSummary>;

export const SceneListResponse = Type.Object({ scenes: Type.Array(SceneSummary) });
export type SceneListResponse = Static<typeof SceneListResponse>;

export const SceneListQuery = Type.Object({
  polygon: Type.Optional(Type.String({ description: 'WKT; scenes whose footprint intersects it' })),
  date_start: Type.Optional(IsoDate),
  date_end: Type.Optional(IsoDate),
  product_type: Type.Optional(Type.String({ description: 'Comma-separated: GRD, SLC, OCN, RAW, RTC' })),
  orbit_direction: Type.Optional(OrbitDirection),
  limit: Type.Optional(Type.String({ description: 'Integer 1–500, default 100' })),
});

// ---------------------------------------------------------------------------------------
// Polygon uploads (issue 14)

export const POLYGON_UPLOAD_STATUSES = ['processing', 'ready', 'failed'] as const;
export type PolygonUploadStatus = (typeof POLYGON_UPLOAD_STATUSES)[number];

export const PolygonUploadAccepted = Type.Object({
  polygon_id: Type.String({ format: 'uuid' }),
  status: Type.Literal('processing', { description: 'Validation runs asynchronously; poll GET /api/v1/polygons/{polygon_id}' }),
});
export type PolygonUploadAccepted = Static<typeof PolygonUploadAccepted>;

export const PolygonUpload = Type.Object({
  polygon_id: Type.String({ format: 'uuid' }),
  status: Type.Enum([...POLYGON_UPLOAD_STATUSES], { description: 'processing → ready | failed' }),
  format: Type.Enum(['geojson', 'kml', 'shapefile']),
  size_bytes: Type.Integer({ description: 'Size of the uploaded file' }),
  feature_count: Type.Union([Type.Integer(), Type.Null()], { description: 'Features in the file; null until ready' }),
  area_sqkm: Type.Union([Type.Number(), Type.Null()], { description: 'Geodesic area of the union of the features; null until ready' }),
  error: Type.Union([Type.String(), Type.Null()], { description: 'Why validation failed (status failed); null otherwise' }),
  created_at: IsoTimestamp,
});
export type PolygonUpload = Static<typeof PolygonUpload>;

export const PolygonUploadList = Type.Object({ polygons: Type.Array(PolygonUpload) });
export type PolygonUploadList = Static<typeof PolygonUploadList>;

export const PolygonIdParams = Type.Object({ polygon_id: Type.String() });

// ---------------------------------------------------------------------------------------
// Image uploads (issue 14): the same lifecycle as polygon uploads

export const TifUploadAccepted = Type.Object({
  tif_id: Type.String({ format: 'uuid' }),
  status: Type.Literal('processing', { description: 'Validation runs asynchronously; poll GET /api/v1/tifs/{tif_id}' }),
});
export type TifUploadAccepted = Static<typeof TifUploadAccepted>;

const FootprintPolygon = Type.Object(
  {
    type: Type.Literal('Polygon'),
    coordinates: Type.Array(Type.Array(Type.Array(Type.Number(), { minItems: 2, maxItems: 2 }))),
  },
  { description: 'GeoJSON Polygon (EPSG:4326) around the valid pixels' },
);

export const TifUpload = Type.Object({
  tif_id: Type.String({ format: 'uuid' }),
  status: Type.Enum([...POLYGON_UPLOAD_STATUSES], { description: 'processing → ready | failed' }),
  kind: Type.Enum(['geotiff', 'safe'], { description: 'geotiff: a GeoTIFF of calibrated σ0; safe: a zipped Sentinel-1 GRD SAFE product' }),
  size_bytes: Type.Integer({ description: 'Size of the uploaded file' }),
  polarisations: Type.Union([Type.Array(Type.String()), Type.Null()], { description: 'σ0 bands found, e.g. ["VV","VH"]; null until ready' }),
  width: Type.Union([Type.Integer(), Type.Null()], { description: 'Image width in pixels; null until ready' }),
  height: Type.Union([Type.Integer(), Type.Null()], { description: 'Image height in pixels; null until ready' }),
  footprint: Type.Union([FootprintPolygon, Type.Null()], { description: 'Outline of the valid pixels; null until ready' }),
  bbox: Type.Union([Type.Array(Type.Number(), { minItems: 4, maxItems: 4 }), Type.Null()], { description: '[west, south, east, north] of the footprint; null until ready' }),
  error: Type.Union([Type.String(), Type.Null()], { description: 'Why validation failed (status failed); null otherwise' }),
  created_at: IsoTimestamp,
});
export type TifUpload = Static<typeof TifUpload>;

export const TifUploadList = Type.Object({ tifs: Type.Array(TifUpload) });
export type TifUploadList = Static<typeof TifUploadList>;

export const TifIdParams = Type.Object({ tif_id: Type.String() });

// ---------------------------------------------------------------------------------------
// AIS uploads (issue 23 §4): the same lifecycle as polygon uploads

export const AisUploadAccepted = Type.Object({
  ais_id: Type.String({ format: 'uuid' }),
  status: Type.Literal('processing', { description: 'Poll GET /api/v1/ais/{ais_id} until ready' }),
});
export type AisUploadAccepted = Static<typeof AisUploadAccepted>;

export const AisUpload = Type.Object({
  ais_id: Type.String({ format: 'uuid' }),
  status: Type.Enum([...POLYGON_UPLOAD_STATUSES], { description: 'processing → ready | failed' }),
  size_bytes: Type.Integer({ description: 'Size of the uploaded file' }),
  fix_count: Type.Union([Type.Integer(), Type.Null()], { description: 'Position reports in the file; null until ready' }),
  vessel_count: Type.Union([Type.Integer(), Type.Null()], { description: 'Distinct MMSIs; null until ready' }),
  time_start: Type.Union([IsoTimestamp, Type.Null()], { description: 'Earliest fix; null until ready' }),
  time_end: Type.Union([IsoTimestamp, Type.Null()], { description: 'Latest fix; null until ready' }),
  error: Type.Union([Type.String(), Type.Null()], { description: 'Why validation failed (status failed); null otherwise' }),
  created_at: IsoTimestamp,
});
export type AisUpload = Static<typeof AisUpload>;

export const AisUploadList = Type.Object({ ais: Type.Array(AisUpload) });
export type AisUploadList = Static<typeof AisUploadList>;

export const AisIdParams = Type.Object({ ais_id: Type.String() });

// ---------------------------------------------------------------------------------------
// The calling key and its account (issue 22: the dashboard shows the balance)

export const AccountResponse = Type.Object({
  account_id: Type.String(),
  credits: Type.Object({ balance: Type.Number({ description: 'Credits available now (reservations of running jobs already taken off)' }) }),
  scopes: Type.Array(Type.String(), { description: `Scopes of the calling API key: some of ${SCOPES.join(', ')}` }),
  endpoints: Type.Union([Type.Array(Type.String()), Type.Null()], { description: 'Endpoints the key may submit to; null: every endpoint' }),
});
export type AccountResponse = Static<typeof AccountResponse>;
