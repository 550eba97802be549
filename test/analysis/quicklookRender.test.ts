// The quicklook render's dB (render.ts toDb: a table and a short series, Math.log10 where the
// two could round apart) is fround(10 · Math.log10(v)) bit for bit: on every power of two, on
// random float32 bit patterns (every sign, exponent and mantissa), on σ0-like values and on
// values within a dB of 0 dB (where a float32's step is finest and the fallback most used).
import { describe, expect, it } from 'vitest';
import { toDb } from '../../src/analysis/quicklook/render.ts';

/** What the render stored before the table: 10 · Math.log10 of each positive value, NaN elsewhere. */
function reference(values: Float32Array): Float32Array {
  const out = new Float32Array(values.length);
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    out[i] = v > 0 ? 10 * Math.log10(v) : Number.NaN;
  }
  return out;
}

/** Elements whose bits differ (any NaN equals any NaN). */
function differing(a: Float32Array, b: Float32Array): number {
  let n = 0;
  for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i]) && !(Number.isNaN(a[i]) && Number.isNaN(b[i]))) n++;
  return n;
}

/** xorshift32: the same values every run. */
function generator(seed: number): () => number {
  let s = seed;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return s >>> 0;
  };
}

describe('quicklook render: toDb', () => {
  it('equals fround(10 · Math.log10(v)) bit for bit, NaN where v is not positive', () => {
    const next = generator(2026_12_07);
    const n = 3_000_000;
    const values = new Float32Array(n);
    const bits = new Uint32Array(values.buffer);
    let at = 0;
    // Every power of two, its neighbours, and the special values.
    for (let e = -149; e <= 127; e++) {
      values[at++] = 2 ** e;
      values[at] = 2 ** e;
      bits[at]! += 1;
      at++;
    }
    for (const v of [0, -0, 1, 10, 100, 0.1, 1e-5, 1e-45, 1e-40, 1.17549435e-38, 3.4028235e38, Infinity, -Infinity, Number.NaN, -1, -1e-5]) values[at++] = v;
    // A third random bits, a third σ0-like (−52 … +10 dB), a third within a dB of 0 dB.
    const third = Math.floor((n - at) / 3);
    for (let i = 0; i < third; i++) bits[at++] = next();
    for (let i = 0; i < third; i++) values[at++] = 10 ** ((next() / 2 ** 32) * 6.2 - 5.2);
    while (at < n) values[at++] = 10 ** ((next() / 2 ** 32 - 0.5) * 0.2);
    const expected = reference(values);
    const db = values.slice();
    toDb(db);
    expect(differing(db, expected)).toBe(0);
    // Not vacuous: the values span the range, and NaN only where there was no positive value.
    let nan = 0;
    let positive = 0;
    for (let i = 0; i < n; i++) {
      if (Number.isNaN(db[i])) nan++;
      if (values[i]! > 0) positive++;
    }
    expect(nan).toBe(n - positive);
    expect(positive).toBeGreaterThan(0.8 * n);
  });

  it('converts a subarray in place and leaves the rest of its buffer alone', () => {
    const values = Float32Array.of(7, 0.01, 2, 0.5, 7);
    const view = values.subarray(1, 4);
    const expected = reference(view);
    toDb(view);
    expect(differing(view, expected)).toBe(0);
    expect([values[0], values[4]]).toEqual([7, 7]);
  });
});
