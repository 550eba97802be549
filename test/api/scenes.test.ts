/**
 * GET /api/v1/scenes (issue 3): find scene ids without leaving the service. The archive
 * holds the real samples (samples/s1, linked in at start) plus STAC fixtures.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.ts';
import { northSeaFixtureScenes } from '../helpers/stacFixtures.ts';
import { S1_DATA } from '../helpers/samples.ts';
import { parseAoiWkt } from '../../src/geo/index.ts';

let t: TestService;
beforeAll(async () => {
  // Without the fixture that duplicates the real North-Sea acquisition (search keeps one per pass).
  t = await startTestService({ SARWATCH_SAMPLES_DIR: S1_DATA }, { scenes: northSeaFixtureScenes().filter((s) => !s.id.endsWith('_F1A1')) });
});
afterAll(() => t.close());

const NORTH_SEA = 'S1A_IW_GRDH_1SDV_20220612T173329_20220612T173354_043633_05359A_EA25';

describe('GET /api/v1/scenes', () => {
  it('finds the real North-Sea GRD by polygon and date, with every documented field', async () => {
    const q = new URLSearchParams({ polygon: 'POLYGON ((2.5 51.3, 2.7 51.3, 2.7 51.45, 2.5 51.45, 2.5 51.3))', date_start: '2022-06-12', date_end: '2022-06-12', product_type: 'GRD' });
    const res = await t.http('GET', `/api/v1/scenes?${q}`);
    expect(res.status).toBe(200);
    const ids = res.json.scenes.map((s: { scene_id: string }) => s.scene_id);
    expect(ids).toContain(NORTH_SEA);
    const s = res.json.scenes.find((x: { scene_id: string }) => x.scene_id === NORTH_SEA);
    expect(s).toMatchObject({
      product_type: 'GRD',
      platform: 'S1A',
      relative_orbit: 161, // ((43633 − 73) mod 175) + 1
      orbit_direction: 'ascending',
      polarisations: ['VV', 'VH'],
    });
    expect(s.start_time).toBe('2022-06-12T17:33:29.384Z'); // from the manifest, finer than the name
    expect(s.stop_time).toMatch(/^2022-06-12T17:33:54/);
    expect(parseAoiWkt(s.footprint).type).toBe('Polygon');
    expect(res.headers.get('vary')).toMatch(/Authorization/);
  });

  it('filters by product type: RTC stacks of Santa Barbara, SLC fixture', async () => {
    const rtc = await t.http('GET', `/api/v1/scenes?product_type=RTC&polygon=${encodeURIComponent('POLYGON ((-120.6 34.3, -119.6 34.3, -119.6 34.6, -120.6 34.6, -120.6 34.3))')}&limit=500`);
    expect(rtc.status).toBe(200);
    expect(rtc.json.scenes.length).toBeGreaterThanOrEqual(21);
    expect(rtc.json.scenes.every((s: { product_type: string; relative_orbit: number }) => s.product_type === 'RTC' && s.relative_orbit === 137)).toBe(true);
    const slc = await t.http('GET', '/api/v1/scenes?product_type=SLC');
    expect(slc.json.scenes.map((s: { product_type: string }) => s.product_type)).toEqual(['SLC']);
  });

  it('orders by start time and honours limit; orbit_direction filters', async () => {
    const res = await t.http('GET', '/api/v1/scenes?limit=5');
    expect(res.json.scenes).toHaveLength(5);
    const times = res.json.scenes.map((s: { start_time: string }) => s.start_time);
    expect([...times].sort()).toEqual(times);
    const desc = await t.http('GET', '/api/v1/scenes?orbit_direction=descending&limit=500');
    expect(desc.json.scenes.every((s: { orbit_direction: string }) => s.orbit_direction === 'descending')).toBe(true);
  });

  it('bad filters are 400 VALIDATION_ERROR; no key is 401', async () => {
    for (const qs of ['limit=0', 'limit=501', 'product_type=grd', 'date_start=2022-13-01', 'polygon=POINT(1 2)', 'orbit_direction=up', 'date_start=2022-02-02&date_end=2022-01-01']) {
      const res = await t.http('GET', `/api/v1/scenes?${qs}`);
      expect(res.status, qs).toBe(400);
      expect(res.json.error.code).toBe('VALIDATION_ERROR');
    }
    expect((await t.http('GET', '/api/v1/scenes', { key: null })).status).toBe(401);
  });
});
