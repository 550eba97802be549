// Fitting a geometry into a WKT size budget, so `coverage.polygon` stays under the request
// size limit and can be resubmitted as a new `polygon`. Steps, cheapest loss first:
//   1. the geometry as is at 6 decimals (~0.1 m), then at 5 (~1 m);
//   2. Douglas–Peucker per ring at 5 decimals with a growing tolerance, then a bisection
//      back down to the smallest tolerance that still fits (the most detail the budget
//      buys). Rings that come out self-intersecting are redone with a smaller tolerance,
//      rings that collapse (fewer than 3 corners) are dropped — a hole simply disappears, a
//      part with a collapsed shell goes with its holes. Conflicts between rings (a hole
//      poking out of its shell, parts overlapping) are resolved the same way: the rings
//      involved get a smaller tolerance, down to none; if they still clash from rounding
//      alone, the hole or the smaller part is dropped;
//   3. the bounding box, rounded outwards;
//   4. nothing fits: GeometryError.
// Every answer is checked with parseAoiWkt before it is returned.

import { GeometryError } from './errors.ts';
import { bboxOf } from './clip.ts';
import { dedupeRing, polygonPlanarArea } from './planar.ts';
import type { AoiGeometry, Position, Ring } from './types.ts';
import { findGeometryIssue, findPolygonIssue } from './validate.ts';
import { formatCoordinate, parseAoiWkt, roundCoordinate, toWkt } from './wkt.ts';

const FULL_DECIMALS = 6;
const SIMPLIFIED_DECIMALS = 5;

function segmentDistanceSquared(p: Position, a: Position, b: Position): number {
  const dx = b[0] - a[0];
  const dy = b[1] - a[1];
  let x = a[0];
  let y = a[1];
  const lengthSquared = dx * dx + dy * dy;
  if (lengthSquared > 0) {
    const t = Math.max(0, Math.min(1, ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / lengthSquared));
    x += t * dx;
    y += t * dy;
  }
  return (p[0] - x) ** 2 + (p[1] - y) ** 2;
}

/**
 * Douglas–Peucker on an open polyline (planar, tolerance in degrees); keeps both ends.
 * Iterative, so 100k-vertex rings do not overflow the stack.
 */
export function douglasPeucker(points: readonly Position[], tolerance: number): Position[] {
  const n = points.length;
  if (n <= 2 || !(tolerance > 0)) return points.slice();
  const keep = new Uint8Array(n);
  keep[0] = 1;
  keep[n - 1] = 1;
  const limit = tolerance * tolerance;
  const stack: number[] = [0, n - 1];
  while (stack.length > 0) {
    const last = stack.pop()!;
    const first = stack.pop()!;
    let farthest = -1;
    let farthestDistance = limit;
    for (let i = first + 1; i < last; i++) {
      const d = segmentDistanceSquared(points[i]!, points[first]!, points[last]!);
      if (d > farthestDistance) {
        farthest = i;
        farthestDistance = d;
      }
    }
    if (farthest >= 0) {
      keep[farthest] = 1;
      stack.push(first, farthest, farthest, last);
    }
  }
  return points.filter((_, i) => keep[i] === 1);
}

/** Douglas–Peucker on a closed ring: split at the first vertex and the one farthest from it. */
function simplifyClosedRing(ring: readonly Position[], tolerance: number): Position[] {
  if (!(tolerance > 0) || ring.length <= 4) return ring.slice();
  const start = ring[0]!;
  let far = 1;
  let farDistance = -1;
  for (let i = 1; i < ring.length - 1; i++) {
    const d = (ring[i]![0] - start[0]) ** 2 + (ring[i]![1] - start[1]) ** 2;
    if (d > farDistance) {
      far = i;
      farDistance = d;
    }
  }
  const head = douglasPeucker(ring.slice(0, far + 1), tolerance);
  const tail = douglasPeucker(ring.slice(far), tolerance);
  return head.concat(tail.slice(1));
}

function roundRing(ring: readonly Position[], decimals: number): Position[] {
  return dedupeRing(ring.map(([x, y]): Position => [roundCoordinate(x, decimals), roundCoordinate(y, decimals)])).positions;
}

/**
 * One ring simplified at `tolerance`, rounded, valid on its own (closed, ≥ 3 corners, not
 * self-intersecting); null when it collapses. A self-intersecting result is redone with
 * half the tolerance, down to the rounded original.
 */
function simplifyRing(ring: readonly Position[], tolerance: number, decimals: number): Position[] | null {
  let t = tolerance;
  for (;;) {
    const candidate = roundRing(simplifyClosedRing(ring, t), decimals);
    if (candidate.length < 4) return null;
    if (!findPolygonIssue([candidate], 0, false)) return candidate;
    if (t === 0) return null;
    t = t / 2 < 10 ** -(decimals + 3) ? 0 : t / 2;
  }
}

