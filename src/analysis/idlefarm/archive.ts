// result.zip of an idlefarm job (yazl): fields.geojson, summary.csv, series.csv, one chart per
// field (charts/NNNN.png) and README.txt. Charts are rendered lazily, one at a time, as the
// zip is written: memory holds one PNG, not all of them. Member contents: docs/idlefarm.md.

import { createWriteStream } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import yazl from 'yazl';
import { geodesicAreaSqm } from '../../geo/area.ts';
import { CHART_COLORS, renderChart } from './chart.ts';
import { fieldGeometry, type FieldOutcome, type IdlefarmAnalysis, type UploadedCollection, type UploadedFeature } from './detect.ts';
import { FEATURE_NAMES, type IdleModel } from './model.ts';
import { MIN_SPAN_DAYS, MIN_VALID_DATES } from './season.ts';

export interface ArchiveInput {
  fields: UploadedCollection;
  analysis: IdlefarmAnalysis;
  /** analyze: RTC γ0; detect: GRD σ0 geocoded to UTM. */
  family: 'analyze' | 'detect';
  model: IdleModel;
  /** Timestamp of the members (default: now). */
  mtime?: Date;
}

export interface IdlefarmSummary {
  fields: number;
  idle: number;
  cropped: number;
  undetermined: number;
  dates: number;
  firstDate: string | null;
  lastDate: string | null;
  /** Sum of the geodesic areas of the polygon features, km². */
  areaSqkm: number;
}

const r2 = (v: number): number => Math.round(v * 100) / 100 || 0;
const r3 = (v: number): number => Math.round(v * 1000) / 1000 || 0;

/** Chart member of the field at `index` (0-based upload order). */
export const chartName = (index: number): string => `charts/${String(index + 1).padStart(4, '0')}.png`;

/** The properties idlefarm adds to each feature (they replace uploaded properties of the same names). */
export function resultProperties(outcome: FieldOutcome, areaHa: number | null, index: number): Record<string, unknown> {
  const s = outcome.stats;
  return {
    idle: outcome.idle,
    idle_probability: outcome.idleProbability === null ? null : r3(outcome.idleProbability),
    idle_reason: outcome.reason,
    valid_dates: outcome.validDates,
    vh_amplitude_db: s ? r2(s.vhRiseDb) : null,
    vh_vv_amplitude_db: s ? r2(s.ratioRiseDb) : null,
    vh_rise_start: s?.riseStart ?? null,
    vh_rise_end: s?.riseEnd ?? null,
    vh_rise_days: s ? s.riseDays : null,
    vh_max_date: s?.vhMaxDate ?? null,
    vh_fall_db: s ? r2(s.vhFallDb) : null,
    vh_vv_fall_db: s ? r2(s.ratioFallDb) : null,
    cuts: s ? s.cuts : null,
    cut_depth_db: s ? r2(s.cutDepthDb) : null,
    vh_mean_db: s ? r2(s.vhMeanDb) : null,
    vv_mean_db: s ? r2(s.vvMeanDb) : null,
    area_ha: areaHa === null ? null : r2(areaHa),
    chart: chartName(index),
  };
}

const CSV_COLUMNS = [
  'feature_index',
  'feature_id',
  'name',
  'idle',
  'idle_probability',
  'idle_reason',
  'valid_dates',
  'vh_amplitude_db',
  'vh_vv_amplitude_db',
  'vh_rise_start',
  'vh_rise_end',
  'vh_rise_days',
  'vh_max_date',
  'vh_fall_db',
  'vh_vv_fall_db',
  'cuts',
  'cut_depth_db',
  'vh_mean_db',
  'vv_mean_db',
  'area_ha',
] as const;

