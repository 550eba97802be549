/** newbuilding / disappearbuilding: change between the selected RTC pair (src/analysis/change). */
import { JobFailure } from '../../contract/errors.ts';
import { detectChangeInRtcPair } from '../change/index.ts';
import { analysisThreads } from '../engine/pool.ts';
import type { AnalysisModule } from '../registry.ts';
import { asImageryFailure } from './sceneInput.ts';
import { requireRtcFamily, rtcPaths } from './rtcInput.ts';

function changeModule(kind: 'newbuilding' | 'disappearbuilding'): AnalysisModule {
  return {
    endpointId: kind,
    async run(request, ctx) {
      requireRtcFamily(request);
      const input = request.input;
      if (input.kind !== 'pair') throw new JobFailure('PROCESSING_ERROR', `${kind} needs a pair of scenes, got ${input.kind}`);
      try {
        const out = await detectChangeInRtcPair(rtcPaths(input.earlier), rtcPaths(input.later), {
          aoi: input.aoi,
          kind,
          params: { threads: analysisThreads() },
          maxRequestBytes: request.maxRequestBytes,
          onProgress: (p) => ctx.reportProgress(p),
          signal: ctx.signal,
        });
        return { result: out.result, measured: { areaSqkm: out.areaSqkm, coverage: out.coverage } };
      } catch (e) {
        throw asImageryFailure(e);
      }
    },
  };
}

export const newbuildingModule = changeModule('newbuilding');
export const disappearbuildingModule = changeModule('disappearbuilding');
