/**
 * Fixed one-minute windows counting events per key: requests per API key, failed
 * authentications per client address. In-process: each API process counts its own (the
 * scaled-out mode divides the budget by process count or moves this counter to Redis).
 * Time comes from `clock`, so tests move it instead of sleeping.
 */
export type Clock = () => number;

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

  /** Like `hit`, without counting: whether `key` has already used up this window. */
  exhausted(key: string): number | null {
    const now = this.clock();
    const w = this.windows.get(key);
    return w && w.start === windowStart(now) && w.count >= this.perMinute ? this.retryAfter(w.start, now) : null;
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
