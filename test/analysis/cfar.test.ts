import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { cfarDetect, cfarWindows, type CfarOptions } from '../../src/analysis/ship/cfar.ts';
import { gammaMultiplier, gammaQ, kMultiplier, kMultiplierTable, kTail, normalQuantileUpper } from '../../src/analysis/ship/distributions.ts';
import { clusterDetections } from '../../src/analysis/ship/cluster.ts';
import { mulberry32 } from '../../src/prng.ts';
import { gammaClutter } from './synthSea.ts';

const N = 1024;
const SEA = 0.005; // −23 dB, the North-Sea crop's VH level
const windows = cfarWindows({ targetWindowM: 0, guardWindowM: 500, backgroundWindowM: 800 }, { range: 10, azimuth: 10 });
const base: CfarOptions = { model: 'k', pfa: 1e-3, extentPfa: 1e-2, looks: 4.4, windows, minBackgroundFraction: 0.25, censorDilationPx: 2 };
const all = new Uint8Array(N * N).fill(1);

function rates(values: Float32Array, options: CfarOptions): { detected: number; extent: number; decided: number } {
  const r = cfarDetect({ values, target: all, width: N, height: N }, { ...options, censorDilationPx: 0 });
  let detected = 0;
  let extent = 0;
  for (const m of r.mask) {
    if (m === 2) detected++;
    if (m >= 1) extent++;
  }
  return { detected: detected / r.decided, extent: extent / r.decided, decided: r.decided };
}

describe('clutter distributions', () => {
  it('SNAP\'s design parameter: the normal quantile of PFA 10^-6.5 is 4.98', () => {
    expect(normalQuantileUpper(10 ** -6.5)).toBeCloseTo(4.981, 3);
    expect(normalQuantileUpper(0.025)).toBeCloseTo(1.96, 3);
  });

  it('gamma: one look is exponential (T = −ln PFA); Q matches closed forms', () => {
    expect(gammaMultiplier(1, 1e-3)).toBeCloseTo(-Math.log(1e-3), 6);
    expect(gammaQ(1, 2)).toBeCloseTo(Math.exp(-2), 12);
    expect(gammaQ(2, 3)).toBeCloseTo(Math.exp(-3) * (1 + 3), 12);
  });

  it('K: tends to the gamma multiplier as the texture gets uniform, and is heavier for patchy sea', () => {
    const gamma = gammaMultiplier(4.4, 1e-6);
    expect(kMultiplier(4.4, 5000, 1e-6)).toBeCloseTo(gamma, 1);
    expect(kMultiplier(4.4, 3, 1e-6)).toBeGreaterThan(2 * gamma);
    expect(kTail(4.4, 3, kMultiplier(4.4, 3, 1e-6))).toBeCloseTo(1e-6, 9);
    const table = kMultiplierTable(4.4, 1e-6);
    expect(table.multiplier(Infinity)).toBeCloseTo(gamma, 9);
    expect(table.multiplier(3) / kMultiplier(4.4, 3, 1e-6)).toBeCloseTo(1, 2);
  });
});

