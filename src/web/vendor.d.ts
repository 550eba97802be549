// Libraries without their own type declarations.
declare module '@terraformer/wkt' {
  export function wktToGeoJSON(wkt: string): unknown;
  export function geojsonToWKT(geojson: unknown): string;
}

/** The land layer's GeoJSON, made at build time (vite.config.mjs): its URL. */
declare module 'virtual:sarwatch-land' {
  const url: string;
  export default url;
}
