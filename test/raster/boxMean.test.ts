import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../src/prng.ts';
import { BoxScratch, boxCount, boxMean, boxMeanInPlace, boxSum, maskedBoxSums } from '../../src/raster/boxMean.ts';

// Golden fixtures worked out by hand (integer sums, so the expected means are exact; the
// Float32 outputs are compared with Math.fround of the exact quotient).

// 4 × 3
const V = Float32Array.from([
  1, 2, 3, 4,
  5, 6, 7, 8,
  9, 10, 11, 12,
]);
const VALID = Uint8Array.from([
  1, 1, 0, 1,
  1, 0, 1, 1,
  1, 1, 1, 0,
]);
const ALL = new Uint8Array(12).fill(1);
const f = (x: number): number => Math.fround(x);
const NaN_ = Number.NaN;

describe('boxMean', () => {
  it('3 × 3 window clipped at the borders, every pixel valid', () => {
    expect(Array.from(boxMean(V, ALL, 4, 3, 1, 1))).toEqual([
      3.5, 4, 5, 5.5,
      5.5, 6, 7, 7.5,
      7.5, 8, 9, 9.5,
    ]);
  });

  it('separate half-sizes along rows and columns, and windows larger than the raster', () => {
    expect(Array.from(boxMean(V, ALL, 4, 3, 1, 0))).toEqual([
      1.5, 2, 3, 3.5,
      5.5, 6, 7, 7.5,
      9.5, 10, 11, 11.5,
    ]);
    expect(Array.from(boxMean(V, ALL, 4, 3, 10, 10))).toEqual(new Array(12).fill(6.5));
  });

  it('no-data: means over valid pixels only, NaN at invalid centres', () => {
    expect(Array.from(boxMean(V, VALID, 4, 3, 1, 1))).toEqual([
      f(8 / 3), 3.75, NaN_, f(19 / 3),
      f(5.4), NaN_, 7, 7.5,
      8, f(8.4), 9, NaN_,
    ]);
  });

  it('where, minimum valid share and fallback (the dark-spot background form)', () => {
    const fallback = new Float32Array(12).fill(-1);
    expect(Array.from(boxMean(V, VALID, 4, 3, 1, 1, undefined, { where: ALL, minFraction: 0.75, fallback }))).toEqual([
      f(8 / 3), -1, -1, f(19 / 3),
      f(5.4), f(45 / 7), -1, -1,
      8, f(8.4), -1, f(26 / 3),
    ]);
    // Without a fallback a short window gives NaN; with no minimum any valid pixel will do.
    const loose = boxMean(V, VALID, 4, 3, 1, 1, undefined, { where: ALL });
    expect([loose[2], loose[5], loose[11]]).toEqual([5.25, f(45 / 7), f(26 / 3)]);
    const strict = boxMean(V, VALID, 4, 3, 1, 1, undefined, { where: ALL, minFraction: 0.75 });
    expect(strict[1]).toBeNaN();
  });

  it('a NaN value at a valid pixel adds 0 and still counts (the mask says what is data)', () => {
    const v = V.slice();
    v[0] = Number.NaN;
    const out = boxMean(v, ALL, 4, 3, 1, 1);
    expect(out[1]).toBe(f(23 / 6));
    expect(out[5]).toBe(f(53 / 9));
  });

  it('rejects arrays of the wrong size', () => {
    expect(() => boxMean(V, ALL, 4, 2, 1, 1)).toThrow(RangeError);
  });
});

