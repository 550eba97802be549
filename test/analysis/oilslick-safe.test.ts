// Oil slicks on SAFE products end to end: a synthetic IW GRDH product with slicks, calm-wind
// look-alikes, a round blob and a tiny spot (src/synth, truth written beside it), a slick at
// 2.5 m/s (the `low_wind` veto), and the real North-Sea crop (ships, no slicks) as a false-alarm check.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { detectSlicksInSafe, detectSlicksInSafeDetailed, oilProbabilityThreshold, resolveOilSlickParams, type SafeSlickDetails } from '../../src/analysis/oilslick/index.ts';
import { geodesicAreaSqm } from '../../src/geo/area.ts';
import { bboxOf, intersectAoi, unionAoi } from '../../src/geo/clip.ts';
import type { Polygon, Position } from '../../src/geo/types.ts';
import { writeSafeGrd } from '../../src/synth/safe.ts';
import { NORTH_SEA_SAFE } from '../imagery/fixtures.ts';
import { closeAnalysisPool } from '../../src/analysis/engine/pool.ts';

interface TruthFeature {
  geometry: Polygon;
  properties: { kind: string; id: string };
}

const CENTER: Position = [3.5, 54.0];
/** lon/lat of a point dx km east and dy km north of the scene centre. */
function km(dx: number, dy: number): Position {
  return [CENTER[0] + dx / (111.32 * Math.cos((CENTER[1] * Math.PI) / 180)), CENTER[1] + dy / 110.57];
}

function iou(a: Polygon, b: Polygon[]): number {
  let inter = 0;
  for (const g of b) {
    const x = intersectAoi(a, g);
    if (x) inter += geodesicAreaSqm(x);
  }
  const union = unionAoi([a, ...b]);
  return union ? inter / geodesicAreaSqm(union) : 0;
}

function overlapping(truth: Polygon, features: Polygon[]): Polygon[] {
  return features.filter((g) => intersectAoi(truth, g) !== null);
}

