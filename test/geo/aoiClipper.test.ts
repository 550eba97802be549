import { describe, expect, it } from 'vitest';
import { circleWkt, combWkt } from '../../bench/hostile-polygons.ts';
import { AoiClipper, convexHull, cutRingToBox } from '../../src/geo/aoiClipper.ts';
import { intersectAoi } from '../../src/geo/clip.ts';
import { flattenAoi } from '../../src/geo/flat.ts';
import { polygonsPlanarArea } from '../../src/geo/planar.ts';
import type { AoiGeometry, BBox, Position, Ring } from '../../src/geo/types.ts';
import { parseAoiWkt } from '../../src/geo/wkt.ts';
import { mulberry32 } from '../../src/prng.ts';

const area = (g: AoiGeometry | null): number => (g ? polygonsPlanarArea(g.type === 'Polygon' ? [g.coordinates] : g.coordinates) : 0);

function box([x0, y0, x1, y1]: BBox): Ring {
  return [
    [x0, y0],
    [x1, y0],
    [x1, y1],
    [x0, y1],
    [x0, y0],
  ];
}

/** A small rotated rectangle (a vessel-like detection) centred at (x, y). */
function detection(x: number, y: number, size: number, angle: number): AoiGeometry {
  const ring: Position[] = [
    [-1, -0.3],
    [1, -0.3],
    [1, 0.3],
    [-1, 0.3],
  ].map(([u, v]): Position => [x + size * (u! * Math.cos(angle) - v! * Math.sin(angle)), y + size * (u! * Math.sin(angle) + v! * Math.cos(angle))]);
  ring.push(ring[0]!);
  return { type: 'Polygon', coordinates: [ring] };
}

/** A shell with two holes, a second part, and an island in the first part's hole. */
const AOI = parseAoiWkt(
  'MULTIPOLYGON (((0 0, 10 0, 10 4, 6 4, 6 6, 10 6, 10 10, 0 10, 0 0), (2 2, 4 2, 4 4, 2 4, 2 2), (2 6, 5 6, 5 8, 2 8, 2 6)), ' +
    '((12 0, 16 0, 14 5, 12 0)), ((2.5 2.5, 3.5 2.5, 3.5 3.5, 2.5 3.5, 2.5 2.5)))',
);

