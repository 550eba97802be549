/**
 * Scene selection for polygon input (spec "What the service does" items 9–10, Coverage,
 * Scene selection, Warning object). Pure functions over scene records: no I/O, no clock.
 * docs/catalog.md states every rule and tie-break implemented here; the table tests in
 * test/catalog/selection.test.ts name them.
 */
import { geodesicAreaSqkm, intersectAoi, intersectByParts, toWkt, unionAoi } from '../geo/index.ts';
import type { AoiGeometry } from '../geo/types.ts';
import { alongTrackOverlapDeg } from './orbit.ts';
import type { OrbitDirection, SceneProductType, SceneQuery, SceneRecord } from './types.ts';

// ---------------------------------------------------------------------------------------
// Result shapes

export interface CoverageEstimate {
  method: 'estimated';
  /** Geodesic area of the requested polygon, km² (6 decimals). */
  requested_area_sqkm: number;
  /** (polygon ∩ imagery) / polygon, rounded down to two decimals. */
  ratio: number;
  /** WKT of polygon ∩ imagery; null when they do not intersect. */
  polygon: string | null;
}

export type SelectionWarningCode = 'LOW_AOI_COVERAGE' | 'PERIOD_PARTIALLY_COVERED';

export interface SelectionWarning {
  code: SelectionWarningCode;
  message: string;
}

export interface SceneSelectionMonths {
  first_month: string | null;
  last_month: string | null;
}

export interface NoSceneFound {
  ok: false;
  code: 'NO_SCENE_FOUND';
  message: string;
}

interface SelectionCommon {
  ok: true;
  /** polygon ∩ imagery: the part of the polygon the analysis can cover (clip to this). */
  analysisExtent: AoiGeometry;
  coverage: CoverageEstimate;
  scene_selection: SceneSelectionMonths;
  warnings: SelectionWarning[];
}

export interface NearestSceneSelection extends SelectionCommon {
  scene: SceneRecord;
  /** Calendar days from `date` to the scene's acquisition day (negative: before). */
  dayOffset: number;
}

export interface ChangePairSelection extends SelectionCommon {
  earlier: SceneRecord;
  later: SceneRecord;
}

export interface PathFrameKey {
  platformGroup: SceneRecord['platformGroup'];
  relativeOrbit: number;
  orbitDirection: OrbitDirection;
}

export interface SeriesSelection extends SelectionCommon {
  /** Every scene of the chosen path/frame in the period, oldest first. */
  scenes: SceneRecord[];
  pathFrame: PathFrameKey;
  /** Distinct passes (acquisitions) among `scenes`. */
  passCount: number;
}

export type DateDirection = 'before' | 'after' | 'nearest';

export const DEFAULT_WINDOW_DAYS = 14;
export const DEFAULT_LOW_COVERAGE_THRESHOLD = 0.95;
/** Sentinel-1 repeat cycle of one unit: the gap that counts as a missing observation. */
export const DEFAULT_REVISIT_DAYS = 12;

export interface NearestSceneOptions {
  aoi: AoiGeometry;
  /** The reference day: `YYYY-MM-DD` or a Date (its UTC calendar day). */
  date: string | Date;
  direction?: DateDirection;
  orbitDirection?: OrbitDirection;
  windowDays?: number;
  /** Default ['GRD'] (spec: "the GRD scene closest to date"). */
  productTypes?: SceneProductType[];
  lowCoverageThreshold?: number;
}

export interface PeriodOptions {
  aoi: AoiGeometry;
  dateStart: string | Date;
  dateEnd: string | Date;
  orbitDirection?: OrbitDirection;
  /** Product types to consider (an endpoint's: its descriptor's `imagery`). All when absent. */
  productTypes?: SceneProductType[];
  lowCoverageThreshold?: number;
  revisitDays?: number;
}

// ---------------------------------------------------------------------------------------
// Path / frame

/**
 * Same path/frame: same platform group (one reference ground-track grid), same relative
 * orbit, same orbit direction, and along-track frames that overlap by more than zero
 * degrees of argument of latitude. Such products see the ground from the same geometry and
 * image a common stretch of it.
 */
