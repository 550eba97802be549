import fs from 'node:fs';
import path from 'node:path';
import geodesic from 'geographiclib-geodesic';
import { describe, expect, it } from 'vitest';
import { geodesicAreaSqkm, geodesicAreaSqm, ringGeodesicAreaSqm, SHORT_EDGE_DEG } from '../../src/geo/area.ts';
import type { AoiGeometry, Position, Ring } from '../../src/geo/types.ts';
import { parseAoiWkt } from '../../src/geo/wkt.ts';

// WGS84 (EPSG:4326 ellipsoid).
const A = 6378137;
const F = 1 / 298.257223563;
const B = A * (1 - F);
const E2 = F * (2 - F);
const E = Math.sqrt(E2);
/** Total surface of the WGS84 ellipsoid in m² (closed form). */
const ELLIPSOID_AREA = 2 * Math.PI * A * A + (Math.PI * B * B * Math.log((1 + E) / (1 - E))) / E;

/** Exact area of the cell bounded by two meridians and two parallels (authalic formula). */
function parallelCellArea(lon1: number, lat1: number, lon2: number, lat2: number): number {
  const q = (latDeg: number): number => {
    const s = Math.sin((latDeg * Math.PI) / 180);
    return s / (1 - E2 * s * s) + (1 / (2 * E)) * Math.log((1 + E * s) / (1 - E * s));
  };
  return ((B * B) / 2) * Math.abs(q(lat2) - q(lat1)) * Math.abs(((lon2 - lon1) * Math.PI) / 180);
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

const polygon = (...rings: Ring[]): AoiGeometry => ({ type: 'Polygon', coordinates: rings });

describe('geodesicAreaSqm', () => {
  it('a 1°×1° cell at the equator is 12,308.8 km²', () => {
    // GeographicLib reference (geodesic edges): 12,308.778 km².
    expect(geodesicAreaSqkm(polygon(box(0, 0, 1, 1)))).toBeCloseTo(12_308.778, 2);
    expect(Math.round(geodesicAreaSqkm(polygon(box(0, 0, 1, 1))) * 10) / 10).toBe(12_308.8);
  });

  it('an octant bounded by the equator and two meridians is exactly 1/8 of the ellipsoid', () => {
    // Meridians and the equator are geodesics, so this is exact for any edge convention.
    const octant = polygon([
      [0, 0],
      [90, 0],
      [0, 90],
      [0, 0],
    ]);
    expect(ELLIPSOID_AREA).toBeCloseTo(510_065_621_724_088, -3);
    expect(geodesicAreaSqm(octant) / (ELLIPSOID_AREA / 8)).toBeCloseTo(1, 12);
  });

  it('agrees with the closed-form area of lat/lon cells within the geodesic-edge bulge (< 0.01 %)', () => {
    for (const [lon, lat] of [
      [0, 0],
      [10, 45],
      [-75, -33],
      [140, 60],
    ] as const) {
      const geodesic = geodesicAreaSqm(polygon(box(lon, lat, lon + 1, lat + 1)));
      const cell = parallelCellArea(lon, lat, lon + 1, lat + 1);
      expect(Math.abs(geodesic / cell - 1)).toBeLessThan(1e-4);
    }
  });

  it('a 100 m × 100 m square near the equator is 10,000 m²', () => {
    const dLat = 100 / 110_574.3; // metres per degree of latitude at the equator
    const dLon = 100 / 111_319.5; // metres per degree of longitude at the equator
    expect(geodesicAreaSqm(polygon(box(0, 0, dLon, dLat)))).toBeCloseTo(10_000, 0);
  });

  it('does not depend on winding order', () => {
    const ccw = box(10, 45, 11, 46);
    const cw = ccw.slice().reverse();
    expect(ringGeodesicAreaSqm(cw)).toBeCloseTo(ringGeodesicAreaSqm(ccw), 3);
    expect(geodesicAreaSqm(polygon(cw))).toBeGreaterThan(0);
    // A shell and hole both clockwise, both counter-clockwise, or mixed: same answer.
    const hole = box(10.25, 45.25, 10.75, 45.75);
    const reference = geodesicAreaSqm(polygon(ccw, hole.slice().reverse()));
    expect(geodesicAreaSqm(polygon(cw, hole))).toBeCloseTo(reference, 3);
    expect(geodesicAreaSqm(polygon(ccw, hole))).toBeCloseTo(reference, 3);
    expect(geodesicAreaSqm(polygon(cw, hole.slice().reverse()))).toBeCloseTo(reference, 3);
  });

  it('subtracts holes', () => {
    const shell = box(0, 10, 2, 12);
    const hole = box(0.5, 10.5, 1.5, 11.5);
    const withHole = geodesicAreaSqm(polygon(shell, hole));
    expect(withHole).toBeCloseTo(ringGeodesicAreaSqm(shell) - ringGeodesicAreaSqm(hole), 3);
    // Geodesic edges bulge poleward by ∝ Δlon², so the 2°-wide shell differs from the
    // parallel-bounded cell by ~1e-4.
    const expected = parallelCellArea(0, 10, 2, 12) - parallelCellArea(0.5, 10.5, 1.5, 11.5);
    expect(Math.abs(withHole / expected - 1)).toBeLessThan(3e-4);
    // ≈ 4 × 12,1xx km² − 12,1xx km² at latitude ~11°
    expect(withHole / 1e6).toBeGreaterThan(36_000);
    expect(withHole / 1e6).toBeLessThan(37_000);
  });

  it('adds MULTIPOLYGON parts', () => {
    const a = box(0, 0, 1, 1);
    const b = box(5, 5, 6, 6);
    const multi: AoiGeometry = { type: 'MultiPolygon', coordinates: [[a], [b]] };
    expect(geodesicAreaSqm(multi)).toBeCloseTo(ringGeodesicAreaSqm(a) + ringGeodesicAreaSqm(b), 3);
  });

  it('ignores repeated points and works on parsed WKT', () => {
    const parsed = parseAoiWkt('POLYGON ((0 0, 1 0, 1 0, 1 1, 0 1, 0 1, 0 0))');
    expect(geodesicAreaSqkm(parsed)).toBeCloseTo(12_308.778, 2);
  });

  it('geodesicAreaSqkm is geodesicAreaSqm / 10⁶', () => {
    const geom = polygon(box(10, 45, 10.1, 45.1));
    expect(geodesicAreaSqkm(geom)).toBe(geodesicAreaSqm(geom) / 1e6);
    expect(geodesicAreaSqkm(geom)).toBeCloseTo(87.4, 0);
  });

  it('a ring needs three corners to have area', () => {
    const line: Position[] = [
      [0, 0],
      [1, 1],
      [0, 0],
    ];
    expect(ringGeodesicAreaSqm(line)).toBe(0);
  });
});

describe('geodesicAreaSqm: closed form for short edges', () => {
  const FIXTURES = path.join(import.meta.dirname, 'fixtures', 'area');

  // in/NAME.wkt → out/NAME.json: the area GeographicLib's PolygonArea gives (every edge by
  // Inverse), the reference. Stated tolerance: 1e-9 relative and 1 m² per 1,000 edges —
  // measured agreement is ~1e-11 (under 0.4 m² on 12,000 km²).
  for (const file of fs.readdirSync(path.join(FIXTURES, 'in'))) {
    it(`agrees with GeographicLib on ${file}`, () => {
      const geom = parseAoiWkt(fs.readFileSync(path.join(FIXTURES, 'in', file), 'utf8'));
      const { geographiclib_area_sqm: expected } = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'out', file.replace(/\.wkt$/, '.json')), 'utf8'));
      const edges = (geom.type === 'Polygon' ? [geom.coordinates] : geom.coordinates).flat().reduce((n, ring) => n + ring.length - 1, 0);
      const got = geodesicAreaSqm(geom);
      expect(Math.abs(got - expected) / expected).toBeLessThan(1e-9);
      expect(Math.abs(got - expected)).toBeLessThan(Math.max(1, edges / 1000));
    });
  }

  it("a short edge's area under it matches GeographicLib's to 0.1 m² at the threshold", () => {
    // Edge of SHORT_EDGE_DEG in longitude and latitude at several latitudes, as part of a
    // thin triangle down to the equator along two meridians (those are geodesics, so the
    // ring's area is exactly that edge's S12).
    const W = geodesic.Geodesic.WGS84;
    for (const lat of [-70, -30, 0, 15, 45, 52, 80]) {
      const d = SHORT_EDGE_DEG;
      const ring: Ring = [[5, 0], [5, lat], [5 + d, lat + d], [5 + d, 0], [5, 0]];
      const exact = W.Polygon(false);
      for (const [lon, la] of ring.slice(0, -1)) exact.AddPoint(la, lon);
      const reference = Math.abs(exact.Compute(false, true).area!);
      expect(Math.abs(ringGeodesicAreaSqm(ring) - reference)).toBeLessThan(0.1);
    }
  });
});
