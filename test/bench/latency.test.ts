import { describe, expect, it } from 'vitest';
import { correctedForOmission, percentile } from '../../bench/latency.ts';

describe('bench latency (issue 13: GET p99 at a fixed rate)', () => {
  it('adds the requests a slow answer held back, one per missed interval', () => {
    // 50 ms interval: a 160 ms answer held back the requests due at 50, 100 and 150 ms,
    // which would have waited 110, 60 and 10 ms; HdrHistogram counts those ≥ the interval.
    expect(correctedForOmission([160, 2, 3], 50)).toEqual([2, 3, 60, 110, 160]);
    expect(correctedForOmission([49, 50], 50)).toEqual([49, 50]);
  });

  it('takes percentiles of ascending values', () => {
    const values = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(percentile(values, 0.5)).toBe(51);
    expect(percentile(values, 0.99)).toBe(100);
    expect(percentile([], 0.5)).toBeNaN();
    expect(() => correctedForOmission([1], 0)).toThrow(/positive/);
  });
});
