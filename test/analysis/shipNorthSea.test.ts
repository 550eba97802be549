import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeAnalysisPool } from '../../src/analysis/engine/pool.ts';
import { detectShipsInProduct, detectShipsInSafe, type ShipSceneReport } from '../../src/analysis/ship/index.ts';
import { geodesicAreaSqm } from '../../src/geo/area.ts';
import type { Polygon } from '../../src/geo/types.ts';
import { findPolygonIssue } from '../../src/geo/validate.ts';
import { openSafeProduct, type SafeProduct } from '../../src/imagery/index.ts';
import { NORTH_SEA_SAFE, NORTH_SEA_TRUTH } from '../imagery/fixtures.ts';
import { scoreDetections, type TruthPoint } from './shipEval.ts';

interface TruthFeature {
  geometry: { coordinates: [number, number] };
  properties: { id: number; row: number; col: number; certain: boolean };
}
const truth: TruthPoint[] = (JSON.parse(readFileSync(NORTH_SEA_TRUTH, 'utf8')) as { features: TruthFeature[] }).features.map((f) => ({
  lon: f.geometry.coordinates[0],
  lat: f.geometry.coordinates[1],
  certain: f.properties.certain,
  id: f.properties.id,
}));

let product: SafeProduct;
let report: ShipSceneReport;

beforeAll(async () => {
  product = await openSafeProduct(NORTH_SEA_SAFE);
  report = await detectShipsInProduct(product);
});

afterAll(async () => {
  await product?.close();
  await closeAnalysisPool();
});

