// The sea/land segmenter's feature planes (seaLand.ts seaLandFeatures) against their plain form
// written out here — cell sums as one raster, the dark level from a sorted copy, db per value,
// every box statistic by boxMean — bit for bit, on scenes that reach the cheaper form's special
// cases: no-data cells and rows, anisotropic cells, ragged edges, cell levels at exactly 0, 3 and
// 9 dB over the dark level (the table's fallbacks), and a window too small for its radii.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DB_SLACK, SEA_LAND_FEATURE_COUNT, cellGrid, dbOverDark, deferredSeaLandField, landProbability, releaseSeaLandField, resolveLandField, seaLandFeatures, seaLandField, withLandDistance } from '../../src/analysis/ship/seaLand.ts';
import { BoxScratch, boxMean } from '../../src/raster/boxMean.ts';
import { gammaClutter } from './synthSea.ts';

const db = (x: number) => 10 * Math.log10(Math.max(x, 1e-12));

/** seaLandFeatures' planes the plain way (its form before issue 23 §5's cheaper one). */
function plainPlanes(values: Float32Array, target: Uint8Array, width: number, height: number, spacing: { range: number; azimuth: number }): Float32Array {
  const g = cellGrid(width, height, spacing);
  const m = g.rows * g.cols;
  const s1 = new Float64Array(m);
  const s2 = new Float64Array(m);
  const cnt = new Uint32Array(m);
  for (let r = 0; r < height; r++)
    for (let c = 0; c < width; c++) {
      const p = r * width + c;
      if (target[p] === 0) continue;
      const k = Math.floor(r / g.cellRows) * g.cols + Math.floor(c / g.cellCols);
      s1[k]! += values[p]!;
      s2[k]! += values[p]! * values[p]!;
      cnt[k]!++;
    }
  const valid = new Uint8Array(m);
  const mean = new Float32Array(m);
  const cv = new Float32Array(m);
  const means: number[] = [];
  for (let k = 0; k < m; k++) {
    if (cnt[k] === 0) continue;
    valid[k] = 1;
    const mu = s1[k]! / cnt[k]!;
    mean[k] = mu;
    cv[k] = mu > 0 ? Math.sqrt(Math.max(0, s2[k]! / cnt[k]! - mu * mu)) / mu : 0;
    means.push(mu);
  }
  const planes = new Float32Array(SEA_LAND_FEATURE_COUNT * m).fill(Number.NaN);
  if (!means.length) return planes;
  const sorted = Float64Array.from(means).sort();
  const dark = Math.max(sorted[Math.floor(0.1 * (sorted.length - 1))]!, 1e-12);
  const level = db(sorted[sorted.length >> 1]! / dark);
  const plane = (j: number) => planes.subarray(j * m, (j + 1) * m);
  const cdb = new Float32Array(m);
  const cdb2 = new Float32Array(m);
  const bright = new Float32Array(m);
  const darkCell = new Float32Array(m);
  for (let k = 0; k < m; k++) {
    if (!valid[k]) continue;
    const d = db(mean[k]! / dark);
    cdb[k] = d;
    cdb2[k] = d * d;
    bright[k] = d >= 9 ? 1 : 0;
    darkCell[k] = d <= 3 ? 1 : 0;
    plane(0)[k] = d;
    plane(1)[k] = cv[k]!;
    plane(15)[k] = level;
  }
  const box = (src: Float32Array, r: number) => boxMean(src, valid, g.cols, g.rows, r, r, new Float32Array(m), { scratch: new BoxScratch() });
  [1, 3, 7, 15].forEach((r, j) => {
    const a = box(mean, r);
    for (let k = 0; k < m; k++) if (valid[k]) plane(2 + j)[k] = db(a[k]! / dark);
  });
  [1, 3, 7].forEach((r, j) => {
    const a = box(cdb, r);
    const b = box(cdb2, r);
    for (let k = 0; k < m; k++) if (valid[k]) plane(6 + j)[k] = Math.sqrt(Math.max(0, b[k]! - a[k]! * a[k]!));
  });
  [3, 7, 15].forEach((r, j) => {
    plane(9 + j).set(box(bright, r));
    plane(12 + j).set(box(darkCell, r));
  });
  return planes;
}

