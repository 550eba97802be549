/**
 * Issue 10, item 7: the idempotency hash does not depend on key order.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SMALL_SQUARE, startTestService, type TestService } from '../helpers/service.ts';
import { canonicalJson } from '../../src/jobs/canonicalJson.ts';

let t: TestService;
beforeAll(async () => {
  t = await startTestService({ SARWATCH_MAX_CONCURRENT_JOBS: '50' }, { credits: 100_000 });
});
afterAll(() => t.close());


describe('issue 10.7: the idempotency hash does not depend on key order', () => {
  it('the same body with its keys in another order returns the same job', async () => {
    const a = '{"satellite_id":"sentinel-1","polygon":"' + SMALL_SQUARE + '","date":"2022-06-12","date_direction":"before"}';
    const b = '{"date_direction":"before","date":"2022-06-12","polygon":"' + SMALL_SQUARE + '","satellite_id":"sentinel-1"}';
    const headers = { 'Content-Type': 'application/json', 'Idempotency-Key': 'order-1' };
    const first = await t.http('POST', '/api/v1/detect/ship', { rawBody: a, headers });
    const second = await t.http('POST', '/api/v1/detect/ship', { rawBody: b, headers });
    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    expect(second.json.job_id).toBe(first.json.job_id);
    // A different value is still a different request.
    const changed = await t.http('POST', '/api/v1/detect/ship', { rawBody: b.replace('before', 'after'), headers });
    expect(changed.status).toBe(409);
  });

  it('canonical JSON sorts keys recursively and keeps array order', () => {
    expect(canonicalJson({ b: 2, a: { d: [3, { z: 1, y: 2 }], c: null } })).toBe('{"a":{"c":null,"d":[3,{"y":2,"z":1}]},"b":2}');
    expect(canonicalJson(['x', { b: 1, a: 2 }])).toBe('["x",{"a":2,"b":1}]');
  });
});
