/**
 * Fixed structures (issue 23 §3): platforms, wind turbines and buoys are bright at the same
 * place in every acquisition of a track; ships move. For each detection, a small window
 * around its centre is read from each of the track's earlier acquisitions (never a whole
 * scene) and the detection is a fixed structure when a bright target lies within 30 m of
 * that centre on most of those dates. docs/ship.md "Fixed structures" states the rule and
 * what it measured. With `threads`, each earlier date is looked at by a task of the analysis
 * pool (it opens the product there), the dates side by side; the decisions are the same.
 */
// The readers by their own modules, not src/imagery/index.ts: a pool thread loads this module
// for its threadTasks.
import { isImageryError } from '../../imagery/errors.ts';
import { isRemoteHref } from '../../imagery/remote/access.ts';
import { SIGMA_FLOOR_LINEAR } from '../../imagery/safe/calibrate.ts';
import { openSafeProduct, type SafeBand } from '../../imagery/safe/product.ts';
import { pointInAoi } from '../../geo/predicates.ts';
import type { AoiGeometry } from '../../geo/types.ts';
import { defineThreadTasks } from '../../threads/task.ts';
import { runTileTask } from '../engine/pool.ts';

export interface FixedStructureRule {
  /** A target of an earlier date counts when it lies this close to the detection's centre (m). */
  radiusM: number;
  /** The most recent earlier dates looked at, at most. */
  maxEarlierDates: number;
  /** Earlier dates are looked for this far back (days). */
  lookbackDays: number;
  /** Fixed when bright on at least this share of the earlier dates that could be read. */
  minFraction: number;
  /** Bright: the brightest σ0 within `radiusM` is this far above the window's background median (dB). */
  minContrastDb: number;
  /** Half-size of the window read around the detection (m): its ring beyond `radiusM` + 30 m is the background. */
  windowHalfM: number;
}

export const FIXED_STRUCTURE_RULE: FixedStructureRule = {
  radiusM: 30,
  maxEarlierDates: 5,
  lookbackDays: 365,
  minFraction: 0.6,
  minContrastDb: 12,
  windowHalfM: 150,
};

/** One earlier acquisition of the track: its SAFE product (path or STAC item URL) and footprint. */
export interface TrackAcquisition {
  path: string;
  footprint: AoiGeometry;
}

export interface PersistenceDecision {
  /** true: a fixed structure; false: checked, moving; null: no earlier date could be read there. */
  fixed: boolean | null;
  /** Earlier dates with a bright target within the radius. */
  bright: number;
  /** Earlier dates whose window could be read. */
  looked: number;
}

/**
 * "Most of the earlier dates": bright on ≥ `minFraction` (60 %) of the dates read — 1 of 1,
 * 2 of 2, 2 of 3, 3 of 4, 3 of 5. `null` entries (the date has no valid data there) do not count.
 */
export function decidePersistence(seen: readonly (boolean | null)[], rule: Pick<FixedStructureRule, 'minFraction'> = FIXED_STRUCTURE_RULE): PersistenceDecision {
  let bright = 0;
  let looked = 0;
  for (const s of seen) {
    if (s === null) continue;
    looked++;
    if (s) bright++;
  }
  if (looked === 0) return { fixed: null, bright, looked };
  return { fixed: bright >= rule.minFraction * looked - 1e-9, bright, looked };
}

export interface SigmaWindow {
  /** Row-major width × height, linear σ0 (finite where valid). */
  data: Float32Array;
  valid: Uint8Array;
  width: number;
  height: number;
}

/**
 * Whether a bright target lies within `radiusM` of (x, y) (window pixel coordinates, may be
 * fractional): the brightest valid σ0 in that disc against the median of the valid pixels
 * farther than `radiusM` + 30 m. null when the disc has no valid pixel or the background has
 * fewer than a quarter of its pixels valid.
 */
