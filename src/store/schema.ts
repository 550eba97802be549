/**
 * Table types for Kysely. Timestamps are ISO 8601 UTC strings with milliseconds and `Z`
 * (fixed width, so they sort as text in both SQLite and PostgreSQL); JSON members are text;
 * credit amounts are integers of micro-credits so that sums never drift.
 */
import type { ColumnType, Generated, Insertable, Selectable, Updateable } from 'kysely';

export interface AccountsTable {
  id: string;
  name: string;
  balance_micros: number;
  created_at: string;
}

export interface ApiKeysTable {
  /** Public key id, also the lookup prefix inside the key text. */
  id: string;
  account_id: string;
  /** SHA-256 hex of the whole key; the key itself is never stored. */
  secret_hash: string;
  /** JSON array of scopes. */
  scopes: string;
  /** JSON array of endpoint_ids the key may submit, or null for all. */
  endpoints: string | null;
  label: string | null;
  created_at: string;
  revoked_at: string | null;
}

export interface CreditLedgerTable {
  id: string;
  account_id: string;
  job_id: string | null;
  /** grant | reserve | release | charge */
  kind: string;
  /** Signed change of the balance made by this row. */
  amount_micros: number;
  balance_after_micros: number;
  note: string | null;
  created_at: string;
}

export interface JobsTable {
  id: string;
  account_id: string;
  endpoint_id: string | null;
  family: string;
  satellite_id: string | null;
  status: string;
  created_at: string;
  started_at: string | null;
  completed_at: string | null;
  updated_at: string;
  /** JSON of the submitted body, as received (after validation). */
  request_params: string | null;
  credits_reserved_micros: number;
  credits_used_micros: number | null;
  area_sqkm: number | null;
  lat: number | null;
  lon: number | null;
  coverage: string | null;
  scene_selection: string | null;
  warnings: string;
  error_code: string | null;
  error_message: string | null;
  progress: number | null;
  /** Object key of the result, set on completion. */
  result_key: string | null;
  result_expires_at: string | null;
  result_deleted_at: string | null;
  /** Object keys of the quicklook PNG and the overlay PNG, and the overlay's WGS84 corners (JSON), set on completion when made; optional on insert. */
  quicklook_key: ColumnType<string | null, string | null | undefined, string | null>;
  overlay_key: ColumnType<string | null, string | null | undefined, string | null>;
  overlay_bounds: ColumnType<string | null, string | null | undefined, string | null>;
  /** Object key of a time series' map layer (its cells and their deviation, GeoJSON), set on completion when made; optional on insert. */
  map_layer_key: ColumnType<string | null, string | null | undefined, string | null>;
  attempts: Generated<number>;
  /** Worker that holds the job while processing, and until when (crash recovery). */
  lease_owner: string | null;
  lease_expires_at: string | null;
  /** Client-chosen Idempotency-Key of the submission, unique per account. */
  idempotency_key: string | null;
  /** SHA-256 of endpoint, family and body, to tell a retry from a different request. */
  request_hash: string | null;
  /** The monitor this job is a run of (issue 21); null for jobs submitted over the API. */
  monitor_id: string | null;
  /** The submission's `max_credits`: the most the job may cost (null: no cap). */
  max_credits_micros: number | null;
}

/** One change of a job's status or progress, written by a trigger on `jobs` (migration 0008). */
export interface JobEventsTable {
  /** Increases; for one job, in commit order: the event stream's `id:`. */
  id: Generated<number>;
  job_id: string;
  /** status | progress */
  kind: string;
  status: string;
  progress: number | null;
  created_at: string;
}

export interface ScenesTable {
  scene_id: string;
  product_type: string;
  orbit_direction: string;
  start_time: string;
  min_lon: number;
  min_lat: number;
  max_lon: number;
  max_lat: number;
  record: string;
}

export interface CatalogFilesTable {
  path: string;
  mtime_ms: number;
  size: number;
  scene_ids: string;
}

export interface LeasesTable {
  name: string;
  owner: string;
  expires_at: string;
}

export interface PolygonUploadsTable {
  id: string;
  account_id: string;
  /** processing | ready | failed */
  status: string;
  /** geojson | kml | shapefile */
  format: string;
  size_bytes: number;
  feature_count: number | null;
  area_sqkm: number | null;
  /** Union of the features (WKT), set when ready: the AOI of a job naming the upload. */
  aoi_wkt: string | null;
  /** Why validation failed (names the feature and the rule, never the file's text). */
  error_message: string | null;
  original_key: string;
  /** The normalised FeatureCollection, set when ready. */
  geojson_key: string | null;
  created_at: string;
  updated_at: string;
}

/** AIS uploads (issue 23 §4): CSV positions a ship job names by `ais_id`. */
export interface AisUploadsTable {
  id: string;
  account_id: string;
  /** processing | ready | failed */
  status: string;
  size_bytes: number;
  /** Set when ready. */
  fix_count: number | null;
  vessel_count: number | null;
  /** First and last fix (ISO 8601 UTC), set when ready. */
  time_start: string | null;
  time_end: string | null;
  /** Why validation failed (the rule, never the file's text). */
  error_message: string | null;
  original_key: string;
  /** The normalised fixes (JSON, src/uploads/aisCsv.ts AisFix[]), set when ready. */
  geojson_key: string | null;
  created_at: string;
  updated_at: string;
}

