/** The ship endpoint: CFAR vessel detection on the chosen GRD scene or uploaded image (src/analysis/ship). */
import { detectShipsInProduct, detectShipsInSafe, type DetectShipsOptions } from '../ship/index.ts';
import { JobFailure } from '../../contract/errors.ts';
import { analysisThreads } from '../engine/pool.ts';
import type { AnalysisModule } from '../port.ts';
import { asImageryFailure, GEOTIFF_WARNINGS, sceneInput, withSigma0GeoTiff } from './sceneInput.ts';

export const shipModule: AnalysisModule = {
  endpointId: 'ship',
  async run(request, ctx) {
    const { kind, path, polygon, encoding } = sceneInput(request.input);
    if (encoding?.grey) throw new JobFailure('VALIDATION_ERROR', 'ship detection reads calibrated σ0, not grey levels of an unknown scaling');
    const options: DetectShipsOptions = {
      polygon,
      signal: ctx.signal,
      threads: analysisThreads(),
      // Scaled out, a scene's tiles may run on any worker: every worker opens the archive's
      // product (an uploaded image is a local copy only this process has).
      ...(ctx.tiles && request.input.kind !== 'image' ? { tiles: ctx.tiles } : {}),
      onProgress: (percent) => ctx.reportProgress(percent),
    };
    try {
      if (kind === 'safe') return { result: await detectShipsInSafe(path, options) };
      const report = await withSigma0GeoTiff(path, encoding, (product) => detectShipsInProduct(product, options));
      return { result: report.result, warnings: report.ambiguitySkipped ? [GEOTIFF_WARNINGS.ambiguityNotSuppressed] : [] };
    } catch (e) {
      throw asImageryFailure(e);
    }
  },
};
