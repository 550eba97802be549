/**
 * Spec: Get job status; Job (status) fields; Authentication; Errors (401, 403, 429);
 * Versioning; DESIGN: error envelope, OpenAPI, docs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRegistry } from '../../src/endpoints/analysisRegistry.ts';
import { GRD_SCENE, SMALL_SQUARE, startTestService, waitForTerminal, type TestService } from '../helpers/service.ts';
import { ForbiddenError, NotFoundError, UnauthorizedError } from '../../src/client/index.ts';
import { revokeApiKey } from '../../src/jobs/accounts.ts';

let t: TestService;
beforeAll(async () => {
  // No detectors: these tests are about the job resource, and a job of an endpoint without
  // a detector fails NOT_IMPLEMENTED.
  t = await startTestService({}, { registry: createRegistry([]) });
});
afterAll(() => t.close());

const shipBody = { satellite_id: 'sentinel-1' as const, polygon: SMALL_SQUARE, date: '2022-06-12' };

describe('GET /api/v1/jobs/{job_id} (spec: Job (status))', () => {
  it('has every field of the status table; a job whose detector is not built yet fails NOT_IMPLEMENTED, uncharged', async () => {
    const { job_id } = await t.client.submit('analyze', 'ship', shipBody);
    const pending = await t.client.getJob(job_id);
    expect(['pending', 'processing', 'failed']).toContain(pending.status);
    const job = await waitForTerminal(t.client, job_id);
    expect(Object.keys(job).sort()).toEqual(
      ['area_sqkm', 'completed_at', 'coverage', 'created_at', 'credits_used', 'endpoint_id', 'error', 'error_code', 'error_message', 'job_id', 'map_layer_path', 'max_credits', 'monitor_id', 'overlay', 'progress', 'quicklook_path', 'request_params', 'result_path', 'satellite_id', 'scene_selection', 'status', 'warnings'].sort(),
    );
    expect(job).toMatchObject({
      job_id,
      endpoint_id: 'ship',
      satellite_id: 'sentinel-1',
      status: 'failed',
      result_path: null,
      error_code: 'NOT_IMPLEMENTED',
      error: 'NOT_IMPLEMENTED', // deprecated mirror of error_code
      area_sqkm: null,
      coverage: null,
      scene_selection: null,
      warnings: [],
      monitor_id: null, // sarwatch extension (issue 21): set on a monitor's runs only
      quicklook_path: null,
      overlay: null,
      map_layer_path: null,
      // sarwatch extensions (issue 22): what the list item carries, so a client need not look the job up in the list
      credits_used: 0,
      request_params: shipBody,
    });
    expect(job.error_message).toMatch(/ship analysis is not available/);
    expect(job.completed_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(Date.parse(job.completed_at!)).toBeGreaterThanOrEqual(Date.parse(job.created_at));
    const item = (await t.client.listJobs({ limit: 1 })).jobs[0];
    expect(item.job_id).toBe(job_id);
    expect(item.credits_used).toBe(0);
    expect(item.request_params).toEqual(job.request_params);
  });

  it("another account's job is 404 NOT_FOUND, never 403", async () => {
    const { job_id } = await t.client.submit('detect', 'oilslick', { satellite_id: 'sentinel-1', scene_id: GRD_SCENE });
    const other = await t.newAccount();
    await expect(other.client.getJob(job_id)).rejects.toBeInstanceOf(NotFoundError);
    const raw = await t.http('GET', `/api/v1/jobs/${job_id}`, { key: other.apiKey });
    expect(raw.status).toBe(404);
    expect(raw.json).toEqual({ error: { code: 'NOT_FOUND', message: `no job ${job_id}` } });
    const result = await t.http('GET', `/api/v1/jobs/${job_id}/result.geojson`, { key: other.apiKey });
    expect(result.status).toBe(404);
  });

  it('unknown and malformed job ids are 404 NOT_FOUND', async () => {
    for (const id of ['00000000-0000-4000-8000-000000000000', 'nope', "1' OR '1'='1"]) {
      const res = await t.http('GET', `/api/v1/jobs/${encodeURIComponent(id)}`);
      expect(res.status).toBe(404);
      expect(res.json.error.code).toBe('NOT_FOUND');
    }
  });

  it('per-key responses are private: Cache-Control and Vary: Authorization on job reads', async () => {
    const { job_id } = await t.client.submit('detect', 'ship', { satellite_id: 'sentinel-1', scene_id: GRD_SCENE });
    const res = await t.http('GET', `/api/v1/jobs/${job_id}`);
    expect(res.headers.get('cache-control')).toBe('private, no-store, no-cache, must-revalidate');
    expect(res.headers.get('vary')).toMatch(/Authorization/);
  });
});

describe('authentication (spec: Authentication, rules 1–2)', () => {
  it('missing, malformed, unknown and revoked keys → 401 UNAUTHORIZED with the envelope', async () => {
    const headers = [undefined, 'Basic abc', 'Bearer', `Bearer ${t.apiKey}x`, `Bearer sw_aaaaaaaaaaaa_${'A'.repeat(43)}`];
    for (const h of headers) {
      const res = await fetch(`${t.url}/api/v1/jobs`, { headers: h ? { Authorization: h } : {} });
      expect(res.status, String(h)).toBe(401);
      const body: any = await res.json();
      expect(body.error.code).toBe('UNAUTHORIZED');
      expect(typeof body.error.message).toBe('string');
    }
    const extra = await t.newAccount();
    expect((await extra.client.listJobs()).jobs).toEqual([]);
    expect(await revokeApiKey(t.service.db, extra.apiKey)).toBe(true);
    await expect(extra.client.listJobs()).rejects.toBeInstanceOf(UnauthorizedError);
  });

  it('POST without a key is 401 even when the body is invalid (auth first)', async () => {
    const res = await t.http('POST', '/api/v1/analyze/ship', { body: {}, key: null });
    expect(res.status).toBe(401);
  });

  it('a key without jobs:read cannot list or read jobs (403 FORBIDDEN)', async () => {
    const writer = await t.newAccount({ scopes: ['jobs:write'] });
    await expect(writer.client.listJobs()).rejects.toBeInstanceOf(ForbiddenError);
    const { job_id } = await writer.client.submit('detect', 'ship', { satellite_id: 'sentinel-1', scene_id: GRD_SCENE });
    await expect(writer.client.getJob(job_id)).rejects.toBeInstanceOf(ForbiddenError);
  });
});

describe('service documents', () => {
  it('GET /healthz answers 200', async () => {
    const res = await fetch(`${t.url}/healthz`);
    expect(res.status).toBe(200);
    expect(((await res.json()) as any).status).toBe('ok');
  });

  it('GET /openapi.json is OpenAPI 3 and documents every route with the request schemas', async () => {
    const doc: any = await (await fetch(`${t.url}/openapi.json`)).json();
    expect(doc.openapi).toMatch(/^3\./);
    for (const family of ['analyze', 'detect']) {
      for (const e of ['ship', 'oilslick', 'newbuilding', 'disappearbuilding', 'timeseries']) {
        expect(doc.paths[`/api/v1/${family}/${e}`]?.post, `${family}/${e}`).toBeDefined();
      }
    }
    expect(doc.paths['/api/v1/analyze/ship/preview'].post).toBeDefined();
    expect(doc.paths['/api/v1/jobs'].get).toBeDefined();
    expect(doc.paths['/api/v1/jobs/{job_id}'].get).toBeDefined();
    expect(doc.paths['/api/v1/jobs/{job_id}/result.geojson'].get.responses['302']).toBeDefined();
    expect(doc.paths['/api/v1/jobs/{job_id}/result.zip'].get).toBeDefined();
    const shipSchema = doc.paths['/api/v1/detect/ship'].post.requestBody.content['application/json'].schema;
    // issue 14: polygon_id (an upload) wherever polygon is; issue 21: max_credits on every body; issue 23: ais_id, include_fixed_structures, near_shore_detection.
    expect(Object.keys(shipSchema.properties).sort()).toEqual(['ais_id', 'date', 'date_direction', 'include_fixed_structures', 'max_credits', 'near_shore_detection', 'orbit_direction', 'polygon', 'polygon_id', 'satellite_id', 'scene_id', 'tif_id']);
    const periodSchema = doc.paths['/api/v1/analyze/timeseries'].post.requestBody.content['application/json'].schema;
    expect(periodSchema.required.sort()).toEqual(['date_end', 'date_start', 'satellite_id']);
    expect(Object.keys(doc.paths['/api/v1/polygons']).sort()).toEqual(['get', 'post']);
    expect(Object.keys(doc.paths['/api/v1/polygons'].post.requestBody.content).sort()).toEqual([
      'application/geo+json',
      'application/json',
      'application/vnd.google-earth.kml+xml',
      'application/zip',
    ]);
    expect(Object.keys(doc.paths['/api/v1/polygons/{polygon_id}']).sort()).toEqual(['delete', 'get']);
    expect(Object.keys(doc.paths['/api/v1/ais'].post.requestBody.content)).toEqual(['text/csv']);
    expect(Object.keys(doc.paths['/api/v1/ais/{ais_id}']).sort()).toEqual(['delete', 'get']);
    expect(shipSchema.additionalProperties).toBe(false);
    const status = doc.paths['/api/v1/jobs/{job_id}'].get.responses['200'].content['application/json'].schema;
    expect(Object.keys(status.properties)).toContain('scene_selection');
    expect(doc.components.securitySchemes.bearerAuth.scheme).toBe('bearer');
    // Every /api route that declares its errors declares 500 and 503 too: any route can answer them
    // (an unexpected error; a store, object store or Redis that does not answer).
    const declared = Object.entries(doc.paths as Record<string, Record<string, { responses?: Record<string, unknown> }>>)
      .filter(([p]) => p.startsWith('/api/'))
      .flatMap(([p, ops]) => Object.entries(ops).map(([m, op]) => [`${m} ${p}`, Object.keys(op.responses ?? {})] as const))
      .filter(([, codes]) => codes.some((c) => c.startsWith('4')));
    expect(declared.length).toBeGreaterThan(40);
    expect(declared.filter(([, codes]) => !codes.includes('500') || !codes.includes('503')).map(([op]) => op)).toEqual([]);
  });

  it('interactive docs are served at /docs', async () => {
    const res = await fetch(`${t.url}/docs`, { redirect: 'follow' });
    expect(res.status).toBe(200);
    expect(await res.text()).toMatch(/swagger/i);
  });
});

describe('limits as configuration (spec: Limits, "a concurrent-job limit (429) and rate limits exist")', () => {
  it('concurrent-job limit → 429 CONCURRENT_JOB_LIMIT with Retry-After, and no job or charge', async () => {
    const s = await startTestService({ SARWATCH_MAX_CONCURRENT_JOBS: '2' }, { credits: 10_000 });
    try {
      // Without a worker free the jobs stay pending: stop the consumer first.
      await s.service.queue.close();
      const body = { satellite_id: 'sentinel-1', scene_id: GRD_SCENE };
      expect((await s.http('POST', '/api/v1/detect/ship', { body })).status).toBe(200);
      expect((await s.http('POST', '/api/v1/detect/ship', { body })).status).toBe(200);
      const before = (await s.client.preview('ship', { satellite_id: 'sentinel-1', polygon: SMALL_SQUARE, date: '2022-06-12' })).credits.balance;
      const third = await s.http('POST', '/api/v1/detect/ship', { body });
      expect(third.status).toBe(429);
      expect(third.json.error.code).toBe('CONCURRENT_JOB_LIMIT');
      expect(Number(third.headers.get('retry-after'))).toBeGreaterThan(0);
      expect((await s.client.listJobs()).jobs).toHaveLength(2);
      expect((await s.client.preview('ship', { satellite_id: 'sentinel-1', polygon: SMALL_SQUARE, date: '2022-06-12' })).credits.balance).toBe(before);
    } finally {
      await s.close();
    }
  });

  it('rate limit per key → 429 RATE_LIMITED with Retry-After', async () => {
    const s = await startTestService({ SARWATCH_RATE_LIMIT_PER_MINUTE: '5' });
    try {
      const statuses: number[] = [];
      let last: Awaited<ReturnType<typeof s.http>> | null = null;
      for (let i = 0; i < 7; i++) {
        last = await s.http('GET', '/api/v1/jobs');
        statuses.push(last.status);
      }
      // A minute window may roll over between requests; at least the 6th in a window is refused.
      expect(statuses.filter((x) => x === 429).length).toBeGreaterThanOrEqual(1);
      const limited = statuses.indexOf(429);
      expect(limited).toBeGreaterThanOrEqual(5);
      expect(last!.status).toBe(429);
      expect(last!.json.error.code).toBe('RATE_LIMITED');
      const retryAfter = Number(last!.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
      // Another key has its own budget.
      const other = await s.newAccount();
      expect((await s.http('GET', '/api/v1/jobs', { key: other.apiKey })).status).toBe(200);
    } finally {
      await s.close();
    }
  });

  it('402 INSUFFICIENT_CREDITS when the balance cannot cover the reservation; nothing created', async () => {
    const s = await startTestService({}, { credits: 1 });
    try {
      const res = await s.http('POST', '/api/v1/detect/ship', { body: { satellite_id: 'sentinel-1', scene_id: GRD_SCENE } });
      expect(res.status).toBe(402);
      expect(res.json.error.code).toBe('INSUFFICIENT_CREDITS');
      expect(res.json.error.details).toEqual({ required: 450, balance: 1 });
      expect((await s.client.listJobs()).jobs).toEqual([]);
    } finally {
      await s.close();
    }
  });
});
