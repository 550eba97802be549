import { describe, expect, it } from 'vitest';
import { geodesicAreaSqm } from '../../src/geo/area.ts';
import { bboxOf, differenceAoi, intersectAoi, unionAoi } from '../../src/geo/clip.ts';
import { GeometryError } from '../../src/geo/errors.ts';
import { polygonsPlanarArea } from '../../src/geo/planar.ts';
import type { AoiGeometry, Ring } from '../../src/geo/types.ts';
import { parseAoiWkt, toWkt } from '../../src/geo/wkt.ts';

function box(lon1: number, lat1: number, lon2: number, lat2: number): Ring {
  return [
    [lon1, lat1],
    [lon2, lat1],
    [lon2, lat2],
    [lon1, lat2],
    [lon1, lat1],
  ];
}
const square = (lon1: number, lat1: number, lon2: number, lat2: number): AoiGeometry => ({
  type: 'Polygon',
  coordinates: [box(lon1, lat1, lon2, lat2)],
});
const planarArea = (g: AoiGeometry): number =>
  polygonsPlanarArea(g.type === 'Polygon' ? [g.coordinates] : g.coordinates);
/** Clipping output must be valid AOI geometry: it round-trips through WKT. */
const roundTrips = (g: AoiGeometry): boolean => toWkt(parseAoiWkt(toWkt(g))) === toWkt(g);

describe('intersectAoi', () => {
  it('returns the overlap of two squares as a Polygon', () => {
    const result = intersectAoi(square(0, 0, 2, 2), square(1, 1, 3, 3));
    expect(result?.type).toBe('Polygon');
    expect(bboxOf(result!)).toEqual([1, 1, 2, 2]);
    expect(planarArea(result!)).toBeCloseTo(1, 12);
    expect(roundTrips(result!)).toBe(true);
  });

  it('returns null for disjoint or merely touching inputs', () => {
    expect(intersectAoi(square(0, 0, 1, 1), square(5, 5, 6, 6))).toBeNull();
    expect(intersectAoi(square(0, 0, 1, 1), square(1, 0, 2, 1))).toBeNull();
  });

  it('returns a MultiPolygon when the overlap falls apart', () => {
    // A U shape cut by a horizontal bar across both arms.
    const u = parseAoiWkt('POLYGON ((0 0, 3 0, 3 3, 2 3, 2 1, 1 1, 1 3, 0 3, 0 0))');
    const bar = square(-1, 2, 4, 2.5);
    const result = intersectAoi(u, bar);
    expect(result?.type).toBe('MultiPolygon');
    expect(result!.coordinates).toHaveLength(2);
    expect(planarArea(result!)).toBeCloseTo(1, 12);
    expect(roundTrips(result!)).toBe(true);
  });

  it('keeps holes of the inputs', () => {
    const framed: AoiGeometry = { type: 'Polygon', coordinates: [box(0, 0, 4, 4), box(1, 1, 3, 3)] };
    const result = intersectAoi(framed, square(0, 0, 4, 4));
    expect(result?.type).toBe('Polygon');
    expect(result!.coordinates).toHaveLength(2);
    expect(planarArea(result!)).toBeCloseTo(12, 12);
  });

  it('gives the estimated coverage of an AOI by a scene footprint', () => {
    const aoi = parseAoiWkt('POLYGON ((10 45, 10.2 45, 10.2 45.1, 10 45.1, 10 45))');
    const footprint = parseAoiWkt('POLYGON ((10.15 44, 12 44, 12 46, 10.15 46, 10.15 44))');
    const covered = intersectAoi(aoi, footprint)!;
    const ratio = geodesicAreaSqm(covered) / geodesicAreaSqm(aoi);
    expect(ratio).toBeCloseTo(0.25, 4);
  });
});

describe('unionAoi', () => {
  it('merges overlapping squares into one Polygon', () => {
    const result = unionAoi([square(0, 0, 2, 2), square(1, 1, 3, 3)]);
    expect(result?.type).toBe('Polygon');
    expect(planarArea(result!)).toBeCloseTo(7, 12);
    expect(result!.coordinates[0]).toHaveLength(9); // 8 corners + closing position
  });

  it('keeps disjoint inputs as MultiPolygon parts', () => {
    const result = unionAoi([square(0, 0, 1, 1), square(5, 5, 6, 6), square(0.5, 0.5, 0.75, 0.75)]);
    expect(result?.type).toBe('MultiPolygon');
    expect(result!.coordinates).toHaveLength(2);
    expect(planarArea(result!)).toBeCloseTo(2, 12);
    expect(roundTrips(result!)).toBe(true);
  });

  it('returns null for an empty list and the input for one', () => {
    expect(unionAoi([])).toBeNull();
    expect(planarArea(unionAoi([square(0, 0, 1, 1)])!)).toBeCloseTo(1, 12);
  });

  it('inclusion–exclusion holds for geodesic areas up to the geodesic-edge bulge', () => {
    // Clipping is planar (edges straight in lon/lat) while area takes edges as geodesics;
    // where clipping splits a 0.4° east–west edge the two differ by ~1e-4 of the area.
    const a = square(10, 45, 10.3, 45.2);
    const b = square(10.1, 45.1, 10.5, 45.4);
    const union = geodesicAreaSqm(unionAoi([a, b])!);
    const inter = geodesicAreaSqm(intersectAoi(a, b)!);
    expect(Math.abs(union / (geodesicAreaSqm(a) + geodesicAreaSqm(b) - inter) - 1)).toBeLessThan(5e-4);
  });
});

describe('differenceAoi', () => {
  it('cuts a hole', () => {
    const result = differenceAoi(square(0, 0, 4, 4), square(1, 1, 2, 2));
    expect(result?.type).toBe('Polygon');
    expect(result!.coordinates).toHaveLength(2);
    expect(planarArea(result!)).toBeCloseTo(15, 12);
    expect(roundTrips(result!)).toBe(true);
  });

  it('splits an AOI along a no-data stripe into a MultiPolygon', () => {
    const result = differenceAoi(square(0, 0, 4, 4), square(1.5, -1, 2.5, 5));
    expect(result?.type).toBe('MultiPolygon');
    expect(result!.coordinates).toHaveLength(2);
    expect(planarArea(result!)).toBeCloseTo(12, 12);
  });

  it('returns null when nothing is left', () => {
    expect(differenceAoi(square(1, 1, 2, 2), square(0, 0, 4, 4))).toBeNull();
  });
});

describe('bboxOf', () => {
  it('covers every ring and part', () => {
    const multi: AoiGeometry = {
      type: 'MultiPolygon',
      coordinates: [[box(-10, -5, 0, 0)], [box(3, 2, 7, 8), box(4, 3, 5, 4)]],
    };
    expect(bboxOf(multi)).toEqual([-10, -5, 7, 8]);
  });

  it('accepts a list of positions', () => {
    expect(
      bboxOf([
        [1, 2],
        [-3, 4],
        [0, -6],
      ]),
    ).toEqual([-3, -6, 1, 4]);
  });

  it('throws GeometryError for nothing', () => {
    expect(() => bboxOf([])).toThrow(GeometryError);
  });
});
