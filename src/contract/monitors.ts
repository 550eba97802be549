/**
 * Monitor schemas (issue 21 §1): POST/PATCH bodies, the monitor, its runs and the preview.
 */
import Type, { type Static } from 'typebox';
import { OrbitDirection } from './bodies.ts';

/** Endpoints a monitor can run: the scene endpoints and the period ones (idlefarm is seasonal, not per scene). */
export const MONITOR_ENDPOINTS = ['ship', 'oilslick', 'newbuilding', 'disappearbuilding', 'timeseries'] as const;
export type MonitorEndpoint = (typeof MONITOR_ENDPOINTS)[number];
export const MONITOR_STATES = ['active', 'paused', 'suspended'] as const;
export const SUSPENSION_REASONS = ['cap_reached', 'balance_too_low', 'polygon_deleted', 'repeated_failures'] as const;
export type SuspensionReason = (typeof SUSPENSION_REASONS)[number];

const IsoTimestamp = Type.String({ description: 'ISO 8601 UTC timestamp with Z suffix' });
const Wkt = Type.String({ minLength: 1, description: 'Area of interest: WKT POLYGON or MULTIPOLYGON in EPSG:4326 (lon lat)' });

export const MonitorTrigger = Type.Union(
  [
    Type.Literal('new_scene', { description: 'Each new acquisition covering the AOI (default)' }),
    Type.Object(
      { every_days: Type.Integer({ minimum: 1, maximum: 365, description: 'At most one run per N days: the newest scene compared with the one N days earlier' }) },
      { additionalProperties: false },
    ),
  ],
  { description: '"new_scene", or {"every_days": N} (newbuilding, disappearbuilding, timeseries only)' },
);
export type MonitorTrigger = Static<typeof MonitorTrigger>;

export const MonitorCondition = Type.Object(
  {
    min_count: Type.Optional(Type.Integer({ minimum: 1, description: 'ship: at least this many vessels' })),
    min_oil_probability: Type.Optional(Type.Number({ minimum: 0, maximum: 1, description: 'oilslick: a slick with oil_probability at least this' })),
    min_area_sqm: Type.Optional(Type.Number({ minimum: 0, description: 'newbuilding / disappearbuilding: a change polygon of at least this area' })),
    min_abs_deviation: Type.Optional(Type.Number({ minimum: 0, description: 'timeseries: a cell whose |deviation| is at least this' })),
  },
  { additionalProperties: false, description: 'When a completed run triggers: exactly the one member of the endpoint' },
);
export type MonitorCondition = Static<typeof MonitorCondition>;

export const MonitorCreateBody = Type.Object(
  {
    endpoint_id: Type.Enum([...MONITOR_ENDPOINTS]),
    family: Type.Enum(['analyze', 'detect']),
    polygon: Type.Optional(Wkt),
    polygon_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'A ready polygon upload of this account, instead of `polygon`' })),
    orbit_direction: Type.Optional(OrbitDirection),
    trigger: Type.Optional(MonitorTrigger),
    condition: MonitorCondition,
    max_credits_per_month: Type.Number({ exclusiveMinimum: 0, description: 'Runs stop (state suspended, reason cap_reached) rather than exceed this in a calendar month (UTC)' }),
  },
  { additionalProperties: false },
);
export type MonitorCreateBody = Static<typeof MonitorCreateBody>;

export const MonitorPatchBody = Type.Object(
  {
    state: Type.Optional(Type.Enum(['active', 'paused'], { description: 'paused: no runs; active: resume (also from suspended)' })),
    condition: Type.Optional(MonitorCondition),
    max_credits_per_month: Type.Optional(Type.Number({ exclusiveMinimum: 0 })),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type MonitorPatchBody = Static<typeof MonitorPatchBody>;

export const Monitor = Type.Object({
  monitor_id: Type.String({ format: 'uuid' }),
  endpoint_id: Type.String(),
  family: Type.String(),
  polygon: Type.Union([Type.String(), Type.Null()], { description: 'Untrusted user input: escape before display' }),
  polygon_id: Type.Union([Type.String(), Type.Null()]),
  orbit_direction: Type.Union([Type.String(), Type.Null()]),
  trigger: MonitorTrigger,
  condition: MonitorCondition,
  max_credits_per_month: Type.Number(),
  state: Type.Enum([...MONITOR_STATES]),
  suspended_reason: Type.Union([Type.Enum([...SUSPENSION_REASONS]), Type.Null()]),
  suspended_message: Type.Union([Type.String(), Type.Null()]),
  runs: Type.Object({
    total: Type.Integer({ description: 'Jobs submitted by this monitor' }),
    triggered: Type.Integer({ description: 'Completed runs that met the condition' }),
    consecutive_failures: Type.Integer(),
  }),
  last_scene: Type.Union([Type.Object({ scene_id: Type.String(), acquired_at: IsoTimestamp }), Type.Null()], { description: 'The newest scene a run was made for' }),
  credits_spent_this_month: Type.Number({ description: 'Charged (completed runs) plus reserved (pending or processing runs) this calendar month, UTC' }),
  created_at: IsoTimestamp,
  updated_at: IsoTimestamp,
});
export type Monitor = Static<typeof Monitor>;

export const MonitorList = Type.Object({ monitors: Type.Array(Monitor) });
export type MonitorList = Static<typeof MonitorList>;

export const MonitorRun = Type.Object({
  scene_id: Type.String(),
  acquired_at: IsoTimestamp,
  status: Type.Enum(['queued', 'submitted', 'triggered', 'not_triggered', 'failed', 'skipped'], {
    description: 'queued: waiting to be submitted; submitted: its job is pending or processing; triggered / not_triggered: completed, condition met or not; failed: its job failed; skipped: not submitted (see reason)',
  }),
  job_id: Type.Union([Type.String({ format: 'uuid' }), Type.Null()]),
  summary: Type.Union([Type.Object({ count: Type.Integer(), bbox: Type.Union([Type.Array(Type.Number()), Type.Null()]) }), Type.Null()]),
  reason: Type.Union([Type.String(), Type.Null()]),
  created_at: IsoTimestamp,
});
export type MonitorRun = Static<typeof MonitorRun>;
export const MonitorRunList = Type.Object({ runs: Type.Array(MonitorRun) });
export type MonitorRunList = Static<typeof MonitorRunList>;

export const MonitorPreview = Type.Object({
  endpoint_id: Type.String(),
  area_sqkm: Type.Union([Type.Number(), Type.Null()]),
  credits_per_run: Type.Union([Type.Number(), Type.Null()], { description: "One run's estimate, as the job preview gives it" }),
  runs_last_90_days: Type.Integer({ description: 'Runs the trigger would have made over the catalog of the last 90 days' }),
  credits_last_90_days: Type.Union([Type.Number(), Type.Null()], { description: 'runs_last_90_days × credits_per_run' }),
  max_credits_per_month: Type.Number(),
  warnings: Type.Array(Type.Object({ code: Type.String(), message: Type.String() })),
});
export type MonitorPreview = Static<typeof MonitorPreview>;

export const MonitorIdParams = Type.Object({ monitor_id: Type.String() });
