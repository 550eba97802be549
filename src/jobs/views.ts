/** Store rows → the spec's response shapes. The only place that knows both. */
import type { JobRow } from '../store/index.ts';
import type { EndpointId, JobStatus } from '../contract/enums.ts';
import type { JobFailureCode } from '../contract/errors.ts';
import type { Coverage, JobListItem, JobStatusResponse, JobSubmissionResponse, Overlay, SceneSelection, Warning } from '../contract/schemas.ts';
import { fromMicros } from './credits.ts';
import { resultKindOf } from '../endpoints/index.ts';

export function resultPathOf(row: Pick<JobRow, 'id' | 'status' | 'endpoint_id'>): string | null {
  if (row.status !== 'completed') return null;
  return `/api/v1/jobs/${row.id}/result.${resultKindOf(row.endpoint_id)}`;
}

/** The quicklook's download path, while the job has one (after retention it answers 410, like result_path). */
export function quicklookPathOf(row: Pick<JobRow, 'id' | 'status' | 'quicklook_key'>): string | null {
  return row.status === 'completed' && row.quicklook_key ? `/api/v1/jobs/${row.id}/quicklook.png` : null;
}

/** A time series' map layer's download path (its cells and their deviation as small GeoJSON), while the job has one; 410 after retention. */
export function mapLayerPathOf(row: Pick<JobRow, 'id' | 'status' | 'map_layer_key'>): string | null {
  return row.status === 'completed' && row.map_layer_key ? `/api/v1/jobs/${row.id}/map-layer` : null;
}

export function overlayOf(row: Pick<JobRow, 'id' | 'status' | 'overlay_key' | 'overlay_bounds'>): Overlay | null {
  if (row.status !== 'completed' || !row.overlay_key || !row.overlay_bounds) return null;
  return { path: `/api/v1/jobs/${row.id}/overlay`, bounds: JSON.parse(row.overlay_bounds) as Overlay['bounds'], crs: 'EPSG:3857' };
}

const parseJson = <T>(text: string | null): T | null => (text === null ? null : (JSON.parse(text) as T));

/**
 * The coverage a job carries. Spec, Coverage object: `polygon` is "in job responses present
 * only for measured coverage; a preview carries the predicted extent" — so an estimated
 * coverage (ship/oilslick with a polygon) keeps its ratio and area but no polygon. Applied
 * when the job is stored and again when it is read (rows stored before this rule).
 */
export function coverageOnJob(coverage: Coverage | null): Coverage | null {
  if (!coverage || coverage.method === 'measured') return coverage;
  return { ...coverage, polygon: null };
}

export function toSubmissionResponse(row: JobRow): JobSubmissionResponse {
  return { job_id: row.id, status: 'pending', created_at: row.created_at, completed_at: null, result_path: null, error: null };
}

export function toJobStatus(row: JobRow): JobStatusResponse {
  return {
    job_id: row.id,
    endpoint_id: row.endpoint_id as EndpointId | null,
    satellite_id: row.satellite_id,
    status: row.status as JobStatus,
    created_at: row.created_at,
    completed_at: row.status === 'completed' || row.status === 'failed' ? row.completed_at : null,
    result_path: resultPathOf(row),
    error_code: row.error_code as JobFailureCode | null,
    error_message: row.error_message,
    error: row.error_code,
    area_sqkm: row.area_sqkm === null ? null : Number(row.area_sqkm),
    coverage: coverageOnJob(parseJson<Coverage>(row.coverage)),
    scene_selection: parseJson<SceneSelection>(row.scene_selection),
    warnings: parseJson<Warning[]>(row.warnings) ?? [],
    progress: row.progress === null ? null : Number(row.progress),
    max_credits: row.max_credits_micros === null ? null : fromMicros(row.max_credits_micros),
    monitor_id: row.monitor_id ?? null,
    quicklook_path: quicklookPathOf(row),
    overlay: overlayOf(row),
    map_layer_path: mapLayerPathOf(row),
    credits_used: row.credits_used_micros === null ? null : fromMicros(row.credits_used_micros),
    request_params: parseJson<Record<string, unknown>>(row.request_params),
  };
}

export function toListItem(row: JobRow): JobListItem {
  const settled = row.status === 'completed' || row.status === 'failed';
  return {
    job_id: row.id,
    endpoint_id: row.endpoint_id as EndpointId,
    satellite_id: row.satellite_id,
    status: row.status as JobStatus,
    created_at: row.created_at,
    completed_at: settled ? row.completed_at : null,
    credits_used: row.credits_used_micros === null ? null : fromMicros(row.credits_used_micros),
    area_sqkm: row.area_sqkm === null ? null : Number(row.area_sqkm),
    lat: row.status === 'pending' || row.lat === null ? null : Number(row.lat),
    lon: row.status === 'pending' || row.lon === null ? null : Number(row.lon),
    request_params: parseJson<Record<string, unknown>>(row.request_params),
    result_path: resultPathOf(row),
    error_code: row.error_code as JobFailureCode | null,
    error_message: row.error_message,
    monitor_id: row.monitor_id ?? null,
  };
}
