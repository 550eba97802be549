/**
 * The API's response shapes as the dashboard reads them (docs/api.md, /openapi.json). Written
 * here rather than imported from src/contract: the dashboard depends on the HTTP API only.
 * Every string in them is untrusted input to render as text.
 */
export type Family = 'analyze' | 'detect';
export type EndpointId = 'ship' | 'oilslick' | 'newbuilding' | 'disappearbuilding' | 'timeseries' | 'idlefarm';
export const ENDPOINT_IDS: EndpointId[] = ['ship', 'oilslick', 'newbuilding', 'disappearbuilding', 'timeseries', 'idlefarm'];
export const JOB_STATUSES = ['pending', 'processing', 'completed', 'failed'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

export interface Warning {
  code: string;
  message: string;
}
export interface Coverage {
  method: 'measured' | 'estimated';
  requested_area_sqkm: number;
  ratio: number;
  polygon: string | null;
}
export interface Overlay {
  path: string;
  /** [west, south, east, north], degrees. */
  bounds: [number, number, number, number];
  crs: string;
}
export interface Job {
  job_id: string;
  endpoint_id: EndpointId | null;
  satellite_id: string | null;
  status: JobStatus;
  created_at: string;
  completed_at: string | null;
  result_path: string | null;
  error_code: string | null;
  error_message: string | null;
  area_sqkm: number | null;
  coverage: Coverage | null;
  scene_selection: { first_month: string | null; last_month: string | null } | null;
  warnings: Warning[];
  progress: number | null;
  /** Quicklook (issue 22 §1): present once the quicklook helper's fields are served. */
  quicklook_path?: string | null;
  overlay?: Overlay | null;
  /** A time series' map layer (its cells with `deviation` only, GeoJSON): drawn instead of the full result, which is fetched on the first click. */
  map_layer_path?: string | null;
  /** As on the list item (issue 22): charged credits, and the submission's parameters (untrusted). */
  credits_used?: number | null;
  request_params?: Record<string, unknown> | null;
}
export interface JobListItem {
  job_id: string;
  endpoint_id: EndpointId;
  status: JobStatus;
  created_at: string;
  completed_at: string | null;
  credits_used: number | null;
  area_sqkm: number | null;
  lat: number | null;
  lon: number | null;
  request_params: Record<string, unknown> | null;
  result_path: string | null;
  error_code: string | null;
  error_message: string | null;
}
export interface Preview {
  endpoint_id: string;
  area_sqkm: number | null;
  coverage?: Coverage;
  credits: { estimated: number | null; balance: number; sufficient: boolean | null };
  warnings: Warning[];
}
export interface Scene {
  scene_id: string;
  product_type: string;
  platform: string;
  start_time: string;
  orbit_direction: string;
  relative_orbit: number;
  polarisations: string[];
  footprint: string;
}
export interface PolygonUpload {
  polygon_id: string;
  status: 'processing' | 'ready' | 'failed';
  format: string;
  size_bytes: number;
  feature_count: number | null;
  area_sqkm: number | null;
  error: string | null;
  created_at: string;
}
export interface TifUpload {
  tif_id: string;
  status: 'processing' | 'ready' | 'failed';
  kind: string;
  size_bytes: number;
  polarisations: string[] | null;
  width: number | null;
  height: number | null;
  footprint: GeoJSON.Polygon | null;
  bbox: [number, number, number, number] | null;
  error: string | null;
  created_at: string;
}
export interface Account {
  account_id: string;
  credits: { balance: number };
  scopes: string[];
  endpoints: string[] | null;
}
export interface WebConfig {
  basemap_url: string | null;
}
export type SubmissionBody = Record<string, string>;
