// Parameters of the ship detector, with where each default comes from. "SNAP" is ESA SNAP's
// Ocean Tools chain (Land-Sea-Mask → AdaptiveThresholding → Object-Discrimination); "measured"
// means chosen on the real North-Sea crop and the generated seas of test/analysis (numbers in
// docs/ship.md).

export type ClutterModel = 'gaussian' | 'lognormal' | 'k';
export type PolarisationChoice = 'auto' | 'VH' | 'VV' | 'both';

export interface ShipParams {
  /**
   * Channel(s) to detect on. 'auto' (default): VH when present, else VV — cross-pol has the
   * best ship-to-sea contrast (SNAP's AdaptiveThresholding also prefers HV/VH). 'both': each
   * channel at PFA/2, a pixel detected in either (so the false-alarm rate stays at PFA).
   */
  polarisation: PolarisationChoice;
  /**
   * Subtract thermal noise before detecting. Default false (measured): on the North-Sea crop
   * noise subtraction clamps 43 % of the VH sea pixels to the σ0 floor and drops the sea's
   * equivalent number of looks from 4.8 to 0.5, which wrecks every clutter model, while the
   * noise itself is smooth and the local background absorbs it.
   */
  denoise: boolean;
  /**
   * Background model. 'gaussian' is SNAP's (threshold mean + t·std, t the normal quantile of
   * the PFA). 'lognormal': the same on ln σ0. 'k' (default, measured): K distribution with the
   * looks below and the texture shape estimated per pixel from the background moments.
   */
  model: ClutterModel;
  /**
   * Probability of false alarm per pixel. SNAP: 10^-6.5. Default 1e-8 (measured): on the real
   * crop 10^-6.5 adds 3 faint unlabelled targets (7–9 dB) as false alarms, 1e-8 none, while on
   * generated sea F1 for ≥ 30 m vessels only drops from 0.989 to 0.986.
   */
  pfa: number;
  /**
   * Hysteresis: pixels above the threshold of this (larger) PFA that connect to a detected
   * pixel belong to the same vessel, so a ship is outlined whole and not in fragments.
   */
  extentPfa: number;
  /**
   * Target window (m). SNAP: 50 m → a 7 × 7 mean at 10 m pixels. Default 0 (measured): single
   * pixels; at 10 m the 7 × 7 mean dilutes a 30 m vessel by ~10 dB.
   */
  targetWindowM: number;
  /** Guard window (m): no background is taken inside it. SNAP: 500. */
  guardWindowM: number;
  /** Background window (m): statistics over the ring between guard and background windows. SNAP: 800. */
  backgroundWindowM: number;
  /** Equivalent number of looks of the speckle, for the K model. S1 IW GRDH nominal: 4.4. */
  looks: number;
  /** A pixel gets a decision only if at least this fraction of its background ring is valid sea. */
  minBackgroundFraction: number;
  /**
   * Censoring: pixels detected in a first pass, grown by this many pixels, are left out of the
   * background of the second pass, so neighbouring ships do not raise each other's threshold.
   */
  censorDilationPx: number;
  /**
   * Clusters whose nearest pixels are at most this far apart (m) are one vessel: bow, bridge and
   * stern, or an azimuth-smeared tail, often come back as separate bright parts.
   */
  mergeGapM: number;
  /**
   * Size discrimination on the bounding-box diagonal (SNAP's Object-Discrimination: 50–600 m).
   * Default minimum 35 m (measured): a 30 m hull at S-1's ~20 m resolution is a blob of about
   * 3 × 2 pixels (diagonal 36 m); with 50 m, 3 more of 360 generated vessels (30–50 m ones) are
   * missed, and no false alarm is saved on either data set.
   */
  minDiagonalM: number;
  maxDiagonalM: number;
  /** Vessel length limits (principal axis, m). */
  minLengthM: number;
  maxLengthM: number;
  /** Shape: at most this length/width ratio (sidelobe streaks and wakes are thinner). */
  maxAspectRatio: number;
  /** Land mask from Natural Earth 10 m land; no detection on land or within the buffer. */
  landMask: boolean;
  /** Shore buffer (m). Natural Earth 10 m + world-atlas quantisation are good to a few hundred metres. */
  landBufferM: number;
  /** Azimuth-ambiguity suppression (see ambiguity.ts). */
  ambiguity: {
    enabled: boolean;
    /** A detection is a ghost when a source at ± the ambiguity offset is this much brighter (dB). */
    minSourceContrastDb: number;
    /** Search half-size around the predicted ghost position, as a fraction of the offset (azimuth) … */
    toleranceFraction: number;
    /** … and in metres across (range). */
    toleranceRangeM: number;
  };
  /** Sidelobe suppression around very strong targets (see sidelobes.ts). */
  sidelobes: {
    enabled: boolean;
    /** Only targets whose peak is this far above the local background (dB) have visible sidelobes. */
    minPeakContrastDb: number;
    /** Cross arms are at least this much weaker than the peak (dB); S-1 IW PSLR is about −22 dB. */
    maxArmLevelDb: number;
    /** Arms are looked for out to this distance from the peak (m). */
    armLengthM: number;
  };
  /**
   * Candidate classifier (classifier.ts; issue 23 §1). When enabled the CFAR runs at
   * `candidatePfa` instead of `pfa`, the small-size and aspect filters are left to the
   * classifier, and a candidate is kept when the fitted trees give it a probability ≥
   * `threshold` (null: the committed model's threshold). Default off: fitted on the SSDD chips
   * (assumed 3 m pixels), not yet checked on Sentinel-1 open sea.
   */
  classifier: {
    enabled: boolean;
    candidatePfa: number;
    /**
     * Pixels ≥ this × the robust sea level (median of the neighbourhood, seaLevel.ts) are
     * candidates too, those ≥ half of it their extent; 0: CFAR candidates only. The
     * level's blocks follow the tile, so unlike the CFAR it is not tiling-invariant.
     */
    seaLevelFactor: number;
    threshold: number | null;
    /**
     * Where candidates come from: 'threshold' (the CFAR at candidatePfa and the sea level, kept
     * by the candidate trees) or 'pixel' (the per-pixel classifier, pixelClassifier.ts: its
     * objects are the vessels; fitted on the SSDD chips with windows in pixels).
     */
    candidates: 'threshold' | 'pixel';
    /**
     * With 'threshold' candidates: the scene sea/land segmenter's land cells (seaLand.ts, fitted
     * on the SSDD masks) are added to the land mask before the CFAR. Its 20 m cells follow the
     * tile, so like the sea level it is not tiling-invariant.
     */
    sceneLandMask: boolean;
    /**
     * With 'threshold' candidates: a cluster too large for a vessel (diagonal or length over the
     * maxima) is split along its brightness into parts that fit (cluster.ts splitCluster), which
     * become candidates, instead of being dropped whole — harbour ships joined to their quay or
     * to each other (issue 23 §1: 37 % of the development inshore ships). Default true.
     */
    splitLarge: boolean;
  };
  /**
   * Near shore (issue 23 §1): where the tile's land mask has a coast, candidates whose peak lies
   * within `distanceM` of that mask (on a scene: Natural Earth land plus its `landBufferM`
   * shore buffer), or within `distanceM` of the scene segmenter's land, are judged by the
   * candidate classifier (`classifier`'s settings, with 'threshold' candidates and
   * `sceneLandMask` on), the rest of the tile by the default detector,
   * unchanged. Tiles without a coast run the default detector alone. `enabled: false`: the
   * default detector everywhere (as before). Ignored when `classifier.enabled` (the classifier
   * everywhere).
   */
  nearShore: {
    enabled: boolean;
    distanceM: number;
  };
  /**
   * Tile size of the scene engine (pixels, core). 3072 (measured): with the 181 px halo a full IW
   * scene is processed 1.23× over (2048: 1.37×) at ≈ 0.5 GB per tile in flight. Unset with the
   * near-shore path on (`nearShore.enabled`, the classifier not everywhere): NEAR_SHORE_TILE_SIZE.
   */
  tileSize: number;
}

