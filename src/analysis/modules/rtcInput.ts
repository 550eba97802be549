/** RTC scenes of a resolved job input as the raster paths the change and series detectors read. */
import { JobFailure } from '../../contract/errors.ts';
import type { SceneRecord } from '../../catalog/types.ts';
import type { AnalysisRequest } from '../registry.ts';

export function rtcPaths(scene: SceneRecord): { vv: string; vh?: string } | { vv?: string; vh: string } {
  const pick = (pol: 'vv' | 'vh') => {
    const href = scene.assets[pol]?.href;
    return href && !href.startsWith('/vsizip/') ? href : undefined;
  };
  const vv = pick('vv');
  const vh = pick('vh');
  if (vv) return vh ? { vv, vh } : { vv };
  if (vh) return { vh };
  throw new JobFailure('IMAGERY_UNAVAILABLE', 'the selected scenes have no readable VV or VH raster');
}

/**
 * The detect family lists GRD imagery for building change and time series (spec item 10):
 * that needs GRD pairs geocoded onto a common grid, which this build does not do yet.
 */
export function requireRtcFamily(request: AnalysisRequest): void {
  if (request.family === 'detect') {
    throw new JobFailure(
      'NOT_IMPLEMENTED',
      `${request.endpointId} on GRD imagery (the detect family) is not available in this version of sarwatch; the analyze family runs it on RTC imagery. The job was not charged`,
    );
  }
}
