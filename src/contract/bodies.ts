/**
 * Submission bodies (TypeBox → JSON Schema), one per input pattern. Apart from schemas.ts so
 * that the endpoint descriptors (src/endpoints) can name their body without loading the
 * rest of the contract (which lists the endpoints' ids).
 */
import Type, { type Static } from 'typebox';

export const IsoDate = Type.String({
  pattern: '^\\d{4}-\\d{2}-\\d{2}$',
  description: 'Calendar date, YYYY-MM-DD',
  examples: ['2024-06-01'],
});
const Wkt = Type.String({
  minLength: 1,
  description: 'Area of interest: WKT POLYGON or MULTIPOLYGON in EPSG:4326 (lon lat)',
  examples: ['POLYGON ((2.5 51.3, 2.7 51.3, 2.7 51.45, 2.5 51.45, 2.5 51.3))'],
});
const PolygonId = Type.String({
  minLength: 1,
  maxLength: 64,
  description: 'Area of interest: a ready polygon upload of this account (POST /api/v1/polygons), instead of `polygon`; its union is the AOI',
});
const TifId = Type.String({
  minLength: 1,
  maxLength: 64,
  description: 'The image to analyse: a ready image upload of this account (POST /api/v1/tifs), instead of `scene_id` or `date`; without `polygon` / `polygon_id` the AOI is its footprint',
});
const AisId = Type.String({
  minLength: 1,
  maxLength: 64,
  description:
    'ship only: a ready AIS upload of this account (POST /api/v1/ais). Each vessel is moved to the scene\'s start time and matched one-to-one to the detections: a ship feature gains `mmsi` and `ais_distance_m` (m from the placed AIS position), or `dark: true`; an AIS vessel inside the analysed area that no detection matched is a feature of its own after them, with `detected: false`, `mmsi`, `length_m` (AIS, or null), `ais_lon`, `ais_lat`, `ais_position`, `ais_fix_age_s`. Not with `tif_id` (an uploaded image has no known acquisition time)',
});
const IncludeFixedStructures = Type.Boolean({
  description:
    'ship only: keep the detections that are fixed structures (platforms, wind turbines: a bright target within 30 m on at least 60 % of the same track\'s earlier acquisitions, the 5 most recent within a year), flagged `fixed_structure: true`. Default false: they are left out. Detections that could be compared carry `fixed_structure`; when some could not (no earlier acquisition), the job has the warning FIXED_STRUCTURES_NOT_SEPARATED',
});
/**
 * What a ship job does without `near_shore_detection`: the one place the API's default is set
 * (on: the classifier finds harbour ships the default detector misses and drops pier heads, and a
 * coastal scene now fits issue 23 §5's budget with it, docs/ship.md "Near shore"; off with `false`).
 */
export const NEAR_SHORE_DETECTION_DEFAULT = true;
const NearShoreDetection = Type.Boolean({
  description:
    `ship only: within 2 km of the coast (of the land mask — Natural Earth land and its 500 m shore buffer — or of the scene's own land as the detector segments it) the candidates are judged by the candidate classifier, which finds harbour ships the default detector misses; the rest of the scene is analysed as without it. Ships on Natural Earth land stay unseen either way; those in its 500 m shore buffer only this path looks at. A coastal scene takes longer to analyse with it (false leaves it out); credits are unchanged. Default ${NEAR_SHORE_DETECTION_DEFAULT}`,
});
const MaxCredits = Type.Number({
  exclusiveMinimum: 0,
  description:
    'Spending cap: the most this job may cost, in credits. A submission whose estimate is already higher is 400 VALIDATION_ERROR; a job whose measured area would cost more fails CREDIT_CAP_EXCEEDED, uncharged. A preview says whether the estimate exceeds it',
  examples: [25],
});
const SatelliteId = Type.Literal('sentinel-1', { description: 'Only Sentinel-1 is supported' });
export const OrbitDirection = Type.Union([Type.Literal('ascending'), Type.Literal('descending')], {
  description: 'Only scenes of this orbit direction are used',
});

export const SceneJobBody = Type.Object(
  {
    satellite_id: SatelliteId,
    scene_id: Type.Optional(
      Type.String({ minLength: 1, maxLength: 256, description: 'Sentinel-1 GRD product name (full scene)' }),
    ),
    polygon: Type.Optional(Wkt),
    polygon_id: Type.Optional(PolygonId),
    tif_id: Type.Optional(TifId),
    ais_id: Type.Optional(AisId),
    include_fixed_structures: Type.Optional(IncludeFixedStructures),
    near_shore_detection: Type.Optional(NearShoreDetection),
    date: Type.Optional(IsoDate),
    date_direction: Type.Optional(
      Type.Union([Type.Literal('before'), Type.Literal('after'), Type.Literal('nearest')], {
        description: 'Direction from `date` for scene selection; default nearest',
      }),
    ),
    orbit_direction: Type.Optional(OrbitDirection),
    max_credits: Type.Optional(MaxCredits),
  },
  {
    additionalProperties: false,
    description: 'ship / oilslick: either `scene_id`, or `polygon` (or `polygon_id`) + `date`, or `tif_id` (an uploaded image; `polygon` / `polygon_id` optional)',
  },
);
export type SceneJobBody = Static<typeof SceneJobBody>;

export const PeriodJobBody = Type.Object(
  {
    satellite_id: SatelliteId,
    polygon: Type.Optional(Wkt),
    polygon_id: Type.Optional(PolygonId),
    date_start: IsoDate,
    date_end: IsoDate,
    orbit_direction: Type.Optional(OrbitDirection),
    max_credits: Type.Optional(MaxCredits),
  },
  {
    additionalProperties: false,
    description: 'newbuilding / disappearbuilding / timeseries: `polygon` (or `polygon_id`) + `date_start` + `date_end`',
  },
);
export type PeriodJobBody = Static<typeof PeriodJobBody>;

export const FieldsJobBody = Type.Object(
  {
    satellite_id: SatelliteId,
    polygon_id: Type.String({
      minLength: 1,
      maxLength: 64,
      description: 'The field polygons: a ready polygon upload of this account (POST /api/v1/polygons), one feature per field; each is reported in result.zip, in upload order',
    }),
    date_start: IsoDate,
    date_end: IsoDate,
    orbit_direction: Type.Optional(OrbitDirection),
    max_credits: Type.Optional(MaxCredits),
  },
  {
    additionalProperties: false,
    description: 'idlefarm: `polygon_id` (the fields, an upload) + `date_start` + `date_end` (the season, at most one year)',
  },
);
export type FieldsJobBody = Static<typeof FieldsJobBody>;

/** idlefarm's FieldsJobBody is a PeriodJobBody with `polygon_id` required and no `polygon`. */
export type SubmissionBody = SceneJobBody | PeriodJobBody;
