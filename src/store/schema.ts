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
  attempts: Generated<number>;
  /** Worker that holds the job while processing, and until when (crash recovery). */
  lease_owner: string | null;
  lease_expires_at: string | null;
  /** Client-chosen Idempotency-Key of the submission, unique per account. */
  idempotency_key: string | null;
  /** SHA-256 of endpoint, family and body, to tell a retry from a different request. */
  request_hash: string | null;
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

export interface Database {
  scenes: ScenesTable;
  catalog_files: CatalogFilesTable;
  accounts: AccountsTable;
  api_keys: ApiKeysTable;
  credit_ledger: CreditLedgerTable;
  jobs: JobsTable;
  leases: LeasesTable;
  polygon_uploads: PolygonUploadsTable;
  tif_uploads: TifUploadsTable;
}

export type JobRow = Selectable<JobsTable>;
export type NewJobRow = Insertable<JobsTable>;
export type JobUpdate = Updateable<JobsTable>;
export type AccountRow = Selectable<AccountsTable>;
export type ApiKeyRow = Selectable<ApiKeysTable>;
export type LedgerRow = Selectable<CreditLedgerTable>;
export type PolygonUploadRow = Selectable<PolygonUploadsTable>;
export type TifUploadRow = Selectable<TifUploadsTable>;
