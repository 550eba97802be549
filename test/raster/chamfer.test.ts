import { describe, expect, it } from 'vitest';
import { chamferInPlace } from '../../src/raster/chamfer.ts';

describe('chamferInPlace', () => {
  it('gives axis steps, diagonals and their sums from one seed, and the cap where it is lower', () => {
    const rows = 4;
    const cols = 5;
    const d = new Float32Array(rows * cols).fill(Infinity);
    d[1 * cols + 1] = 0;
    chamferInPlace(d, rows, cols, 10, 20);
    const dd = Math.fround(Math.hypot(10, 20));
    expect(d[1 * cols + 1]).toBe(0);
    expect(d[1 * cols + 2]).toBe(20); // along a row: dx
    expect(d[2 * cols + 1]).toBe(10); // along a column: dy
    expect(d[0 * cols + 0]).toBe(dd); // diagonal
    expect(d[3 * cols + 4]).toBeCloseTo(Math.hypot(10, 20) * 2 + 20, 4); // two diagonals and a row step
    const capped = new Float32Array(rows * cols).fill(25);
    capped[0] = 0;
    chamferInPlace(capped, rows, cols, 10, 20);
    expect(capped[1]).toBe(20);
    expect(capped[4]).toBe(25); // 80 m away: the cap stands
  });
});
