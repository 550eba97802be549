/**
 * Spec: Endpoints → List jobs, rules 1–10; Resources → Job list item.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRegistry } from '../../src/endpoints/analysisRegistry.ts';
import { GRD_SCENE, SMALL_SQUARE, TINY_SQUARE, settleAll, startTestService, type TestService } from '../helpers/service.ts';

let t: TestService;
const created: string[] = [];
beforeAll(async () => {
  // No detectors: every job fails NOT_IMPLEMENTED quickly, which these tests rely on.
  t = await startTestService({ SARWATCH_MAX_CONCURRENT_JOBS: '100' }, { credits: 100_000, registry: createRegistry([]) });
  // 35 jobs: more than one page of 30, of three endpoints.
  for (let i = 0; i < 35; i++) {
    const endpoint = (['ship', 'oilslick', 'timeseries'] as const)[i % 3];
    const body =
      endpoint === 'timeseries'
        ? { satellite_id: 'sentinel-1', polygon: TINY_SQUARE, date_start: '2023-01-01', date_end: '2023-06-30' }
        : { satellite_id: 'sentinel-1', polygon: SMALL_SQUARE, date: '2022-06-12' };
    const res = await t.http('POST', `/api/v1/analyze/${endpoint}`, { body });
    created.push(res.json.job_id);
  }
  await settleAll(t.client);
});
afterAll(() => t.close());

const list = (qs: string, key?: string | null) => t.http('GET', `/api/v1/jobs${qs}`, { key });

describe('GET /api/v1/jobs (spec: List jobs)', () => {
  it('rule 8: response is { jobs: [...] } with the list-item fields', async () => {
    const res = await list('');
    expect(res.status).toBe(200);
    expect(Object.keys(res.json)).toEqual(['jobs']);
    const item = res.json.jobs[0];
    expect(Object.keys(item).sort()).toEqual(
      ['area_sqkm', 'completed_at', 'created_at', 'credits_used', 'endpoint_id', 'error_code', 'error_message', 'job_id', 'lat', 'lon', 'monitor_id', 'request_params', 'result_path', 'satellite_id', 'status'].sort(),
    );
    expect(item.monitor_id).toBeNull(); // sarwatch extension (issue 21): set on a monitor's runs only
    expect(item.request_params).toMatchObject({ satellite_id: 'sentinel-1' });
    expect(item.satellite_id).toBe('sentinel-1');
  });

  it('rule 6/7: default and limit=30 return the 30 newest, created_at desc then job_id desc; no cursor', async () => {
    const res = await list('?limit=30');
    expect(res.json.jobs).toHaveLength(30);
    const expected = [...created].reverse().slice(0, 30);
    const got = res.json.jobs.map((j: { job_id: string }) => j.job_id);
    // Same set of the newest 30, in the documented order.
    expect(new Set(got)).toEqual(new Set(expected));
    const keys = res.json.jobs.map((j: { created_at: string; job_id: string }) => [j.created_at, j.job_id]);
    const sorted = [...keys].sort((a, b) => (a[0] === b[0] ? (a[1] < b[1] ? 1 : -1) : a[0] < b[0] ? 1 : -1));
    expect(keys).toEqual(sorted);
    expect((await list('')).json.jobs).toHaveLength(30);
  });

  it('limit 1–30: limit=1 gives the newest; 0, 31, 1.5, abc, -1 and empty are 400 VALIDATION_ERROR', async () => {
    const one = await list('?limit=1');
    expect(one.json.jobs).toHaveLength(1);
    expect(one.json.jobs[0].job_id).toBe(created[created.length - 1]);
    for (const bad of ['0', '31', '1.5', 'abc', '-1', '', '5&limit=6']) {
      const res = await list(`?limit=${bad}`);
      expect(res.status, bad).toBe(400);
      expect(res.json.error.code).toBe('VALIDATION_ERROR');
    }
  });

  it('rule 1: values are strictly lowercase (status=Pending → 400)', async () => {
    for (const qs of ['?status=Pending', '?endpoint_id=SHIP', '?status=done']) {
      const res = await list(qs);
      expect(res.status, qs).toBe(400);
      expect(res.json.error.code).toBe('VALIDATION_ERROR');
    }
  });

  it('status filter: failed jobs only (these jobs failed NOT_IMPLEMENTED), none pending', async () => {
    const failed = await list('?status=failed&limit=30');
    expect(failed.json.jobs).toHaveLength(30);
    expect(failed.json.jobs.every((j: { status: string; error_code: string }) => j.status === 'failed' && j.error_code === 'NOT_IMPLEMENTED')).toBe(true);
    expect((await list('?status=pending')).json.jobs).toEqual([]);
  });

  it('endpoint_id filter, comma-separated', async () => {
    const res = await list('?endpoint_id=timeseries');
    const expected = created.filter((_, i) => i % 3 === 2).length;
    expect(res.json.jobs).toHaveLength(expected);
    expect(res.json.jobs.every((j: { endpoint_id: string }) => j.endpoint_id === 'timeseries')).toBe(true);
    const two = await list('?endpoint_id=timeseries,oilslick');
    expect(two.json.jobs.every((j: { endpoint_id: string }) => ['timeseries', 'oilslick'].includes(j.endpoint_id))).toBe(true);
    expect(two.json.jobs).toHaveLength(Math.min(30, created.filter((_, i) => i % 3 !== 0).length));
  });

  it('rule 2: duplicate values are deduplicated', async () => {
    expect((await list('?endpoint_id=timeseries,timeseries')).json).toEqual((await list('?endpoint_id=timeseries')).json);
  });

  it('rule 3: empty segments are ignored (,,failed,, equals failed)', async () => {
    expect((await list('?status=,,failed,,')).json).toEqual((await list('?status=failed')).json);
    expect((await list('?status=,,')).json).toEqual((await list('')).json);
  });

  it('rule 4: repeated keys are combined like one comma-separated list', async () => {
    expect((await list('?endpoint_id=ship&endpoint_id=oilslick')).json).toEqual((await list('?endpoint_id=ship,oilslick')).json);
  });

  it('rule 5: unknown query parameters are ignored', async () => {
    expect((await list('?foo=bar&cursor=abc&limit=5')).json).toEqual((await list('?limit=5')).json);
  });

  it('rule 10: a value longer than 128 characters → 400 VALIDATION_ERROR', async () => {
    const long = 'failed,'.repeat(20); // 140 characters, valid values
    const res = await list(`?status=${long}`);
    expect(res.status).toBe(400);
    expect(res.json.error.message).toMatch(/128/);
    expect((await list(`?status=${'failed,'.repeat(18)}`)).status).toBe(200); // 126 characters
  });

  it('rule 9: Cache-Control private, no-store, no-cache, must-revalidate and Vary: Authorization', async () => {
    const res = await list('');
    expect(res.headers.get('cache-control')).toBe('private, no-store, no-cache, must-revalidate');
    expect(res.headers.get('vary')).toMatch(/Authorization/);
  });

  it('rule 10: missing key → 401 UNAUTHORIZED', async () => {
    const res = await list('', null);
    expect(res.status).toBe(401);
    expect(res.json.error.code).toBe('UNAUTHORIZED');
  });

  it('job lists are per account (spec: Authentication, rules 3–4)', async () => {
    const other = await t.newAccount();
    expect((await other.client.listJobs()).jobs).toEqual([]);
    await other.client.submit('detect', 'ship', { satellite_id: 'sentinel-1', scene_id: GRD_SCENE });
    const theirs = (await other.client.listJobs()).jobs;
    expect(theirs).toHaveLength(1);
    expect((await list('?limit=30')).json.jobs.map((j: { job_id: string }) => j.job_id)).not.toContain(theirs[0].job_id);
  });

  it('list item values: failed jobs show credits_used 0, completed_at set, result_path null', async () => {
    const item = (await list('?limit=1')).json.jobs[0];
    expect(item.status).toBe('failed');
    expect(item.credits_used).toBe(0);
    expect(item.completed_at).toMatch(/Z$/);
    expect(item.result_path).toBeNull();
    expect(item.error_code).toBe('NOT_IMPLEMENTED');
  });
});
