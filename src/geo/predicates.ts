// Exact planar predicates on lon/lat doubles. Validity decisions (does this ring touch
// itself? is this vertex on that edge?) must not depend on rounding noise, otherwise a
// polygon that polygon-clipping produced could be rejected when resubmitted. The fast
// path is Shewchuk's filtered orientation test; only near-degenerate cases fall back to
// exact BigInt arithmetic.

import type { Position } from './types.ts';

const EPSILON = 2 ** -53;
const ORIENT_ERRBOUND = (3 + 16 * EPSILON) * EPSILON;

const f64 = new Float64Array(1);
const u64 = new BigUint64Array(f64.buffer);

/** A double as `m * 2^e` with integer `m` (sign included). */
function decompose(x: number): { m: bigint; e: number } {
  if (x === 0) return { m: 0n, e: 0 };
  f64[0] = x;
  const bits = u64[0]!;
  const biased = Number((bits >> 52n) & 0x7ffn);
  const fraction = bits & 0xfffffffffffffn;
  const negative = bits >> 63n === 1n;
  const m = biased === 0 ? fraction : fraction | 0x10000000000000n;
  const e = biased === 0 ? -1074 : biased - 1075;
  return { m: negative ? -m : m, e };
}

function exactOrientSign(ax: number, ay: number, bx: number, by: number, cx: number, cy: number): number {
  const parts = [ax, ay, bx, by, cx, cy].map(decompose);
  let shift = 0;
  for (const p of parts) if (p.m !== 0n && -p.e > shift) shift = -p.e;
  const [iax, iay, ibx, iby, icx, icy] = parts.map((p) => (p.m === 0n ? 0n : p.m << BigInt(p.e + shift)));
  const det = (iax! - icx!) * (iby! - icy!) - (iay! - icy!) * (ibx! - icx!);
  return det > 0n ? 1 : det < 0n ? -1 : 0;
}

/** Sign of the turn a → b → c: 1 counter-clockwise (c left of a→b), -1 clockwise, 0 collinear. Exact. */
export function orient(a: Position, b: Position, c: Position): number {
  const detLeft = (a[0] - c[0]) * (b[1] - c[1]);
  const detRight = (a[1] - c[1]) * (b[0] - c[0]);
  const det = detLeft - detRight;
  if (Math.abs(det) >= ORIENT_ERRBOUND * Math.abs(detLeft + detRight)) return Math.sign(det);
  return exactOrientSign(a[0], a[1], b[0], b[1], c[0], c[1]);
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
  const o1 = orient(p1, p2, q1);
  const o2 = orient(p1, p2, q2);
  if (o1 !== 0 && o1 === o2) return 'none';
  const o3 = orient(q1, q2, p1);
  const o4 = orient(q1, q2, p2);
  if (o3 !== 0 && o3 === o4) return 'none';
  if (o1 === 0 && o2 === 0) {
    // Collinear (then o3 = o4 = 0 too): compare the intervals on the dominant axis.
    const axis = Math.abs(p1[0] - p2[0]) >= Math.abs(p1[1] - p2[1]) ? 0 : 1;
    const pLo = Math.min(p1[axis], p2[axis]);
    const pHi = Math.max(p1[axis], p2[axis]);
    const qLo = Math.min(q1[axis], q2[axis]);
    const qHi = Math.max(q1[axis], q2[axis]);
    const lo = Math.max(pLo, qLo);
    const hi = Math.min(pHi, qHi);
    if (lo > hi) return 'none';
    return lo === hi ? 'touch' : 'overlap';
  }
  if (o1 !== 0 && o2 !== 0 && o3 !== 0 && o4 !== 0) return 'cross';
  return 'touch';
}

/** 1 strictly inside the closed ring, 0 on its boundary, -1 outside. Exact (winding number). */
export function pointInRing(p: Position, ring: readonly Position[]): 1 | 0 | -1 {
  let winding = 0;
  for (let i = 0; i + 1 < ring.length; i++) {
    const a = ring[i]!;
    const b = ring[i + 1]!;
    if (samePosition(a, b)) continue;
    if (a[1] <= p[1]) {
      if (b[1] > p[1]) {
        const o = orient(a, b, p);
        if (o === 0) return 0;
        if (o > 0) winding++;
      } else if (b[1] === p[1] && onSegment(p, a, b)) {
        return 0;
      }
    } else if (b[1] <= p[1]) {
      const o = orient(a, b, p);
      if (o === 0) return 0;
      if (o < 0) winding--;
    }
  }
  return winding !== 0 ? 1 : -1;
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
      if (samePosition(a, b)) continue;
      if (a[1] <= p[1]) {
        if (b[1] > p[1]) {
          const o = orient(a, b, p);
          if (o === 0) return 0;
          if (o > 0) winding++;
        } else if (b[1] === p[1] && onSegment(p, a, b)) {
          return 0;
        }
      } else if (b[1] <= p[1]) {
        const o = orient(a, b, p);
        if (o === 0) return 0;
        if (o < 0) winding--;
      }
    }
    return winding !== 0 ? 1 : -1;
  }
}
