// A representative point for the job list's lat/lon. Planar area-weighted centroid in
// lon/lat degrees over all parts (holes weigh negative), the same as PostGIS
// ST_Centroid(geometry). For AOI-sized areas the difference from an ellipsoidal centroid
// is metres; for a MULTIPOLYGON it may fall between parts, which is fine for a label.

import { flattenAoi, type FlatPolygons } from './flat.ts';
import { ringSignedAreaFlat } from './planar.ts';
import type { AoiGeometry } from './types.ts';

export function centroidLonLat(geom: AoiGeometry): { lon: number; lat: number } {
  return flatCentroidLonLat(flattenAoi(geom));
}

/** centroidLonLat of flat polygons (flat.ts). */
export function flatCentroidLonLat(flat: FlatPolygons): { lon: number; lat: number } {
  const { coords: c, ringStart, partStart } = flat;
  if (partStart.length < 2 || partStart[0] === partStart[1] || ringStart[0] === ringStart[1]) {
    throw new RangeError('centroid of an empty geometry');
  }
  const ox = c[2 * ringStart[partStart[0]!]!]!;
  const oy = c[2 * ringStart[partStart[0]!]! + 1]!;
  // Accumulate relative to one vertex so large coordinates do not swamp small rings.
  let area = 0;
  let sx = 0;
  let sy = 0;
  let vertices = 0;
  let vx = 0;
  let vy = 0;
  for (let p = 0; p + 1 < partStart.length; p++) {
    for (let r = partStart[p]!; r < partStart[p + 1]!; r++) {
      const start = ringStart[r]!;
      const end = ringStart[r + 1]!;
      // Orient every ring by its role, whatever the input winding: shell +, hole −.
      const signed = ringSignedAreaFlat(c, start, end);
      const sign = (r === partStart[p] ? 1 : -1) * (signed < 0 ? -1 : 1);
      for (let i = start; i + 1 < end; i++) {
        const x1 = c[2 * i]! - ox;
        const y1 = c[2 * i + 1]! - oy;
        const x2 = c[2 * i + 2]! - ox;
        const y2 = c[2 * i + 3]! - oy;
        const cross = (x1 * y2 - x2 * y1) * sign;
        area += cross;
        sx += (x1 + x2) * cross;
        sy += (y1 + y2) * cross;
        vx += x1;
        vy += y1;
        vertices++;
      }
    }
  }
  if (area === 0 || !Number.isFinite(area)) {
    // Degenerate (zero-area) input: the mean vertex is still a sensible label position.
    return { lon: ox + vx / Math.max(1, vertices), lat: oy + vy / Math.max(1, vertices) };
  }
  return { lon: ox + sx / (3 * area), lat: oy + sy / (3 * area) };
}