export const DEFAULT_SHIP_PARAMS: Readonly<ShipParams> = Object.freeze({
  polarisation: 'auto',
  denoise: false,
  model: 'k',
  pfa: 1e-8,
  extentPfa: 1e-3,
  targetWindowM: 0,
  guardWindowM: 500,
  backgroundWindowM: 800,
  looks: 4.4,
  minBackgroundFraction: 0.25,
  censorDilationPx: 2,
  mergeGapM: 50,
  minDiagonalM: 35,
  maxDiagonalM: 600,
  minLengthM: 0,
  maxLengthM: 600,
  maxAspectRatio: 12,
  landMask: true,
  landBufferM: 500,
  ambiguity: Object.freeze({ enabled: true, minSourceContrastDb: 15, toleranceFraction: 0.06, toleranceRangeM: 100 }),
  sidelobes: Object.freeze({ enabled: true, minPeakContrastDb: 25, maxArmLevelDb: -15, armLengthM: 300 }),
  classifier: Object.freeze({ enabled: false, candidatePfa: 1e-4, seaLevelFactor: 16, threshold: null, candidates: 'threshold' as const, sceneLandMask: false, splitLarge: true }),
  nearShore: Object.freeze({ enabled: false, distanceM: 2000 }),
  tileSize: 3072,
}) as Readonly<ShipParams>;

