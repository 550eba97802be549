// Idle farmland, field by field: series → season statistics → idle probability → decision.
// docs/idlefarm.md describes the model; the archive is written by archive.ts.

import type { AoiGeometry } from '../../geo/types.ts';
import type { SeriesScene } from '../timeseries/series.ts';
import { featureVector, idleProbability, loadIdleModel, type IdleModel } from './model.ts';
import { seasonStats, type SeasonStats } from './season.ts';
import { readFieldSeries, type FieldSeries } from './series.ts';

/** A GeoJSON Feature as uploaded: any geometry, any properties (kept as they are). */
export interface UploadedFeature {
  type: 'Feature';
  id?: string | number;
  geometry: { type: string; coordinates?: unknown } | null;
  properties: Record<string, unknown> | null;
}

export interface UploadedCollection {
  type: 'FeatureCollection';
  features: UploadedFeature[];
}

export interface FieldOutcome {
  /** Null when undetermined (see reason). */
  idle: boolean | null;
  idleProbability: number | null;
  /** Why idle is null; null when decided. */
  reason: string | null;
  stats: SeasonStats | null;
  /** Dates with both VV and VH over the field. */
  validDates: number;
}

export interface IdlefarmAnalysis {
  series: FieldSeries;
  outcomes: FieldOutcome[];
}

export interface AnalyseFieldsOptions {
  minValidFraction?: number;
  model?: IdleModel;
  /** 0–1 over the reading of the dates. */
  onProgress?: (fraction: number) => void;
  signal?: AbortSignal;
}

const isRing = (r: unknown): boolean =>
  Array.isArray(r) && r.length >= 4 && r.every((p) => Array.isArray(p) && p.length >= 2 && Number.isFinite(p[0]) && Number.isFinite(p[1]));
const isRings = (rings: unknown): boolean => Array.isArray(rings) && rings.length > 0 && rings.every(isRing);

/**
 * The field's polygon, or null when the feature has none or a malformed one (it is reported,
 * undetermined, rather than failing the job: uploads are validated before, this is the guard).
 */
export function fieldGeometry(f: UploadedFeature): AoiGeometry | null {
  const g = f.geometry;
  if (!g) return null;
  if (g.type === 'Polygon' && isRings(g.coordinates)) return g as AoiGeometry;
  if (g.type === 'MultiPolygon' && Array.isArray(g.coordinates) && g.coordinates.length > 0 && g.coordinates.every(isRings)) return g as AoiGeometry;
  return null;
}

/** The decision for one field from its series (index-aligned with `dates`). */
export function decideField(dates: readonly string[], vv: ArrayLike<number>, vh: ArrayLike<number>, model: IdleModel, pixels: number): FieldOutcome {
  if (pixels === 0) return { idle: null, idleProbability: null, reason: 'the field covers no pixel of any scene', stats: null, validDates: 0 };
  const season = seasonStats(dates, vv, vh);
  if (!season.stats) return { idle: null, idleProbability: null, reason: season.reason, stats: null, validDates: season.validDates };
  const p = idleProbability(model, featureVector(season.stats));
  return { idle: p >= model.threshold, idleProbability: p, reason: null, stats: season.stats, validDates: season.stats.validDates };
}

/** Series and decisions for every feature of `fields`, in their order. */
export async function analyseFields(
  fields: UploadedCollection,
  scenes: ReadonlyArray<SeriesScene>,
  options: AnalyseFieldsOptions = {},
): Promise<IdlefarmAnalysis> {
  const model = options.model ?? loadIdleModel();
  const geometries = fields.features.map(fieldGeometry);
  const series = await readFieldSeries(scenes, geometries, {
    minValidFraction: options.minValidFraction,
    signal: options.signal,
    onProgress: (done, total) => options.onProgress?.(done / total),
  });
  const outcomes = geometries.map((g, f) =>
    g ? decideField(series.dates, series.vv[f]!, series.vh[f]!, model, series.pixels[f]!) : { idle: null, idleProbability: null, reason: 'the feature has no valid Polygon or MultiPolygon geometry', stats: null, validDates: 0 },
  );
  return { series, outcomes };
}
