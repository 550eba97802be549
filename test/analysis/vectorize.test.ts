import { describe, expect, it } from 'vitest';
import { geodesicAreaSqm } from '../../src/geo/area.ts';
import type { Position, Ring } from '../../src/geo/types.ts';
import { findPolygonIssue } from '../../src/geo/validate.ts';
import { maskToPolygons, tracePixelRings } from '../../src/geo/vectorize.ts';
import { rng } from './synthSea.ts';

// A north-up grid: column → longitude, row → latitude decreasing; tiny cells so planar
// shoelace in degrees is proportional to pixel area.
const CELL = 1e-4;
const northUp = (row: number, col: number): [number, number] => [10 + col * CELL, 50 - row * CELL];

function parse(rows: string[]): { mask: Uint8Array; width: number; height: number } {
  const height = rows.length;
  const width = rows[0]!.length;
  const mask = new Uint8Array(width * height);
  rows.forEach((line, r) => [...line].forEach((ch, c) => (mask[r * width + c] = ch === '#' ? 1 : ch === '.' ? 0 : Number(ch))));
  return { mask, width, height };
}

function signedArea(ring: readonly Position[]): number {
  // Relative to the first vertex, so the 10°/50° offsets do not eat the precision.
  const [x0, y0] = ring[0]!;
  let a = 0;
  for (let i = 0; i + 1 < ring.length; i++) {
    a += (ring[i]![0] - x0) * (ring[i + 1]![1] - y0) - (ring[i + 1]![0] - x0) * (ring[i]![1] - y0);
  }
  return a / 2;
}

/** Back to pixel-corner coordinates (x = column edge, y = row edge) for exact comparisons. */
function toCorners(ring: Ring): Array<[number, number]> {
  return ring.map(([lon, lat]) => [Math.round(((lon - 10) / CELL + 0.5) * 1000) / 1000, Math.round(((50 - lat) / CELL + 0.5) * 1000) / 1000]);
}

function pixelArea(rings: Ring[]): number {
  return rings.reduce((sum, ring, i) => sum + (i === 0 ? 1 : -1) * Math.abs(signedArea(ring)), 0) / (CELL * CELL);
}

