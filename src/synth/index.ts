/**
 * Synthetic Sentinel-1 products with ground truth, in the formats of real ones: SAFE GRD
 * (DN, calibration and noise LUTs, geolocation grid), annotation-only SAFE SLC, and
 * OPERA-style RTC GeoTIFF stacks; plus the demo archive. See docs/synth.md.
 */
export { Random, SpeckleSampler, hashSeed, hashString, latticeUniform, logGamma, mix32 } from './random.ts';
export { TiffWriter, writeTiff, gdalMetadataXml } from './tiff.ts';
export type {
  GdalMetadata,
  TiffEpsgGeoreference,
  TiffGcp,
  TiffGcpGeoreference,
  TiffGeoreference,
  TiffPixelOffsetGeoreference,
  TiffSampleType,
  TiffWriteResult,
  TiffWriterOptions,
} from './tiff.ts';
export {
  GrdScene,
  IW_GRDH_ENL,
  IW_GRDH_RESOLUTION,
  SURFACE_MODELS,
  ScanlineRaster,
  cmod5n,
  dbToLinear,
  linearToDb,
  lowWindFactor,
  neszDb,
  seaSigma0,
  seaVh,
  subSwathAt,
  subSwathBounds,
} from './scene.ts';
export type {
  GrdSceneSpec,
  LowWindPatchSpec,
  Polarisation,
  ShipSpec,
  StructureKind,
  StructureSpec,
  SlickSpec,
  SubSwath,
  SurfaceKind,
  SurfaceSpec,
  WindSpec,
} from './scene.ts';
export { KELVIN_HALF_ANGLE_DEG, internalWaveCrests } from './seaSignatures.ts';
export type { InternalWaveSpec, RainCellSpec, SeaSignature, ShipWakeSpec, UpwellingSpec } from './seaSignatures.ts';
export { GrdGeometry } from './geometry.ts';
export type { GrdGeometrySpec, GroundPoint } from './geometry.ts';
export {
  absoluteOrbitAt,
  anxTime,
  burstIdNumber,
  platformHeading,
  relativeOrbit,
  secondsAfterAnx,
  trackAcquisitions,
} from './orbit.ts';
export type { PassDirection, SynthMission, TrackAcquisition } from './orbit.ts';
export { writeSafeGrd, writeSafeSlcMetadata, productName, BETA_NOUGHT_LUT, GRDH_AZIMUTH_TIME_INTERVAL } from './safe.ts';
export type { SafeGrdSpec, SafeSlcSpec, WriteSafeResult } from './safe.ts';
export { writeRtcStack } from './rtc.ts';
export type { BuildingSpec, ChangeSpec, ChangeType, CropType, FieldSpec, RtcSceneKind, RtcStackSpec, WriteRtcResult } from './rtc.ts';
export { naturalEarthLand } from './land.ts';
export { generateDemoArchive, demoPortSpecs, demoFarmlandSpec, DEMO_ARCHIVE_VERSION, DEMO_STRUCTURES, DEMO_CITY_CENTER, DEMO_GRD_CITY_PICK, DEMO_MARKER } from './demo.ts';
export type { DemoArchiveOptions, DemoArchiveResult } from './demo.ts';
export type { TruthCollection, TruthFeature, TruthGeometry, TruthKind } from './truth.ts';
export { writeGrdCitySeries, cityFromRtcTruth } from './grdCity.ts';
export type { CityBuilding, CityChange, GrdCitySeriesSpec, GrdCitySeriesResult } from './grdCity.ts';
export { writeFieldSeason, seasonLayout, SEASON_CROPS, SEASON_IDLE } from './fields.ts';
export type { FieldCollection, SeasonCrop, SeasonFieldClass, SeasonFieldSpec, SeasonFieldTruth, SeasonIdle, SeasonStackResult, SeasonStackSpec } from './fields.ts';
