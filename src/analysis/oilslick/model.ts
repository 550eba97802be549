/**
 * The trained oil-probability model (model.json beside this file, written by
 * `npm run train:oilslick`, training/oilslick/): gradient-boosted trees over the candidate
 * features of featureVector.ts, and the probability threshold chosen on the training split.
 */
import { existsSync, readFileSync } from 'node:fs';
import type { SlickFeatures } from './discriminate.ts';
import { FEATURE_NAMES, featureVector } from './featureVector.ts';
import { gbtPredict, type GbtModel } from './gbt.ts';

export interface OilModelFile {
  version: 1;
  gbt: GbtModel;
  /** Oil probability a candidate must reach to be a slick (chosen on the training split). */
  threshold: number;
  /**
   * The same on calibrated σ0 (issue 24 §2): chosen on the training split's chips presented as
   * calibrated σ0, out of fold, with the calibrated vetoes (train.ts). Absent: `threshold`.
   */
  calibratedThreshold?: number;
  /** How the model was made: data, split, seed, options (for the record). */
  training: Record<string, unknown>;
}

const MODEL_URL = new URL('./model.json', import.meta.url);

let cached: OilModelFile | null | undefined;

/** The committed model, or null when there is none (before the first training run). */
export function loadOilModel(): OilModelFile | null {
  if (cached !== undefined) return cached;
  if (!existsSync(MODEL_URL)) return (cached = null);
  const model = JSON.parse(readFileSync(MODEL_URL, 'utf8')) as OilModelFile;
  const names = model.gbt.featureNames;
  if (names.length !== FEATURE_NAMES.length || names.some((n, i) => n !== FEATURE_NAMES[i])) {
    throw new Error(`oil-slick model.json was trained on features [${names.join(', ')}], the code computes [${FEATURE_NAMES.join(', ')}]: retrain (npm run train:oilslick)`);
  }
  return (cached = model);
}

/** Oil probability (0…1) of a candidate under `model`. */
export function oilProbability(model: OilModelFile, features: SlickFeatures): number {
  return gbtPredict(model.gbt, featureVector(features));
}
