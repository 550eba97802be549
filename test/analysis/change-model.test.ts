// Building change on in-memory arrays: speckle filters, the logistic model, confidence, and
// detectChangeInTile on generated pairs with ground truth (training/change/simulate.ts).
import { describe, expect, it } from 'vitest';
import {
  boxcarFilter,
  confidenceFromProbabilities,
  DEFAULT_CHANGE_MODEL,
  detectChangeInTile,
  featuresAt,
  FEATURE_NAMES,
  leeFilter,
  logisticProbability,
  prepareFeatures,
  probabilityMap,
  trimmedBoxcarFilter,
  type ChangeTileInput,
} from '../../src/analysis/change/index.ts';
import { scoreObjects, simulateChangePair, SimRandom, type SimulatedPair } from '../../training/change/simulate.ts';

function randomImage(width: number, height: number, seed: number, invalidRate = 0.1): { values: Float32Array; valid: Uint8Array } {
  const rng = new SimRandom(seed);
  const values = new Float32Array(width * height);
  const valid = new Uint8Array(width * height);
  for (let i = 0; i < values.length; i++) {
    valid[i] = rng.uniform() < invalidRate ? 0 : 1;
    values[i] = valid[i] ? 0.1 * rng.speckle(4.4) : Number.NaN;
  }
  return { values, valid };
}

function bruteMean(values: Float32Array, valid: Uint8Array, w: number, h: number, r: number, x: number, y: number): { mean: number; max: number; count: number; sq: number } {
  let s = 0;
  let q = 0;
  let c = 0;
  let max = -Infinity;
  for (let yy = Math.max(0, y - r); yy <= Math.min(h - 1, y + r); yy++) {
    for (let xx = Math.max(0, x - r); xx <= Math.min(w - 1, x + r); xx++) {
      const i = yy * w + xx;
      if (!valid[i]) continue;
      s += values[i]!;
      q += values[i]! * values[i]!;
      c++;
      max = Math.max(max, values[i]!);
    }
  }
  return { mean: s / c, max, count: c, sq: q / c };
}

const pairInput = (pair: SimulatedPair): ChangeTileInput => ({
  pre: pair.pre,
  post: pair.post,
  validPre: pair.validPre,
  validPost: pair.validPost,
  width: pair.width,
  height: pair.height,
  pixelSizeM: pair.pixelSizeM,
});

describe('speckle filters', () => {
  const w = 37;
  const h = 23;
  const { values, valid } = randomImage(w, h, 3);

  it('boxcar is the mean of the valid pixels of the clipped window, NaN where the centre is invalid', () => {
    for (const r of [1, 2, 5]) {
      const out = boxcarFilter(values, valid, w, h, r);
      for (let y = 0; y < h; y++) {
        for (let x = 0; x < w; x++) {
          const i = y * w + x;
          if (!valid[i]) expect(out[i]).toBeNaN();
          else expect(out[i]).toBeCloseTo(bruteMean(values, valid, w, h, r, x, y).mean, 6);
        }
      }
    }
  });

  it('Lee: k = (V − m²/L)/(V(1 + 1/L)) clipped at 0, x̂ = m + k(z − m)', () => {
    const out = leeFilter(values, valid, w, h, 2, 4.4);
    for (let y = 0; y < h; y++) {
      for (let x = 0; x < w; x++) {
        const i = y * w + x;
        if (!valid[i]) continue;
        const { mean: m, sq } = bruteMean(values, valid, w, h, 2, x, y);
        const v = Math.max(0, sq - m * m);
        const k = v > 0 ? Math.max(0, (v - (m * m) / 4.4) / (v * (1 + 1 / 4.4))) : 0;
        expect(out[i]).toBeCloseTo(m + k * (values[i]! - m), 5);
      }
    }
  });

  it('Lee smooths homogeneous speckle and keeps a point target', () => {
    const n = 64;
    const { values: flat, valid: all } = randomImage(n, n, 5, 0);
    flat[32 * n + 32] = 100; // a corner reflector, 30 dB above the 0.1 background
    const out = leeFilter(flat, all, n, n, 2, 4.4);
    expect(out[32 * n + 32]).toBeGreaterThan(50);
    // Away from the target the spread drops by about the window's look gain.
    const spread = (a: Float32Array): number => {
      let s = 0;
      let q = 0;
      let c = 0;
      for (let y = 2; y < 20; y++) for (let x = 2; x < 20; x++) {
        s += a[y * n + x]!;
        q += a[y * n + x]! ** 2;
        c++;
      }
      return Math.sqrt(q / c - (s / c) ** 2) / (s / c);
    };
    expect(spread(out)).toBeLessThan(0.6 * spread(flat));
  });

  it('trimmed boxcar drops the brightest pixel of each window: a one-pixel spike leaves no trace', () => {
    const n = 20;
    const img = new Float32Array(n * n).fill(0.1);
    const all = new Uint8Array(n * n).fill(1);
    img[10 * n + 10] = 50;
    const out = trimmedBoxcarFilter(img, all, n, n, 1);
    for (let i = 0; i < out.length; i++) expect(out[i]).toBeCloseTo(0.1, 6);
    const { values: v2, valid: m2 } = randomImage(w, h, 8);
    const t = trimmedBoxcarFilter(v2, m2, w, h, 1);
    const i = 5 * w + 7;
    const b = bruteMean(v2, m2, w, h, 1, 7, 5);
    if (m2[i]) expect(t[i]).toBeCloseTo((b.mean * b.count - b.max) / (b.count - 1), 6);
  });
});

