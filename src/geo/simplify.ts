// Fitting a geometry into a WKT size budget, so `coverage.polygon` stays under the request
// size limit and can be resubmitted as a new `polygon`. Cheapest loss first:
//   1. the geometry as is at 6 decimals (~0.1 m), then at 5 (~1 m);
//   2. Douglas–Peucker per ring at 5 decimals with a growing tolerance, then a bisection
//      back to the smallest tolerance that still fits (the most detail the budget buys).
//      A ring that comes out self-intersecting is redone with a smaller tolerance; a ring
//      that collapses (fewer than 3 corners) is dropped — a hole disappears, a part goes
//      with its holes. Conflicts between rings (a hole poking out of its shell, parts
//      overlapping) are resolved the same way: the rings involved get a smaller tolerance,
//      down to none; if they still clash from rounding alone, the hole or the smaller part
//      is dropped;
//   3. for every tolerance that was still too long: drop the smallest holes and parts
//      until it fits (speckle in a no-data mask is better lost than the shape of the rest);
//   Among the results of 2 and 3 the one closest to the input wins, measured as the sum
//   over rings of |area before − area after| (a dropped ring counts with its whole area);
//   4. the bounding box, rounded outwards;
//   5. nothing fits: GeometryError.
// Every answer is checked with parseAoiWkt before it is returned.

import { bboxOf } from './clip.ts';
import { GeometryError } from './errors.ts';
import { dedupeRing, ringSignedArea } from './planar.ts';
import type { AoiGeometry, Position, Ring } from './types.ts';
import { findGeometryIssue, findPolygonIssue } from './validate.ts';
import { formatCoordinate, parseAoiWkt, ringWkt, roundCoordinate, toWkt } from './wkt.ts';

const FULL_DECIMALS = 6;
const SIMPLIFIED_DECIMALS = 5;
const BISECTION_STEPS = 8;

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
 *
 * Textbook DP splits at the farthest point, which is quadratic when that point keeps
 * landing near an end — exactly what the staircase edges of raster-traced masks do (all
 * corners equally far from the chord). The result stays within tolerance whichever point
 * beyond the tolerance it splits at, so when the farthest one lies in the outer eighths of
 * a long run, this splits at the point nearest the middle that is at least half as far.
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
    if (farthest < 0) continue;
    const span = last - first;
    if (span > 64 && ((farthest - first) * 8 < span || (last - farthest) * 8 < span)) {
      const middle = (first + last) / 2;
      const halfFarthest = farthestDistance / 4; // squared distances: half the distance
      let best = farthest;
      for (let i = first + 1; i < last; i++) {
        if (Math.abs(i - middle) >= Math.abs(best - middle)) continue;
        if (segmentDistanceSquared(points[i]!, points[first]!, points[last]!) >= halfFarthest) best = i;
      }
      farthest = best;
    }
    keep[farthest] = 1;
    stack.push(first, farthest, farthest, last);
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

/** Simplified parts plus, for each kept ring, which input ring it came from. */
interface Simplified {
  parts: Ring[][];
  origin: Array<{ part: number; rings: number[] }>;
}

class Simplifier {
  /** Rings already simplified at a given effective tolerance: `part/ring/tolerance`. */
  private readonly cache = new Map<string, Position[] | null>();

  constructor(
    private readonly polygons: readonly Ring[][],
    private readonly decimals: number,
  ) {}

  private ring(part: number, ring: number, tolerance: number): Position[] | null {
    const key = `${part}/${ring}/${tolerance}`;
    let result = this.cache.get(key);
    if (result === undefined) {
      result = simplifyRing(this.polygons[part]![ring]!, tolerance, this.decimals);
      this.cache.set(key, result);
    }
    return result;
  }