describe('boxSum, boxCount, maskedBoxSums', () => {
  it('sums and sums of squares', () => {
    const src = Float64Array.from([1, 2, 3]);
    expect(Array.from(boxSum(src, 3, 1, 1, 1, new Float64Array(3)))).toEqual([3, 6, 5]);
    expect(Array.from(boxSum(src, 3, 1, 1, 1, new Float64Array(3), undefined, true))).toEqual([5, 14, 13]);
    expect(Array.from(boxSum(src, 1, 3, 0, 1, new Float64Array(3)))).toEqual([3, 6, 5]);
  });

  it('pins the summation: running sums along the row (add the entering value, drop the leaving one)', () => {
    // Exact window sums are 1e16+1, 1e16+2, 1, −1e16+2, −1e16+1; in float64 running sums give
    // −1 in the middle (summing each window left to right would give 0).
    const src = Float64Array.from([1, 1e16, 1, -1e16, 1]);
    expect(Array.from(boxSum(src, 5, 1, 1, 0, new Float64Array(5)))).toEqual([1e16, 1e16, -1, -1e16, -1e16]);
  });

  it('pins the summation down the columns too: each row from the one above, entering row added before the leaving one is dropped', () => {
    const src = Float64Array.from([1, 1e16, 1, -1e16, 1]); // one column
    expect(Array.from(boxSum(src, 1, 5, 0, 1, new Float64Array(5)))).toEqual([1e16, 1e16, -1, -1e16, -1e16]);
  });

  it('counts of valid pixels, with and without gaps', () => {
    expect(Array.from(boxCount(ALL, 4, 3, 1, 1, new Float64Array(12)))).toEqual([4, 6, 6, 4, 6, 9, 9, 6, 4, 6, 6, 4]);
    expect(Array.from(boxCount(VALID, 4, 3, 1, 1, new Float64Array(12)))).toEqual([3, 4, 4, 3, 5, 7, 6, 4, 3, 5, 4, 3]);
  });

  it('masked sums skip invalid pixels', () => {
    const { sum, sumSq } = maskedBoxSums(V, VALID, 4, 3, 0, 0, true);
    expect(Array.from(sum)).toEqual([1, 2, 0, 4, 5, 0, 7, 8, 9, 10, 11, 0]);
    expect(Array.from(sumSq!)).toEqual([1, 4, 0, 16, 25, 0, 49, 64, 81, 100, 121, 0]);
  });
});