describe('oil slicks in a synthetic SAFE product (40 × 30 km, VV, 6 m/s wind)', () => {
  let dir: string;
  let productPath: string;
  let truth: TruthFeature[];
  let details: SafeSlickDetails;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'sarwatch-oilslick-'));
    const written = await writeSafeGrd(dir, {
      seed: 7,
      start: '2024-05-01T17:30:00',
      center: CENTER,
      width: 4000,
      height: 3000,
      pols: ['VV'],
      wind: { speed: 6, directionDeg: 200 },
      slicks: [
        { id: 'long', path: [km(-14, -6), km(-4, -2), km(4, 3)], widthM: [150, 600] },
        { id: 'curved', path: [km(2, -10), km(6, -9), km(9, -6), km(10, -2)], widthM: 300 },
        // Look-alikes drawn with the slick model: a round blob and a spot under 0.1 km².
        { id: 'blob', path: [km(-12, 8), km(-11.98, 8)], widthM: 1000 },
        { id: 'tiny', path: [km(0, 9), km(0.01, 9)], widthM: 200 },
      ],
      lowWind: [
        { id: 'calm-big', center: km(12, 8), lengthM: 8000, widthM: 4000, orientationDeg: 30 },
        { id: 'calm-small', center: km(-6, -11), lengthM: 3000, widthM: 1500, orientationDeg: 100 },
      ],
    });
    productPath = written.productPath;
    truth = (JSON.parse(readFileSync(written.groundTruthPath, 'utf8')) as { features: TruthFeature[] }).features;
    // 2,048-px tiles: 4 of them, so the worker thread runs (the default 3,072 gives 2, which run in this thread).
    details = await detectSlicksInSafeDetailed(productPath, { workers: 1, params: { tileSize: 2048 } });
  }, 120_000);

  afterAll(async () => {
    await closeAnalysisPool();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const truthOf = (id: string): Polygon => truth.find((f) => f.properties.id === id)!.geometry;

  it('finds each generated slick once with IoU ≥ 0.7 against its truth outline', () => {
    const features = details.collection.features.map((f) => f.geometry);
    for (const id of ['long', 'curved']) {
      const hits = overlapping(truthOf(id), features);
      expect(hits, id).toHaveLength(1);
      expect(iou(truthOf(id), hits), id).toBeGreaterThanOrEqual(0.7);
    }
    // Measured 0.97 and 0.95. The other two features are the round spots drawn with the slick model (next test).
    expect(details.collection.features).toHaveLength(4);
    const ids = details.collection.features.map((f) => truth.filter((t) => intersectAoi(t.geometry, f.geometry) !== null).map((t) => t.properties.id));
    expect(ids.map((on) => on.join(',')).sort()).toEqual(['blob', 'curved', 'long', 'tiny']);
  });

  it('reports the round blob and the tiny spot (the slick model\'s own damping, round) with their probability; the calm patches are rejected by a named rule', () => {
    // Issue 24 §2, sixth pass (docs/oilslick.md): `compact_shape` is no longer a veto — on the real
    // chips it removed as many slicks as no-oil chips, and the real compact slicks it dropped score
    // p ≥ 0.98. These two differ from the slicks only in shape, so the model reports them; the rule
    // still names them. Measured: blob 0.80 km², p 0.987; tiny spot 0.031 km², p 0.887 (threshold 0.778).
    const threshold = oilProbabilityThreshold(resolveOilSlickParams());
    expect(threshold).toBeCloseTo(0.778, 3);
    for (const [id, p, area] of [['blob', 0.987, 0.80], ['tiny', 0.887, 0.031]] as const) {
      const hits = details.collection.features.filter((f) => intersectAoi(truthOf(id), f.geometry) !== null);
      expect(hits, id).toHaveLength(1);
      expect(hits[0]!.properties.oil_probability, id).toBeCloseTo(p, 2);
      expect(hits[0]!.properties.oil_probability, id).toBeGreaterThanOrEqual(threshold);
      expect(hits[0]!.properties.area_sqm / 1e6, id).toBeCloseTo(area, 2);
    }
    // Their candidates (the two accepted ones under 1 km²; the slicks' are 4 and 9.5 km²) still carry the rule's name.
    const compact = details.candidates.filter((c) => c.isSlick && c.features.areaSqkm < 1);
    expect(compact).toHaveLength(2);
    for (const c of compact) expect(c.reasons).toEqual(['compact_shape']);
    const features = details.collection.features.map((f) => f.geometry);
    for (const id of ['calm-big', 'calm-small']) expect(overlapping(truthOf(id), features), id).toHaveLength(0);
    // Both calm patches are seen as dark regions and rejected, not missed.
    const rejected = details.candidates.filter((c) => !c.isSlick && !c.reasons.includes('too_small'));
    expect(rejected.length).toBeGreaterThanOrEqual(2);
    const reasons = new Set(rejected.flatMap((c) => c.reasons));
    expect(reasons.has('low_wind') || reasons.has('diffuse_edge') || reasons.has('dark_surroundings')).toBe(true);
  });

  it('result rules: ids 1…n, properties.id equals the Feature id, confidence null, geodesic area_sqm, Polygon geometry, bbox', () => {
    const fc = details.collection;
    expect(fc.type).toBe('FeatureCollection');
    expect('crs' in fc).toBe(false);
    fc.features.forEach((f, i) => {
      expect(f.type).toBe('Feature');
      expect(f.id).toBe(i + 1);
      expect(f.properties.id).toBe(f.id);
      expect(f.properties.confidence).toBeNull();
      expect(f.geometry.type).toBe('Polygon');
      for (const ring of f.geometry.coordinates) {
        expect(ring.length).toBeGreaterThanOrEqual(4);
        expect(ring[0]).toEqual(ring[ring.length - 1]);
      }
      expect(f.properties.area_sqm).toBeCloseTo(geodesicAreaSqm(f.geometry), 1);
      expect(f.properties.area_sqm).toBeGreaterThan(0.03e6);
      // The model's oil probability, at or above the threshold in force.
      expect(f.properties.oil_probability).toBeGreaterThanOrEqual(oilProbabilityThreshold(resolveOilSlickParams()));
      expect(f.properties.oil_probability).toBeLessThanOrEqual(1);
    });
    const [minx, miny, maxx, maxy] = fc.bbox!;
    for (const f of fc.features) {
      const [a, b, c, d] = bboxOf(f.geometry);
      expect(a).toBeGreaterThanOrEqual(minx);
      expect(b).toBeGreaterThanOrEqual(miny);
      expect(c).toBeLessThanOrEqual(maxx);
      expect(d).toBeLessThanOrEqual(maxy);
    }
  });

  it('in-thread and worker-thread runs give the same result, and so does the default tiling', async () => {
    expect(details.tiles).toBe(4);
    expect(details.workers).toBe(1); // the worker thread really ran (it falls back silently otherwise)
    const inThread = await detectSlicksInSafe(productPath, { workers: 0, params: { tileSize: 2048 } });
    expect(inThread).toEqual(details.collection);
    // Tiles of the default size (2 here): the same slicks and outlines (cores get the whole-image answer).
    const defaultTiles = await detectSlicksInSafeDetailed(productPath);
    expect(defaultTiles.tiles).toBe(2);
    expect(defaultTiles.collection).toEqual(details.collection);
  }, 60_000);

  it('a polygon clips the slicks to it and limits the analysed window', async () => {
    // The eastern half of the long slick only.
    const [x0, y0] = km(-2, -8);
    const [x1, y1] = km(8, 6);
    const aoi: Polygon = { type: 'Polygon', coordinates: [[[x0, y0], [x1, y0], [x1, y1], [x0, y1], [x0, y0]]] };
    const clipped = await detectSlicksInSafeDetailed(productPath, { polygon: aoi });
    expect(clipped.window!.width * clipped.window!.height).toBeLessThan(4000 * 3000);
    expect(clipped.collection.features.length).toBeGreaterThanOrEqual(1);
    for (const f of clipped.collection.features) {
      const [a, b, c, d] = bboxOf(f.geometry);
      expect(a).toBeGreaterThanOrEqual(x0 - 1e-7);
      expect(b).toBeGreaterThanOrEqual(y0 - 1e-7);
      expect(c).toBeLessThanOrEqual(x1 + 1e-7);
      expect(d).toBeLessThanOrEqual(y1 + 1e-7);
      expect(f.properties.id).toBe(f.id);
    }
    const whole = details.collection.features.map((f) => f.geometry);
    const inside = intersectAoi(unionAoi(whole)!, aoi)!;
    const got = clipped.collection.features.reduce((s, f) => s + f.properties.area_sqm, 0);
    expect(got / geodesicAreaSqm(inside)).toBeGreaterThan(0.95);
    expect(got / geodesicAreaSqm(inside)).toBeLessThan(1.05);
  }, 60_000);
});