export function samePathFrame(a: SceneRecord, b: SceneRecord): boolean {
  return (
    a.platformGroup === b.platformGroup &&
    a.relativeOrbit === b.relativeOrbit &&
    a.orbitDirection === b.orbitDirection &&
    alongTrackOverlapDeg(a.frame, b.frame) > 0
  );
}

// ---------------------------------------------------------------------------------------
// Days, months, rounding

const DAY_MS = 86_400_000;

/** Days since 1970-01-01 of a `YYYY-MM-DD` string, an ISO timestamp or a Date (UTC). */
export function utcDayNumber(d: string | Date): number {
  if (d instanceof Date) return Math.floor(d.getTime() / DAY_MS);
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(d);
  if (m) {
    const t = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
    const back = new Date(t);
    if (back.getUTCDate() !== Number(m[3]) || back.getUTCMonth() !== Number(m[2]) - 1) {
      throw new RangeError(`invalid date "${d}"`);
    }
    return t / DAY_MS;
  }
  const t = Date.parse(d);
  if (Number.isNaN(t)) throw new RangeError(`invalid date "${d}"`);
  return Math.floor(t / DAY_MS);
}

function dayString(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10);
}

function monthOf(iso: string): string {
  return new Date(Date.parse(iso)).toISOString().slice(0, 7);
}

/** Rounds a ratio down to two decimals (spec: "rounded down"), robust to binary noise. */
export function floorRatio(x: number): number {
  if (!Number.isFinite(x) || x <= 0) return 0;
  if (x >= 1) return 1;
  return Math.floor(x * 100 + 1e-9) / 100;
}

/** Observation months of the earliest and latest scene used, `YYYY-MM`. */
export function sceneSelectionMonths(scenes: readonly SceneRecord[]): SceneSelectionMonths {
  if (scenes.length === 0) return { first_month: null, last_month: null };
  let first = scenes[0]!.startTime;
  let last = first;
  for (const s of scenes) {
    if (Date.parse(s.startTime) < Date.parse(first)) first = s.startTime;
    if (Date.parse(s.startTime) > Date.parse(last)) last = s.startTime;
  }
  return { first_month: monthOf(first), last_month: monthOf(last) };
}

// ---------------------------------------------------------------------------------------
// Catalog queries that fetch exactly the candidates a selection considers

/** The catalog query for selectNearestScene: polygon, ±window calendar days, type, direction. */
export function sceneQueryForNearest(opts: NearestSceneOptions): SceneQuery {
  const d0 = utcDayNumber(opts.date);
  const w = opts.windowDays ?? DEFAULT_WINDOW_DAYS;
  const direction = opts.direction ?? 'nearest';
  const first = direction === 'after' ? d0 : d0 - w;
  const last = direction === 'before' ? d0 : d0 + w;
  const q: SceneQuery = {
    intersects: opts.aoi,
    start: new Date(first * DAY_MS),
    end: new Date((last + 1) * DAY_MS - 1),
    productTypes: opts.productTypes ?? ['GRD'],
  };
  if (opts.orbitDirection) q.orbitDirection = opts.orbitDirection;
  return q;
}

/** The catalog query for selectChangePair / selectSeries: polygon, [date_start, date_end] days. */
export function sceneQueryForPeriod(opts: PeriodOptions): SceneQuery {
  const q: SceneQuery = {
    intersects: opts.aoi,
    start: new Date(utcDayNumber(opts.dateStart) * DAY_MS),
    end: new Date((utcDayNumber(opts.dateEnd) + 1) * DAY_MS - 1),
  };
  if (opts.productTypes) q.productTypes = opts.productTypes;
  if (opts.orbitDirection) q.orbitDirection = opts.orbitDirection;
  return q;
}

// ---------------------------------------------------------------------------------------
// Coverage and warnings

/**
 * Geodesic area, once per geometry: a selection measures the request polygon and each clip
 * more than once (coverage of each candidate, then of the chosen extent), and on a polygon of
 * many vertices each measure costs milliseconds. Geometries are never changed once built.
 */
