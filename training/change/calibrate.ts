// training/change/: fitting the building-change model; may import src/, which never imports it.
//
// Fitting the building-change model (src/analysis/change/model.ts) on generated pairs with
// ground truth.
//
//   npm run train:change            # fit, choose threshold, print report
//
// 1. Training pixels from generated scenes (simulate.ts, 10 m, ENL 4.4): positives are
//    pixels at least half covered by an appeared building; negatives are pixels with no
//    appeared building within 2 pixels (the filter spreads a building by its radius, so
//    the ring around one is neither). Negatives are subsampled; classes get equal weight.
// 2. Logistic regression by Newton–Raphson (IRLS) with a small ridge, once per channel set
//    (VV+VH, VV only, VH only).
// 3. Threshold and minimum area: a grid search on other seeds for the best mean per-object
//    F1 of newbuilding and disappearbuilding (buildings ≥ 400 m²).
// The numbers it printed for the shipped model are in docs/change.md.

import { pathToFileURL } from 'node:url';
import { CHANNEL_FEATURES, DEFAULT_CHANGE_MODEL, FEATURE_NAMES, featuresAt, type ChangeModel, type Channels, type LogisticCoefficients } from '../../src/analysis/change/model.ts';
import { simulateChangePair, scoreObjects, SimRandom, type SimulatedPair, type SimulationSpec } from './simulate.ts';
import { detectChangeInTile, prepareFeatures } from '../../src/analysis/change/tile.ts';

export interface TrainingSet {
  /** Row-major: n × 6 features in FEATURE_NAMES order. */
  features: Float64Array;
  labels: Uint8Array;
  count: number;
}

const D = FEATURE_NAMES.length;

/** Training pixels of one pair (forward direction: appeared buildings are the positives). */
export function trainingPixels(pair: SimulatedPair, model: ChangeModel, negativeRate: number, rng: SimRandom): TrainingSet {
  const { width, height } = pair;
  const n = width * height;
  const { inputs, valid } = prepareFeatures({ ...pair }, 'newbuilding', model);
  // Distance-2 dilation of "any appeared cover".
  const near = new Uint8Array(n);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      if (!(pair.appearedCover[y * width + x]! > 0)) continue;
      for (let dy = -2; dy <= 2; dy++) {
        for (let dx = -2; dx <= 2; dx++) {
          const yy = y + dy;
          const xx = x + dx;
          if (yy >= 0 && yy < height && xx >= 0 && xx < width) near[yy * width + xx] = 1;
        }
      }
    }
  }
  const features: number[] = [];
  const labels: number[] = [];
  const f = new Float64Array(D);
  for (let i = 0; i < n; i++) {
    if (!valid[i]) continue;
    let label: number;
    if (pair.appearedCover[i]! >= 0.5) label = 1;
    else if (!near[i]) {
      if (rng.uniform() >= negativeRate) continue;
      label = 0;
    } else continue;
    if (!featuresAt(inputs, i, f)) continue;
    features.push(...f);
    labels.push(label);
  }
  return { features: Float64Array.from(features), labels: Uint8Array.from(labels), count: labels.length };
}

export function mergeTrainingSets(sets: TrainingSet[]): TrainingSet {
  const count = sets.reduce((s, t) => s + t.count, 0);
  const features = new Float64Array(count * D);
  const labels = new Uint8Array(count);
  let k = 0;
  for (const s of sets) {
    features.set(s.features, k * D);
    labels.set(s.labels, k);
    k += s.count;
  }
  return { features, labels, count };
}


/**
 * Class-balanced logistic regression by Newton–Raphson with ridge `lambda` (not on the
 * intercept). Features not in `channels` are left out (their coefficient is 0).
 */
