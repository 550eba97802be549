// Planar (lon/lat degrees as x/y) measures, used for topology decisions and the display
// centroid. Geodesic area for anything shown to a user or charged lives in area.ts.

import type { Position, Ring } from './types.ts';

/** Shoelace area in deg², positive when counter-clockwise. Coordinates are taken relative
 *  to the first vertex so large longitudes do not cancel small areas away. */
export function ringSignedArea(ring: readonly Position[]): number {
  if (ring.length < 3) return 0;
  const [ox, oy] = ring[0]!;
  let twice = 0;
  for (let i = 1; i + 1 < ring.length; i++) {
    const [x1, y1] = ring[i]!;
    const [x2, y2] = ring[i + 1]!;
    twice += (x1 - ox) * (y2 - oy) - (x2 - ox) * (y1 - oy);
  }
  return twice / 2;
}

/** ringSignedArea of the positions start … end − 1 of flat coordinates (flat.ts), same arithmetic. */
export function ringSignedAreaFlat(coords: Float64Array, start: number, end: number): number {
  if (end - start < 3) return 0;
  const ox = coords[2 * start]!;
  const oy = coords[2 * start + 1]!;
  let twice = 0;
  for (let i = start + 1; i + 1 < end; i++) {
    const x1 = coords[2 * i]!;
    const y1 = coords[2 * i + 1]!;
    const x2 = coords[2 * i + 2]!;
    const y2 = coords[2 * i + 3]!;
    twice += (x1 - ox) * (y2 - oy) - (x2 - ox) * (y1 - oy);
  }
  return twice / 2;
}

/** Exterior minus holes, each ring taken by absolute value (winding order is irrelevant). */
export function polygonPlanarArea(rings: readonly Ring[]): number {
  let area = 0;
  rings.forEach((ring, r) => {
    const a = Math.abs(ringSignedArea(ring));
    area += r === 0 ? a : -a;
  });
  return area;
}

export function polygonsPlanarArea(polygons: readonly (readonly Ring[])[]): number {
  let area = 0;
  for (const rings of polygons) area += polygonPlanarArea(rings);
  return area;
}

/** Consecutive repeated positions removed; `index` maps each kept position to its
 *  index in the input so messages can point at the text the user wrote. */
export function dedupeRing(ring: readonly Position[]): { positions: Position[]; index: number[] } {
  const positions: Position[] = [];
  const index: number[] = [];
  let last: Position | undefined;
  for (let i = 0; i < ring.length; i++) {
    const p = ring[i]!;
    if (last && last[0] === p[0] && last[1] === p[1]) continue;
    positions.push(p);
    index.push(i);
    last = p;
  }
  return { positions, index };
}