export function brightTargetNear(
  win: SigmaWindow,
  x: number,
  y: number,
  spacing: { range: number; azimuth: number },
  rule: Pick<FixedStructureRule, 'radiusM' | 'minContrastDb'> = FIXED_STRUCTURE_RULE,
): boolean | null {
  const inner = rule.radiusM;
  const outer = rule.radiusM + 30;
  // Squared distances against squared radii; within 1e-9 of a radius the distance is taken by
  // Math.hypot, so each pixel falls on the same side as by its exact distance.
  const inner2 = inner * inner;
  const outer2 = outer * outer;
  const near = (d2: number, r2: number) => Math.abs(d2 - r2) <= 1e-9 * r2;
  let peak = -Infinity;
  const background = new Float64Array(win.width * win.height);
  let n = 0;
  let ringPixels = 0;
  const dx2 = new Float64Array(win.width);
  const dxs = new Float64Array(win.width);
  for (let c = 0; c < win.width; c++) {
    dxs[c] = (c - x) * spacing.range;
    dx2[c] = dxs[c]! * dxs[c]!;
  }
  for (let r = 0; r < win.height; r++) {
    const dy = (r - y) * spacing.azimuth;
    const dy2 = dy * dy;
    const row = r * win.width;
    for (let c = 0; c < win.width; c++) {
      const d2 = dx2[c]! + dy2;
      const i = row + c;
      const isInner = near(d2, inner2) ? Math.hypot(dxs[c]!, dy) <= inner : d2 <= inner2;
      if (isInner) {
        if (win.valid[i] && win.data[i]! > peak) peak = win.data[i]!;
      } else if (near(d2, outer2) ? Math.hypot(dxs[c]!, dy) > outer : d2 > outer2) {
        ringPixels++;
        if (win.valid[i]) background[n++] = win.data[i]!;
      }
    }
  }
  if (peak === -Infinity || n === 0 || n < ringPixels / 4) return null;
  const median = nthSmallest(background.subarray(0, n), n >> 1);
  return peak >= median * 10 ** (rule.minContrastDb / 10);
}