export function fitLogistic(set: TrainingSet, channels: Channels, lambda = 1e-3, iterations = 30): LogisticCoefficients {
  const used = CHANNEL_FEATURES[channels].map((name) => FEATURE_NAMES.indexOf(name));
  const d = used.length + 1;
  let positives = 0;
  for (let i = 0; i < set.count; i++) positives += set.labels[i]!;
  const negatives = set.count - positives;
  if (positives === 0 || negatives === 0) throw new RangeError('fitLogistic: need both classes');
  const wPos = set.count / (2 * positives);
  const wNeg = set.count / (2 * negatives);
  const beta = new Float64Array(d);
  const x = new Float64Array(d);
  for (let it = 0; it < iterations; it++) {
    const grad = new Float64Array(d);
    const hess = new Float64Array(d * d);
    for (let i = 0; i < set.count; i++) {
      x[0] = 1;
      for (let k = 0; k < used.length; k++) x[k + 1] = set.features[i * D + used[k]!]!;
      let z = 0;
      for (let k = 0; k < d; k++) z += beta[k]! * x[k]!;
      const p = 1 / (1 + Math.exp(-z));
      const w = set.labels[i] ? wPos : wNeg;
      const r = w * (set.labels[i]! - p);
      const s = w * p * (1 - p);
      for (let a = 0; a < d; a++) {
        grad[a]! += r * x[a]!;
        for (let b = 0; b <= a; b++) hess[a * d + b]! += s * x[a]! * x[b]!;
      }
    }
    for (let a = 0; a < d; a++) for (let b = 0; b < a; b++) hess[b * d + a] = hess[a * d + b]!;
    for (let a = 1; a < d; a++) {
      grad[a]! -= lambda * set.count * beta[a]!;
      hess[a * d + a]! += lambda * set.count;
    }
    const step = solve(hess, grad, d);
    let change = 0;
    for (let a = 0; a < d; a++) {
      beta[a]! += step[a]!;
      change = Math.max(change, Math.abs(step[a]!));
    }
    if (change < 1e-8) break;
  }
  const c: LogisticCoefficients = { intercept: beta[0]!, logRatioVv: 0, logRatioVh: 0, brightVv: 0, brightVh: 0, contrastVv: 0, contrastVh: 0 };
  used.forEach((j, k) => {
    c[FEATURE_NAMES[j]!] = beta[k + 1]!;
  });
  return c;
}

/** Gaussian elimination with partial pivoting (d ≤ 5). */
function solve(a: Float64Array, b: Float64Array, d: number): Float64Array {
  const m = Float64Array.from(a);
  const v = Float64Array.from(b);
  for (let col = 0; col < d; col++) {
    let pivot = col;
    for (let r = col + 1; r < d; r++) if (Math.abs(m[r * d + col]!) > Math.abs(m[pivot * d + col]!)) pivot = r;
    if (pivot !== col) {
      for (let k = 0; k < d; k++) [m[col * d + k], m[pivot * d + k]] = [m[pivot * d + k]!, m[col * d + k]!];
      [v[col], v[pivot]] = [v[pivot]!, v[col]!];
    }
    const p = m[col * d + col]!;
    for (let r = col + 1; r < d; r++) {
      const f = m[r * d + col]! / p;
      for (let k = col; k < d; k++) m[r * d + k]! -= f * m[col * d + k]!;
      v[r]! -= f * v[col]!;
    }
  }
  const out = new Float64Array(d);
  for (let r = d - 1; r >= 0; r--) {
    let s = v[r]!;
    for (let k = r + 1; k < d; k++) s -= m[r * d + k]! * out[k]!;
    out[r] = s / m[r * d + r]!;
  }
  return out;
}

export interface ObjectScore {
  tp: number;
  fp: number;
  fn: number;
  precision: number;
  recall: number;
  f1: number;
}

/** Per-object scores of the model on one pair, both kinds, with the given polarisations. */
export function evaluatePair(
  pair: SimulatedPair,
  model: ChangeModel,
  channels: Channels = 'dual',
  params: { threshold?: number; minAreaSqm?: number; minRegionLogRatioDb?: number } = {},
): { newbuilding: ObjectScore; disappearbuilding: ObjectScore } {
  const pick = (b: { vv: Float32Array; vh: Float32Array }) => (channels === 'dual' ? b : channels === 'vv' ? { vv: b.vv } : { vh: b.vh });
  const input = {
    pre: pick(pair.pre),
    post: pick(pair.post),
    validPre: pair.validPre,
    validPost: pair.validPost,
    width: pair.width,
    height: pair.height,
    pixelSizeM: pair.pixelSizeM,
  };
  const run = (kind: 'newbuilding' | 'disappearbuilding') => detectChangeInTile(input, { kind, params: { model, ...params } }).regions;
  return {
    newbuilding: scoreObjects(run('newbuilding'), pair.appeared, pair.width),
    disappearbuilding: scoreObjects(run('disappearbuilding'), pair.vanished, pair.width),
  };
}

