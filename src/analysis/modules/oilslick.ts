/** The oilslick endpoint: dark-spot detection on the chosen GRD scene (src/analysis/oilslick). */
import { detectSlicksInSafe } from '../oilslick/index.ts';
import type { AnalysisModule } from '../registry.ts';
import { asImageryFailure, safeProductPath, sceneInput } from './sceneInput.ts';

export const oilslickModule: AnalysisModule = {
  endpointId: 'oilslick',
  async run(request, ctx) {
    const { scene, polygon } = sceneInput(request.input);
    try {
      const result = await detectSlicksInSafe(safeProductPath(scene), {
        polygon,
        signal: ctx.signal,
        onProgress: (fraction) => ctx.reportProgress(100 * fraction),
      });
      return { result };
    } catch (e) {
      throw asImageryFailure(e);
    }
  },
};
