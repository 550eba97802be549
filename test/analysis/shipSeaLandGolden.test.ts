// The sea/land segmenter's field bit for bit as it was before it was made cheaper (issue 23 §1/§5,
// session segcost): the hashes below were taken from the plane-by-plane features, the sorted
// dark level and gbtPredict per cell (main at 0819b64) on the same generated coasts.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { gbtPredict } from '../../src/analysis/oilslick/gbt.ts';
import { SEA_LAND_FEATURE_COUNT, orderStatistic, seaLandFeatures, seaLandFeaturesAt, seaLandField, seaLandModel, seaLandProbability } from '../../src/analysis/ship/seaLand.ts';
import { gammaClutter } from './synthSea.ts';

/** A coast of textured land with a pier, twelve vessels and a no-data strip at the right edge. */
function goldenScene(W: number, H: number, seed: number): { values: Float32Array; valid: Uint8Array } {
  const values = gammaClutter(W, H, { looks: 4, seed, mean: 0.01 });
  const land = gammaClutter(W, H, { looks: 1, seed: seed + 1, mean: 0.4, textureShape: 0.5 });
  const valid = new Uint8Array(W * H).fill(1);
  for (let r = 0; r < H; r++)
    for (let c = 0; c < W; c++) {
      const p = r * W + c;
      const coast = 0.35 * W + 0.15 * W * Math.sin(r / 37);
      if (c < coast || (r > 0.4 * H && r < 0.45 * H && c < 0.7 * W)) values[p] = land[p]!;
      if (c >= W - 23) valid[p] = 0;
    }
  for (let v = 0; v < 12; v++) {
    const r0 = 20 + ((v * 97) % (H - 40));
    const c0 = Math.floor(0.6 * W) + ((v * 53) % Math.floor(0.3 * W));
    for (let r = r0; r < r0 + 4; r++) for (let c = c0; c < c0 + 15 && c < W; c++) values[r * W + c] = 0.8;
  }
  return { values, valid };
}

const sha = (a: Float32Array) => createHash('sha256').update(new Uint8Array(a.buffer, a.byteOffset, a.byteLength)).digest('hex');

const CASES = [
  { W: 500, H: 400, seed: 31, spacing: { range: 10, azimuth: 10 }, planes: '3321c223ae0ed090658ede2c590b099c12563f8c76efbb0f8725d11dee80a13b', land: '61119aad9db87306046e786e953251b94c1922ecb75adadccb08c3c1871a5714', cells: 47800, landCells: 16843 },
  { W: 420, H: 360, seed: 41, spacing: { range: 2.5, azimuth: 14 }, planes: 'b93c409a65b1e716a0257fc18dfa176a9becc11ed52bed2c48d27a11eba732ac', land: 'f5e63c987c3318c815d50141cfb87983338935181ee6674d3b80966d689332ce', cells: 18000, landCells: 6294 },
];

describe('ship sea/land segmenter: the cheaper field is the same field', () => {
  for (const c of CASES) {
    it(`gives the earlier feature planes and probabilities bit for bit (${c.W} × ${c.H} px at ${c.spacing.range} × ${c.spacing.azimuth} m)`, () => {
      const { values, valid } = goldenScene(c.W, c.H, c.seed);
      const f = seaLandFeatures(values, valid, c.W, c.H, c.spacing);
      expect(sha(f.planes)).toBe(c.planes);
      const field = seaLandField(values, valid, c.W, c.H, c.spacing);
      let cells = 0;
      let landCells = 0;
      for (const v of field.land) if (v === v) (cells++, (landCells += v >= seaLandModel().threshold ? 1 : 0));
      expect([cells, landCells]).toEqual([c.cells, c.landCells]);
      expect(sha(field.land)).toBe(c.land);
    });
  }

  it('walks the trees as gbtPredict does, also where a feature is missing or infinite', () => {
    const { values, valid } = goldenScene(200, 160, 7);
    const f = seaLandFeatures(values, valid, 200, 160, { range: 10, azimuth: 10 });
    const m = f.rows * f.cols;
    // Every 7th valid cell gets one non-finite feature (the linked walk's missing side).
    let k7 = 0;
    for (let k = 0; k < m; k++) if (f.valid[k] && k7++ % 7 === 0) f.planes[(k % SEA_LAND_FEATURE_COUNT) * m + k] = k % 2 ? Number.NaN : -Infinity;
    const field = seaLandProbability(f, seaLandModel());
    const x = new Array<number>(SEA_LAND_FEATURE_COUNT);
    let compared = 0;
    for (let k = 0; k < m; k++) {
      if (!f.valid[k]) {
        expect(Number.isNaN(field.land[k])).toBe(true);
        continue;
      }
      expect(field.land[k]).toBe(Math.fround(gbtPredict(seaLandModel().model, seaLandFeaturesAt(f, k, x))));
      compared++;
    }
    expect(compared).toBeGreaterThan(7000);
  });

  it('picks order statistics as the sorted array would, NaN last', () => {
    let seed = 5;
    const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
    for (const n of [1, 2, 3, 10, 101, 5000]) {
      const a = Float64Array.from({ length: n }, (_, i) => (i % 13 === 5 ? Number.NaN : Math.floor(rand() * 50) / 7));
      const sorted = Float64Array.from(a).sort();
      for (const k of [0, Math.floor(0.1 * (n - 1)), n >> 1, n - 1]) expect(orderStatistic(Float64Array.from(a), k)).toBe(sorted[k]);
    }
  });
});
