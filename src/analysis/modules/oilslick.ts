/** The oilslick endpoint: dark-spot detection on the chosen GRD scene or uploaded image (src/analysis/oilslick). */
import { detectSlicksInSafe, resolveOilSlickParams, type SafeSlickOptions } from '../oilslick/index.ts';
import { detectInProduct } from '../oilslick/detect.ts';
import type { AnalysisModule } from '../registry.ts';
import { asImageryFailure, GEOTIFF_WARNINGS, sceneInput, withSigma0GeoTiff } from './sceneInput.ts';

export const oilslickModule: AnalysisModule = {
  endpointId: 'oilslick',
  async run(request, ctx) {
    const { kind, path, polygon } = sceneInput(request.input);
    const options: SafeSlickOptions = {
      polygon,
      signal: ctx.signal,
      onProgress: (fraction) => ctx.reportProgress(100 * fraction),
    };
    try {
      if (kind === 'safe') return { result: await detectSlicksInSafe(path, options) };
      return await withSigma0GeoTiff(path, async (product) => ({
        result: (await detectInProduct(product, resolveOilSlickParams(), options)).collection,
        warnings: product.hasIncidence ? [] : [GEOTIFF_WARNINGS.incidenceAssumed],
      }));
    } catch (e) {
      throw asImageryFailure(e);
    }
  },
};
