/**
 * Spec: States (completed, retention), Get result (302, 410 GONE), Result download filename,
 * credits charged on area_sqkm at completion. A test-only detector (aoiEchoTestDetector)
 * stands in for the analysis so the lifecycle is tested on its own.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SMALL_SQUARE, TINY_SQUARE, startTestService, waitForTerminal, type TestService } from '../helpers/service.ts';
import { aoiEchoTestDetector, crashingTestDetector } from '../helpers/testDetectors.ts';
import { createRegistry } from '../../src/endpoints/analysisRegistry.ts';
import type { AnalysisModule } from '../../src/analysis/port.ts';
import { GoneError, NotReadyError } from '../../src/client/index.ts';
import { geodesicAreaSqkm, parseAoiWkt } from '../../src/geo/index.ts';
import { GENERIC_FAILURE_MESSAGE } from '../../src/contract/errors.ts';
import { sweepExpiredResults } from '../../src/worker/retention.ts';

/**
 * Reports 50 % and then waits for the test's word before it finishes like aoiEchoTestDetector:
 * a job that is still running for as long as the test looks at it (a 1.5 s sleep before left
 * the test that window, whatever the load).
 */
let finishShip: () => void = () => {};
const gatedShip: AnalysisModule = {
  endpointId: 'ship',
  async run(request, ctx) {
    ctx.reportProgress(50);
    await new Promise<void>((resolve) => (finishShip = resolve));
    return aoiEchoTestDetector('ship').run(request, ctx);
  },
};

let t: TestService;
beforeAll(async () => {
  t = await startTestService({}, { credits: 1000, registry: createRegistry([aoiEchoTestDetector('timeseries'), gatedShip, crashingTestDetector('oilslick')]) });
});
afterAll(() => t.close());

const periodBody = { satellite_id: 'sentinel-1' as const, polygon: TINY_SQUARE, date_start: '2023-01-01', date_end: '2023-12-31' };

