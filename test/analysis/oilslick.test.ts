// Oil slicks on rasters held in memory: the dark-spot engine, tile merging and the
// look-alike rules, on generated sea with known truth masks.
//
// The generator (below) is deliberately small and independent of src/synth: gamma speckle of
// 4.4 looks (IW GRDH) on a sea whose σ0 varies smoothly by about ±1 dB over 4–6 km (wind
// variability); slicks are drawn along a centre line with a 40 m smooth edge and patchy
// damping (70–100 % of the nominal dB), their truth is the 50 % damping contour; calm
// patches fade in over a wide margin; discs are round dark spots with sharp edges.
import { describe, expect, it } from 'vitest';

import {
  DEFAULT_OIL_SLICK_PARAMS,
  detectSlicksInRaster,
  detectSlicksInTile,
  lowWindSigma0Db,
  mergeTileRegions,
  oilProbabilityThreshold,
  regionMask,
  regionPolygons,
  requiredHaloPx,
  resolveOilSlickParams,
  type SlickCandidate,
} from '../../src/analysis/oilslick/index.ts';
import { maskAxesM, outlineWindow, refineOutlineMask } from '../../src/analysis/oilslick/refineOutline.ts';
import { mulberry32 } from '../../src/prng.ts';

// ------------------------------------------------------------------ generator


/** Gamma(L, 1/L) by Marsaglia–Tsang: unit-mean speckle of L looks. */
function speckleSampler(looks: number, rnd: () => number): () => number {
  const d = looks - 1 / 3;
  const c = 1 / Math.sqrt(9 * d);
  const normal = (): number => Math.sqrt(-2 * Math.log(rnd() + 1e-12)) * Math.cos(2 * Math.PI * rnd());
  return () => {
    for (;;) {
      const x = normal();
      let v = 1 + c * x;
      if (v <= 0) continue;
      v = v * v * v;
      const u = rnd();
      if (Math.log(u + 1e-300) < 0.5 * x * x + d - d * v + d * Math.log(v)) return (d * v) / looks;
    }
  };
}

type Pt = [x: number, y: number];

interface SlickShape {
  /** Centre line in pixels (x = column, y = row). */
  path: Pt[];
  /** Half-width (pixels) at the start and the end. */
  halfWidth: [number, number];
  dampingDb: number;
}

interface CalmPatch {
  center: Pt;
  /** Semi-axes (pixels) of the outline (where the calm weight is 0.5). */
  a: number;
  b: number;
  angleDeg: number;
  /** Darkening in the middle (dB). */
  calmDb: number;
  /** Half-width of the fade across the outline, as a fraction of the radius. Default 0.4 (gradual). */
  transition?: number;
}

interface Disc {
  center: Pt;
  radius: number;
  dampingDb: number;
}

interface SceneSpec {
  width: number;
  height: number;
  seed: number;
  /** Mean sea σ0 (dB). */
  seaDb?: number;
  slicks?: SlickShape[];
  calm?: CalmPatch[];
  discs?: Disc[];
}

interface Scene {
  width: number;
  height: number;
  sigma0: Float32Array;
  valid: Uint8Array;
  /** Truth masks: slicks, calm patches, discs in spec order. */
  slickTruth: Uint8Array[];
  calmTruth: Uint8Array[];
  discTruth: Uint8Array[];
}

const EDGE_PX = 4; // the outline blends over ~40 m

function smoothstep(t: number): number {
  const u = Math.max(0, Math.min(1, t));
  return u * u * (3 - 2 * u);
}

function distanceToPath(path: Pt[], x: number, y: number): { d: number; t: number; length: number } {
  let best = Infinity;
  let bestT = 0;
  let cum = 0;
  for (let k = 0; k + 1 < path.length; k++) {
    const [ax, ay] = path[k]!;
    const [bx, by] = path[k + 1]!;
    const dx = bx - ax;
    const dy = by - ay;
    const len2 = dx * dx + dy * dy;
    const f = Math.max(0, Math.min(1, ((x - ax) * dx + (y - ay) * dy) / len2));
    const d2 = (ax + f * dx - x) ** 2 + (ay + f * dy - y) ** 2;
    if (d2 < best) {
      best = d2;
      bestT = cum + f * Math.sqrt(len2);
    }
    cum += Math.sqrt(len2);
  }
  return { d: Math.sqrt(best), t: bestT, length: cum };
}

