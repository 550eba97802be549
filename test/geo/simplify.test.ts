import { describe, expect, it } from 'vitest';
import { geodesicAreaSqm } from '../../src/geo/area.ts';
import { bboxOf, differenceAoi, unionAoi } from '../../src/geo/clip.ts';
import { GeometryError } from '../../src/geo/errors.ts';
import { douglasPeucker, simplifyToWktBudget } from '../../src/geo/simplify.ts';
import type { AoiGeometry, Position, Ring } from '../../src/geo/types.ts';
import { parseAoiWkt, toWkt } from '../../src/geo/wkt.ts';

function circle(lon: number, lat: number, radius: number, n: number, clockwise = false): Ring {
  const ring: Ring = [];
  for (let i = 0; i < n; i++) {
    const a = ((clockwise ? -2 : 2) * Math.PI * i) / n;
    ring.push([lon + radius * Math.cos(a), lat + radius * Math.sin(a)]);
  }
  ring.push(ring[0]!);
  return ring;
}

function box(lon1: number, lat1: number, lon2: number, lat2: number): Ring {
  return [
    [lon1, lat1],
    [lon2, lat1],
    [lon2, lat2],
    [lon1, lat2],
    [lon1, lat1],
  ];
}

const partCount = (g: AoiGeometry): number => (g.type === 'Polygon' ? 1 : g.coordinates.length);

/** The contract: within budget, valid for parseAoiWkt. Returns the parsed geometry. */
function fitted(geom: AoiGeometry, maxChars: number): { text: string; parsed: AoiGeometry } {
  const text = simplifyToWktBudget(geom, maxChars);
  expect(text.length).toBeLessThanOrEqual(maxChars);
  return { text, parsed: parseAoiWkt(text) };
}

describe('douglasPeucker', () => {
  it('drops points within the tolerance of the chord and keeps the ends', () => {
    const line: Position[] = [
      [0, 0],
      [1, 0.01],
      [2, -0.01],
      [3, 0],
    ];
    expect(douglasPeucker(line, 0.05)).toEqual([
      [0, 0],
      [3, 0],
    ]);
  });

  it('keeps points farther than the tolerance', () => {
    // A spike on a nearly straight line: the spike and its base stay, the wiggle goes.
    const line: Position[] = [
      [0, 0],
      [1, 0.01],
      [2, 0],
      [2.5, 1],
      [3, 0],
      [4, 0.01],
      [5, 0],
    ];
    expect(douglasPeucker(line, 0.05)).toEqual([
      [0, 0],
      [2, 0],
      [2.5, 1],
      [3, 0],
      [5, 0],
    ]);
    expect(douglasPeucker(line, 0.001)).toEqual(line);
  });

  it('handles 100k points without recursion or quadratic blow-up on staircases', () => {
    // Every corner of a staircase is equally far from the chord: textbook DP would split
    // next to an end each time (O(n²), minutes); this finishes in well under a second.
    const stairs: Position[] = [];
    for (let i = 0; i < 50_000; i++) stairs.push([i, i], [i + 1, i]);
    expect(douglasPeucker(stairs, 0.1)).toHaveLength(100_000);
    expect(douglasPeucker(stairs, 1)).toHaveLength(2);
    const zigzag: Position[] = Array.from({ length: 100_000 }, (_, i) => [i, i % 2]);
    expect(douglasPeucker(zigzag, 0.1)).toHaveLength(100_000);
  });
});