describe('CFAR on generated speckle', () => {
  it('K model: false-alarm rate at the PFA on homogeneous 4.4-look gamma speckle', () => {
    const values = gammaClutter(N, N, { looks: 4.4, seed: 5, mean: SEA });
    const r = rates(values, base);
    expect(r.decided).toBe(N * N);
    // 1049 false alarms expected; measured 0.97 × PFA.
    expect(r.detected / 1e-3).toBeGreaterThan(0.85);
    expect(r.detected / 1e-3).toBeLessThan(1.15);
    // The extent threshold (hysteresis) at its own PFA too.
    expect(r.extent / 1e-2).toBeGreaterThan(0.9);
    expect(r.extent / 1e-2).toBeLessThan(1.1);
  });

  it('K model: still at the PFA on K-distributed (textured, ν = 3) clutter', () => {
    const values = gammaClutter(N, N, { looks: 4.4, seed: 6, mean: SEA, textureShape: 3 });
    const r = rates(values, { ...base, pfa: 1e-4 });
    // Measured 1.11 × PFA (105 expected).
    expect(r.detected / 1e-4).toBeGreaterThan(0.7);
    expect(r.detected / 1e-4).toBeLessThan(1.5);
  });

  it('SNAP\'s Gaussian threshold on single pixels overshoots the PFA many times; log-normal undershoots', () => {
    const values = gammaClutter(N, N, { looks: 4.4, seed: 7, mean: SEA });
    const gaussian = rates(values, { ...base, model: 'gaussian', pfa: 1e-4 });
    const lognormal = rates(values, { ...base, model: 'lognormal', pfa: 1e-4 });
    expect(gaussian.detected / 1e-4).toBeGreaterThan(10); // measured 40×
    expect(lognormal.detected / 1e-4).toBeLessThan(0.2); // measured 0.00×
  });

  it('detects inserted targets and outlines them whole (hysteresis), even next to a much brighter one (censoring)', () => {
    const values = gammaClutter(N, N, { looks: 4.4, seed: 8, mean: SEA });
    // 3 × 2-pixel vessels 15 dB over the sea on a grid, one 40 dB vessel 32 px (inside the ring) from a 15 dB one.
    const targets: Array<[number, number, number]> = [];
    for (let r = 100; r < N - 100; r += 160) for (let c = 100; c < N - 100; c += 160) targets.push([r, c, 15]);
    targets.push([500, 500, 15], [500, 532, 40]);
    for (const [r, c, db] of targets) {
      for (let dr = 0; dr < 3; dr++) for (let dc = 0; dc < 2; dc++) values[(r + dr) * N + c + dc] = SEA * 10 ** (db / 10);
    }
    const result = cfarDetect({ values, target: all, width: N, height: N }, { ...base, pfa: 1e-8, extentPfa: 1e-3 });
    const clusters = clusterDetections(result.mask, values, N, N);
    for (const [r, c] of targets) {
      const hit = clusters.find((k) => k.rowMin <= r && k.rowMax >= r + 2 && k.colMin <= c && k.colMax >= c + 1);
      expect(hit, `target at ${r},${c}`).toBeDefined();
    }
    // At PFA 1e-8 on a million pixels, sea false alarms are unlikely.
    expect(clusters.length).toBeLessThanOrEqual(targets.length + 1);
    // The ring of the 15 dB vessel at (500, 500) holds the 40 dB one: without the censored second
    // pass that one pixel-pair of 10⁴ × the sea inflates the ring's variance and hides it.
    expect(result.mask[500 * N + 500]).toBe(2);
    const uncensored = cfarDetect({ values, target: all, width: N, height: N }, { ...base, pfa: 1e-8, extentPfa: 1e-3, censor: false });
    expect(uncensored.mask[500 * N + 500]).toBe(0);
  });

  it('a group of hulls in one another\'s ring: censoring the undetected vessel-sized objects of the first pass finds most', () => {
    // 5 × 5 hulls of 5 × 2 px (50 × 20 m at 10 m), 16 dB over the sea, 250 m apart: each ring
    // holds several, its second moment makes the K sea spiky and the 1e-8 threshold rises above
    // them; their pixels above the extent threshold are still objects of ≥ 35 m (3.5 px).
    const n = 512;
    const values = gammaClutter(n, n, { looks: 4.4, seed: 12, mean: SEA });
    const hulls: Array<[number, number]> = [];
    for (let i = 0; i < 5; i++) for (let j = 0; j < 5; j++) hulls.push([206 + 25 * i, 206 + 25 * j]);
    for (const [r, c] of hulls) for (let dr = 0; dr < 5; dr++) for (let dc = 0; dc < 2; dc++) values[(r + dr) * n + c + dc] = SEA * 10 ** (16 / 10);
    const options: CfarOptions = { ...base, pfa: 1e-8, extentPfa: 1e-3 };
    const found = (o: CfarOptions): number[] => {
      const r = cfarDetect({ values, target: new Uint8Array(n * n).fill(1), width: n, height: n }, o);
      return [hulls.filter(([y, x]) => r.mask[(y + 2) * n + x] === 2).length, clusterDetections(r.mask, values, n, n).length];
    };
    // [hulls detected, clusters]: the group's corners only, and parts of hulls, with the detections alone censored;
    // with the undetected objects censored too, 20 (a detected corner hull's extent stays in its neighbours' rings).
    expect(found(options)).toEqual([5, 15]);
    expect(found({ ...options, censorObjectPx: { min: { rows: 3.5, cols: 3.5 }, max: { rows: 60, cols: 60 } } })).toEqual([20, 25]);
  });

  it('censoring vessel-sized first-pass objects leaves the false-alarm rate on pure clutter as it is', () => {
    // The detector's extent PFA (1e-3), censor growth (2 px) and smallest vessel (35 m at 10 m):
    // speckle above the extent threshold does not form objects that large, so nothing more is censored.
    const detected = (values: Float32Array, pfa: number, censorObjectPx?: CfarOptions['censorObjectPx']): number =>
      cfarDetect({ values, target: all, width: N, height: N }, { ...base, pfa, extentPfa: 1e-3, ...(censorObjectPx ? { censorObjectPx } : {}) }).detected.length;
    const counts: number[][] = [];
    for (const [seed, textureShape] of [[5, undefined], [11, 1], [6, 3]] as const) {
      const values = gammaClutter(N, N, { looks: 4.4, seed, mean: SEA, ...(textureShape ? { textureShape } : {}) });
      for (const pfa of [1e-4, 1e-5]) {
        const plain = detected(values, pfa);
        expect(detected(values, pfa, { min: { rows: 3.5, cols: 3.5 }, max: { rows: 60, cols: 60 } })).toBe(plain);
        counts.push([pfa, plain]);
      }
    }
    // Gamma speckle, K ν = 1, K ν = 3 (1,048,576 pixels: 105 and 10.5 expected).
    expect(counts.map((c) => c[1])).toEqual([98, 10, 123, 9, 120, 11]);
  });

  it('rings are evaluated on 2 × 2 blocks aligned to full-image coordinates: the same decisions from any tile origin', () => {
    const values = gammaClutter(600, 600, { looks: 4.4, seed: 9, mean: SEA });
    const target = new Uint8Array(600 * 600).fill(1);
    const whole = cfarDetect({ values, target, width: 600, height: 600 }, base);
    const wholeMask = whole.mask.slice();
    // A sub-window starting at an odd offset; pixels far enough from its edges must agree.
    const y0 = 101;
    const x0 = 57;
    const w = 400;
    const h = 400;
    const sub = new Float32Array(w * h);
    for (let r = 0; r < h; r++) sub.set(values.subarray((r + y0) * 600 + x0, (r + y0) * 600 + x0 + w), r * w);
    const part = cfarDetect({ values: sub, target: new Uint8Array(w * h).fill(1), width: w, height: h, origin: { row: y0, col: x0 } }, base);
    const margin = 2 * windows.background.rows + 6;
    let compared = 0;
    for (let r = margin; r < h - margin; r++) {
      for (let c = margin; c < w - margin; c++) {
        expect(part.mask[r * w + c]).toBe(wholeMask[(r + y0) * 600 + c + x0]);
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(10_000);
  });
});

/**
 * A coastal tile for the exactness tests: textured K clutter, a wavy land edge (not target, not
 * background), vessels (some pairs inside each other's ring, for the censored pass), and a few
 * NaN, negative, ±0 and +∞ values (which the 2 × 2 block maximum treats apart).
 */
function coastalTile(w: number, h: number, seed: number): { values: Float32Array; target: Uint8Array } {
  const values = gammaClutter(w, h, { looks: 4.4, seed, mean: SEA, textureShape: 3 });
  const target = new Uint8Array(w * h);
  const random = mulberry32(seed + 1);
  for (let y = 0; y < h; y++) {
    const coast = 0.3 * w + 0.05 * w * Math.sin(y / 40);
    for (let x = 0; x < w; x++) {
      target[y * w + x] = x > coast ? 1 : 0;
      if (x <= coast) values[y * w + x] = 0.2 * random();
    }
  }
  for (let k = 0; k < 60; k++) {
    const r = Math.floor(random() * (h - 6));
    const c = Math.floor(0.3 * w + random() * (0.7 * w - 6));
    const level = SEA * 10 ** ((10 + 30 * random()) / 10);
    for (let dr = 0; dr < 3; dr++) for (let dc = 0; dc < 2 + (k % 4); dc++) values[(r + dr) * w + c + dc] = level * (0.5 + random());
  }
  const odd = [Number.NaN, -SEA, -0, Number.POSITIVE_INFINITY, 0];
  for (let k = 0; k < 40; k++) values[Math.floor(random() * w * h)] = odd[k % odd.length]!;
  return { values, target };
}

/** Every output of a CFAR run, hashed: mask, detected (in order), decided, and every pixel's background mean (NaN as one NaN). */
function outputHash(r: ReturnType<typeof cfarDetect>, w: number, h: number): string {
  const hash = createHash('sha256');
  hash.update(r.mask);
  hash.update(new Uint8Array(Int32Array.from(r.detected).buffer));
  hash.update(String(r.decided));
  const bg = new Float64Array(w * h);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const m = r.backgroundMean(y, x);
      bg[y * w + x] = Number.isNaN(m) ? Number.NaN : m;
    }
  }
  hash.update(new Uint8Array(bg.buffer));
  return hash.digest('hex').slice(0, 16);
}

