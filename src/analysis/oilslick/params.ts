/**
 * Parameters of the oil-slick detector with their defaults. Every number is a decision; the
 * reasons (and what was measured) are in docs/oilslick.md. Lengths are metres on the ground,
 * "working pixels" are pixels of the multilooked grid the detector runs on.
 */
/** The hand-set look-alike rules (discriminate.ts lookAlikeReasons). */
export const LOOK_ALIKE_RULES = ['too_small', 'low_contrast', 'low_wind', 'dark_surroundings', 'compact_shape', 'diffuse_edge'] as const;
export type LookAlikeRule = (typeof LOOK_ALIKE_RULES)[number];

export interface OilSlickParams {
  /**
   * Full-resolution pixels averaged per working pixel along each axis. 2 on IW GRDH (10 m
   * spacing) gives a 20 m grid, about the product's real resolution (20 × 22 m), so nothing
   * is lost while speckle variance and all later work drop by 4.
   */
  multilook: number;
  /** Side (working pixels, odd) of the box that smooths speckle before the dark test. */
  speckleWindowPx: number;
  /** Side of the square background window (m). SNAP's OilSpillDetection uses 500 m. */
  backgroundWindowM: number;
  /**
   * A second, finer background window (m; 0 = off): a pixel is dark when it is below either
   * background by the shift. Catches thin and small slicks the coarse window averages away.
   */
  fineBackgroundWindowM: number;
  /** A pixel is dark when its smoothed σ0 is this many dB below the local background (SNAP: 2 dB). */
  thresholdShiftDb: number;
  /** A background mean needs at least this fraction of its window on usable sea; else no pixel there is dark. */
  minBackgroundFraction: number;
  /** Radius (working pixels) of the square structuring element of the closing and opening. */
  morphologyRadiusPx: number;
  /** A working pixel this many dB above the background is a bright target (ship, platform). */
  brightTargetDb: number;
  /** Bright targets are counted within this distance (m) of a region's boundary (square window). */
  brightNearM: number;

  /** Smallest candidate (km²): smaller dark regions are not classified at all. */
  minAreaSqkm: number;
  /**
   * The oil probability (the trained model's, src/analysis/oilslick/model.json) a candidate
   * must reach to be reported as a slick. Default: the model's own threshold, chosen on the
   * training split for a chip false-alarm rate of at most 0.10 (see docs/oilslick.md).
   */
  minOilProbability: number | null;
  /**
   * The σ0 comes from an 8-bit scaled image (greyImage.ts), whose absolute level is an
   * assumption: the model's 8-bit threshold applies (`threshold`, chosen on the real 8-bit
   * chips). False (default): calibrated σ0 and the model's `calibratedThreshold` (chosen on the
   * training chips presented as calibrated σ0; model.ts).
   */
  scaledInput: boolean;
  /**
   * Hand-set look-alike rules (below) that veto a candidate whatever its probability; all
   * rules that apply are reported in `reasons` either way. Default on calibrated σ0: only the
   * rules the real chips support when presented as calibrated σ0 (issue 24 §2, eval/oilCalibrated.ts:
   * the validation chips with their sea at CMOD5.N's level for 3–10 m/s): `low_wind` (physics
   * the chips cannot teach the model, and on them it cost 1 hit of 246 for 3 false alarms of
   * 651 fewer). `compact_shape` (round smooth blobs: rain cells, wind shadows) was a veto until
   * issue 24 §2's sixth pass and is now informative only (below). `diffuse_edge`
   * is no longer a veto: on the same chips it removed half the real slicks (hit rate 0.88 →
   * 0.50); the edge enters the model as three inputs instead (edge gradient, per contrast, per
   * the surroundings' spread). Every other rule cost far more (docs/oilslick.md). 8-bit images
   * run with none (greyDetect.ts). Measured against a raised threshold at the same number of
   * false alarms (training/oilslick/vetoTable.ts; docs/oilslick.md, sixth pass), `compact_shape`
   * keeps 8–11 fewer real slicks on the 8-bit chips and on four calibrated wind draws — not
   * supported by the real data — so it was dropped when the model got a calibrated threshold of
   * its own (model.ts `calibratedThreshold`, 0.778) that takes over its false alarms (candidate G).
   * `low_wind` stays as the model's domain limit (CMOD5.N: no Bragg roughness below 3 m/s).
   */
  vetoRules: LookAlikeRule[];
  /** Mean damping (background − region, dB) a slick must reach. */
  minContrastDb: number;
  /**
   * Low-wind look-alikes: the background must be brighter than CMOD5.N's crosswind VV σ0 at this
   * wind speed (m/s) and the region's incidence angle; below it the sea itself is calm.
   */
  lowWindSpeed: number;
  /** Largest fraction of the samples around a region that may be as dark as the region's edge test. */
  maxSurroundDarkFraction: number;
  /** Distances (m) outside a region's boundary at which its surroundings are sampled (8 directions each). */
  surroundDistancesM: number[];
  /** Compact blobs: rejected when elongation < this AND compactness > compactMinCompactness. */
  compactMaxElongation: number;
  compactMinCompactness: number;
  /** Mean |∇σ0| (dB per 100 m) across a region's boundary below which the edge is too diffuse for oil. */
  minEdgeGradientDbPer100m: number;

