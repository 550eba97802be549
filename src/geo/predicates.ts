// Exact planar predicates on lon/lat doubles. Validity decisions (does this ring touch
// itself? is this vertex on that edge?) must not depend on rounding noise, otherwise a
// polygon that polygon-clipping produced could be rejected when resubmitted. The
// orientation test is Shewchuk's adaptive-precision orient2d (robust-predicates): a
// floating-point filter, and exact expansions only for near-degenerate triples, so even
// thousands of exactly collinear vertices (a comb's spine) stay cheap.

import { orient2d } from 'robust-predicates';
import type { AoiGeometry, Position } from './types.ts';

/** Sign of the turn a → b → c: 1 counter-clockwise (c left of a→b), -1 clockwise, 0 collinear. Exact. */
export function orient(a: Position, b: Position, c: Position): number {
  return orientXY(a[0], a[1], b[0], b[1], c[0], c[1]);
}

/** orient() on bare coordinates (flat arrays, flat.ts). */
export function orientXY(ax: number, ay: number, bx: number, by: number, cx: number, cy: number): number {
  // robust-predicates' orient2d is positive for clockwise triples.
  const det = orient2d(ax, ay, bx, by, cx, cy);
  return det < 0 ? 1 : det > 0 ? -1 : 0;
}

export function samePosition(a: Position, b: Position): boolean {
  return a[0] === b[0] && a[1] === b[1];
}

/** p lies on the closed segment a–b (exactly). */
export function onSegment(p: Position, a: Position, b: Position): boolean {
  if (orient(a, b, p) !== 0) return false;
  return (
    p[0] >= Math.min(a[0], b[0]) &&
    p[0] <= Math.max(a[0], b[0]) &&
    p[1] >= Math.min(a[1], b[1]) &&
    p[1] <= Math.max(a[1], b[1])
  );
}

/**
 * How two non-degenerate segments meet:
 * - `none`: no common point;
 * - `touch`: exactly one common point, which is an endpoint of at least one of them;
 * - `cross`: one common point interior to both;
 * - `overlap`: collinear with a common part of positive length.
 */
export type SegmentRelation = 'none' | 'touch' | 'cross' | 'overlap';

export function segmentRelation(p1: Position, p2: Position, q1: Position, q2: Position): SegmentRelation {
  return segmentRelationXY(p1[0], p1[1], p2[0], p2[1], q1[0], q1[1], q2[0], q2[1]);
}

/** segmentRelation() of p1–p2 and q1–q2 on bare coordinates. */
export function segmentRelationXY(
  p1x: number,
  p1y: number,
  p2x: number,
  p2y: number,
  q1x: number,
  q1y: number,
  q2x: number,
  q2y: number,
): SegmentRelation {
  const o1 = orientXY(p1x, p1y, p2x, p2y, q1x, q1y);
  const o2 = orientXY(p1x, p1y, p2x, p2y, q2x, q2y);
  if (o1 !== 0 && o1 === o2) return 'none';
  const o3 = orientXY(q1x, q1y, q2x, q2y, p1x, p1y);
  const o4 = orientXY(q1x, q1y, q2x, q2y, p2x, p2y);
  if (o3 !== 0 && o3 === o4) return 'none';
  if (o1 === 0 && o2 === 0) {
    // Collinear (then o3 = o4 = 0 too): compare the intervals on the dominant axis.
    const onX = Math.abs(p1x - p2x) >= Math.abs(p1y - p2y);
    const pLo = onX ? Math.min(p1x, p2x) : Math.min(p1y, p2y);
    const pHi = onX ? Math.max(p1x, p2x) : Math.max(p1y, p2y);
    const qLo = onX ? Math.min(q1x, q2x) : Math.min(q1y, q2y);
    const qHi = onX ? Math.max(q1x, q2x) : Math.max(q1y, q2y);
    const lo = Math.max(pLo, qLo);
    const hi = Math.min(pHi, qHi);
    if (lo > hi) return 'none';
    return lo === hi ? 'touch' : 'overlap';
  }
  if (o1 !== 0 && o2 !== 0 && o3 !== 0 && o4 !== 0) return 'cross';
  return 'touch';
}

