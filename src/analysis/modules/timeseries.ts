/** timeseries: per-cell backscatter series over the selected RTC scenes (src/analysis/timeseries). */
import { JobFailure } from '../../contract/errors.ts';
import { detectTimeseries } from '../timeseries/index.ts';
import type { AnalysisModule } from '../registry.ts';
import { asImageryFailure } from './sceneInput.ts';
import { requireRtcFamily, rtcPaths } from './rtcInput.ts';

export const timeseriesModule: AnalysisModule = {
  endpointId: 'timeseries',
  async run(request, ctx) {
    requireRtcFamily(request);
    const input = request.input;
    if (input.kind !== 'series') throw new JobFailure('PROCESSING_ERROR', `timeseries needs a series of scenes, got ${input.kind}`);
    try {
      const out = await detectTimeseries(
        input.scenes.map((s) => ({ date: s.startTime.slice(0, 10), ...rtcPaths(s) })),
        { aoi: input.aoi, maxRequestBytes: request.maxRequestBytes, onProgress: (p) => ctx.reportProgress(p), signal: ctx.signal },
      );
      return { result: out.result, measured: { areaSqkm: out.areaSqkm, coverage: out.coverage } };
    } catch (e) {
      throw asImageryFailure(e);
    }
  },
};
