import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../src/prng.ts';
import {
  LutRowInterpolator,
  NoiseRowInterpolator,
  dbToLinear,
  dbToLinearArray,
  linearToDb,
  linearToDbArray,
  type NoiseLut,
} from '../../src/imagery/index.js';

describe('LutRowInterpolator (sparse calibration LUT, bilinear per row segment)', () => {
  // f(line, pixel) = 100 + 2·line + 0.5·pixel is bilinear, so interpolation must be exact.
  const f = (line: number, pixel: number) => 100 + 2 * line + 0.5 * pixel;
  const pixels = Float64Array.from([0, 40, 80, 120, 160]);
  const vectors = [0, 667, 1335].map((line) => ({ line, pixels, values: Float32Array.from(pixels, (p) => f(line, p)) }));

  it('is exact for a bilinear field between vectors', () => {
    const lut = new LutRowInterpolator(vectors);
    const out = new Float32Array(30);
    for (const line of [0, 1, 333, 666.5, 667, 1000, 1335]) {
      lut.fillRow(line, 95, out);
      out.forEach((v, i) => expect(v).toBeCloseTo(f(line, 95 + i), 3));
    }
  });

  it('holds edge values beyond the first/last vector and pixel', () => {
    const lut = new LutRowInterpolator(vectors);
    const out = new Float32Array(4);
    lut.fillRow(2000, 158, out); // pixels 158…161: last two past pixel 160
    expect(out[0]).toBeCloseTo(f(1335, 158), 3);
    expect(out[2]).toBeCloseTo(f(1335, 160), 3);
    expect(out[3]).toBeCloseTo(f(1335, 160), 3);
    lut.fillRow(-5, -3, out);
    expect(out[0]).toBeCloseTo(f(0, 0), 3);
    expect(out[3]).toBeCloseTo(f(0, 0), 3);
  });

  it('handles vectors whose pixel samples differ (IPF ≥ 2.9 noise range vectors)', () => {
    const lut = new LutRowInterpolator([
      { line: 0, pixels: [0, 100], values: [0, 100] },
      { line: 10, pixels: [0, 50, 100], values: [10, 60, 110] },
    ]);
    const out = new Float32Array(1);
    lut.fillRow(5, 50, out);
    expect(out[0]).toBeCloseTo((50 + 60) / 2, 5);
  });
});

describe('NoiseRowInterpolator', () => {
  const noise: NoiseLut = {
    layout: 'range-azimuth',
    rangeVectors: [
      { line: 0, azimuthTime: '', pixels: Float64Array.from([0, 100]), values: Float32Array.from([1000, 1000]) },
      { line: 100, azimuthTime: '', pixels: Float64Array.from([0, 100]), values: Float32Array.from([2000, 2000]) },
    ],
    azimuthVectors: [
      { swath: 'IW1', firstAzimuthLine: 0, lastAzimuthLine: 100, firstRangeSample: 0, lastRangeSample: 49, lines: Float64Array.from([0, 100]), values: Float32Array.from([1, 2]) },
      { swath: 'IW2', firstAzimuthLine: 0, lastAzimuthLine: 100, firstRangeSample: 50, lastRangeSample: 100, lines: Float64Array.from([50]), values: Float32Array.from([0.5]) },
    ],
  };

  it('multiplies the range LUT by the azimuth LUT of the block holding each pixel', () => {
    const out = new Float32Array(4);
    new NoiseRowInterpolator(noise).fillRow(50, 48, out);
    // range: 1500 everywhere at line 50; IW1 (pixels ≤ 49) × 1.5, IW2 (≥ 50) × 0.5.
    expect(Array.from(out)).toEqual([2250, 2250, 750, 750]);
  });

  it('uses the range LUT alone for the pre-2.9 layout', () => {
    const out = new Float32Array(2);
    new NoiseRowInterpolator({ ...noise, layout: 'range', azimuthVectors: [] }).fillRow(25, 0, out);
    expect(Array.from(out)).toEqual([1250, 1250]);
  });
});