function makeScene(spec: SceneSpec): Scene {
  const { width, height } = spec;
  const rnd = mulberry32(spec.seed);
  const speckle = speckleSampler(4.4, rnd);
  const seaDb = spec.seaDb ?? -14;
  const phase = [rnd() * 6.28, rnd() * 6.28];
  const sigma0 = new Float32Array(width * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const db = seaDb + 0.7 * Math.sin((2 * Math.PI * (x + 0.6 * y)) / 550 + phase[0]!) + 0.4 * Math.sin((2 * Math.PI * (y - 0.3 * x)) / 420 + phase[1]!);
      sigma0[y * width + x] = 10 ** (db / 10);
    }
  }
  const patchiness = (x: number, y: number): number => 0.85 + 0.15 * Math.sin(x / 7.3 + phase[0]!) * Math.cos(y / 5.9 + phase[1]!);

  const slickTruth = (spec.slicks ?? []).map((s) => {
    const truth = new Uint8Array(width * height);
    const maxHalf = Math.max(...s.halfWidth) + EDGE_PX;
    const xs = s.path.map((p) => p[0]);
    const ys = s.path.map((p) => p[1]);
    const x0 = Math.max(0, Math.floor(Math.min(...xs) - maxHalf));
    const x1 = Math.min(width - 1, Math.ceil(Math.max(...xs) + maxHalf));
    const y0 = Math.max(0, Math.floor(Math.min(...ys) - maxHalf));
    const y1 = Math.min(height - 1, Math.ceil(Math.max(...ys) + maxHalf));
    for (let y = y0; y <= y1; y++) {
      for (let x = x0; x <= x1; x++) {
        const { d, t, length } = distanceToPath(s.path, x, y);
        const half = s.halfWidth[0] + (s.halfWidth[1] - s.halfWidth[0]) * Math.sqrt(t / length);
        const weight = smoothstep(0.5 - (d - half) / EDGE_PX);
        if (weight <= 0) continue;
        if (d < half) truth[y * width + x] = 1;
        sigma0[y * width + x]! *= 10 ** ((-s.dampingDb * weight * patchiness(x, y)) / 10);
      }
    }
    return truth;
  });

  const calmTruth = (spec.calm ?? []).map((c) => {
    const truth = new Uint8Array(width * height);
    const cos = Math.cos((c.angleDeg * Math.PI) / 180);
    const sin = Math.sin((c.angleDeg * Math.PI) / 180);
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        const dx = x - c.center[0];
        const dy = y - c.center[1];
        const u = (dx * cos + dy * sin) / c.a;
        const v = (-dx * sin + dy * cos) / c.b;
        const r = Math.sqrt(u * u + v * v);
        const t = c.transition ?? 0.4;
        if (r >= 1 + t) continue;
        if (r <= 1) truth[y * width + x] = 1;
        const weight = 1 - smoothstep((r - (1 - t)) / (2 * t));
        sigma0[y * width + x]! *= 10 ** ((-c.calmDb * weight) / 10);
      }
    }
    return truth;
  });

  const discTruth = (spec.discs ?? []).map((c) => {
    const truth = new Uint8Array(width * height);
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        const d = Math.hypot(x - c.center[0], y - c.center[1]);
        const weight = smoothstep(0.5 - (d - c.radius) / EDGE_PX);
        if (weight <= 0) continue;
        if (d < c.radius) truth[y * width + x] = 1;
        sigma0[y * width + x]! *= 10 ** ((-c.dampingDb * weight * patchiness(x, y)) / 10);
      }
    }
    return truth;
  });

  for (let i = 0; i < sigma0.length; i++) sigma0[i]! *= speckle();
  return { width, height, sigma0, valid: new Uint8Array(width * height).fill(1), slickTruth, calmTruth, discTruth };
}