describe('boxMean is boxSum\'s running sums over the masked values, divided (same additions, same bits)', () => {
  // The reference: boxCount and maskedBoxSums over whole rasters, then the mean per pixel —
  // a pin of boxMean's arithmetic for any faster form of it. Values span many binary
  // orders of magnitude so that the float64 running sums round (a different order of additions
  // would show in the low bits); masks are all-valid, sparse or dense, radii small, large and
  // beyond the raster. (A mutation check: adding the entering and dropping the leaving row sum
  // in the other order fails 18 of the 60 trials.)
  function reference(values: Float32Array, valid: Uint8Array, w: number, h: number, rx: number, ry: number, where: Uint8Array, minFraction: number, fallback: Float32Array | undefined): Float32Array {
    const count = boxCount(valid, w, h, rx, ry, new Float64Array(w * h));
    const { sum } = maskedBoxSums(values, valid, w, h, rx, ry, false);
    const out = new Float32Array(w * h);
    const cx = Math.min(rx, w - 1);
    const cy = Math.min(ry, h - 1);
    for (let y = 0; y < h; y++) {
      const rows = Math.min(h - 1, y + cy) - Math.max(0, y - cy) + 1;
      for (let x = 0; x < w; x++) {
        const i = y * w + x;
        const cols = Math.min(w - 1, x + cx) - Math.max(0, x - cx) + 1;
        if (!where[i]) out[i] = Number.NaN;
        else if (count[i]! > 0 && (minFraction <= 0 || count[i]! >= minFraction * rows * cols)) out[i] = sum[i]! / count[i]!;
        else out[i] = fallback ? fallback[i]! : Number.NaN;
      }
    }
    return out;
  }
  const rand = mulberry32(2024);
  for (let trial = 0; trial < 60; trial++) {
    it(`trial ${trial}`, () => {
      const w = 1 + Math.floor(rand() * 90);
      const h = 1 + Math.floor(rand() * 90);
      const n = w * h;
      // Some huge values of either sign among ordinary ones: a float64 sum then loses the small
      // ones differently for another order of additions, visible even in the float32 means.
      const values = Float32Array.from({ length: n }, () => (rand() < 0.05 ? (rand() < 0.5 ? -1 : 1) * 10 ** (12 + rand() * 6) : (rand() - 0.3) * 10 ** (rand() * 8 - 4)));
      if (trial % 7 === 0) values[Math.floor(rand() * n)] = Number.NaN;
      const density = [1, 0.97, 0.6, 0.1][trial % 4]!;
      const valid = Uint8Array.from({ length: n }, () => (rand() < density ? 1 : 0));
      const where = trial % 3 === 0 ? Uint8Array.from({ length: n }, () => (rand() < 0.8 ? 1 : 0)) : valid;
      const rx = Math.floor(rand() * (trial % 5 === 0 ? 120 : 12));
      const ry = Math.floor(rand() * (trial % 5 === 1 ? 120 : 12));
      const minFraction = trial % 2 ? 0.25 : 0;
      const fallback = trial % 4 === 1 ? Float32Array.from({ length: n }, () => rand()) : undefined;
      const expected = reference(values, valid, w, h, rx, ry, where, minFraction, fallback);
      const scratch = new BoxScratch();
      for (const count of [undefined, boxCount(valid, w, h, rx, ry, new Float64Array(n))]) {
        const got = boxMean(values, valid, w, h, rx, ry, new Float32Array(n), { where, minFraction, fallback, count, scratch });
        let differ = 0;
        for (let i = 0; i < n; i++) if (!Object.is(got[i], expected[i])) differ++;
        expect(differ).toBe(0);
      }
    });
  }
  // No-data in a few rows only (a dark-spot second pass): boxMean counts the invalid pixels
  // of those rows alone, and windows away from them take the plain area.
  const few = mulberry32(4242);
  for (let trial = 0; trial < 16; trial++) {
    it(`no-data in a few rows, trial ${trial}`, () => {
      const w = 5 + Math.floor(few() * 80);
      const h = 30 + Math.floor(few() * 80);
      const n = w * h;
      const values = Float32Array.from({ length: n }, () => (few() < 0.05 ? 10 ** (12 + few() * 6) : (few() - 0.3) * 10 ** (few() * 8 - 4)));
      const valid = new Uint8Array(n).fill(1);
      for (let k = 0; k < 1 + (trial % 3); k++) {
        const y = Math.floor(few() * h);
        for (let x = 0; x < w; x++) if (few() < 0.3) valid[y * w + x] = 0;
      }
      const rx = Math.floor(few() * 12);
      const ry = Math.floor(few() * (trial % 2 ? 40 : 8));
      const fallback = Float32Array.from({ length: n }, () => few());
      const where = new Uint8Array(n).fill(1);
      const expected = reference(values, valid, w, h, rx, ry, where, 0.9, fallback);
      const got = boxMean(values, valid, w, h, rx, ry, new Float32Array(n), { where, minFraction: 0.9, fallback, scratch: new BoxScratch() });
      let differ = 0;
      for (let i = 0; i < n; i++) if (!Object.is(got[i], expected[i])) differ++;
      expect(differ).toBe(0);
    });
  }
});