/**
 * Tile size with the near-shore path on, unless one is given: a coastal tile then holds the sea/land
 * field's 16 cell planes and the classifier path's CFAR beside the default detector's, per thread,
 * and at 3072 px the coastal bench scene peaked at 1.57–1.67 GB (over issue 23 §5's 1.5 GB) where
 * 2048 px peaks at 1.05–1.10 GB in 24.1–24.3 s (3072: 19.5–22.3 s); 2304 and 2560 px cost more CPU
 * than either (more tiles whose band reaches the core, each with its 3 km margin). docs/ship.md
 * "Near-shore tile size".
 */
export const NEAR_SHORE_TILE_SIZE = 2048;

export type ShipParamsInput = Partial<Omit<ShipParams, 'ambiguity' | 'sidelobes' | 'classifier' | 'nearShore'>> & {
  nearShore?: Partial<ShipParams['nearShore']>;
  ambiguity?: Partial<ShipParams['ambiguity']>;
  sidelobes?: Partial<ShipParams['sidelobes']>;
  classifier?: Partial<ShipParams['classifier']>;
};

/** Defaults overlaid with `input`, validated. */
export function resolveShipParams(input: ShipParamsInput = {}): ShipParams {
  const p: ShipParams = {
    ...DEFAULT_SHIP_PARAMS,
    ...input,
    ambiguity: { ...DEFAULT_SHIP_PARAMS.ambiguity, ...input.ambiguity },
    sidelobes: { ...DEFAULT_SHIP_PARAMS.sidelobes, ...input.sidelobes },
    classifier: { ...DEFAULT_SHIP_PARAMS.classifier, ...input.classifier },
    nearShore: { ...DEFAULT_SHIP_PARAMS.nearShore, ...input.nearShore },
  } as ShipParams;
  if (input.tileSize === undefined) p.tileSize = p.nearShore.enabled && !p.classifier.enabled ? NEAR_SHORE_TILE_SIZE : DEFAULT_SHIP_PARAMS.tileSize;
  const check = (ok: boolean, what: string): void => {
    if (!ok) throw new RangeError(`ship params: ${what}`);
  };
  check(p.pfa > 0 && p.pfa < 0.5, `pfa must be in (0, 0.5), got ${p.pfa}`);
  // ≤ 0.1 keeps every threshold above the ring mean, which the CFAR's prescreen relies on.
  check(p.extentPfa >= p.pfa && p.extentPfa <= 0.1, `extentPfa must be in [pfa, 0.1], got ${p.extentPfa}`);
  check(p.classifier.candidatePfa > 0 && p.classifier.candidatePfa <= 0.1, `classifier.candidatePfa must be in (0, 0.1], got ${p.classifier.candidatePfa}`);
  check(p.classifier.seaLevelFactor === 0 || p.classifier.seaLevelFactor >= 4, `classifier.seaLevelFactor must be 0 or ≥ 4, got ${p.classifier.seaLevelFactor}`);
  check(p.classifier.candidates === 'threshold' || p.classifier.candidates === 'pixel', `classifier.candidates must be 'threshold' or 'pixel', got ${String(p.classifier.candidates)}`);
  check(p.classifier.threshold === null || (p.classifier.threshold >= 0 && p.classifier.threshold <= 1), 'classifier.threshold must be null or in [0, 1]');
  check(p.guardWindowM >= 0 && p.backgroundWindowM > p.guardWindowM, 'backgroundWindowM must exceed guardWindowM ≥ 0');
  check(p.targetWindowM >= 0 && p.targetWindowM < p.guardWindowM, 'targetWindowM must be in [0, guardWindowM)');
  check(p.looks > 0, 'looks must be positive');
  check(p.minBackgroundFraction > 0 && p.minBackgroundFraction <= 1, 'minBackgroundFraction must be in (0, 1]');
  check(Number.isInteger(p.censorDilationPx) && p.censorDilationPx >= 0, 'censorDilationPx must be an integer ≥ 0');
  check(p.mergeGapM >= 0, 'mergeGapM must be ≥ 0');
  check(p.minDiagonalM >= 0 && p.maxDiagonalM > p.minDiagonalM, 'maxDiagonalM must exceed minDiagonalM ≥ 0');
  check(p.minLengthM >= 0 && p.maxLengthM > p.minLengthM, 'maxLengthM must exceed minLengthM ≥ 0');
  check(p.maxAspectRatio >= 1, 'maxAspectRatio must be ≥ 1');
  check(p.landBufferM >= 0, 'landBufferM must be ≥ 0');
  check(p.nearShore.distanceM > 0, `nearShore.distanceM must be > 0, got ${p.nearShore.distanceM}`);
  check(Number.isInteger(p.tileSize) && p.tileSize >= 256, 'tileSize must be an integer ≥ 256');
  check(['gaussian', 'lognormal', 'k'].includes(p.model), `unknown model ${p.model}`);
  check(['auto', 'VH', 'VV', 'both'].includes(p.polarisation), `unknown polarisation ${p.polarisation}`);
  return p;
}
