// The sea/land segmenter's field bit for bit as it was before it was made cheaper (issue 23 §1/§5,
// session segcost): the hashes below were taken from the plane-by-plane features, the sorted
// dark level and gbtPredict per cell (main at 0819b64) on the same generated coasts.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { gbtMargin, gbtPredict } from '../../src/analysis/oilslick/gbt.ts';
import {
  LAND_DISTANCE_CAP_M,
  REACH_MARGIN_M,
  SEA_LAND_FEATURES,
  SEA_LAND_FEATURE_COUNT,
  candidateLandFeatures,
  cellsOutOfReach,
  deferredSeaLandField,
  landAt,
  landMaskOfField,
  landProbability,
  orderStatistic,
  partLandFeatures,
  resolveLandField,
  seaLandFeatures,
  seaLandFeaturesAt,
  seaLandField,
  seaLandModel,
  seaLandProbability,
  seaLandProbabilityDeferred,
  SEA_SCREEN_FEATURES,
  SEA_SCREEN_FEATURES_DARK,
  seaScreenBound,
  withLandDistance,
} from '../../src/analysis/ship/seaLand.ts';
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

  for (const c of CASES) {
    it(`the deferred field (sea screen) gives the same mask, distances and every probability a candidate reads (${c.W} × ${c.H} px)`, () => {
      const { values, valid } = goldenScene(c.W, c.H, c.seed);
      const t = seaLandModel().threshold;
      const full = withLandDistance(seaLandField(values, valid, c.W, c.H, c.spacing), c.spacing);
      const lazy = withLandDistance(deferredSeaLandField(values, valid, c.W, c.H, c.spacing), c.spacing);
      const m = full.rows * full.cols;
      // The screen skips the trees on most of the open sea (else this test proves nothing).
      const deferred = lazy.deferred?.count ?? 0;
      expect(deferred).toBeGreaterThan(0.1 * c.cells);
      expect(sha(lazy.distanceM!)).toBe(sha(full.distanceM!));
      expect(Buffer.compare(landMaskOfField(lazy, c.W, c.H), landMaskOfField(full, c.W, c.H))).toBe(0);
      // What candidates read: the box features around each vessel and a grid of boxes over the
      // tile (sea, coast, pier), and the part features, then the peak of every cell.
      for (let r = 0; r + 12 < c.H; r += 23)
        for (let col = 0; col + 20 < c.W; col += 31) {
          const box = { rowMin: r, rowMax: r + 4, colMin: col, colMax: col + 15 };
          expect(candidateLandFeatures(lazy, r + 2, col + 7, box, 8)).toEqual(candidateLandFeatures(full, r + 2, col + 7, box, 8));
          const pixels = Array.from({ length: 30 }, (_, j) => (r + (j % 3)) * c.W + col + ((j / 3) | 0));
          expect(partLandFeatures(lazy, pixels, c.W, c.H, 10, 100)).toEqual(partLandFeatures(full, pixels, c.W, c.H, 10, 100));
        }
      expect(lazy.deferred!.count).toBeLessThan(deferred); // some reads were of deferred cells
      expect(lazy.deferred!.count).toBeGreaterThan(0);
      for (let k = 0; k < m; k++) expect(Object.is(landProbability(lazy, k), full.land[k])).toBe(true);
      for (let r = 0; r < c.H; r += 7) expect(landAt(lazy, r, (r * 13) % c.W)).toBe(landAt(full, r, (r * 13) % c.W));
      expect(lazy.deferred!.count).toBe(0);
      expect(sha(lazy.land)).toBe(c.land);
      // A decision under the screen's threshold resolves every deferred cell first.
      const low = deferredSeaLandField(values, valid, c.W, c.H, c.spacing);
      expect(sha(withLandDistance(low, c.spacing, 0.001).distanceM!)).toBe(sha(withLandDistance(full, c.spacing, 0.001).distanceM!));
      expect(low.deferred!.count).toBe(0);
    });
  }

  // The near-shore path's field (tile.ts) anchored on the valid pixels off the tile's land mask:
  // coasts whose land reaches far beyond the margin: at 40 m pixels (cells of one pixel, land
  // beyond the distance cap too), at 10 m (cells of 2 × 2 px) and at 2.5 × 14 m (cells of
  // 8 × 1 px: steps of 20 m along rows, 14 m down columns). Behind the last two coasts a lagoon
  // of sea 800 m wide under the tile's land mask: the land across it is the nearest land of the anchor
  // cells on the coast, yet lies beyond their margin (a decision the reach test must take).
  const ANCHORED = [
    { W: 420, H: 200, spacing: { range: 40, azimuth: 40 }, minLand: 50, lagoonM: 0 },
    { W: 640, H: 400, spacing: { range: 10, azimuth: 10 }, minLand: 5000, lagoonM: 800 },
    { W: 2400, H: 240, spacing: { range: 2.5, azimuth: 14 }, minLand: 5000, lagoonM: 800 },
  ];
  for (const { W, H, spacing, minLand, lagoonM } of ANCHORED)
    it(`defers the cells no candidate's read depends on and still reads every probability, distance and sea-side decision of the full field (${spacing.range} × ${spacing.azimuth} m)`, () => {
      const { values, valid } = goldenScene(W, H, 53);
      const sea = gammaClutter(W, H, { looks: 4, seed: 53, mean: 0.01 });
      const lagoon = lagoonM / spacing.range;
      for (let r = 0; r < H; r++) {
        const coast = 0.35 * W + 0.15 * W * Math.sin(r / 37);
        for (let c = Math.max(0, Math.ceil(coast - 3 - lagoon)); c < coast - 3; c++) if (!(r > 0.4 * H && r < 0.45 * H)) values[r * W + c] = sea[r * W + c]!;
      }
      // The tile's land mask: the painted land (c < coast) shrunk by a 3-pixel shore buffer's worth.
      const tileLand = new Uint8Array(W * H);
      for (let r = 0; r < H; r++) {
        const coast = 0.35 * W + 0.15 * W * Math.sin(r / 37);
        for (let c = 0; c < W; c++) if (c < coast - 3) tileLand[r * W + c] = 1;
      }
      const anchor = new Uint8Array(W * H);
      for (let p = 0; p < anchor.length; p++) anchor[p] = valid[p]! & (tileLand[p]! ^ 1);
      const t = seaLandModel().threshold;
      const full = withLandDistance(seaLandField(values, valid, W, H, spacing), spacing);
      const lazy = withLandDistance(deferredSeaLandField(values, valid, W, H, spacing, undefined, anchor), spacing);
      const { rows, cols, cellRows, cellCols } = full;
      const m = rows * cols;
      let fullLand = 0;
      for (let k = 0; k < m; k++) fullLand += full.land[k]! >= t ? 1 : 0;
      // Not vacuous: the full field calls land, and most of it is left undecided.
      expect(fullLand).toBeGreaterThan(minLand);
      expect(lazy.deferred!.outOfReach).toBeGreaterThan(0.5 * fullLand);
      const far = cellsOutOfReach(anchor, W, H, full, spacing);
      if (spacing.range === 40) {
        // Every cell out of reach is deferred undecided, and some of them are land.
        let farCells = 0;
        let farLand = 0;
        let farPending = 0;
        for (let k = 0; k < m; k++) if (far![k] && full.valid[k]) (farCells++, (farLand += full.land[k]! >= t ? 1 : 0), (farPending += lazy.deferred!.pending[k]!));
        expect(farCells).toBeGreaterThan(2000);
        expect(farLand).toBeGreaterThan(5);
        expect(farPending).toBe(farCells);
        expect(lazy.deferred!.outOfReach).toBeGreaterThan(farCells);
        // Sound: every cell out of reach lies farther than the cap and the margin from every anchor cell.
        // (Every 7th such cell, against every anchor cell within 100 cells: those beyond are 4 km off.)
        let checked = 0;
        for (let k = 0; k < m; k += 7) {
          if (!far![k]) continue;
          const r = (k / W) | 0;
          const c = k - r * W;
          let nearest = Infinity;
          for (let rr = Math.max(0, r - 100); rr < Math.min(H, r + 101); rr++)
            for (let cc = Math.max(0, c - 100); cc < Math.min(W, c + 101); cc++) if (anchor[rr * W + cc]) nearest = Math.min(nearest, Math.hypot((rr - r) * 40, (cc - c) * 40));
          expect(nearest).toBeGreaterThan(LAND_DISTANCE_CAP_M + REACH_MARGIN_M);
          checked++;
        }
        expect(checked).toBeGreaterThan(200);
      }
      // Distances at every cell with an anchor pixel within REACH_MARGIN_M (a box inscribed in
      // that disc, less a cell), by a summed-area table of the anchor pixels.
      const S = W + 1;
      const sat = new Int32Array((H + 1) * S);
      for (let r = 0; r < H; r++) for (let c = 0, run = 0; c < W; c++) (run += anchor[r * W + c]!), (sat[(r + 1) * S + c + 1] = sat[r * S + c + 1]! + run);
      const R = Math.floor(REACH_MARGIN_M / spacing.azimuth / Math.SQRT2) - cellRows;
      const C = Math.floor(REACH_MARGIN_M / spacing.range / Math.SQRT2) - cellCols;
      let compared = 0;
      let undecidedLand = 0;
      for (let cr = 0; cr < rows; cr++)
        for (let cc = 0; cc < cols; cc++) {
          const k = cr * cols + cc;
          const r0 = Math.max(0, cr * cellRows - R);
          const r1 = Math.min(H, (cr + 1) * cellRows + R);
          const c0 = Math.max(0, cc * cellCols - C);
          const c1 = Math.min(W, (cc + 1) * cellCols + C);
          if (sat[r1 * S + c1]! - sat[r0 * S + c1]! - sat[r1 * S + c0]! + sat[r0 * S + c0]! === 0) {
            if (lazy.deferred!.pending[k] && full.land[k]! >= t) undecidedLand++;
            continue;
          }
          expect(lazy.distanceM![k]).toBe(full.distanceM![k]);
          compared++;
        }
      expect(compared).toBeGreaterThan(0.4 * m);
      expect(undecidedLand).toBeGreaterThan(0.4 * fullLand); // land whose decision nothing read needed
      const lazyMask = landMaskOfField(lazy, W, H, t, tileLand);
      const fullMask = landMaskOfField(full, W, H, t, tileLand);
      for (let p = 0; p < W * H; p++) expect(valid[p]! & (lazyMask[p]! ^ 1)).toBe(valid[p]! & (fullMask[p]! ^ 1));
      // Every probability read on demand is the full field's, undecided or screened.
      for (let k = 0; k < m; k++) expect(Object.is(landProbability(lazy, k), full.land[k])).toBe(true);
      expect(lazy.deferred!.count).toBe(0);
      expect(sha(lazy.land)).toBe(sha(full.land));
    });

  it('screens a cell as sea only where the full trees give it a probability under the threshold, non-finite features included', () => {
    const model = seaLandModel();
    for (const c of [...CASES, { W: 200, H: 160, seed: 7, spacing: { range: 10, azimuth: 10 } }]) {
      const { values, valid } = goldenScene(c.W, c.H, c.seed);
      const f = seaLandFeatures(values, valid, c.W, c.H, c.spacing);
      const m = f.rows * f.cols;
      // Every 5th valid cell gets one non-finite feature, cycling through all of them (the
      // screen's own features too: such a cell is not screened; the others: the bound covers
      // their missing sides).
      let k5 = 0;
      let hurt = 0;
      for (let k = 0; k < m; k++) if (f.valid[k] && k5++ % 5 === 0) (f.planes[(hurt % SEA_LAND_FEATURE_COUNT) * m + k] = hurt % 3 ? Number.NaN : hurt % 2 ? Infinity : -Infinity), hurt++;
      const lazy = seaLandProbabilityDeferred(f, model);
      const x = new Array<number>(SEA_LAND_FEATURE_COUNT);
      let screened = 0;
      let screenedNonFinite = 0;
      const bright = SEA_SCREEN_FEATURES.map((n) => SEA_LAND_FEATURES.indexOf(n));
      for (let k = 0; k < m; k++) {
        if (!lazy.deferred!.pending[k]) continue;
        screened++;
        seaLandFeaturesAt(f, k, x);
        if (!x.every(Number.isFinite)) screenedNonFinite++;
        expect(bright.every((j) => Number.isFinite(x[j]))).toBe(true);
        expect(gbtPredict(model.model, x)).toBeLessThan(model.threshold);
        expect(lazy.land[k]).toBe(0);
      }
      expect(screened).toBeGreaterThan(300);
      expect(screenedNonFinite).toBeGreaterThan(50);
      // And the resolved field is the full one, cell for cell.
      const full = seaLandProbability(f, model);
      expect(sha(resolveLandField(lazy))).toBe(sha(full.land));
    }
  });

  it('bounds the log-odds of every cell of an interval: no cell of the bound\'s intervals exceeds it', () => {
    const model = seaLandModel().model;
    const { values, valid } = goldenScene(500, 400, 31);
    const f = seaLandFeatures(values, valid, 500, 400, { range: 10, azimuth: 10 });
    const m = f.rows * f.cols;
    const screen = SEA_SCREEN_FEATURES.map((n) => SEA_LAND_FEATURES.indexOf(n));
    const cuts = screen.map((j) => [...new Set(model.trees.flatMap((t) => t.feature.flatMap((g, k) => (g === j ? [t.threshold[k]!] : []))))].sort((a, b) => a - b));
    const x = new Array<number>(SEA_LAND_FEATURE_COUNT);
    const bounds = new Map<string, number>();
    let checked = 0;
    for (let k = 0; k < m; k += 3) {
      if (!f.valid[k]) continue;
      seaLandFeaturesAt(f, k, x);
      const bins = screen.map((j, s) => cuts[s]!.filter((t) => t <= x[j]!).length);
      const key = bins.join(',');
      if (!bounds.has(key)) bounds.set(key, seaScreenBound(model, bins, seaLandModel().threshold));
      expect(gbtMargin(model, x)).toBeLessThanOrEqual(bounds.get(key)!);
      checked++;
    }
    expect(checked).toBeGreaterThan(10000);
    expect(bounds.size).toBeGreaterThan(5); // sea, coast and land intervals
  });

  it('with a dark level where the five screen features cannot prove open sea, screens with dark300 too: only cells the trees call sea, bounds that hold', () => {
    const model = seaLandModel();
    const cutsOf = (j: number) => [...new Set(model.model.trees.flatMap((t) => t.feature.flatMap((g, k) => (g === j ? [t.threshold[k]!] : []))))].sort((a, b) => a - b);
    const binsOf = (names: readonly string[], value: (j: number) => number) => names.map((n) => SEA_LAND_FEATURES.indexOf(n as (typeof SEA_LAND_FEATURES)[number])).map((j) => cutsOf(j).filter((t) => t <= value(j)).length);
    // Open sea with a small textured island: dark levels 1.44 and 1.78 dB (the coastal IW scene's two such windows: 1.43, 1.79).
    for (const { looks, seed } of [{ looks: 4.4, seed: 4 }, { looks: 3, seed: 5 }]) {
      const W = 400;
      const H = 300;
      const values = gammaClutter(W, H, { looks, seed, mean: 0.01 });
      const island = gammaClutter(W, H, { looks: 1, seed: seed + 1, mean: 0.4, textureShape: 0.5 });
      const valid = new Uint8Array(W * H).fill(1);
      for (let r = 0; r < H; r++) for (let c = 0; c < W; c++) if (Math.hypot(r - 40, c - 40) < 44) values[r * W + c] = island[r * W + c]!;
      const f = seaLandFeatures(values, valid, W, H, { range: 10, azimuth: 10 });
      const m = f.rows * f.cols;
      const level = f.planes[SEA_LAND_FEATURES.indexOf('darkLevelDb') * m]!;
      // The five features' bound for open sea (no bright cell, every cell dark) at this dark level is not under the threshold.
      const open = (j: number) => (SEA_LAND_FEATURES[j] === 'darkLevelDb' ? level : SEA_LAND_FEATURES[j]!.startsWith('bright') ? 0 : 1);
      expect(seaScreenBound(model.model, binsOf(SEA_SCREEN_FEATURES, open), model.threshold)).toBeGreaterThanOrEqual(Math.log(model.threshold / (1 - model.threshold)));
      const lazy = seaLandProbabilityDeferred(f, model);
      const x = new Array<number>(SEA_LAND_FEATURE_COUNT);
      let screened = 0;
      for (let k = 0; k < m; k++) {
        if (!lazy.deferred?.pending[k]) continue;
        if (screened++ % 4 === 0) expect(gbtPredict(model.model, seaLandFeaturesAt(f, k, x))).toBeLessThan(model.threshold);
      }
      expect(screened).toBeGreaterThan(0.8 * m);
      // Every cell under its six intervals' bound.
      const bounds = new Map<string, number>();
      for (let k = 0; k < m; k += 17) {
        if (!f.valid[k]) continue;
        seaLandFeaturesAt(f, k, x);
        const bins = binsOf(SEA_SCREEN_FEATURES_DARK, (j) => x[j]!);
        const key = bins.join(',');
        if (!bounds.has(key)) bounds.set(key, seaScreenBound(model.model, bins, model.threshold, SEA_SCREEN_FEATURES_DARK));
        expect(gbtMargin(model.model, x)).toBeLessThanOrEqual(bounds.get(key)!);
      }
      expect(bounds.size).toBeGreaterThan(5);
      expect(sha(resolveLandField(lazy))).toBe(sha(seaLandProbability(f, model).land));
    }
  });

  it('gives the land mask of the field pixel by pixel, ragged edges and anisotropic cells included, or-ed with a given mask', () => {
    for (const c of [...CASES, { W: 203, H: 157, seed: 9, spacing: { range: 7, azimuth: 3 } }]) {
      const { values, valid } = goldenScene(c.W, c.H, c.seed);
      const field = seaLandField(values, valid, c.W, c.H, c.spacing);
      const t = seaLandModel().threshold;
      const given = new Uint8Array(c.W * c.H);
      for (let p = 0; p < given.length; p += 5) given[p] = 1;
      const copy = Uint8Array.from(given);
      let landPx = 0;
      for (const land of [undefined, given]) {
        const mask = landMaskOfField(field, c.W, c.H, t, land);
        for (let r = 0; r < c.H; r++)
          for (let col = 0; col < c.W; col++) {
            const p = r * c.W + col;
            const want = (land?.[p] ?? 0) | (field.land[Math.floor(r / field.cellRows) * field.cols + Math.floor(col / field.cellCols)]! >= t ? 1 : 0);
            if (mask[p] !== want) expect([r, col, mask[p]]).toEqual([r, col, want]);
            landPx += land ? 0 : want;
          }
      }
      expect(Buffer.compare(given, copy)).toBe(0); // not written into
      expect(landPx).toBeGreaterThan(0.1 * c.W * c.H);
    }
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
