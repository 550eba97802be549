/**
 * Per-key request rate limit, fixed one-minute windows. In-process: each API process
 * counts its own requests (the scaled-out mode divides the budget by process count or
 * moves this counter to Redis).
 */
import { ApiError } from '../contract/errors.ts';

export class RateLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(private readonly perMinute: number) {}

  /** Counts one request; throws RATE_LIMITED with Retry-After when over the budget. */
  hit(key: string, now = Date.now()): void {
    const windowStart = now - (now % 60_000);
    let w = this.windows.get(key);
    if (!w || w.start !== windowStart) {
      w = { start: windowStart, count: 0 };
      this.windows.set(key, w);
      if (this.windows.size > 10_000) this.prune(windowStart);
    }
    w.count++;
    if (w.count > this.perMinute) {
      const retryAfter = Math.max(1, Math.ceil((windowStart + 60_000 - now) / 1000));
      throw new ApiError('RATE_LIMITED', `rate limit of ${this.perMinute} requests per minute exceeded; retry in ${retryAfter} s`, undefined, retryAfter);
    }
  }

  private prune(current: number): void {
    for (const [k, w] of this.windows) if (w.start !== current) this.windows.delete(k);
  }
}