describe('CFAR exactness (the fast loops give the general loops\' bits)', () => {
  const W = 500;
  const H = 420;
  const tile = coastalTile(W, H, 21);
  const options: CfarOptions = { ...base, pfa: 1e-6, extentPfa: 1e-3 };

  it('the one-pass 2 × 2 tables (branch-free block maximum) equal the general tables\' decisions and backgrounds, NaN and negatives included', () => {
    for (const origin of [{ row: 0, col: 0 }, { row: 1, col: 3 }]) {
      const fast = cfarDetect({ ...tile, width: W, height: H, origin }, options);
      const fastHash = outputHash(fast, W, H);
      expect(fast.detected.length).toBeGreaterThan(30);
      // A background mask equal to the target mask but not the same array takes the general loop.
      const general = cfarDetect({ ...tile, background: tile.target.slice(), width: W, height: H, origin }, options);
      expect(outputHash(general, W, H)).toBe(fastHash);
    }
  });

  it('every output is bit for bit what it was before the CFAR loops were specialised (K and Gaussian, censored, two origins)', () => {
    const hashes = [
      outputHash(cfarDetect({ ...tile, width: W, height: H }, options), W, H),
      outputHash(cfarDetect({ ...tile, width: W, height: H, origin: { row: 1, col: 3 } }, options), W, H),
      outputHash(cfarDetect({ ...tile, width: W, height: H }, { ...options, model: 'gaussian' }), W, H),
    ];
    // Computed with the code before (main at ef77bc4), whose loops were the general ones.
    expect(hashes).toEqual(['b00a74e68bfb805a', 'b0282e092899cc94', '975294cce1709f61']);
  });

  it('the general loop (log-normal, or a target window, with any model) keeps its bits too', () => {
    const targetWindow = cfarWindows({ targetWindowM: 30, guardWindowM: 500, backgroundWindowM: 800 }, { range: 10, azimuth: 10 });
    const hashes = (['lognormal', 'k', 'gaussian'] as const).map((model) => {
      const r = cfarDetect({ ...tile, width: W, height: H, origin: { row: 1, col: 3 } }, { ...options, model, windows: model === 'lognormal' ? windows : targetWindow });
      expect(r.detected.length).toBeGreaterThan(30);
      return outputHash(r, W, H);
    });
    // Computed with the code before cfardup gave the loops one threshold function.
    expect(hashes).toEqual(['2bdf251284865e50', 'b532bf1547013a0a', '92913a941f1705fa']);
  });
});
