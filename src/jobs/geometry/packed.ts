/**
 * An AOI as one Float64Array of coordinates plus ring lengths: what crosses between the
 * main thread and the geometry thread. A structured clone of 100,000 little [lon, lat]
 * arrays costs the main thread far more than one typed array and a loop that rebuilds them.
 */
import type { AoiGeometry, Position, Ring } from '../../geo/index.ts';

export interface PackedAoi {
  type: AoiGeometry['type'];
  /** Per part, the number of positions of each ring. */
  rings: number[][];
  coords: Float64Array;
}

export function packAoi(geom: AoiGeometry): PackedAoi {
  const polygons: Ring[][] = geom.type === 'Polygon' ? [geom.coordinates] : geom.coordinates;
  let count = 0;
  for (const rings of polygons) for (const ring of rings) count += ring.length;
  const coords = new Float64Array(count * 2);
  let k = 0;
  for (const rings of polygons) {
    for (const ring of rings) {
      for (const [x, y] of ring) {
        coords[k++] = x;
        coords[k++] = y;
      }
    }
  }
  return { type: geom.type, rings: polygons.map((rings) => rings.map((ring) => ring.length)), coords };
}

export function unpackAoi(packed: PackedAoi): AoiGeometry {
  let k = 0;
  const polygons: Ring[][] = packed.rings.map((lengths) =>
    lengths.map((length) => {
      const ring: Position[] = new Array(length);
      for (let i = 0; i < length; i++, k += 2) ring[i] = [packed.coords[k]!, packed.coords[k + 1]!];
      return ring;
    }),
  );
  return packed.type === 'Polygon' ? { type: 'Polygon', coordinates: polygons[0] ?? [] } : { type: 'MultiPolygon', coordinates: polygons };
}