const sha = (a: Float32Array) => createHash('sha256').update(new Uint8Array(a.buffer, a.byteOffset, a.byteLength)).digest('hex');

/** Sea, textured land, a pier, bright vessels; no-data at the right edge, in a block and in whole rows. */
function scene(W: number, H: number, seed: number): { values: Float32Array; valid: Uint8Array } {
  const values = gammaClutter(W, H, { looks: 4, seed, mean: 0.01 });
  const land = gammaClutter(W, H, { looks: 1, seed: seed + 1, mean: 0.4, textureShape: 0.5 });
  const valid = new Uint8Array(W * H).fill(1);
  for (let r = 0; r < H; r++)
    for (let c = 0; c < W; c++) {
      const p = r * W + c;
      if (c < 0.3 * W + 0.1 * W * Math.sin(r / 29) || (r > 0.5 * H && r < 0.55 * H && c < 0.6 * W)) values[p] = land[p]!;
      if (c >= W - 17 || (r >= 40 && r < 43) || (r > 0.7 * H && r < 0.8 * H && c > 0.5 * W && c < 0.6 * W)) valid[p] = 0;
    }
  for (let v = 0; v < 9; v++) for (let r = 30 + v * 31; r < 34 + v * 31 && r < H; r++) for (let c = Math.floor(0.7 * W); c < 0.7 * W + 12; c++) values[r * W + c] = 0.9;
  return { values, valid };
}

