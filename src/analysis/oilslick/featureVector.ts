/**
 * The numbers the oil-probability model sees for one candidate, in a fixed order
 * (FEATURE_NAMES). Shape, contrast, edge, texture, wind and context features of a dark region
 * (SlickFeatures, discriminate.ts), and the candidate against the other candidates around it
 * (its neighbourhood context: how many, how large, how dark, on what background). Everything here is defined the same way on a calibrated
 * scene and on an 8-bit chip mapped to dB (greyImage.ts), so one model serves both; absolute
 * levels of chips are only as good as the assumed grey → dB mapping.
 */
import { cmod5nSigma0 } from '../../imagery/cmod5n.ts';
import { CONTEXT_HALF_SIDE_M, type SlickFeatures } from './discriminate.ts';

/** Area (km²) of the context window (discriminate.ts neighbourhoodContext). */
const CONTEXT_WINDOW_SQKM = (2 * CONTEXT_HALF_SIDE_M) ** 2 / 1e6;

export const FEATURE_NAMES = [
  'log10_area_km2',
  'log10_length_m',
  'log10_width_m',
  'log_elongation',
  'log_complexity',
  'contrast_db',
  'local_contrast_db',
  'depth_db',
  'edge_gradient_db_per_100m',
  'inside_std_db',
  'surround_std_db',
  'surround_dark_fraction',
  'wind_speed_ms',
  'log1p_bright_near',
  'level_db',
  'log10_perimeter_width_m',
  'boundary_fraction',
  'edge_per_contrast',
  'log1p_neighbours',
  'neighbourhood_dark_fraction',
  'area_share',
  'log10_area_vs_largest_neighbour',
  'contrast_vs_strongest_neighbour_db',
  'background_vs_neighbours_db',
  'contrast_per_surround_std',
  'edge_per_surround_std',
  'log_inside_vs_surround_std',
  'local_per_contrast',
  'depth_per_contrast',
  'contrast_vs_strongest_neighbour_ratio',
] as const;

export type FeatureName = (typeof FEATURE_NAMES)[number];

/**
 * Wind speed (m/s) CMOD5.N gives for a VV σ0 (dB) at this incidence, crosswind (the darkest
 * direction, so the figure is an upper bound whatever the real direction): the background
 * level as a wind proxy. Clamped to 0.2…30 m/s; NaN in, NaN out.
 */
export function crosswindSpeedFromSigma0Db(sigma0Db: number, incidenceDeg: number): number {
  if (!Number.isFinite(sigma0Db)) return Number.NaN;
  const target = 10 ** (sigma0Db / 10);
  let lo = 0.2;
  let hi = 30;
  if (cmod5nSigma0(lo, 90, incidenceDeg) >= target) return lo;
  if (cmod5nSigma0(hi, 90, incidenceDeg) <= target) return hi;
  // σ0 grows with wind speed: bisection to 0.01 m/s.
  while (hi - lo > 0.01) {
    const mid = (lo + hi) / 2;
    if (cmod5nSigma0(mid, 90, incidenceDeg) < target) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

/** The model's input for one candidate, in FEATURE_NAMES order. */
export function featureVector(f: SlickFeatures): number[] {
  const c = f.context;
  const complexity = f.compactness > 0 ? 1 / f.compactness : 1e3;
  return [
    Math.log10(Math.max(f.areaSqkm, 1e-6)),
    Math.log10(Math.max(f.lengthM, 1)),
    Math.log10(Math.max(f.widthM, 1)),
    Math.log(Math.max(f.elongation, 1)),
    Math.log(Math.max(complexity, 1e-3)),
    f.contrastDb,
    f.localContrastDb,
    f.depthDb,
    f.edgeGradientDbPer100m,
    f.insideStdDb,
    f.surroundStdDb,
    f.surroundDarkFraction,
    crosswindSpeedFromSigma0Db(f.backgroundDb, f.incidenceDeg),
    Math.log1p(f.brightNear),
    f.levelDb,
    // 2A/P: the width of a thin curved slick, which the moments (a straight fit) overstate.
    Math.log10(Math.max(f.perimeterM > 0 ? (2 * f.areaSqkm * 1e6) / f.perimeterM : 1, 1)),
    f.boundaryFraction,
    f.edgeGradientDbPer100m / Math.max(f.contrastDb, 0.5),
    Math.log1p(c.neighbours),
    (f.areaSqkm + c.neighbourAreaSqkm) / CONTEXT_WINDOW_SQKM,
    f.areaSqkm / (f.areaSqkm + c.neighbourAreaSqkm),
    c.neighbours > 0 ? Math.log10(Math.max(f.areaSqkm, 1e-6) / Math.max(c.largestNeighbourAreaSqkm, 1e-6)) : Number.NaN,
    f.contrastDb - c.strongestNeighbourContrastDb,
    f.backgroundDb - c.neighbourBackgroundDb,
    // Ratios of two dB differences: unchanged when a chip's grey scaling stretches every dB
    // difference by one unknown factor (the authors' scaling varies per chip).
    // Contrast and edge sharpness against the sea's own variability around the region.
    f.contrastDb / Math.max(f.surroundStdDb, 0.1),
    f.edgeGradientDbPer100m / Math.max(f.surroundStdDb, 0.1),
    // Texture inside against around: a film smooths the inside more than a wind change does.
    Math.log(Math.max(f.insideStdDb, 0.01) / Math.max(f.surroundStdDb, 0.01)),
    // Contrast to the sea right beside the region, and its darkest point, against its contrast.
    f.localContrastDb / Math.max(f.contrastDb, 0.5),
    f.depthDb / Math.max(f.contrastDb, 0.5),
    // Contrast against the strongest neighbour's, as a ratio (NaN without neighbours).
    Number.isFinite(c.strongestNeighbourContrastDb) ? f.contrastDb / Math.max(c.strongestNeighbourContrastDb, 0.5) : Number.NaN,
  ];
}
