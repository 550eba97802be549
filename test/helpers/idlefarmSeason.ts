/**
 * The held-out generated season both idlefarm tests analyse (test/analysis/idlefarm.test.ts
 * on the detector, test/e2e/idlefarm.test.ts through the API): the OPERA-style RTC stack of
 * src/synth/fields.ts with seed 9101 (the model was fitted on 101–116; 2023-01-01 …
 * 2023-12-27, 12-day repeat), its fields as a user would upload them, the F1 of "idle"
 * against the truth.
 */
import { writeFieldSeason, type SeasonStackResult } from '../../src/synth/index.ts';

export const HELD_OUT_SEED = 9101;

export function writeHeldOutSeason(dir: string): Promise<SeasonStackResult> {
  return writeFieldSeason(dir, { seed: HELD_OUT_SEED });
}

export interface SeasonUploadFeature {
  type: 'Feature';
  id: string;
  geometry: SeasonStackResult['fields']['features'][number]['geometry'];
  properties: Record<string, unknown>;
}

/** The season's fields as an upload: in reverse order, each with an id `up-<name>` and `owner: 'Rossi'` (and `extra`) beside its properties. */
export function seasonUpload(season: SeasonStackResult, extra: Record<string, unknown> = {}): SeasonUploadFeature[] {
  return season.fields.features
    .map((f) => ({ type: 'Feature' as const, id: `up-${String(f.properties.name)}`, geometry: f.geometry, properties: { ...f.properties, owner: 'Rossi', ...extra } }))
    .reverse();
}

/** "idle" decided against the truth over the result features that are season fields (named by the truth's ids). */
export function idleScore(season: SeasonStackResult, features: { properties: Record<string, unknown> }[]): { tp: number; fp: number; fn: number; f1: number } {
  let tp = 0;
  let fp = 0;
  let fn = 0;
  for (const f of features) {
    const truth = season.truth.find((t) => t.id === f.properties.name);
    if (!truth) continue;
    if (f.properties.idle && truth.idle) tp++;
    else if (f.properties.idle) fp++;
    else if (truth.idle) fn++;
  }
  return { tp, fp, fn, f1: (2 * tp) / (2 * tp + fp + fn) };
}