const areas = new WeakMap<AoiGeometry, number>();
export function areaSqkm(g: AoiGeometry | null): number {
  if (!g) return 0;
  let area = areas.get(g);
  if (area === undefined) areas.set(g, (area = geodesicAreaSqkm(g)));
  return area;
}

function unionOf(list: AoiGeometry[]): AoiGeometry | null {
  if (list.length === 0) return null;
  if (list.length === 1) return list[0]!;
  return unionAoi(list);
}

/** polygon ∩ (∪ footprints) — or ∩ of all footprints with `combine: 'intersection'`. */
export function coveredExtent(
  aoi: AoiGeometry,
  footprints: readonly AoiGeometry[],
  combine: 'union' | 'intersection' = 'union',
): AoiGeometry | null {
  if (footprints.length === 0) return null;
  if (combine === 'intersection') {
    let acc: AoiGeometry | null = aoi;
    for (const f of footprints) {
      acc = acc ? intersectAoi(acc, f) : null;
      if (!acc) return null;
    }
    return acc;
  }
  const clips = footprints.map((f) => intersectByParts(aoi, f)).filter((g): g is AoiGeometry => g !== null);
  return unionOf(clips);
}

/**
 * The estimated coverage object: polygon ∩ footprint area / polygon area (footprints
 * combined by union — a series, a mosaic — or by intersection — a change pair, which can
 * only be analysed where both images exist).
 */
export function estimateCoverage(
  aoi: AoiGeometry,
  footprints: readonly AoiGeometry[],
  combine: 'union' | 'intersection' = 'union',
): CoverageEstimate {
  const extent = coveredExtent(aoi, footprints, combine);
  return coverageOfExtent(aoi, extent);
}

function coverageOfExtent(aoi: AoiGeometry, extent: AoiGeometry | null): CoverageEstimate {
  const requested = areaSqkm(aoi);
  const covered = areaSqkm(extent);
  return {
    method: 'estimated',
    requested_area_sqkm: Math.round(requested * 1e6) / 1e6,
    ratio: requested > 0 ? floorRatio(covered / requested) : 0,
    polygon: extent && covered > 0 ? toWkt(extent) : null,
  };
}

/** LOW_AOI_COVERAGE when the reported (floored) ratio is below the threshold (default 0.95). */
export function lowCoverageWarning(ratio: number, threshold = DEFAULT_LOW_COVERAGE_THRESHOLD): SelectionWarning | null {
  if (ratio >= threshold) return null;
  return {
    code: 'LOW_AOI_COVERAGE',
    message: `The selected imagery covers ${Math.round(ratio * 100)}% of the requested polygon (below ${Math.round(threshold * 100)}%); the rest was not analysed.`,
  };
}

/**
 * PERIOD_PARTIALLY_COVERED when the first observation's day is more than `revisitDays`
 * after date_start, or the last one's more than `revisitDays` before date_end (calendar
 * days, UTC). The message names months only: exact acquisition dates are not disclosed.
 */
export function periodCoverageWarning(
  scenes: readonly SceneRecord[],
  dateStart: string | Date,
  dateEnd: string | Date,
  revisitDays = DEFAULT_REVISIT_DAYS,
): SelectionWarning | null {
  if (scenes.length === 0) return null;
  const s = utcDayNumber(dateStart);
  const e = utcDayNumber(dateEnd);
  const days = scenes.map((x) => utcDayNumber(x.startTime));
  const first = Math.min(...days);
  const last = Math.max(...days);
  const lateStart = first - s > revisitDays;
  const earlyEnd = e - last > revisitDays;
  if (!lateStart && !earlyEnd) return null;
  const months = sceneSelectionMonths(scenes);
  const parts: string[] = [];
  if (lateStart) parts.push('the start');
  if (earlyEnd) parts.push('the end');
  return {
    code: 'PERIOD_PARTIALLY_COVERED',
    message: `Suitable imagery was found from ${months.first_month} to ${months.last_month} only; observations are missing at ${parts.join(' and ')} of the requested period ${dayString(s)} to ${dayString(e)}.`,
  };
}

