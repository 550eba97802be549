// The entry point an idlefarm job calls: fields + scenes → result.zip (bytes or a file) and a
// summary. Reading the dates is most of the work (progress 0–90), then decisions, charts and
// the archive (90–100).

import type { SeriesScene } from '../timeseries/series.ts';
import { writeIdlefarmArchive, type IdlefarmSummary } from './archive.ts';
import { analyseFields, type UploadedCollection } from './detect.ts';
import { loadIdleModel, type IdleModel } from './model.ts';

export interface RunIdlefarmOptions {
  /** The field polygons (an uploaded FeatureCollection); every feature is reported, in this order. */
  fields: UploadedCollection;
  /** One entry per scene file set (RTC GeoTIFF paths/URLs or geocoded GRD sources: idlefarmSources). */
  scenes: ReadonlyArray<SeriesScene>;
  family: 'analyze' | 'detect';
  /** Write the zip here instead of returning its bytes. */
  outPath?: string;
  /** Minimum fraction of a field's pixels valid on a date for a value. Default 0.5. */
  minValidFraction?: number;
  model?: IdleModel;
  /** Timestamp of the archive members (default: now). */
  mtime?: Date;
  signal?: AbortSignal;
  /** 0–100. */
  onProgress?: (percent: number) => void;
}

export interface RunIdlefarmResult {
  /** The zip, unless written to outPath. */
  zipBytes: Buffer | null;
  path: string | null;
  summary: IdlefarmSummary;
}

export async function runIdlefarm(options: RunIdlefarmOptions): Promise<RunIdlefarmResult> {
  const model = options.model ?? loadIdleModel();
  const fields = options.fields;
  if (fields?.type !== 'FeatureCollection' || !Array.isArray(fields.features)) throw new TypeError('fields must be a GeoJSON FeatureCollection');
  options.onProgress?.(0);
  const analysis = await analyseFields(fields, options.scenes, {
    model,
    minValidFraction: options.minValidFraction,
    signal: options.signal,
    onProgress: (fraction) => options.onProgress?.(Math.floor(90 * fraction)),
  });
  options.signal?.throwIfAborted();
  const { bytes, summary } = await writeIdlefarmArchive({ fields, analysis, family: options.family, model, mtime: options.mtime }, options.outPath);
  options.onProgress?.(100);
  return { zipBytes: bytes, path: options.outPath ?? null, summary };
}