describe('ships on the real North-Sea GRD crop (S1A IW, 2022-06-12, 1000 × 1000 px)', () => {
  it('reads the cross-pol channel (VH), one tile over the crop', () => {
    expect(report.channels).toEqual(['VH']);
    expect(report.region).toEqual({ x0: 4000, y0: 4000, width: 1000, height: 1000 });
    expect(report.tiles).toBe(1);
  });

  it('precision and recall against the ground truth (100 m; uncertain targets neither hit nor false alarm): 16/16, no false alarm', () => {
    const points = report.detections.map((d) => product.geolocation.pixelToLonLat(d.centroidRow, d.centroidCol));
    const s = scoreDetections(points, truth, 100);
    expect(truth.filter((t) => t.certain)).toHaveLength(16);
    expect(s.truePositives).toBe(16);
    expect(s.falseNegatives).toBe(0);
    expect(s.falsePositives).toBe(0);
    expect(s.precision).toBe(1);
    expect(s.recall).toBe(1);
    expect(s.f1).toBe(1);
    // Some of the four faint uncertain targets are found too; they are not counted.
    expect(s.ignored).toBeGreaterThanOrEqual(1);
    expect(report.detections.length).toBe(16 + s.ignored);
  });

  it('the certain vessels measure 200–450 m (the crop is an anchorage of large ships)', () => {
    const big = report.detections.filter((d) => d.contrastDb > 20);
    expect(big).toHaveLength(16);
    for (const d of big) {
      expect(d.lengthM).toBeGreaterThan(200);
      expect(d.lengthM).toBeLessThan(450);
    }
  });

  it('the result follows the spec: one valid Polygon per vessel, ids 1…n, area_sqm, confidence null, bbox, no crs', () => {
    const fc = report.result;
    expect(fc.type).toBe('FeatureCollection');
    expect('crs' in fc).toBe(false);
    expect(fc.features).toHaveLength(report.detections.length);
    expect(fc.features.map((f) => f.id)).toEqual(fc.features.map((_, i) => i + 1));
    let [minx, miny, maxx, maxy] = [Infinity, Infinity, -Infinity, -Infinity];
    for (const f of fc.features) {
      expect(f.geometry.type).toBe('Polygon');
      expect(findPolygonIssue(f.geometry.coordinates, 0, false)).toBeNull();
      expect(f.properties.confidence).toBeNull();
      // The spec's members plus issue 23's per-vessel attributes (additive).
      expect(Object.keys(f.properties).sort()).toEqual(['area_sqm', 'confidence', 'distance_to_shore_m', 'heading_ambiguous', 'heading_deg', 'length_m', 'near_shore', 'width_m']);
      const p = f.properties as Record<string, number | boolean>;
      // The crop is open sea, > 2 km from any coast (the land-mask test holds it all sea with a 2 km buffer).
      expect(p.near_shore).toBe(false);
      expect(p.distance_to_shore_m as number).toBeGreaterThan(2000);
      expect(p.length_m as number).toBeGreaterThanOrEqual(20);
      expect(p.length_m as number).toBeLessThanOrEqual(600);
      expect(p.width_m as number).toBeLessThan(p.length_m as number);
      expect(p.heading_deg as number).toBeGreaterThanOrEqual(0);
      expect(p.heading_deg as number).toBeLessThan(180);
      expect(p.heading_ambiguous).toBe(true);
      expect(f.properties.area_sqm).toBeCloseTo(geodesicAreaSqm(f.geometry as Polygon), 1);
      for (const [x, y] of f.geometry.coordinates[0]!) {
        minx = Math.min(minx, x);
        miny = Math.min(miny, y);
        maxx = Math.max(maxx, x);
        maxy = Math.max(maxy, y);
      }
    }
    expect(fc.bbox).toEqual([minx, miny, maxx, maxy]);
    // Vessel polygons cover their pixels: 0.7–4 ha for 200–400 m ships at 10 m pixels.
    const areas = fc.features.map((f) => f.properties.area_sqm);
    expect(Math.max(...areas)).toBeLessThan(60_000);
    expect(areas.filter((a) => a > 7_000)).toHaveLength(16);
  });

  it('detectShipsInSafe clips to an AOI polygon: only the vessels in the north-east quarter', async () => {
    const g = product.geolocation;
    // The crop's pixel quarter rows 4000–4450, cols 4600–5000, as a lon/lat polygon.
    const corners = [
      g.pixelToLonLat(4000, 4600),
      g.pixelToLonLat(4000, 4999),
      g.pixelToLonLat(4450, 4999),
      g.pixelToLonLat(4450, 4600),
    ];
    const aoi: Polygon = { type: 'Polygon', coordinates: [[...corners, corners[0]!]] };
    const fc = await detectShipsInSafe(NORTH_SEA_SAFE, { polygon: aoi, includeMeasurements: true });
    const inside = truth.filter((t) => {
      const p = g.lonLatToPixel(t.lon, t.lat);
      return t.certain && p.line >= 4000 && p.line < 4450 && p.pixel >= 4600 && p.pixel < 5000;
    });
    expect(inside.length).toBe(10);
    const s = scoreDetections(
      fc.features.map((f) => {
        const ring = f.geometry.coordinates[0]!;
        return [ring.reduce((a, p) => a + p[0], 0) / ring.length, ring.reduce((a, p) => a + p[1], 0) / ring.length] as [number, number];
      }),
      inside,
      150,
    );
    expect(s.truePositives).toBe(10);
    // Besides them, at most the one uncertain target in that quarter (#17).
    expect(fc.features.length).toBeLessThanOrEqual(11);
    expect(fc.features.map((f) => f.id)).toEqual(fc.features.map((_, i) => i + 1));
    for (const f of fc.features) {
      expect(f.properties).toHaveProperty('length_m');
      expect(f.properties).toHaveProperty('width_m');
    }
  });

  it('an AOI that misses the scene gives an empty collection; one around the whole scene changes nothing', async () => {
    const far: Polygon = { type: 'Polygon', coordinates: [[[10, 10], [11, 10], [11, 11], [10, 11], [10, 10]]] };
    const none = await detectShipsInProduct(product, { polygon: far });
    expect(none.result).toEqual({ type: 'FeatureCollection', features: [] });
    expect(none.tiles).toBe(0);
    const around: Polygon = { type: 'Polygon', coordinates: [[[0, 49], [5, 49], [5, 53], [0, 53], [0, 49]]] };
    const all = await detectShipsInProduct(product, { polygon: around });
    expect(all.result.features.map((f) => f.id)).toEqual(report.result.features.map((f) => f.id));
    all.result.features.forEach((f, i) => {
      const g = report.result.features[i]!;
      expect(f.properties.area_sqm).toBeCloseTo(g.properties.area_sqm, 0);
      expect(f.geometry.coordinates[0]![0]).toEqual(g.geometry.coordinates[0]![0]);
    });
  });

  it('16 tiles of 256 px on two worker threads give the same result as one tile in this thread', async () => {
    const progress: number[] = [];
    const tiled = await detectShipsInProduct(product, { threads: 2, params: { tileSize: 256 }, onProgress: (p) => progress.push(p) });
    expect(tiled.tiles).toBe(16);
    expect(tiled.result).toEqual(report.result);
    expect(progress[progress.length - 1]).toBe(100);
  });
});