describe('simplifyToWktBudget', () => {
  it('returns the full-precision WKT when it fits', () => {
    const geom = parseAoiWkt('POLYGON ((10.123456 45.654321, 10.2 45.654321, 10.2 45.7, 10.123456 45.654321))');
    expect(simplifyToWktBudget(geom, 10_000)).toBe(toWkt(geom, 6));
  });

  it('first reduces 6 decimals to 5', () => {
    const geom: AoiGeometry = { type: 'Polygon', coordinates: [circle(10, 45, 0.01, 40)] };
    const five = toWkt(geom, 5);
    expect(toWkt(geom, 6).length).toBeGreaterThan(five.length);
    expect(simplifyToWktBudget(geom, five.length)).toBe(five);
  });

  it('fits a 20,000-vertex circle into 2,000 characters, valid and within 1 % of the area', () => {
    const geom: AoiGeometry = { type: 'Polygon', coordinates: [circle(10, 45, 0.5, 20_000)] };
    expect(toWkt(geom).length).toBeGreaterThan(400_000);
    const { parsed } = fitted(geom, 2_000);
    expect(parsed.type).toBe('Polygon');
    const ratio = geodesicAreaSqm(parsed) / geodesicAreaSqm(geom);
    expect(Math.abs(ratio - 1)).toBeLessThan(0.01);
    // It spends the budget on detail rather than leaving most of it unused.
    expect(parsed.coordinates[0]!.length).toBeGreaterThan(50);
  });

  it('stays valid and close in area over a range of budgets', () => {
    const geom: AoiGeometry = { type: 'Polygon', coordinates: [circle(-60, -10, 0.2, 5_000), circle(-60, -10, 0.1, 2_000, true)] };
    const area = geodesicAreaSqm(geom);
    for (const budget of [300, 600, 1_000, 3_000, 10_000, 50_000]) {
      const { parsed } = fitted(geom, budget);
      expect(parsed.coordinates).toHaveLength(2); // the hole survives
      // 300 characters buy about 13 vertices for both rings; a 10-gon misses ~6 % of a disc.
      expect(Math.abs(geodesicAreaSqm(parsed) / area - 1)).toBeLessThan(budget >= 1_000 ? 0.01 : 0.15);
    }
  });

  it('keeps MULTIPOLYGON parts and holes when they fit', () => {
    const geom: AoiGeometry = {
      type: 'MultiPolygon',
      coordinates: [[circle(10, 45, 0.5, 3_000), circle(10, 45, 0.2, 1_000, true)], [circle(12, 45, 0.5, 3_000)]],
    };
    const { parsed } = fitted(geom, 3_000);
    expect(parsed.type).toBe('MultiPolygon');
    expect(parsed.coordinates).toHaveLength(2);
    expect((parsed.coordinates as Ring[][])[0]).toHaveLength(2);
    expect(Math.abs(geodesicAreaSqm(parsed) / geodesicAreaSqm(geom) - 1)).toBeLessThan(0.01);
  });

  it('drops the smallest parts first when not all of them fit', () => {
    const parts: Ring[][] = [[circle(0, 0, 1, 2_000)]];
    for (let i = 0; i < 200; i++) parts.push([circle(3 + (i % 20) * 0.1, Math.floor(i / 20) * 0.1, 0.01, 16)]);
    const geom: AoiGeometry = { type: 'MultiPolygon', coordinates: parts };
    const { parsed } = fitted(geom, 2_000);
    const [minx, , maxx] = bboxOf(parsed);
    // The big disc is there, with most of its area; the specks went.
    expect(minx).toBeLessThan(-0.99);
    expect(partCount(parsed)).toBeLessThan(201);
    expect(geodesicAreaSqm(parsed) / geodesicAreaSqm({ type: 'Polygon', coordinates: parts[0]! })).toBeGreaterThan(0.99);
    expect(maxx).toBeLessThan(6);
  });

  it('never lets a simplified hole cross its shell (thin wall)', () => {
    // Annulus with a wall 0.5 % of the radius: at most tolerances a simplified hole would
    // cut through the simplified shell.
    const geom: AoiGeometry = { type: 'Polygon', coordinates: [circle(10, 45, 1, 4_000), circle(10, 45, 0.995, 4_000, true)] };
    for (const budget of [1_500, 4_000, 20_000]) {
      const { parsed } = fitted(geom, budget);
      expect(bboxOf(parsed)[2]).toBeLessThanOrEqual(11.00001);
    }
    const { parsed } = fitted(geom, 20_000);
    expect(parsed.coordinates).toHaveLength(2);
    expect(Math.abs(geodesicAreaSqm(parsed) / geodesicAreaSqm(geom) - 1)).toBeLessThan(0.05);
  });

  it('never produces a self-intersecting ring (narrow gap)', () => {
    // A C-shaped band whose ends nearly meet: a plain per-half Douglas–Peucker crosses it.
    const ring: Ring = [];
    for (let i = 0; i <= 2_000; i++) {
      const a = 0.02 + ((2 * Math.PI - 0.04) * i) / 2_000;
      ring.push([Math.cos(a), Math.sin(a)]);
    }
    for (let i = 2_000; i >= 0; i--) {
      const a = 0.02 + ((2 * Math.PI - 0.04) * i) / 2_000;
      ring.push([0.9 * Math.cos(a), 0.9 * Math.sin(a)]);
    }
    ring.push(ring[0]!);
    const geom: AoiGeometry = { type: 'Polygon', coordinates: [ring] };
    for (const budget of [800, 2_000, 8_000]) {
      const { parsed } = fitted(geom, budget);
      expect(parsed.coordinates).toHaveLength(1);
      // 800 characters are ~40 vertices for a band of 0.19 of the disc's area.
      expect(Math.abs(geodesicAreaSqm(parsed) / geodesicAreaSqm(geom) - 1)).toBeLessThan(budget >= 2_000 ? 0.01 : 0.15);
    }
  });

  it('simplifies a no-data-split coverage polygon into a resubmittable MULTIPOLYGON', () => {
    const aoi: AoiGeometry = { type: 'Polygon', coordinates: [circle(10, 45, 0.2, 4_000)] };
    const noData = unionAoi([
      { type: 'Polygon', coordinates: [box(10.05, 44, 10.07, 46)] },
      ...Array.from({ length: 60 }, (_, i): AoiGeometry => ({
        type: 'Polygon',
        coordinates: [circle(9.85 + (i % 10) * 0.02, 44.9 + Math.floor(i / 10) * 0.03, 0.004, 12)],
      })),
    ])!;
    const coverage = differenceAoi(aoi, noData)!;
    expect(coverage.type).toBe('MultiPolygon');
    const { parsed } = fitted(coverage, 4_000);
    expect(parsed.type).toBe('MultiPolygon');
    expect(parsed.coordinates).toHaveLength(2);
    expect(Math.abs(geodesicAreaSqm(parsed) / geodesicAreaSqm(coverage) - 1)).toBeLessThan(0.03);
    // Split into single polygons, each part is a valid submission on its own.
    for (const rings of parsed.coordinates as Ring[][]) {
      expect(() => parseAoiWkt(toWkt({ type: 'Polygon', coordinates: rings }))).not.toThrow();
    }
  });

  it('keeps one of two far-apart specks rather than their huge bounding box', () => {
    const geom: AoiGeometry = {
      type: 'MultiPolygon',
      coordinates: [[box(0, 0, 0.001, 0.001)], [box(5, 5, 0.002 + 5, 5.002)]],
    };
    const { text, parsed } = fitted(geom, 70);
    expect(parsed.type).toBe('Polygon');
    expect(text).toBe('POLYGON ((5 5, 5.002 5, 5.002 5.002, 5 5.002, 5 5))');
  });

  it('falls back to the bounding box when no simplification fits', () => {
    // The coarsest valid simplification of this disc is a 4-corner diamond with 5-decimal
    // corners (55 characters); its bounding box has round corners (45 characters).
    const geom: AoiGeometry = { type: 'Polygon', coordinates: [circle(10.5, 45.5, 0.5, 100)] };
    expect(simplifyToWktBudget(geom, 55)).toBe('POLYGON ((11 45.5, 10.5 46, 10 45.5, 10.5 45, 11 45.5))');
    expect(simplifyToWktBudget(geom, 50)).toBe('POLYGON ((10 45, 11 45, 11 46, 10 46, 10 45))');
  });

  it('rounds the bounding box outwards', () => {
    const geom: AoiGeometry = {
      type: 'MultiPolygon',
      coordinates: [[circle(10.123456789, 45.987654321, 0.3, 400)], [circle(11.5, 45.5, 0.3, 400)]],
    };
    const text = simplifyToWktBudget(geom, 90);
    expect(text).toBe('POLYGON ((9.82345 45.2, 11.8 45.2, 11.8 46.28766, 9.82345 46.28766, 9.82345 45.2))');
    const [minx, miny, maxx, maxy] = bboxOf(parseAoiWkt(text));
    const [gx0, gy0, gx1, gy1] = bboxOf(geom);
    expect(minx).toBeLessThanOrEqual(gx0);
    expect(miny).toBeLessThanOrEqual(gy0);
    expect(maxx).toBeGreaterThanOrEqual(gx1);
    expect(maxy).toBeGreaterThanOrEqual(gy1);
  });

  it('throws GeometryError when not even the bounding box fits', () => {
    const geom: AoiGeometry = { type: 'Polygon', coordinates: [circle(10.5, 45.5, 0.5, 100)] };
    const box = 'POLYGON ((10 45, 11 45, 11 46, 10 46, 10 45))';
    expect(simplifyToWktBudget(geom, box.length)).toBe(box);
    expect(() => simplifyToWktBudget(geom, box.length - 1)).toThrow(GeometryError);
    expect(() => simplifyToWktBudget(geom, box.length - 1)).toThrow(
      `the polygon cannot be written in ${box.length - 1} characters of WKT, not even as its bounding box`,
    );
  });
});
