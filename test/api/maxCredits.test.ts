/**
 * Issue 21 §3, spending caps: `max_credits` on a submission is the most the job may cost.
 * 400 VALIDATION_ERROR when the preview's estimate already exceeds it (the message gives both
 * numbers); stored on the job; the reservation never exceeds it; at run time a job whose
 * area would cost more fails CREDIT_CAP_EXCEEDED, uncharged. Previews say whether the
 * estimate exceeds it. SQLite, and PostgreSQL with SARWATCH_TEST_STORE=postgres.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { AnalysisModule } from '../../src/analysis/port.ts';
import { createRegistry } from '../../src/endpoints/analysisRegistry.ts';
import { loadConfig } from '../../src/config.ts';
import { startService, type Service } from '../../src/runtime.ts';
import type { Db } from '../../src/store/index.ts';
import { ValidationError } from '../../src/client/index.ts';
import { geodesicAreaSqkm, parseAoiWkt } from '../../src/geo/index.ts';
import { GRD_SCENE, SMALL_SQUARE, TINY_SQUARE, startTestService, waitForTerminal, type TestService } from '../helpers/service.ts';
import { testStoreEnv } from '../helpers/services.ts';
import { aoiEchoTestDetector } from '../helpers/testDetectors.ts';

const periodBody = { satellite_id: 'sentinel-1' as const, polygon: TINY_SQUARE, date_start: '2023-01-01', date_end: '2023-12-31' };
/** Half of this box lies east of the fixture GRD footprint's 3.2° E edge. */
const HALF_COVERED = 'POLYGON ((3.1 51.3, 3.3 51.3, 3.3 51.4, 3.1 51.4, 3.1 51.3))';
const tinyArea = geodesicAreaSqkm(parseAoiWkt(TINY_SQUARE)); // ≈ 19.4 km², 1 credit per km² for timeseries

const ledgerKinds = async (db: Db, jobId: string) =>
  (await db.selectFrom('credit_ledger').select('kind').where('job_id', '=', jobId).execute()).map((r) => r.kind).sort();
const jobRow = (db: Db, jobId: string) => db.selectFrom('jobs').selectAll().where('id', '=', jobId).executeTakeFirstOrThrow();

let t: TestService;
beforeAll(async () => {
  t = await startTestService({}, { credits: 1000, registry: createRegistry([aoiEchoTestDetector('timeseries'), aoiEchoTestDetector('ship')]) });
});
afterAll(() => t.close());