describe('maskToPolygons: pixel-edge outlines', () => {
  it('a square with a one-pixel hole becomes a polygon with a hole, outlines exactly on pixel edges', () => {
    const { mask, width, height } = parse(['.....', '.###.', '.#.#.', '.###.', '.....']);
    const polygons = maskToPolygons(mask, width, height, northUp);
    expect(polygons).toHaveLength(1);
    const [shell, hole, ...rest] = polygons[0]!.geometry.coordinates;
    expect(rest).toHaveLength(0);
    // Only the four corners of each ring (collinear pixel-edge vertices are dropped), closed.
    expect(shell).toHaveLength(5);
    expect(hole).toHaveLength(5);
    expect(new Set(toCorners(shell!).map(String))).toEqual(new Set(['1,1', '4,1', '4,4', '1,4']));
    expect(new Set(toCorners(hole!).map(String))).toEqual(new Set(['2,2', '3,2', '3,3', '2,3']));
    // RFC 7946: exterior counter-clockwise, holes clockwise.
    expect(signedArea(shell!)).toBeGreaterThan(0);
    expect(signedArea(hole!)).toBeLessThan(0);
    expect(pixelArea(polygons[0]!.geometry.coordinates)).toBeCloseTo(8, 9);
    expect(polygons[0]!.pixelCount).toBe(8);
    expect(polygons[0]!.box).toEqual({ x0: 1, y0: 1, x1: 3, y1: 3 });
    expect(findPolygonIssue(polygons[0]!.geometry.coordinates, 0, false)).toBeNull();
  });

  it('geodesic area subtracts the hole: 8 pixels of 10 m × 10 m on a metric grid ≈ 800 m²', () => {
    const { mask, width, height } = parse(['###', '#.#', '###']);
    // 10 m pixels at 51° N.
    const dLat = 10 / 111_250;
    const dLon = 10 / (111_320 * Math.cos((51 * Math.PI) / 180));
    const polygons = maskToPolygons(mask, width, height, (r, c) => [2.6 + c * dLon, 51 - r * dLat]);
    expect(geodesicAreaSqm(polygons[0]!.geometry)).toBeGreaterThan(790);
    expect(geodesicAreaSqm(polygons[0]!.geometry)).toBeLessThan(810);
  });

  it('keeps only corners along straight runs (an L shape has 6 vertices)', () => {
    const { mask, width, height } = parse(['#...', '#...', '#...', '####']);
    const [p] = maskToPolygons(mask, width, height, northUp);
    expect(p!.geometry.coordinates[0]).toHaveLength(7);
    expect(new Set(toCorners(p!.geometry.coordinates[0]!).map(String))).toEqual(new Set(['0,0', '1,0', '1,3', '4,3', '4,4', '0,4']));
    expect(pixelArea(p!.geometry.coordinates)).toBeCloseTo(7, 9);
  });

  it('diagonal neighbours: one valid polygon with 8-connectivity, two with 4-connectivity', () => {
    const { mask, width, height } = parse(['#..', '.#.', '..#']);
    const eight = maskToPolygons(mask, width, height, northUp);
    expect(eight).toHaveLength(1);
    expect(eight[0]!.pixelCount).toBe(3);
    // The ring passes each saddle twice, 0.01 px apart: simple (valid) and within 0.05 px² of exact.
    expect(findPolygonIssue(eight[0]!.geometry.coordinates, 0, false)).toBeNull();
    expect(pixelArea(eight[0]!.geometry.coordinates)).toBeCloseTo(3, 1);
    const four = maskToPolygons(mask, width, height, northUp, { connectivity: 4 });
    expect(four).toHaveLength(3);
    for (const p of four) expect(pixelArea(p.geometry.coordinates)).toBeCloseTo(1, 9);
  });

  it('a ring of pixels that closes only diagonally still has its hole (8-connectivity)', () => {
    const { mask, width, height } = parse(['.#.', '#.#', '.#.']);
    const [p, ...rest] = maskToPolygons(mask, width, height, northUp);
    expect(rest).toHaveLength(0);
    expect(p!.geometry.coordinates).toHaveLength(2);
    expect(findPolygonIssue(p!.geometry.coordinates, 0, false)).toBeNull();
    // Four saddles, each passed twice 0.01 px off the corner: at most 4 × 0.02 px² extra.
    expect(Math.abs(pixelArea(p!.geometry.coordinates) - 4)).toBeLessThanOrEqual(0.08 + 1e-9);
  });

  it('label images: each label is its own polygon, neighbours share their edge', () => {
    const { mask, width, height } = parse(['1122', '1122', '3333']);
    const polygons = maskToPolygons(mask, width, height, northUp);
    expect(polygons.map((p) => p.label)).toEqual([1, 2, 3]);
    expect(polygons.map((p) => pixelArea(p.geometry.coordinates))).toEqual([4, 4, 4].map((v) => expect.closeTo(v, 9)));
  });

  it('random masks: every polygon is valid and areas add up to the pixel count', () => {
    const random = rng(7);
    for (let trial = 0; trial < 40; trial++) {
      const width = 12 + Math.floor(random() * 20);
      const height = 12 + Math.floor(random() * 20);
      const mask = new Uint8Array(width * height);
      const density = 0.3 + random() * 0.4;
      for (let i = 0; i < mask.length; i++) mask[i] = random() < density ? 1 : 0;
      let count = 0;
      for (const v of mask) count += v;
      for (const connectivity of [4, 8] as const) {
        const polygons = maskToPolygons(mask, width, height, northUp, { connectivity });
        expect(polygons.reduce((s, p) => s + p.pixelCount, 0)).toBe(count);
        let area = 0;
        for (const p of polygons) {
          expect(findPolygonIssue(p.geometry.coordinates, 0, false)).toBeNull();
          area += pixelArea(p.geometry.coordinates);
        }
        // Exact up to the 0.01-px saddle offsets.
        expect(Math.abs(area - count)).toBeLessThan(0.03 * count);
      }
    }
  });

  it('simplification reduces vertices without making rings invalid or crossing each other', () => {
    // A thick staircase and a blob with holes next to it.
    const width = 60;
    const height = 60;
    const mask = new Uint8Array(width * height);
    for (let r = 0; r < height; r++) for (let c = 0; c < width; c++) {
      if (c >= r - 8 && c <= r + 8 && c < 30) mask[r * width + c] = 1;
      const d = Math.hypot(r - 20, c - 45);
      if (d < 12 && !(Math.hypot(r - 17, c - 44) < 3) && !(Math.hypot(r - 24, c - 48) < 2.5)) mask[r * width + c] = 1;
    }
    const exact = maskToPolygons(mask, width, height, northUp);
    const simple = maskToPolygons(mask, width, height, northUp, { simplifyTolerance: 1.5 });
    expect(simple).toHaveLength(exact.length);
    const vertices = (ps: typeof exact): number => ps.reduce((s, p) => s + p.geometry.coordinates.reduce((t, r) => t + r.length, 0), 0);
    expect(vertices(simple)).toBeLessThan(vertices(exact) / 2);
    simple.forEach((p, i) => {
      expect(findPolygonIssue(p.geometry.coordinates, 0, false)).toBeNull();
      expect(p.geometry.coordinates).toHaveLength(exact[i]!.geometry.coordinates.length);
      const area = pixelArea(exact[i]!.geometry.coordinates);
      expect(Math.abs(pixelArea(p.geometry.coordinates) - area)).toBeLessThan(0.05 * area);
    });
  });

  it('tracePixelRings reports components in raster order with their boxes', () => {
    const { mask, width, height } = parse(['..#', '#..', '#..']);
    const traced = tracePixelRings(mask, width, height);
    expect(traced.map((t) => t.box)).toEqual([
      { x0: 2, y0: 0, x1: 2, y1: 0 },
      { x0: 0, y0: 1, x1: 0, y1: 2 },
    ]);
  });
});
