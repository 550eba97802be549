// The oil-slick engine with the committed model on REAL Sentinel-1 chips (CSIRO dev split,
// development-only data oil-csiro-dev beside the clone; skipped when absent): the first 40 oil and 40 no-oil chips of
// the validation split (source images never seen in training), chip-level decisions.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodeGreyJpeg, detectSlicksInGreyImage, loadOilModel, oilProbabilityThreshold, resolveOilSlickParams } from '../../src/analysis/oilslick/index.ts';
import { chipsAvailable, defaultChipDir, listChips, splitBySource } from '../../training/oilslick/dataset.ts';
import { SPLIT_SEED, VALIDATION_FRACTION } from '../../training/oilslick/split.ts';

const dir = defaultChipDir();
const have = chipsAvailable(dir);

describe.skipIf(!have)('oil slicks on real CSIRO chips (validation split)', () => {
  it('flags most oil chips and few no-oil chips; every slick is above the model threshold or a fragment of one that is', () => {
    const model = loadOilModel();
    expect(model).not.toBeNull();
    const threshold = oilProbabilityThreshold(resolveOilSlickParams({ scaledInput: true }), model);
    const { validation, train } = splitBySource(listChips(dir), SPLIT_SEED, VALIDATION_FRACTION);
    const trainSources = new Set(train.map((c) => c.source));
    const pick = (label: 0 | 1) => validation.filter((c) => c.label === label).slice(0, 40);
    const flagged = (label: 0 | 1) =>
      pick(label).filter((chip) => {
        expect(trainSources.has(chip.source)).toBe(false);
        const candidates = detectSlicksInGreyImage(decodeGreyJpeg(readFileSync(chip.path)), { model });
        const slicks = candidates.filter((c) => c.isSlick);
        for (const s of slicks) {
          // Fragments (issue 24) join a slick at p ≥ 0.3; the slick they join is above the threshold.
          const decided = s.fragmentOf === null ? s : candidates[s.fragmentOf]!;
          expect(decided.fragmentOf).toBeNull();
          expect(decided.oilProbability).toBeGreaterThanOrEqual(threshold);
          if (s.fragmentOf !== null) expect(s.oilProbability).toBeGreaterThanOrEqual(0.3);
          expect(s.features.areaSqkm).toBeGreaterThanOrEqual(0.03);
        }
        return slicks.length > 0;
      }).length;
    const hits = flagged(1);
    const falseAlarms = flagged(0);
    // Measured with the committed model: 36 of 40 and 4 of 40 (whole validation split: 0.813 / 0.098).
    expect(hits).toBeGreaterThanOrEqual(30);
    expect(falseAlarms).toBeLessThanOrEqual(8);
    if (process.env.OILSLICK_DEBUG) console.log({ hits, falseAlarms });
  }, 120_000);
});
