/**
 * Issue 19, item 2: a request polygon of many parts is clipped to scene footprints part by
 * part (geo/clip.ts intersectByParts) — the same answer as one polygon-clipping run over the
 * whole MULTIPOLYGON, which took seconds for 1,200 thin strips. The preview's numbers
 * (coverage, area, credits) for that polygon are compared with the straightforward
 * computation.
 */
import { describe, expect, it } from 'vitest';
import { slantedStripsWkt } from '../../bench/hostile-polygons.ts';
import { geodesicAreaSqkm, intersectAoi, intersectByParts, parseAoiWkt, simplifyToWktBudget, type AoiGeometry } from '../../src/geo/index.ts';
import { floorRatio, type SceneRecord } from '../../src/catalog/index.ts';
import { selectAmong, type PolygonRequest } from '../../src/jobs/selectAmong.ts';
import { priceMicros } from '../../src/jobs/credits.ts';
import { loadConfig } from '../../src/config.ts';
import { mulberry32 } from '../../src/prng.ts';

const config = loadConfig({});
const polygon = (ring: number[][]): AoiGeometry => ({ type: 'Polygon', coordinates: [ring as [number, number][]] });
/** The footprint of the GRD scene bench/validation.ts previews against (2.0–3.2° E, 51.0–51.8° N). */
const benchFootprint = polygon([[2, 51], [3.2, 51], [3.2, 51.8], [2, 51.8], [2, 51]]);
/** A tilted quadrilateral, as real footprints are. */
const tiltedFootprint = polygon([[2.3, 50.9], [3.3, 51.2], [3.1, 51.9], [2.05, 51.4], [2.3, 50.9]]);
const parts = (g: AoiGeometry | null) => (g === null ? 0 : g.type === 'Polygon' ? 1 : g.coordinates.length);

describe('issue 19.2: clipping a request polygon part by part', () => {
  const strips = parseAoiWkt(slantedStripsWkt(1_200), config.polygonLimits);

  it('1,200 slanted strips ∩ the bench scene: exactly the geometry of one polygon-clipping run', () => {
    const straight = intersectAoi(strips, benchFootprint);
    const byParts = intersectByParts(strips, benchFootprint);
    expect(parts(straight)).toBe(1_200);
    expect(byParts).toEqual(straight);
  });

  it('∩ a tilted footprint: the same parts, the area within 1e-9 (intersection points may differ in the last bits)', () => {
    // One run computes some crossings against footprint edges already split at earlier ones,
    // so a point can differ by ~1e-15° and a vertex that is then collinear within
    // polygon-clipping's epsilon kept or dropped: 12,004 vs 12,002 coordinates here.
    const straight = intersectAoi(strips, tiltedFootprint)!;
    const byParts = intersectByParts(strips, tiltedFootprint)!;
    expect(parts(byParts)).toBe(parts(straight));
    const a = (straight.coordinates.flat(3) as number[]).length;
    const b = (byParts.coordinates.flat(3) as number[]).length;
    expect(Math.abs(a - b)).toBeLessThanOrEqual(4);
    expect(Math.abs(geodesicAreaSqkm(byParts) / geodesicAreaSqkm(straight) - 1)).toBeLessThan(1e-9);
  });

  it('parts that touch along an edge are merged, as polygon-clipping merges them', () => {
    const touching: AoiGeometry = {
      type: 'MultiPolygon',
      coordinates: [
        [[[2.1, 51.1], [2.2, 51.1], [2.2, 51.2], [2.1, 51.2], [2.1, 51.1]]],
        [[[2.2, 51.1], [2.3, 51.1], [2.3, 51.2], [2.2, 51.2], [2.2, 51.1]]],
        [[[2.5, 51.5], [2.6, 51.5], [2.6, 51.6], [2.5, 51.6], [2.5, 51.5]]],
      ],
    };
    const byParts = intersectByParts(touching, benchFootprint);
    expect(byParts).toEqual(intersectAoi(touching, benchFootprint));
    expect(parts(byParts)).toBe(2);
  });

  it('random sets of disjoint parts against random footprints: the same pieces and area as one run (200 cases)', () => {
    const random = mulberry32(19);
    for (let c = 0; c < 200; c++) {
      // Parts in a grid of cells, each a random quadrilateral inside its own cell: disjoint.
      const n = 2 + Math.floor(random() * 30);
      const coordinates: [number, number][][][] = [];
      for (let i = 0; i < n; i++) {
        const cx = 2 + (i % 6) * 0.2;
        const cy = 51 + Math.floor(i / 6) * 0.2;
        const at = (fx: number, fy: number): [number, number] => [cx + 0.01 + fx * 0.18, cy + 0.01 + fy * 0.18];
        coordinates.push([[at(random() * 0.4, random() * 0.4), at(0.6 + random() * 0.4, random() * 0.4), at(0.6 + random() * 0.4, 0.6 + random() * 0.4), at(random() * 0.4, 0.6 + random() * 0.4), at(0, 0)].map((p, k, all) => (k === 4 ? all[0]! : p))]);
      }
      const aoi: AoiGeometry = { type: 'MultiPolygon', coordinates };
      const x = 2 + random() * 0.8;
      const y = 51 + random() * 0.6;
      const footprint = polygon([[x, y], [x + 0.3 + random() * 0.6, y + random() * 0.1], [x + 0.4 + random() * 0.6, y + 0.3 + random() * 0.6], [x - random() * 0.2, y + 0.2 + random() * 0.5], [x, y]]);
      const straight = intersectAoi(aoi, footprint);
      const byParts = intersectByParts(aoi, footprint);
      expect(parts(byParts), `case ${c}`).toBe(parts(straight));
      if (straight) expect(Math.abs(geodesicAreaSqkm(byParts!) / geodesicAreaSqkm(straight) - 1), `case ${c}`).toBeLessThan(1e-9);
    }
  });

  it("the ship preview's numbers for the 1,200 strips equal the straightforward computation: coverage, area, credits", () => {
    const scene = {
      sceneId: 'S1A_IW_GRDH_1SDV_20220612T173329_20220612T173354_043633_05359A_BE01',
      productType: 'GRD',
      orbitDirection: 'ascending',
      startTime: '2022-06-12T17:33:29Z',
      footprint: benchFootprint,
    } as unknown as SceneRecord;
    const request = {
      pattern: 'polygon_date',
      endpoint: 'ship',
      family: 'detect',
      aoi: strips,
      date: '2022-06-12',
      dateDirection: 'nearest',
      orbitDirection: null,
    } as unknown as PolygonRequest;
    const outcome = selectAmong(request, [scene], config);
    if (!outcome.ok) throw new Error(outcome.message);
    const { coverage, expectedAreaSqkm } = outcome.resolution;

    // Straightforward: one polygon-clipping run, geodesic areas, the coverage rules.
    const extent = intersectAoi(strips, benchFootprint)!;
    const requested = geodesicAreaSqkm(strips);
    const covered = geodesicAreaSqkm(extent);
    expect(expectedAreaSqkm).toBe(covered);
    expect(coverage).toEqual({
      method: 'estimated',
      requested_area_sqkm: Math.round(requested * 1e6) / 1e6,
      ratio: floorRatio(covered / requested),
      polygon: simplifyToWktBudget(extent, config.maxRequestBytes - 1024),
    });
    expect(coverage!.ratio).toBe(0.87);
    expect(priceMicros(expectedAreaSqkm, config.pricesPerSqkm.ship)).toBe(priceMicros(covered, config.pricesPerSqkm.ship));
    expect(Math.round(expectedAreaSqkm)).toBe(1_218);
  });
});
