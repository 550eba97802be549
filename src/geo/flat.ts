// Polygons as flat typed arrays: every position's lon and lat in one Float64Array, ring after
// ring, with offsets saying where each ring and each part starts. What the WKT reader
// produces, what validation, area and centroid read, and what crosses to and from the
// geometry thread (one typed array instead of 100,000 little [lon, lat] arrays to allocate,
// collect and structured-clone). AoiGeometry (GeoJSON coordinates) is built from it only
// where a caller needs nested arrays.

import type { AoiGeometry, Position, Ring } from './types.ts';

export interface FlatPolygons {
  type: AoiGeometry['type'];
  /** lon, lat of every position (closing positions included), ring after ring. */
  coords: Float64Array;
  /** Position index where ring r starts is ringStart[r]; ringStart[rings] = positions. */
  ringStart: Int32Array;
  /** Ring index where part p starts is partStart[p]; partStart[parts] = rings. */
  partStart: Int32Array;
}

export function partCount(flat: FlatPolygons): number {
  return flat.partStart.length - 1;
}

export function ringCount(flat: FlatPolygons): number {
  return flat.ringStart.length - 1;
}

/** Nested polygons (parts → rings → positions) as flat arrays. */
export function flattenPolygons(polygons: readonly (readonly (readonly Position[])[])[], type: AoiGeometry['type']): FlatPolygons {
  let positions = 0;
  let rings = 0;
  for (const part of polygons) {
    rings += part.length;
    for (const ring of part) positions += ring.length;
  }
  const coords = new Float64Array(positions * 2);
  const ringStart = new Int32Array(rings + 1);
  const partStart = new Int32Array(polygons.length + 1);
  let k = 0;
  let r = 0;
  for (let p = 0; p < polygons.length; p++) {
    partStart[p] = r;
    for (const ring of polygons[p]!) {
      ringStart[r++] = k >> 1;
      for (let i = 0; i < ring.length; i++) {
        coords[k++] = ring[i]![0];
        coords[k++] = ring[i]![1];
      }
    }
  }
  ringStart[rings] = positions;
  partStart[polygons.length] = rings;
  return { type, coords, ringStart, partStart };
}

export function flattenAoi(geom: AoiGeometry): FlatPolygons {
  const polygons = geom.type === 'Polygon' ? (geom.coordinates.length === 0 ? [] : [geom.coordinates]) : geom.coordinates;
  return flattenPolygons(polygons, geom.type);
}

/** One ring as GeoJSON positions. */
export function ringPositions(flat: FlatPolygons, r: number): Ring {
  const { coords, ringStart } = flat;
  const start = ringStart[r]!;
  const ring: Position[] = new Array(ringStart[r + 1]! - start);
  for (let i = 0, k = 2 * start; i < ring.length; i++, k += 2) ring[i] = [coords[k]!, coords[k + 1]!];
  return ring;
}

/** Parts → rings → positions. */
export function nestedPolygons(flat: FlatPolygons): Ring[][] {
  const polygons: Ring[][] = [];
  for (let p = 0; p + 1 < flat.partStart.length; p++) {
    const rings: Ring[] = [];
    for (let r = flat.partStart[p]!; r < flat.partStart[p + 1]!; r++) rings.push(ringPositions(flat, r));
    polygons.push(rings);
  }
  return polygons;
}

export function toAoiGeometry(flat: FlatPolygons): AoiGeometry {
  const polygons = nestedPolygons(flat);
  return flat.type === 'Polygon' ? { type: 'Polygon', coordinates: polygons[0] ?? [] } : { type: 'MultiPolygon', coordinates: polygons };
}
