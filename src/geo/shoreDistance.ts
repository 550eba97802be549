/**
 * Distance from a point to the nearest coastline of Natural Earth 1:10m land (the rings of
 * landMask.ts `loadLandPolygons`): rings and their 64-vertex chunks are pruned by the distance
 * to their bounding boxes, edges measured in a local equirectangular plane about the point, and
 * the nearest coast point's distance then taken geodesically on WGS84. Unsigned: a point that
 * Natural Earth puts on land (a harbour inside its generalised outline) gets its distance to
 * that outline, which is why callers also refine with the scene (docs/ship.md, near shore).
 */
import geodesic from 'geographiclib-geodesic';
import { loadLandPolygons, type LandPolygons } from './landMask.ts';

const WGS84 = geodesic.Geodesic.WGS84;
const M_PER_DEG_LAT = 110_574;
const M_PER_DEG_LON_EQ = 111_320;

export interface ShorePoint {
  distanceM: number;
  /** The nearest coastline point (lon, lat). */
  coast: [number, number];
}

export function nearestShore(lon: number, lat: number, land: LandPolygons = loadLandPolygons()): ShorePoint | null {
  const kx = M_PER_DEG_LON_EQ * Math.cos((lat * Math.PI) / 180);
  const ky = M_PER_DEG_LAT;
  // Squared plane distance (m²) from the point to a lon/lat box.
  const boxD2 = (x0: number, y0: number, x1: number, y1: number): number => {
    const dx = lon < x0 ? (x0 - lon) * kx : lon > x1 ? (lon - x1) * kx : 0;
    const dy = lat < y0 ? (y0 - lat) * ky : lat > y1 ? (lat - y1) * ky : 0;
    return dx * dx + dy * dy;
  };
  let best = Infinity;
  let bestX = 0;
  let bestY = 0;
  for (const ring of land.rings) {
    const [bx0, by0, bx1, by1] = ring.bbox;
    if (boxD2(bx0, by0, bx1, by1) >= best) continue;
    const c = ring.coords;
    const n = c.length / 2;
    const chunks = ring.chunkBoxes.length / 4;
    for (let k = 0; k < chunks; k++) {
      const b = ring.chunkBoxes;
      if (boxD2(b[4 * k]!, b[4 * k + 1]!, b[4 * k + 2]!, b[4 * k + 3]!) >= best) continue;
      const end = Math.min((k + 1) * 64, n);
      for (let i = k * 64; i < end; i++) {
        const j = (i + 1) % n;
        // Edge i → j in metres about the point.
        const ax = (c[2 * i]! - lon) * kx;
        const ay = (c[2 * i + 1]! - lat) * ky;
        const ex = (c[2 * j]! - lon) * kx - ax;
        const ey = (c[2 * j + 1]! - lat) * ky - ay;
        const len2 = ex * ex + ey * ey;
        const t = len2 > 0 ? Math.min(1, Math.max(0, -(ax * ex + ay * ey) / len2)) : 0;
        const px = ax + t * ex;
        const py = ay + t * ey;
        const d2 = px * px + py * py;
        if (d2 < best) {
          best = d2;
          bestX = px;
          bestY = py;
        }
      }
    }
  }
  if (!Number.isFinite(best)) return null;
  const coast: [number, number] = [lon + bestX / kx, lat + bestY / ky];
  const s = WGS84.Inverse(lat, lon, coast[1], coast[0]).s12 ?? Math.sqrt(best);
  return { distanceM: s, coast };
}