  /** Land (Natural Earth 10 m) grows by this much (m) before it is masked. */
  shoreBufferM: number;
  /** Subtract thermal noise before calibrating (matters at far range and in light wind). */
  denoise: boolean;
  /** Tile core side (full-resolution pixels); rounded up to a multiple of `multilook`. */
  tileSize: number;
  /** Least halo (full-resolution pixels); raised to what the filters need (see requiredHaloPx). */
  haloPx: number;
  /** Douglas–Peucker tolerance (working pixels) of the output outlines; topology is kept. */
  simplifyTolerancePx: number;
}

export const DEFAULT_OIL_SLICK_PARAMS: Readonly<OilSlickParams> = Object.freeze({
  multilook: 2,
  speckleWindowPx: 3,
  backgroundWindowM: 2000,
  fineBackgroundWindowM: 600,
  thresholdShiftDb: 2,
  minBackgroundFraction: 0.25,
  morphologyRadiusPx: 1,
  brightTargetDb: 10,
  brightNearM: 500,

  minAreaSqkm: 0.03,
  minOilProbability: null,
  scaledInput: false,
  vetoRules: ['low_wind'],
  minContrastDb: 3.5,
  lowWindSpeed: 3,
  maxSurroundDarkFraction: 0.15,
  surroundDistancesM: [120, 240],
  compactMaxElongation: 2,
  compactMinCompactness: 0.3,
  minEdgeGradientDbPer100m: 4,

  shoreBufferM: 1000,
  denoise: true,
  tileSize: 3072,
  haloPx: 256,
  simplifyTolerancePx: 0.5,
}) as Readonly<OilSlickParams>;

/** Defaults overridden by `overrides`, checked. */
export function resolveOilSlickParams(overrides: Partial<OilSlickParams> = {}): OilSlickParams {
  const p: OilSlickParams = {
    ...DEFAULT_OIL_SLICK_PARAMS,
    surroundDistancesM: [...DEFAULT_OIL_SLICK_PARAMS.surroundDistancesM],
    vetoRules: [...DEFAULT_OIL_SLICK_PARAMS.vetoRules],
    ...overrides,
  };
  for (const r of p.vetoRules) if (!(LOOK_ALIKE_RULES as readonly string[]).includes(r)) throw new RangeError(`unknown veto rule ${r}; known: ${LOOK_ALIKE_RULES.join(', ')}`);
  const positiveInt = (name: keyof OilSlickParams): void => {
    const v = p[name];
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 1) throw new RangeError(`oil slick parameter ${name} must be a positive integer, got ${String(v)}`);
  };
  positiveInt('multilook');
  positiveInt('speckleWindowPx');
  positiveInt('tileSize');
  if (p.speckleWindowPx % 2 !== 1) throw new RangeError(`speckleWindowPx must be odd, got ${p.speckleWindowPx}`);
  if (!Number.isInteger(p.morphologyRadiusPx) || p.morphologyRadiusPx < 0) throw new RangeError(`morphologyRadiusPx must be an integer ≥ 0`);
  if (!Number.isInteger(p.haloPx) || p.haloPx < 0) throw new RangeError(`haloPx must be an integer ≥ 0`);
  if (!(p.fineBackgroundWindowM >= 0)) throw new RangeError('fineBackgroundWindowM must be ≥ 0');
  if (p.minOilProbability !== null && !(p.minOilProbability >= 0 && p.minOilProbability <= 1)) throw new RangeError('minOilProbability must be in [0, 1] or null');
  for (const name of ['backgroundWindowM', 'thresholdShiftDb', 'minAreaSqkm', 'lowWindSpeed', 'brightTargetDb', 'brightNearM'] as const) {
    if (!(p[name] > 0)) throw new RangeError(`oil slick parameter ${name} must be > 0, got ${p[name]}`);
  }
  if (!(p.minBackgroundFraction > 0 && p.minBackgroundFraction <= 1)) throw new RangeError('minBackgroundFraction must be in (0, 1]');
  if (!p.surroundDistancesM.every((d) => d > 0)) throw new RangeError('surroundDistancesM must be positive');
  return p;
}
