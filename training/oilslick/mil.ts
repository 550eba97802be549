/**
 * Candidate-level training from chip-level labels (multiple-instance learning). A chip with
 * oil only says that at least one of its dark candidates is oil; a chip without oil says none
 * is. Round 0 takes every candidate of an oil chip as positive; each later round keeps, per
 * oil chip, only its most probable candidate under the previous model (plus any other above
 * 0.5) as positives — the "witness" — and every candidate of a no-oil chip as a negative.
 * Weights: each chip's candidates share the chip's weight (1, or `weight`: generated bags), and
 * the two classes carry equal total weight, so chips with many candidates do not dominate.
 */
import { gbtPredict, type GbtModel } from '../../src/analysis/oilslick/gbt.ts';
import { trainGbt, type GbtOptions } from './gbtTrain.ts';
import type { ChipCandidates } from './extract.ts';
import type { ChipScore } from './chipScore.ts';

export interface MilOptions {
  rounds: number;
  gbt: Partial<GbtOptions>;
  /** Witnesses per oil chip in the rounds after the first: its `witnesses` most probable candidates (default 1). */
  witnesses?: number;
  /** Any other candidate of an oil chip at least this probable is a witness too (default 0.5). */
  witnessMinProbability?: number;
  /** Each candidate of a no-oil chip with n candidates weighs n^−power (default 0.5). */
  negativeWeightPower?: number;
}

export const DEFAULT_MIL_OPTIONS: MilOptions = { rounds: 3, gbt: {} };

export function trainMil(chips: readonly ChipCandidates[], featureNames: readonly string[], options: MilOptions = DEFAULT_MIL_OPTIONS): GbtModel {
  let model: GbtModel | null = null;
  const negPower = options.negativeWeightPower ?? 0.5;
  for (let round = 0; round < options.rounds; round++) {
    const X: number[][] = [];
    const y: number[] = [];
    const w: number[] = [];
    for (const chip of chips) {
      const n = chip.candidates.length;
      if (n === 0) continue;
      const cw = chip.weight ?? 1;
      if (chip.label === 0) {
        for (const v of chip.candidates) {
          X.push(v);
          y.push(0);
          w.push(cw * (negPower === 0.5 ? 1 / Math.sqrt(n) : n ** -negPower));
        }
        continue;
      }
      let chosen = chip.candidates;
      if (model) {
        const m = model;
        const p = chip.candidates.map((v) => gbtPredict(m, v));
        // Ranked by probability, ties by position (deterministic).
        const order = p.map((_, i) => i).sort((a, b) => p[b]! - p[a]! || a - b);
        const top = new Set(order.slice(0, options.witnesses ?? 1));
        const minP = options.witnessMinProbability ?? 0.5;
        chosen = chip.candidates.filter((_, i) => top.has(i) || p[i]! >= minP);
      }
      for (const v of chosen) {
        X.push(v);
        y.push(1);
        w.push(cw / chosen.length);
      }
    }
    // Equal class totals.
    let wp = 0;
    let wn = 0;
    for (let i = 0; i < y.length; i++) (y[i] ? (wp += w[i]!) : (wn += w[i]!));
    const scale = wn / Math.max(wp, 1e-9);
    for (let i = 0; i < y.length; i++) if (y[i]) w[i]! *= scale;
    // Normalise to a mean weight of 1 (minChildWeight then means "about this many rows").
    const mean = w.reduce((a, b) => a + b, 0) / w.length;
    for (let i = 0; i < w.length; i++) w[i]! /= mean;
    model = { ...trainGbt(X, y, w, options.gbt), featureNames: [...featureNames] };
  }
  return model!;
}

/** Chip scores: the most probable candidate of each chip, 0 without candidates. */
export function scoreChips(model: GbtModel, chips: readonly ChipCandidates[]): ChipScore[] {
  return chips.map((c) => ({ label: c.label, score: c.candidates.reduce((m, v) => Math.max(m, gbtPredict(model, v)), 0) }));
}