const SPACING = { range: 10, azimuth: 10 };

function run(scene: Scene, overrides: Partial<typeof DEFAULT_OIL_SLICK_PARAMS> = {}, tileSize?: number): SlickCandidate[] {
  const out = detectSlicksInRaster(
    { sigma0VV: scene.sigma0, valid: scene.valid, width: scene.width, height: scene.height, pixelSpacing: SPACING },
    resolveOilSlickParams(overrides),
    { tileSize, incidenceDeg: 35 },
  );
  debug(`seed ${scene.sigma0[0]!.toFixed(4)} tile ${tileSize ?? 'default'}`, out);
  return out;
}

function debug(label: string, candidates: SlickCandidate[]): void {
  if (!process.env.OILSLICK_DEBUG) return;
  for (const c of candidates) {
    const f = c.features;
    console.log(label, c.isSlick ? 'SLICK' : 'look', `a=${f.areaSqkm.toFixed(3)} el=${f.elongation.toFixed(2)} C=${f.compactness.toFixed(2)} con=${f.contrastDb.toFixed(1)} bg=${f.backgroundDb.toFixed(1)} grad=${f.edgeGradientDbPer100m.toFixed(2)} sur=${f.surroundDarkFraction.toFixed(2)}`, c.reasons.join(','));
  }
}

function maskOf(c: SlickCandidate, scene: Scene): Uint8Array {
  return regionMask(c.region, DEFAULT_OIL_SLICK_PARAMS.multilook, scene.width, scene.height);
}

function overlap(a: Uint8Array, b: Uint8Array): { inter: number; union: number } {
  let inter = 0;
  let union = 0;
  for (let i = 0; i < a.length; i++) {
    if (a[i] && b[i]) inter++;
    if (a[i] || b[i]) union++;
  }
  return { inter, union };
}

function iou(a: Uint8Array, b: Uint8Array): number {
  const { inter, union } = overlap(a, b);
  return union > 0 ? inter / union : 0;
}

function touching(candidates: SlickCandidate[], truth: Uint8Array, scene: Scene): SlickCandidate[] {
  return candidates.filter((c) => overlap(maskOf(c, scene), truth).inter > 0);
}

// ---------------------------------------------------------------------- tests

