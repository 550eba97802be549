/**
 * Spec: Endpoints → Submission; Errors; Limits; Job (submission response); States.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GRD_SCENE, SLC_SCENE, SMALL_SQUARE, TINY_SQUARE, settleAll, startTestService, waitForTerminal, type TestService } from '../helpers/service.ts';

let t: TestService;
beforeAll(async () => {
  t = await startTestService({ SARWATCH_MAX_CONCURRENT_JOBS: '50' }, { credits: 100_000 });
});
afterAll(() => t.close());

const ISO_Z = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const ship = (extra: object) => ({ satellite_id: 'sentinel-1', ...extra });
const period = (extra: object = {}) => ({ satellite_id: 'sentinel-1' as const, polygon: TINY_SQUARE, date_start: '2023-01-01', date_end: '2023-12-31', ...extra });

describe('submission response (spec: Job (submission response))', () => {
  it('returns job_id (UUID), status pending, created_at ISO 8601 UTC with Z, completed_at/result_path/error null', async () => {
    const res = await t.http('POST', '/api/v1/analyze/ship', { body: ship({ polygon: SMALL_SQUARE, date: '2022-06-12' }) });
    expect(res.status).toBe(200);
    expect(Object.keys(res.json).sort()).toEqual(['completed_at', 'created_at', 'error', 'job_id', 'result_path', 'status']);
    expect(res.json.job_id).toMatch(UUID);
    expect(res.json.status).toBe('pending');
    expect(res.json.created_at).toMatch(ISO_Z);
    expect(Math.abs(Date.parse(res.json.created_at) - Date.now())).toBeLessThan(10_000);
    expect(res.json.completed_at).toBeNull();
    expect(res.json.result_path).toBeNull();
    expect(res.json.error).toBeNull();
  });

  it('accepts every endpoint in both families (spec: Endpoints, "{endpoint} is one of …")', async () => {
    for (const family of ['analyze', 'detect']) {
      for (const e of ['ship', 'oilslick']) {
        const res = await t.http('POST', `/api/v1/${family}/${e}`, { body: ship({ scene_id: GRD_SCENE }) });
        expect(res.status, `${family}/${e}`).toBe(200);
      }
      for (const e of ['newbuilding', 'disappearbuilding', 'timeseries']) {
        const res = await t.http('POST', `/api/v1/${family}/${e}`, { body: period() });
        expect(res.status, `${family}/${e}`).toBe(200);
      }
    }
  });
});

describe('input patterns (spec: What the service does, item 8)', () => {
  const cases: Array<[string, string, object, RegExp]> = [
    ['ship: scene_id and polygon together', 'ship', ship({ scene_id: GRD_SCENE, polygon: SMALL_SQUARE, date: '2022-06-12' }), /not both/],
    ['ship: neither scene_id nor polygon', 'ship', ship({}), /needs scene_id, or polygon \+ date/],
    ['ship: polygon without date', 'ship', ship({ polygon: SMALL_SQUARE }), /needs date/],
    ['oilslick: scene_id with date', 'oilslick', ship({ scene_id: GRD_SCENE, date: '2022-06-12' }), /only apply with polygon/],
    ['newbuilding: scene_id not accepted', 'newbuilding', period({ scene_id: GRD_SCENE }), /unknown field "scene_id"/],
    ['timeseries: missing date_end', 'timeseries', { satellite_id: 'sentinel-1', polygon: TINY_SQUARE, date_start: '2023-01-01' }, /missing required field "date_end"/],
    ['disappearbuilding: missing polygon', 'disappearbuilding', { satellite_id: 'sentinel-1', date_start: '2023-01-01', date_end: '2023-02-01' }, /missing required field "polygon"/],
    ['ship: date with polygon for period endpoints is not a field', 'timeseries', period({ date: '2023-01-01' }), /unknown field "date"/],
  ];
  for (const [name, endpoint, body, message] of cases) {
    it(`400 VALIDATION_ERROR — ${name}`, async () => {
      const res = await t.http('POST', `/api/v1/analyze/${endpoint}`, { body });
      expect(res.status).toBe(400);
      expect(res.json.error.code).toBe('VALIDATION_ERROR');
      expect(res.json.error.message).toMatch(message);
    });
  }

  it('satellite_id must be sentinel-1 (spec: What the service does, item 7)', async () => {
    for (const satellite_id of ['sentinel-2', undefined, 'Sentinel-1']) {
      const res = await t.http('POST', '/api/v1/detect/ship', { body: { satellite_id, scene_id: GRD_SCENE } });
      expect(res.status).toBe(400);
      expect(res.json.error.code).toBe('VALIDATION_ERROR');
    }
  });

  it('date_direction and orbit_direction accept only their documented values', async () => {
    for (const extra of [{ date_direction: 'later' }, { orbit_direction: 'up' }, { date_direction: 'Before' }]) {
      const res = await t.http('POST', '/api/v1/analyze/ship', { body: ship({ polygon: SMALL_SQUARE, date: '2022-06-12', ...extra }) });
      expect(res.status).toBe(400);
      expect(res.json.error.code).toBe('VALIDATION_ERROR');
    }
    const ok = await t.http('POST', '/api/v1/analyze/ship', {
      body: ship({ polygon: SMALL_SQUARE, date: '2022-06-12', date_direction: 'before', orbit_direction: 'ascending' }),
    });
    expect(ok.status).toBe(200);
  });

  it('dates must be real calendar dates in YYYY-MM-DD', async () => {
    for (const date of ['2022-02-30', '12-06-2022', '2022-6-1', '2022-06-12T00:00:00Z']) {
      const res = await t.http('POST', '/api/v1/analyze/ship', { body: ship({ polygon: SMALL_SQUARE, date }) });
      expect(res.status, date).toBe(400);
      expect(res.json.error.code).toBe('VALIDATION_ERROR');
    }
    const res = await t.http('POST', '/api/v1/analyze/timeseries', { body: period({ date_start: '2023-05-01', date_end: '2023-04-30' }) });
    expect(res.status).toBe(400);
    expect(res.json.error.message).toMatch(/date_end must not be before date_start/);
  });
});

describe('family differences (spec: Endpoints, "Differences between the two families")', () => {
  it('detect: non-GRD scene_id is rejected at submission with 400 INVALID_SCENE', async () => {
    for (const scene_id of [SLC_SCENE, 'not-a-product']) {
      const res = await t.http('POST', '/api/v1/detect/ship', { body: ship({ scene_id }) });
      expect(res.status).toBe(400);
      expect(res.json.error.code).toBe('INVALID_SCENE');
    }
  });

  it('analyze: non-GRD scene_id is accepted, then the job fails with SCENE_NOT_FOUND and is not charged', async () => {
    await settleAll(t.client);
    const before = (await t.client.preview('ship', { satellite_id: 'sentinel-1', polygon: SMALL_SQUARE, date: '2022-06-12' })).credits.balance;
    const res = await t.http('POST', '/api/v1/analyze/oilslick', { body: ship({ scene_id: SLC_SCENE }) });
    expect(res.status).toBe(200);
    const job = await waitForTerminal(t.client, res.json.job_id);
    expect(job.status).toBe('failed');
    expect(job.error_code).toBe('SCENE_NOT_FOUND');
    expect(job.error).toBe('SCENE_NOT_FOUND');
    expect(job.error_message).toMatch(/SLC/);
    expect(job.result_path).toBeNull();
    const listed = (await t.client.listJobs({ limit: 30 })).jobs.find((j) => j.job_id === res.json.job_id)!;
    expect(listed.credits_used).toBe(0);
    const after = (await t.client.preview('ship', { satellite_id: 'sentinel-1', polygon: SMALL_SQUARE, date: '2022-06-12' })).credits.balance;
    expect(after).toBe(before);
  });
});

describe('WKT polygons (spec: Errors, "Invalid body or malformed WKT")', () => {
  const bad: Array<[string, string]> = [
    ['not WKT', 'hello'],
    ['a POINT', 'POINT (2 51)'],
    ['an unclosed ring', 'POLYGON ((2.5 51.3, 2.6 51.3, 2.6 51.4, 2.5 51.4))'],
    ['a ring of three positions', 'POLYGON ((2.5 51.3, 2.6 51.3, 2.5 51.3))'],
    ['latitude out of range', 'POLYGON ((2.5 91, 2.6 91, 2.6 92, 2.5 92, 2.5 91))'],
    ['longitude out of range', 'POLYGON ((181 51, 182 51, 182 52, 181 52, 181 51))'],
    ['a self-intersecting bow tie', 'POLYGON ((2.5 51.3, 2.6 51.4, 2.6 51.3, 2.5 51.4, 2.5 51.3))'],
    ['an empty polygon', 'POLYGON EMPTY'],
  ];
  for (const [name, polygon] of bad) {
    it(`400 VALIDATION_ERROR for ${name}`, async () => {
      const res = await t.http('POST', '/api/v1/analyze/newbuilding', { body: period({ polygon }) });
      expect(res.status).toBe(400);
      expect(res.json.error.code).toBe('VALIDATION_ERROR');
      expect(res.json.error.message).toMatch(/^polygon/);
    });
  }

  it('accepts a MULTIPOLYGON', async () => {
    const polygon = 'MULTIPOLYGON (((2.5 51.3, 2.52 51.3, 2.52 51.32, 2.5 51.32, 2.5 51.3)), ((2.6 51.3, 2.62 51.3, 2.62 51.32, 2.6 51.32, 2.6 51.3)))';
    const res = await t.http('POST', '/api/v1/analyze/timeseries', { body: period({ polygon }) });
    expect(res.status).toBe(200);
  });
});

describe('limits (spec: Limits)', () => {
  // 0.1° × 0.1° at 51.3° N is about 77 km²: over the time-series limit of 50 km².
  it('timeseries polygon over 50 km² → 400 VALIDATION_ERROR naming the limit', async () => {
    const res = await t.http('POST', '/api/v1/analyze/timeseries', { body: period({ polygon: SMALL_SQUARE }) });
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe('VALIDATION_ERROR');
    expect(res.json.error.message).toMatch(/exceeds the limit of 50 km²/);
  });

  it('timeseries date range over 3 years → 400; exactly 3 years is accepted', async () => {
    const over = await t.http('POST', '/api/v1/analyze/timeseries', { body: period({ date_start: '2020-01-01', date_end: '2023-01-02' }) });
    expect(over.status).toBe(400);
    expect(over.json.error.message).toMatch(/3 years/);
    const exact = await t.http('POST', '/api/v1/analyze/timeseries', { body: period({ date_start: '2020-01-01', date_end: '2023-01-01' }) });
    expect(exact.status).toBe(200);
  });

  it('newbuilding / disappearbuilding polygon over 30,000 km² → 400; just under is accepted', async () => {
    // 2° × 2° at the equator ≈ 49,000 km²; 1.5° × 1.5° ≈ 27,700 km².
    const big = 'POLYGON ((10 0, 12 0, 12 2, 10 2, 10 0))';
    const ok = 'POLYGON ((10 0, 11.5 0, 11.5 1.5, 10 1.5, 10 0))';
    for (const e of ['newbuilding', 'disappearbuilding']) {
      const res = await t.http('POST', `/api/v1/detect/${e}`, { body: period({ polygon: big }) });
      expect(res.status).toBe(400);
      expect(res.json.error.message).toMatch(/30000 km²/);
      expect((await t.http('POST', `/api/v1/detect/${e}`, { body: period({ polygon: ok }) })).status).toBe(200);
    }
  });

  it('ship / oilslick polygon limit is configuration (default 100,000 km²)', async () => {
    const huge = 'POLYGON ((0 0, 4 0, 4 4, 0 4, 0 0))'; // ≈ 197,000 km²
    const res = await t.http('POST', '/api/v1/analyze/ship', { body: ship({ polygon: huge, date: '2022-06-12' }) });
    expect(res.status).toBe(400);
    expect(res.json.error.message).toMatch(/100000 km² for ship/);
  });
});

describe('malformed requests (spec: Errors; DESIGN: error envelope)', () => {
  it('invalid JSON → 400 VALIDATION_ERROR', async () => {
    const res = await t.http('POST', '/api/v1/analyze/ship', { rawBody: '{"satellite_id": ', headers: { 'Content-Type': 'application/json' } });
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe('VALIDATION_ERROR');
  });

  it('a body that is not an object → 400 VALIDATION_ERROR', async () => {
    const res = await t.http('POST', '/api/v1/analyze/ship', { rawBody: '[1,2]', headers: { 'Content-Type': 'application/json' } });
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe('VALIDATION_ERROR');
  });

  it('a non-JSON content type → 415 UNSUPPORTED_MEDIA_TYPE', async () => {
    const res = await t.http('POST', '/api/v1/analyze/ship', { rawBody: 'satellite_id=sentinel-1', headers: { 'Content-Type': 'application/x-www-form-urlencoded' } });
    expect(res.status).toBe(415);
    expect(res.json.error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  it('a body over the request size limit → 413 PAYLOAD_TOO_LARGE', async () => {
    const ring = Array.from({ length: 100_000 }, (_, i) => `${(2.5 + i * 1e-7).toFixed(7)} 51.3`).join(', ');
    const res = await t.http('POST', '/api/v1/analyze/ship', { body: ship({ polygon: `POLYGON ((${ring}))`, date: '2022-06-12' }) });
    expect(res.status).toBe(413);
    expect(res.json.error.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('unknown routes → 404 NOT_FOUND with the envelope, including unknown endpoints', async () => {
    for (const p of ['/api/v1/analyze/cars', '/api/v2/jobs', '/nothing-here']) {
      const res = await t.http('POST', p, { body: {} });
      expect(res.status, p).toBe(404);
      expect(res.json.error.code).toBe('NOT_FOUND');
    }
  });

  it('validation failures create no job and consume no credits', async () => {
    await settleAll(t.client);
    const before = await t.client.listJobs();
    const balance = (await t.client.preview('timeseries', period())).credits.balance;
    await t.http('POST', '/api/v1/analyze/timeseries', { body: period({ polygon: SMALL_SQUARE }) });
    expect((await t.client.listJobs()).jobs[0].job_id).toBe(before.jobs[0]?.job_id);
    expect((await t.client.preview('timeseries', period())).credits.balance).toBe(balance);
  });
});

describe('idempotent submission (Idempotency-Key: never a double job or charge on retry)', () => {
  const body = { satellite_id: 'sentinel-1' as const, polygon: SMALL_SQUARE, date: '2022-06-12' };

  it('the same key and body return the same job; credits are reserved once', async () => {
    await settleAll(t.client);
    const balance = (await t.client.preview('ship', body)).credits.balance;
    const first = await t.client.submit('detect', 'ship', body, { idempotencyKey: 'retry-1' });
    const second = await t.client.submit('detect', 'ship', body, { idempotencyKey: 'retry-1' });
    expect(second.job_id).toBe(first.job_id);
    expect(second.created_at).toBe(first.created_at);
    await settleAll(t.client);
    const jobs = (await t.client.listJobs({ limit: 30 })).jobs.filter((j) => j.job_id === first.job_id);
    expect(jobs).toHaveLength(1);
    expect((await t.client.preview('ship', body)).credits.balance).toBe(balance); // the job failed (the fixture scene has no pixels): released once
  });

  it('concurrent retries with one key create one job', async () => {
    const ids = await Promise.all(Array.from({ length: 5 }, () => t.client.submit('detect', 'ship', body, { idempotencyKey: 'race-1' })));
    expect(new Set(ids.map((r) => r.job_id)).size).toBe(1);
  });

  it('the same key with a different request is 409 IDEMPOTENCY_KEY_REUSED; keys are per account', async () => {
    await t.client.submit('detect', 'ship', body, { idempotencyKey: 'k-2' });
    const res = await t.http('POST', '/api/v1/detect/oilslick', { body, headers: { 'Idempotency-Key': 'k-2' } });
    expect(res.status).toBe(409);
    expect(res.json.error.code).toBe('IDEMPOTENCY_KEY_REUSED');
    const other = await t.newAccount({ credits: 1000 });
    const theirs = await other.client.submit('detect', 'ship', body, { idempotencyKey: 'k-2' });
    expect(theirs.status).toBe('pending');
  });

  it('an empty or over-long key is 400 VALIDATION_ERROR', async () => {
    for (const key of ['x'.repeat(256)]) {
      const res = await t.http('POST', '/api/v1/detect/ship', { body, headers: { 'Idempotency-Key': key } });
      expect(res.status).toBe(400);
      expect(res.json.error.code).toBe('VALIDATION_ERROR');
    }
  });
});
