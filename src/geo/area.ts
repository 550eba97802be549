// Geodesic area on the WGS84 ellipsoid (GeographicLib, Karney 2013), the area_sqm of
// results and the area_sqkm that limits and credits are computed from.
//
// Edges are geodesics between consecutive vertices, the convention of GeographicLib,
// pyproj's Geod.geometry_area_perimeter and PostGIS geography. For AOI-sized polygons
// this differs from straight lon/lat edges by a few parts per million (a 1°×1° cell at
// the equator: 12 308.78 km² with geodesic edges, 12 308.46 km² bounded by the parallel);
// validation rejects edges longer than 180° of longitude, where the two would disagree
// about which way round the edge goes.

import geodesic from 'geographiclib-geodesic';
import type { AoiGeometry, Position, Ring } from './types.ts';

const WGS84 = geodesic.Geodesic.WGS84;

/** Area enclosed by one ring in m², whatever its winding order. */
export function ringGeodesicAreaSqm(ring: readonly Position[]): number {
  const polygon = WGS84.Polygon(false);
  // The closing position repeats the first; PolygonArea closes rings itself.
  const n = ring.length > 1 && ring[0]![0] === ring[ring.length - 1]![0] && ring[0]![1] === ring[ring.length - 1]![1]
    ? ring.length - 1
    : ring.length;
  if (n < 3) return 0;
  for (let i = 0; i < n; i++) polygon.AddPoint(ring[i]![1], ring[i]![0]);
  // sign = true: a clockwise ring comes back negative instead of as "the rest of the
  // Earth", so the absolute value is the enclosed area either way.
  return Math.abs(polygon.Compute(false, true).area ?? 0);
}

function polygonAreaSqm(rings: readonly Ring[]): number {
  let area = 0;
  rings.forEach((ring, r) => {
    const a = ringGeodesicAreaSqm(ring);
    area += r === 0 ? a : -a;
  });
  return Math.max(0, area);
}

/** Geodesic area in m²: each part's shell minus its holes, parts added. */
export function geodesicAreaSqm(geom: AoiGeometry): number {
  if (geom.type === 'Polygon') return polygonAreaSqm(geom.coordinates);
  let area = 0;
  for (const rings of geom.coordinates) area += polygonAreaSqm(rings);
  return area;
}

export function geodesicAreaSqkm(geom: AoiGeometry): number {
  return geodesicAreaSqm(geom) / 1e6;
}
