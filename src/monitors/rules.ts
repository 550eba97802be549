/**
 * The pure rules of a monitor: what a run submits for a scene, which scenes a monitor
 * watches, when `every_days` is due, and whether a completed run meets its condition.
 */
import type { MonitorRow } from '../store/index.ts';
import type { SceneRecord } from '../catalog/index.ts';
import type { SubmissionBody } from '../contract/schemas.ts';
import type { MonitorCondition, MonitorEndpoint, MonitorTrigger } from '../contract/monitors.ts';
import { endpointOf } from '../endpoints/index.ts';

const DAY_MS = 86_400_000;

/** The condition member each endpoint takes. */
export const CONDITION_KEY: Record<MonitorEndpoint, keyof MonitorCondition> = {
  ship: 'min_count',
  oilslick: 'min_oil_probability',
  newbuilding: 'min_area_sqm',
  disappearbuilding: 'min_area_sqm',
  timeseries: 'min_abs_deviation',
};

/**
 * Days before the new scene a period endpoint's run looks back: `every_days` N compares the
 * newest scene with the one N days earlier; on `new_scene` the building endpoints compare
 * with the previous pass two repeat cycles back at most (24 days), and the time series
 * takes half a year (enough dates for its moving average at a 12-day revisit).
 */
export function lookbackDays(endpoint: MonitorEndpoint, everyDays: number | null): number {
  if (endpoint === 'timeseries') return Math.max(everyDays ?? 0, 180);
  return everyDays ?? 24;
}

export function isPeriodEndpoint(endpoint: string): boolean {
  return endpointOf(endpoint as MonitorEndpoint).input === 'period';
}

export function triggerOf(row: Pick<MonitorRow, 'trigger' | 'every_days'>): MonitorTrigger {
  return row.trigger === 'every_days' ? { every_days: Number(row.every_days) } : 'new_scene';
}

/** The submission body of one run: the monitor's AOI, on the scene's acquisition day. */
export function runBody(m: Pick<MonitorRow, 'endpoint_id' | 'polygon' | 'polygon_id' | 'orbit_direction' | 'every_days'>, scene: Pick<SceneRecord, 'startTime' | 'orbitDirection'>): SubmissionBody {
  const day = scene.startTime.slice(0, 10);
  const aoi = m.polygon_id ? { polygon_id: m.polygon_id } : { polygon: m.polygon! };
  // The scene's own orbit direction narrows the selection to its pass.
  const orbit_direction = (m.orbit_direction ?? scene.orbitDirection) as 'ascending' | 'descending';
  if (!isPeriodEndpoint(m.endpoint_id)) return { satellite_id: 'sentinel-1', ...aoi, date: day, date_direction: 'nearest', orbit_direction };
  const start = new Date(Date.parse(`${day}T00:00:00Z`) - lookbackDays(m.endpoint_id as MonitorEndpoint, m.every_days === null ? null : Number(m.every_days)) * DAY_MS);
  return { satellite_id: 'sentinel-1', ...aoi, date_start: start.toISOString().slice(0, 10), date_end: day, orbit_direction };
}

/** The product type a monitor's runs analyse (GRD for detect, RTC for analyze, per endpoint). */
export function productTypeOf(endpoint: string, family: string): string {
  return endpointOf(endpoint as MonitorEndpoint).imagery[family as 'analyze' | 'detect'];
}

/**
 * `every_days` N: a scene is due when no run was made yet, or it was acquired at least N
 * days after the newest scene a run was made for. `new_scene`: every scene is due.
 */
export function isDue(m: Pick<MonitorRow, 'trigger' | 'every_days' | 'last_scene_time'>, sceneTime: string): boolean {
  if (m.trigger !== 'every_days' || !m.last_scene_time) return true;
  return Date.parse(sceneTime) - Date.parse(m.last_scene_time) >= Number(m.every_days) * DAY_MS - 3600_000;
}

export interface ConditionOutcome {
  met: boolean;
  /** Features meeting the condition (ship: every vessel). */
  count: number;
  /** [west, south, east, north] of those features; null when none. */
  bbox: number[] | null;
}

interface Feature {
  geometry?: { coordinates?: unknown } | null;
  properties?: Record<string, unknown> | null;
}

/** Evaluates the condition on a run's GeoJSON result. */
export function evaluateCondition(endpoint: MonitorEndpoint, condition: MonitorCondition, result: { features?: Feature[] }): ConditionOutcome {
  const features = result.features ?? [];
  const num = (f: Feature, key: string) => {
    const v = f.properties?.[key];
    return typeof v === 'number' && Number.isFinite(v) ? v : null;
  };
  let matching: Feature[];
  let met: boolean;
  switch (endpoint) {
    case 'ship':
      matching = features;
      met = features.length >= (condition.min_count ?? 1);
      break;
    case 'oilslick':
      matching = features.filter((f) => (num(f, 'oil_probability') ?? -1) >= (condition.min_oil_probability ?? 0));
      met = matching.length > 0;
      break;
    case 'newbuilding':
    case 'disappearbuilding':
      matching = features.filter((f) => (num(f, 'area_sqm') ?? -1) >= (condition.min_area_sqm ?? 0));
      met = matching.length > 0;
      break;
    case 'timeseries':
      matching = features.filter((f) => Math.abs(num(f, 'deviation') ?? 0) >= (condition.min_abs_deviation ?? Infinity) && num(f, 'deviation') !== null);
      met = matching.length > 0;
      break;
  }
  return { met, count: matching.length, bbox: bboxOfFeatures(matching) };
}

function bboxOfFeatures(features: Feature[]): number[] | null {
  let w = Infinity;
  let s = Infinity;
  let e = -Infinity;
  let n = -Infinity;
  const visit = (c: unknown): void => {
    if (!Array.isArray(c)) return;
    if (typeof c[0] === 'number' && typeof c[1] === 'number') {
      w = Math.min(w, c[0]);
      e = Math.max(e, c[0]);
      s = Math.min(s, c[1]);
      n = Math.max(n, c[1]);
      return;
    }
    for (const x of c) visit(x);
  };
  for (const f of features) visit(f.geometry?.coordinates);
  return Number.isFinite(w) ? [w, s, e, n] : null;
}

/** First instant of the UTC calendar month of `now`: caps count from here. */
export function monthStart(now: Date): string {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)).toISOString();
}
