// Validity of AOI polygons, close to OGC Simple Features:
// - rings closed, ≥ 4 positions, ≥ 3 distinct corners, finite lon/lat within range;
// - no edge jumps more than 180° of longitude (antimeridian crossings must be split, as
//   RFC 7946 §3.1.9 asks; otherwise geodesic area and planar clipping disagree);
// - a ring never touches or crosses itself (consecutive repeated positions are fine);
// - holes lie inside their shell and do not overlap each other; they may touch the shell
//   or each other at points, as polygon-clipping output does;
// - the interiors of MULTIPOLYGON parts do not overlap. Parts may touch, also along an
//   edge: such input is unambiguous for area and clipping, so rejecting it would only
//   annoy (OGC is stricter here).
// Findings carry the rings involved so simplify.ts can retry just those with a smaller
// tolerance.

import polygonClipping from 'polygon-clipping';
import type { MultiPolygon as ClipMultiPolygon } from 'polygon-clipping';
import { dedupeRing, polygonPlanarArea, ringSignedArea } from './planar.ts';
import { pointInRing, RingLocator, segmentRelation } from './predicates.ts';
import { makeSegment, overlappingBoxPairs, sweepSegmentPairs, type Segment } from './segments.ts';
import type { Position, Ring } from './types.ts';

export interface RingRef {
  part: number;
  ring: number;
}

export interface GeometryIssue {
  message: string;
  /** Rings (0-based) the problem is in; both parts' shells for overlapping parts. */
  rings: RingRef[];
  kind: 'structure' | 'ring' | 'rings' | 'parts';
}

/** How messages name rings: 1-based, as a person counts them in the WKT text. */
export function ringName(part: number, ring: number, multi: boolean): string {
  return multi ? `polygon part ${part + 1} ring ${ring + 1}` : `polygon ring ${ring + 1}`;
}

function fmt(p: Position): string {
  return `${p[0]} ${p[1]}`;
}

export function findStructureIssue(polygons: readonly (readonly Ring[])[], multi: boolean): GeometryIssue | null {
  if (polygons.length === 0) return { kind: 'structure', message: 'polygon is EMPTY', rings: [] };
  for (let p = 0; p < polygons.length; p++) {
    const rings = polygons[p]!;
    if (rings.length === 0) {
      return { kind: 'structure', message: multi ? `polygon part ${p + 1} is EMPTY` : 'polygon is EMPTY', rings: [] };
    }
    for (let r = 0; r < rings.length; r++) {
      const ring = rings[r]!;
      const name = ringName(p, r, multi);
      const issue = (message: string): GeometryIssue => ({ kind: 'structure', message, rings: [{ part: p, ring: r }] });
      for (let i = 0; i < ring.length; i++) {
        const [lon, lat] = ring[i]!;
        if (!Number.isFinite(lon) || !Number.isFinite(lat)) {
          return issue(`${name} position ${i + 1} is not a pair of finite numbers`);
        }
        if (lon < -180 || lon > 180) return issue(`${name} position ${i + 1}: longitude ${lon} is outside [-180, 180]`);
        if (lat < -90 || lat > 90) return issue(`${name} position ${i + 1}: latitude ${lat} is outside [-90, 90]`);
      }
      if (ring.length === 0) return issue(`${name} is EMPTY`);
      const first = ring[0]!;
      const last = ring[ring.length - 1]!;
      if (first[0] !== last[0] || first[1] !== last[1]) {
        return issue(`${name} is not closed: it starts at (${fmt(first)}) but ends at (${fmt(last)})`);
      }
      if (ring.length < 4) {
        const positions = `${ring.length} position${ring.length === 1 ? '' : 's'}`;
        return issue(`${name} has ${positions}; a ring needs at least 4 (3 corners and the closing position)`);
      }
      for (let i = 0; i + 1 < ring.length; i++) {
        if (Math.abs(ring[i + 1]![0] - ring[i]![0]) > 180) {
          return issue(
            `${name} jumps more than 180° of longitude between positions ${i + 1} and ${i + 2}; ` +
              'split a polygon that crosses the antimeridian into a MULTIPOLYGON at ±180°',
          );
        }
      }
    }
  }
  return null;
}

interface CleanRing {
  positions: Position[];
  /** Original (input) index of each kept position. */
  index: number[];
}

