import { describe, expect, it } from 'vitest';
import { precisionAtRecall } from '../../training/ship/chipCandidates.ts';

// training/ship/chipCandidates.ts precisionAtRecall: the threshold-free comparison of the
// candidate trees' ablations and of the patch-CNN stacking (docs/ship.md).
describe('precisionAtRecall', () => {
  const rows = [
    { inshore: true, y: 1 },
    { inshore: true, y: 0 },
    { inshore: true, y: 1 },
    { inshore: true, y: 0 },
    { inshore: true, y: 1 },
    { inshore: false, y: 0 },
    { inshore: false, y: 1 },
  ];
  const prob = [0.9, 0.8, 0.7, 0.6, 0.1, 0.95, 0.2];

  it('keeps candidates of one kind in score order until the recall is reached', () => {
    // 4 inshore ships: recall 0.5 needs 2 found — after 0.9, 0.8, 0.7 (2 of 3 kept are ships).
    expect(precisionAtRecall(rows, prob, true, 4, 0.5)).toBeCloseTo(2 / 3, 12);
    // 3 found after all five inshore candidates; the offshore 0.95 is not counted.
    expect(precisionAtRecall(rows, prob, true, 4, 0.75)).toBeCloseTo(3 / 5, 12);
    // Offshore: the false 0.95 comes first, then the ship at 0.2.
    expect(precisionAtRecall(rows, prob, false, 1, 1)).toBeCloseTo(1 / 2, 12);
  });

  it('is null when the candidates never reach the recall', () => {
    expect(precisionAtRecall(rows, prob, true, 4, 1)).toBeNull();
    expect(precisionAtRecall(rows, prob, false, 2, 1)).toBeNull();
  });
});
