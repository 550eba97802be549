/**
 * Issue 13, Shared limits: when the Redis behind the shared rate limits stops answering, an
 * API request gets 503 SERVICE_UNAVAILABLE in the envelope with Retry-After — the
 * deployment's trouble, not the client's, and not a 500 — and never goes through unlimited.
 * A private redis-server (its own port) is started and killed here; the shared one is not
 * touched.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { startTestService, type TestService } from '../helpers/service.ts';
import { ensureRedis, uniqueQueueName } from '../helpers/services.ts';
import { createRegistry } from '../../src/endpoints/analysisRegistry.ts';
import { freePort } from '../../bench/freePort.ts';

let redis: ChildProcess | null = null;
let service: TestService;

beforeAll(async () => {
  await ensureRedis(); // installs nothing here, but fails clearly where redis-server is missing
  const port = await freePort();
  redis = spawn('redis-server', ['--bind', '127.0.0.1', '--port', String(port), '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  const url = `redis://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    probe.on('error', () => {});
    try {
      await probe.connect();
      await probe.ping();
      probe.disconnect();
      break;
    } catch {
      probe.disconnect();
      if (i > 50) throw new Error('the private redis-server did not start');
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  service = await startTestService(
    { REDIS_URL: url, SARWATCH_QUEUE_NAME: uniqueQueueName(), SARWATCH_RATE_LIMIT_PER_MINUTE: '100' },
    { registry: createRegistry([]), roles: { api: true, worker: false }, scenes: [] },
  );
}, 60_000);

afterAll(async () => {
  if (redis && redis.exitCode === null) redis.kill('SIGKILL');
  await service?.close();
});

describe('shared rate limits with Redis gone', () => {
  it('a request is answered 503 SERVICE_UNAVAILABLE with Retry-After in the envelope, not 500', async () => {
    expect((await service.http('GET', '/api/v1/jobs', { key: service.apiKey })).status).toBe(200);
    const exited = new Promise((r) => redis!.once('exit', r));
    redis!.kill('SIGKILL');
    await exited;
    const res = await service.http('GET', '/api/v1/jobs', { key: service.apiKey });
    expect(res.status).toBe(503);
    expect(res.json.error.code).toBe('SERVICE_UNAVAILABLE');
    expect(res.json.error.message).toMatch(/rate limiter/);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // A wrong key is refused the same way: the failed-auth throttle cannot count either.
    const wrong = await service.http('GET', '/api/v1/jobs', { key: 'sk_wrong' });
    expect(wrong.status).toBe(503);
  }, 60_000);
});
