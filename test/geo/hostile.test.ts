import { describe, expect, it } from 'vitest';
import polygonClipping from 'polygon-clipping';
import { circleWkt, combWkt, slantedStripsWkt } from '../../bench/hostile-polygons.ts';
import { geodesicAreaSqkm, GeometryError, parseAoiWkt, type AoiGeometry, type Position } from '../../src/geo/index.ts';
import { polygonPlanarArea } from '../../src/geo/planar.ts';
import { findGeometryIssue, findPartsIssue, findPolygonIssue } from '../../src/geo/validate.ts';
import { segmentRelation } from '../../src/geo/predicates.ts';
import { loadConfig } from '../../src/config.ts';
import { mulberry32 } from '../../src/prng.ts';

const limits = loadConfig({}).polygonLimits;

function parts(geom: AoiGeometry): number {
  return geom.type === 'MultiPolygon' ? geom.coordinates.length : 1;
}

function vertices(geom: AoiGeometry): number {
  const polygons = geom.type === 'MultiPolygon' ? geom.coordinates : [geom.coordinates];
  return polygons.reduce((n, rings) => n + rings.reduce((m, ring) => m + ring.length, 0), 0);
}

function refusal(wkt: string, l = limits): string {
  try {
    parseAoiWkt(wkt, l);
  } catch (e) {
    if (e instanceof GeometryError) return e.message;
    throw e;
  }
  throw new Error('accepted');
}

describe('issue 10.1: hostile polygons cannot stop the service', () => {
  it('accepts 1,200 thin slanted strips whose bounding boxes all overlap (valid: they never touch)', () => {
    const geom = parseAoiWkt(slantedStripsWkt(1_200), limits);
    expect(parts(geom)).toBe(1_200);
    expect(vertices(geom)).toBe(6_000);
    // 1,200 parallelograms of 0.00025° × 0.6° at ~51.3° N.
    expect(geodesicAreaSqkm(geom)).toBeGreaterThan(1_300);
    expect(geodesicAreaSqkm(geom)).toBeLessThan(1_500);
  });

  it('finds the one overlapping pair among 1,200 strips', () => {
    const wkt = slantedStripsWkt(1_200);
    // Part 1,201: a copy of part 600 shifted by a quarter of a strip's width.
    const geom = parseAoiWkt(wkt, limits);
    const strip = (geom.coordinates as Position[][][])[599]![0]!.map(([x, y]): Position => [x + 0.0000625, y]);
    const polygons = [...(geom.coordinates as Position[][][]), [strip]];
    expect(findPartsIssue(polygons)?.message).toBe(
      "polygon parts 600 and 1201 overlap; a MULTIPOLYGON's parts must not share area",
    );
  });

  it('accepts a comb of 20,000 long sawteeth (one ring of 40,004 positions)', () => {
    const geom = parseAoiWkt(combWkt(20_000), limits);
    expect(geom.type).toBe('Polygon');
    expect(vertices(geom)).toBe(40_004);
  });

  it('finds the crossing in a comb whose last tooth is bent back across its neighbour', () => {
    const wkt = combWkt(20_000);
    const geom = parseAoiWkt(wkt, limits);
    const ring = (geom.coordinates as Position[][])[0]!.slice();
    // Positions 2 .. 40,001 are the teeth (base, tip); move tip 20,000 below base 20,000.
    const tip = ring.length - 4;
    ring[tip] = [3.2, ring[tip - 3]![1]];
    expect(findGeometryIssue([[ring]], false)?.message).toMatch(/^polygon ring 1 intersects itself: the edge from position \d+ to \d+ crosses the edge from position \d+ to \d+$/);
  });

  it('accepts a 100,000-vertex circle with the default limits', () => {
    const geom = parseAoiWkt(circleWkt(100_000), limits);
    expect(vertices(geom)).toBe(100_001);
    // π r² with r = 0.4°: 0.503 deg², ~3,840 km² at 52° N.
    expect(geodesicAreaSqkm(geom)).toBeGreaterThan(3_800);
    expect(geodesicAreaSqkm(geom)).toBeLessThan(3_900);
  });

  it('refuses 13,000 strips by the parts limit, naming the limit, without echoing the text', () => {
    const message = refusal(slantedStripsWkt(13_000));
    expect(message).toBe('polygon has more than 10000 MULTIPOLYGON parts; the limit is 10000 parts per MULTIPOLYGON');
  });

  it('refuses over the vertex and ring limits, naming them', () => {
    expect(refusal(circleWkt(100_000), { ...limits, maxVertices: 50_000 })).toBe(
      'polygon has more than 50000 vertices; the limit is 50000 vertices per polygon (all parts and rings together)',
    );
    const holes = 'POLYGON ((0 0, 10 0, 10 10, 0 10, 0 0), (1 1, 2 1, 2 2, 1 1), (3 3, 4 3, 4 4, 3 3), (5 5, 6 5, 6 6, 5 5))';
    expect(refusal(holes, { ...limits, maxRingsPerPolygon: 3 })).toBe(
      'polygon has more than 3 rings; the limit is 3 rings (shell and holes) per polygon',
    );
    const multi = `MULTIPOLYGON (((0 0, 1 0, 1 1, 0 0)), ${holes.replace('POLYGON ', '')})`;
    expect(refusal(multi, { ...limits, maxRingsPerPolygon: 3 })).toBe(
      'polygon part 2 has more than 3 rings; the limit is 3 rings (shell and holes) per polygon',
    );
  });
});