function warningsFor(
  ratio: number,
  threshold: number | undefined,
  period?: { scenes: readonly SceneRecord[]; start: string | Date; end: string | Date; revisitDays?: number },
): SelectionWarning[] {
  const out: SelectionWarning[] = [];
  const low = lowCoverageWarning(ratio, threshold);
  if (low) out.push(low);
  if (period) {
    const p = periodCoverageWarning(period.scenes, period.start, period.end, period.revisitDays);
    if (p) out.push(p);
  }
  return out;
}

// ---------------------------------------------------------------------------------------
// Candidates

interface Candidate {
  scene: SceneRecord;
  day: number;
  time: number;
  clip: AoiGeometry;
  /** Exact clip area / AOI area. */
  cov: number;
}

function candidatesOf(
  scenes: readonly SceneRecord[],
  aoi: AoiGeometry,
  aoiArea: number,
  keep: (s: SceneRecord, day: number) => boolean,
  productTypes: readonly string[] | undefined,
  orbitDirection: OrbitDirection | undefined,
): Candidate[] {
  const out: Candidate[] = [];
  for (const scene of scenes) {
    if (productTypes && productTypes.length > 0 && !productTypes.includes(scene.productType)) continue;
    if (orbitDirection && scene.orbitDirection !== orbitDirection) continue;
    const day = utcDayNumber(scene.startTime);
    if (!keep(scene, day)) continue;
    // Part by part: a request of many parts is clipped against every candidate (geo/clip.ts).
    const clip = intersectByParts(aoi, scene.footprint);
    if (!clip) continue;
    const area = areaSqkm(clip);
    if (!(area > 0)) continue;
    out.push({ scene, day, time: Date.parse(scene.startTime), clip, cov: aoiArea > 0 ? Math.min(1, area / aoiArea) : 0 });
  }
  return out;
}

function describeFilter(productTypes: readonly string[] | undefined, orbitDirection: OrbitDirection | undefined): string {
  const type = productTypes && productTypes.length > 0 ? productTypes.join('/') : 'Sentinel-1';
  return `${type} scene${orbitDirection ? ` (${orbitDirection} orbit)` : ''}`;
}

function noScene(message: string): NoSceneFound {
  return { ok: false, code: 'NO_SCENE_FOUND', message };
}

