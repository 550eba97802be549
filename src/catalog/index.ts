export * from './types.ts';
export * from './port.ts';
export * from './orbit.ts';
export * from './productName.ts';
export * from './query.ts';
export * from './sceneId.ts';
export * from './selection.ts';
export * from './stack.ts';
export { MemorySceneIndexStore } from './memoryIndexStore.ts';
export { LocalSceneCatalog } from './local/catalog.ts';
export { indexArchive, type IndexArchiveOptions, type IndexArchiveResult, type IndexError } from './local/indexArchive.ts';
export { readSafeFolder, readSafeZip, parseManifest, gmlCoordinatesToPolygon, SafeError, type SafeManifest } from './local/safe.ts';
export { readRtcGeoTiff, mergeRtcContributions, extentToLonLatPolygon, RtcFileError, type RtcContribution } from './local/rtc.ts';
export { StacSceneCatalog, DEFAULT_STAC_COLLECTIONS, type StacCatalogOptions } from './stac/catalog.ts';
export {
  stacItemToScene,
  tryStacItemToScene,
  isStacItem,
  StacItemError,
  DEFAULT_ASSET_KEYS,
  type StacItem,
  type StacAsset,
  type AssetKeyConfig,
  type StacItemToSceneOptions,
} from './stac/item.ts';
