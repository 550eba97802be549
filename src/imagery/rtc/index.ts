export { openRasterProduct } from './raster.js';
export type { Geotransform, OpenRasterOptions, RasterProduct, RasterWindow } from './raster.js';
export { lonLatTransform, proj4DefinitionForEpsg } from './projection.js';
export type { LonLatTransform } from './projection.js';
export { operaMetadata } from './opera.js';
export type { OperaMetadata } from './opera.js';
