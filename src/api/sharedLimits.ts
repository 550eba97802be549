/**
 * With `REDIS_URL`, the request limit and the failed-auth throttle count in Redis, shared by
 * every API process of the deployment. The keys start with the queue name, which already
 * tells deployments sharing one Redis apart.
 */
import { Redis } from 'ioredis';
import type { Config } from '../config.ts';
import type { RateLimit } from './rateLimit.ts';
import { RedisRateLimit } from './redisRateLimit.ts';

export interface SharedRateLimits {
  limits: { requests: RateLimit; failures: RateLimit };
  close(): Promise<void>;
}

export function sharedRateLimits(config: Config): SharedRateLimits {
  // One retry: with Redis down a request fails (503, redisRateLimit.ts) within a reconnect, not after twenty.
  const redis = new Redis(config.redisUrl, { maxRetriesPerRequest: 1 });
  // ioredis reconnects by itself; a lost connection surfaces in the failing command (and in
  // /readyz), so the client's error event needs a listener only to not be "unhandled".
  redis.on('error', () => {});
  const prefix = `${config.queueName}:rate`;
  return {
    limits: {
      requests: new RedisRateLimit(config.rateLimitPerMinute, redis, `${prefix}:requests`),
      failures: new RedisRateLimit(config.authFailuresPerMinute, redis, `${prefix}:auth-failures`),
    },
    async close() {
      await redis.quit();
    },
  };
}
