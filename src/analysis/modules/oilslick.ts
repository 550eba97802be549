/** The oilslick endpoint: dark-spot detection on the chosen GRD scene or uploaded image (src/analysis/oilslick). */
import { detectSlicksInSafeDetailed, resolveOilSlickParams, type SafeSlickOptions } from '../oilslick/index.ts';
import { detectInProduct } from '../oilslick/detect.ts';
import { greySigma0Product } from '../oilslick/greyImage.ts';
import type { AnalysisModule } from '../port.ts';
import { asImageryFailure, GEOTIFF_WARNINGS, sceneInput, withSigma0GeoTiff } from './sceneInput.ts';

export const oilslickModule: AnalysisModule = {
  endpointId: 'oilslick',
  async run(request, ctx) {
    const { kind, path, polygon, encoding } = sceneInput(request.input);
    const options: SafeSlickOptions = {
      polygon,
      signal: ctx.signal,
      // Scaled out, a scene's tiles may run on any worker (as ship: an uploaded image is a local copy).
      ...(ctx.tiles && request.input.kind !== 'image' ? { tiles: ctx.tiles } : {}),
      onProgress: (fraction) => ctx.reportProgress(100 * fraction),
      // The quicklook's copy of the VV band pooled by the tiles (oilslick/sceneTile.ts), so the
      // worker's quicklook does not read the scene again; an uploaded image keeps the strided read.
      ...(ctx.quicklookBlocks && request.input.kind !== 'image' ? { quicklookBlocks: ctx.quicklookBlocks } : {}),
    };
    try {
      if (kind === 'safe') {
        const { collection, quicklookCopy } = await detectSlicksInSafeDetailed(path, options);
        return { result: collection, ...(quicklookCopy ? { quicklookCopy } : {}) };
      }
      return await withSigma0GeoTiff(path, encoding, async (product) => {
        if (encoding?.grey) {
          // Grey levels of an unknown scaling: the model alone decides, without the low-wind
          // veto that needs calibrated σ0, at its 8-bit threshold.
          return { result: (await detectInProduct(greySigma0Product(product, encoding.grey), resolveOilSlickParams({ vetoRules: [], scaledInput: true }), options)).collection };
        }
        return {
          result: (await detectInProduct(product, resolveOilSlickParams(), options)).collection,
          warnings: product.hasIncidence ? [] : [GEOTIFF_WARNINGS.incidenceAssumed],
        };
      });
    } catch (e) {
      throw asImageryFailure(e);
    }
  },
};
