/**
 * The oil-slick engine on an 8-bit scaled image held in memory (a CSIRO-style chip): grey →
 * σ0 under the stated mapping (greyImage.ts), then detectSlicksInRaster with the chip
 * assumptions (10 m pixels, 35° incidence for the CMOD5.N wind proxy).
 */
import { detectSlicksInRaster, type SlickCandidate, type SlickRasterInput } from './detect.ts';
import { CHIP_PIXEL_SPACING_M, GREY_DB_RANGE, greyToSigma0, type GreyDbMapping, type GreyImage } from './greyImage.ts';
import type { OilModelFile } from './model.ts';
import { resolveOilSlickParams, type OilSlickParams } from './params.ts';

export interface GreyRunOptions {
  mapping?: GreyDbMapping;
  params?: Partial<OilSlickParams>;
  pixelSpacingM?: number;
  incidenceDeg?: number;
  /** Model to score with (default: the committed one; null: none, probabilities NaN). */
  model?: OilModelFile | null;
}

/** The raster and parameters the engine runs on for an 8-bit image (its σ0 under the mapping). */
export function greyRasterInput(image: GreyImage, options: GreyRunOptions = {}): { input: SlickRasterInput; params: OilSlickParams } {
  const { sigma0, valid, land, width, height } = greyToSigma0(image, options.mapping ?? GREY_DB_RANGE);
  const spacing = options.pixelSpacingM ?? CHIP_PIXEL_SPACING_M;
  return {
    input: { sigma0VV: sigma0, valid, land, width, height, pixelSpacing: { range: spacing, azimuth: spacing } },
    // No veto rules: the absolute level of a scaled image is an assumption (the low-wind rule
    // needs calibrated σ0), and every rule cost hit rate on the real training chips; the
    // model's 8-bit threshold (scaledInput).
    params: resolveOilSlickParams({ vetoRules: [], scaledInput: true, ...options.params }),
  };
}

/** Every candidate of an 8-bit image, slicks and look-alikes, with oil probabilities. */
export function detectSlicksInGreyImage(image: GreyImage, options: GreyRunOptions = {}): SlickCandidate[] {
  const { input, params } = greyRasterInput(image, options);
  return detectSlicksInRaster(input, params, { incidenceDeg: options.incidenceDeg ?? 35, model: options.model });
}
