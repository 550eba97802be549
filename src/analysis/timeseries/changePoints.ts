// Change points of a backscatter series: PELT (Killick, Fearnhead & Eckley 2012, "Optimal
// detection of changepoints with a linear computational cost") with a Gaussian mean-shift
// cost on the dB values, VV and VH jointly.
//
// Model: observation t of channel j is N(μ_{j,s}, σ_j²) inside segment s; a change point
// moves every channel's mean at once. Cost of a segment = Σ_j Σ_t (x_jt − x̄_j)² / σ_j², i.e.
// −2·log-likelihood up to a constant. σ_j is estimated robustly from the series itself:
// MAD of first differences / (0.6745·√2), which a few mean shifts barely move.
//
// Penalty (per change point): β = penaltyScale · (d + 1) · ln(n), d = number of channels:
// the BIC charge for the d new means and the location, times a scale calibrated on
// generated series (docs/timeseries.md). Segments have at least `minSegment` observations.
//
// A change point is reported as the date of the FIRST observation of the new segment: the
// break happened between the previous acquisition and that one.

export interface ChangePointOptions {
  /** Multiplies the BIC penalty (d + 1)·ln(n). Default DEFAULT_PENALTY_SCALE. */
  penaltyScale?: number;
  /** Minimum observations per segment. Default 2. */
  minSegment?: number;
  /** Floor for the estimated noise σ, dB (keeps a perfectly flat series from exploding). Default 0.1. */
  minSigmaDb?: number;
}

export const DEFAULT_PENALTY_SCALE = 2;

/** σ of white noise from first differences, robust to a few level shifts. NaN-free input. */
export function robustNoiseSigma(values: ArrayLike<number>): number {
  const n = values.length;
  if (n < 3) return Number.NaN;
  const diffs = new Float64Array(n - 1);
  for (let i = 1; i < n; i++) diffs[i - 1] = Math.abs(values[i]! - values[i - 1]!);
  diffs.sort();
  const m = diffs.length >> 1;
  const mad = diffs.length % 2 ? diffs[m]! : (diffs[m - 1]! + diffs[m]!) / 2;
  return mad / (0.6745 * Math.SQRT2);
}

/**
 * PELT on standardised observations `x` (n × d, row-major): returns the start indices of
 * every segment after the first (ascending).
 */
export function peltMeanShift(x: Float64Array, n: number, d: number, penalty: number, minSegment = 2): number[] {
  if (n < 2 * minSegment) return [];
  // Prefix sums per channel: S1 = Σx, S2 = Σx².
  const s1 = new Float64Array((n + 1) * d);
  const s2 = new Float64Array((n + 1) * d);
  for (let t = 0; t < n; t++) {
    for (let j = 0; j < d; j++) {
      const v = x[t * d + j]!;
      s1[(t + 1) * d + j] = s1[t * d + j]! + v;
      s2[(t + 1) * d + j] = s2[t * d + j]! + v * v;
    }
  }
  // Cost of observations [a, b).
  const cost = (a: number, b: number): number => {
    const m = b - a;
    let c = 0;
    for (let j = 0; j < d; j++) {
      const sum = s1[b * d + j]! - s1[a * d + j]!;
      c += s2[b * d + j]! - s2[a * d + j]! - (sum * sum) / m;
    }
    return c;
  };
  const F = new Float64Array(n + 1).fill(Infinity);
  const last = new Int32Array(n + 1).fill(-1);
  F[0] = -penalty;
  let candidates: number[] = [];
  for (let t = minSegment; t <= n; t++) {
    // τ = t − minSegment becomes admissible now that a segment (τ, t] is long enough.
    const tau = t - minSegment;
    if (tau === 0 || (tau >= minSegment && F[tau]! < Infinity)) candidates.push(tau);
    let best = Infinity;
    let arg = -1;
    for (const c of candidates) {
      const v = F[c]! + cost(c, t) + penalty;
      if (v < best) {
        best = v;
        arg = c;
      }
    }
    F[t] = best;
    last[t] = arg;
    // Pruning (K = 0 for this cost): a τ with F(τ) + C(τ, t) > F(t) can never be optimal later.
    candidates = candidates.filter((c) => F[c]! + cost(c, t) <= best);
  }
  const out: number[] = [];
  let t = n;
  while (t > 0) {
    const tau = last[t]!;
    if (tau <= 0) break;
    out.push(tau);
    t = tau;
  }
  return out.reverse();
}

/**
 * Change points of a multi-channel series with missing values (NaN): the indices (into the
 * original series) of the first observation of each new segment. Observations where any
 * used channel is missing are skipped; a channel with fewer than 3 values is not used.
 */
export function detectChangePoints(channels: ReadonlyArray<ArrayLike<number> | null>, options: ChangePointOptions = {}): number[] {
  const usable = channels.filter((c): c is ArrayLike<number> => {
    if (!c) return false;
    let k = 0;
    for (let i = 0; i < c.length; i++) if (Number.isFinite(c[i]!)) k++;
    return k >= 3;
  });
  if (usable.length === 0) return [];
  const length = usable[0]!.length;
  const index: number[] = [];
  for (let i = 0; i < length; i++) if (usable.every((c) => Number.isFinite(c[i]!))) index.push(i);
  const n = index.length;
  const d = usable.length;
  const minSegment = Math.max(1, options.minSegment ?? 2);
  if (n < 2 * minSegment) return [];
  const x = new Float64Array(n * d);
  const minSigma = options.minSigmaDb ?? 0.1;
  usable.forEach((c, j) => {
    const v = index.map((i) => c[i]!);
    const sigma = Math.max(minSigma, robustNoiseSigma(v) || 0);
    v.forEach((value, t) => (x[t * d + j] = value / sigma));
  });
  const penalty = (options.penaltyScale ?? DEFAULT_PENALTY_SCALE) * (d + 1) * Math.log(n);
  return peltMeanShift(x, n, d, penalty, minSegment).map((k) => index[k]!);
}
