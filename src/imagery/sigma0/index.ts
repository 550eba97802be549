/**
 * Calibrated σ0 from a GeoTIFF (linear or dB, one band per polarisation, georeferenced by a
 * CRS or by GCPs) in the shape the ship and oil-slick engines read. See docs/imagery.md.
 */
export { openSigma0GeoTiff, polarisationOfName, DEFAULT_INCIDENCE_DEG, SIGMA0_UNITS } from './geotiff.js';
export type { Sigma0GeoTiff } from './geotiff.js';
export { isSafeProduct } from './types.js';
export type { OpenSigma0Options, ProductSource, Sigma0Band, Sigma0Geolocation, Sigma0Product, Sigma0Units } from './types.js';
export { pixelGeocoding, proj4ForEpsg } from './georef.js';
export type { PixelGeocoding } from './georef.js';
export { GcpTransform } from './gcp.js';
export type { Gcp, GcpModelInfo } from './gcp.js';
