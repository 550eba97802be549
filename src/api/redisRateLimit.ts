/**
 * The shared adapter of the rate-limit port: counts in Redis (rate-limiter-flexible's
 * RateLimiterRedis, one atomic script per event), so every API process of a deployment
 * draws on one budget. The window is 60 s from a key's first event, timed by Redis.
 */
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { Redis } from 'ioredis';
import { ApiError } from '../contract/errors.ts';
import { BACKEND_RETRY_SECONDS } from './errors.ts';
import type { RateLimit } from './rateLimit.ts';

const WINDOW_SECONDS = 60;

/**
 * Redis failing (down, restarting, unreachable) is the deployment's trouble, not the
 * client's: 503 SERVICE_UNAVAILABLE with Retry-After, as /readyz reports the broker, rather
 * than a 500 — and never a request let through unlimited.
 */
const unavailable = () => new ApiError('SERVICE_UNAVAILABLE', 'the shared rate limiter (Redis) does not answer; retry later', undefined, BACKEND_RETRY_SECONDS);

export class RedisRateLimit implements RateLimit {
  private readonly limiter: RateLimiterRedis;

  /** `keyPrefix` separates the limits (and deployments sharing one Redis) from each other. */
  constructor(
    readonly perMinute: number,
    redis: Redis,
    keyPrefix: string,
  ) {
    this.limiter = new RateLimiterRedis({ storeClient: redis, keyPrefix, points: perMinute, duration: WINDOW_SECONDS });
  }

  async hit(key: string): Promise<number | null> {
    try {
      await this.limiter.consume(key);
      return null;
    } catch (e) {
      // Over the budget the limiter rejects with its result; anything else is Redis failing.
      if (e instanceof RateLimiterRes) return retryAfter(e);
      throw unavailable();
    }
  }
}

const retryAfter = (res: RateLimiterRes) => Math.max(1, Math.ceil(res.msBeforeNext / 1000));
