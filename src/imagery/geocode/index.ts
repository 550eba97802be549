// GRD products geocoded onto a common UTM grid (see docs/imagery.md, "Geocoding GRD").
export { GeocodedGrdRaster, GrdGeocoder, GEOCODE_LATTICE } from './grdRaster.js';
export type { GeocodeOptions, SourceMap } from './grdRaster.js';
export { GRD_GRID_PIXEL_M, sameUtmGrid, utmEpsgFor, utmGridForAoi } from './utmGrid.js';
export type { UtmGrid } from './utmGrid.js';
export { describeSource, isGrdSource, openRasterSource, openRasterSources } from './source.js';
export type { GrdRasterSource, RasterSource } from './source.js';