describe('AoiClipper', () => {
  it('issue 10.1: gives the area intersectAoi gives, for detections inside, outside and across the AOI boundary', () => {
    // The AOI as written (counter-clockwise rings) and with every ring reversed.
    const reversed: AoiGeometry = { type: 'MultiPolygon', coordinates: (AOI.coordinates as Ring[][]).map((rings) => rings.map((ring) => ring.slice().reverse())) };
    for (const aoi of [AOI, reversed]) {
      const clipper = new AoiClipper(aoi);
      const random = mulberry32(101);
      let across = 0;
      for (let i = 0; i < 400; i++) {
        const d = detection(-1 + random() * 18, -1 + random() * 12, 0.1 + random() * 0.8, random() * Math.PI);
        const ours = clipper.intersect(d);
        const theirs = intersectAoi(d, aoi);
        expect(ours === null, JSON.stringify(d)).toBe(theirs === null);
        expect(area(ours)).toBeCloseTo(area(theirs), 9);
        if (theirs && area(theirs) < area(d) - 1e-9) across++;
      }
      // The sample exercises the cut: many detections straddle a boundary.
      expect(across).toBeGreaterThan(50);
    }
  });

  it('writes a detection wholly inside the AOI as intersectAoi writes it', () => {
    const clipper = new AoiClipper(AOI);
    const d = detection(8, 8, 0.5, 0.3);
    expect(clipper.intersect(d)).toEqual(intersectAoi(d, AOI));
    expect(clipper.intersect(detection(3, 3, 0.2, 0.1))).toEqual(intersectAoi(detection(3, 3, 0.2, 0.1), AOI)); // on the island
    expect(clipper.intersect(detection(3, 2.2, 0.1, 0))).toBeNull(); // in a hole
  });

  it('issue 10.1: hands polygon-clipping only the AOI near a detection, not a 100,000-vertex circle', () => {
    const circle = parseAoiWkt(circleWkt(100_000));
    const clipper = new AoiClipper(circle);
    // Across the circle's eastern edge (centre 3 52, radius 0.4).
    const d = detection(3.4, 52, 0.003, 0.5);
    const b: BBox = [3.397, 51.997, 3.403, 52.003];
    const pieces = clipper.pieces(b);
    const positions = pieces.reduce((n, p) => n + p.shell.reduce((m, ring) => m + ring.length, 0), 0);
    expect(positions).toBeGreaterThan(10);
    expect(positions).toBeLessThan(2_000);
    const ours = clipper.intersect(d)!;
    expect(area(ours)).toBeGreaterThan(0);
    expect(area(ours)).toBeLessThan(area(d));
    expect(area(ours)).toBeCloseTo(area(intersectAoi(d, circle)), 12);
  });

  it('issue 10.1: clips across a comb of 20,000 teeth, where polygon-clipping on the whole ring overflows its stack', () => {
    const comb = parseAoiWkt(combWkt(20_000));
    expect(() => intersectAoi(detection(3.15, 51.3, 0.0015, 0), comb)).toThrow(RangeError);
    const clipper = new AoiClipper(comb);
    const d = detection(3.15, 51.3, 0.0015, 0);
    const ours = clipper.intersect(d)!;
    // Triangular teeth from x = 2.2 to their tips at x = 3.2: at x = 3.15 ± 0.0015 they fill
    // (3.2 − 3.15) / 1 = 5 % of each pitch, over the ~60 teeth the detection spans.
    expect(area(ours) / area(d)).toBeCloseTo(0.05, 3);
  });

  it('cuts a ring to a box: runs joined counter-clockwise along the box, corners included', () => {
    // A U shape opening north, cut by a box across both arms: two pieces.
    const u = flattenAoi({ type: 'Polygon', coordinates: [[[0, 0], [3, 0], [3, 3], [2, 3], [2, 1], [1, 1], [1, 3], [0, 3], [0, 0]]] });
    const pieces = cutRingToBox(u.coords, 0, 9, [-1, 2, 4, 4]);
    expect(pieces.map((ring) => Math.abs(polygonsPlanarArea([[ring]])))).toEqual([1, 1]);
    // The same U clockwise, and a box holding the whole ring or lying inside it.
    const cw = flattenAoi({ type: 'Polygon', coordinates: [[[0, 0], [0, 3], [1, 3], [1, 1], [2, 1], [2, 3], [3, 3], [3, 0], [0, 0]]] });
    expect(cutRingToBox(cw.coords, 0, 9, [-1, 2, 4, 4]).map((ring) => polygonsPlanarArea([[ring]]))).toEqual([1, 1]);
    expect(cutRingToBox(u.coords, 0, 9, [-1, -1, 4, 4]).map((ring) => polygonsPlanarArea([[ring]]))).toEqual([7]);
    expect(cutRingToBox(u.coords, 0, 9, [0.2, 0.2, 0.8, 0.8])).toEqual([box([0.2, 0.2, 0.8, 0.8])]);
    expect(cutRingToBox(u.coords, 0, 9, [1.2, 1.5, 1.8, 2.5])).toEqual([]);
  });

  it('cuts the AOI to a convex hull: the same area as polygon-clipping', () => {
    const clipper = new AoiClipper(AOI);
    const hull = convexHull([[1, 1], [9, 1.5], [8, 9], [1.5, 8], [5, 5]]);
    expect(hull).toHaveLength(5);
    const cut = clipper.clipToConvex(hull)!;
    expect(area(cut)).toBeCloseTo(area(intersectAoi(AOI, { type: 'Polygon', coordinates: [hull] })), 9);
  });
});
