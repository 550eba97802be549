// Season statistics of one field's series (docs/idlefarm.md): the largest sustained rise of VH
// over the season, the change of VH/VV over that same rise, how long the rise took, and when
// VH peaked. A growth cycle is a canopy building up: VH rises by 4–8 dB over weeks and, as
// volume scattering grows, VH/VV rises with it. Bare soil changes by rain and tillage: rain
// lifts both polarisations for a date (removed by the median), tillage is a step within one
// revisit that lifts VV as much as VH (VH/VV flat), grass swings by a dB or so.

/** Fewest dates with both VV and VH for a decision. */
export const MIN_VALID_DATES = 8;
/** Shortest span (days) between the first and last valid date for a decision. */
export const MIN_SPAN_DAYS = 90;

export interface SeasonStats {
  /** Dates with both VV and VH. */
  validDates: number;
  /** Largest rise of the smoothed VH series (a minimum followed by a later maximum), dB. */
  vhRiseDb: number;
  /** Change of the smoothed VH/VV (dB difference VH − VV) from the start to the end of that rise, dB. */
  ratioRiseDb: number;
  /** Days from 10 % to 90 % of the VH rise. */
  riseDays: number;
  /** Dates where the rise starts (smoothed VH minimum) and where it ends. */
  riseStart: string;
  riseEnd: string;
  /** Date of the highest smoothed VH. */
  vhMaxDate: string;
  /** Mean over valid dates (linear mean in power, reported in dB). */
  vhMeanDb: number;
  vvMeanDb: number;
}

export type SeasonOutcome = { stats: SeasonStats; reason: null } | { stats: null; reason: string; validDates: number };

const dayNumber = (date: string): number => Date.parse(`${date}T00:00:00Z`) / 86_400_000;

/** Running median of 3, then a [1 2 1] mean: a single-date spike (rain, a wet overpass) is removed, the rest keeps its shape. */
export function smoothSeries(x: readonly number[]): number[] {
  const n = x.length;
  if (n < 3) return [...x];
  const med = x.map((v, i) => {
    if (i === 0 || i === n - 1) return v;
    const a = x[i - 1]!;
    const c = x[i + 1]!;
    return Math.max(Math.min(a, v), Math.min(Math.max(a, v), c));
  });
  return med.map((v, i) => (i === 0 ? (2 * v + med[1]!) / 3 : i === n - 1 ? (2 * v + med[n - 2]!) / 3 : (med[i - 1]! + 2 * v + med[i + 1]!) / 4));
}

const meanDb = (db: readonly number[]): number => 10 * Math.log10(db.reduce((s, v) => s + 10 ** (v / 10), 0) / db.length);

/** Season statistics of a field, or why there are none (too few dates, too short a span). */
export function seasonStats(dates: readonly string[], vv: ArrayLike<number>, vh: ArrayLike<number>): SeasonOutcome {
  const idx: number[] = [];
  for (let i = 0; i < dates.length; i++) if (Number.isFinite(vv[i]) && Number.isFinite(vh[i])) idx.push(i);
  const n = idx.length;
  if (n === 0) return { stats: null, reason: 'no date has valid VV and VH pixels over the field', validDates: 0 };
  if (n < MIN_VALID_DATES) return { stats: null, reason: `only ${n} date${n === 1 ? '' : 's'} with both VV and VH over the field (at least ${MIN_VALID_DATES} needed)`, validDates: n };
  const span = dayNumber(dates[idx[n - 1]!]!) - dayNumber(dates[idx[0]!]!);
  if (span < MIN_SPAN_DAYS) return { stats: null, reason: `the valid dates span ${span} days (at least ${MIN_SPAN_DAYS} needed for a season)`, validDates: n };

  const vhDb = idx.map((i) => vh[i]!);
  const vvDb = idx.map((i) => vv[i]!);
  const sVh = smoothSeries(vhDb);
  const sRatio = smoothSeries(idx.map((_, k) => vhDb[k]! - vvDb[k]!));
  const days = idx.map((i) => dayNumber(dates[i]!));

  // Largest rise: for each end point, the lowest point before it.
  let lo = 0;
  let best = { rise: 0, from: 0, to: 0 };
  for (let j = 1; j < n; j++) {
    if (sVh[j - 1]! < sVh[lo]!) lo = j - 1;
    const rise = sVh[j]! - sVh[lo]!;
    if (rise > best.rise) best = { rise, from: lo, to: j };
  }
  let t10 = best.from;
  let t90 = best.to;
  if (best.rise > 0) {
    const base = sVh[best.from]!;
    for (let k = best.from; k <= best.to; k++) if (sVh[k]! >= base + 0.1 * best.rise) { t10 = k; break; }
    for (let k = best.from; k <= best.to; k++) if (sVh[k]! >= base + 0.9 * best.rise) { t90 = k; break; }
  }
  let top = 0;
  for (let k = 1; k < n; k++) if (sVh[k]! > sVh[top]!) top = k;
  return {
    stats: {
      validDates: n,
      vhRiseDb: best.rise,
      ratioRiseDb: sRatio[best.to]! - sRatio[best.from]!,
      riseDays: days[t90]! - days[t10]!,
      riseStart: dates[idx[best.from]!]!,
      riseEnd: dates[idx[best.to]!]!,
      vhMaxDate: dates[idx[top]!]!,
      vhMeanDb: meanDb(vhDb),
      vvMeanDb: meanDb(vvDb),
    },
    reason: null,
  };
}
