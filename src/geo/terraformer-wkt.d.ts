// @terraformer/wkt ships no type declarations; this covers the two functions geo/ uses.
declare module '@terraformer/wkt' {
  export interface TerraformerGeometry {
    type: string;
    coordinates?: unknown;
    geometries?: TerraformerGeometry[];
    properties?: { z?: boolean; m?: boolean };
  }
  export function wktToGeoJSON(wkt: string): TerraformerGeometry;
  export function geojsonToWKT(geojson: object): string;
}
