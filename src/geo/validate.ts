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
// point; holes and parts are placed by the edge directly below their first vertex. It all
// reads flat arrays (flat.ts); the functions taking nested rings flatten them first.

import { flattenPolygons, type FlatPolygons } from './flat.ts';
import { ringSignedAreaFlat } from './planar.ts';
import { segmentRelationXY } from './predicates.ts';
import { edgeForward, interiorOnLeft, ringOfVertices, sweepRings, type SweepInput } from './sweep.ts';
import type { Ring } from './types.ts';

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

function findStructureIssueFlat(flat: FlatPolygons, multi: boolean): GeometryIssue | null {
  const { coords, ringStart, partStart } = flat;
  const parts = partStart.length - 1;
  if (parts === 0) return { kind: 'structure', message: 'polygon is EMPTY', rings: [] };
  for (let p = 0; p < parts; p++) {
    if (partStart[p] === partStart[p + 1]) {
      return { kind: 'structure', message: multi ? `polygon part ${p + 1} is EMPTY` : 'polygon is EMPTY', rings: [] };
    }
    for (let r = partStart[p]!; r < partStart[p + 1]!; r++) {
      const name = ringName(p, r - partStart[p]!, multi);
      const issue = (message: string): GeometryIssue => ({ kind: 'structure', message, rings: [{ part: p, ring: r - partStart[p]! }] });
      const start = ringStart[r]!;
      const length = ringStart[r + 1]! - start;
      for (let i = 0; i < length; i++) {
        const lon = coords[2 * (start + i)]!;
        const lat = coords[2 * (start + i) + 1]!;
        if (!Number.isFinite(lon) || !Number.isFinite(lat)) {
          return issue(`${name} position ${i + 1} is not a pair of finite numbers`);
        }
        if (lon < -180 || lon > 180) return issue(`${name} position ${i + 1}: longitude ${lon} is outside [-180, 180]`);
        if (lat < -90 || lat > 90) return issue(`${name} position ${i + 1}: latitude ${lat} is outside [-90, 90]`);
      }
      if (length === 0) return issue(`${name} is EMPTY`);
      const f = 2 * start;
      const l = 2 * (start + length - 1);
      if (coords[f] !== coords[l] || coords[f + 1] !== coords[l + 1]) {
        return issue(`${name} is not closed: it starts at (${coords[f]} ${coords[f + 1]}) but ends at (${coords[l]} ${coords[l + 1]})`);
      }
      if (length < 4) {
        const positions = `${length} position${length === 1 ? '' : 's'}`;
        return issue(`${name} has ${positions}; a ring needs at least 4 (3 corners and the closing position)`);
      }
      for (let i = 0; i + 1 < length; i++) {
        if (Math.abs(coords[2 * (start + i + 1)]! - coords[2 * (start + i)]!) > 180) {
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

export function findStructureIssue(polygons: readonly (readonly Ring[])[], multi: boolean): GeometryIssue | null {
  return findStructureIssueFlat(flattenPolygons(polygons, multi ? 'MultiPolygon' : 'Polygon'), multi);
}

/** Rings with consecutive repeated positions removed, ready to sweep. */
interface CleanRings extends SweepInput {
  /** Position (0-based, in its input ring) each kept vertex came from. */
  index: Int32Array;
}

function cleanRings(flat: FlatPolygons): CleanRings {
  const { coords: input, ringStart: inputStart } = flat;
  const rings = inputStart.length - 1;
  const coords = new Float64Array(input.length);
  const index = new Int32Array(input.length >> 1);
  const ringStart = new Int32Array(rings + 1);
  const ccw = new Uint8Array(rings);
  let v = 0;
  for (let r = 0; r < rings; r++) {
    ringStart[r] = v;
    const start = inputStart[r]!;
    for (let i = start; i < inputStart[r + 1]!; i++) {
      const x = input[2 * i]!;
      const y = input[2 * i + 1]!;
      if (v > ringStart[r]! && coords[2 * v - 2] === x && coords[2 * v - 1] === y) continue;
      coords[2 * v] = x;
      coords[2 * v + 1] = y;
      index[v++] = i - start;
    }
    ccw[r] = ringSignedAreaFlat(coords, ringStart[r]!, v) > 0 ? 1 : 0;
  }
  ringStart[rings] = v;
  return { coords: coords.subarray(0, 2 * v), index: index.subarray(0, v), ringStart, ccw, ringOf: ringOfVertices(ringStart) };
}

/** The rings first … last − 1 of `clean`, renumbered from 0 (views where possible). */
function ringRange(clean: CleanRings, first: number, last: number): CleanRings {
  const v0 = clean.ringStart[first]!;
  const v1 = clean.ringStart[last]!;
  const ringStart = clean.ringStart.slice(first, last + 1);
  for (let r = 0; r < ringStart.length; r++) ringStart[r]! -= v0;
  return {
    coords: clean.coords.subarray(2 * v0, 2 * v1),
    index: clean.index.subarray(v0, v1),
    ringStart,
    ccw: clean.ccw.subarray(first, last),
    ringOf: ringOfVertices(ringStart),
  };
}

/** Topology of one polygon (shell + holes, already cleaned); structure must already be valid. */
function polygonIssue(clean: CleanRings, part: number, multi: boolean): GeometryIssue | null {
  const { coords: c, ringStart, ringOf, index } = clean;
  const rings = ringStart.length - 1;
  const ref = (ring: number): RingRef => ({ part, ring });
  const name = (ring: number): string => ringName(part, ring, multi);
  for (let r = 0; r < rings; r++) {
    if (ringStart[r + 1]! - ringStart[r]! < 4) {
      return { kind: 'ring', message: `${name(r)} has fewer than 3 distinct corners`, rings: [ref(r)] };
    }
  }

  const edge = (e: number): string => `the edge from position ${index[e]! + 1} to ${index[e + 1]! + 1}`;
  let found: GeometryIssue | null = null;
  // Rings that cross only at a shared vertex: reported after the edge checks, as before.
  let crossing: GeometryIssue | null = null;
  const { parent } = sweepRings(clean, {
    pair(s, t) {
      const relation = segmentRelationXY(c[2 * s]!, c[2 * s + 1]!, c[2 * s + 2]!, c[2 * s + 3]!, c[2 * t]!, c[2 * t + 1]!, c[2 * t + 2]!, c[2 * t + 3]!);
      if (relation === 'none') return false;
      const rs = ringOf[s]!;
      const rt = ringOf[t]!;
      if (rs === rt) {
        const edges = ringStart[rs + 1]! - ringStart[rs]! - 1;
        const gap = Math.abs(s - t);
        const adjacent = gap === 1 || gap === edges - 1;
        if (adjacent && relation !== 'overlap') return false;
        const [first, second] = s < t ? [s, t] : [t, s];
        const verb = relation === 'cross' ? 'crosses' : relation === 'overlap' ? 'runs back along' : 'touches';
        found = {
          kind: 'ring',
          message: `${name(rs)} intersects itself: ${edge(first)} ${verb} ${edge(second)}`,
          rings: [ref(rs)],
        };
        return true;
      }
      if (relation === 'touch') return false;
      const [outer, inner] = rs < rt ? [s, t] : [t, s];
      const [outerRing, innerRing] = rs < rt ? [rs, rt] : [rt, rs];
      const verb = relation === 'cross' ? 'crosses' : 'shares an edge with';
      found = {
        kind: 'rings',
        message:
          outerRing === 0
            ? `${name(innerRing)} (a hole) ${verb} its shell (ring 1): ${edge(inner)} meets ${edge(outer)}`
            : `${name(innerRing)} and ring ${outerRing + 1} (both holes) intersect: ${edge(inner)} meets ${edge(outer)}`,
        rings: [ref(outerRing), ref(innerRing)],
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
  if (rings === 1) return null;

  // Boundaries do not cross, so each ring has one innermost enclosing ring: a hole's must
  // be the shell (not nothing, not another hole).
  for (let h = 1; h < rings; h++) {
    if (parent[h] === -1) {
      return { kind: 'rings', message: `${name(h)} (a hole) lies outside its shell (ring 1)`, rings: [ref(0), ref(h)] };
    }
  }
  for (let h = 1; h < rings; h++) {
    const outer = parent[h]!;
    if (outer > 0) {
      const [i, j] = outer < h ? [outer, h] : [h, outer];
      return { kind: 'rings', message: `${name(i)} and ring ${j + 1} (both holes) overlap`, rings: [ref(i), ref(j)] };
    }
  }
  return crossing;
}

/** Topology of one polygon (shell + holes); structure must already be valid. */
export function findPolygonIssue(rings: readonly Ring[], part: number, multi: boolean): GeometryIssue | null {
  return polygonIssue(cleanRings(flattenPolygons([rings], 'Polygon')), part, multi);
}

/** Overlap between the interiors of MULTIPOLYGON parts (each part already valid). */
function partsIssue(clean: CleanRings, partStart: Int32Array): GeometryIssue | null {
  const parts = partStart.length - 1;
  if (parts < 2) return null;
  const rings = clean.ringStart.length - 1;
  const partOf = new Int32Array(rings);
  const isHole = new Uint8Array(rings);
  for (let p = 0; p < parts; p++) {
    for (let r = partStart[p]!; r < partStart[p + 1]!; r++) {
      partOf[r] = p;
      isHole[r] = r > partStart[p]! ? 1 : 0;
    }
  }
  const { coords: c, ringOf, ccw } = clean;
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
  const areaOnLeft = (e: number): boolean => interiorOnLeft(edgeForward(c, e), ccw[ringOf[e]!] === 1) !== (isHole[ringOf[e]!] === 1);
  const { parent } = sweepRings(clean, {
    pair(s, t) {
      const a = partOf[ringOf[s]!]!;
      const b = partOf[ringOf[t]!]!;
      if (a === b) return false;
      const relation = segmentRelationXY(c[2 * s]!, c[2 * s + 1]!, c[2 * s + 2]!, c[2 * s + 3]!, c[2 * t]!, c[2 * t + 1]!, c[2 * t + 2]!, c[2 * t + 3]!);
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
  for (let r = 0; r < rings; r++) {
    if (isHole[r] || parent[r] === -1) continue;
    const outer = parent[r]!;
    if (!isHole[outer]) return overlap(partOf[outer]!, partOf[r]!) && found;
  }
  return null;
}

/** Overlap between the interiors of MULTIPOLYGON parts (each part already valid). */
export function findPartsIssue(polygons: readonly (readonly Ring[])[]): GeometryIssue | null {
  const flat = flattenPolygons(polygons, 'MultiPolygon');
  return partsIssue(cleanRings(flat), flat.partStart);
}

/** The first problem found, or null when the geometry is valid. */
export function findGeometryIssueFlat(flat: FlatPolygons, multi: boolean): GeometryIssue | null {
  const structure = findStructureIssueFlat(flat, multi);
  if (structure) return structure;
  const clean = cleanRings(flat);
  const parts = flat.partStart.length - 1;
  for (let p = 0; p < parts; p++) {
    const part = parts === 1 ? clean : ringRange(clean, flat.partStart[p]!, flat.partStart[p + 1]!);
    const issue = polygonIssue(part, p, multi);
    if (issue) return issue;
  }
  return partsIssue(clean, flat.partStart);
}

/** The first problem found, or null when the geometry is valid. */
export function findGeometryIssue(polygons: readonly (readonly Ring[])[], multi: boolean): GeometryIssue | null {
  return findGeometryIssueFlat(flattenPolygons(polygons, multi ? 'MultiPolygon' : 'Polygon'), multi);
}

/**
 * Whether the boundaries of two different parts of a valid MULTIPOLYGON meet anywhere (at a
 * point or along an edge). Clipping part by part (clip.ts intersectByParts) gives the
 * one-piece answer only when they never do: polygon-clipping merges parts that touch.
 */
export function partsTouch(flat: FlatPolygons): boolean {
  const parts = flat.partStart.length - 1;
  if (parts < 2) return false;
  const clean = cleanRings(flat);
  const partOf = new Int32Array(clean.ringStart.length - 1);
  for (let p = 0; p < parts; p++) partOf.fill(p, flat.partStart[p]!, flat.partStart[p + 1]!);
  const { coords: c, ringOf } = clean;
  return sweepRings(clean, {
    pair(s, t) {
      if (partOf[ringOf[s]!] === partOf[ringOf[t]!]) return false;
      return segmentRelationXY(c[2 * s]!, c[2 * s + 1]!, c[2 * s + 2]!, c[2 * s + 3]!, c[2 * t]!, c[2 * t + 1]!, c[2 * t + 2]!, c[2 * t + 3]!) !== 'none';
    },
    crossAtPoint: (a, b) => partOf[a] !== partOf[b],
  }).stopped;
}
