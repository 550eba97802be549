/**
 * Gradient-boosted decision trees for binary classification: the model format and its
 * prediction. Trees are stored flat (node arrays) so the model is plain JSON; a missing or
 * non-finite feature value goes to the node's `missingLeft` side. Training is in
 * training/oilslick/gbtTrain.ts.
 */

export interface GbtTree {
  /** Per node: feature index, or −1 for a leaf. */
  feature: number[];
  /** Split threshold: value < threshold goes left. */
  threshold: number[];
  left: number[];
  right: number[];
  /** Leaf value (log-odds contribution); 0 on internal nodes. */
  value: number[];
  /** 1 when a NaN value goes left. */
  missingLeft: number[];
}

export interface GbtModel {
  kind: 'gbt-logistic';
  featureNames: string[];
  /** Initial log-odds. */
  base: number;
  /** Shrinkage already applied to the leaf values (recorded for reference). */
  learningRate: number;
  trees: GbtTree[];
}

function treeValue(t: GbtTree, x: ArrayLike<number>): number {
  let k = 0;
  while (t.feature[k]! >= 0) {
    const v = x[t.feature[k]!]!;
    const goLeft = Number.isFinite(v) ? v < t.threshold[k]! : t.missingLeft[k] === 1;
    k = goLeft ? t.left[k]! : t.right[k]!;
  }
  return t.value[k]!;
}

/** Log-odds of the positive class. */
export function gbtMargin(model: GbtModel, x: ArrayLike<number>): number {
  let s = model.base;
  for (const t of model.trees) s += treeValue(t, x);
  return s;
}

export function sigmoid(z: number): number {
  return 1 / (1 + Math.exp(-z));
}

/** Probability of the positive class (0…1). */
export function gbtPredict(model: GbtModel, x: ArrayLike<number>): number {
  return sigmoid(gbtMargin(model, x));
}

/**
 * How many of the ascending `thresholds` are ≤ v: v's interval among a feature's split
 * thresholds (every split at one of the first `count` goes right for v, every other left).
 * The training's binning (training/oilslick/gbtTrain.ts) and the sea/land screen
 * (ship/seaLand.ts) both place values this way.
 */
export function thresholdsAtMost(thresholds: ArrayLike<number>, v: number): number {
  let lo = 0;
  let hi = thresholds.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (thresholds[mid]! <= v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