describe('the logistic model', () => {
  it('probabilityMap is the logistic of the documented features (dB log-ratio, brightness, contrast)', () => {
    const pair = simulateChangePair({ width: 60, height: 60, seed: 4 });
    const { inputs, valid } = prepareFeatures(pairInput(pair), 'newbuilding');
    const p = probabilityMap(inputs, valid, DEFAULT_CHANGE_MODEL.dual);
    const f = new Float64Array(FEATURE_NAMES.length);
    for (const i of [0, 61, 1234, 3599]) {
      expect(featuresAt(inputs, i, f)).toBe(true);
      // Feature definitions, by hand.
      const db = (v: number) => 10 * Math.log10(v);
      expect(f[0]).toBeCloseTo(db(inputs.afterVv![i]!) - db(inputs.beforeVv![i]!), 4);
      expect(f[2]).toBeCloseTo(db(inputs.afterVv![i]!), 4);
      expect(f[5]).toBeCloseTo(db(inputs.afterVh![i]!) - db(inputs.backgroundVh![i]!), 4);
      expect(p[i]).toBeCloseTo(logisticProbability(DEFAULT_CHANGE_MODEL.dual, f), 5);
    }
  });
});

describe('confidence (spec: median of the probability over the polygon, bounded below by the threshold, null when unreadable)', () => {
  it('is the median of the readable probabilities', () => {
    expect(confidenceFromProbabilities([0.9, 0.95, 0.99], 0.8)).toBe(0.95);
    expect(confidenceFromProbabilities([0.9, 0.95, 0.97, 0.99], 0.8)).toBe(0.96);
    expect(confidenceFromProbabilities([0.9, Number.NaN, 0.99, Number.NaN, 0.95], 0.8)).toBe(0.95);
  });
  it('is bounded below by the detection threshold, not by 0', () => {
    expect(confidenceFromProbabilities([0.3, 0.5, 0.81], 0.8)).toBe(0.8);
  });
  it('is null when no pixel of the polygon could be read', () => {
    expect(confidenceFromProbabilities([Number.NaN, Number.NaN], 0.8)).toBeNull();
    expect(confidenceFromProbabilities([], 0.8)).toBeNull();
  });
});

