// Issue 24 §2: the training chips presented as calibrated σ0 (training/oilslick/calibrated.ts).
// Their candidates are derived from the 8-bit ones (a level shift: only level_db, the wind proxy
// and low_wind change); this checks that against the engine run on the calibrated σ0 itself, on
// real training chips (development-only data oil-csiro-dev; skipped when absent).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { decodeGreyJpeg } from '../../src/analysis/oilslick/greyImage.ts';
import { calibratedChip, calibratedFromGrey } from '../../training/oilslick/calibrated.ts';
import { chipsAvailable, defaultChipDir, listChips, splitBySource } from '../../training/oilslick/dataset.ts';
import { chipCandidates } from '../../training/oilslick/extract.ts';
import { SPLIT_SEED, VALIDATION_FRACTION } from '../../training/oilslick/split.ts';

const dir = defaultChipDir();

describe.skipIf(!chipsAvailable(dir))('calibrated copies of the training chips', () => {
  it('derived from the 8-bit candidates: the same candidates, features and veto rules as the engine on the calibrated σ0', () => {
    const { train } = splitBySource(listChips(dir), SPLIT_SEED, VALIDATION_FRACTION);
    // Every 300th training chip: both labels, a spread of sea levels and winds.
    const chips = train.filter((_, i) => i % 300 === 0);
    expect(new Set(chips.map((c) => c.label)).size).toBe(2);
    let candidates = 0;
    let vetoed = 0;
    for (const chip of chips) {
      const derived = calibratedFromGrey(chipCandidates(chip), decodeGreyJpeg(readFileSync(chip.path)));
      const engine = calibratedChip(chip);
      expect(derived.wind).toBe(engine.wind);
      expect(derived.candidates.length).toBe(engine.candidates.length);
      derived.candidates.forEach((v, j) => {
        v.forEach((x, k) => (Number.isNaN(x) ? expect(engine.candidates[j]![k]).toBeNaN() : expect(x).toBeCloseTo(engine.candidates[j]![k]!, 3)));
        const vetoes = (r: string[]) => r.filter((x) => x === 'low_wind' || x === 'compact_shape').sort();
        expect(vetoes(derived.reasons[j]!)).toEqual(vetoes(engine.reasons[j]!));
        if (vetoes(derived.reasons[j]!).length > 0) vetoed++;
      });
      candidates += derived.candidates.length;
    }
    expect(candidates).toBeGreaterThan(20);
    // Some candidates are vetoed (compact blobs, calm backgrounds), so the rules are compared on both sides.
    expect(vetoed).toBeGreaterThan(0);
  }, 120_000);
});
