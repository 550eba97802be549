// shpjs 6 ships no types; the one function sarwatch uses.
declare module 'shpjs' {
  import type { FeatureCollection } from 'geojson';
  /** Every shapefile layer of a zip (reprojected to WGS84 by its .prj): one collection, or one per layer. */
  export function parseZip(buffer: ArrayBuffer | Uint8Array | Buffer, whiteList?: string[]): Promise<(FeatureCollection & { fileName?: string }) | (FeatureCollection & { fileName?: string })[]>;
}
