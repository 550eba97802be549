/**
 * Issue 10, item 4: authentication and scope come before body validation.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TINY_SQUARE, startTestService, type TestService } from '../helpers/service.ts';

let t: TestService;
beforeAll(async () => {
  t = await startTestService();
});
afterAll(() => t.close());

const periodBody = { satellite_id: 'sentinel-1', polygon: TINY_SQUARE, date_start: '2023-01-01', date_end: '2023-12-31' };

describe('issue 10.4: authentication and scope come before body validation', () => {
  it('a key without jobs:write gets 403 for an invalid body, a non-JSON body and at preview alike', async () => {
    const reader = await t.newAccount({ scopes: ['jobs:read'] });
    const attempts = [
      { path: '/api/v1/detect/ship', body: {} },
      { path: '/api/v1/analyze/timeseries', body: { satellite_id: 'sentinel-2' } },
      { path: '/api/v1/analyze/ship/preview', body: { nonsense: true } },
      { path: '/api/v1/analyze/newbuilding/preview', body: periodBody },
    ];
    for (const a of attempts) {
      const res = await t.http('POST', a.path, { body: a.body, key: reader.apiKey });
      expect(res.status, a.path).toBe(403);
      expect(res.json.error).toEqual({ code: 'FORBIDDEN', message: 'this API key lacks the jobs:write scope' });
    }
    const notJson = await t.http('POST', '/api/v1/detect/ship', { rawBody: 'x', headers: { 'Content-Type': 'text/plain' }, key: reader.apiKey });
    expect(notJson.status).toBe(403);
  });

  it('a key limited to some endpoints gets 403 on the others before validation, at submission and preview', async () => {
    const shipOnly = await t.newAccount({ endpoints: ['ship'] });
    for (const p of ['/api/v1/analyze/timeseries', '/api/v1/detect/oilslick', '/api/v1/analyze/oilslick/preview']) {
      const res = await t.http('POST', p, { body: { invalid: 1 }, key: shipOnly.apiKey });
      expect(res.status, p).toBe(403);
      expect(res.json.error.code).toBe('FORBIDDEN');
    }
    // Its own endpoint reaches validation.
    expect((await t.http('POST', '/api/v1/analyze/ship/preview', { body: { invalid: 1 }, key: shipOnly.apiKey })).status).toBe(400);
  });

  it('401 still comes before 403, and 403 before 404 on reads', async () => {
    const anonymous = await t.http('POST', '/api/v1/detect/ship', { body: {}, key: null });
    expect(anonymous.status).toBe(401);
    const writer = await t.newAccount({ scopes: ['jobs:write'] });
    const read = await t.http('GET', '/api/v1/jobs/not-a-job', { key: writer.apiKey });
    expect(read.status).toBe(403);
    expect(read.json.error.message).toBe('this API key lacks the jobs:read scope');
  });
});
