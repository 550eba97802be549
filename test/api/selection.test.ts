/**
 * Jobs get their imagery from the catalog (spec: What the service does, items 9–10;
 * Coverage; Scene selection; Warning object). Fixture scenes are STAC items in the
 * archive; a test-only detector (aoiEchoTestDetector) completes the jobs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GRD_SCENE, SMALL_SQUARE, TINY_SQUARE, startTestService, waitForTerminal, type TestService } from '../helpers/service.ts';
import { aoiEchoTestDetector } from '../helpers/testDetectors.ts';
import { createRegistry } from '../../src/endpoints/analysisRegistry.ts';
import { geodesicAreaSqkm, parseAoiWkt } from '../../src/geo/index.ts';

let t: TestService;
beforeAll(async () => {
  t = await startTestService({}, {
    credits: 10_000,
    registry: createRegistry(['ship', 'oilslick', 'timeseries', 'newbuilding'].map((e) => aoiEchoTestDetector(e as 'ship'))),
  });
});
afterAll(() => t.close());

const wait = (id: string) => waitForTerminal(t.client, id);

describe('ship/oilslick with polygon + date', () => {
  it('selects the GRD scene within ±14 days; scene_selection has months only; coverage estimated; area charged is polygon ∩ footprint', async () => {
    const { job_id } = await t.client.submit('detect', 'ship', { satellite_id: 'sentinel-1', polygon: SMALL_SQUARE, date: '2022-06-20' });
    const job = await wait(job_id);
    expect(job.status).toBe('completed');
    expect(job.scene_selection).toEqual({ first_month: '2022-06', last_month: '2022-06' });
    expect(job.coverage).toMatchObject({ method: 'estimated', ratio: 1 });
    expect(job.coverage!.requested_area_sqkm).toBeCloseTo(geodesicAreaSqkm(parseAoiWkt(SMALL_SQUARE)), 5);
    expect(job.area_sqkm).toBeCloseTo(geodesicAreaSqkm(parseAoiWkt(SMALL_SQUARE)), 5);
    expect(job.warnings).toEqual([]);
    // No scene ids or exact times anywhere in the job.
    expect(JSON.stringify(job)).not.toMatch(/S1A_IW_GRDH|T17:33/);
    const item = (await t.client.listJobs({ limit: 1 })).jobs[0];
    expect(item.lat).toBeCloseTo(51.35, 3);
    expect(item.lon).toBeCloseTo(2.55, 3);
  });

  it('no scene within ±14 days (or on the asked side of date) → failed NO_SCENE_FOUND, not charged', async () => {
    for (const body of [
      { satellite_id: 'sentinel-1' as const, polygon: SMALL_SQUARE, date: '2022-07-01' },
      { satellite_id: 'sentinel-1' as const, polygon: SMALL_SQUARE, date: '2022-06-13', date_direction: 'after' as const },
      { satellite_id: 'sentinel-1' as const, polygon: SMALL_SQUARE, date: '2022-06-12', orbit_direction: 'descending' as const },
    ]) {
      const { job_id } = await t.client.submit('analyze', 'oilslick', body);
      const job = await wait(job_id);
      expect(job.status).toBe('failed');
      expect(job.error_code).toBe('NO_SCENE_FOUND');
      expect(job.error_message).toMatch(/No GRD/);
      expect((await t.client.listJobs({ limit: 1 })).jobs[0].credits_used).toBe(0);
    }
  });

  it('LOW_AOI_COVERAGE on a completed job when the scene covers part of the polygon', async () => {
    const half = 'POLYGON ((3.1 51.3, 3.3 51.3, 3.3 51.4, 3.1 51.4, 3.1 51.3))';
    const { job_id } = await t.client.submit('detect', 'ship', { satellite_id: 'sentinel-1', polygon: half, date: '2022-06-12' });
    const job = await wait(job_id);
    expect(job.status).toBe('completed');
    expect(job.error_code).toBeNull();
    expect(job.warnings.map((w) => w.code)).toEqual(['LOW_AOI_COVERAGE']);
    expect(job.coverage!.ratio).toBeLessThanOrEqual(0.5);
    expect(job.area_sqkm!).toBeLessThan(job.coverage!.requested_area_sqkm * 0.51);
  });
});

describe('scene_id input', () => {
  it('a GRD scene_id unknown to the catalog fails SCENE_NOT_FOUND', async () => {
    const unknown = await t.client.submit('detect', 'ship', { satellite_id: 'sentinel-1', scene_id: 'S1B_IW_GRDH_1SDV_20211223T051122_20211223T051147_030148_039993_5371' });
    const failed = await wait(unknown.job_id);
    expect(failed.error_code).toBe('SCENE_NOT_FOUND');
    expect(failed.error_message).toMatch(/not found/);
  });

  it('a known scene_id (here another unique id of the same acquisition) runs on the whole scene: coverage and scene_selection null', async () => {
    const { job_id } = await t.client.submit('detect', 'ship', { satellite_id: 'sentinel-1', scene_id: GRD_SCENE });
    const job = await wait(job_id);
    expect(job.status).toBe('completed');
    expect(job.coverage).toBeNull();
    expect(job.scene_selection).toBeNull();
    // Charged on the scene footprint (2.0–3.2 E × 51.0–51.8 N ≈ 7,500 km²).
    expect(job.area_sqkm).toBeCloseTo(geodesicAreaSqkm(parseAoiWkt('POLYGON ((2 51, 3.2 51, 3.2 51.8, 2 51.8, 2 51))')), 3);
  });

  it('an SLC product that exists in the catalog still fails SCENE_NOT_FOUND in the analyze family', async () => {
    const { job_id } = await t.client.submit('analyze', 'ship', { satellite_id: 'sentinel-1', scene_id: 'S1A_IW_SLC__1SDV_20220612T173329_20220612T173356_043633_05359A_F1A2' });
    const job = await wait(job_id);
    expect(job.error_code).toBe('SCENE_NOT_FOUND');
  });
});

describe('timeseries and building change over a period', () => {
  it('timeseries: scene_selection spans first/last month of the series; PERIOD_PARTIALLY_COVERED when data ends early', async () => {
    const full = await wait((await t.client.submit('analyze', 'timeseries', { satellite_id: 'sentinel-1', polygon: TINY_SQUARE, date_start: '2023-01-01', date_end: '2023-12-31' })).job_id);
    expect(full.status).toBe('completed');
    expect(full.scene_selection).toEqual({ first_month: '2023-01', last_month: '2023-12' });
    expect(full.warnings).toEqual([]);
    const partial = await wait((await t.client.submit('analyze', 'timeseries', { satellite_id: 'sentinel-1', polygon: TINY_SQUARE, date_start: '2023-06-01', date_end: '2024-06-30' })).job_id);
    expect(partial.status).toBe('completed');
    expect(partial.scene_selection).toEqual({ first_month: '2023-06', last_month: '2023-12' });
    expect(partial.warnings.map((w) => w.code)).toEqual(['PERIOD_PARTIALLY_COVERED']);
  });

  it('newbuilding: a pair from the earlier and later halves; no scene in a half → NO_SCENE_FOUND', async () => {
    const ok = await wait((await t.client.submit('analyze', 'newbuilding', { satellite_id: 'sentinel-1', polygon: SMALL_SQUARE, date_start: '2023-01-01', date_end: '2023-12-31' })).job_id);
    expect(ok.status).toBe('completed');
    expect(ok.scene_selection!.first_month! < ok.scene_selection!.last_month!).toBe(true);
    const none = await wait((await t.client.submit('analyze', 'newbuilding', { satellite_id: 'sentinel-1', polygon: SMALL_SQUARE, date_start: '2023-12-01', date_end: '2024-12-31' })).job_id);
    expect(none.error_code).toBe('NO_SCENE_FOUND');
  });
});
