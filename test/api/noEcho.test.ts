/**
 * Issue 10, item 3: untrusted input is never echoed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SMALL_SQUARE, TINY_SQUARE, startTestService, waitForTerminal, type TestService } from '../helpers/service.ts';
import { HTTP_ERRORS, JobFailure } from '../../src/contract/errors.ts';
import { asImageryFailure } from '../../src/analysis/modules/sceneInput.ts';
import { ImageryError } from '../../src/imagery/index.ts';

let t: TestService;
beforeAll(async () => {
  t = await startTestService({ SARWATCH_MAX_CONCURRENT_JOBS: '50' }, { credits: 100_000 });
});
afterAll(() => t.close());

const shipBody = { satellite_id: 'sentinel-1', polygon: SMALL_SQUARE, date: '2022-06-12' };
const periodBody = { satellite_id: 'sentinel-1', polygon: TINY_SQUARE, date_start: '2023-01-01', date_end: '2023-12-31' };

describe('issue 10.3: messages name the field, never repeat what the client sent', () => {
  const XSS = '<img src=x onerror=alert(1)>';
  const expectNoEcho = (text: string) => {
    expect(text).not.toMatch(/<img|onerror|<script|alert\(/i);
  };

  it('analyze: a hostile scene_id fails the job SCENE_NOT_FOUND with a message that names scene_id only', async () => {
    const res = await t.http('POST', '/api/v1/analyze/ship', { body: { satellite_id: 'sentinel-1', scene_id: XSS } });
    expect(res.status).toBe(200);
    const job = await waitForTerminal(t.client, res.json.job_id);
    expect(job.status).toBe('failed');
    expect(job.error_code).toBe('SCENE_NOT_FOUND');
    expect(job.error_message).toMatch(/^scene_id is not a Sentinel-1 product name: expected MMM_BB_TTTR/);
    expectNoEcho(job.error_message!);
    const listed = (await t.client.listJobs({ limit: 30 })).jobs.find((j) => j.job_id === job.job_id)!;
    expectNoEcho(listed.error_message!);
  });

  it('detect: a hostile scene_id is 400 INVALID_SCENE without the id', async () => {
    const res = await t.http('POST', '/api/v1/detect/oilslick', { body: { satellite_id: 'sentinel-1', scene_id: XSS } });
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe('INVALID_SCENE');
    expect(res.json.error.message).toMatch(/^scene_id is not a Sentinel-1 product name/);
    expectNoEcho(res.text);
  });

  it('409 IDEMPOTENCY_KEY_REUSED does not repeat the key', async () => {
    const first = await t.http('POST', '/api/v1/detect/ship', { body: shipBody, headers: { 'Idempotency-Key': XSS } });
    expect(first.status).toBe(200);
    const res = await t.http('POST', '/api/v1/detect/oilslick', { body: shipBody, headers: { 'Idempotency-Key': XSS } });
    expect(res.status).toBe(409);
    expect(res.json.error.code).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(res.json.error.message).toBe(`this Idempotency-Key was already used for a different request (job ${first.json.job_id})`);
    expectNoEcho(res.text);
  });

  it('validation messages: unknown field names are quoted only when they are plain identifiers', async () => {
    const hostile = await t.http('POST', '/api/v1/detect/ship', { body: { ...shipBody, [XSS]: 1 } });
    expect(hostile.status).toBe(400);
    expect(hostile.json.error.message).toBe('body: unknown field (name not shown: it is not a plain identifier)');
    const plain = await t.http('POST', '/api/v1/detect/ship', { body: { ...shipBody, sceneid: 'x' } });
    expect(plain.json.error.message).toBe('body: unknown field "sceneid"');
    const badEnum = await t.http('POST', '/api/v1/detect/ship', { body: { ...shipBody, date_direction: XSS } });
    expect(badEnum.status).toBe(400);
    expectNoEcho(badEnum.text);
  });

  it('WKT, JSON, list filters, scene filters, dates, job ids and unknown paths are not echoed', async () => {
    const responses = [
      await t.http('POST', '/api/v1/detect/newbuilding', { body: { ...periodBody, polygon: `POLYGON ((0 0, ${XSS}))` } }),
      await t.http('POST', '/api/v1/detect/newbuilding', { body: { ...periodBody, polygon: `POLYGON ((0 0, 1 0, 1 1${XSS}, 0 0))` } }),
      await t.http('POST', '/api/v1/detect/newbuilding', { body: { ...periodBody, polygon: `${XSS} ((0 0, 1 0, 1 1, 0 0))` } }),
      await t.http('POST', '/api/v1/detect/newbuilding', { body: { ...periodBody, polygon: `SRID=${XSS};POLYGON ((0 0, 1 0, 1 1, 0 0))` } }),
      await t.http('POST', '/api/v1/detect/ship', { rawBody: `{"satellite_id": ${XSS}}`, headers: { 'Content-Type': 'application/json' } }),
      await t.http('POST', '/api/v1/detect/ship', { rawBody: `${XSS}`, headers: { 'Content-Type': 'application/json' } }),
      await t.http('GET', `/api/v1/jobs?status=${encodeURIComponent(XSS)}`),
      await t.http('GET', `/api/v1/jobs?endpoint_id=${encodeURIComponent(XSS)}`),
      await t.http('GET', `/api/v1/scenes?product_type=${encodeURIComponent(XSS)}`),
      await t.http('GET', `/api/v1/scenes?polygon=${encodeURIComponent(XSS)}`),
      await t.http('GET', `/api/v1/jobs/${encodeURIComponent(XSS)}`),
      await t.http('GET', `/api/v1/${encodeURIComponent(XSS)}`),
      await t.http('GET', `/${encodeURIComponent(XSS)}`, { key: null }),
    ];
    for (const res of responses) {
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
      expect(HTTP_ERRORS[res.json.error.code as keyof typeof HTTP_ERRORS]).toBeDefined();
      expectNoEcho(res.text);
    }
    expect(responses[0]!.json.error.message).toBe(
      'polygon: polygon is not valid WKT: expected a longitude at character 16 after "POLYGON ((0 0, ", found text that is not WKT',
    );
    expect(responses[3]!.json.error.message).toBe('polygon: polygon must be in EPSG:4326 (longitude latitude), not another SRID');
    expect(responses[6]!.json.error.message).toBe('status has an invalid value; allowed (lowercase): pending, processing, completed, failed');
    expect(responses[10]!.json.error.message).toBe('no job with this job_id (job ids are UUIDs)');
  });

  it('a scene whose pixels cannot be read fails IMAGERY_UNAVAILABLE naming the reason, not files or scene ids', () => {
    const name = 'S1A_IW_GRDH_1SDV_20220612T173329_20220612T173354_043633_05359A_EA25';
    const failure = asImageryFailure(new ImageryError('INVALID_PRODUCT', `${name}: /var/lib/sarwatch/archive/x.SAFE lacks calibration or noise XML`));
    expect(failure).toBeInstanceOf(JobFailure);
    expect((failure as JobFailure).code).toBe('IMAGERY_UNAVAILABLE');
    expect((failure as JobFailure).message).toBe("the scene's pixels cannot be read: the product is damaged or incomplete");
  });
});
