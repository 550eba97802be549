/**
 * timeseries: per-cell backscatter series over the selected scenes (src/analysis/timeseries).
 * analyze family: RTC γ0; detect family: GRD σ0, every scene geocoded onto one UTM grid over
 * the AOI (src/imagery/geocode).
 */
import { JobFailure } from '../../contract/errors.ts';
import { detectTimeseries } from '../timeseries/index.ts';
import type { AnalysisModule } from '../port.ts';
import { asImageryFailure } from './sceneInput.ts';
import { detectFamilyGrid, sceneSources } from './rtcInput.ts';

export const timeseriesModule: AnalysisModule = {
  endpointId: 'timeseries',
  async run(request, ctx) {
    const input = request.input;
    if (input.kind !== 'series') throw new JobFailure('PROCESSING_ERROR', `timeseries needs a series of scenes, got ${input.kind}`);
    const grid = request.family === 'detect' ? detectFamilyGrid(input.aoi) : null;
    try {
      const out = await detectTimeseries(
        input.scenes.map((s) => ({ date: s.startTime.slice(0, 10), ...sceneSources(request, s, grid) })),
        { aoi: input.aoi, cellSizeM: request.cellSizeM, maxRequestBytes: request.maxRequestBytes, onProgress: (p) => ctx.reportProgress(p), signal: ctx.signal },
      );
      return {
        result: out.result,
        measured: { areaSqkm: out.areaSqkm, coverage: out.coverage },
        summary: `${out.stats.cellsWithData} of ${out.stats.cells} cells have data; analysed ${out.areaSqkm} km² (coverage ratio ${out.coverage.ratio})`,
      };
    } catch (e) {
      throw asImageryFailure(e);
    }
  },
};