function ringBox(ring: readonly Position[]): [number, number, number, number] {
  let minx = Infinity;
  let miny = Infinity;
  let maxx = -Infinity;
  let maxy = -Infinity;
  for (const [x, y] of ring) {
    if (x < minx) minx = x;
    if (y < miny) miny = y;
    if (x > maxx) maxx = x;
    if (y > maxy) maxy = y;
  }
  return [minx, miny, maxx, maxy];
}

type Locate = (p: Position) => 1 | 0 | -1;

/** 1 inside, -1 outside, 0 when every probe of `ring` lies on the other ring's boundary. */
function ringSide(ring: readonly Position[], other: readonly Position[] | Locate): 1 | 0 | -1 {
  const locate: Locate = typeof other === 'function' ? other : (p) => pointInRing(p, other);
  for (let i = 0; i + 1 < ring.length; i++) {
    const side = locate(ring[i]!);
    if (side !== 0) return side;
  }
  // All corners on the boundary: an edge midpoint decides (it cannot lie on the boundary
  // too unless the rings overlap along an edge, which the segment sweep reports first).
  for (let i = 0; i + 1 < ring.length; i++) {
    const a = ring[i]!;
    const b = ring[i + 1]!;
    const side = locate([(a[0] + b[0]) / 2, (a[1] + b[1]) / 2]);
    if (side !== 0) return side;
  }
  return 0;
}

function clipArea(mp: ClipMultiPolygon): number {
  let area = 0;
  for (const rings of mp) area += polygonPlanarArea(rings);
  return area;
}

/** Topology of one polygon (shell + holes); structure must already be valid. */
export function findPolygonIssue(rings: readonly Ring[], part: number, multi: boolean): GeometryIssue | null {
  const ref = (ring: number): RingRef => ({ part, ring });
  const name = (ring: number): string => ringName(part, ring, multi);
  const clean: CleanRing[] = rings.map((ring) => dedupeRing(ring));
  for (let r = 0; r < clean.length; r++) {
    if (clean[r]!.positions.length < 4) {
      return { kind: 'ring', message: `${name(r)} has fewer than 3 distinct corners`, rings: [ref(r)] };
    }
  }

  const segments: Segment[] = [];
  clean.forEach(({ positions }, r) => {
    for (let i = 0; i + 1 < positions.length; i++) segments.push(makeSegment(positions[i]!, positions[i + 1]!, r, i));
  });
  const edge = (s: Segment): string => {
    const index = clean[s.ring]!.index;
    return `the edge from position ${index[s.index]! + 1} to ${index[s.index + 1]! + 1}`;
  };
  const found: GeometryIssue[] = [];
  // Whether two different rings touch: only then can a hole leave its shell (or enter
  // another hole) without any edge crossing, which the clipping backstop below checks.
  let ringsTouch = false;
  sweepSegmentPairs(segments, (s, t) => {
    const relation = segmentRelation(s.a, s.b, t.a, t.b);
    if (relation === 'none') return false;
    if (s.ring === t.ring) {
      const edges = clean[s.ring]!.positions.length - 1;
      const gap = Math.abs(s.index - t.index);
      const adjacent = gap === 1 || gap === edges - 1;
      if (adjacent && relation !== 'overlap') return false;
      const [first, second] = s.index < t.index ? [s, t] : [t, s];
      const verb = relation === 'cross' ? 'crosses' : relation === 'overlap' ? 'runs back along' : 'touches';
      found.push({
        kind: 'ring',
        message: `${name(s.ring)} intersects itself: ${edge(first)} ${verb} ${edge(second)}`,
        rings: [ref(s.ring)],
      });
      return true;
    }
    if (relation === 'touch') {
      ringsTouch = true;
      return false;
    }
    const [outer, inner] = s.ring < t.ring ? [s, t] : [t, s];
    const verb = relation === 'cross' ? 'crosses' : 'shares an edge with';
    found.push({
      kind: 'rings',
      message:
        outer.ring === 0
          ? `${name(inner.ring)} (a hole) ${verb} its shell (ring 1): ${edge(inner)} meets ${edge(outer)}`
          : `${name(inner.ring)} and ring ${outer.ring + 1} (both holes) intersect: ${edge(inner)} meets ${edge(outer)}`,
      rings: [ref(outer.ring), ref(inner.ring)],
    });
    return true;
  });
  if (found.length > 0) return found[0]!;
  if (clean.length === 1) return null;

  // Boundaries do not cross, so each hole is either inside the shell or outside it, and
  // two holes are disjoint or nested; one probe point per ring decides.
  const shell = clean[0]!.positions;
  // Many holes in a big shell (a speckled no-data mask): index the shell once.
  const indexed = clean.length > 8 && shell.length > 64 ? new RingLocator(shell) : null;
  const inShell: Locate = indexed ? (p) => indexed.locate(p) : (p) => pointInRing(p, shell);
  for (let h = 1; h < clean.length; h++) {
    if (ringSide(clean[h]!.positions, inShell) < 0) {
      return {
        kind: 'rings',
        message: `${name(h)} (a hole) lies outside its shell (ring 1)`,
        rings: [ref(0), ref(h)],
      };
    }
  }
  const holeBoxes = clean.slice(1).map(({ positions }) => ringBox(positions));
  for (const [i, j] of overlappingBoxPairs(holeBoxes)) {
    const a = clean[i + 1]!.positions;
    const b = clean[j + 1]!.positions;
    if (ringSide(a, b) > 0 || ringSide(b, a) > 0) {
      return {
        kind: 'rings',
        message: `${name(i + 1)} and ring ${j + 2} (both holes) overlap`,
        rings: [ref(i + 1), ref(j + 1)],
      };
    }
  }
  return ringsTouch ? findHoleIssueByClipping(clean.map((c) => c.positions), part, multi) : null;
}