describe('oil slicks: dark-spot detection and look-alike rules (generated sea, 10 m pixels)', () => {
  // A 9 km curved slick widening from 200 m to 500 m, 7 dB damping, on a 6 m/s-like sea.
  const slickScene = makeScene({
    width: 1400,
    height: 1200,
    seed: 1,
    slicks: [{ path: [[200, 300], [500, 420], [800, 600], [1150, 900]], halfWidth: [10, 25], dampingDb: 7 }],
  });

  it('finds a damped elongated slick with IoU ≥ 0.7 against its truth mask, and nothing else on open sea', () => {
    const candidates = run(slickScene);
    const slicks = candidates.filter((c) => c.isSlick);
    expect(slicks).toHaveLength(1);
    expect(slicks[0]!.oilProbability).toBeGreaterThan(0.9);
    const score = iou(maskOf(slicks[0]!, slickScene), slickScene.slickTruth[0]!);
    if (process.env.OILSLICK_DEBUG) console.log('IoU', score);
    expect(score).toBeGreaterThanOrEqual(0.7);
    // Measured 0.97 with the defaults; a regression well below that means the engine changed.
    expect(score).toBeGreaterThan(0.85);
    const f = slicks[0]!.features;
    expect(f.elongation).toBeGreaterThan(5);
    expect(f.contrastDb).toBeGreaterThan(4);
    expect(f.lengthM).toBeGreaterThan(7000);
  });

  it('rejects a slick-shaped dark spot when the whole background is calm (σ0 below CMOD5.N at 3 m/s)', () => {
    // Sea at −25 dB at 35° is wind below ~2 m/s: the "slick" cannot be told from calm water.
    const calmSea = makeScene({
      width: 1200,
      height: 1000,
      seed: 2,
      seaDb: -25,
      slicks: [{ path: [[200, 300], [600, 500], [1000, 650]], halfWidth: [12, 20], dampingDb: 7 }],
    });
    expect(lowWindSigma0Db(35, 3)).toBeGreaterThan(-25);
    const candidates = run(calmSea);
    const onIt = touching(candidates, calmSea.slickTruth[0]!, calmSea);
    expect(onIt.length).toBeGreaterThan(0); // it is found as a dark spot …
    for (const c of onIt) {
      expect(c.isSlick).toBe(false); // … and rejected as low wind
      expect(c.reasons).toContain('low_wind');
    }
    expect(candidates.filter((c) => c.isSlick)).toHaveLength(0);
  });

  it('rejects a calm (low-wind) patch in a windy sea: its neighbourhood is dark and its edge diffuse', () => {
    const scene = makeScene({
      width: 1600,
      height: 1400,
      seed: 3,
      calm: [{ center: [800, 700], a: 350, b: 180, angleDeg: 30, calmDb: 14 }],
    });
    const candidates = run(scene);
    const onIt = touching(candidates, scene.calmTruth[0]!, scene);
    expect(onIt.length).toBeGreaterThan(0);
    for (const c of onIt) {
      expect(c.isSlick).toBe(false);
      expect(c.reasons.some((r) => r === 'diffuse_edge' || r === 'dark_surroundings' || r === 'compact_shape')).toBe(true);
    }
    expect(candidates.filter((c) => c.isSlick)).toHaveLength(0);
  });

  it('a faint film with a diffuse edge (biogenic-like): the model puts it under its threshold; diffuse_edge still names it and vetoes it when asked', () => {
    // 7 km × 500 m filament, 4 dB down in the middle, fading over ±150 m across its width:
    // drawn out like oil, but weakly damped and soft-edged like a biogenic film.
    const scene = makeScene({
      width: 1200,
      height: 900,
      seed: 6,
      calm: [{ center: [600, 450], a: 350, b: 25, angleDeg: 20, calmDb: 4, transition: 0.6 }],
    });
    const onIt = touching(run(scene), scene.calmTruth[0]!, scene);
    expect(onIt.length).toBeGreaterThan(0);
    for (const c of onIt) {
      // diffuse_edge is no veto by default any more (issue 24 §2: on the real chips as σ0 it
      // removed half the slicks); the model rejects the film (candidate G: p 0.058 < 0.778).
      expect(c.isSlick).toBe(false);
      expect(c.reasons).toContain('low_probability');
      expect(c.reasons).toContain('diffuse_edge');
      expect(c.features.edgeGradientDbPer100m).toBeLessThan(DEFAULT_OIL_SLICK_PARAMS.minEdgeGradientDbPer100m);
    }
    // With the rule as a veto, it rejects the film whatever the model says (threshold 0).
    const anyProbability = touching(run(scene, { minOilProbability: 0, vetoRules: ['diffuse_edge'] }), scene.calmTruth[0]!, scene);
    expect(anyProbability.length).toBeGreaterThan(0);
    for (const c of anyProbability) expect(c.isSlick).toBe(false);
    expect(lowWindSigma0Db(30, 3)).toBeGreaterThan(lowWindSigma0Db(45, 3) + 8);
    expect(lowWindSigma0Db(35, 5)).toBeGreaterThan(lowWindSigma0Db(35, 3));
  });

  it('parameters are checked', () => {
    expect(() => resolveOilSlickParams({ speckleWindowPx: 4 })).toThrow(RangeError);
    expect(() => resolveOilSlickParams({ multilook: 0 })).toThrow(RangeError);
    expect(resolveOilSlickParams({ thresholdShiftDb: 3 }).thresholdShiftDb).toBe(3);
    expect(DEFAULT_OIL_SLICK_PARAMS.minAreaSqkm).toBe(0.03);
    expect(DEFAULT_OIL_SLICK_PARAMS.thresholdShiftDb).toBe(2);
    expect(DEFAULT_OIL_SLICK_PARAMS.vetoRules).toEqual(['low_wind']);
    expect(() => resolveOilSlickParams({ vetoRules: ['no_such_rule' as never] })).toThrow(RangeError);
    expect(() => resolveOilSlickParams({ minOilProbability: 1.5 })).toThrow(RangeError);
  });

  it('the threshold in force: the 8-bit one on scaled input, the calibrated one (when the model has it) on calibrated σ0, the parameter over both', () => {
    const model = { version: 1 as const, gbt: { kind: 'gbt-logistic' as const, featureNames: [], base: 0, learningRate: 0.1, trees: [] }, threshold: 0.7, training: {} };
    expect(DEFAULT_OIL_SLICK_PARAMS.scaledInput).toBe(false);
    expect(oilProbabilityThreshold(resolveOilSlickParams(), model)).toBe(0.7);
    expect(oilProbabilityThreshold(resolveOilSlickParams({ scaledInput: true }), model)).toBe(0.7);
    const withCalibrated = { ...model, calibratedThreshold: 0.85 };
    expect(oilProbabilityThreshold(resolveOilSlickParams(), withCalibrated)).toBe(0.85);
    expect(oilProbabilityThreshold(resolveOilSlickParams({ scaledInput: true }), withCalibrated)).toBe(0.7);
    expect(oilProbabilityThreshold(resolveOilSlickParams({ minOilProbability: 0.5 }), withCalibrated)).toBe(0.5);
    expect(oilProbabilityThreshold(resolveOilSlickParams(), null)).toBe(0.5);
  });
});

