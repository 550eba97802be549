/**
 * Spec: Endpoints → Preview; Resources → Preview response.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GRD_SCENE, SLC_SCENE, SMALL_SQUARE, TINY_SQUARE, startTestService, waitForTerminal, type TestService } from '../helpers/service.ts';
import { geodesicAreaSqkm, parseAoiWkt } from '../../src/geo/index.ts';

let t: TestService;
beforeAll(async () => {
  t = await startTestService({}, { credits: 500 });
});
afterAll(() => t.close());

const shipBody = { satellite_id: 'sentinel-1' as const, polygon: SMALL_SQUARE, date: '2022-06-12' };
const periodBody = { satellite_id: 'sentinel-1' as const, polygon: TINY_SQUARE, date_start: '2023-01-01', date_end: '2023-12-31' };

describe('preview (spec: Preview)', () => {
  it('polygon input: area_sqkm is the polygon area, credits.estimated = area × price, balance and sufficient given', async () => {
    const area = geodesicAreaSqkm(parseAoiWkt(TINY_SQUARE));
    const res = await t.http('POST', '/api/v1/analyze/timeseries/preview', { body: periodBody });
    expect(res.status).toBe(200);
    expect(res.json.endpoint_id).toBe('timeseries');
    expect(res.json.area_sqkm).toBeCloseTo(area, 4);
    expect(area).toBeGreaterThan(18);
    expect(area).toBeLessThan(21);
    // timeseries price: 1 credit per km² (default configuration)
    expect(res.json.credits.estimated).toBeCloseTo(area * 1, 4);
    expect(res.json.credits.balance).toBe(500);
    expect(res.json.credits.sufficient).toBe(true);
    expect(res.json.warnings).toEqual([]);
  });

  it('ship/oilslick polygon + date: credits computed from the polygon', async () => {
    const res = await t.client.preview('oilslick', shipBody);
    const area = geodesicAreaSqkm(parseAoiWkt(SMALL_SQUARE));
    expect(res.area_sqkm).toBeCloseTo(area, 4);
    expect(res.credits.estimated).toBeCloseTo(area * 0.01, 5);
  });

  it('scene_id input: credits.estimated null, sufficient null, CREDITS_NOT_ESTIMABLE warning', async () => {
    const res = await t.client.preview('ship', { satellite_id: 'sentinel-1', scene_id: GRD_SCENE });
    expect(res.credits.estimated).toBeNull();
    expect(res.credits.sufficient).toBeNull();
    expect(res.credits.balance).toBe(500);
    expect(res.warnings.map((w) => w.code)).toEqual(['CREDITS_NOT_ESTIMABLE']);
    expect(res.warnings[0].message.length).toBeGreaterThan(10);
  });

  it('insufficient balance: 200 with sufficient = false instead of 402', async () => {
    const big = 'POLYGON ((10 0, 11.5 0, 11.5 1.5, 10 1.5, 10 0))'; // ≈ 27,700 km² × 0.1 = 2,770 credits > 500
    const res = await t.http('POST', '/api/v1/analyze/newbuilding/preview', { body: { ...periodBody, polygon: big } });
    expect(res.status).toBe(200);
    expect(res.json.credits.sufficient).toBe(false);
    expect(res.json.credits.estimated).toBeGreaterThan(500);
    const submit = await t.http('POST', '/api/v1/analyze/newbuilding', { body: { ...periodBody, polygon: big } });
    expect(submit.status).toBe(402);
    expect(submit.json.error.code).toBe('INSUFFICIENT_CREDITS');
  });

  it('coverage is predicted by the same scene selection as the job: method estimated, ratio, polygon (spec: Preview)', async () => {
    const res = await t.client.preview('ship', shipBody);
    const area = geodesicAreaSqkm(parseAoiWkt(SMALL_SQUARE));
    // The polygon lies inside the fixture GRD footprint (2.0–3.2 E, 51.0–51.8 N).
    expect(res.coverage).toEqual({ method: 'estimated', requested_area_sqkm: expect.closeTo(area, 5), ratio: 1, polygon: expect.stringMatching(/^POLYGON/) });
    expect(res.area_sqkm).toBeCloseTo(area, 4);
    expect(res.warnings).toEqual([]);
  });

  it('partial coverage: area_sqkm and credits follow the expected analysed area; LOW_AOI_COVERAGE warns', async () => {
    // Half of this box lies east of the footprint's 3.2° E edge.
    const half = 'POLYGON ((3.1 51.3, 3.3 51.3, 3.3 51.4, 3.1 51.4, 3.1 51.3))';
    const res = await t.client.preview('oilslick', { ...shipBody, polygon: half });
    const inside = geodesicAreaSqkm(parseAoiWkt('POLYGON ((3.1 51.3, 3.2 51.3, 3.2 51.4, 3.1 51.4, 3.1 51.3))'));
    const requested = geodesicAreaSqkm(parseAoiWkt(half));
    expect(res.coverage!.ratio).toBe(Math.floor((inside / requested) * 100) / 100);
    expect(res.coverage!.ratio).toBeGreaterThanOrEqual(0.49);
    expect(res.coverage!.ratio).toBeLessThanOrEqual(0.5);
    expect(res.coverage!.requested_area_sqkm).toBeCloseTo(geodesicAreaSqkm(parseAoiWkt(half)), 5);
    expect(res.area_sqkm).toBeCloseTo(inside, 3);
    expect(res.credits.estimated).toBeCloseTo(inside * 0.01, 4);
    expect(parseAoiWkt(res.coverage!.polygon!).type).toBe('Polygon');
    expect(geodesicAreaSqkm(parseAoiWkt(res.coverage!.polygon!))).toBeCloseTo(inside, 3);
    expect(res.warnings.map((w) => w.code)).toEqual(['LOW_AOI_COVERAGE']);
  });

  it('no scene matches (or date_direction excludes it): coverage omitted, credits still returned (spec: Preview)', async () => {
    for (const body of [
      { ...shipBody, date: '2020-01-01' },
      { ...shipBody, date: '2022-06-13', date_direction: 'after' as const },
    ]) {
      const res = await t.client.preview('ship', body);
      expect(res).not.toHaveProperty('coverage');
      expect(res.area_sqkm).toBeCloseTo(geodesicAreaSqkm(parseAoiWkt(SMALL_SQUARE)), 4);
      expect(res.credits.estimated).toBeGreaterThan(0);
      expect(res.warnings).toEqual([]);
    }
  });

  it('scene search fails (STAC catalog unreachable): coverage omitted, credits still returned; the job fails CATALOG_UNAVAILABLE uncharged', async () => {
    // A STAC URL on a closed local port: the search fails at once.
    const s = await startTestService({ CATALOG_URL: 'http://127.0.0.1:9/stac' });
    try {
      const res = await s.client.preview('ship', shipBody);
      expect(res).not.toHaveProperty('coverage');
      expect(res.credits.estimated).toBeCloseTo(geodesicAreaSqkm(parseAoiWkt(SMALL_SQUARE)) * 0.01, 5);
      const { job_id } = await s.client.submit('analyze', 'ship', shipBody);
      const job = await waitForTerminal(s.client, job_id);
      expect(job.error_code).toBe('CATALOG_UNAVAILABLE');
      expect((await s.client.listJobs({ limit: 1 })).jobs[0].credits_used).toBe(0);
    } finally {
      await s.close();
    }
  });

  it('period endpoints predict over the period: analyze uses RTC scenes, detect GRD', async () => {
    const res = await t.client.preview('timeseries', periodBody);
    expect(res.coverage?.ratio).toBe(1);
    const none = await t.client.preview('newbuilding', { ...periodBody, date_start: '2019-01-01', date_end: '2019-12-31' });
    expect(none).not.toHaveProperty('coverage');
  });

  it('creates no job and charges nothing', async () => {
    const before = (await t.client.listJobs()).jobs.length;
    for (let i = 0; i < 3; i++) await t.client.preview('ship', shipBody);
    expect((await t.client.listJobs()).jobs.length).toBe(before);
    expect((await t.client.preview('ship', shipBody)).credits.balance).toBe(500);
  });

  it('validation runs the same functions in the same order: same status and code as submission', async () => {
    const bodies: Array<[string, object]> = [
      ['ship', { satellite_id: 'sentinel-1' }],
      ['ship', { ...shipBody, scene_id: GRD_SCENE }],
      ['ship', { satellite_id: 'sentinel-1', polygon: 'POLYGON ((0 0, 1 1, 1 0, 0 1, 0 0))', date: '2022-01-01' }],
      ['ship', { satellite_id: 'sentinel-2', polygon: SMALL_SQUARE, date: '2022-01-01' }],
      ['timeseries', { ...periodBody, polygon: SMALL_SQUARE }],
      ['timeseries', { ...periodBody, date_start: '2019-01-01', date_end: '2023-01-01' }],
      ['newbuilding', { ...periodBody, scene_id: GRD_SCENE }],
      ['oilslick', { satellite_id: 'sentinel-1', scene_id: 'bad', extra: 1 }],
    ];
    for (const [endpoint, body] of bodies) {
      const preview = await t.http('POST', `/api/v1/analyze/${endpoint}/preview`, { body });
      const submit = await t.http('POST', `/api/v1/analyze/${endpoint}`, { body });
      expect(preview.status, JSON.stringify(body)).toBe(400);
      expect(submit.status).toBe(preview.status);
      expect(submit.json.error).toEqual(preview.json.error);
    }
  });

  it('analyze preview accepts a non-GRD scene_id just like analyze submission', async () => {
    const res = await t.http('POST', '/api/v1/analyze/ship/preview', { body: { satellite_id: 'sentinel-1', scene_id: SLC_SCENE } });
    expect(res.status).toBe(200);
    expect(res.json.credits.estimated).toBeNull();
  });

  it('missing permission gives the same status at preview and submission (403 FORBIDDEN)', async () => {
    const reader = await t.newAccount({ scopes: ['jobs:read'] });
    const limited = await t.newAccount({ endpoints: ['ship'] });
    for (const [key, endpoint, body] of [
      [reader.apiKey, 'ship', shipBody],
      [limited.apiKey, 'timeseries', periodBody],
    ] as const) {
      const preview = await t.http('POST', `/api/v1/analyze/${endpoint}/preview`, { body, key });
      const submit = await t.http('POST', `/api/v1/analyze/${endpoint}`, { body, key });
      expect(preview.status).toBe(403);
      expect(submit.status).toBe(403);
      expect(preview.json.error.code).toBe('FORBIDDEN');
      expect(submit.json.error.code).toBe('FORBIDDEN');
    }
    expect((await t.http('POST', '/api/v1/analyze/ship/preview', { body: shipBody, key: limited.apiKey })).status).toBe(200);
  });
});