  /** All parts at `tolerance`, valid together; null when nothing survives. */
  run(tolerance: number): Simplified | null {
    const polygons = this.polygons;
    // Per-ring multiplier of the tolerance; 0 means "rounded original", NaN "dropped".
    const factor = polygons.map((rings) => rings.map(() => 1));
    for (let round = 0; round < 256; round++) {
      const parts: Ring[][] = [];
      const origin: Simplified['origin'] = [];
      polygons.forEach((rings, p) => {
        if (Number.isNaN(factor[p]![0])) return;
        const shell = this.ring(p, 0, tolerance * factor[p]![0]!);
        if (!shell) return;
        const kept: Ring[] = [shell];
        const index = [0];
        for (let r = 1; r < rings.length; r++) {
          if (Number.isNaN(factor[p]![r])) continue;
          const hole = this.ring(p, r, tolerance * factor[p]![r]!);
          if (!hole) continue;
          kept.push(hole);
          index.push(r);
        }
        parts.push(kept);
        origin.push({ part: p, rings: index });
      });
      if (parts.length === 0) return null;
      const issue = findGeometryIssue(parts, parts.length > 1);
      if (!issue) return { parts, origin };
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
        const smaller = Math.abs(ringSignedArea(polygons[a]![0]!)) <= Math.abs(ringSignedArea(polygons[b]![0]!)) ? a : b;
        factor[smaller]![0] = NaN;
        continue;
      }
      const hole = involved.filter(({ ring }) => ring > 0).sort((x, y) => y.ring - x.ring)[0];
      if (!hole) return null;
      factor[hole.part]![hole.ring] = NaN;
    }
    return null;
  }
}

/** WKT of a subset of simplified rings, assembled from per-ring texts. */
class Assembly {
  readonly ringTexts: string[][];

  constructor(readonly simplified: Simplified) {
    this.ringTexts = simplified.parts.map((rings) => rings.map((ring) => ringWkt(ring, SIMPLIFIED_DECIMALS)));
  }

  /** Text length without building the text; `keep(part, ring)` selects rings (ring 0 = whole part). */
  length(keep: (part: number, ring: number) => boolean): number {
    let parts = 0;
    let total = 0;
    this.ringTexts.forEach((texts, p) => {
      if (!keep(p, 0)) return;
      parts++;
      let rings = 0;
      texts.forEach((text, r) => {
        if (r > 0 && !keep(p, r)) return;
        rings++;
        total += text.length;
      });
      total += 2 + 2 * (rings - 1); // "(" … ")" and ", " between rings
    });
    if (parts === 0) return Infinity;
    return parts === 1 ? 'POLYGON '.length + total : 'MULTIPOLYGON ('.length + total + 2 * (parts - 1) + 1;
  }

  text(keep: (part: number, ring: number) => boolean): string {
    const polygons: string[] = [];
    this.ringTexts.forEach((texts, p) => {
      if (!keep(p, 0)) return;
      polygons.push(`(${texts.filter((_, r) => r === 0 || keep(p, r)).join(', ')})`);
    });
    return polygons.length === 1 ? `POLYGON ${polygons[0]}` : `MULTIPOLYGON (${polygons.join(', ')})`;
  }
}

interface Candidate {
  text: string;
  /** Σ over input rings of |area before − area after|, deg². */
  error: number;
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
  const down = (v: number, limit: number): number => {
    const r = roundCoordinate(v, decimals);
    return r > v ? Math.max(limit, roundCoordinate(r - unit, decimals)) : r;
  };
  const up = (v: number, limit: number): number => {
    const r = roundCoordinate(v, decimals);
    return r < v ? Math.min(limit, roundCoordinate(r + unit, decimals)) : r;
  };
  let x0 = down(minx, -180);
  let y0 = down(miny, -90);
  let x1 = up(maxx, 180);
  let y1 = up(maxy, 90);
  // A box needs width and height; a degenerate input gets one rounding unit of it.
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
  const inputAreas = polygons.map((rings) => rings.map((ring) => Math.abs(ringSignedArea(ring))));
  const totalInputArea = inputAreas.flat().reduce((sum, a) => sum + a, 0);
  const simplifier = new Simplifier(polygons, SIMPLIFIED_DECIMALS);