export interface CalibrationReport {
  model: ChangeModel;
  training: { pixels: number; positives: number };
  grid: Array<{ threshold: number; minAreaSqm: number; minRegionLogRatioDb: number; f1New: number; f1Gone: number }>;
}

export function calibrate(options: { trainSeeds?: number[]; evalSeeds?: number[]; size?: number; spec?: Partial<SimulationSpec> } = {}): CalibrationReport {
  const size = options.size ?? 600;
  const spec = (seed: number): SimulationSpec => ({ width: size, height: size, seed, ...options.spec });
  const rng = new SimRandom(7);
  const base = DEFAULT_CHANGE_MODEL;
  const sets = (options.trainSeeds ?? [101, 102, 103, 104]).map((seed) => trainingPixels(simulateChangePair(spec(seed)), base, 0.05, rng));
  const set = mergeTrainingSets(sets);
  let positives = 0;
  for (let i = 0; i < set.count; i++) positives += set.labels[i]!;
  const fitted: ChangeModel = {
    ...base,
    dual: fitLogistic(set, 'dual'),
    vvOnly: fitLogistic(set, 'vv'),
    vhOnly: fitLogistic(set, 'vh'),
  };
  const pairs = (options.evalSeeds ?? [201, 202, 203]).map((seed) => simulateChangePair(spec(seed)));
  const grid: CalibrationReport['grid'] = [];
  let best = { score: -1, threshold: base.threshold, minAreaSqm: base.minAreaSqm, minRegionLogRatioDb: base.minRegionLogRatioDb };
  for (const threshold of [0.5, 0.6, 0.7, 0.8, 0.9, 0.95]) {
    for (const minAreaSqm of [200, 300, 400]) {
      for (const minRegionLogRatioDb of [3, 4, 5, 6]) {
        let f1New = 0;
        let f1Gone = 0;
        for (const pair of pairs) {
          const s = evaluatePair(pair, fitted, 'dual', { threshold, minAreaSqm, minRegionLogRatioDb });
          f1New += s.newbuilding.f1 / pairs.length;
          f1Gone += s.disappearbuilding.f1 / pairs.length;
        }
        grid.push({ threshold, minAreaSqm, minRegionLogRatioDb, f1New, f1Gone });
        const score = (f1New + f1Gone) / 2;
        if (score > best.score + 1e-9) best = { score, threshold, minAreaSqm, minRegionLogRatioDb };
      }
    }
  }
  return {
    model: { ...fitted, threshold: best.threshold, minAreaSqm: best.minAreaSqm, minRegionLogRatioDb: best.minRegionLogRatioDb },
    training: { pixels: set.count, positives },
    grid,
  };
}

const round = (x: number, d = 4): number => Math.round(x * 10 ** d) / 10 ** d;

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const started = Date.now();
  const report = calibrate();
  const m = report.model;
  const show = (c: LogisticCoefficients) => Object.fromEntries(Object.entries(c).map(([k, v]) => [k, round(v)]));
  console.log(`training pixels ${report.training.pixels} (${report.training.positives} positive)`);
  console.log('dual', show(m.dual));
  console.log('vvOnly', show(m.vvOnly));
  console.log('vhOnly', show(m.vhOnly));
  console.log(`threshold ${m.threshold}, minAreaSqm ${m.minAreaSqm}, minRegionLogRatioDb ${m.minRegionLogRatioDb}`);
  console.log('threshold minArea minLogRatio f1New f1Gone');
  for (const g of report.grid) console.log(g.threshold, g.minAreaSqm, g.minRegionLogRatioDb, round(g.f1New, 3), round(g.f1Gone, 3));
  for (const seed of [301, 302]) {
    const pair = simulateChangePair({ width: 600, height: 600, seed });
    for (const ch of ['dual', 'vv', 'vh'] as const) {
      const s = evaluatePair(pair, m, ch);
      console.log(`holdout seed ${seed} ${ch}: new ${JSON.stringify(s.newbuilding)} gone ${JSON.stringify(s.disappearbuilding)}`);
    }
  }
  console.log(`${((Date.now() - started) / 1000).toFixed(1)} s`);
}
