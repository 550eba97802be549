// Building change (newbuilding / disappearbuilding). See docs/change.md.
export { detectChangeInRtcPair, detectChangeInPair, detectChangeInTile, prepareFeatures, channelsOf } from './detect.ts';
export type { PairSources, RtcPaths, RtcPairOptions, RtcPairResult, ChangeParams, ChangeRegion, ChangeTileInput, ChangeTileOptions, ChangeTileResult, BandPair, PixelRect } from './detect.ts';
export {
  DEFAULT_CHANGE_MODEL,
  FEATURE_NAMES,
  CHANNEL_FEATURES,
  coefficientsFor,
  confidenceFromProbabilities,
  featuresAt,
  logisticProbability,
  logit,
  logitMap,
  probabilityMap,
} from './model.ts';
export type { ChangeKind, ChangeModel, Channels, FeatureInputs, FeatureName, LogisticCoefficients } from './model.ts';
export { boxcarFilter, leeFilter, trimmedBoxcarFilter, filterSpeckle, effectiveLooks, SpeckleScratch, DEFAULT_SPECKLE_FILTER } from './speckle.ts';
export type { SpeckleFilterMethod, SpeckleFilterOptions } from './speckle.ts';
export { measuredCoverage, floorRatio, combinePolygons, REQUEST_ENVELOPE_BYTES } from './coverage.ts';
export type { MeasuredCoverage } from './coverage.ts';
export { aoiPixelEdges, aoiPixelRings, edgesOfRings, rasterizeAoi } from './aoiMask.ts';
export type { PixelEdges } from './aoiMask.ts';
export { gridRelation, readOnReferenceGrid, mapWindow } from './pairGrid.ts';
export type { GridRelation, GridRead } from './pairGrid.ts';
