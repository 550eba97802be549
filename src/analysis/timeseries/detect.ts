// The time-series analysis: grid over the AOI → per-cell dB series → moving statistics,
// deviation, change points, style → one Feature per cell that has data.
// Result members are documented in docs/timeseries.md.

import { geodesicAreaSqm } from '../../geo/area.ts';
import type { AoiGeometry, Polygon } from '../../geo/types.ts';
import { maskToPolygons } from '../../geo/vectorize.ts';
import { describeSource, openRasterSource } from '../../imagery/geocode/source.ts';
import { ImageryError } from '../../imagery/errors.ts';
import { finalizeFeatureCollection, type FinalizedCollection } from '../common/result.ts';
import { combinePolygons, measuredCoverage, type MeasuredCoverage } from '../change/coverage.ts';
import { detectChangePoints, type ChangePointOptions } from './changePoints.ts';
import { movingStatistics, type DeviationOptions } from './deviation.ts';
import { buildCellGrid, DEFAULT_CELL_SIZE_M, type CellGrid } from './grid.ts';
import { readCellSeries, type CellSeries, type SeriesScene } from './series.ts';
import { deviationStyle } from './style.ts';

export type { SeriesScene } from './series.ts';

export interface TimeseriesParams {
  deviation?: DeviationOptions;
  changePoints?: ChangePointOptions;
  /** Minimum fraction of a cell's AOI pixels valid on a date for a value. Default 0.5. */
  minValidFraction?: number;
  /** Polarisation of `deviation`, the moving average and the band. Default 'vv' (else 'vh'). */
  channel?: 'vv' | 'vh';
  /** Half-width of the chart band in moving standard deviations. Default 2. */
  bandSigmas?: number;
}

export interface TimeseriesOptions {
  aoi: AoiGeometry;
  /** Cell edge in metres (UTM). Default 100. */
  cellSizeM?: number;
  params?: TimeseriesParams;
  /** Request size limit; coverage.polygon fits within it minus 1024 bytes. */
  maxRequestBytes: number;
  /** 0–100. */
  onProgress?: (percent: number) => void;
  signal?: AbortSignal;
}

export interface TimeseriesChart {
  /** Acquisition dates, ascending, `YYYY-MM-DD`; every other array is index-aligned with it. */
  dates: string[];
  /** Mean γ0 (RTC) or σ0 (GRD) of the cell in dB (0.01 dB), null where no value. */
  vv: (number | null)[];
  vh: (number | null)[];
  /** Polarisation the moving average, band and deviation refer to. */
  channel: 'vv' | 'vh';
  /** Mean of the previous `window` valid observations (dB), null where fewer than minObservations. */
  movingAverage: (number | null)[];
  /** movingAverage ∓ bandSigmas · moving std (dB). */
  band: { lower: (number | null)[]; upper: (number | null)[] };
  unit: 'dB';
}

export interface TimeseriesResult {
  result: FinalizedCollection;
  /** Area of the cells with data (clipped to the AOI), km². */
  areaSqkm: number;
  coverage: MeasuredCoverage;
  stats: { cells: number; cellsWithData: number; dates: number; epsg: number };
}

const round2 = (v: number): number | null => (Number.isFinite(v) ? Math.round(v * 100) / 100 || 0 : null);

/**
 * Backscatter time series over `aoi` from every scene of one path/frame (`scenes`: one entry
 * per file set; entries with the same date are pooled).
 */
