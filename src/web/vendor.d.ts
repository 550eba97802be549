// Libraries without their own type declarations.
declare module '@terraformer/wkt' {
  export function wktToGeoJSON(wkt: string): unknown;
  export function geojsonToWKT(geojson: unknown): string;
}
