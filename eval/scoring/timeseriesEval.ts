// Scoring of time-series change points against known breaks, shared by the tests
// (test/analysis/timeseries.test.ts) and `npm run eval` (eval/change.ts):
// - generated series with step breaks (the generator the PELT penalty was calibrated on:
//   20–90 dates, 12-day revisit, noise 0.3–1.2 dB, 0–2 breaks of 3–8 σ, 5 % missing VV);
// - generated RTC stacks (src/synth) run through detectTimeseries, against the change dates
//   of their ground truth.
// A true break counts as dated when a detected change point lies within `toleranceRevisits`
// acquisitions of it (default 1: within one revisit).

import { SimRandom } from '../../training/change/simulate.ts';
import { detectChangePoints, type ChangePointOptions, type TimeseriesResult } from '../../src/analysis/timeseries/index.ts';
import { bboxOf, geodesicAreaSqm, intersectAoi, type AoiGeometry } from '../../src/geo/index.ts';

export interface BreakSeries {
  vv: number[];
  vh: number[];
  /** Index of the first observation at the new level. */
  breaks: number[];
}

/**
 * The `index`-th series of a generator stream (call in order 0, 1, 2 … with one `rng`): every
 * 4th series has no break, the others 1–2 breaks ≥ 4 dates apart and ≥ 3 dates from either end.
 */
export function breakSeries(rng: SimRandom, index: number): BreakSeries {
  const n = 20 + Math.floor(rng.uniform() * 71);
  const sigma = 0.3 + 0.9 * rng.uniform();
  const count = index % 4 === 0 ? 0 : 1 + Math.floor(rng.uniform() * 2);
  const breaks: number[] = [];
  while (breaks.length < count) {
    const b = 3 + Math.floor(rng.uniform() * (n - 6));
    if (breaks.every((x) => Math.abs(x - b) >= 4)) breaks.push(b);
  }
  const vv: number[] = [];
  const vh: number[] = [];
  let lv = -10;
  let lh = -17;
  for (let t = 0; t < n; t++) {
    if (breaks.includes(t)) {
      const step = (rng.uniform() < 0.5 ? -1 : 1) * (3 + 5 * rng.uniform()) * sigma;
      lv += step;
      lh += step * (0.5 + rng.uniform());
    }
    vv.push(rng.uniform() < 0.05 ? Number.NaN : lv + sigma * rng.normal());
    vh.push(lh + 1.2 * sigma * rng.normal());
  }
  return { vv, vh, breaks: breaks.sort((a, b) => a - b) };
}

export interface BreakScore {
  series: number;
  breaks: number;
  /** True breaks with a detected change point within the tolerance. */
  dated: number;
  /** …exactly at the break. */
  exact: number;
  fractionDated: number;
  /** Distance (acquisitions) from each true break to the nearest detected change point; Infinity when none. */
  errors: number[];
  /** Series without a break, and how many of them got a change point. */
  breakFreeSeries: number;
  breakFreeWithDetection: number;
  /** Change points more than the tolerance away from every true break. */
  extraChangePoints: number;
}

export function scoreSeriesBreaks(
  items: ReadonlyArray<{ breaks: readonly number[]; detected: readonly number[] }>,
  toleranceRevisits = 1,
): BreakScore {
  const errors: number[] = [];
  let breakFree = 0;
  let breakFreeHit = 0;
  let extra = 0;
  for (const { breaks, detected } of items) {
    if (breaks.length === 0) {
      breakFree++;
      if (detected.length > 0) breakFreeHit++;
    }
    for (const b of breaks) errors.push(detected.length ? Math.min(...detected.map((c) => Math.abs(c - b))) : Infinity);
    extra += detected.filter((c) => breaks.every((b) => Math.abs(c - b) > toleranceRevisits)).length;
  }
  const dated = errors.filter((e) => e <= toleranceRevisits).length;
  return {
    series: items.length,
    breaks: errors.length,
    dated,
    exact: errors.filter((e) => e === 0).length,
    fractionDated: errors.length ? dated / errors.length : 1,
    errors,
    breakFreeSeries: breakFree,
    breakFreeWithDetection: breakFreeHit,
    extraChangePoints: extra,
  };
}

/** Generate `count` series from `seed` and score detectChangePoints (VV and VH jointly) on them. */
export function evaluateGeneratedBreaks(seed: number, count: number, options?: ChangePointOptions, toleranceRevisits = 1): BreakScore {
  const rng = new SimRandom(seed);
  const items: Array<{ breaks: number[]; detected: number[] }> = [];
  for (let s = 0; s < count; s++) {
    const series = breakSeries(rng, s);
    items.push({ breaks: series.breaks, detected: detectChangePoints([series.vv, series.vh], options) });
  }
  return scoreSeriesBreaks(items, toleranceRevisits);
}

export interface StackTruthFeature {
  geometry: AoiGeometry;
  properties: { change_dates?: string[] };
}

const DAY = 86_400_000;

/**
 * True change dates of a generated stack's truth areas (fields with a harvest, forest
 * clearing, flood) per result cell lying at least `minInside` inside the area, and how many
 * a change point of that cell dates within `toleranceDays` (one revisit: 12 days).
 */
export function scoreStackBreaks(
  result: TimeseriesResult,
  truth: { features: readonly StackTruthFeature[] },
  minInside: number,
  toleranceDays = 12,
): { total: number; within: number; cells: number; errorsDays: number[] } {
  let total = 0;
  let within = 0;
  let cells = 0;
  const errorsDays: number[] = [];
  for (const t of truth.features.filter((f) => (f.properties.change_dates ?? []).length > 0)) {
    const [a, b, c, d] = bboxOf(t.geometry);
    for (const f of result.result.features) {
      const [p, q, r, s] = bboxOf(f.geometry);
      if (r < a || c < p || s < b || d < q) continue;
      const x = intersectAoi(f.geometry, t.geometry);
      if (!x || geodesicAreaSqm(x) < minInside * f.properties.area_sqm) continue;
      cells++;
      const found = (f.properties.changePointDates as string[]).map((day) => Date.parse(day));
      for (const day of t.properties.change_dates!) {
        total++;
        const error = found.length ? Math.min(...found.map((x) => Math.abs(x - Date.parse(day)))) : Infinity;
        errorsDays.push(error / DAY);
        if (error <= toleranceDays * DAY) within++;
      }
    }
  }
  return { total, within, cells, errorsDays };
}