describe('issue 21 §3: max_credits at submission', () => {
  it('issue 21 §3: max_credits must be a number > 0: 0, negative, text, null and an unknown spelling are 400 VALIDATION_ERROR naming the field', async () => {
    for (const bad of [0, -5, '10', null, true]) {
      const res = await t.http('POST', '/api/v1/analyze/timeseries', { body: { ...periodBody, max_credits: bad } });
      expect(res.status, JSON.stringify(bad)).toBe(400);
      expect(res.json.error.code).toBe('VALIDATION_ERROR');
      expect(res.json.error.message).toContain('max_credits');
      const preview = await t.http('POST', '/api/v1/analyze/timeseries/preview', { body: { ...periodBody, max_credits: bad } });
      expect(preview.status, JSON.stringify(bad)).toBe(400);
    }
    const typo = await t.http('POST', '/api/v1/analyze/timeseries', { body: { ...periodBody, max_credit: 10 } });
    expect(typo.status).toBe(400);
  });

  it("issue 21 §3: an estimate over max_credits is 400 VALIDATION_ERROR whose message gives both numbers; no job, no reservation", async () => {
    const before = (await t.client.listJobs()).jobs.length;
    const err = await t.client.submit('analyze', 'timeseries', { ...periodBody, max_credits: 10 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    const message = (err as ValidationError).message;
    expect(message).toContain('max_credits 10');
    expect(message).toContain(String(Math.ceil(tinyArea * 1e6) / 1e6));
    expect((err as ValidationError).details).toEqual({ estimated_credits: Math.ceil(tinyArea * 1e6) / 1e6, max_credits: 10 });
    expect((await t.client.listJobs()).jobs.length).toBe(before);
  });

  it('issue 21 §3: the cap is stored on the job (GET shows max_credits) and bounds the reservation; a job within it completes and is charged as usual', async () => {
    const { job_id } = await t.client.submit('analyze', 'timeseries', { ...periodBody, max_credits: 25 });
    const row = await jobRow(t.service.db, job_id);
    expect(Number(row.max_credits_micros)).toBe(25_000_000);
    expect(Number(row.credits_reserved_micros)).toBe(Math.ceil(tinyArea * 1e6 - 1e-6));
    const job = await waitForTerminal(t.client, job_id);
    expect({ status: job.status, max_credits: job.max_credits }).toEqual({ status: 'completed', max_credits: 25 });
    expect(await ledgerKinds(t.service.db, job_id)).toEqual(['charge', 'release', 'reserve']);
    expect((await t.client.getJob((await t.client.submit('analyze', 'timeseries', periodBody)).job_id)).max_credits).toBeNull();
  });

  it("issue 21 §3: the estimate is the preview's (the covered part), not the polygon's: a cap between the two is accepted, and the reservation is the cap", async () => {
    const body = { satellite_id: 'sentinel-1' as const, polygon: HALF_COVERED, date: '2022-06-12' };
    const requested = geodesicAreaSqkm(parseAoiWkt(HALF_COVERED)) * 0.01;
    const preview = await t.client.preview('ship', { ...body, max_credits: 1 });
    expect(preview.credits.estimated!).toBeLessThan(1);
    expect(requested).toBeGreaterThan(1);
    expect(preview.credits).toMatchObject({ max_credits: 1, exceeds_max_credits: false });
    const { job_id } = await t.client.submit('detect', 'ship', { ...body, max_credits: 1 });
    expect(Number((await jobRow(t.service.db, job_id)).credits_reserved_micros)).toBe(1_000_000);
    await waitForTerminal(t.client, job_id);
  });

  it('issue 21 §3: previews take max_credits and say whether the estimate exceeds it (null when it cannot be estimated); without it the fields are absent', async () => {
    const over = await t.client.preview('timeseries', { ...periodBody, max_credits: 10 });
    expect(over.credits).toMatchObject({ max_credits: 10, exceeds_max_credits: true });
    const under = await t.client.preview('timeseries', { ...periodBody, max_credits: 100 });
    expect(under.credits).toMatchObject({ max_credits: 100, exceeds_max_credits: false });
    const scene = await t.client.preview('ship', { satellite_id: 'sentinel-1', scene_id: GRD_SCENE, max_credits: 5 });
    expect(scene.credits).toMatchObject({ estimated: null, max_credits: 5, exceeds_max_credits: null });
    const none = await t.client.preview('timeseries', periodBody);
    expect(none.credits).not.toHaveProperty('max_credits');
    expect(none.credits).not.toHaveProperty('exceeds_max_credits');
  });
});

describe('issue 21 §3: max_credits at run time (CREDIT_CAP_EXCEEDED, uncharged)', () => {
  it('issue 21 §3: a scene_id job (no estimate at submission) reserves at most the cap; the scene costs more, so it fails CREDIT_CAP_EXCEEDED before any analysis, uncharged', async () => {
    const { job_id } = await t.client.submit('detect', 'ship', { satellite_id: 'sentinel-1', scene_id: GRD_SCENE, max_credits: 5 });
    expect(Number((await jobRow(t.service.db, job_id)).credits_reserved_micros)).toBe(5_000_000);
    const job = await waitForTerminal(t.client, job_id);
    expect({ status: job.status, error_code: job.error_code, area_sqkm: job.area_sqkm, result_path: job.result_path }).toEqual({
      status: 'failed',
      error_code: 'CREDIT_CAP_EXCEEDED',
      area_sqkm: null,
      result_path: null,
    });
    // The fixture footprint, 2.0–3.2° E × 51.0–51.8° N, at 0.01 credits per km².
    expect(job.error_message).toMatch(/would cost 7\d\.\d+ credits, more than max_credits 5; the job was not charged/);
    expect(await ledgerKinds(t.service.db, job_id)).toEqual(['release', 'reserve']);
    expect((await t.client.listJobs({ limit: 1 })).jobs[0]!.credits_used).toBe(0);
  });

  it('issue 21 §3: a measured area that would cost more than the cap fails the job CREDIT_CAP_EXCEEDED after the analysis; the result is not kept (test stand-in detector measuring 30 km²)', async () => {
    const measuring: AnalysisModule = {
      endpointId: 'timeseries',
      async run(request, ctx) {
        const out = await aoiEchoTestDetector('timeseries').run(request, ctx);
        return { ...out, measured: { areaSqkm: 30, coverage: null } };
      },
    };
    const m = await startTestService({}, { registry: createRegistry([measuring]) });
    try {
      const { job_id } = await m.client.submit('analyze', 'timeseries', { ...periodBody, max_credits: 25 });
      const job = await waitForTerminal(m.client, job_id);
      expect({ status: job.status, error_code: job.error_code }).toEqual({ status: 'failed', error_code: 'CREDIT_CAP_EXCEEDED' });
      expect(job.error_message).toContain('the analysed area of 30 km² would cost 30 credits, more than max_credits 25');
      expect(await ledgerKinds(m.service.db, job_id)).toEqual(['release', 'reserve']);
      expect(await m.service.objects.get(`results/${job_id}.1.geojson`)).toBeNull();
    } finally {
      await m.close();
    }
  });
});

describe('issue 21 §3: a price raised between submission and run', () => {
  const services: Service[] = [];
  afterEach(async () => {
    while (services.length) await services.pop()!.close();
  });

  it('issue 21 §3: the API priced the job within the cap; the worker, priced higher, fails it CREDIT_CAP_EXCEEDED before analysing, uncharged', async () => {
    const api = await startTestService({}, { roles: { api: true, worker: false } });
    try {
      const { job_id } = await api.client.submit('analyze', 'timeseries', { ...periodBody, max_credits: 25 });
      // A worker process sharing the store, configured with twice the price.
      const config = loadConfig({
        SARWATCH_DATA_DIR: api.dataDir,
        PORT: '0',
        SARWATCH_SAMPLES_DIR: '',
        ...(await testStoreEnv(api.dataDir)),
        SARWATCH_PRICE_PER_SQKM_TIMESERIES: '2',
      });
      const worker = await startService(config, { roles: { api: false, worker: true }, queuePollMs: 30, registry: createRegistry([aoiEchoTestDetector('timeseries')]) });
      services.push(worker);
      const job = await waitForTerminal(api.client, job_id);
      expect({ status: job.status, error_code: job.error_code }).toEqual({ status: 'failed', error_code: 'CREDIT_CAP_EXCEEDED' });
      expect(job.error_message).toContain(`would cost ${Math.ceil(tinyArea * 2 * 1e6) / 1e6} credits, more than max_credits 25`);
      expect(await ledgerKinds(api.service.db, job_id)).toEqual(['release', 'reserve']);
    } finally {
      while (services.length) await services.pop()!.close();
      await api.close();
    }
  });
});