/**
 * Backstop for the one arrangement the probes above cannot see: a hole that leaves its
 * shell (or enters another hole) only through vertices it touches. Measured with
 * polygon-clipping; a failure of the library itself is not the user's fault, so it
 * leaves the exact checks' verdict standing.
 */
function findHoleIssueByClipping(rings: Position[][], part: number, multi: boolean): GeometryIssue | null {
  const shell = rings[0]!;
  const holes = rings.slice(1);
  const tolerance = 1e-9 * Math.abs(ringSignedArea(shell));
  try {
    const holeArea = holes.reduce((sum, h) => sum + Math.abs(ringSignedArea(h)), 0);
    const [first, ...rest] = holes.map((h) => [h]);
    const union = polygonClipping.union(first!, ...rest);
    if (holeArea - clipArea(union) > tolerance) {
      for (const [i, j] of overlappingBoxPairs(holes.map(ringBox))) {
        if (clipArea(polygonClipping.intersection([holes[i]!], [holes[j]!])) > tolerance) {
          return {
            kind: 'rings',
            message: `${ringName(part, i + 1, multi)} and ring ${j + 2} (both holes) overlap`,
            rings: [
              { part, ring: i + 1 },
              { part, ring: j + 1 },
            ],
          };
        }
      }
    }
    if (clipArea(polygonClipping.difference(union, [shell])) > tolerance) {
      for (let h = 0; h < holes.length; h++) {
        if (clipArea(polygonClipping.difference([holes[h]!], [shell])) > tolerance) {
          return {
            kind: 'rings',
            message: `${ringName(part, h + 1, multi)} (a hole) is not inside its shell (ring 1)`,
            rings: [
              { part, ring: 0 },
              { part, ring: h + 1 },
            ],
          };
        }
      }
    }
  } catch {
    return null;
  }
  return null;
}

/** Overlap between the interiors of MULTIPOLYGON parts (each part already valid). */
export function findPartsIssue(polygons: readonly (readonly Ring[])[]): GeometryIssue | null {
  if (polygons.length < 2) return null;
  const boxes = polygons.map((rings) => ringBox(rings[0]!));
  for (const [i, j] of overlappingBoxPairs(boxes)) {
    const a = polygons[i]!;
    const b = polygons[j]!;
    const tolerance = 1e-9 * Math.min(polygonPlanarArea(a), polygonPlanarArea(b));
    let overlap: number;
    try {
      overlap = clipArea(polygonClipping.intersection(a as Ring[], b as Ring[]));
    } catch {
      continue;
    }
    if (overlap > tolerance) {
      return {
        kind: 'parts',
        message: `polygon parts ${i + 1} and ${j + 1} overlap; a MULTIPOLYGON's parts must not share area`,
        rings: [
          { part: i, ring: 0 },
          { part: j, ring: 0 },
        ],
      };
    }
  }
  return null;
}

/** The first problem found, or null when the geometry is valid. */
export function findGeometryIssue(polygons: readonly (readonly Ring[])[], multi: boolean): GeometryIssue | null {
  const structure = findStructureIssue(polygons, multi);
  if (structure) return structure;
  for (let p = 0; p < polygons.length; p++) {
    const issue = findPolygonIssue(polygons[p]!, p, multi);
    if (issue) return issue;
  }
  return findPartsIssue(polygons);
}
