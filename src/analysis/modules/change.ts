/**
 * newbuilding / disappearbuilding: change between the selected pair (src/analysis/change).
 * analyze family: the RTC pair as it is; detect family: the GRD pair geocoded onto one UTM
 * grid over the AOI (src/imagery/geocode) — the same detector either way.
 */
import { JobFailure } from '../../contract/errors.ts';
import { detectChangeInPair } from '../change/index.ts';
import { analysisThreads } from '../engine/pool.ts';
import type { AnalysisModule } from '../port.ts';
import { asImageryFailure } from './sceneInput.ts';
import { detectFamilyGrid, sceneSources } from './rtcInput.ts';

function changeModule(kind: 'newbuilding' | 'disappearbuilding'): AnalysisModule {
  return {
    endpointId: kind,
    async run(request, ctx) {
      const input = request.input;
      if (input.kind !== 'pair') throw new JobFailure('PROCESSING_ERROR', `${kind} needs a pair of scenes, got ${input.kind}`);
      const grid = request.family === 'detect' ? detectFamilyGrid(input.aoi) : null;
      try {
        const out = await detectChangeInPair(sceneSources(request, input.earlier, grid), sceneSources(request, input.later, grid), {
          aoi: input.aoi,
          kind,
          params: { threads: analysisThreads() },
          maxRequestBytes: request.maxRequestBytes,
          onProgress: (p) => ctx.reportProgress(p),
          signal: ctx.signal,
          // Scaled out, the pair's tiles may run on any worker (each opens the archive's scenes).
          ...(ctx.tiles ? { tiles: ctx.tiles } : {}),
          // In the worker: the tiles pool the quicklook's copy of the later scene (no second read for the
          // picture). The analyze family only: a detect-family quicklook shows the later SAFE in image
          // geometry (quicklook/index.ts), not the geocoded grid the tiles hold.
          ...(ctx.quicklookBlocks && request.family === 'analyze' ? { quicklookBlocks: ctx.quicklookBlocks } : {}),
        });
        return {
          result: out.result,
          measured: { areaSqkm: out.areaSqkm, coverage: out.coverage },
          summary: `analysed ${out.areaSqkm} km² (coverage ratio ${out.coverage.ratio}), channels ${out.stats.channels}`,
          ...(out.quicklookCopy ? { quicklookCopy: out.quicklookCopy } : {}),
        };
      } catch (e) {
        throw asImageryFailure(e);
      }
    },
  };
}

export const newbuildingModule = changeModule('newbuilding');
export const disappearbuildingModule = changeModule('disappearbuilding');
