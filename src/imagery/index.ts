/**
 * Pixels: Sentinel-1 GRD SAFE products (calibrated, denoised, geolocated) and
 * analysis-ready GeoTIFF/COG rasters (OPERA RTC), read by window and by tile.
 * See docs/imagery.md.
 */
export * from './safe/index.js';
export * from './rtc/index.js';
export * from './geocode/index.js';
export { planTiles, readTiles, extractCore } from './tiles.js';
export type { Tile, TilePlan, TileResult } from './tiles.js';
export { BlockReader } from './blockreader.js';
export type { BlockReaderOptions } from './blockreader.js';
export { linearToDb, dbToLinear, linearToDbArray, dbToLinearArray } from './units.js';
export { ImageryError, isImageryError } from './errors.js';
export type { ImageryErrorCode } from './errors.js';
export { intersectWindows } from './window.js';
export type { LonLatPolygon, PixelWindow } from './window.js';
export type { RasterFootprint } from './footprint.js';
export * from './sigma0/index.js';
export { openProductSource } from './source.js';
export { RemoteAccess, remoteAccess, setRemoteAccess, isRemoteHref, CachedRangeSource } from './remote/access.js';
export type { RemoteAccessOptions, RemoteObject } from './remote/access.js';
export { ByteCache } from './remote/byteCache.js';
export type { ByteCacheOptions, ByteCacheStats, RangeReadable } from './remote/byteCache.js';
export { HttpObject, S3Object, cacheKeyOf, parseS3Href } from './remote/objects.js';
export { withRetries, TransientError, backoffDelay, isRetryableStatus, parseRetryAfter, fetchTransient } from './remote/retry.js';
export type { RetryPolicy } from './remote/retry.js';
export { StacAssetContainer, stacItemContainer, openStacItemContainer } from './stac/container.js';
export type { StacItemLike, StacAssetLike } from './stac/container.js';
