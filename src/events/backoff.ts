/**
 * When a failed delivery is tried again: exponential backoff with jitter. Attempt n (the
 * n-th failure, n ≥ 1) waits base · 2^(n−1), capped at an hour, times a random factor in
 * [0.5, 1) ("equal jitter": many deliveries failing together spread out instead of
 * retrying in lock-step against a receiver that is coming back). Retries end 24 h after the
 * event (RETRY_WINDOW_MS).
 */
export const RETRY_WINDOW_MS = 24 * 3600_000;
export const MAX_RETRY_DELAY_MS = 3600_000;

export function retryDelayMs(failures: number, baseMs: number, random: () => number = Math.random): number {
  const exponential = Math.min(baseMs * 2 ** Math.max(0, failures - 1), MAX_RETRY_DELAY_MS);
  return Math.round(exponential * (0.5 + 0.5 * random()));
}
