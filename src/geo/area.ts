// Geodesic area on the WGS84 ellipsoid, the area_sqm of results and the area_sqkm that
// limits and credits are computed from.
//
// Edges are geodesics between consecutive vertices, the convention of GeographicLib,
// pyproj's Geod.geometry_area_perimeter and PostGIS geography. For AOI-sized polygons
// this differs from straight lon/lat edges by a few parts per million (a 1°×1° cell at
// the equator: 12 308.78 km² with geodesic edges, 12 308.46 km² bounded by the parallel);
// validation rejects edges longer than 180° of longitude, where the two would disagree
// about which way round the edge goes.
//
// A ring's area is the sum over its edges of S12, the signed area between the edge and the
// equator (Karney 2013, GeographicLib PolygonArea). GeographicLib's Inverse gives S12
// exactly but costs ~2 µs an edge: 0.2 s for a 100,000-vertex AOI. For a short edge (both
// lon and lat spans ≤ SHORT_EDGE_DEG) S12 comes in closed form instead: the equal-area
// (authalic) map takes the ellipsoid to a sphere of the same area, meridians to meridians
// and the equator to the equator, so the area under the edge is the spherical excess of the
// quadrilateral under its image on that sphere; the image of a short geodesic differs from
// a great circle by a sliver of O(e² L³ / R), under 0.1 m² for an edge of 0.01° in both lon
// and lat (test/geo/area.test.ts measures it against GeographicLib edge by edge, and on
// whole polygons: ~1e-11 relative). Longer edges keep
// GeographicLib's exact S12.

import geodesic from 'geographiclib-geodesic';
import { flattenAoi, flattenPolygons, type FlatPolygons } from './flat.ts';
import type { AoiGeometry, Position } from './types.ts';

const Geodesic = geodesic.Geodesic;
const WGS84 = Geodesic.WGS84;

/** Edges spanning at most this much longitude and latitude use the authalic-sphere formula. */
export const SHORT_EDGE_DEG = 0.01;

const E2 = WGS84.f * (2 - WGS84.f);
const E = Math.sqrt(E2);
const B = WGS84.a * (1 - WGS84.f);
/** Squared authalic radius: 4π·C2 is the ellipsoid's area. */
const C2 = (WGS84.a * WGS84.a + (B * B * Math.atanh(E)) / E) / 2;
const RAD = Math.PI / 180;

/** q(φ) of the authalic latitude (Snyder 1987, eq. 3-12), from sin φ. */
function authalicQ(sinPhi: number): number {
  return (1 - E2) * (sinPhi / (1 - E2 * sinPhi * sinPhi) + Math.atanh(E * sinPhi) / E);
}
const Q_POLE = authalicQ(1);

/** tan(β/2) of the authalic latitude β of geodetic latitude `lat` (degrees). */
function tanHalfAuthalic(lat: number): number {
  const sinBeta = Math.max(-1, Math.min(1, authalicQ(Math.sin(lat * RAD)) / Q_POLE));
  return sinBeta / (1 + Math.sqrt(1 - sinBeta * sinBeta));
}

/**
 * Signed area between the geodesic from vertex i to vertex j and the equator (S12), m²:
 * closed form for short edges, GeographicLib for the rest. `t` holds tan(β/2) per vertex.
 */
function edgeS12(coords: Float64Array, t: Float64Array, i: number, j: number, from: number): number {
  const lon1 = coords[2 * i]!;
  const lat1 = coords[2 * i + 1]!;
  const lon2 = coords[2 * j]!;
  const lat2 = coords[2 * j + 1]!;
  const dLon = lon2 - lon1;
  if (Math.abs(dLon) <= SHORT_EDGE_DEG && Math.abs(lat2 - lat1) <= SHORT_EDGE_DEG) {
    const t1 = t[i - from]!;
    const t2 = t[j - from]!;
    return 2 * C2 * Math.atan2(Math.tan((dLon * RAD) / 2) * (t1 + t2), 1 + t1 * t2);
  }
  return WGS84.Inverse(lat1, lon1, lat2, lon2, Geodesic.AREA).S12!;
}

/** GeographicLib's own polygon over the positions start … end − 1 (closing position excluded). */
function polygonAreaExact(coords: Float64Array, start: number, end: number): number {
  const polygon = WGS84.Polygon(false);
  for (let i = start; i < end; i++) polygon.AddPoint(coords[2 * i + 1]!, coords[2 * i]!);
  // sign = true: a clockwise ring comes back negative instead of as "the rest of the
  // Earth", so the absolute value is the enclosed area either way.
  return Math.abs(polygon.Compute(false, true).area ?? 0);
}

/** Area enclosed by the ring at positions start … end − 1 of flat coordinates, m², whatever its winding order. */
function ringAreaFlat(coords: Float64Array, start: number, end: number): number {
  // The closing position repeats the first; the sum closes rings itself.
  const closed = end - start > 1 && coords[2 * start] === coords[2 * end - 2] && coords[2 * start + 1] === coords[2 * end - 1];
  const n = closed ? end - start - 1 : end - start;
  if (n < 3) return 0;
  const t = new Float64Array(n);
  for (let k = 0; k < n; k++) {
    // An edge of 180° of longitude goes either way round: GeographicLib's rules decide.
    const next = k + 1 < n ? start + k + 1 : start;
    if (Math.abs(coords[2 * next]! - coords[2 * (start + k)]!) >= 180) return polygonAreaExact(coords, start, start + n);
    t[k] = tanHalfAuthalic(coords[2 * (start + k) + 1]!);
  }
  // Every |Δλ| < 180°, so the ring winds around no pole and the sum of S12 is its area.
  // Neumaier's compensated sum: the terms are large (areas down to the equator) and cancel.
  let sum = 0;
  let compensation = 0;
  for (let k = 0; k < n; k++) {
    const term = edgeS12(coords, t, start + k, k + 1 < n ? start + k + 1 : start, start);
    const s = sum + term;
    compensation += Math.abs(sum) >= Math.abs(term) ? sum - s + term : term - s + sum;
    sum = s;
  }
  return Math.abs(sum + compensation);
}

/** Area enclosed by one ring in m², whatever its winding order. */
export function ringGeodesicAreaSqm(ring: readonly Position[]): number {
  const flat = flattenPolygons([[ring]], 'Polygon');
  return ringAreaFlat(flat.coords, 0, ring.length);
}

/** Geodesic area in m² of flat polygons (flat.ts): each part's shell minus its holes, parts added. */
export function flatAreaSqm(flat: FlatPolygons): number {
  const { coords, ringStart, partStart } = flat;
  let total = 0;
  for (let p = 0; p + 1 < partStart.length; p++) {
    let area = 0;
    for (let r = partStart[p]!; r < partStart[p + 1]!; r++) {
      const a = ringAreaFlat(coords, ringStart[r]!, ringStart[r + 1]!);
      area += r === partStart[p] ? a : -a;
    }
    total += Math.max(0, area);
  }
  return total;
}

/** Geodesic area in m²: each part's shell minus its holes, parts added. */
export function geodesicAreaSqm(geom: AoiGeometry): number {
  return flatAreaSqm(flattenAoi(geom));
}

export function geodesicAreaSqkm(geom: AoiGeometry): number {
  return geodesicAreaSqm(geom) / 1e6;
}