describe('detectChangeInTile on generated pairs (10 m, ENL 4.4)', () => {
  // Seeds not used for calibration (calibrate.ts trains on 101–104, selects on 201–203).
  const pair = simulateChangePair({ width: 500, height: 500, seed: 401 });

  it('finds appeared buildings ≥ 400 m² with per-object F1 ≥ 0.9 (newbuilding)', () => {
    const { regions } = detectChangeInTile(pairInput(pair), { kind: 'newbuilding' });
    const score = scoreObjects(regions, pair.appeared, pair.width);
    expect(score.tp + score.fn).toBeGreaterThan(200);
    expect(score.f1).toBeGreaterThanOrEqual(0.9);
  });

  it('finds vanished buildings ≥ 400 m² with per-object F1 ≥ 0.9 (disappearbuilding)', () => {
    const { regions } = detectChangeInTile(pairInput(pair), { kind: 'disappearbuilding' });
    const score = scoreObjects(regions, pair.vanished, pair.width);
    expect(score.tp + score.fn).toBeGreaterThan(80);
    expect(score.f1).toBeGreaterThanOrEqual(0.9);
  });

  it('does not report vanished buildings as new ones, nor new ones as vanished', () => {
    const news = detectChangeInTile(pairInput(pair), { kind: 'newbuilding' }).regions;
    const gone = detectChangeInTile(pairInput(pair), { kind: 'disappearbuilding' }).regions;
    expect(scoreObjects(news, pair.vanished, pair.width).tp).toBe(0);
    expect(scoreObjects(gone, pair.appeared, pair.width).tp).toBe(0);
  });

  it('detects nothing on an unchanged pair (same scene, independent speckle)', () => {
    const same = simulateChangePair({ width: 400, height: 400, seed: 402, unchanged: true });
    for (const kind of ['newbuilding', 'disappearbuilding'] as const) {
      expect(detectChangeInTile(pairInput(same), { kind }).regions).toHaveLength(0);
    }
  });

  it('confidence = median probability of the region pixels, ≥ threshold; regions hold only valid pixels', () => {
    const withGap = simulateChangePair({ width: 300, height: 300, seed: 403, noDataColumns: 40 });
    const input = pairInput(withGap);
    const { regions, threshold } = detectChangeInTile(input, { kind: 'newbuilding' });
    const { inputs, valid } = prepareFeatures(input, 'newbuilding');
    const p = probabilityMap(inputs, valid, DEFAULT_CHANGE_MODEL.dual);
    expect(regions.length).toBeGreaterThan(20);
    for (const r of regions) {
      const probs = Array.from(r.pixels, (i) => p[i]!).sort((a, b) => a - b);
      const m = probs.length >> 1;
      const median = probs.length % 2 ? probs[m]! : (probs[m - 1]! + probs[m]!) / 2;
      expect(r.confidence).not.toBeNull();
      expect(r.confidence!).toBeGreaterThanOrEqual(threshold);
      expect(r.confidence!).toBeCloseTo(Math.max(threshold, median), 3);
      for (const i of r.pixels) {
        expect(withGap.validPost[i]).toBe(1);
        expect(i % 300).toBeLessThan(260);
      }
    }
  });

  it('counts valid pixels of the core only, and honours the AOI mask', () => {
    const withGap = simulateChangePair({ width: 100, height: 80, seed: 404, noDataColumns: 10 });
    const inside = new Uint8Array(100 * 80);
    for (let y = 0; y < 80; y++) for (let x = 0; x < 50; x++) inside[y * 100 + x] = 1;
    const input = { ...pairInput(withGap), inside, core: { x0: 0, y0: 0, width: 100, height: 40 } };
    const out = detectChangeInTile(input, { kind: 'newbuilding' });
    expect(out.validCount).toBe(50 * 40);
    for (const r of out.regions) for (const i of r.pixels) expect(i % 100).toBeLessThan(50);
  });

  it('works with one polarisation (VV only, VH only)', () => {
    for (const pol of ['vv', 'vh'] as const) {
      const input = { ...pairInput(pair), pre: { [pol]: pair.pre[pol] }, post: { [pol]: pair.post[pol] } };
      const out = detectChangeInTile(input, { kind: 'newbuilding' });
      expect(out.channels).toBe(pol);
      expect(scoreObjects(out.regions, pair.appeared, pair.width).f1).toBeGreaterThan(0.8);
    }
  });

  it('overlapping tiles report each region once (ownership by centroid)', () => {
    const whole = detectChangeInTile(pairInput(pair), { kind: 'newbuilding' }).regions;
    // Two tiles split at column 250, each with a 48-pixel halo.
    const W = pair.width;
    const H = pair.height;
    const cut = (x0: number, x1: number): ChangeTileInput => {
      const w = x1 - x0;
      const take = (a: Float32Array) => {
        const out = new Float32Array(w * H);
        for (let y = 0; y < H; y++) out.set(a.subarray(y * W + x0, y * W + x1), y * w);
        return out;
      };
      const takeU8 = (a: Uint8Array) => {
        const out = new Uint8Array(w * H);
        for (let y = 0; y < H; y++) out.set(a.subarray(y * W + x0, y * W + x1), y * w);
        return out;
      };
      return {
        pre: { vv: take(pair.pre.vv), vh: take(pair.pre.vh) },
        post: { vv: take(pair.post.vv), vh: take(pair.post.vh) },
        validPre: takeU8(pair.validPre),
        validPost: takeU8(pair.validPost),
        width: w,
        height: H,
        pixelSizeM: 10,
      };
    };
    const left = detectChangeInTile({ ...cut(0, 298), core: { x0: 0, y0: 0, width: 250, height: H } }, { kind: 'newbuilding' }).regions;
    const right = detectChangeInTile({ ...cut(202, 500), core: { x0: 48, y0: 0, width: 250, height: H } }, { kind: 'newbuilding' }).regions;
    const key = (pixels: ArrayLike<number>, width: number, x0: number) =>
      Array.from(pixels, (p) => Math.floor(p / width) * W + (p % width) + x0).join(',');
    const tiled = [...left.map((r) => key(r.pixels, 298, 0)), ...right.map((r) => key(r.pixels, 298, 202))].sort();
    const reference = whole.map((r) => key(r.pixels, W, 0)).sort();
    expect(tiled).toEqual(reference);
  });
});