function cmpStr(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

// ---------------------------------------------------------------------------------------
// ship / oilslick: the scene nearest to a date

/**
 * The scene closest to `date` within ±windowDays calendar days that intersects the polygon.
 * Ranking: fewest calendar days from `date`; then the higher (floored) coverage of the
 * polygon; then, for `nearest`, the one before `date` over the one after; then the earlier
 * acquisition; then the smaller scene id. `before` admits days ≤ date, `after` days ≥ date
 * (the day itself belongs to both).
 */
export function selectNearestScene(
  scenes: readonly SceneRecord[],
  opts: NearestSceneOptions,
): NearestSceneSelection | NoSceneFound {
  const direction = opts.direction ?? 'nearest';
  const windowDays = opts.windowDays ?? DEFAULT_WINDOW_DAYS;
  const productTypes = opts.productTypes ?? ['GRD'];
  const d0 = utcDayNumber(opts.date);
  const aoiArea = areaSqkm(opts.aoi);
  const cands = candidatesOf(
    scenes,
    opts.aoi,
    aoiArea,
    (_s, day) => {
      const off = day - d0;
      if (Math.abs(off) > windowDays) return false;
      if (direction === 'before') return off <= 0;
      if (direction === 'after') return off >= 0;
      return true;
    },
    productTypes,
    opts.orbitDirection,
  );
  if (cands.length === 0) {
    const where = direction === 'nearest' ? `within ${windowDays} days of` : `within ${windowDays} days ${direction}`;
    return noScene(`No ${describeFilter(productTypes, opts.orbitDirection)} intersects the polygon ${where} ${dayString(d0)}.`);
  }
  cands.sort(
    (a, b) =>
      Math.abs(a.day - d0) - Math.abs(b.day - d0) ||
      floorRatio(b.cov) - floorRatio(a.cov) ||
      a.day - b.day ||
      a.time - b.time ||
      cmpStr(a.scene.sceneId, b.scene.sceneId),
  );
  const best = cands[0]!;
  const coverage = coverageOfExtent(opts.aoi, best.clip);
  return {
    ok: true,
    scene: best.scene,
    dayOffset: best.day - d0,
    analysisExtent: best.clip,
    coverage,
    scene_selection: sceneSelectionMonths([best.scene]),
    warnings: warningsFor(coverage.ratio, opts.lowCoverageThreshold),
  };
}

// ---------------------------------------------------------------------------------------
// newbuilding / disappearbuilding: one scene from each half of the period

/**
 * The earlier and later periods: the calendar days [date_start, date_end] split in two
 * halves of ⌊n/2⌋ and ⌈n/2⌉ days (n = number of days; the middle day of an odd n belongs
 * to the later period).
 */
export function splitPeriod(dateStart: string | Date, dateEnd: string | Date): {
  earlier: [number, number];
  later: [number, number];
} {
  const s = utcDayNumber(dateStart);
  const e = utcDayNumber(dateEnd);
  const n = e - s + 1;
  const half = Math.floor(n / 2);
  return { earlier: [s, s + half - 1], later: [s + half, e] };
}

interface PairEval {
  a: Candidate;
  b: Candidate;
  ub: number;
  lb: number;
}

/**
 * One scene from the earlier and one from the later period, of the same path/frame,
 * chosen for the best coverage of the polygon by both (the change can only be measured
 * where both images exist). Ties on the floored coverage: the widest separation in
 * calendar days (earliest earlier scene, latest later scene); then the earlier scene's
 * day, then acquisition times, then scene ids.
 */
export function selectChangePair(scenes: readonly SceneRecord[], opts: PeriodOptions): ChangePairSelection | NoSceneFound {
  const { earlier: ep, later: lp } = splitPeriod(opts.dateStart, opts.dateEnd);
  const aoiArea = areaSqkm(opts.aoi);
  const what = describeFilter(opts.productTypes, opts.orbitDirection);
  if (ep[1] < ep[0]) return noScene(`The period ${dayString(lp[0])} to ${dayString(lp[1])} is too short to hold an earlier and a later scene.`);
  const early = candidatesOf(scenes, opts.aoi, aoiArea, (_s, d) => d >= ep[0] && d <= ep[1], opts.productTypes, opts.orbitDirection);
  const late = candidatesOf(scenes, opts.aoi, aoiArea, (_s, d) => d >= lp[0] && d <= lp[1], opts.productTypes, opts.orbitDirection);
  if (early.length === 0) {
    return noScene(`No ${what} intersects the polygon in the earlier period ${dayString(ep[0])} to ${dayString(ep[1])}.`);
  }
  if (late.length === 0) {
    return noScene(`No ${what} intersects the polygon in the later period ${dayString(lp[0])} to ${dayString(lp[1])}.`);
  }
  const best = bestPair(early, late, opts, aoiArea, what);
  if (!best.ok) return best;
  return {
    ...best,
    warnings: warningsFor(best.coverage.ratio, opts.lowCoverageThreshold, {
      scenes: [best.earlier, best.later],
      start: opts.dateStart,
      end: opts.dateEnd,
      revisitDays: opts.revisitDays,
    }),
  };
}

/**
 * The change pair among earlier × later candidates: same path/frame, the best floored
 * coverage of the polygon by both; ties: the widest separation in calendar days, then the
 * earlier scene's day, then acquisition times, then scene ids. Warnings: low coverage only.
 */
function bestPair(
  early: readonly Candidate[],
  late: readonly Candidate[],
  opts: { aoi: AoiGeometry; lowCoverageThreshold?: number },
  aoiArea: number,
  what: string,
): ChangePairSelection | NoSceneFound {
  const pairs: PairEval[] = [];
  for (const a of early) {
    for (const b of late) {
      if (!samePathFrame(a.scene, b.scene)) continue;
      // Inclusion–exclusion bounds on the common coverage; exact only when they disagree.
      pairs.push({ a, b, ub: Math.min(a.cov, b.cov), lb: Math.max(0, a.cov + b.cov - 1) });
    }
  }
  if (pairs.length === 0) {
    return noScene(`No earlier and later ${what} over the polygon share a path/frame (relative orbit and along-track position).`);
  }
  pairs.sort((x, y) => y.ub - x.ub);
  let bestFloor = -1;
  let tied: { p: PairEval; extent: AoiGeometry | null; exact: number }[] = [];
  for (const p of pairs) {
    if (floorRatio(p.ub) < bestFloor) break;
    let extent: AoiGeometry | null = null;
    let exact: number;
    if (floorRatio(p.lb) === floorRatio(p.ub) && p.lb > 0) {
      exact = p.ub; // both floor to the same value; extent computed for the winner only
    } else {
      extent = intersectAoi(p.a.clip, p.b.clip);
      exact = extent ? Math.min(1, areaSqkm(extent) / aoiArea) : 0;
    }
    const f = floorRatio(exact);
    if (exact <= 0) continue;
    if (f > bestFloor) {
      bestFloor = f;
      tied = [{ p, extent, exact }];
    } else if (f === bestFloor) {
      tied.push({ p, extent, exact });
    }
  }
  if (tied.length === 0) {
    return noScene(`No earlier and later ${what} of one path/frame overlap each other over the polygon.`);
  }
  tied.sort(
    (x, y) =>
      y.p.b.day - y.p.a.day - (x.p.b.day - x.p.a.day) ||
      x.p.a.day - y.p.a.day ||
      x.p.a.time - y.p.a.time ||
      y.p.b.time - x.p.b.time ||
      cmpStr(x.p.a.scene.sceneId, y.p.a.scene.sceneId) ||
      cmpStr(x.p.b.scene.sceneId, y.p.b.scene.sceneId),
  );
  const win = tied[0]!;
  const extent = win.extent ?? intersectAoi(win.p.a.clip, win.p.b.clip);
  if (!extent) return noScene(`No earlier and later ${what} of one path/frame overlap each other over the polygon.`);
  const coverage = coverageOfExtent(opts.aoi, extent);
  const used = [win.p.a.scene, win.p.b.scene];
  return {
    ok: true,
    earlier: win.p.a.scene,
    later: win.p.b.scene,
    analysisExtent: extent,
    coverage,
    scene_selection: sceneSelectionMonths(used),
    warnings: warningsFor(coverage.ratio, opts.lowCoverageThreshold),
  };
}

// ---------------------------------------------------------------------------------------
// timeseries: every scene of one path/frame

/** Distinct acquisitions: platform + absolute orbit, or platform + relative orbit + UTC day. */
export function countPasses(scenes: readonly SceneRecord[]): number {
  const keys = new Set<string>();
  for (const s of scenes) {
    keys.add(
      s.absoluteOrbit !== null
        ? `${s.platform}:${s.absoluteOrbit}`
        : `${s.platform}:${s.relativeOrbit}:${s.orbitDirection}:${utcDayNumber(s.startTime)}`,
    );
  }
  return keys.size;
}

/**
 * Connected components of "same path/frame" (single linkage): scenes of one relative orbit
 * and direction whose along-track frames chain together.
 */
export function groupByPathFrame<T extends SceneRecord>(scenes: readonly T[]): T[][] {
  const parent = scenes.map((_, i) => i);
  const find = (i: number): number => {
    while (parent[i] !== i) {
      parent[i] = parent[parent[i]!]!;
      i = parent[i]!;
    }
    return i;
  };
  const byTrack = new Map<string, number[]>();
  scenes.forEach((s, i) => {
    const k = `${s.platformGroup}:${s.relativeOrbit}:${s.orbitDirection}`;
    const list = byTrack.get(k);
    if (list) list.push(i);
    else byTrack.set(k, [i]);
  });
  for (const idx of byTrack.values()) {
    for (let x = 0; x < idx.length; x++) {
      for (let y = x + 1; y < idx.length; y++) {
        const i = idx[x]!;
        const j = idx[y]!;
        if (find(i) !== find(j) && samePathFrame(scenes[i]!, scenes[j]!)) parent[find(i)] = find(j);
      }
    }
  }
  const groups = new Map<number, T[]>();
  scenes.forEach((s, i) => {
    const r = find(i);
    const g = groups.get(r);
    if (g) g.push(s);
    else groups.set(r, [s]);
  });
  return [...groups.values()];
}

/**
 * All scenes of the one path/frame that serves the polygon best over [date_start, date_end]:
 * ranked by the floored coverage of the polygon by the union of its scenes, then the number
 * of distinct passes, then the summed per-scene coverage, then the lower relative orbit,
 * then the earlier first acquisition.
 */
export function selectSeries(scenes: readonly SceneRecord[], opts: PeriodOptions): SeriesSelection | NoSceneFound {
  const s = utcDayNumber(opts.dateStart);
  const e = utcDayNumber(opts.dateEnd);
  const aoiArea = areaSqkm(opts.aoi);
  const cands = candidatesOf(scenes, opts.aoi, aoiArea, (_x, d) => d >= s && d <= e, opts.productTypes, opts.orbitDirection);
  if (cands.length === 0) {
    return noScene(
      `No ${describeFilter(opts.productTypes, opts.orbitDirection)} intersects the polygon between ${dayString(s)} and ${dayString(e)}.`,
    );
  }
  const byScene = new Map(cands.map((c) => [c.scene, c]));
  const groups = groupByPathFrame(cands.map((c) => c.scene)).map((g) => {
    const members = g.map((x) => byScene.get(x)!).sort((a, b) => a.time - b.time || cmpStr(a.scene.sceneId, b.scene.sceneId));
    const sum = members.reduce((acc, m) => acc + m.cov, 0);
    const maxCov = Math.max(...members.map((m) => m.cov));
    // The union's coverage lies in [max, min(1, sum)]; compute it only when that matters.
    let extent: AoiGeometry | null = null;
    let unionCov = maxCov;
    if (floorRatio(maxCov) !== floorRatio(Math.min(1, sum))) {
      extent = unionOf(members.map((m) => m.clip));
      unionCov = extent ? Math.min(1, areaSqkm(extent) / aoiArea) : 0;
    }
    return { members, sum, unionCov, extent, passes: countPasses(members.map((m) => m.scene)) };
  });
  groups.sort(
    (a, b) =>
      floorRatio(b.unionCov) - floorRatio(a.unionCov) ||
      b.passes - a.passes ||
      b.sum - a.sum ||
      a.members[0]!.scene.relativeOrbit - b.members[0]!.scene.relativeOrbit ||
      a.members[0]!.time - b.members[0]!.time,
  );
  const best = groups[0]!;
  const extent = best.extent ?? unionOf(best.members.map((m) => m.clip))!;
  const used = best.members.map((m) => m.scene);
  const coverage = coverageOfExtent(opts.aoi, extent);
  const first = used[0]!;
  return {
    ok: true,
    scenes: used,
    pathFrame: { platformGroup: first.platformGroup, relativeOrbit: first.relativeOrbit, orbitDirection: first.orbitDirection },
    passCount: best.passes,
    analysisExtent: extent,
    coverage,
    scene_selection: sceneSelectionMonths(used),
    warnings: warningsFor(coverage.ratio, opts.lowCoverageThreshold, {
      scenes: used,
      start: opts.dateStart,
      end: opts.dateEnd,
      revisitDays: opts.revisitDays,
    }),
  };
}

// ---------------------------------------------------------------------------------------
// Scenes the user named (the CLI): the same rules, without a period to choose in

export interface NamedSceneOptions {
  aoi: AoiGeometry;
  /** The endpoint's product types (its descriptor's `imagery`). All when absent. */
  productTypes?: SceneProductType[];
  lowCoverageThreshold?: number;
}

export interface NamedPairSelection extends ChangePairSelection {
  /** True when the scenes named PRE are later than those named POST (they were swapped). */
  swapped: boolean;
}

function dayRange(scenes: readonly SceneRecord[]): [number, number] {
  const days = scenes.map((x) => utcDayNumber(x.startTime));
  return [Math.min(...days), Math.max(...days)];
}

/**
 * A change pair among scenes the user named as PRE and POST (each side one product, or the
 * bursts of one date). There is no period to split: PRE is the earlier side, POST the
 * later, and the catalog's pair rules decide the rest —
 * - every side must meet the polygon (else: which scenes it misses);
 * - the sides must be of different days, all of one side before all of the other; when
 *   PRE is later than POST they are swapped (`swapped`: the change is always measured from
 *   the earlier to the later acquisition, as a job does);
 * - PRE and POST must share a path/frame (samePathFrame: platform group, relative orbit,
 *   orbit direction, along-track overlap);
 * - among the pairs that do, selectChangePair's ranking: best floored coverage of the
 *   polygon by both, then its tie-breaks.
 */
export function selectNamedPair(pre: readonly SceneRecord[], post: readonly SceneRecord[], opts: NamedSceneOptions): NamedPairSelection | NoSceneFound {
  const aoiArea = areaSqkm(opts.aoi);
  const what = describeFilter(opts.productTypes, undefined);
  const typed = (list: readonly SceneRecord[]) => list.filter((x) => !opts.productTypes?.length || opts.productTypes.includes(x.productType));
  const sides = [typed(pre), typed(post)];
  if (sides[0]!.length === 0 || sides[1]!.length === 0) return noScene(`PRE and POST must each hold a ${what}.`);
  const cands = sides.map((side) => candidatesOf(side, opts.aoi, aoiArea, () => true, opts.productTypes, undefined));
  const missed = sides.flatMap((side, k) => (cands[k]!.length === 0 ? side.map((x) => x.sceneId) : []));
  if (missed.length > 0) return noScene(`The polygon does not overlap ${missed.join(', ')}.`);
  const [p0, p1] = dayRange(sides[0]!);
  const [q0, q1] = dayRange(sides[1]!);
  let swapped = false;
  if (p1 >= q0) {
    if (q1 < p0) swapped = true;
    else return noScene(`PRE (${dayString(p0)}) and POST (${dayString(q0)}) must be acquisitions of different days, one before the other.`);
  }
  const [early, late] = swapped ? [cands[1]!, cands[0]!] : [cands[0]!, cands[1]!];
  if (!early.some((a) => late.some((b) => samePathFrame(a.scene, b.scene)))) {
    const track = (c: readonly Candidate[]) => [...new Set(c.map((x) => `${x.scene.relativeOrbit} ${x.scene.orbitDirection}`))].join(', ');
    return noScene(`PRE (track ${track(cands[0]!)}) and POST (track ${track(cands[1]!)}) share no path/frame: a change compares two acquisitions of one path (the same viewing geometry).`);
  }
  const best = bestPair(early, late, opts, aoiArea, what);
  if (!best.ok) return best;
  return { ...best, swapped };
}

/**
 * A series among scenes the user named: selectSeries over the period the scenes span (the
 * first to the last acquisition day), so the best path/frame is chosen by the job's rule
 * (coverage, then passes…) and the other scenes are left out. Warnings: low coverage only
 * (there is no requested period to be partially covered).
 */
export function selectNamedSeries(scenes: readonly SceneRecord[], opts: NamedSceneOptions): SeriesSelection | NoSceneFound {
  if (scenes.length === 0) return noScene('No scene was named.');
  const [first, last] = dayRange(scenes);
  const selected = selectSeries(scenes, { ...opts, dateStart: dayString(first), dateEnd: dayString(last) });
  if (!selected.ok) return selected;
  // The user gave scenes, not a period: no PERIOD_PARTIALLY_COVERED.
  return { ...selected, warnings: selected.warnings.filter((w) => w.code !== 'PERIOD_PARTIALLY_COVERED') };
}

// ---------------------------------------------------------------------------------------
// The rules by name: an endpoint descriptor (src/endpoints) names its selector here.

export const SCENE_SELECTORS = {
  /** ship / oilslick: the scene nearest a date. */
  nearest: selectNearestScene,
  /** newbuilding / disappearbuilding: one scene from each half of the period, one path/frame. */
  pair: selectChangePair,
  /** timeseries: every scene of the best path/frame in the period. */
  series: selectSeries,
} as const;

export type SceneSelectorName = keyof typeof SCENE_SELECTORS;
