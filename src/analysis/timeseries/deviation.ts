// Moving statistics and the latest value's deviation (interface spec: "deviation from the
// long-term moving average divided by its standard deviation").
//
// For observation i the moving window is the `window` most recent VALID observations
// BEFORE i (i itself excluded, so an outlier does not dampen its own score):
//   mean_i = average of the window,  std_i = max(stdFloorDb, sample standard deviation),
// defined when the window holds at least `minObservations` values (else null).
//   deviation = (x_last − mean_last) / std_last
// computed at the LAST date of the series; null when the cell has no value that date or the
// window is too short. All in dB. The chart's band is mean_i ± bandSigmas · std_i, so a point
// outside the band is one with |deviation| > bandSigmas at its own date.

export interface DeviationOptions {
  /** Previous valid observations in the window. Default 10 (≈ 120 days at a 12-day revisit). */
  window?: number;
  /** Fewest observations for a mean and std. Default 3. */
  minObservations?: number;
  /** Floor of the moving std, dB. Default 0.1 (Sentinel-1's radiometric stability). */
  stdFloorDb?: number;
}

export const DEFAULT_WINDOW = 10;
export const DEFAULT_MIN_OBSERVATIONS = 3;
export const DEFAULT_STD_FLOOR_DB = 0.1;

export interface MovingStatistics {
  /** Per observation; NaN where undefined. */
  mean: Float64Array;
  std: Float64Array;
}

/** Moving mean and std of the previous `window` valid observations, for every index. */
export function movingStatistics(values: ArrayLike<number>, options: DeviationOptions = {}): MovingStatistics {
  const window = Math.max(1, options.window ?? DEFAULT_WINDOW);
  const minObs = Math.max(2, options.minObservations ?? DEFAULT_MIN_OBSERVATIONS);
  const floor = options.stdFloorDb ?? DEFAULT_STD_FLOOR_DB;
  const n = values.length;
  const mean = new Float64Array(n).fill(Number.NaN);
  const std = new Float64Array(n).fill(Number.NaN);
  const recent: number[] = [];
  for (let i = 0; i < n; i++) {
    if (recent.length >= minObs) {
      let s = 0;
      for (const v of recent) s += v;
      const m = s / recent.length;
      let q = 0;
      for (const v of recent) q += (v - m) * (v - m);
      mean[i] = m;
      std[i] = Math.max(floor, Math.sqrt(q / (recent.length - 1)));
    }
    const v = values[i]!;
    if (Number.isFinite(v)) {
      recent.push(v);
      if (recent.length > window) recent.shift();
    }
  }
  return { mean, std };
}

/** (x_last − mean_last) / std_last at the last index; null when undefined. */
export function latestDeviation(values: ArrayLike<number>, options: DeviationOptions = {}): number | null {
  const n = values.length;
  if (n === 0) return null;
  const x = values[n - 1]!;
  if (!Number.isFinite(x)) return null;
  const { mean, std } = movingStatistics(values, options);
  const m = mean[n - 1]!;
  const s = std[n - 1]!;
  if (!Number.isFinite(m) || !Number.isFinite(s)) return null;
  return (x - m) / s;
}
