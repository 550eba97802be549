/** The oilslick endpoint: dark-spot detection on the chosen GRD scene or uploaded image (src/analysis/oilslick). */
import { detectSlicksInSafe, resolveOilSlickParams, type SafeSlickOptions } from '../oilslick/index.ts';
import { detectInProduct } from '../oilslick/detect.ts';
import type { AnalysisModule } from '../registry.ts';
import { asImageryFailure, sceneInput, withSigma0GeoTiff } from './sceneInput.ts';

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
      const result =
        kind === 'safe'
          ? await detectSlicksInSafe(path, options)
          : await withSigma0GeoTiff(path, async (product) => (await detectInProduct(product, resolveOilSlickParams(), options)).collection);
      return { result };
    } catch (e) {
      throw asImageryFailure(e);
    }
  },
};