describe('completed jobs (spec: States, "Job finishes → completed")', () => {
  it('sets result_path and completed_at, charges credits on area_sqkm exactly once', async () => {
    const area = geodesicAreaSqkm(parseAoiWkt(TINY_SQUARE));
    const before = (await t.client.preview('timeseries', periodBody)).credits.balance;
    const { job_id } = await t.client.submit('analyze', 'timeseries', periodBody);
    const job = await t.client.wait(job_id, { initialDelayMs: 20, maxDelayMs: 100, timeoutMs: 20_000 });
    expect(job.status).toBe('completed');
    expect(job.result_path).toBe(`/api/v1/jobs/${job_id}/result.geojson`);
    expect(job.completed_at).toMatch(/Z$/);
    expect(job.error_code).toBeNull();
    expect(job.error).toBeNull();
    expect(job.area_sqkm).toBeCloseTo(area, 6);
    expect(job.progress).toBe(100);
    const item = (await t.client.listJobs({ limit: 1 })).jobs[0];
    expect(item.credits_used).toBeCloseTo(area * 1, 5); // timeseries: 1 credit / km²
    expect(item.lat).toBeCloseTo(51.325, 6);
    expect(item.lon).toBeCloseTo(2.525, 6);
    const after = (await t.client.preview('timeseries', periodBody)).credits.balance;
    expect(before - after).toBeCloseTo(item.credits_used!, 6);
    // The ledger shows reserve, release and charge for the job, one of each.
    const ledger = await t.service.db.selectFrom('credit_ledger').select(['kind', 'amount_micros']).where('job_id', '=', job_id).orderBy('created_at').execute();
    expect(ledger.map((r) => r.kind).sort()).toEqual(['charge', 'release', 'reserve']);
    expect(ledger.reduce((s, r) => s + Number(r.amount_micros), 0)).toBe(-Math.round(item.credits_used! * 1e6));
  });

  it('GET result.geojson: 302 to a signed, expiring URL; the body is the FeatureCollection; filename {endpoint_id}_{job_id}.geojson', async () => {
    const { job_id } = await t.client.submit('detect', 'timeseries', periodBody);
    await t.client.wait(job_id, { initialDelayMs: 20, maxDelayMs: 100, timeoutMs: 20_000 });
    const res = await t.http('GET', `/api/v1/jobs/${job_id}/result.geojson`);
    expect(res.status).toBe(302);
    const location = res.headers.get('location')!;
    expect(location).toMatch(/[?&]expires=\d+/);
    expect(location).toMatch(/[?&]sig=/);
    const expires = Number(new URL(location, t.url).searchParams.get('expires'));
    expect(expires * 1000).toBeGreaterThan(Date.now());
    expect(expires * 1000).toBeLessThanOrEqual(Date.now() + t.config.signedUrlTtlSeconds * 1000 + 2000);
    const download = await fetch(new URL(location, t.url));
    expect(download.status).toBe(200);
    expect(download.headers.get('content-type')).toBe('application/geo+json');
    expect(download.headers.get('content-disposition')).toBe(`attachment; filename="timeseries_${job_id}.geojson"`);
    const fc: any = await download.json();
    expect(fc.type).toBe('FeatureCollection');
    expect(fc.features[0].id).toBe(1);
    expect(fc.features[0].properties.area_sqm / 1e6).toBeCloseTo(geodesicAreaSqkm(parseAoiWkt(TINY_SQUARE)), 6);
    // The SDK follows the redirect the same way.
    expect(await t.client.downloadResult(job_id)).toEqual(fc);
  });

  it('a tampered or expired signed URL is refused (403 FORBIDDEN)', async () => {
    const { job_id } = await t.client.submit('analyze', 'timeseries', periodBody);
    await t.client.wait(job_id, { initialDelayMs: 20, maxDelayMs: 100, timeoutMs: 20_000 });
    const url = new URL(await t.client.resultUrl(job_id));
    const tampered = new URL(url);
    tampered.searchParams.set('filename', 'evil.html');
    expect((await fetch(tampered)).status).toBe(403);
    const expired = new URL(url);
    expired.searchParams.set('expires', String(Math.floor(Date.now() / 1000) - 10));
    const res = await fetch(expired);
    expect(res.status).toBe(403); // the signature covers expires, so this is also a forgery
    expect(((await res.json()) as any).error.code).toBe('FORBIDDEN');
  });

  it('result of a job still running → 409 NOT_READY; progress is visible while it runs', async () => {
    const { job_id } = await t.client.submit('analyze', 'ship', { satellite_id: 'sentinel-1', polygon: SMALL_SQUARE, date: '2022-06-12' });
    await expect(t.client.resultUrl(job_id)).rejects.toBeInstanceOf(NotReadyError);
    // The detector reports 50 % and then waits until a poll has seen it.
    const seen = new Set<number | null>();
    const done = await t.client.wait(job_id, {
      initialDelayMs: 10,
      maxDelayMs: 20,
      timeoutMs: 20_000,
      onPoll: (j) => {
        seen.add(j.progress);
        if (j.progress === 50) finishShip();
      },
    });
    expect(seen.has(50)).toBe(true);
    expect(done.progress).toBe(100);
    expect(done.status).toBe('completed');
  });

  it('result.zip is only for idlefarm jobs: a GeoJSON job answers 404 there', async () => {
    const { job_id } = await t.client.submit('analyze', 'timeseries', periodBody);
    await t.client.wait(job_id, { initialDelayMs: 20, maxDelayMs: 100, timeoutMs: 20_000 });
    const res = await t.http('GET', `/api/v1/jobs/${job_id}/result.zip`);
    expect(res.status).toBe(404);
    expect(res.json.error.message).toMatch(/result\.geojson/);
  });
});

describe('idlefarm results (spec: Get result, "For idlefarm jobs the result is at result.zip")', () => {
  it('result.zip redirects to the archive with filename idlefarm_{job_id}.zip; result.geojson points there', async () => {
    // The completed job is written straight into the store: this checks serving only
    // (test/e2e/idlefarm.test.ts runs a real one end to end).
    const jobId = '0b6f6c8e-6c1e-4c4e-9a7e-3c1d2b4a5f60';
    const now = new Date().toISOString();
    await t.service.objects.put(`results/${jobId}.zip`, Buffer.from('PK\x05\x06' + '\0'.repeat(18), 'binary'), 'application/zip');
    await t.service.db
      .insertInto('jobs')
      .values({
        id: jobId, account_id: t.accountId, endpoint_id: 'idlefarm', family: 'analyze', satellite_id: null, status: 'completed',
        created_at: now, updated_at: now, started_at: now, completed_at: now, request_params: null, credits_reserved_micros: 0,
        credits_used_micros: 0, area_sqkm: 1, lat: 0, lon: 0, coverage: null, scene_selection: null, warnings: '[]',
        error_code: null, error_message: null, progress: 100, result_key: `results/${jobId}.zip`,
        result_expires_at: new Date(Date.now() + 86_400_000).toISOString(), result_deleted_at: null, lease_owner: null, lease_expires_at: null,
      })
      .execute();
    const job = await t.client.getJob(jobId);
    expect(job.result_path).toBe(`/api/v1/jobs/${jobId}/result.zip`);
    const res = await t.http('GET', `/api/v1/jobs/${jobId}/result.zip`);
    expect(res.status).toBe(302);
    const download = await fetch(new URL(res.headers.get('location')!, t.url));
    expect(download.headers.get('content-type')).toBe('application/zip');
    expect(download.headers.get('content-disposition')).toBe(`attachment; filename="idlefarm_${jobId}.zip"`);
    expect(Buffer.from(await download.arrayBuffer()).subarray(0, 2).toString()).toBe('PK');
    const wrong = await t.http('GET', `/api/v1/jobs/${jobId}/result.geojson`);
    expect(wrong.status).toBe(404);
    expect(wrong.json.error.message).toMatch(/result\.zip/);
  });
});