const random = mulberry32;

describe('issue 10.1: the sweep agrees with polygon-clipping on parts that touch, share edges and overlap', () => {
  // Small integer squares and triangles: touching corners, shared and partly shared edges,
  // vertices on edges, crossings at vertices — every degenerate case, exactly.
  it('overlap found ⇔ some pair of parts shares area, over 3,000 random sets', () => {
    const next = random(101);
    const int = (n: number) => Math.floor(next() * n);
    let overlapping = 0;
    for (let trial = 0; trial < 3_000; trial++) {
      const polygons: Position[][][] = [];
      const count = 2 + int(4);
      for (let k = 0; k < count; k++) {
        const x = int(6);
        const y = int(6);
        const w = 1 + int(3);
        const h = 1 + int(3);
        const ring: Position[] =
          next() < 0.5
            ? [[x, y], [x + w, y], [x + w, y + h], [x, y + h], [x, y]]
            : [[x, y], [x + w, y], [x + int(w + 1), y + h], [x, y]];
        if (next() < 0.5) ring.reverse();
        polygons.push([ring]);
      }
      let expected = false;
      for (let a = 0; a < count && !expected; a++) {
        for (let b = a + 1; b < count && !expected; b++) {
          const shared = polygonClipping.intersection(polygons[a] as Position[][], polygons[b] as Position[][]);
          expected = shared.reduce((sum, rings) => sum + polygonPlanarArea(rings), 0) > 1e-9;
        }
      }
      if (expected) overlapping++;
      expect(findPartsIssue(polygons) !== null, JSON.stringify(polygons)).toBe(expected);
    }
    // Both outcomes are well represented.
    expect(overlapping).toBeGreaterThan(500);
    expect(overlapping).toBeLessThan(2_500);
  });

  it('a hole issue found ⇔ a hole leaves the shell, holes share area, or rings share an edge, over 3,000 random polygons', () => {
    const next = random(202);
    const int = (n: number) => Math.floor(next() * n);
    const shell: Position[] = [[0, 0], [8, 0], [8, 8], [0, 8], [0, 0]];
    const area = (mp: Position[][][]) => mp.reduce((sum, rings) => sum + polygonPlanarArea(rings), 0);
    let invalid = 0;
    for (let trial = 0; trial < 3_000; trial++) {
      const holes: Position[][] = [];
      const count = 1 + int(3);
      for (let k = 0; k < count; k++) {
        const x = int(9) - 1;
        const y = int(9) - 1;
        const w = 1 + int(3);
        const h = 1 + int(3);
        holes.push(
          next() < 0.5
            ? [[x, y], [x + w, y], [x + w, y + h], [x, y + h], [x, y]]
            : [[x, y], [x + w, y], [x + int(w + 1), y + h], [x, y]],
        );
      }
      const rings = [shell, ...holes];
      let expected = holes.some((hole) => area(polygonClipping.difference([hole], [shell])) > 1e-9);
      for (let a = 0; a < holes.length && !expected; a++) {
        for (let b = a + 1; b < holes.length && !expected; b++) {
          expected = area(polygonClipping.intersection([holes[a]!], [holes[b]!])) > 1e-9;
        }
      }
      for (let a = 0; a < rings.length && !expected; a++) {
        for (let b = a + 1; b < rings.length && !expected; b++) {
          for (let i = 0; i + 1 < rings[a]!.length && !expected; i++) {
            for (let j = 0; j + 1 < rings[b]!.length && !expected; j++) {
              const relation = segmentRelation(rings[a]![i]!, rings[a]![i + 1]!, rings[b]![j]!, rings[b]![j + 1]!);
              expected = relation === 'overlap' || relation === 'cross';
            }
          }
        }
      }
      if (expected) invalid++;
      expect(findPolygonIssue(rings, 0, false) !== null, JSON.stringify(rings)).toBe(expected);
    }
    expect(invalid).toBeGreaterThan(500);
    expect(invalid).toBeLessThan(2_500);
  });

  it('an island in a lake is fine; an island on land is an overlap', () => {
    const lake: Position[][] = [
      [[0, 0], [10, 0], [10, 10], [0, 10], [0, 0]],
      [[2, 2], [8, 2], [8, 8], [2, 8], [2, 2]],
    ];
    const island: Position[][] = [[[4, 4], [6, 4], [6, 6], [4, 6], [4, 4]]];
    const onLand: Position[][] = [[[0.5, 0.5], [1.5, 0.5], [1.5, 1.5], [0.5, 0.5]]];
    const fillsLake: Position[][] = [[[2, 2], [8, 2], [8, 8], [2, 8], [2, 2]]];
    expect(findPartsIssue([lake, island])).toBeNull();
    expect(findPartsIssue([lake, fillsLake])).toBeNull();
    expect(findPartsIssue([lake, onLand])?.message).toMatch(/^polygon parts 1 and 2 overlap/);
    expect(findPartsIssue([island, lake, onLand])?.message).toMatch(/^polygon parts 2 and 3 overlap/);
  });
});
