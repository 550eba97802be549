/**
 * Chip-level figures from candidate probabilities: a chip's score is its most probable
 * candidate (0 without candidates); at a threshold, an oil chip is a hit when its score
 * reaches it, a no-oil chip a false alarm when its score does.
 */

export interface ChipScore {
  label: 0 | 1;
  score: number;
}

export interface ChipRates {
  threshold: number;
  oilChips: number;
  noOilChips: number;
  hits: number;
  falseAlarms: number;
  hitRate: number;
  falseAlarmRate: number;
}

export function chipRates(scores: readonly ChipScore[], threshold: number): ChipRates {
  let oil = 0;
  let no = 0;
  let hits = 0;
  let fa = 0;
  for (const s of scores) {
    if (s.label === 1) {
      oil++;
      if (s.score >= threshold) hits++;
    } else {
      no++;
      if (s.score >= threshold) fa++;
    }
  }
  return { threshold, oilChips: oil, noOilChips: no, hits, falseAlarms: fa, hitRate: oil ? hits / oil : 0, falseAlarmRate: no ? fa / no : 0 };
}

/** Area under the ROC curve of the chip scores (ties count half). */
export function rocAuc(scores: readonly ChipScore[]): number {
  const pos = scores.filter((s) => s.label === 1).map((s) => s.score);
  const neg = scores.filter((s) => s.label === 0).map((s) => s.score).sort((a, b) => a - b);
  if (pos.length === 0 || neg.length === 0) return Number.NaN;
  let sum = 0;
  for (const p of pos) {
    // Count negatives below p and equal to p by binary search.
    let lo = 0;
    let hi = neg.length;
    while (lo < hi) {
      const m = (lo + hi) >> 1;
      if (neg[m]! < p) lo = m + 1;
      else hi = m;
    }
    let eq = lo;
    while (eq < neg.length && neg[eq] === p) eq++;
    sum += lo + (eq - lo) / 2;
  }
  return sum / (pos.length * neg.length);
}

/**
 * The lowest threshold whose false-alarm rate is at most `maxFalseAlarmRate` (so the highest
 * hit rate under that constraint). Candidates are the distinct scores, just above each.
 */
export function thresholdForFalseAlarmRate(scores: readonly ChipScore[], maxFalseAlarmRate: number): number {
  const neg = scores.filter((s) => s.label === 0).map((s) => s.score).sort((a, b) => b - a);
  const allowed = Math.floor(maxFalseAlarmRate * neg.length);
  // Above the (allowed+1)-th highest negative score: at most `allowed` negatives reach it.
  const bar = neg[allowed];
  if (bar === undefined) return 0;
  return Math.min(1, bar + 1e-9);
}
