/**
 * What each hand-set look-alike rule does as a VETO on the real development chips (issue 24 §2:
 * "vetoes ... kept only where a real-data measurement supports them"), per model:
 *
 * - the validation chips on the 8-bit path and as calibrated σ0 (calibratedFromGrey, one or more
 *   seed keys: 'calibrated' is the evaluation's wind draw, any other key a fresh one);
 * - with `--oof FILE` (train.ts --oof), the training chips out of fold, 8-bit and their
 *   calibrated copies (the training split's own wind draw; at the first model's calibrated
 *   threshold, which train.ts set on these scores, else the 8-bit one).
 *
 * For each rule alone (and the service's set): the oil chips it turns from hit to miss and the
 * no-oil chips it turns from false alarm to none, at the model's threshold; and the test of
 * support — the model ALONE with its threshold raised until it has no more false alarms than
 * the veto leaves: if that gets as many hits or more, the veto removes nothing a higher
 * threshold would not (not supported by these chips). The rules are recomputed from the
 * candidates' features (the same tests as discriminate.ts lookAlikeReasons, checked against
 * calibratedFromGrey's own low_wind / compact_shape).
 *
 *   node --import tsx training/oilslick/vetoTable.ts [--oof FILE] [--keys calibrated,K2,…] [--winds] NAME=model.json …
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { FEATURE_NAMES } from '../../src/analysis/oilslick/featureVector.ts';
import { lowWindSigma0Db } from '../../src/analysis/oilslick/cmod5n.ts';
import { gbtPredict, type GbtModel } from '../../src/analysis/oilslick/gbt.ts';
import { decodeGreyJpeg } from '../../src/analysis/oilslick/greyImage.ts';
import { DEFAULT_OIL_SLICK_PARAMS, LOOK_ALIKE_RULES, resolveOilSlickParams } from '../../src/analysis/oilslick/params.ts';
import { calibratedFromGrey, CHIP_INCIDENCE_DEG } from './calibrated.ts';
import { chipRates, type ChipScore } from './chipScore.ts';
import { defaultChipDir, listChips, splitBySource } from './dataset.ts';
import { extractAll } from './extract.ts';
import { SPLIT_SEED, VALIDATION_FRACTION } from './split.ts';

const col = (name: string): number => (FEATURE_NAMES as readonly string[]).indexOf(name);
const C = {
  level: col('level_db'),
  contrast: col('contrast_db'),
  elongation: col('log_elongation'),
  complexity: col('log_complexity'),
  surroundDark: col('surround_dark_fraction'),
  edge: col('edge_gradient_db_per_100m'),
};
const params = resolveOilSlickParams();
const LOW_WIND_DB = lowWindSigma0Db(CHIP_INCIDENCE_DEG, params.lowWindSpeed);
/** The rules a veto can be (too_small is the candidate's definition: the chips' candidates are ≥ minAreaSqkm). */
export const VETO_RULES = LOOK_ALIKE_RULES.filter((r) => r !== 'too_small');

/** The look-alike rules of a candidate from its feature vector (discriminate.ts lookAlikeReasons, too_small aside). */
export function rulesOf(v: readonly number[]): string[] {
  const r: string[] = [];
  if (!(v[C.contrast]! >= params.minContrastDb)) r.push('low_contrast');
  if (!(v[C.level]! + v[C.contrast]! >= LOW_WIND_DB)) r.push('low_wind');
  if (v[C.surroundDark]! > params.maxSurroundDarkFraction) r.push('dark_surroundings');
  if (Math.exp(v[C.elongation]!) < params.compactMaxElongation && Math.exp(-v[C.complexity]!) > params.compactMinCompactness) r.push('compact_shape');
  if (v[C.edge]! < params.minEdgeGradientDbPer100m) r.push('diffuse_edge');
  return r;
}

/** One chip: label, wind (NaN on the 8-bit path), and per candidate its probability and rules. */
export interface ScoredChip {
  label: 0 | 1;
  wind: number;
  p: number[];
  rules: string[][];
}

