import { describe, expect, it } from 'vitest';
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