export interface TifUploadsTable {
  id: string;
  account_id: string;
  /** processing | ready | failed */
  status: string;
  /** geotiff | safe */
  kind: string;
  size_bytes: number;
  /** Comma-separated, e.g. "VV,VH"; set when ready. */
  polarisations: string | null;
  width: number | null;
  height: number | null;
  /** Outline of the image's valid pixels (WKT), set when ready: the AOI of a job on it without a polygon. */
  footprint_wkt: string | null;
  /** Why validation failed (the rule, never the file's text). */
  error_message: string | null;
  original_key: string;
  created_at: string;
  updated_at: string;
}

/** Events written in the transaction of the change that causes them (issue 21, webhooks). */
export interface OutboxTable {
  /** The stable event id: the webhook-id header of every delivery and retry of it. */
  id: string;
  account_id: string;
  /** job.completed | job.failed | monitor.triggered | monitor.suspended */
  type: string;
  /** JSON: the `data` of the delivered body. */
  payload: string;
  created_at: string;
  /** Set once a delivery exists for each webhook subscribed to it at that moment. */
  fanned_out_at: string | null;
}

export interface WebhooksTable {
  id: string;
  account_id: string;
  url: string;
  /** JSON array of event types. */
  events: string;
  /** The signing secret, encrypted (events/secretBox.ts). */
  secret: string;
  /** After a rotation: the previous secret, also signing until `previous_secret_expires_at`. */
  previous_secret: string | null;
  previous_secret_expires_at: string | null;
  /** First failed attempt since the last success; 24 h of failures disable the webhook. */
  failing_since: string | null;
  disabled_at: string | null;
  disabled_reason: string | null;
  created_at: string;
  updated_at: string;
}

export interface WebhookDeliveriesTable {
  id: string;
  webhook_id: string;
  event_id: string;
  account_id: string;
  /** pending | delivered | failed */
  status: string;
  attempts: Generated<number>;
  /** When the next attempt is due (pending only). */
  next_attempt_at: string | null;
  /** Retries stop after this (24 h after the event, or after a redelivery was asked for). */
  retry_until: string;
  last_attempt_at: string | null;
  last_status_code: number | null;
  last_error: string | null;
  /** The receiver's answer, at most 1 KiB. */
  last_response_body: string | null;
  /** The process sending an attempt now, and until when (a dead sender's attempt is retried). */
  lease_owner: string | null;
  lease_expires_at: string | null;
  created_at: string;
  updated_at: string;
  delivered_at: string | null;
}

export interface MonitorsTable {
  id: string;
  account_id: string;
  endpoint_id: string;
  family: string;
  /** WKT; null when the AOI is a polygon upload. */
  polygon: string | null;
  polygon_id: string | null;
  orbit_direction: string | null;
  /** new_scene | every_days */
  trigger: string;
  every_days: number | null;
  /** JSON of the condition object. */
  condition: string;
  max_credits_per_month_micros: number;
  /** active | paused | suspended */
  state: string;
  /** cap_reached | balance_too_low | polygon_deleted | repeated_failures */
  suspended_reason: string | null;
  suspended_message: string | null;
  consecutive_failures: Generated<number>;
  /** Bounding box of the AOI: the first filter when a new scene comes in. */
  min_lon: number;
  min_lat: number;
  max_lon: number;
  max_lat: number;
  last_scene_id: string | null;
  last_scene_time: string | null;
  created_at: string;
  updated_at: string;
}

export interface MonitorRunsTable {
  monitor_id: string;
  scene_id: string;
  scene_time: string;
  orbit_direction: string;
  account_id: string;
  /** queued → submitted → triggered | not_triggered | failed; queued → skipped */
  status: string;
  job_id: string | null;
  /** JSON summary of a triggered run (count, bbox). */
  summary: string | null;
  /** Why a run was skipped or failed. */
  reason: string | null;
  created_at: string;
  updated_at: string;
}

export interface Database {
  scenes: ScenesTable;
  catalog_files: CatalogFilesTable;
  accounts: AccountsTable;
  api_keys: ApiKeysTable;
  credit_ledger: CreditLedgerTable;
  jobs: JobsTable;
  job_events: JobEventsTable;
  leases: LeasesTable;
  polygon_uploads: PolygonUploadsTable;
  tif_uploads: TifUploadsTable;
  ais_uploads: AisUploadsTable;
  outbox: OutboxTable;
  webhooks: WebhooksTable;
  webhook_deliveries: WebhookDeliveriesTable;
  monitors: MonitorsTable;
  monitor_runs: MonitorRunsTable;
}

export type JobRow = Selectable<JobsTable>;
export type NewJobRow = Insertable<JobsTable>;
export type JobUpdate = Updateable<JobsTable>;
export type AccountRow = Selectable<AccountsTable>;
export type ApiKeyRow = Selectable<ApiKeysTable>;
export type JobEventRow = Selectable<JobEventsTable>;
export type LedgerRow = Selectable<CreditLedgerTable>;
export type PolygonUploadRow = Selectable<PolygonUploadsTable>;
export type TifUploadRow = Selectable<TifUploadsTable>;
export type AisUploadRow = Selectable<AisUploadsTable>;
export type WebhookRow = Selectable<WebhooksTable>;
export type DeliveryRow = Selectable<WebhookDeliveriesTable>;
export type MonitorRow = Selectable<MonitorsTable>;
export type MonitorRunRow = Selectable<MonitorRunsTable>;
export type OutboxRow = Selectable<OutboxTable>;