/** One CSV cell: quoted when needed; text that a spreadsheet would run as a formula is prefixed with '. */
export function csvCell(v: unknown): string {
  if (v === null || v === undefined) return '';
  let s = typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : JSON.stringify(v);
  if (typeof v === 'string' && /^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

function featureId(f: UploadedFeature): unknown {
  return f.id ?? f.properties?.id ?? null;
}

function readme(input: ArchiveInput, summary: IdlefarmSummary): string {
  const quantity = input.family === 'analyze' ? 'gamma0 of the OPERA RTC-S1 scenes (radiometrically terrain corrected)' : 'sigma0 of the Sentinel-1 GRD scenes, thermal-noise removed and geocoded onto a 10 m UTM grid';
  const m = input.model;
  return [
    'sarwatch idlefarm result',
    '========================',
    '',
    `Fields: ${summary.fields} (idle ${summary.idle}, cropped ${summary.cropped}, undetermined ${summary.undetermined}).`,
    `Dates: ${summary.dates}${summary.firstDate ? ` (${summary.firstDate} to ${summary.lastDate})` : ''}. Backscatter: ${quantity}.`,
    '',
    'Members',
    '-------',
    'fields.geojson  Every uploaded feature, in upload order, with its geometry, id and properties as uploaded, plus:',
    '                idle (true/false; null when undetermined), idle_probability (0-1; null when undetermined),',
    '                idle_reason (why idle is null; null otherwise), valid_dates (dates with both VV and VH),',
    '                vh_amplitude_db (largest rise of the smoothed VH series), vh_vv_amplitude_db (change of VH/VV over',
    '                that rise), vh_rise_start / vh_rise_end (dates of its lowest and highest point), vh_rise_days',
    '                (days from 10 % to 90 % of the rise), vh_max_date (date of the highest smoothed VH),',
    '                vh_fall_db / vh_vv_fall_db (largest fall of the smoothed VH, a harvest, and the VH/VV change over it),',
    '                cuts / cut_depth_db (VH/VV drops of at least 1 dB, VH falling with them, that grow back within',
    '                two dates: a meadow cut; and their summed depth),',
    '                vh_mean_db / vv_mean_db (season means), area_ha (geodesic area), chart (member name of its chart).',
    '                An uploaded property with one of these names is replaced.',
    'summary.csv     One row per feature in upload order (feature_index from 1): the same figures; feature_id and name',
    '                from the feature (text that would start a spreadsheet formula is prefixed with an apostrophe).',
    'series.csv      The series behind the figures: feature_index, date, vv_db, vh_db, vh_vv_db (empty where no value).',
    'charts/NNNN.png The season chart of feature NNNN (upload order from 0001): VH (green), VV (blue) and VH/VV (orange)',
    '                in dB against date.',
    'README.txt      This file.',
    '',
    'Method',
    '------',
    'Per field and date, the mean of the linear backscatter over the pixels whose centre lies in the field (a date',
    'counts when at least half of them are valid), reported in dB; VH/VV is VH minus VV in dB. The series are smoothed',
    '(running median of 3, then a 1-2-1 mean) and the largest rise of VH is found. A growth cycle shows as a VH rise of',
    'several dB over weeks with VH/VV rising with it; a harvest as a VH fall with VH/VV falling with it; a managed',
    'meadow as cuts. Fallow (bare soil with rain and tillage, grass, weedy regrowth) shows none of these. The idle',
    `probability is a logistic function of [${FEATURE_NAMES.join(', ')}] (the rise duration in units of 30 days, at`,
    `most 4): intercept ${m.intercept}, weights [${m.weights.join(', ')}]; idle when the`,
    `probability is at least ${m.threshold}. Coefficients fitted on generated seasons (${String(m.training.seeds ?? '')}).`,
    `A field is undetermined with fewer than ${MIN_VALID_DATES} valid dates, valid dates spanning less than ${MIN_SPAN_DAYS} days,`,
    'no pixel in any scene (or no valid pixel on any date), or no polygon geometry. The season should cover the growing season of the region.',
    '',
  ].join('\r\n');
}

/** The archive members, written to `outPath` (returns null) or returned as bytes. */
export async function writeIdlefarmArchive(input: ArchiveInput, outPath?: string): Promise<{ bytes: Buffer | null; summary: IdlefarmSummary }> {
  const { fields, analysis } = input;
  const { series, outcomes } = analysis;
  const mtime = input.mtime ?? new Date();
  const zip = new yazl.ZipFile();
  let areaSqm = 0;
  const features = fields.features.map((f, i) => {
    const g = fieldGeometry(f);
    const areaHa = g ? geodesicAreaSqm(g) / 1e4 : null;
    areaSqm += (areaHa ?? 0) * 1e4;
    return {
      type: 'Feature' as const,
      ...(f.id !== undefined ? { id: f.id } : {}),
      geometry: f.geometry,
      properties: { ...(f.properties ?? {}), ...resultProperties(outcomes[i]!, areaHa, i) },
    };
  });
  const summary: IdlefarmSummary = {
    fields: features.length,
    idle: outcomes.filter((o) => o.idle === true).length,
    cropped: outcomes.filter((o) => o.idle === false).length,
    undetermined: outcomes.filter((o) => o.idle === null).length,
    dates: series.dates.length,
    firstDate: series.dates[0] ?? null,
    lastDate: series.dates[series.dates.length - 1] ?? null,
    areaSqkm: Math.round(areaSqm / 1e3) / 1e3,
  };
  const options = { mtime };
  zip.addBuffer(Buffer.from(`${JSON.stringify({ type: 'FeatureCollection', features })}\n`), 'fields.geojson', options);
  const rows = features.map((f, i) => {
    const row: Record<string, unknown> = { ...f.properties, feature_index: i + 1, feature_id: featureId(fields.features[i]!), name: fields.features[i]!.properties?.name ?? null };
    return CSV_COLUMNS.map((c) => csvCell(row[c])).join(',');
  });
  zip.addBuffer(Buffer.from(`${[CSV_COLUMNS.join(','), ...rows].join('\r\n')}\r\n`), 'summary.csv', options);
  const seriesRows: string[] = ['feature_index,date,vv_db,vh_db,vh_vv_db'];
  const cell = (v: number) => (Number.isFinite(v) ? String(r2(v)) : '');
  for (let f = 0; f < features.length; f++) {
    for (let d = 0; d < series.dates.length; d++) {
      const vv = series.vv[f]![d]!;
      const vh = series.vh[f]![d]!;
      if (!Number.isFinite(vv) && !Number.isFinite(vh)) continue;
      seriesRows.push(`${f + 1},${series.dates[d]},${cell(vv)},${cell(vh)},${cell(vh - vv)}`);
    }
  }
  zip.addBuffer(Buffer.from(`${seriesRows.join('\r\n')}\r\n`), 'series.csv', options);
  for (let f = 0; f < features.length; f++) {
    zip.addReadStreamLazy(chartName(f), { ...options, compress: false }, (cb) => {
      try {
        cb(null, Readable.from([chartOf(input, f)]));
      } catch (error) {
        cb(error, Readable.from([]));
      }
    });
  }
  zip.addBuffer(Buffer.from(readme(input, summary)), 'README.txt', options);
  zip.end();
  if (outPath) {
    await pipeline(zip.outputStream, createWriteStream(outPath));
    return { bytes: null, summary };
  }
  const chunks: Buffer[] = [];
  for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer);
  return { bytes: Buffer.concat(chunks), summary };
}

function chartOf(input: ArchiveInput, f: number): Buffer {
  const { series, outcomes } = input.analysis;
  const o = outcomes[f]!;
  const vv = series.vv[f]!;
  const vh = series.vh[f]!;
  const decision = o.idle === null ? 'UNDETERMINED' : `${o.idle ? 'IDLE' : 'CROP'} P=${o.idleProbability!.toFixed(2)}`;
  return renderChart({
    title: `#${f + 1}  ${decision}`,
    dates: series.dates,
    series: [
      { label: 'VH', color: CHART_COLORS.vh, values: vh },
      { label: 'VV', color: CHART_COLORS.vv, values: vv },
      { label: 'VH/VV', color: CHART_COLORS.ratio, values: Float64Array.from(vh, (v, i) => v - vv[i]!) },
    ],
  });
}
