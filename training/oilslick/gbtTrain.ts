/**
 * Training of the gradient-boosted trees of src/analysis/oilslick/gbt.ts: logistic loss,
 * second-order (Newton) leaves with L2 shrinkage, histogram splits on per-feature quantile
 * bins, depth-limited trees, row subsampling from a seeded generator. Deterministic: the same
 * data, options and seed give the same model, bit for bit.
 */
import { gbtMargin, sigmoid, thresholdsAtMost, type GbtModel, type GbtTree } from '../../src/analysis/oilslick/gbt.ts';
import { mulberry32 } from '../../src/prng.ts';

export interface GbtOptions {
  trees: number;
  maxDepth: number;
  learningRate: number;
  /** L2 penalty on leaf values. */
  lambda: number;
  /** Smallest Σ hessian (× weight) in a child. */
  minChildWeight: number;
  /** Fraction of rows each tree sees. */
  subsample: number;
  /** Quantile bins per feature (≤ 255). */
  bins: number;
  seed: number;
}

export const DEFAULT_GBT_OPTIONS: GbtOptions = {
  trees: 200,
  maxDepth: 3,
  learningRate: 0.08,
  lambda: 1,
  minChildWeight: 2,
  subsample: 0.8,
  bins: 32,
  seed: 1,
};

export { mulberry32 };

const MISSING = 255;

/**
 * Split points per feature: at distinct quantiles q of the finite values, each placed halfway
 * between q and the largest value below it. The bins of the training rows are the same as with
 * q itself, but a split no longer sits exactly on a data value: a value computed slightly
 * differently at prediction (features rounded in the training cache, a count through log1p)
 * cannot fall on the other side of it.
 */
function binEdges(X: number[][], d: number, bins: number): number[][] {
  const edges: number[][] = [];
  for (let j = 0; j < d; j++) {
    const v = X.map((r) => r[j]!).filter(Number.isFinite).sort((a, b) => a - b);
    const e: number[] = [];
    for (let k = 1; k < bins; k++) {
      if (v.length === 0) break;
      let i = Math.floor((k * v.length) / bins);
      const q = v[i]!;
      while (i > 0 && v[i - 1] === q) i--;
      if (i === 0) continue; // q is the smallest value: nothing can go left of it
      const cut = (v[i - 1]! + q) / 2;
      if (e.length === 0 || cut > e[e.length - 1]!) e.push(cut);
    }
    edges.push(e);
  }
  return edges;
}

/** Bin of v: the number of edges ≤ v (so "bin < b" ⇔ v < edges[b−1]). */
function binOf(e: number[], v: number): number {
  return Number.isFinite(v) ? thresholdsAtMost(e, v) : MISSING;
}

interface Split {
  feature: number;
  /** Rows with bin < bin go left. */
  bin: number;
  missingLeft: boolean;
  gain: number;
}

/** Fit a model to rows X (features), labels y (0/1) and optional row weights. */
export function trainGbt(X: number[][], y: number[], weights: number[] | null, options: Partial<GbtOptions> = {}): GbtModel & { featureNames: string[] } {
  const o = { ...DEFAULT_GBT_OPTIONS, ...options };
  const n = X.length;
  if (n === 0 || y.length !== n) throw new RangeError('trainGbt: need rows and one label per row');
  const d = X[0]!.length;
  const w = weights ?? new Array<number>(n).fill(1);
  const edges = binEdges(X, d, o.bins);
  const B = new Uint8Array(n * d);
  for (let i = 0; i < n; i++) for (let j = 0; j < d; j++) B[i * d + j] = binOf(edges[j]!, X[i]![j]!);

  let sw = 0;
  let sy = 0;
  for (let i = 0; i < n; i++) {
    sw += w[i]!;
    sy += w[i]! * y[i]!;
  }
  const prior = Math.min(Math.max(sy / sw, 1e-6), 1 - 1e-6);
  const base = Math.log(prior / (1 - prior));
  const margin = new Float64Array(n).fill(base);
  const g = new Float64Array(n);
  const h = new Float64Array(n);
  const rnd = mulberry32(o.seed);
  const trees: GbtTree[] = [];

  for (let t = 0; t < o.trees; t++) {
    for (let i = 0; i < n; i++) {
      const p = sigmoid(margin[i]!);
      g[i] = w[i]! * (p - y[i]!);
      h[i] = w[i]! * Math.max(p * (1 - p), 1e-6);
    }
    const rows: number[] = [];
    for (let i = 0; i < n; i++) if (rnd() < o.subsample) rows.push(i);
    const tree: GbtTree = { feature: [], threshold: [], left: [], right: [], value: [], missingLeft: [] };
    const grow = (idx: number[], depth: number): number => {
      const node = tree.feature.length;
      tree.feature.push(-1);
      tree.threshold.push(0);
      tree.left.push(-1);
      tree.right.push(-1);
      tree.value.push(0);
      tree.missingLeft.push(0);
      let G = 0;
      let H = 0;
      for (const i of idx) {
        G += g[i]!;
        H += h[i]!;
      }
      const split = depth < o.maxDepth ? bestSplit(idx, G, H) : null;
      if (!split) {
        tree.value[node] = (-G / (H + o.lambda)) * o.learningRate;
        return node;
      }
      const goesLeft = (i: number): boolean => {
        const b = B[i * d + split.feature]!;
        return b === MISSING ? split.missingLeft : b < split.bin;
      };
      const li = idx.filter(goesLeft);
      const ri = idx.filter((i) => !goesLeft(i));
      tree.feature[node] = split.feature;
      tree.threshold[node] = edges[split.feature]![split.bin - 1]!;
      tree.missingLeft[node] = split.missingLeft ? 1 : 0;
      tree.left[node] = grow(li, depth + 1);
      tree.right[node] = grow(ri, depth + 1);
      return node;
    };
    const bestSplit = (idx: number[], G: number, H: number): Split | null => {
      const parent = (G * G) / (H + o.lambda);
      let best: Split | null = null;
      const gh = new Float64Array(256);
      const hh = new Float64Array(256);
      for (let j = 0; j < d; j++) {
        const nb = edges[j]!.length + 1;
        if (nb < 2) continue;
        gh.fill(0);
        hh.fill(0);
        for (const i of idx) {
          const b = B[i * d + j]!;
          gh[b]! += g[i]!;
          hh[b]! += h[i]!;
        }
        const gm = gh[MISSING]!;
        const hm = hh[MISSING]!;
        let gl = 0;
        let hl = 0;
        for (let b = 1; b < nb; b++) {
          gl += gh[b - 1]!;
          hl += hh[b - 1]!;
          for (const missingLeft of [false, true]) {
            const GL = gl + (missingLeft ? gm : 0);
            const HL = hl + (missingLeft ? hm : 0);
            const GR = G - GL;
            const HR = H - HL;
            if (HL < o.minChildWeight || HR < o.minChildWeight) continue;
            const gain = (GL * GL) / (HL + o.lambda) + (GR * GR) / (HR + o.lambda) - parent;
            if (gain > 1e-9 && (!best || gain > best.gain)) best = { feature: j, bin: b, missingLeft, gain };
          }
        }
      }
      return best;
    };
    grow(rows, 0);
    trees.push(tree);
    const model = { kind: 'gbt-logistic' as const, featureNames: [], base: 0, learningRate: o.learningRate, trees: [tree] };
    for (let i = 0; i < n; i++) margin[i]! += gbtMargin(model, X[i]!);
  }
  return { kind: 'gbt-logistic', featureNames: [], base, learningRate: o.learningRate, trees };
}
