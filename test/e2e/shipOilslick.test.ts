/**
 * Issue 4, "Done when": ship and oilslick jobs on the demo archive complete through the HTTP
 * API in both families and with both input patterns, and the downloaded GeoJSON passes every
 * rule of the spec's Result section (and loads in GDAL's ogrinfo).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.ts';
import { expectResultRules, ogrFeatureCount } from '../helpers/resultRules.ts';
import { DEMO_ANCHORAGE, DEMO_SLICK_AREA, linkDemoArchive } from '../helpers/demoArchive.ts';
import { bboxOf, geodesicAreaSqkm, parseAoiWkt } from '../../src/geo/index.ts';

let t: TestService;
let portScene = '';
let truth: any;

beforeAll(async () => {
  t = await startTestService({}, {
    credits: 100_000,
    scenes: [],
    beforeIndex: async (archiveDir) => {
      await linkDemoArchive(archiveDir);
    },
  });
  const scenes = (await t.http('GET', '/api/v1/scenes?product_type=GRD&date_start=2024-06-13&date_end=2024-06-13')).json.scenes;
  portScene = scenes[0].scene_id;
  const dir = path.join(t.config.archiveDir, 'demo');
  const find = (d: string): string[] => fs.readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? find(path.join(d, e.name)) : e.name.startsWith(portScene) && e.name.endsWith('.truth.geojson') ? [path.join(d, e.name)] : []));
  truth = JSON.parse(fs.readFileSync(find(dir)[0]!, 'utf8'));
}, 240_000);
afterAll(() => t?.close());

async function run(family: 'analyze' | 'detect', endpoint: 'ship' | 'oilslick', body: object) {
  const { job_id } = await t.client.submit(family, endpoint, body as never);
  const job = await t.client.wait(job_id, { initialDelayMs: 200, maxDelayMs: 1000, timeoutMs: 200_000 });
  const res = await t.http('GET', `/api/v1/jobs/${job_id}/result.geojson`);
  expect(res.status).toBe(302);
  const fc = await t.client.downloadResult(job_id);
  return { job, fc };
}

function distanceM(a: [number, number], b: [number, number]): number {
  const k = Math.PI / 180;
  const x = (b[0] - a[0]) * Math.cos(((a[1] + b[1]) / 2) * k) * 6371e3 * k;
  const y = (b[1] - a[1]) * 6371e3 * k;
  return Math.hypot(x, y);
}

// A job may take its wait's full 200 s on a loaded machine: each test's budget is above that, not the suite's 60 s (vitest.config.ts).
describe('ship jobs on the demo port', { timeout: 240_000 }, () => {
  // The polygon jobs run on the part of the port that holds what they check (test/helpers/demoArchive.ts); the scene_id jobs on the whole scene.
  it('detect family, polygon + date: completed, Result rules hold, ships ≥ 30 m of the ground truth in the anchorage are found', async () => {
    const { job, fc } = await run('detect', 'ship', { satellite_id: 'sentinel-1', polygon: DEMO_ANCHORAGE, date: '2024-06-14' });
    expect(job.status).toBe('completed');
    expect(job.scene_selection).toEqual({ first_month: '2024-06', last_month: '2024-06' });
    expect(job.coverage).toMatchObject({ method: 'estimated', ratio: 1 });
    expect(job.area_sqkm).toBeCloseTo(geodesicAreaSqkm(parseAoiWkt(DEMO_ANCHORAGE)), 3);
    expectResultRules(fc);
    const centres = (fc.features as any[]).map((f) => {
      const ring = f.geometry.coordinates[0] as [number, number][];
      return [ring.reduce((s, p) => s + p[0], 0) / ring.length, ring.reduce((s, p) => s + p[1], 0) / ring.length] as [number, number];
    });
    const aoi = parseAoiWkt(DEMO_ANCHORAGE);
    const [x0, y0, x1, y1] = bboxOf(aoi);
    const ships = (truth.features as any[]).filter((f) => f.properties.kind === 'ship' && f.properties.length_m >= 30).map((f) => {
      const g = f.geometry;
      const p = g.type === 'Point' ? g.coordinates : g.coordinates[0].reduce((s: number[], q: number[]) => [s[0] + q[0] / g.coordinates[0].length, s[1] + q[1] / g.coordinates[0].length], [0, 0]);
      return p as [number, number];
    }).filter(([lon, lat]) => lon > x0 && lon < x1 && lat > y0 && lat < y1);
    expect(aoi.type).toBe('Polygon');
    expect(ships.length).toBeGreaterThan(5);
    const found = ships.filter((s) => centres.some((c) => distanceM(s, c) <= 100));
    expect(found.length / ships.length).toBeGreaterThanOrEqual(0.9);
    const ogr = ogrFeatureCount(fc);
    if (ogr !== null) expect(ogr).toBe(fc.features.length);
  });

  it('analyze family, scene_id: the whole scene, coverage and scene_selection null', async () => {
    const { job, fc } = await run('analyze', 'ship', { satellite_id: 'sentinel-1', scene_id: portScene });
    expect(job.status).toBe('completed');
    expect(job.coverage).toBeNull();
    expect(job.scene_selection).toBeNull();
    expect(fc.features.length).toBeGreaterThan(5);
    expectResultRules(fc);
  });
});

describe('oilslick jobs on the demo port', { timeout: 240_000 }, () => {
  it('analyze family, polygon + date: the slick of 2024-06-13 is found; properties.id equals id; confidence null', async () => {
    const { job, fc } = await run('analyze', 'oilslick', { satellite_id: 'sentinel-1', polygon: DEMO_SLICK_AREA, date: '2024-06-13', date_direction: 'before' });
    expect(job.status).toBe('completed');
    expectResultRules(fc, { propertyId: true });
    const slicks = (truth.features as any[]).filter((f) => f.properties.kind === 'oilslick');
    expect(slicks.length).toBeGreaterThanOrEqual(1);
    expect(fc.features.length).toBeGreaterThanOrEqual(1);
    const ogr = ogrFeatureCount(fc);
    if (ogr !== null) expect(ogr).toBe(fc.features.length);
  });

  it('detect family, scene_id of the second pass (no slick): completes with an empty collection (no bbox)', async () => {
    const later = (await t.http('GET', '/api/v1/scenes?product_type=GRD&date_start=2024-06-25&date_end=2024-06-25')).json.scenes[0].scene_id;
    const { job, fc } = await run('detect', 'oilslick', { satellite_id: 'sentinel-1', scene_id: later });
    expect(job.status).toBe('completed');
    expectResultRules(fc, { propertyId: true });
    expect(fc.features).toHaveLength(0);
  });
});