/** What windingStep gives for an edge that p lies on. */
const ON_EDGE = 2;

/**
 * Edge a→b's part in the winding number of p: +1 when it crosses p's horizontal line upward with
 * p on its left, −1 downward with p on its right, 0 otherwise; ON_EDGE when p lies on it. Exact.
 */
function windingStep(a: Position, b: Position, p: Position): number {
  if (samePosition(a, b)) return 0;
  if (a[1] <= p[1]) {
    if (b[1] > p[1]) {
      const o = orient(a, b, p);
      return o === 0 ? ON_EDGE : o > 0 ? 1 : 0;
    }
    return b[1] === p[1] && onSegment(p, a, b) ? ON_EDGE : 0;
  }
  if (b[1] <= p[1]) {
    const o = orient(a, b, p);
    return o === 0 ? ON_EDGE : o < 0 ? -1 : 0;
  }
  return 0;
}

/** 1 strictly inside the closed ring, 0 on its boundary, -1 outside. Exact (winding number). */
export function pointInRing(p: Position, ring: readonly Position[]): 1 | 0 | -1 {
  let winding = 0;
  for (let i = 0; i + 1 < ring.length; i++) {
    const step = windingStep(ring[i]!, ring[i + 1]!, p);
    if (step === ON_EDGE) return 0;
    winding += step;
  }
  return winding !== 0 ? 1 : -1;
}

/** Whether a lon/lat lies in a Polygon or MultiPolygon (boundary included, holes excluded). */
export function pointInAoi(aoi: AoiGeometry, lon: number, lat: number): boolean {
  const polygons = aoi.type === 'Polygon' ? [aoi.coordinates] : aoi.coordinates;
  return polygons.some((rings) => pointInRing([lon, lat], rings[0]!) >= 0 && rings.slice(1).every((hole) => pointInRing([lon, lat], hole) < 0));
}

/**
 * pointInRing for many queries against one large ring: edges are bucketed by latitude
 * band, so a query scans only the edges whose y-range covers the point — exactly the
 * edges the winding-number test needs, so the answer is the same, just faster.
 */
export class RingLocator {
  private readonly miny: number;
  private readonly maxy: number;
  private readonly bandHeight: number;
  private readonly bands: Array<Array<[Position, Position]>>;

  constructor(ring: readonly Position[]) {
    let miny = Infinity;
    let maxy = -Infinity;
    let spans = 0;
    for (let i = 0; i < ring.length; i++) {
      const y = ring[i]![1];
      if (y < miny) miny = y;
      if (y > maxy) maxy = y;
      if (i > 0) spans += Math.abs(y - ring[i - 1]![1]);
    }
    this.miny = miny;
    this.maxy = maxy;
    // About n/4 bands, but few enough that edges spanning many bands (a comb's teeth)
    // keep the index within ~8 entries per edge.
    const bySpan = spans > 0 ? Math.floor(((maxy - miny) * 7 * ring.length) / spans) : 1;
    const count = Math.max(1, Math.min(4096, Math.floor(ring.length / 4), bySpan));
    this.bandHeight = (maxy - miny) / count || 1;
    this.bands = Array.from({ length: count }, () => []);
    for (let i = 0; i + 1 < ring.length; i++) {
      const a = ring[i]!;
      const b = ring[i + 1]!;
      const first = this.band(Math.min(a[1], b[1]));
      const last = this.band(Math.max(a[1], b[1]));
      for (let k = first; k <= last; k++) this.bands[k]!.push([a, b]);
    }
  }

  private band(y: number): number {
    return Math.max(0, Math.min(this.bands.length - 1, Math.floor((y - this.miny) / this.bandHeight)));
  }

  locate(p: Position): 1 | 0 | -1 {
    if (p[1] < this.miny || p[1] > this.maxy) return -1;
    // Edges ending exactly on a band boundary sit in both bands, so one band suffices.
    const edges = this.bands[this.band(p[1])]!;
    let winding = 0;
    for (const [a, b] of edges) {
      const step = windingStep(a, b, p);
      if (step === ON_EDGE) return 0;
      winding += step;
    }
    return winding !== 0 ? 1 : -1;
  }
}
