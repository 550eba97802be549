/**
 * Issue 23 §3 through the API on the demo archive: a ship job over the demo's wind farm on the
 * port's second pass (2024-06-25; the first pass, 12 days earlier on track 161, is its earlier
 * date) leaves the turbines and the platform out by default and keeps them, flagged
 * `fixed_structure: true`, with `include_fixed_structures`; the ships stay with
 * `fixed_structure: false`. On the first pass there is nothing earlier: no flag, a warning.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.ts';
import { expectResultRules } from '../helpers/resultRules.ts';
import { linkDemoArchive } from '../helpers/demoArchive.ts';

const FARM = 'POLYGON ((4.22 52.43, 4.37 52.43, 4.37 52.5, 4.22 52.5, 4.22 52.43))';
let t: TestService;
const truth: Record<string, any> = {};

beforeAll(async () => {
  t = await startTestService({}, { credits: 100_000, scenes: [], beforeIndex: async (archiveDir) => void (await linkDemoArchive(archiveDir)) });
  for (const day of ['2024-06-13', '2024-06-25']) {
    const sceneId = (await t.http('GET', `/api/v1/scenes?product_type=GRD&date_start=${day}&date_end=${day}`)).json.scenes[0].scene_id;
    const file = fs.readdirSync(path.join(t.config.archiveDir, 'demo', 'grd')).find((f) => f.startsWith(sceneId) && f.endsWith('.truth.geojson'))!;
    truth[day] = JSON.parse(fs.readFileSync(path.join(t.config.archiveDir, 'demo', 'grd', file), 'utf8'));
  }
}, 240_000);
afterAll(() => t?.close());

async function run(body: object) {
  const { job_id } = await t.client.submit('detect', 'ship', { satellite_id: 'sentinel-1', polygon: FARM, ...body } as never);
  const job = await t.client.wait(job_id, { initialDelayMs: 200, maxDelayMs: 1000, timeoutMs: 200_000 });
  expect(job.status).toBe('completed');
  const fc = await t.client.downloadResult(job_id);
  expectResultRules(fc);
  return { job, fc };
}

function distanceM(a: [number, number], b: [number, number]): number {
  const k = Math.PI / 180;
  return Math.hypot((b[0] - a[0]) * Math.cos(((a[1] + b[1]) / 2) * k) * 6371e3 * k, (b[1] - a[1]) * 6371e3 * k);
}
const centre = (f: any): [number, number] => {
  const ring = f.geometry.coordinates[0] as [number, number][];
  const n = ring.length - 1;
  return [ring.slice(0, n).reduce((s, p) => s + p[0], 0) / n, ring.slice(0, n).reduce((s, p) => s + p[1], 0) / n];
};
const [x0, y0, x1, y1] = [4.22, 52.43, 4.37, 52.5];
const inFarm = ([lon, lat]: number[]) => lon! > x0 && lon! < x1 && lat! > y0 && lat! < y1;
const truthOf = (day: string, kind: string) => (truth[day].features as any[]).filter((f) => f.properties.kind === kind).map((f) => [f.properties.center_lon, f.properties.center_lat] as [number, number]).filter(inFarm);
const near = (features: any[], p: [number, number], m: number) => features.filter((f) => distanceM(centre(f), p) <= m);

describe('fixed structures on the demo wind farm', () => {
  it('second pass: turbines and platform left out by default, kept and flagged with include_fixed_structures; ships kept, fixed_structure false', async () => {
    const structures = truthOf('2024-06-25', 'fixed_structure');
    const ships = truthOf('2024-06-25', 'ship');
    expect(structures).toHaveLength(10);
    expect(ships.length).toBeGreaterThanOrEqual(2);

    const plain = await run({ date: '2024-06-25' });
    expect(plain.job.warnings).toEqual([]);
    for (const s of structures) expect(near(plain.fc.features, s, 100)).toHaveLength(0);
    for (const s of ships) expect(near(plain.fc.features, s, 100).map((f) => f.properties.fixed_structure)).toEqual([false]);
    expect(plain.fc.features.every((f: any) => f.properties.fixed_structure === false)).toBe(true);

    const kept = await run({ date: '2024-06-25', include_fixed_structures: true });
    expect(kept.job.warnings).toEqual([]);
    for (const s of structures) expect(near(kept.fc.features, s, 60).map((f) => f.properties.fixed_structure)).toEqual([true]);
    for (const s of ships) expect(near(kept.fc.features, s, 100).map((f) => f.properties.fixed_structure)).toEqual([false]);
    expect(kept.fc.features.length - plain.fc.features.length).toBe(kept.fc.features.filter((f: any) => f.properties.fixed_structure).length);
  }, 420_000);

  it('first pass: no earlier date of the track, so the turbines stay unflagged and a warning says why', async () => {
    const { job, fc } = await run({ date: '2024-06-13' });
    expect(job.warnings.map((w: { code: string }) => w.code)).toEqual(['FIXED_STRUCTURES_NOT_SEPARATED']);
    expect(job.warnings[0].message).toMatch(/^\d+ of \d+ detections have no earlier acquisition of the same track/);
    for (const s of truthOf('2024-06-13', 'fixed_structure')) expect(near(fc.features, s, 60)).toHaveLength(1);
    expect(fc.features.every((f: any) => !('fixed_structure' in f.properties))).toBe(true);
  }, 210_000);

  it('include_fixed_structures is a boolean of ship jobs: 400 with the error envelope otherwise', async () => {
    const body = { satellite_id: 'sentinel-1', polygon: FARM, date: '2024-06-25' };
    for (const value of ['true', 1, null]) {
      const res = await t.http('POST', '/api/v1/detect/ship', { body: { ...body, include_fixed_structures: value } });
      expect(res.status).toBe(400);
      expect(res.json.error.code).toBe('VALIDATION_ERROR');
      expect(res.json.error.message).toContain('include_fixed_structures');
    }
    const oil = await t.http('POST', '/api/v1/detect/oilslick', { body: { ...body, include_fixed_structures: true } });
    expect(oil.status).toBe(400);
    expect(oil.json.error).toEqual({ code: 'VALIDATION_ERROR', message: 'include_fixed_structures applies to ship jobs only, not to oilslick' });
  });
});