export async function detectTimeseries(scenes: ReadonlyArray<SeriesScene>, options: TimeseriesOptions): Promise<TimeseriesResult> {
  const { aoi } = options;
  const params = options.params ?? {};
  const first = scenes.find((s) => s.vv || s.vh);
  if (!first) throw new ImageryError('NOT_FOUND', 'no scene with a VV or VH raster');
  const probe = await openRasterSource((first.vv ?? first.vh)!);
  const epsg = probe.epsg;
  await probe.close();
  if (epsg === null) throw new ImageryError('UNSUPPORTED_CRS', `${describeSource((first.vv ?? first.vh)!)} names no EPSG code`);

  const grid = buildCellGrid(aoi, epsg, options.cellSizeM ?? DEFAULT_CELL_SIZE_M);
  options.onProgress?.(1);
  const series = await readCellSeries(scenes, grid, aoi, {
    minValidFraction: params.minValidFraction,
    signal: options.signal,
    onProgress: (done, total) => options.onProgress?.(1 + Math.floor((94 * done) / total)),
  });
  const features = cellFeatures(grid, series, params);
  const withData = features.map((f) => f.cell);
  const hasData = new Uint8Array(grid.rows * grid.cols);
  let areaSqm = 0;
  for (const c of withData) {
    hasData[c.row * grid.cols + c.col] = 1;
    areaSqm += geodesicAreaSqm(c.geometry);
  }
  const s = grid.cellSizeM;
  const extent = maskToPolygons(hasData, grid.cols, grid.rows, (row, col) =>
    grid.transform.toLonLat(grid.originX + (col + 0.5) * s, grid.originY - (row + 0.5) * s),
  ).map((p) => p.geometry);
  const areaSqkm = Math.round(areaSqm) / 1e6;
  const coverage = measuredCoverage({ aoi, analysedAreaSqkm: areaSqkm, extent: combinePolygons(extent), maxRequestBytes: options.maxRequestBytes });
  const result = finalizeFeatureCollection(
    features.map((f) => ({ geometry: f.cell.geometry, properties: f.properties })),
    { confidence: () => null },
  );
  options.onProgress?.(100);
  return { result, areaSqkm, coverage, stats: { cells: grid.cells.length, cellsWithData: features.length, dates: series.dates.length, epsg } };
}

interface CellFeature {
  cell: { row: number; col: number; geometry: Polygon };
  properties: Record<string, unknown>;
}

/** One entry per cell with at least one value. Exported for tests. */
export function cellFeatures(grid: CellGrid, series: CellSeries, params: TimeseriesParams = {}): CellFeature[] {
  const nDates = series.dates.length;
  const channel: 'vv' | 'vh' = params.channel === 'vh' ? (series.vh ? 'vh' : 'vv') : series.vv ? 'vv' : 'vh';
  const bandSigmas = params.bandSigmas ?? 2;
  const out: CellFeature[] = [];
  for (const cell of grid.cells) {
    const slice = (a: Float64Array | null): Float64Array | null => (a ? a.subarray(cell.index * nDates, (cell.index + 1) * nDates) : null);
    const vv = slice(series.vv);
    const vh = slice(series.vh);
    const main = (channel === 'vv' ? vv : vh)!;
    const any = (a: Float64Array | null): boolean => !!a && a.some(Number.isFinite);
    if (!any(vv) && !any(vh)) continue;
    const { mean, std } = movingStatistics(main, params.deviation);
    const last = nDates - 1;
    const deviation =
      nDates > 0 && Number.isFinite(main[last]!) && Number.isFinite(mean[last]!) ? Math.round(((main[last]! - mean[last]!) / std[last]!) * 1000) / 1000 : null;
    const breaks = detectChangePoints([vv, vh], params.changePoints);
    const chart: TimeseriesChart = {
      dates: series.dates,
      vv: vv ? Array.from(vv, round2) : series.dates.map(() => null),
      vh: vh ? Array.from(vh, round2) : series.dates.map(() => null),
      channel,
      movingAverage: Array.from(mean, round2),
      band: {
        lower: Array.from(mean, (m, i) => round2(m - bandSigmas * std[i]!)),
        upper: Array.from(mean, (m, i) => round2(m + bandSigmas * std[i]!)),
      },
      unit: 'dB',
    };
    out.push({
      cell,
      properties: {
        deviation,
        changePointDates: breaks.map((i) => series.dates[i]!),
        ...deviationStyle(deviation),
        chart,
      },
    });
  }
  return out;
}
