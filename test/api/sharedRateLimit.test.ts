/**
 * Issue 13, Shared limits: with REDIS_URL the per-key request limit and the per-address
 * failed-auth throttle count in Redis, so two API instances of one deployment (here in one
 * process, one store, one Redis, a key prefix of their own) draw on one budget.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { Queue } from 'bullmq';
import { startTestService, type TestService } from '../helpers/service.ts';
import { REDIS_URL, ensureRedis, uniqueQueueName } from '../helpers/services.ts';
import { createRegistry } from '../../src/endpoints/analysisRegistry.ts';
import { storeUrl } from '../../src/runtime.ts';

const LIMIT = 5;
const AUTH_FAILURES = 2;
const queueName = uniqueQueueName();
let a: TestService;
let b: TestService;

beforeAll(async () => {
  await ensureRedis();
  const env = {
    REDIS_URL,
    SARWATCH_QUEUE_NAME: queueName,
    SARWATCH_RATE_LIMIT_PER_MINUTE: String(LIMIT),
    SARWATCH_AUTH_FAILURES_PER_MINUTE: String(AUTH_FAILURES),
  };
  const apiOnly = { registry: createRegistry([]), roles: { api: true, worker: false }, scenes: [] };
  a = await startTestService(env, apiOnly);
  // The second instance uses the first one's store, so the same API key works on both.
  b = await startTestService({ ...env, DATABASE_URL: storeUrl(a.config) }, apiOnly);
});

afterAll(async () => {
  await b?.close();
  await a?.close();
  const redis = new Redis(REDIS_URL);
  const keys = await redis.keys(`${queueName}:rate:*`);
  if (keys.length) await redis.del(...keys);
  await redis.quit();
  const q = new Queue(queueName, { connection: { url: REDIS_URL } });
  await q.obliterate({ force: true });
  await q.close();
});

describe('rate limits shared through Redis', () => {
  it(`a limit of ${LIMIT} per key across both instances: exactly ${LIMIT} successes, then 429 with Retry-After on either`, async () => {
    const statuses: number[] = [];
    for (let i = 0; i < LIMIT + 2; i++) {
      const res = await (i % 2 === 0 ? a : b).http('GET', '/api/v1/jobs', { key: a.apiKey });
      statuses.push(res.status);
      if (res.status === 429) {
        expect(res.json.error.code).toBe('RATE_LIMITED');
        const retryAfter = Number(res.headers.get('retry-after'));
        expect(retryAfter).toBeGreaterThanOrEqual(1);
        expect(retryAfter).toBeLessThanOrEqual(60);
      }
    }
    expect(statuses).toEqual([...Array(LIMIT).fill(200), 429, 429]);
  });

  it(`${AUTH_FAILURES} failed authentications on one instance block the address's failures on the other, not its valid keys`, async () => {
    expect((await a.http('GET', '/api/v1/jobs', { key: 'sw_wrong' })).status).toBe(401);
    expect((await b.http('GET', '/api/v1/jobs', { key: 'sw_wrong' })).status).toBe(401);
    const blocked = await b.http('GET', '/api/v1/jobs', { key: 'sw_wrong' });
    expect(blocked.status).toBe(429);
    expect(blocked.json.error.message).toMatch(/failed authentications/);
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect((await a.http('GET', '/api/v1/jobs', { key: null })).status).toBe(429);
    const other = await b.newAccount();
    expect((await a.http('GET', '/api/v1/jobs', { key: other.apiKey })).status).toBe(200);
  });
});