describe('oil slicks on the real North-Sea crop (about 20 ships, no slicks)', () => {
  it('reports no slick: the false-alarm check', async () => {
    const result = await detectSlicksInSafeDetailed(NORTH_SEA_SAFE);
    expect(result.collection.features).toHaveLength(0);
    expect(result.collection.bbox).toBeUndefined();
    // Its "VV" file holds VH bytes (σ0 ≈ −26 dB): every dark region is rejected as calm sea …
    for (const c of result.candidates) expect(c.reasons).toContain('low_wind');
  }, 60_000);

  it('… and without the low-wind veto nothing is reported either: no region reaches the calibrated threshold', async () => {
    // A low-wind speed of 0.3 m/s switches the calm-sea rule off. The models trained on the 8-bit
    // chips alone could not know that −26 dB is calm sea: 6 of its ~100 dark regions, all
    // 0.03–0.05 km² and below 4 dB of contrast, reached their threshold (5 with the 14-feature
    // model). Since issue 24 §2 the model is also fitted on the training chips presented as
    // calibrated σ0 at CMOD5.N's sea level for 3–10 m/s; the model before candidate G took one
    // region (0.035 km², p 0.78) over its threshold, which `compact_shape` vetoed. G's calibrated
    // threshold (0.778) is over every region here: the highest measured p 0.564 (docs/oilslick.md).
    const result = await detectSlicksInSafeDetailed(NORTH_SEA_SAFE, { params: { lowWindSpeed: 0.3 } });
    expect(result.collection.features).toHaveLength(0);
    const threshold = oilProbabilityThreshold(resolveOilSlickParams());
    const scored = result.candidates.filter((c) => !c.reasons.includes('too_small'));
    expect(scored.length).toBeGreaterThanOrEqual(50);
    const highest = Math.max(...scored.map((c) => c.oilProbability));
    expect(highest).toBeCloseTo(0.564, 2);
    expect(highest).toBeLessThan(threshold);
    for (const c of result.candidates) {
      expect(c.reasons).not.toContain('low_wind');
      expect(c.isSlick).toBe(false);
    }
  }, 60_000);
});

