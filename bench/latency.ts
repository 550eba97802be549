/**
 * Latency percentiles for the benches that time requests.
 */

/** The value at quantile q (0–1) of ascending values; NaN when there are none. */
export function percentile(sorted: number[], q: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

/**
 * Response times of a fixed-rate run, corrected for coordinated omission the way
 * HdrHistogram's recordValueWithExpectedInterval does: a connection that sends one request
 * every `intervalMs` and waited `v` > intervalMs for an answer did not send the requests it
 * was due to send meanwhile; each of those is counted with the latency it would have seen
 * (v − intervalMs, v − 2·intervalMs, … while ≥ intervalMs). Returned ascending.
 *
 * The bench does this itself because autocannon 9.0.0 passes `Math.ceil(1 / rate)` as the
 * interval (lib/run.js), with `rate` in requests per second per connection: 1 ms whatever
 * the rate, so one 60 ms answer at 20 req/s per connection becomes 60 samples of 1–60 ms
 * instead of one more of 10 ms, and a handful of slow answers move the p99.
 */
export function correctedForOmission(responseMs: readonly number[], intervalMs: number): number[] {
  if (!(intervalMs > 0)) throw new Error(`interval must be positive, got ${intervalMs}`);
  const out: number[] = [];
  for (const v of responseMs) {
    out.push(v);
    for (let missed = v - intervalMs; missed >= intervalMs; missed -= intervalMs) out.push(missed);
  }
  return out.sort((a, b) => a - b);
}
