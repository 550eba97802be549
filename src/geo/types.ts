// GeoJSON (RFC 7946) geometry types for areas of interest. Kept local and minimal so
// the geo library needs no @types/geojson; structurally compatible with it.

/** `[longitude, latitude]` in degrees, WGS84 (EPSG:4326). */
export type Position = [lon: number, lat: number];

/** A linear ring: closed (first position equals last), at least 4 positions. */
export type Ring = Position[];

export interface Polygon {
  type: 'Polygon';
  /** Exterior ring first, then holes. */
  coordinates: Ring[];
}

export interface MultiPolygon {
  type: 'MultiPolygon';
  coordinates: Ring[][];
}

export type AoiGeometry = Polygon | MultiPolygon;

/** `[minLon, minLat, maxLon, maxLat]`, the RFC 7946 bbox member for 2D geometries. */
export type BBox = [minx: number, miny: number, maxx: number, maxy: number];