describe('failed jobs (spec: Errors → Job failure)', () => {
  it('an unexpected crash fails the job with a 5xx-class code and the fixed generic message, uncharged', async () => {
    const { job_id } = await t.client.submit('analyze', 'oilslick', { satellite_id: 'sentinel-1', polygon: SMALL_SQUARE, date: '2022-06-12' });
    const job = await waitForTerminal(t.client, job_id);
    expect(job.status).toBe('failed');
    expect(job.error_code).toBe('PROCESSING_ERROR');
    expect(job.error_message).toBe(GENERIC_FAILURE_MESSAGE);
    expect(job.error_message).not.toMatch(/var\/lib/);
    expect((await t.client.listJobs({ limit: 1 })).jobs[0].credits_used).toBe(0);
    const res = await t.http('GET', `/api/v1/jobs/${job_id}/result.geojson`);
    expect(res.status).toBe(404);
  });
});

describe('retention (spec: States, "30 days after completion"; Get result, 410 GONE)', () => {
  it('after retention: 410 GONE with the envelope, the sweeper deletes the object, job metadata stays', async () => {
    // Retention is set from the completion (completeJob: result_expires_at = completed_at +
    // the configured days); the retention then ends by moving the expiry into the past. A
    // retention of 1.7 s before left the 302 below a 1.7 s window after completion and the
    // 410 a 272 ms margin after a timer: both at the machine's load's mercy.
    const s = await startTestService({ SARWATCH_RESULT_RETENTION_DAYS: '0.5', SARWATCH_SWEEP_INTERVAL_SECONDS: '3600' }, {
      registry: createRegistry([aoiEchoTestDetector('timeseries')]),
    });
    try {
      const { job_id } = await s.client.submit('analyze', 'timeseries', periodBody);
      const job = await s.client.wait(job_id, { initialDelayMs: 20, maxDelayMs: 100, timeoutMs: 20_000 });
      const row = await s.service.db.selectFrom('jobs').select(['completed_at', 'result_expires_at']).where('id', '=', job_id).executeTakeFirstOrThrow();
      expect(Date.parse(row.result_expires_at!) - Date.parse(row.completed_at!)).toBe(0.5 * 86_400_000);
      expect((await s.http('GET', `/api/v1/jobs/${job_id}/result.geojson`)).status).toBe(302);
      // Nothing to sweep while the retention lasts.
      expect(await sweepExpiredResults(s.service.db, s.service.objects)).toBe(0);
      const objectFile = path.join(s.dataDir, 'objects', 'results', `${job_id}.1.geojson`);
      expect(fs.existsSync(objectFile)).toBe(true);
      // The retention is over: its end moved into the past (to a second before the completion).
      const expired = new Date(Date.parse(row.completed_at!) - 1000).toISOString();
      await s.service.db.updateTable('jobs').set({ result_expires_at: expired }).where('id', '=', job_id).execute();
      const gone = await s.http('GET', `/api/v1/jobs/${job_id}/result.geojson`);
      expect(gone.status).toBe(410);
      expect(gone.json.error.code).toBe('GONE');
      expect(typeof gone.json.error.message).toBe('string');
      await expect(s.client.downloadResult(job_id)).rejects.toBeInstanceOf(GoneError);
      expect(await sweepExpiredResults(s.service.db, s.service.objects)).toBe(1);
      expect(fs.existsSync(objectFile)).toBe(false);
      const after = await s.client.getJob(job_id);
      expect(after.status).toBe('completed');
      expect(after.completed_at).toBe(job.completed_at);
      expect(after.area_sqkm).toBe(job.area_sqkm);
      expect(await sweepExpiredResults(s.service.db, s.service.objects)).toBe(0);
    } finally {
      await s.close();
    }
  });
});