describe('ship sea/land feature planes: the cheaper form is the plain one bit for bit', () => {
  const cases = [
    { W: 333, H: 301, seed: 3, spacing: { range: 10, azimuth: 10 } },
    { W: 250, H: 211, seed: 4, spacing: { range: 2.5, azimuth: 14 } },
    { W: 173, H: 190, seed: 5, spacing: { range: 3, azimuth: 3 } },
  ];
  for (const c of cases) {
    it(`on a coast with no-data (${c.W} × ${c.H} px at ${c.spacing.range} × ${c.spacing.azimuth} m)`, () => {
      const { values, valid } = scene(c.W, c.H, c.seed);
      const f = seaLandFeatures(values, valid, c.W, c.H, c.spacing);
      const plain = plainPlanes(values, valid, c.W, c.H, c.spacing);
      expect(f.planes.length).toBe(plain.length);
      expect(sha(f.planes)).toBe(sha(plain));
      // Computed twice on the thread's scratch: the same again.
      expect(sha(seaLandFeatures(values, valid, c.W, c.H, c.spacing).planes)).toBe(sha(plain));
    });
  }

  it('where cell levels sit exactly on 0, 3 and 9 dB over the dark level, and on a tiny window', () => {
    // Constant 2 × 2 cells: the dark level (30 % of the cells) is 0.01's float32 exactly, the others about 10^(d/10) times it.
    const W = 120;
    const H = 80;
    const values = new Float32Array(W * H);
    const dark = Math.fround(0.01);
    const levels = [0, 3, 9, 0, 0, 20, 2.9999999, 9.0000001, 0.5, 1e-9];
    for (let r = 0; r < H; r++) for (let c = 0; c < W; c++) values[r * W + c] = dark * 10 ** (levels[(Math.floor(r / 2) * 7 + Math.floor(c / 2)) % levels.length]! / 10);
    const valid = new Uint8Array(W * H).fill(1);
    const spacing = { range: 10, azimuth: 10 };
    const f = seaLandFeatures(values, valid, W, H, spacing);
    expect(sha(f.planes)).toBe(sha(plainPlanes(values, valid, W, H, spacing)));
    const m = f.rows * f.cols;
    const cellDb = f.planes.subarray(0, m);
    expect(cellDb.filter((d) => d === 0).length).toBeGreaterThan(0.2 * m);
    expect(f.planes.subarray(9 * m, 10 * m).some((v) => v > 0)).toBe(true); // bright cells at 9 dB counted
    // Smaller than the radii, and with no target at all.
    for (const [w, h] of [[7, 5], [1, 1]] as const) {
      const v = values.subarray(0, w * h);
      expect(sha(seaLandFeatures(v, valid.subarray(0, w * h), w, h, spacing).planes)).toBe(sha(plainPlanes(v, valid.subarray(0, w * h), w, h, spacing)));
      const none = new Uint8Array(w * h);
      expect(sha(seaLandFeatures(v, none, w, h, spacing).planes)).toBe(sha(plainPlanes(v, none, w, h, spacing)));
    }
  });

  it('takes the dB over the dark level from its table to within a thousandth of DB_SLACK of db', () => {
    const bits = new Uint32Array(1);
    const f = new Float32Array(bits.buffer);
    let worst = 0;
    for (const dark of [1e-12, 3.7e-5, 0.0123, 1, 813.25]) {
      const log10Dark = Math.log10(dark);
      for (let i = 0; i < 20000; i++) {
        f[0] = dark * 10 ** ((i * 0.0173) % 90 - 40) * (1 + (i % 97) * 1e-7);
        const want = db(f[0] / dark);
        if (!(f[0] >= 2 ** -126 && f[0] < Infinity) || want <= -100) continue; // positive normal float32 values only
        worst = Math.max(worst, Math.abs(dbOverDark(bits[0]!, log10Dark) - want));
      }
    }
    expect(worst).toBeLessThan(DB_SLACK / 1000);
    for (const v of [0, -1, Number.NaN, Infinity, 1e-42]) {
      f[0] = v;
      expect(dbOverDark(bits[0]!, 0)).toBeNaN();
    }
  });

  it('reuses a released field\'s planes for the next features, every value rewritten, and refuses its deferred cells', () => {
    const spacing = { range: 10, azimuth: 10 };
    const a = scene(333, 301, 3);
    const full = seaLandField(a.values, a.valid, 333, 301, spacing).land;
    const field = withLandDistance(deferredSeaLandField(a.values, a.valid, 333, 301, spacing), spacing);
    const pending = field.deferred!.pending;
    const deferred = pending.indexOf(1);
    expect(field.deferred!.count).toBeGreaterThan(100);
    const read = pending.indexOf(1, deferred + 1);
    expect(landProbability(field, read)).toBe(full[read]);
    const buffer = field.deferred!.features.planes.buffer;
    releaseSeaLandField(field);
    releaseSeaLandField(field); // twice: nothing more
    // Decided values stay readable; a deferred cell's probability cannot be computed any more.
    expect(landProbability(field, read)).toBe(full[read]);
    expect(field.distanceM!.length).toBe(field.rows * field.cols);
    expect(() => landProbability(field, deferred)).toThrow(/released/);
    expect(() => resolveLandField(field)).toThrow(/released/);
    // The next features (a smaller scene, another cell shape) take that memory and write all of it that they use.
    const b = scene(250, 211, 4);
    const spacingB = { range: 2.5, azimuth: 14 };
    const f = seaLandFeatures(b.values, b.valid, 250, 211, spacingB);
    expect(f.planes.buffer).toBe(buffer);
    expect(sha(f.planes)).toBe(sha(plainPlanes(b.values, b.valid, 250, 211, spacingB)));
    // seaLandField gives its own planes back at once: the next, smaller features take a view of them.
    expect(sha(seaLandField(a.values, a.valid, 333, 301, spacing).land)).toBe(sha(full));
    const h = seaLandFeatures(b.values, b.valid, 250, 211, spacingB);
    expect(h.planes.buffer.byteLength).toBeGreaterThan(h.planes.byteLength);
    expect(sha(h.planes)).toBe(sha(plainPlanes(b.values, b.valid, 250, 211, spacingB)));
  });
});
