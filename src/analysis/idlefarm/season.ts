// Season statistics of one field's series (docs/idlefarm.md): the largest sustained rise of VH
// over the season, the change of VH/VV over that same rise, how long the rise took, and when
// VH peaked. A growth cycle is a canopy building up: VH rises by 4–8 dB over weeks and, as
// volume scattering grows, VH/VV rises with it. Bare soil changes by rain and tillage: rain
// lifts both polarisations for a date (removed by the median), tillage is a step within one
// revisit that lifts VV as much as VH (VH/VV flat), grass swings by a dB or so. What tells land
// in use without a visible rise from fallow: a harvest (VH falls by several dB and stays down:
// a winter crop whose canopy was up before the window) and cuts (a managed meadow's VH/VV drops
// for a date or two and grows back, several times a season).

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
  /** Largest fall of the smoothed VH (a maximum followed by a later minimum), dB: a harvest. */
  vhFallDb: number;
  /** Change of the smoothed VH/VV over that fall, dB (negative at a harvest; about flat when tillage roughness slakes back). */
  ratioFallDb: number;
  /** Cuts seen: dates where the raw VH/VV drops by at least CUT_MIN_DB from the date before and grows back by as much within two dates. */
  cuts: number;
  /** Summed depth of those drops (each the smaller of the drop and the regrowth), dB. */
  cutDepthDb: number;
  /** Date of the highest smoothed VH. */
  vhMaxDate: string;
  /** Mean over valid dates (linear mean in power, reported in dB). */
  vhMeanDb: number;
  vvMeanDb: number;
}

export type SeasonOutcome = { stats: SeasonStats; reason: null } | { stats: null; reason: string; validDates: number };

/** Smallest VH/VV drop (and regrowth) counted as a cut, dB. */
export const CUT_MIN_DB = 1;

/** Cuts in a raw VH/VV series (dB): a drop from the date before that grows back within two dates. */
export function cutsOf(ratio: readonly number[], vh?: readonly number[]): { cuts: number; depthDb: number } {
  let cuts = 0;
  let depthDb = 0;
  for (let k = 1; k < ratio.length - 1; k++) {
    const drop = ratio[k - 1]! - ratio[k]!;
    // A cut lowers VH; VV rising alone (noise, a wet soil under thin grass) is not one.
    if (vh && vh[k - 1]! - vh[k]! < 0.5 * drop) continue;
    const regrowth = Math.max(ratio[k + 1]!, k + 2 < ratio.length ? ratio[k + 2]! : -Infinity) - ratio[k]!;
    const depth = Math.min(drop, regrowth);
    if (depth < CUT_MIN_DB) continue;
    cuts++;
    depthDb += depth;
    k++; // one cut is not counted again on its regrowth date
  }
  return { cuts, depthDb };
}

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
  let hi = 0;
  let drop = { fall: 0, from: 0, to: 0 };
  for (let j = 1; j < n; j++) {
    if (sVh[j - 1]! > sVh[hi]!) hi = j - 1;
    if (sVh[hi]! - sVh[j]! > drop.fall) drop = { fall: sVh[hi]! - sVh[j]!, from: hi, to: j };
  }
  const cuts = cutsOf(vhDb.map((v, k) => v - vvDb[k]!), vhDb);
  let top = 0;
  for (let k = 1; k < n; k++) if (sVh[k]! > sVh[top]!) top = k;
  return {
    stats: {
      validDates: n,
      vhRiseDb: best.rise,
      ratioRiseDb: sRatio[best.to]! - sRatio[best.from]!,
      riseDays: days[t90]! - days[t10]!,
      vhFallDb: drop.fall,
      ratioFallDb: sRatio[drop.to]! - sRatio[drop.from]!,
      cuts: cuts.cuts,
      cutDepthDb: cuts.depthDb,
      riseStart: dates[idx[best.from]!]!,
      riseEnd: dates[idx[best.to]!]!,
      vhMaxDate: dates[idx[top]!]!,
      vhMeanDb: meanDb(vhDb),
      vvMeanDb: meanDb(vvDb),
    },
    reason: null,
  };
}
