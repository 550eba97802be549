// db32 (src/analysis/oilslick/darkSpots.ts) must store exactly what 10 · Math.log10(max(v, 1e-6))
// stores in a Float32Array, for every float32 v: the dark spots' dB raster (and every region
// statistic after it) is pinned bit for bit.
import { describe, expect, it } from 'vitest';
import { db32 } from '../../src/analysis/oilslick/darkSpots.ts';

const reference = (v: number): number => Math.fround(10 * Math.log10(Math.max(v, 1e-6)));

describe('db32', () => {
  it('equals the float64 reference rounded to float32 over a sweep of float32 values', () => {
    const f = new Float32Array(1);
    const u = new Uint32Array(f.buffer);
    f[0] = 1e-7;
    const first = u[0]!;
    f[0] = 1e4;
    const last = u[0]!;
    let checked = 0;
    let differ = 0;
    // Every 37th float32 from 1e-7 to 1e4 (about 6.6 M values: all exponents, every table entry).
    for (let bits = first; bits <= last; bits += 37) {
      u[0] = bits;
      const v = f[0]!;
      checked++;
      if (!Object.is(db32(v), reference(v))) differ++;
    }
    expect(checked).toBeGreaterThan(6_000_000);
    expect(differ).toBe(0);
  });

  it('every float32 around 1 (results near 0 dB, where float32 steps are finest) and the edge cases', () => {
    const f = new Float32Array(1);
    const u = new Uint32Array(f.buffer);
    f[0] = 0.999;
    const first = u[0]!;
    f[0] = 1.001;
    const last = u[0]!;
    let differ = 0;
    for (let bits = first; bits <= last; bits++) {
      u[0] = bits;
      if (!Object.is(db32(f[0]!), reference(f[0]!))) differ++;
    }
    expect(differ).toBe(0);
    for (const v of [0, -0, -1, 1e-6, Math.fround(1e-6), 2 ** -130, Number.NaN, Infinity, Math.fround(3.4e38), 1, 2, 0.5]) {
      expect(Object.is(db32(v), reference(v))).toBe(true);
    }
  });
});
