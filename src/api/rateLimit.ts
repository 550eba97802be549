/**
 * Rate limits, a port with two adapters: requests per API key and failed authentications
 * per client address. Embedded mode counts in this process (`MemoryRateLimit`, fixed
 * one-minute windows; time comes from `clock`, so tests move it instead of sleeping); with
 * `REDIS_URL` every API process shares the counts in Redis (src/api/redisRateLimit.ts).
 */
export type Clock = () => number;

export interface RateLimit {
  readonly perMinute: number;
  /** Counts one event; resolves to the seconds until `key` may go on when it is now over the budget, else null. */
  hit(key: string): Promise<number | null>;
}

/** The in-process adapter. */
export class MemoryRateLimit implements RateLimit {
  private readonly limiter: RateLimiter;
  constructor(perMinute: number, clock: Clock = Date.now) {
    this.limiter = new RateLimiter(perMinute, clock);
  }
  get perMinute(): number {
    return this.limiter.perMinute;
  }
  async hit(key: string): Promise<number | null> {
    return this.limiter.hit(key);
  }
}

const WINDOW_MS = 60_000;
const MAX_KEYS = 10_000;

export class RateLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(
    readonly perMinute: number,
    private readonly clock: Clock = Date.now,
  ) {}

  /** Counts one event; returns the seconds until the window ends when `key` is now over the budget, else null. */
  hit(key: string): number | null {
    const now = this.clock();
    const w = this.current(key, now);
    w.count++;
    return w.count > this.perMinute ? this.retryAfter(w.start, now) : null;
  }

  private current(key: string, now: number) {
    const start = windowStart(now);
    let w = this.windows.get(key);
    if (!w || w.start !== start) {
      w = { start, count: 0 };
      this.windows.set(key, w);
      if (this.windows.size > MAX_KEYS) this.prune(start);
    }
    return w;
  }

  private retryAfter(start: number, now: number): number {
    return Math.max(1, Math.ceil((start + WINDOW_MS - now) / 1000));
  }

  private prune(current: number): void {
    for (const [k, w] of this.windows) if (w.start !== current) this.windows.delete(k);
  }
}

const windowStart = (now: number) => now - (now % WINDOW_MS);
