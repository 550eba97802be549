// The idle probability of a field: a logistic model on its season statistics (docs/idlefarm.md).
// Coefficients are fitted on generated seasons by training/idlefarm/fit.ts (seeded, so the
// fit repeats exactly) and committed as model.json beside this file.

import { committedModel } from '../common/committedModel.ts';
import type { SeasonStats } from './season.ts';

/** Longest rise (days) the model distinguishes; slower rises count as this long. */
export const RISE_DAYS_CAP = 120;

export const FEATURE_NAMES = ['vh_rise_db', 'vh_vv_rise_db', 'rise_days_30', 'vh_fall_db', 'vh_vv_fall_db', 'cut_depth_db'] as const;

export interface IdleModel {
  featureNames: string[];
  intercept: number;
  weights: number[];
  /** idle when the probability is at least this. */
  threshold: number;
  /** How the coefficients were made (for the record). */
  training: Record<string, unknown>;
}

/** The features the model reads, in FEATURE_NAMES order. */
export function featureVector(s: Pick<SeasonStats, 'vhRiseDb' | 'ratioRiseDb' | 'riseDays' | 'vhFallDb' | 'ratioFallDb' | 'cutDepthDb'>): number[] {
  return [s.vhRiseDb, s.ratioRiseDb, Math.min(s.riseDays, RISE_DAYS_CAP) / 30, s.vhFallDb, s.ratioFallDb, s.cutDepthDb];
}

/** P(idle) under `model`, 0…1. */
export function idleProbability(model: IdleModel, features: readonly number[]): number {
  let z = model.intercept;
  for (let i = 0; i < features.length; i++) z += model.weights[i]! * features[i]!;
  return 1 / (1 + Math.exp(-z));
}

export const MODEL_URL = new URL('./model.json', import.meta.url);

/** The committed model; it must have been fitted on the features this code computes. */
export const loadIdleModel = committedModel<IdleModel>(MODEL_URL, 'idlefarm model.json', (m) => m.featureNames, FEATURE_NAMES, 'training/idlefarm/fit.ts');
