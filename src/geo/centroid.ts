// A representative point for the job list's lat/lon. Planar area-weighted centroid in
// lon/lat degrees over all parts (holes weigh negative), the same as PostGIS
// ST_Centroid(geometry). For AOI-sized areas the difference from an ellipsoidal centroid
// is metres; for a MULTIPOLYGON it may fall between parts, which is fine for a label.

import { ringSignedArea } from './planar.ts';
import type { AoiGeometry, Position, Ring } from './types.ts';

export function centroidLonLat(geom: AoiGeometry): { lon: number; lat: number } {
  const polygons: readonly Ring[][] = geom.type === 'Polygon' ? [geom.coordinates] : geom.coordinates;
  const origin: Position | undefined = polygons[0]?.[0]?.[0];
  if (!origin) throw new RangeError('centroid of an empty geometry');
  const [ox, oy] = origin;
  // Accumulate relative to one vertex so large coordinates do not swamp small rings.
  let area = 0;
  let sx = 0;
  let sy = 0;
  let vertices = 0;
  let vx = 0;
  let vy = 0;
  for (const rings of polygons) {
    rings.forEach((ring, r) => {
      // Orient every ring by its role, whatever the input winding: shell +, hole −.
      const signed = ringSignedArea(ring);
      const sign = (r === 0 ? 1 : -1) * (signed < 0 ? -1 : 1);
      for (let i = 0; i + 1 < ring.length; i++) {
        const x1 = ring[i]![0] - ox;
        const y1 = ring[i]![1] - oy;
        const x2 = ring[i + 1]![0] - ox;
        const y2 = ring[i + 1]![1] - oy;
        const cross = (x1 * y2 - x2 * y1) * sign;
        area += cross;
        sx += (x1 + x2) * cross;
        sy += (y1 + y2) * cross;
        vx += x1;
        vy += y1;
        vertices++;
      }
    });
  }
  if (area === 0 || !Number.isFinite(area)) {
    // Degenerate (zero-area) input: the mean vertex is still a sensible label position.
    return { lon: ox + vx / Math.max(1, vertices), lat: oy + vy / Math.max(1, vertices) };
  }
  return { lon: ox + sx / (3 * area), lat: oy + sy / (3 * area) };
}
