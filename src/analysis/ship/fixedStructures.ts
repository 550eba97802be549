/**
 * Fixed structures (issue 23 §3): platforms, wind turbines and buoys are bright at the same
 * place in every acquisition of a track; ships move. For each detection, a small window
 * around its centre is read from each of the track's earlier acquisitions (never a whole
 * scene) and the detection is a fixed structure when a bright target lies within 30 m of
 * that centre on most of those dates. docs/ship.md "Fixed structures" states the rule and
 * what it measured.
 */
import { isImageryError, openSafeProduct, SIGMA_FLOOR_LINEAR, type SafeBand } from '../../imagery/index.ts';
import { pointInAoi } from '../../geo/predicates.ts';
import type { AoiGeometry } from '../../geo/types.ts';

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
  /** Row-major width × height, linear σ0. */
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
  let peak = -Infinity;
  const background: number[] = [];
  let ringPixels = 0;
  for (let r = 0; r < win.height; r++) {
    const dy = (r - y) * spacing.azimuth;
    for (let c = 0; c < win.width; c++) {
      const dx = (c - x) * spacing.range;
      const d = Math.hypot(dx, dy);
      const i = r * win.width + c;
      if (d <= inner) {
        if (win.valid[i]) peak = Math.max(peak, win.data[i]!);
      } else if (d > outer) {
        ringPixels++;
        if (win.valid[i]) background.push(win.data[i]!);
      }
    }
  }
  if (peak === -Infinity || background.length === 0 || background.length < ringPixels / 4) return null;
  background.sort((a, b) => a - b);
  const median = background[background.length >> 1]!;
  return peak >= median * 10 ** (rule.minContrastDb / 10);
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

/**
 * Looks at each centre (lon/lat) on the earlier acquisitions (newest first; at most
 * `maxEarlierDates` are used) and decides per centre. Reads one window of
 * (2·windowHalfM)² per centre and date from the product's cross-pol band (VH/HV, as the
 * detector), else co-pol.
 */
export async function checkFixedStructures(
  centres: readonly { lon: number; lat: number }[],
  earlier: readonly TrackAcquisition[],
  options: { rule?: FixedStructureRule; signal?: AbortSignal } = {},
): Promise<FixedStructureCheck> {
  const rule = options.rule ?? FIXED_STRUCTURE_RULE;
  const seen: (boolean | null)[][] = centres.map(() => []);
  let products = 0;
  let windows = 0;
  let unreadable = 0;
  for (const acquisition of earlier.slice(0, rule.maxEarlierDates)) {
    options.signal?.throwIfAborted();
    const covered = centres.map((c, i) => (pointInAoi(acquisition.footprint, c.lon, c.lat) ? i : -1)).filter((i) => i >= 0);
    if (covered.length === 0) continue;
    let product;
    try {
      product = await openSafeProduct(acquisition.path, { firstOf: ['VH', 'HV', 'VV', 'HH'] });
    } catch (e) {
      if (!isImageryError(e)) throw e;
      unreadable++;
      continue;
    }
    products++;
    try {
      const band = Object.values(product.bands).find((b) => b.hasMeasurement);
      if (!band) {
        unreadable++;
        continue;
      }
      const results = await Promise.all(covered.map((i) => lookAt(band, centres[i]!, rule)));
      covered.forEach((i, k) => {
        if (results[k] !== undefined) {
          windows++;
          seen[i]!.push(results[k]!);
        }
      });
    } finally {
      await product.close();
    }
  }
  return { decisions: seen.map((s) => decidePersistence(s, rule)), products, windows, unreadable };
}

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