/** The k-th smallest value (0-based) of `values` (reordered in place): what sorting and indexing would give. */
function nthSmallest(values: Float64Array, k: number): number {
  let lo = 0;
  let hi = values.length - 1;
  while (hi > lo) {
    const pivot = values[(lo + hi) >> 1]!;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (values[i]! < pivot) i++;
      while (values[j]! > pivot) j--;
      if (i <= j) {
        const t = values[i]!;
        values[i] = values[j]!;
        values[j] = t;
        i++;
        j--;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else return values[k]!;
  }
  return values[k]!;
}

export interface FixedStructureCheck {
  /** Per centre: the decision over the earlier dates. */
  decisions: PersistenceDecision[];
  /** Earlier products opened (those whose footprint holds a centre) and windows read. */
  products: number;
  windows: number;
  /** Earlier products that could not be read (skipped). */
  unreadable: number;
}

export interface FixedStructureOptions {
  rule?: FixedStructureRule;
  signal?: AbortSignal;
  /**
   * > 0: each earlier date (a local product) is looked at by a task of the shared analysis pool,
   * so the dates' XML parsing and window reads run side by side. Default 0: this thread, one
   * date after the other. A remote product (STAC item URL) is always read on this thread (its
   * access settings are this thread's).
   */
  threads?: number;
}

/** One earlier date as looked at: not opened (unreadable), no measurement band, or per centre asked. */
type DateLook = { opened: false } | { opened: true; seen: (boolean | null | undefined)[] | null };

/**
 * Looks at each centre (lon/lat) on the earlier acquisitions (newest first; at most
 * `maxEarlierDates` are used) and decides per centre. Reads one window of
 * (2·windowHalfM)² per centre and date from the product's cross-pol band (VH/HV, as the
 * detector), else co-pol.
 */
export async function checkFixedStructures(
  centres: readonly { lon: number; lat: number }[],
  earlier: readonly TrackAcquisition[],
  options: FixedStructureOptions = {},
): Promise<FixedStructureCheck> {
  const rule = options.rule ?? FIXED_STRUCTURE_RULE;
  const signal = options.signal;
  const dates = earlier
    .slice(0, rule.maxEarlierDates)
    .map((acquisition) => ({ acquisition, covered: centres.map((c, i) => (pointInAoi(acquisition.footprint, c.lon, c.lat) ? i : -1)).filter((i) => i >= 0) }))
    .filter((d) => d.covered.length > 0);
  if (earlier.length > 0 && rule.maxEarlierDates > 0) signal?.throwIfAborted();
  const onPool = (options.threads ?? 0) > 0;
  const look = (d: (typeof dates)[number]): Promise<DateLook> => {
    signal?.throwIfAborted();
    const input = { path: d.acquisition.path, centres: d.covered.map((i) => centres[i]!) };
    return onPool && !isRemoteHref(input.path) ? runTileTask({ task: threadTasks.lookAtDate, input, params: rule }, [], signal) : lookAtDate(input, rule);
  };
  let looks: DateLook[];
  if (onPool) {
    // All dates at once: the pool runs as many as it has threads. A failure is reported once all settled (no task left running).
    const settled = await Promise.allSettled(dates.map(look));
    const failed = settled.find((r) => r.status === 'rejected');
    if (failed) throw failed.reason;
    looks = settled.map((r) => (r as PromiseFulfilledResult<DateLook>).value);
  } else {
    looks = [];
    for (const d of dates) looks.push(await look(d));
  }
  const seen: (boolean | null)[][] = centres.map(() => []);
  let products = 0;
  let windows = 0;
  let unreadable = 0;
  dates.forEach((d, k) => {
    const result = looks[k]!;
    if (!result.opened) {
      unreadable++;
      return;
    }
    products++;
    if (!result.seen) {
      unreadable++;
      return;
    }
    d.covered.forEach((i, j) => {
      const s = result.seen![j];
      if (s !== undefined) {
        windows++;
        seen[i]!.push(s);
      }
    });
  });
  return { decisions: seen.map((s) => decidePersistence(s, rule)), products, windows, unreadable };
}

/**
 * One earlier date: its product opened (cross-pol band, else co-pol) and each centre looked at;
 * not opened when the product cannot be read (an ImageryError), `seen` null when it has no
 * measurement band. A task of the analysis pool, or called on this thread.
 */
export async function lookAtDate(input: { path: string; centres: readonly { lon: number; lat: number }[] }, rule: FixedStructureRule): Promise<DateLook> {
  let product;
  try {
    product = await openSafeProduct(input.path, { firstOf: ['VH', 'HV', 'VV', 'HH'] });
  } catch (e) {
    if (!isImageryError(e)) throw e;
    return { opened: false };
  }
  try {
    const band = Object.values(product.bands).find((b) => b.hasMeasurement);
    if (!band) return { opened: true, seen: null };
    return { opened: true, seen: await Promise.all(input.centres.map((c) => lookAt(band, c, rule))) };
  } finally {
    await product.close();
  }
}

export const threadTasks = defineThreadTasks(import.meta.url, { lookAtDate });

/** The centre on one earlier product: undefined when it falls off the product's measurement. */
async function lookAt(band: SafeBand, centre: { lon: number; lat: number }, rule: FixedStructureRule): Promise<boolean | null | undefined> {
  const { line, pixel } = band.geolocation.lonLatToPixel(centre.lon, centre.lat);
  const valid = band.validWindow;
  if (!valid || !Number.isFinite(line) || !Number.isFinite(pixel)) return undefined;
  if (pixel < valid.x0 || line < valid.y0 || pixel > valid.x0 + valid.width - 1 || line > valid.y0 + valid.height - 1) return undefined;
  const hx = Math.ceil(rule.windowHalfM / band.annotation.rangePixelSpacing);
  const hy = Math.ceil(rule.windowHalfM / band.annotation.azimuthPixelSpacing);
  const x0 = Math.max(valid.x0, Math.round(pixel) - hx);
  const y0 = Math.max(valid.y0, Math.round(line) - hy);
  const x1 = Math.min(valid.x0 + valid.width, Math.round(pixel) + hx + 1);
  const y1 = Math.min(valid.y0 + valid.height, Math.round(line) + hy + 1);
  const read = await band.readWindow({ x0, y0, width: x1 - x0, height: y1 - y0 }, { quantity: 'sigma0', denoise: false, floor: SIGMA_FLOOR_LINEAR });
  const spacing = { range: band.annotation.rangePixelSpacing, azimuth: band.annotation.azimuthPixelSpacing };
  return brightTargetNear({ data: read.data, valid: read.valid, width: x1 - x0, height: y1 - y0 }, pixel - x0, line - y0, spacing, rule);
}