describe('boxMean changedRows (the second background pass)', () => {
  // A first call with mask `a`, then one with `b` = `a` less a few pixels, told which rows
  // changed: the same bits as a fresh call with `b`. Told too few rows, it differs (the
  // unchanged rows really are taken from the first call; checked without huge values, which
  // would hide the dropped pixels in the float32 means).
  const rand = mulberry32(77);
  for (let trial = 0; trial < 12; trial++) {
    it(`trial ${trial}`, () => {
      const w = 20 + Math.floor(rand() * 70);
      const h = 20 + Math.floor(rand() * 70);
      const n = w * h;
      const huge = trial % 3 === 0;
      const values = Float32Array.from({ length: n }, () => (huge && rand() < 0.05 ? (rand() < 0.5 ? -1 : 1) * 10 ** (12 + rand() * 6) : (rand() - 0.3) * 100));
      const a = Uint8Array.from({ length: n }, () => (rand() < (trial % 2 ? 1 : 0.9) ? 1 : 0));
      const b = a.slice();
      const changed = new Uint8Array(h);
      for (let k = 0; k < 1 + (trial % 4); k++) {
        const i = Math.floor(rand() * n);
        if (b[i]) changed[Math.floor(i / w)] = 1;
        b[i] = 0;
      }
      const rx = 1 + Math.floor(rand() * 15);
      const ry = 1 + Math.floor(rand() * 15);
      const options = { where: a, minFraction: 0.25 };
      const expected = boxMean(values, b, w, h, rx, ry, new Float32Array(n), options);
      const scratch = new BoxScratch();
      boxMean(values, a, w, h, rx, ry, new Float32Array(n), { ...options, scratch });
      const got = boxMean(values, b, w, h, rx, ry, new Float32Array(n), { ...options, scratch, changedRows: changed });
      let differ = 0;
      for (let i = 0; i < n; i++) if (!Object.is(got[i], expected[i])) differ++;
      expect(differ).toBe(0);
      if (!huge && changed.some((c) => c === 1)) {
        boxMean(values, a, w, h, rx, ry, new Float32Array(n), { ...options, scratch });
        const stale = boxMean(values, b, w, h, rx, ry, new Float32Array(n), { ...options, scratch, changedRows: new Uint8Array(h) });
        let staleDiffer = 0;
        for (let i = 0; i < n; i++) if (!Object.is(stale[i], expected[i])) staleDiffer++;
        expect(staleDiffer).toBeGreaterThan(0);
      }
    });
  }
});

describe('boxMeanInPlace (a quicklook\'s 3 × 3 mean over its own sampled raster)', () => {
  // boxMean with its default options, bit for bit, on the same kinds of rasters as above: values
  // whose float64 sums round, no-data spread out or in a few rows only, NaN at a valid pixel,
  // radii small and beyond the raster (the ring of row sums then holds every row), one row or
  // one column. One scratch across trials of different sizes, as a pool thread keeps it.
  const rand = mulberry32(77);
  const scratch = new BoxScratch();
  for (let trial = 0; trial < 40; trial++) {
    it(`trial ${trial}`, () => {
      const w = trial === 0 ? 1 : 1 + Math.floor(rand() * 90);
      const h = trial === 1 ? 1 : 1 + Math.floor(rand() * 90);
      const n = w * h;
      const values = Float32Array.from({ length: n }, () => (rand() < 0.05 ? (rand() < 0.5 ? -1 : 1) * 10 ** (12 + rand() * 6) : (rand() - 0.3) * 10 ** (rand() * 8 - 4)));
      if (trial % 7 === 0) values[Math.floor(rand() * n)] = Number.NaN;
      const valid = new Uint8Array(n);
      if (trial % 3 === 2) {
        // No-data in a few rows only.
        valid.fill(1);
        for (let k = 0; k < 1 + (trial % 4); k++) {
          const y = Math.floor(rand() * h);
          for (let x = 0; x < w; x++) if (rand() < 0.3) valid[y * w + x] = 0;
        }
      } else {
        const density = [1, 0.97, 0.6, 0.1][trial % 4]!;
        for (let i = 0; i < n; i++) valid[i] = rand() < density ? 1 : 0;
      }
      const rx = trial % 4 === 3 ? 1 : Math.floor(rand() * (trial % 5 === 0 ? 120 : 12));
      const ry = trial % 4 === 3 ? 1 : Math.floor(rand() * (trial % 5 === 1 ? 120 : 12));
      const expected = boxMean(values, valid, w, h, rx, ry);
      const got = values.slice();
      expect(boxMeanInPlace(got, valid, w, h, rx, ry, scratch)).toBe(got);
      let differ = 0;
      let nan = 0;
      for (let i = 0; i < n; i++) {
        if (!Object.is(got[i], expected[i])) differ++;
        if (Number.isNaN(got[i]!)) nan++;
      }
      expect(differ).toBe(0);
      // NaN exactly at the invalid centres (and nowhere else unless a NaN value was in the window).
      if (trial % 7 !== 0) expect(nan).toBe(n - valid.reduce((a, b) => a + b, 0));
    });
  }
  it('rejects arrays of the wrong size', () => {
    expect(() => boxMeanInPlace(new Float32Array(5), new Uint8Array(6), 3, 2, 1, 1)).toThrow(RangeError);
  });
});
