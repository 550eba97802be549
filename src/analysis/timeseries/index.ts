// Backscatter time series. See docs/timeseries.md.
export { detectTimeseries, cellFeatures } from './detect.ts';
export type { TimeseriesChart, TimeseriesOptions, TimeseriesParams, TimeseriesResult, SeriesScene } from './detect.ts';
export { buildCellGrid, cellOfMapPoint, DEFAULT_CELL_SIZE_M } from './grid.ts';
export type { CellGrid, GridCell } from './grid.ts';
export { readCellSeries } from './series.ts';
export type { CellSeries, ReadSeriesOptions } from './series.ts';
export { detectChangePoints, peltMeanShift, robustNoiseSigma, DEFAULT_PENALTY_SCALE } from './changePoints.ts';
export type { ChangePointOptions } from './changePoints.ts';
export { movingStatistics, latestDeviation, DEFAULT_WINDOW, DEFAULT_MIN_OBSERVATIONS, DEFAULT_STD_FLOOR_DB } from './deviation.ts';
export type { DeviationOptions, MovingStatistics } from './deviation.ts';
export { deviationStyle, STROKE, STROKE_WIDTH } from './style.ts';
export type { SimpleStyle } from './style.ts';
