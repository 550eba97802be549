/**
 * A ship job with `ais_id` (issue 23 §4): the upload's fixes are read, each vessel is moved to
 * the scene's acquisition time (its start time) and matched to the result's ship features
 * (src/analysis/ais). Unmatched vessels are listed only inside the analysed area: the
 * scene's footprint, or the polygon ∩ scene a polygon job analysed.
 */
import { JobFailure } from '../contract/errors.ts';
import type { ObjectStore } from '../objects/port.ts';
import type { AnalysisOutput, ResolvedInput, ResultFeature } from '../analysis/port.ts';
import { pointInAoi } from '../geo/predicates.ts';
import { annotateShips, vesselsAt, type AisSummary } from '../analysis/ais/index.ts';
import { readAisFixes } from '../uploads/aisService.ts';
import type { UploadedAis } from '../uploads/lookup.ts';

export async function matchAisInOutput(objects: ObjectStore, ais: UploadedAis, input: ResolvedInput, output: AnalysisOutput): Promise<{ output: AnalysisOutput; summary: AisSummary | null }> {
  if (!output.result) return { output, summary: null };
  if (input.kind !== 'scene' && input.kind !== 'nearest') throw new JobFailure('VALIDATION_ERROR', 'ais_id: AIS matching needs a scene (its acquisition time)');
  const fixes = await readAisFixes(objects, ais.fixesKey);
  if (!fixes) throw new JobFailure('VALIDATION_ERROR', `ais_id: the AIS upload ${ais.aisId} was deleted before the job ran`);
  const area = input.kind === 'scene' ? input.scene.footprint : input.extent;
  const vessels = vesselsAt(fixes, Date.parse(input.scene.startTime));
  const { features, summary } = annotateShips(output.result.features, vessels, { inside: (lon, lat) => pointInAoi(area, lon, lat) });
  return { output: { ...output, result: { ...output.result, features: features as ResultFeature[] } }, summary };
}
