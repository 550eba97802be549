// Idle farmland: per-field VH, VV and VH/VV series, season statistics and an idle probability,
// written as result.zip. See docs/idlefarm.md.
export { runIdlefarm } from './run.ts';
export type { RunIdlefarmOptions, RunIdlefarmResult } from './run.ts';
export { analyseFields, decideField, fieldGeometry } from './detect.ts';
export type { FieldOutcome, IdlefarmAnalysis, UploadedCollection, UploadedFeature } from './detect.ts';
export { writeIdlefarmArchive, chartName, csvCell, resultProperties } from './archive.ts';
export type { ArchiveInput, IdlefarmSummary } from './archive.ts';
export { renderChart, CHART_COLORS } from './chart.ts';
export { readFieldSeries } from './series.ts';
export { scenesByDate } from '../timeseries/stack.ts';
export type { FieldSeries, ReadFieldSeriesOptions } from './series.ts';
export { seasonStats, smoothSeries, cutsOf, CUT_MIN_DB, MIN_VALID_DATES, MIN_SPAN_DAYS } from './season.ts';
export type { SeasonStats, SeasonOutcome } from './season.ts';
export { loadIdleModel, idleProbability, featureVector, FEATURE_NAMES, RISE_DAYS_CAP } from './model.ts';
export type { IdleModel } from './model.ts';