  const errorOf = (assembly: Assembly, keep: (part: number, ring: number) => boolean): number => {
    let kept = 0;
    let error = 0;
    assembly.simplified.parts.forEach((rings, p) => {
      if (!keep(p, 0)) return;
      const origin = assembly.simplified.origin[p]!;
      rings.forEach((ring, r) => {
        if (r > 0 && !keep(p, r)) return;
        const before = inputAreas[origin.part]![origin.rings[r]!]!;
        kept += before;
        error += Math.abs(before - Math.abs(ringSignedArea(ring)));
      });
    });
    return error + (totalInputArea - kept); // rings not kept count with their whole area
  };
  const all = (): boolean => true;

  const candidates: Candidate[] = [];
  const tooLong: Assembly[] = [];
  const attempt = (tolerance: number): 'fits' | 'too long' | 'collapsed' => {
    const simplified = simplifier.run(tolerance);
    if (!simplified) return 'collapsed';
    const assembly = new Assembly(simplified);
    if (assembly.length(all) > maxChars) {
      tooLong.push(assembly);
      return 'too long';
    }
    const text = assembly.text(all);
    if (text.length > maxChars || !parses(text)) return 'too long';
    candidates.push({ text, error: errorOf(assembly, all) });
    return 'fits';
  };

  // Grow the tolerance until the text fits or everything collapses...
  const [minx, miny, maxx, maxy] = bboxOf(geom);
  const extent = Math.hypot(maxx - minx, maxy - miny);
  let detailed = 0;
  let coarse = 0;
  for (let tolerance = 10 ** -SIMPLIFIED_DECIMALS; tolerance <= 2 * extent; tolerance *= 2) {
    const outcome = attempt(tolerance);
    if (outcome === 'collapsed') break;
    if (outcome === 'fits') {
      coarse = tolerance;
      break;
    }
    detailed = tolerance;
  }
  // ...then bisect back towards the most detail that still fits.
  if (coarse > 0 && detailed > 0) {
    for (let i = 0; i < BISECTION_STEPS; i++) {
      const middle = Math.sqrt(detailed * coarse);
      if (attempt(middle) === 'fits') coarse = middle;
      else detailed = middle;
    }
  }

  // Detail that did not fit: keep it, minus the smallest holes and parts.
  for (const assembly of tooLong) {
    const { parts } = assembly.simplified;
    const areas = parts.map((rings) => rings.map((ring) => Math.abs(ringSignedArea(ring))));
    let largest = 0;
    areas.forEach((a, p) => {
      if (a[0]! > areas[largest]![0]!) largest = p;
    });
    const droppable: Array<{ part: number; ring: number; area: number }> = [];
    areas.forEach((rings, p) =>
      rings.forEach((area, r) => {
        if (r === 0 && p === largest) return;
        droppable.push({ part: p, ring: r, area: r === 0 ? area - rings.slice(1).reduce((s, h) => s + h, 0) : area });
      }),
    );
    droppable.sort((x, y) => x.area - y.area);
    const offset: number[] = [];
    let rings = 0;
    for (const part of parts) {
      offset.push(rings);
      rings += part.length;
    }
    const keepAllBut = (count: number): ((part: number, ring: number) => boolean) => {
      const dropped = new Uint8Array(rings);
      for (let i = 0; i < count; i++) dropped[offset[droppable[i]!.part]! + droppable[i]!.ring] = 1;
      return (part, ring) => dropped[offset[part]!] === 0 && dropped[offset[part]! + ring] === 0;
    };
    if (assembly.length(keepAllBut(droppable.length)) > maxChars) continue;
    let lo = 0; // too long with `lo` rings dropped
    let hi = droppable.length; // fits with `hi` dropped
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1;
      if (assembly.length(keepAllBut(mid)) <= maxChars) hi = mid;
      else lo = mid;
    }
    const keep = keepAllBut(hi);
    const text = assembly.text(keep);
    if (text.length <= maxChars && parses(text)) candidates.push({ text, error: errorOf(assembly, keep) });
  }

  if (candidates.length > 0) {
    return candidates.reduce((best, c) => (c.error < best.error ? c : best)).text;
  }
  const box = boundingBoxWkt(geom, SIMPLIFIED_DECIMALS);
  if (box.length <= maxChars && parses(box)) return box;
  throw new GeometryError(`the polygon cannot be written in ${maxChars} characters of WKT, not even as its bounding box`);
}