const score = (c: ScoredChip, vetoes: readonly string[]): number => c.p.reduce((m, p, j) => (c.rules[j]!.some((r) => vetoes.includes(r)) ? m : Math.max(m, p)), 0);

/** Hits of the model alone at the lowest threshold with at most `maxFa` false alarms. */
function hitsAtFalseAlarms(scores: ChipScore[], maxFa: number): number {
  const neg = scores.filter((s) => s.label === 0).map((s) => s.score).sort((a, b) => b - a);
  const t = maxFa < neg.length ? neg[maxFa]! + 1e-9 : 0;
  return scores.filter((s) => s.label === 1 && s.score >= t).length;
}

export interface VetoRow {
  vetoes: string;
  oil: number;
  noOil: number;
  hits: number;
  falseAlarms: number;
  /** Oil chips it turns from hit to miss / no-oil chips from false alarm to none, at the threshold. */
  oilRemoved: number;
  noOilRemoved: number;
  /** The model alone's hits at the same number of false alarms (its threshold raised). */
  aloneHitsAtSameFa: number;
}

export function vetoRows(chips: readonly ScoredChip[], threshold: number, sets: readonly string[][]): VetoRow[] {
  const alone = chips.map((c) => ({ label: c.label, score: score(c, []) }));
  const a = chipRates(alone, threshold);
  return sets.map((v) => {
    const s = chips.map((c) => ({ label: c.label, score: score(c, v) }));
    const r = chipRates(s, threshold);
    return {
      vetoes: v.join(' + ') || '(none: model alone)',
      oil: r.oilChips,
      noOil: r.noOilChips,
      hits: r.hits,
      falseAlarms: r.falseAlarms,
      oilRemoved: a.hits - r.hits,
      noOilRemoved: a.falseAlarms - r.falseAlarms,
      aloneHitsAtSameFa: hitsAtFalseAlarms(alone, r.falseAlarms),
    };
  });
}

function print(title: string, rows: VetoRow[]): void {
  console.log(`\n${title}`);
  console.log('  veto                              hits/oil  FA/no-oil   oil removed  no-oil removed  model alone at the same FA: hits  veto − that');
  for (const r of rows) {
    console.log(
      `  ${r.vetoes.padEnd(32)} ${`${r.hits}/${r.oil}`.padStart(9)} ${`${r.falseAlarms}/${r.noOil}`.padStart(10)}   ${String(r.oilRemoved).padStart(11)}  ${String(r.noOilRemoved).padStart(14)}  ${String(r.aloneHitsAtSameFa).padStart(32)}  ${String(r.hits - r.aloneHitsAtSameFa).padStart(11)}`,
    );
  }
}

const WIND_RANGES: ReadonlyArray<readonly [number, number]> = [
  [3, 5],
  [5, 7],
  [7, 10],
];

