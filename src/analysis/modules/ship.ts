/** The ship endpoint: CFAR vessel detection on the chosen GRD scene (src/analysis/ship). */
import { detectShipsInSafe } from '../ship/index.ts';
import { analysisThreads } from '../engine/pool.ts';
import type { AnalysisModule } from '../registry.ts';
import { asImageryFailure, safeProductPath, sceneInput } from './sceneInput.ts';

export const shipModule: AnalysisModule = {
  endpointId: 'ship',
  async run(request, ctx) {
    const { scene, polygon } = sceneInput(request.input);
    try {
      const result = await detectShipsInSafe(safeProductPath(scene), {
        polygon,
        signal: ctx.signal,
        threads: analysisThreads(),
        onProgress: (percent) => ctx.reportProgress(percent),
      });
      return { result };
    } catch (e) {
      throw asImageryFailure(e);
    }
  },
};