describe('the `low_wind` veto on a slick at 2.5 m/s (synthetic SAFE, 20 × 15 km, VV)', () => {
  let dir: string;
  let productPath: string;
  let slick: Polygon;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'sarwatch-oilslick-calm-'));
    const written = await writeSafeGrd(dir, {
      seed: 7,
      start: '2024-05-01T17:30:00',
      center: CENTER,
      width: 2000,
      height: 1500,
      pols: ['VV'],
      wind: { speed: 2.5, directionDeg: 200 },
      slicks: [{ id: 'long', path: [km(-6, -2), km(0, 0), km(5, 2)], widthM: [150, 500] }],
    });
    productPath = written.productPath;
    slick = (JSON.parse(readFileSync(written.groundTruthPath, 'utf8')) as { features: TruthFeature[] }).features.find((f) => f.properties.id === 'long')!.geometry;
  }, 60_000);

  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('the model scores the slick over its threshold, and `low_wind` (the service default) vetoes it; without the veto it is reported', async () => {
    // Below 3 m/s CMOD5.N gives no Bragg roughness for oil to damp: `low_wind` stays a veto as the
    // model's domain limit (no training chip has a sea under 3 m/s). Measured: one candidate of
    // 4.7 km², p 0.959.
    const threshold = oilProbabilityThreshold(resolveOilSlickParams());
    expect(resolveOilSlickParams().vetoRules).toEqual(['low_wind']);
    const vetoed = await detectSlicksInSafeDetailed(productPath, { workers: 0 });
    expect(vetoed.collection.features).toHaveLength(0);
    const scored = vetoed.candidates.filter((c) => !c.reasons.includes('too_small'));
    expect(scored).toHaveLength(1);
    expect(scored[0]!.oilProbability).toBeCloseTo(0.959, 2);
    expect(scored[0]!.oilProbability).toBeGreaterThanOrEqual(threshold);
    expect(scored[0]!.reasons).toEqual(['low_wind']);
    expect(scored[0]!.isSlick).toBe(false);
    const unvetoed = await detectSlicksInSafeDetailed(productPath, { workers: 0, params: { vetoRules: [] } });
    expect(unvetoed.collection.features).toHaveLength(1);
    expect(overlapping(slick, unvetoed.collection.features.map((f) => f.geometry))).toHaveLength(1);
    expect(unvetoed.collection.features[0]!.properties.oil_probability).toBeCloseTo(scored[0]!.oilProbability, 3);
  }, 60_000);
});