describe('oil slicks: full-resolution outline of accepted slicks (issue 11, thin ship trails)', () => {
  const m = DEFAULT_OIL_SLICK_PARAMS.multilook;
  const shift = DEFAULT_OIL_SLICK_PARAMS.thresholdShiftDb;

  /** The refined mask of a candidate over its outline window, the truth there and the working-grid mask there. */
  function refine(c: SlickCandidate, scene: Scene, path: Pt[], halfWidth: [number, number]) {
    const bounds = { x0: 0, y0: 0, width: scene.width, height: scene.height };
    const window = outlineWindow(c.region, m, SPACING, bounds)!;
    expect(window).not.toBeNull();
    const cut = <A extends Float32Array | Uint8Array>(src: A, out: A): A => {
      for (let y = 0; y < window.height; y++) out.set(src.subarray((window.y0 + y) * scene.width + window.x0, (window.y0 + y) * scene.width + window.x0 + window.width) as never, y * window.width);
      return out;
    };
    const n = window.width * window.height;
    const pixels = { ...window, sigma0: cut(scene.sigma0, new Float32Array(n)), valid: cut(scene.valid, new Uint8Array(n)) };
    const mask = refineOutlineMask(c.region, c.features.backgroundDb, m, SPACING, pixels, shift);
    expect(mask).not.toBeNull();
    const truth = new Uint8Array(n);
    for (let y = 0; y < window.height; y++) {
      for (let x = 0; x < window.width; x++) {
        const { d, t, length } = distanceToPath(path, window.x0 + x, window.y0 + y);
        const half = halfWidth[0] + (halfWidth[1] - halfWidth[0]) * Math.sqrt(t / length);
        if (d < half) truth[y * window.width + x] = 1;
      }
    }
    const grid = regionMask(c.region, m, scene.width, scene.height);
    const before = cut(grid, new Uint8Array(n));
    return { mask: mask!, truth, before };
  }

  const count = (a: Uint8Array): number => a.reduce((s, v) => s + v, 0);

  /** Working-grid row runs (and box) of the cells whose centres lie within `reachPx` full-resolution pixels of a path. */
  function bandRegion(path: Pt[], reachPx: number, width: number, height: number) {
    const runs: number[] = [];
    const box = { x0: Infinity, y0: Infinity, x1: -Infinity, y1: -Infinity };
    for (let y = 0; y < height / m; y++) {
      let start = -1;
      for (let x = 0; x <= width / m; x++) {
        const inBand = x < width / m && distanceToPath(path, x * m + (m - 1) / 2, y * m + (m - 1) / 2).d <= reachPx;
        if (inBand && start < 0) start = x;
        if (!inBand && start >= 0) {
          runs.push(y, start, x);
          box.x0 = Math.min(box.x0, start);
          box.x1 = Math.max(box.x1, x - 1);
          box.y0 = Math.min(box.y0, y);
          box.y1 = Math.max(box.y1, y);
          start = -1;
        }
      }
    }
    return { runs: Int32Array.from(runs), box };
  }

  it('golden input: a 30 m and a 50 m wide trail inside an 80 m wide candidate come out 30 ± 6 m and 50 ± 6 m wide', () => {
    // Straight 4 km trails at 20° from the rows, 7 dB damping, on a −14 dB sea; the candidate is
    // what the working grid draws for such trails: every 20 m cell within 40 m of the centre line.
    for (const [halfWidth, seed] of [[1.5, 31], [2.5, 32]] as const) {
      const path: Pt[] = [[150, 150], [526, 287]];
      const scene = makeScene({ width: 700, height: 450, seed, slicks: [{ path, halfWidth: [halfWidth, halfWidth], dampingDb: 7 }] });
      const region = bandRegion(path, 4, scene.width, scene.height);
      const window = outlineWindow(region, m, SPACING, { x0: 0, y0: 0, width: scene.width, height: scene.height })!;
      const cut = <A extends Float32Array | Uint8Array>(src: A, out: A): A => {
        for (let y = 0; y < window.height; y++) out.set(src.subarray((window.y0 + y) * scene.width + window.x0, (window.y0 + y) * scene.width + window.x0 + window.width) as never, y * window.width);
        return out;
      };
      const n = window.width * window.height;
      const mask = refineOutlineMask(region, -14, m, SPACING, { ...window, sigma0: cut(scene.sigma0, new Float32Array(n)), valid: cut(scene.valid, new Uint8Array(n)) }, shift)!;
      expect(mask).not.toBeNull();
      const truth = cut(scene.slickTruth[0]!, new Uint8Array(n));
      const lengthM = Math.hypot(376, 137) * 10;
      const widthM = (count(mask) * 100) / lengthM;
      const truthWidthM = (count(truth) * 100) / lengthM;
      const before = cut(regionMask({ runs: region.runs, box: region.box } as never, m, scene.width, scene.height), new Uint8Array(n));
      if (process.env.OILSLICK_DEBUG) console.log(`${2 * halfWidth * 10} m trail: truth ${truthWidthM.toFixed(1)} m, grid ${((count(before) * 100) / lengthM).toFixed(1)} m → ${widthM.toFixed(1)} m; IoU ${iou(before, truth).toFixed(3)} → ${iou(mask, truth).toFixed(3)}`);
      // Measured: 30 m → 28.7 m (IoU 0.37 → 0.69), 50 m → 46.9 m (IoU 0.62 → 0.85). One 10 m pixel
      // of error on each edge is IoU 0.5 for the 30 m trail.
      expect(Math.abs(widthM - 20 * halfWidth)).toBeLessThan(6);
      // What the slick reports as length_m and width_m (maskAxesM): measured 3,686 m × 31.1 m and
      // 4,213 m × 44.5 m for the 4,002 m long trails of 30 and 50 m.
      const axes = maskAxesM(mask, window.width, window.height, SPACING)!;
      if (process.env.OILSLICK_DEBUG) console.log(`  axes: length ${axes.lengthM.toFixed(0)} m, width ${axes.widthM.toFixed(1)} m`);
      expect(Math.abs(axes.lengthM - lengthM) / lengthM).toBeLessThan(0.1);
      expect(Math.abs(axes.widthM - 20 * halfWidth)).toBeLessThan(6);
      expect(iou(mask, truth)).toBeGreaterThan(halfWidth < 2 ? 0.6 : 0.75);
      expect(iou(mask, truth)).toBeGreaterThan(iou(before, truth) + 0.2);
    }
  });

  it('land (shore buffer) in the window stays out of the refined outline', () => {
    const path: Pt[] = [[150, 150], [526, 287]];
    const scene = makeScene({ width: 700, height: 450, seed: 34, slicks: [{ path, halfWidth: [2.5, 2.5], dampingDb: 7 }] });
    const region = bandRegion(path, 4, scene.width, scene.height);
    const window = outlineWindow(region, m, SPACING, { x0: 0, y0: 0, width: scene.width, height: scene.height })!;
    const n = window.width * window.height;
    const sigma0 = new Float32Array(n);
    const land = new Uint8Array(n);
    for (let y = 0; y < window.height; y++) {
      sigma0.set(scene.sigma0.subarray((window.y0 + y) * scene.width + window.x0, (window.y0 + y) * scene.width + window.x0 + window.width), y * window.width);
      land.fill(1, y * window.width, y * window.width + 150); // the first 1.5 km of the window's columns
    }
    const mask = refineOutlineMask(region, -14, m, SPACING, { ...window, sigma0, valid: new Uint8Array(n).fill(1), land }, shift)!;
    expect(mask).not.toBeNull();
    let onLand = 0;
    let onSea = 0;
    for (let i = 0; i < n; i++) {
      if (mask[i] && land[i]) onLand++;
      if (mask[i] && !land[i]) onSea++;
    }
    expect(onLand).toBe(0);
    expect(onSea).toBeGreaterThan(1000);
  });

  it('through the engine: a trail widening from 50 to 80 m is found, and its refined outline fits its truth better than the grid one', () => {
    const path: Pt[] = [[200, 250], [576, 387]];
    const halfWidth: [number, number] = [2.5, 4];
    const scene = makeScene({ width: 800, height: 650, seed: 33, slicks: [{ path, halfWidth, dampingDb: 7 }] });
    const slicks = run(scene).filter((c) => c.isSlick);
    expect(slicks).toHaveLength(1);
    const { mask, truth, before } = refine(slicks[0]!, scene, path, halfWidth);
    const after = iou(mask, truth);
    const grid = iou(before, truth);
    if (process.env.OILSLICK_DEBUG) console.log(`50–80 m trail: IoU ${grid.toFixed(3)} → ${after.toFixed(3)}, area ${count(before)} → ${count(mask)} px (truth ${count(truth)})`);
    // Measured 0.844 → 0.878: the grid draws a trail this wide fairly already.
    expect(after).toBeGreaterThan(grid + 0.02);
    expect(after).toBeGreaterThan(0.85);
  });

  it('a wide slick (200–500 m) keeps its outline: IoU against its truth not below the grid outline', () => {
    const path: Pt[] = [[200, 300], [500, 420], [800, 600], [1150, 900]];
    const halfWidth: [number, number] = [10, 25];
    const scene = makeScene({ width: 1400, height: 1200, seed: 1, slicks: [{ path, halfWidth, dampingDb: 7 }] });
    const slicks = run(scene).filter((c) => c.isSlick);
    expect(slicks).toHaveLength(1);
    const { mask, truth, before } = refine(slicks[0]!, scene, path, halfWidth);
    const after = iou(mask, truth);
    const grid = iou(before, truth);
    if (process.env.OILSLICK_DEBUG) console.log(`wide slick: IoU ${grid.toFixed(3)} → ${after.toFixed(3)}, area ${count(before)} → ${count(mask)} px (truth ${count(truth)})`);
    expect(after).toBeGreaterThan(0.9);
    expect(after).toBeGreaterThanOrEqual(grid - 0.01);
  });
});