function main(): void {
  const { values, positionals } = parseArgs({ options: { oof: { type: 'string' }, keys: { type: 'string', default: 'calibrated' }, winds: { type: 'boolean', default: false } }, allowPositionals: true });
  if (positionals.length === 0) throw new Error('usage: vetoTable.ts [--oof FILE] [--keys calibrated,…] [--winds] NAME=model.json …');
  const models = positionals.map((s) => {
    const k = s.indexOf('=');
    return { name: s.slice(0, k), model: JSON.parse(readFileSync(s.slice(k + 1), 'utf8')) as { gbt: GbtModel; threshold: number; calibratedThreshold?: number } };
  });
  const sets: string[][] = [[], ...VETO_RULES.map((r) => [r]), [...DEFAULT_OIL_SLICK_PARAMS.vetoRules]];
  const chips = listChips(defaultChipDir());
  const split = splitBySource(chips, SPLIT_SEED, VALIDATION_FRACTION);
  const all = extractAll(chips, 2);
  const byFile = new Map(all.map((c) => [c.file, c]));
  const keys = values.keys!.split(',').filter(Boolean);
  // The validation chips' calibrated copies per key (the engine's features, shifted; rules recomputed and checked).
  const val = split.validation.map((chip) => {
    const c8 = byFile.get(chip.file)!;
    const image = decodeGreyJpeg(readFileSync(chip.path));
    const cal = keys.map((key) => {
      const c = calibratedFromGrey(c8, image, key);
      const rules = c.candidates.map(rulesOf);
      rules.forEach((r, j) => {
        for (const x of ['low_wind', 'compact_shape']) if (r.includes(x) !== c.reasons[j]!.includes(x)) throw new Error(`${chip.file}: ${x} disagrees with calibratedFromGrey`);
      });
      return { c, rules };
    });
    return { c8, rules8: c8.candidates.map(rulesOf), cal };
  });
  for (const { name, model } of models) {
    const predict = (v: number[]) => gbtPredict(model.gbt, v);
    const p8 = val.map(({ c8, rules8 }) => ({ label: c8.label, wind: Number.NaN, p: c8.candidates.map(predict), rules: rules8 }) as ScoredChip);
    print(`${name} (threshold ${model.threshold.toFixed(3)}): VALIDATION chips, 8-bit path`, vetoRows(p8, model.threshold, sets));
    const tc = model.calibratedThreshold ?? model.threshold;
    keys.forEach((key, k) => {
      const pc = val.map(({ cal }) => ({ label: cal[k]!.c.label, wind: cal[k]!.c.wind, p: cal[k]!.c.candidates.map(predict), rules: cal[k]!.rules }) as ScoredChip);
      print(`${name} (threshold ${tc.toFixed(3)}): VALIDATION chips as calibrated σ0, seed key '${key}', 3–10 m/s`, vetoRows(pc, tc, sets));
      if (values.winds) {
        for (const [lo, hi] of WIND_RANGES) {
          print(`${name}: VALIDATION chips as calibrated σ0, seed key '${key}', ${lo}–${hi} m/s`, vetoRows(pc.filter((c) => c.wind >= lo && c.wind < hi), tc, sets));
        }
      }
    });
  }
  if (values.oof) {
    // Out of fold: the probabilities of the fold model that did not see the chip (train.ts --oof).
    const oof = JSON.parse(readFileSync(values.oof, 'utf8')) as {
      threshold: number;
      train: Array<{ file: string; label: 0 | 1; p: number[] }>;
      calibrated: Array<{ file: string; label: 0 | 1; wind: number; p: number[]; reasons: string[][] }>;
    };
    const t8 = oof.train.map((c) => ({ label: c.label, wind: Number.NaN, p: c.p, rules: byFile.get(c.file)!.candidates.map(rulesOf) }) as ScoredChip);
    print(`out of fold (${values.oof}, threshold ${oof.threshold.toFixed(3)}): TRAINING chips, 8-bit path`, vetoRows(t8, oof.threshold, sets));
    // Calibrated copies: the same candidates with the level shifted, so every rule but low_wind is the 8-bit one.
    const tc = oof.calibrated.map((c, i) => {
      const r8 = t8[i]!.rules;
      return { label: c.label, wind: c.wind, p: c.p, rules: c.reasons.map((r, j) => [...r8[j]!.filter((x) => x !== 'low_wind'), ...(r.includes('low_wind') ? ['low_wind'] : [])]) } as ScoredChip;
    });
    // The calibrated threshold was set on these same out-of-fold scores (train.ts calibratedTargetFar): the first model's.
    const tcal = models[0]!.model.calibratedThreshold ?? oof.threshold;
    print(`out of fold: TRAINING chips as calibrated σ0 (seed key 'calibrated-train', threshold ${tcal.toFixed(3)}), 3–10 m/s`, vetoRows(tc, tcal, sets));
    if (values.winds) for (const [lo, hi] of WIND_RANGES) print(`out of fold: TRAINING chips as calibrated σ0, ${lo}–${hi} m/s`, vetoRows(tc.filter((c) => c.wind >= lo && c.wind < hi), tcal, sets));
  }
}

if (process.argv[1] && import.meta.filename && process.argv[1].endsWith('vetoTable.ts')) main();