/** All parts simplified at `tolerance` and valid together, or null when nothing survives. */
function simplifyPolygons(polygons: readonly Ring[][], tolerance: number, decimals: number): Ring[][] | null {
  // Per-ring multiplier of the tolerance; 0 means "rounded original"; NaN means dropped.
  const factor = polygons.map((rings) => rings.map(() => 1));
  for (let round = 0; round < 4 * 64; round++) {
    const out: Ring[][] = [];
    const origin: Array<{ part: number; rings: number[] }> = [];
    polygons.forEach((rings, p) => {
      if (Number.isNaN(factor[p]![0])) return;
      const shell = simplifyRing(rings[0]!, tolerance * factor[p]![0]!, decimals);
      if (!shell) return;
      const kept: Ring[] = [shell];
      const index = [0];
      for (let r = 1; r < rings.length; r++) {
        if (Number.isNaN(factor[p]![r])) continue;
        const hole = simplifyRing(rings[r]!, tolerance * factor[p]![r]!, decimals);
        if (!hole) continue;
        kept.push(hole);
        index.push(r);
      }
      out.push(kept);
      origin.push({ part: p, rings: index });
    });
    if (out.length === 0) return null;
    const issue = findGeometryIssue(out, out.length > 1);
    if (!issue) return out;
    const involved = issue.rings.map(({ part, ring }) => ({
      part: origin[part]!.part,
      ring: origin[part]!.rings[ring]!,
    }));
    if (involved.length === 0) return null;
    let reduced = false;
    for (const { part, ring } of involved) {
      const f = factor[part]![ring]!;
      if (f > 0) {
        factor[part]![ring] = f < 1e-6 ? 0 : f / 8;
        reduced = true;
      }
    }
    if (reduced) continue;
    // Already at full detail and still clashing: rounding did it. Give up the smallest loss.
    if (issue.kind === 'parts') {
      const a = involved[0]!.part;
      const b = involved[involved.length - 1]!.part;
      const smaller = polygonPlanarArea(polygons[a]!) <= polygonPlanarArea(polygons[b]!) ? a : b;
      factor[smaller]![0] = NaN;
      continue;
    }
    const hole = involved.filter(({ ring }) => ring > 0).sort((x, y) => y.ring - x.ring)[0];
    if (!hole) return null;
    factor[hole.part]![hole.ring] = NaN;
  }
  return null;
}

function partsWkt(parts: Ring[][], decimals: number): string {
  const geom: AoiGeometry =
    parts.length === 1 ? { type: 'Polygon', coordinates: parts[0]! } : { type: 'MultiPolygon', coordinates: parts };
  return toWkt(geom, decimals);
}

function parses(text: string): boolean {
  try {
    parseAoiWkt(text);
    return true;
  } catch {
    return false;
  }
}

function boundingBoxWkt(geom: AoiGeometry, decimals: number): string {
  const unit = 10 ** -decimals;
  const [minx, miny, maxx, maxy] = bboxOf(geom);
  // Outwards, so the box still contains the whole extent after rounding.
  let x0 = roundCoordinate(Math.max(-180, Math.floor(minx / unit) * unit), decimals);
  let y0 = roundCoordinate(Math.max(-90, Math.floor(miny / unit) * unit), decimals);
  let x1 = roundCoordinate(Math.min(180, Math.ceil(maxx / unit) * unit), decimals);
  let y1 = roundCoordinate(Math.min(90, Math.ceil(maxy / unit) * unit), decimals);
  // A box needs width and height; a point or line input gets one rounding unit of it.
  if (x0 === x1) {
    if (x1 < 180) x1 = roundCoordinate(x1 + unit, decimals);
    else x0 = roundCoordinate(x0 - unit, decimals);
  }
  if (y0 === y1) {
    if (y1 < 90) y1 = roundCoordinate(y1 + unit, decimals);
    else y0 = roundCoordinate(y0 - unit, decimals);
  }
  const [a, b, c, d] = [x0, y0, x1, y1].map((v) => formatCoordinate(v, decimals));
  return `POLYGON ((${a} ${b}, ${c} ${b}, ${c} ${d}, ${a} ${d}, ${a} ${b}))`;
}

/**
 * WKT of `geom` no longer than `maxChars`, valid for parseAoiWkt: full precision if it
 * fits, otherwise simplified as described at the top of this file. Throws GeometryError
 * when not even the bounding box fits.
 */
export function simplifyToWktBudget(geom: AoiGeometry, maxChars: number): string {
  for (const decimals of [FULL_DECIMALS, SIMPLIFIED_DECIMALS]) {
    const text = toWkt(geom, decimals);
    if (text.length <= maxChars && parses(text)) return text;
  }

  const polygons: Ring[][] = geom.type === 'Polygon' ? [geom.coordinates] : geom.coordinates;
  const [minx, miny, maxx, maxy] = bboxOf(geom);
  const extent = Math.hypot(maxx - minx, maxy - miny);
  type Attempt = { text: string | null; fits: boolean };
  const attempt = (tolerance: number): Attempt => {
    const parts = simplifyPolygons(polygons, tolerance, SIMPLIFIED_DECIMALS);
    if (!parts) return { text: null, fits: false };
    const text = partsWkt(parts, SIMPLIFIED_DECIMALS);
    return { text, fits: text.length <= maxChars && parses(text) };
  };

  // Grow the tolerance until the text fits or everything collapses...
  let tooDetailed = 0;
  let fitting: { tolerance: number; text: string } | null = null;
  for (let tolerance = 10 ** -SIMPLIFIED_DECIMALS; tolerance <= 2 * extent; tolerance *= 2) {
    const result = attempt(tolerance);
    if (result.text === null) break;
    if (result.fits) {
      fitting = { tolerance, text: result.text };
      break;
    }
    tooDetailed = tolerance;
  }
  // ...then bisect back towards the most detail that still fits.
  if (fitting && tooDetailed > 0) {
    let lo = tooDetailed;
    for (let i = 0; i < 8; i++) {
      const mid = Math.sqrt(lo * fitting.tolerance);
      const result = attempt(mid);
      if (result.fits && result.text !== null) fitting = { tolerance: mid, text: result.text };
      else lo = mid;
    }
  }
  if (fitting) return fitting.text;

  const box = boundingBoxWkt(geom, SIMPLIFIED_DECIMALS);
  if (box.length <= maxChars && parses(box)) return box;
  throw new GeometryError(`the polygon cannot be written in ${maxChars} characters of WKT, not even as its bounding box`);
}
