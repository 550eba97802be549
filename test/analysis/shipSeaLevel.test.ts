import { describe, expect, it } from 'vitest';
import { markAboveSeaLevel, median, seaLevel } from '../../src/analysis/ship/seaLevel.ts';
import { mulberry32 } from '../../src/prng.ts';
import { gammaClutter } from './synthSea.ts';

// The sea level's medians by selection must be the typed sort's medians bit for bit (issue 23
// §5: the near-shore path's cost, exactly): the reference below is the sort-based code they
// replaced.
function sortedMedian(a: Float32Array, n: number): number {
  if (n === 0) return Number.NaN;
  const s = a.subarray(0, n).sort();
  return n % 2 ? s[n >> 1]! : 0.5 * (s[(n >> 1) - 1]! + s[n >> 1]!);
}

function referenceSeaLevel(values: Float32Array, target: Uint8Array, width: number, height: number, block: number): Float32Array {
  const rows = Math.ceil(height / block);
  const cols = Math.ceil(width / block);
  const med = new Float32Array(rows * cols);
  const buf = new Float32Array(block * block);
  for (let br = 0; br < rows; br++)
    for (let bc = 0; bc < cols; bc++) {
      let n = 0;
      for (let r = br * block; r < Math.min(height, (br + 1) * block); r++)
        for (let c = bc * block; c < Math.min(width, (bc + 1) * block); c++) if (target[r * width + c] !== 0) buf[n++] = values[r * width + c]!;
      med[br * cols + bc] = sortedMedian(buf, n);
    }
  const level = new Float32Array(rows * cols);
  const nine = new Float32Array(9);
  for (let br = 0; br < rows; br++)
    for (let bc = 0; bc < cols; bc++) {
      let n = 0;
      for (let r = Math.max(0, br - 1); r <= Math.min(rows - 1, br + 1); r++)
        for (let c = Math.max(0, bc - 1); c <= Math.min(cols - 1, bc + 1); c++) {
          const v = med[r * cols + c]!;
          if (!Number.isNaN(v)) nine[n++] = v;
        }
      level[br * cols + bc] = sortedMedian(nine, n);
    }
  return level;
}

function referenceMark(values: Float32Array, target: Uint8Array, width: number, height: number, level: Float32Array, block: number, cols: number, detectFactor: number, extentFactor: number, mask: Uint8Array): number[] {
  const seeds: number[] = [];
  for (let r = 0; r < height; r++)
    for (let c = 0; c < width; c++) {
      const p = r * width + c;
      if (target[p] === 0) continue;
      const lv = level[Math.floor(r / block) * cols + Math.floor(c / block)]!;
      if (!(lv > 0)) continue;
      const v = values[p]!;
      if (v >= detectFactor * lv) {
        if (mask[p] !== 2) seeds.push(p);
        mask[p] = 2;
      } else if (v >= extentFactor * lv && mask[p] === 0) mask[p] = 1;
    }
  return seeds;
}

const bits = (a: Float32Array): Uint32Array => new Uint32Array(a.buffer, a.byteOffset, a.length);

describe('sea level (seaLevel.ts)', () => {
  it('takes the typed sort’s median, bit for bit: odd and even counts, ties, NaN, signed zeros', () => {
    const random = mulberry32(23);
    const pool = [0, -0, Number.NaN, 1e-5, 0.25, 0.5, Infinity];
    const zeros = [0, -0, -0, 1];
    for (let trial = 0; trial < 6000; trial++) {
      const n = 1 + Math.floor(random() * 40);
      const a = new Float32Array(n + 3);
      // Half the trials mostly signed zeros, which compare equal but sort −0 first.
      if (trial % 2) for (let i = 0; i < a.length; i++) a[i] = zeros[Math.floor(random() * zeros.length)]!;
      else for (let i = 0; i < a.length; i++) a[i] = random() < 0.3 ? pool[Math.floor(random() * pool.length)]! : Math.fround(random() * (random() < 0.5 ? 1 : 1e-3));
      const expected = sortedMedian(a.slice(), n);
      const got = median(a.slice(), n);
      expect(Object.is(got, expected), `n ${n}: ${Array.from(a.subarray(0, n))} → ${got}, sort ${expected}`).toBe(true);
    }
  });

  it('gives the sort-based sea level on speckled sea with land, bright blocks and partly empty blocks', () => {
    const w = 437;
    const h = 311;
    const values = gammaClutter(w, h, { looks: 4.4, seed: 5, mean: 0.01, textureShape: 2 });
    const target = new Uint8Array(w * h).fill(1);
    for (let r = 0; r < h; r++) for (let c = 0; c < w; c++) {
      if (c < 60 + r / 4) target[r * w + c] = 0; // land
      if (r > 200 && r < 230 && c > 100 && c < 300) values[r * w + c] = 2; // a quay
      if ((r * 31 + c * 17) % 97 === 0) values[r * w + c] = values[(r * w + c + 1) % (w * h)]!; // ties
    }
    for (const block of [16, 40]) {
      const got = seaLevel(values, target, w, h, block);
      const expected = referenceSeaLevel(values, target, w, h, block);
      expect(got.level.length).toBe(expected.length);
      expect(Buffer.compare(Buffer.from(bits(got.level).buffer), Buffer.from(bits(expected).buffer))).toBe(0);
      expect(got.level.some((v) => Number.isNaN(v))).toBe(true); // the all-land blocks
      // The pixels over the level: the same marks and seeds, in the same order, on top of a mask
      // already holding some (a CFAR's).
      const before = new Uint8Array(w * h);
      for (let k = 0; k < before.length; k += 13) before[k] = k % 3 === 0 ? 2 : 1;
      const mask = before.slice();
      const expectedMask = before.slice();
      const seeds = markAboveSeaLevel(values, target, w, h, got, 4, 2, mask);
      expect(seeds).toEqual(referenceMark(values, target, w, h, expected, block, got.cols, 4, 2, expectedMask));
      expect(seeds.length).toBeGreaterThan(100);
      expect(Buffer.compare(Buffer.from(mask.buffer), Buffer.from(expectedMask.buffer))).toBe(0);
    }
  });
});