describe('rowPair / rowParts (what readCalibratedWindow interpolates as it goes)', () => {
  // Random sparse LUTs (uneven pixels and lines, one or several vectors) and azimuth blocks
  // that tile, leave gaps or overlap: fround(lerp) and fround(fround(lerp) · factor) must give
  // fillRow's values bit for bit, and overlapping blocks must be refused (null).
  const rand = mulberry32(24);
  const vector = (line: number) => {
    const pixels = [0];
    while (pixels.length < 8) pixels.push(pixels[pixels.length - 1]! + 1 + Math.floor(rand() * 60));
    return { line, azimuthTime: '', pixels: Float64Array.from(pixels), values: Float32Array.from(pixels, () => 50 + rand() * 900) };
  };
  for (let trial = 0; trial < 40; trial++) {
    it(`agrees with fillRow bit for bit (trial ${trial})`, () => {
      const lines = trial % 5 === 0 ? [7] : [0, 100 + Math.floor(rand() * 300), 500, 700 + Math.floor(rand() * 300)];
      const rangeVectors = lines.map(vector);
      const blocks = [];
      let x = Math.floor(rand() * 40);
      for (let b = 0; b < 3; b++) {
        const width = 20 + Math.floor(rand() * 120);
        const overlap = trial % 4 === 3 && b === 1 ? -10 : Math.floor(rand() * 3);
        blocks.push({
          swath: `IW${b + 1}`,
          firstAzimuthLine: Math.floor(rand() * 200),
          lastAzimuthLine: 600 + Math.floor(rand() * 400),
          firstRangeSample: x,
          lastRangeSample: x + width - 1,
          lines: Float64Array.from([0, 300, 900]),
          values: Float32Array.from([rand() + 0.5, rand() + 0.5, rand() + 0.5]),
        });
        x += width + overlap;
      }
      const noise: NoiseLut = { layout: 'range-azimuth', rangeVectors, azimuthVectors: blocks };
      const x0 = Math.floor(rand() * 100) - 10;
      // Overlap trials: a segment over all the blocks, so rows with both blocks reach the overlap.
      const width = trial % 4 === 3 ? 600 : 1 + Math.floor(rand() * 400);
      const lut = new LutRowInterpolator(rangeVectors);
      const a = new LutRowInterpolator(rangeVectors);
      const eta = new NoiseRowInterpolator(noise);
      const parts = new NoiseRowInterpolator(noise);
      const row = new Float32Array(width);
      let refused = 0;
      let checked = 0;
      let differ = 0;
      const same = (a: number, b: number) => {
        checked++;
        if (!Object.is(a, b)) differ++;
      };
      for (let line = -20; line < 1100; line += 1 + Math.floor(rand() * 40)) {
        lut.fillRow(line, x0, row);
        const p = a.rowPair(line, x0, width);
        for (let i = 0; i < width; i++) same(Math.fround(p.r0[i]! + p.t * (p.r1[i]! - p.r0[i]!)), row[i]!);
        eta.fillRow(line, x0, row);
        const q = parts.rowParts(line, x0, width);
        if (!q) {
          refused++;
          continue;
        }
        expect(q.starts[0]).toBe(0);
        expect(q.starts[q.starts.length - 1]).toBe(width);
        for (let j = 0; j < q.factors.length; j++) {
          for (let i = q.starts[j]!; i < q.starts[j + 1]!; i++) {
            same(Math.fround(Math.fround(q.r0[i]! + q.t * (q.r1[i]! - q.r0[i]!)) * q.factors[j]!), row[i]!);
          }
        }
      }
      expect(differ).toBe(0);
      expect(checked).toBeGreaterThan(width);
      if (trial % 4 !== 3) expect(refused).toBe(0);
      else expect(refused).toBeGreaterThan(0);
    });
  }
});

describe('linear ↔ dB', () => {
  it('converts both ways', () => {
    expect(linearToDb(0.01)).toBeCloseTo(-20, 12);
    expect(dbToLinear(-20)).toBeCloseTo(0.01, 15);
    expect(linearToDb(1)).toBe(0);
  });

  it('writes NaN for masked pixels in array conversions', () => {
    const db = linearToDbArray(Float32Array.from([1, 0.1, 0]), Uint8Array.from([1, 1, 0]));
    expect(db[0]).toBe(0);
    expect(db[1]).toBeCloseTo(-10, 5);
    expect(Number.isNaN(db[2])).toBe(true);
    const lin = dbToLinearArray(Float32Array.from([-10, 0]));
    expect(lin[0]).toBeCloseTo(0.1, 6);
    expect(lin[1]).toBe(1);
  });
});
