// src/raster/select.ts: the k-th smallest by selection equals the typed sort's k-th value, NaN to the end.
import { describe, expect, it } from 'vitest';
import { nanToEnd, selectInPlace } from '../../src/raster/select.ts';

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}

describe('selectInPlace', () => {
  it('gives the sorted array k-th value for every k, with ties and both array types', () => {
    const r = rng(7);
    for (const Type of [Float32Array, Float64Array]) {
      for (const n of [1, 2, 3, 10, 101]) {
        const base = new Type(n);
        for (let i = 0; i < n; i++) base[i] = Math.floor(r() * 8) - 3; // many ties, negatives
        const sorted = base.slice().sort();
        for (let k = 0; k < n; k++) {
          const a = base.slice();
          const v = selectInPlace(a, n, k);
          expect(v).toBe(sorted[k]);
          for (let i = 0; i < k; i++) expect(a[i]!).toBeLessThanOrEqual(v);
          for (let i = k + 1; i < n; i++) expect(a[i]!).toBeGreaterThanOrEqual(v);
        }
      }
    }
  });

  it('nanToEnd counts the numbers and leaves them first', () => {
    const a = new Float64Array([3, Number.NaN, 1, Number.NaN, 2]);
    const m = nanToEnd(a, a.length);
    expect(m).toBe(3);
    expect(Array.from(a.subarray(0, m)).sort()).toEqual([1, 2, 3]);
    expect(Number.isNaN(a[3]!) && Number.isNaN(a[4]!)).toBe(true);
    expect(selectInPlace(a, m, 1)).toBe(2);
  });
});
