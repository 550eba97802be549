/**
 * Oil slicks on Sentinel-1 VV: dark spots against the local background, merged across tiles,
 * look-alikes rejected, outlines with holes. See docs/oilslick.md.
 */
export { DEFAULT_OIL_SLICK_PARAMS, resolveOilSlickParams } from './params.ts';
export type { LookAlikeRule, OilSlickParams } from './params.ts';
export { LOOK_ALIKE_RULES } from './params.ts';
export { FEATURE_NAMES, crosswindSpeedFromSigma0Db, featureVector } from './featureVector.ts';
export { loadOilModel, oilProbability } from './model.ts';
export type { OilModelFile } from './model.ts';
export { CHIP_PIXEL_SPACING_M, GREY_DB_RANGE, decodeGreyJpeg, greyToDb, greyToSigma0 } from './greyImage.ts';
export type { GreyDbMapping, GreyImage, GreySigma0 } from './greyImage.ts';
export { detectSlicksInGreyImage, greyRasterInput } from './greyDetect.ts';
export { cmod5nSigma0, lowWindSigma0Db } from './cmod5n.ts';
export { backgroundRadius, darkSpotSupportPx, detectDarkSpots, labelRegions, multilookSea, smoothMask } from './darkSpots.ts';
export type { DarkSpotInput, DarkSpotMap, DarkSpotParams, Labels, PixelSpacing } from './darkSpots.ts';
export { addStats, CONTEXT_HALF_SIDE_M, emptyContext, emptyStats, lookAlikeReasons, measureRegionParts, measureSupportPx, neighbourhoodContext, regionFeatures } from './discriminate.ts';
export type { LookAlikeReason, RegionPart, RegionStats, SlickContext, SlickFeatures } from './discriminate.ts';
export {
  classifyRegions,
  detectSlicksInRaster,
  detectSlicksInSafe,
  detectSlicksInSafeDetailed,
  detectSlicksInTile,
  mergeTileRegions,
  oilProbabilityThreshold,
  regionMask,
  regionPolygons,
  requiredHaloPx,
  slickMaskOfRaster,
} from './detect.ts';
export type {
  PlacedTileRegions,
  RasterRunOptions,
  SafeSlickDetails,
  SafeSlickOptions,
  SlickCandidate,
  SlickRasterInput,
  SlickRegion,
  SlickTileInput,
  TileRegions,
} from './detect.ts';
