/**
 * Oil slicks on the CALIBRATED path (issue 24 §2): the real dev chips (validation split by
 * source image) presented as physically plausible σ0, as a GRD scene would give them.
 *
 * Mapping per chip: a wind speed drawn uniformly in 3–10 m/s and a wind direction (seeded by
 * the chip's file name); the chip's sea level (median grey of its usable pixels) is put at
 * CMOD5.N's VV σ0 for that wind at the chips' assumed incidence (35°); the chip's dynamic
 * range keeps the published working assumption's scale (35 dB over 255 grey levels, i.e.
 * 0.137 dB per level), so every contrast is the same as on the 8-bit path and only the
 * absolute level — what low_wind and the wind proxy read — becomes physical. Decisions scored:
 * the model alone and the model with each veto and with the service's vetoes; hit and
 * false-alarm rates per wind range. The mapping is training/oilslick/calibrated.ts's; the training
 * split's chips go through it too (with another seed key) as fit-only rows, never these.
 */
import { readFileSync } from 'node:fs';
import {
  decodeGreyJpeg,
  DEFAULT_OIL_SLICK_PARAMS,
  detectSlicksInRaster,
  greyRasterInput,
  loadOilModel,
  oilProbabilityThreshold,
  resolveOilSlickParams,
} from '../src/analysis/oilslick/index.ts';
import { hashString, Random } from '../src/synth/index.ts';
import { calibratedMapping, CHIP_INCIDENCE_DEG, DB_PER_GREY } from '../training/oilslick/calibrated.ts';
import { chipRates, type ChipRates } from '../training/oilslick/chipScore.ts';
import { chipsAvailable, defaultChipDir, listChips, splitBySource } from '../training/oilslick/dataset.ts';
import { SPLIT_SEED, VALIDATION_FRACTION } from '../training/oilslick/split.ts';
import { f3, table } from './format.ts';

export { calibratedMapping, CHIP_INCIDENCE_DEG, DB_PER_GREY };
export const WIND_RANGES: ReadonlyArray<readonly [number, number]> = [
  [3, 5],
  [5, 7],
  [7, 10],
];

export interface CalibratedRow extends ChipRates {
  decision: string;
  windRange: string;
}

export type OilCalibratedEval =
  | { skipped: string }
  | { rows: CalibratedRow[]; targets: { hitRate: number; falseAlarmRate: number }; targetsMet: boolean; serviceDecision: string; seconds: number };

/** The calibrated-path figures (see the file comment); `limit` takes the first chips only (quick runs). */
export function evalOilCalibrated(options: { limit?: number } = {}): OilCalibratedEval {
  const dir = defaultChipDir();
  if (!chipsAvailable(dir)) return { skipped: `real chips not found at ${dir}` };
  const model = loadOilModel();
  if (!model) return { skipped: 'no trained model' };
  const t0 = performance.now();
  const split = splitBySource(listChips(dir), SPLIT_SEED, VALIDATION_FRACTION);
  const params = resolveOilSlickParams({ vetoRules: [] });
  const threshold = oilProbabilityThreshold(params, model);
  const service = [...DEFAULT_OIL_SLICK_PARAMS.vetoRules] as string[];
  const decisions: Array<{ name: string; vetoes: string[] }> = [
    { name: 'model alone', vetoes: [] },
    { name: 'model + low_wind', vetoes: ['low_wind'] },
    { name: 'model + compact_shape', vetoes: ['compact_shape'] },
    { name: 'model + diffuse_edge', vetoes: ['diffuse_edge'] },
    { name: 'model + low_wind, compact_shape, diffuse_edge (the service before issue 24)', vetoes: ['low_wind', 'compact_shape', 'diffuse_edge'] },
    { name: `service (${service.join(', ') || 'no vetoes'})`, vetoes: service },
  ];
  const scores: Array<{ wind: number; label: 0 | 1; byDecision: number[] }> = [];
  for (const chip of split.validation.slice(0, options.limit ?? Infinity)) {
    const image = decodeGreyJpeg(readFileSync(chip.path));
    const rng = new Random(hashString(chip.file), 'calibrated');
    const wind = rng.range(3, 10);
    const mapping = calibratedMapping(image, wind, rng.range(0, 360));
    const { input } = greyRasterInput(image, { mapping });
    const candidates = detectSlicksInRaster(input, params, { incidenceDeg: CHIP_INCIDENCE_DEG, model }).filter((c) => !c.reasons.includes('too_small'));
    scores.push({
      wind,
      label: chip.label,
      byDecision: decisions.map((d) => Math.max(0, ...candidates.filter((c) => !c.reasons.some((r) => d.vetoes.includes(r))).map((c) => c.oilProbability))),
    });
  }
  const rows: CalibratedRow[] = [];
  const ranges: Array<[string, (w: number) => boolean]> = [
    ...WIND_RANGES.map(([a, b]) => [`${a}–${b} m/s`, (w: number) => w >= a && w < b] as [string, (w: number) => boolean]),
    ['3–10 m/s (all)', () => true],
  ];
  for (const [name, inRange] of ranges) {
    decisions.forEach((d, k) => {
      const s = scores.filter((x) => inRange(x.wind)).map((x) => ({ label: x.label, score: x.byDecision[k]! }));
      rows.push({ decision: d.name, windRange: name, ...chipRates(s, threshold) });
    });
  }
  const serviceAll = rows.find((r) => r.windRange.endsWith('(all)') && r.decision === decisions.at(-1)!.name)!;
  return {
    rows,
    targets: { hitRate: 0.8, falseAlarmRate: 0.1 },
    targetsMet: serviceAll.hitRate >= 0.8 && serviceAll.falseAlarmRate <= 0.1,
    serviceDecision: decisions.at(-1)!.name,
    seconds: Math.round((performance.now() - t0) / 100) / 10,
  };
}

export function printOilCalibrated(r: OilCalibratedEval): void {
  if ('skipped' in r) {
    console.log(`oil slicks, calibrated path: SKIPPED — ${r.skipped}\n`);
    return;
  }
  console.log(
    `oil slicks, REAL chips on the CALIBRATED path (validation split; sea at CMOD5.N's VV σ0 for a wind drawn in 3–10 m/s at ${CHIP_INCIDENCE_DEG}°, ${DB_PER_GREY.toFixed(3)} dB per grey level):`,
  );
  console.log(
    table(
      ['wind', 'decision', 'oil chips', 'hits', 'hit rate', 'no-oil chips', 'false alarms', 'FA rate'],
      r.rows.map((x) => [x.windRange, x.decision, x.oilChips, x.hits, f3(x.hitRate), x.noOilChips, x.falseAlarms, f3(x.falseAlarmRate)]),
    ),
  );
  const all = r.rows.find((x) => x.windRange.endsWith('(all)') && x.decision === r.serviceDecision)!;
  console.log(
    `target (3–10 m/s, the service's decision): hit rate ≥ ${r.targets.hitRate} at FA ≤ ${r.targets.falseAlarmRate}: ${r.targetsMet ? 'MET' : `NOT MET (${f3(all.hitRate)} at ${f3(all.falseAlarmRate)})`}; ${r.seconds} s`,
  );
  console.log('');
}
