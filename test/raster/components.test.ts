import { describe, expect, it } from 'vitest';
import { ComponentScratch, componentLabels, connectedComponents } from '../../src/raster/components.ts';

// Golden fixtures worked out by hand from the documented fill: depth-first with a stack,
// neighbours pushed in raster order of the 3 × 3 neighbourhood, components numbered by their
// start pixel. Callers depend on the exact pixel order (ship shapes sum floats in it, the
// vectoriser scans holes in it), so these are written out, not recomputed.

// 5 × 4; indices:  0  1  2  3  4 /  5  6  7  8  9 / 10 11 12 13 14 / 15 16 17 18 19
const W = 5;
const H = 4;
const MASK = Uint8Array.from([
  1, 1, 0, 0, 1,
  0, 1, 0, 1, 0,
  0, 0, 0, 0, 0,
  2, 0, 1, 1, 0,
]);

const parts = (c: { count: number; pixels: Int32Array; offsets: Int32Array }): number[][] =>
  Array.from({ length: c.count }, (_, k) => Array.from(c.pixels.subarray(c.offsets[k]!, c.offsets[k + 1]!)));

describe('connectedComponents', () => {
  it('8-connectivity: components by first pixel in raster order, pixels in fill order', () => {
    const c = connectedComponents(MASK, W, H);
    expect(c.count).toBe(4);
    expect(Array.from(c.pixels)).toEqual([0, 6, 1, 4, 8, 15, 17, 18]);
    expect(Array.from(c.offsets)).toEqual([0, 3, 5, 6, 8]);
    expect(Array.from(componentLabels(c, W * H))).toEqual([
      1, 1, 0, 0, 2,
      0, 1, 0, 2, 0,
      0, 0, 0, 0, 0,
      3, 0, 4, 4, 0,
    ]);
  });

  it('4-connectivity: diagonal neighbours are separate, and the fill order follows the edges', () => {
    const c = connectedComponents(MASK, W, H, { connectivity: 4 });
    expect(parts(c)).toEqual([[0, 1, 6], [4], [8], [15], [17, 18]]);
    expect(Array.from(componentLabels(c, W * H))).toEqual([
      1, 1, 0, 0, 2,
      0, 1, 0, 3, 0,
      0, 0, 0, 0, 0,
      4, 0, 5, 5, 0,
    ]);
  });

  it("join 'equal' separates touching regions of different values; 'nonzero' joins them", () => {
    const labels = Int32Array.from([1, 2, 2, 1, 1, 2]); // 3 × 2
    expect(parts(connectedComponents(labels, 3, 2, { join: 'equal' }))).toEqual([
      [0, 4, 3],
      [1, 5, 2],
    ]);
    expect(parts(connectedComponents(labels, 3, 2))).toEqual([[0, 4, 5, 2, 3, 1]]);
  });

  it('seeds: only components holding a seed, in seed order, filled from the seed', () => {
    // 18 first; 6 next; 17 is already in 18's component, 2 is background.
    const c = connectedComponents(MASK, W, H, { seeds: [18, 6, 17, 2] });
    expect(parts(c)).toEqual([
      [18, 17],
      [6, 1, 0],
    ]);
    expect(() => connectedComponents(MASK, W, H, { seeds: [20] })).toThrow(RangeError);
    expect(() => connectedComponents(MASK, W, H, { seeds: [1.5] })).toThrow(RangeError);
  });

  it('NaN is non-zero; with equal join a NaN pixel is its own component', () => {
    const v = Float32Array.from([Number.NaN, Number.NaN, 0, 1]); // 2 × 2
    expect(parts(connectedComponents(v, 2, 2))).toEqual([[0, 3, 1]]);
    expect(parts(connectedComponents(v, 2, 2, { join: 'equal' }))).toEqual([[0], [1], [3]]);
  });

  it('a scratch gives the same answers call after call and is left clean, also after a throw', () => {
    const scratch = new ComponentScratch();
    const first = connectedComponents(MASK, W, H, { scratch });
    expect(() => connectedComponents(MASK, W, H, { scratch, seeds: [0, -1] })).toThrow(RangeError);
    const again = connectedComponents(MASK, W, H, { scratch });
    expect(parts(again)).toEqual(parts(first));
    expect(scratch.visited.every((v) => v === 0)).toBe(true);
    // A larger raster than the scratch has seen grows it.
    const big = new Uint8Array(100 * 60).fill(1);
    const c = connectedComponents(big, 100, 60, { scratch, connectivity: 4 });
    expect(c.count).toBe(1);
    expect(new Set(c.pixels).size).toBe(6000);
  });

  it('rejects a raster of the wrong size', () => {
    expect(() => connectedComponents(new Uint8Array(5), 2, 2)).toThrow(RangeError);
    expect(connectedComponents(new Uint8Array(0), 0, 0).count).toBe(0);
  });
});
