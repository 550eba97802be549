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
//
// Cost: O(n log n) in the number of edges, whatever the shape (issue 10 item 1: thin
// slanted parts whose bounding boxes all overlap, combs of long parallel teeth). Edges are
// compared only when a plane sweep (sweep.ts) finds them next to each other or meeting at a
// point; holes and parts are placed by the edge directly below their first vertex.

import { dedupeRing, ringSignedArea } from './planar.ts';
import { segmentRelation } from './predicates.ts';
import { interiorOnLeft, sweepRings, type SweepEdge, type SweepRing } from './sweep.ts';
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

  const edge = (s: SweepEdge): string => {
    const index = clean[s.ring]!.index;
    return `the edge from position ${index[s.index]! + 1} to ${index[s.index + 1]! + 1}`;
  };
  let found: GeometryIssue | null = null;
  // Rings that cross only at a shared vertex: reported after the edge checks, as before.
  let crossing: GeometryIssue | null = null;
  const sweepRingsOf: SweepRing[] = clean.map(({ positions }) => ({ positions, ccw: ringSignedArea(positions) > 0 }));
  const { parent } = sweepRings(sweepRingsOf, {
    pair(s, t) {
      const relation = segmentRelation(s.from, s.to, t.from, t.to);
      if (relation === 'none') return false;
      if (s.ring === t.ring) {
        const edges = clean[s.ring]!.positions.length - 1;
        const gap = Math.abs(s.index - t.index);
        const adjacent = gap === 1 || gap === edges - 1;
        if (adjacent && relation !== 'overlap') return false;
        const [first, second] = s.index < t.index ? [s, t] : [t, s];
        const verb = relation === 'cross' ? 'crosses' : relation === 'overlap' ? 'runs back along' : 'touches';
        found = {
          kind: 'ring',
          message: `${name(s.ring)} intersects itself: ${edge(first)} ${verb} ${edge(second)}`,
          rings: [ref(s.ring)],
        };
        return true;
      }
      if (relation === 'touch') return false;
      const [outer, inner] = s.ring < t.ring ? [s, t] : [t, s];
      const verb = relation === 'cross' ? 'crosses' : 'shares an edge with';
      found = {
        kind: 'rings',
        message:
          outer.ring === 0
            ? `${name(inner.ring)} (a hole) ${verb} its shell (ring 1): ${edge(inner)} meets ${edge(outer)}`
            : `${name(inner.ring)} and ring ${outer.ring + 1} (both holes) intersect: ${edge(inner)} meets ${edge(outer)}`,
        rings: [ref(outer.ring), ref(inner.ring)],
      };
      return true;
    },
    crossAtPoint(a, b) {
      crossing ??=
        a === 0
          ? { kind: 'rings', message: `${name(b)} (a hole) is not inside its shell (ring 1)`, rings: [ref(0), ref(b)] }
          : { kind: 'rings', message: `${name(a)} and ring ${b + 1} (both holes) overlap`, rings: [ref(a), ref(b)] };
      return false;
    },
  });
  if (found) return found;
  if (clean.length === 1) return null;

  // Boundaries do not cross, so each ring has one innermost enclosing ring: a hole's must
  // be the shell (not nothing, not another hole).
  for (let h = 1; h < clean.length; h++) {
    if (parent[h] === -1) {
      return { kind: 'rings', message: `${name(h)} (a hole) lies outside its shell (ring 1)`, rings: [ref(0), ref(h)] };
    }
  }
  for (let h = 1; h < clean.length; h++) {
    const outer = parent[h]!;
    if (outer > 0) {
      const [i, j] = outer < h ? [outer, h] : [h, outer];
      return { kind: 'rings', message: `${name(i)} and ring ${j + 1} (both holes) overlap`, rings: [ref(i), ref(j)] };
    }
  }
  return crossing;
}

/** Overlap between the interiors of MULTIPOLYGON parts (each part already valid). */
export function findPartsIssue(polygons: readonly (readonly Ring[])[]): GeometryIssue | null {
  if (polygons.length < 2) return null;
  const rings: SweepRing[] = [];
  const partOf: number[] = [];
  const isHole: boolean[] = [];
  polygons.forEach((part, p) => {
    part.forEach((ring, r) => {
      const positions = dedupeRing(ring).positions;
      rings.push({ positions, ccw: ringSignedArea(positions) > 0 });
      partOf.push(p);
      isHole.push(r > 0);
    });
  });
  let found: GeometryIssue | null = null;
  const overlap = (a: number, b: number): true => {
    const [i, j] = a < b ? [a, b] : [b, a];
    found = {
      kind: 'parts',
      message: `polygon parts ${i + 1} and ${j + 1} overlap; a MULTIPOLYGON's parts must not share area`,
      rings: [
        { part: i, ring: 0 },
        { part: j, ring: 0 },
      ],
    };
    return true;
  };
  // Which side of an edge (directed left → right) the part's area lies on.
  const areaOnLeft = (e: SweepEdge): boolean => {
    const forward = e.from[0] < e.to[0] || (e.from[0] === e.to[0] && e.from[1] < e.to[1]);
    return interiorOnLeft({ forward }, rings[e.ring]!) !== isHole[e.ring];
  };
  const { parent } = sweepRings(rings, {
    pair(s, t) {
      const a = partOf[s.ring]!;
      const b = partOf[t.ring]!;
      if (a === b) return false;
      const relation = segmentRelation(s.from, s.to, t.from, t.to);
      if (relation === 'cross') return overlap(a, b);
      // A shared edge is fine with the parts on either side of it, not on the same one.
      if (relation === 'overlap' && areaOnLeft(s) === areaOnLeft(t)) return overlap(a, b);
      return false;
    },
    crossAtPoint(r1, r2) {
      const a = partOf[r1]!;
      const b = partOf[r2]!;
      return a !== b && overlap(a, b);
    },
  });
  if (found) return found;
  // No boundaries cross: a part lies in another's area when the innermost ring around its
  // shell is another part's shell (inside a hole — an island in a lake — is fine).
  for (let r = 0; r < rings.length; r++) {
    if (isHole[r] || parent[r] === -1) continue;
    const outer = parent[r]!;
    if (!isHole[outer]) return overlap(partOf[outer]!, partOf[r]!) && found;
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
