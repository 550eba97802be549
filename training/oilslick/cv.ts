/**
 * Cross-validation experiments on the TRAINING split only (never the validation chips): one
 * configuration per run, scored like train.ts's model selection (4 folds by source, out-of-fold
 * chip hit rate at a false-alarm rate of 0.10, AUC), plus the per-fold figures (each fold's own
 * threshold at FA 0.10) for the spread. The out-of-fold scores go to .tmp/oilslick-cv/NAME.json
 * so two configurations can be compared chip by chip (pairs.ts).
 *
 *   node --import tsx training/oilslick/cv.ts --name base \
 *     --config '{"trees":300,"maxDepth":5,"learningRate":0.04,"rounds":4}' [--drop f1,f2]
 *
 * `--drop` leaves feature columns out (by name), to compare a feature set with a smaller one on
 * the same cache; `--derive` appends columns computed from the cached ones (DERIVED: candidate
 * features, tried here before they go into featureVector.ts); `witnesses` /
 * `witnessMinProbability` in the config go to the MIL rounds.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { FEATURE_NAMES } from '../../src/analysis/oilslick/featureVector.ts';
import { chipRates, rocAuc, thresholdForFalseAlarmRate, type ChipScore } from './chipScore.ts';
import { defaultChipDir, listChips, sourceFolds, splitBySource } from './dataset.ts';
import { extractAll, type ChipCandidates } from './extract.ts';
import type { GbtOptions } from './gbtTrain.ts';
import { scoreChips, trainMil } from './mil.ts';
import { SPLIT_SEED, VALIDATION_FRACTION } from './split.ts';

export const CV_SEED = 23;
export const FOLDS = 4;
export const TARGET_FAR = 0.1;

const col = (name: string): number => {
  const j = (FEATURE_NAMES as readonly string[]).indexOf(name);
  if (j < 0) throw new Error(`no feature ${name}`);
  return j;
};
const C = { contrast: col('contrast_db'), local: col('local_contrast_db'), depth: col('depth_db'), edge: col('edge_gradient_db_per_100m'), inStd: col('inside_std_db'), outStd: col('surround_std_db'), strongest: col('contrast_vs_strongest_neighbour_db') };

/**
 * Scale-free candidates (ratios of dB differences): the authors' grey scaling varies per chip,
 * which multiplies every dB difference of a chip by an unknown factor; a ratio of two does not
 * change with it. All six raised the cross-validation figure (docs/oilslick.md) and are now
 * features of featureVector.ts (same names); the experiment on the 24 base features is
 * `--drop <the six> --derive <the six>`.
 */
const DERIVED: Record<string, (v: readonly number[]) => number> = {
  // Contrast against the sea's own variability around the region (a signal-to-clutter ratio).
  contrast_per_surround_std: (v) => v[C.contrast]! / Math.max(v[C.outStd]!, 0.1),
  // Edge sharpness against the same variability (per 100 m).
  edge_per_surround_std: (v) => v[C.edge]! / Math.max(v[C.outStd]!, 0.1),
  // Texture inside vs around: oil smooths the inside more than wind changes do.
  log_inside_vs_surround_std: (v) => Math.log(Math.max(v[C.inStd]!, 0.01) / Math.max(v[C.outStd]!, 0.01)),
  // Contrast to the sea right beside it against the contrast to the background.
  local_per_contrast: (v) => v[C.local]! / Math.max(v[C.contrast]!, 0.5),
  // Darkest point against the mean contrast (a core / fade-out profile).
  depth_per_contrast: (v) => v[C.depth]! / Math.max(v[C.contrast]!, 0.5),
  // Contrast against the strongest neighbour's, as a ratio (the difference is a feature already).
  contrast_vs_strongest_neighbour_ratio: (v) => {
    const d = v[C.strongest]!;
    if (!Number.isFinite(d)) return Number.NaN;
    return v[C.contrast]! / Math.max(v[C.contrast]! - d, 0.5);
  },
};

export type CvConfig = Partial<GbtOptions> & { rounds: number; witnesses?: number; witnessMinProbability?: number; negativeWeightPower?: number };

/** Out-of-fold chip scores of one configuration (the fold f model trained with seed seedBase + f). */
export function outOfFold(train: readonly ChipCandidates[], folds: readonly number[], cfg: CvConfig, featureNames: readonly string[], seedBase = 100): ChipScore[] {
  const { rounds, witnesses, witnessMinProbability, negativeWeightPower, ...gbt } = cfg;
  const scores: ChipScore[] = new Array(train.length);
  for (let f = 0; f < FOLDS; f++) {
    const fit = train.filter((_, i) => folds[i] !== f);
    const model = trainMil(fit, featureNames, { rounds, witnesses, witnessMinProbability, negativeWeightPower, gbt: { ...gbt, seed: seedBase + f } });
    const held = train.map((c, i) => ({ c, i })).filter(({ i }) => folds[i] === f);
    const s = scoreChips(model, held.map(({ c }) => c));
    held.forEach(({ i }, k) => (scores[i] = s[k]!));
  }
  return scores;
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { name: { type: 'string' }, config: { type: 'string' }, drop: { type: 'string', default: '' }, derive: { type: 'string', default: '' }, seed: { type: 'string', default: '100' }, parts: { type: 'string', default: '2' } } });
  const cfg = JSON.parse(values.config!) as CvConfig;
  const drop = new Set(values.drop!.split(',').filter(Boolean));
  for (const d of drop) if (!(FEATURE_NAMES as readonly string[]).includes(d)) throw new Error(`unknown feature ${d}`);
  const keep = FEATURE_NAMES.map((n, j) => ({ n, j })).filter(({ n }) => !drop.has(n));
  const derive = values.derive!.split(',').filter(Boolean);
  for (const d of derive) if (!DERIVED[d]) throw new Error(`unknown derived feature ${d}; known: ${Object.keys(DERIVED).join(', ')}`);
  const names = [...keep.map(({ n }) => n), ...derive];
  const chips = listChips(defaultChipDir());
  const split = splitBySource(chips, SPLIT_SEED, VALIDATION_FRACTION);
  // Only the training chips' features are read.
  const all = extractAll(chips, Number(values.parts));
  const byFile = new Map(all.map((c) => [c.file, c]));
  const train = split.train.map((c) => {
    const r = byFile.get(c.file)!;
    return { ...r, candidates: r.candidates.map((v) => [...keep.map(({ j }) => v[j]!), ...derive.map((d) => DERIVED[d]!(v))]) };
  });
  const folds = sourceFolds(split.train, FOLDS, CV_SEED);
  const t0 = performance.now();
  const scores = outOfFold(train, folds, cfg, names, Number(values.seed));
  const t = thresholdForFalseAlarmRate(scores, TARGET_FAR);
  const all4 = { ...chipRates(scores, t), auc: rocAuc(scores) };
  const perFold = [...Array(FOLDS).keys()].map((f) => {
    const s = scores.filter((_, i) => folds[i] === f);
    return chipRates(s, thresholdForFalseAlarmRate(s, TARGET_FAR)).hitRate;
  });
  const r3 = (v: number) => Math.round(v * 1000) / 1000;
  const line = `${values.name}: hit ${r3(all4.hitRate)} (${all4.hits}/${all4.oilChips}) at FAR ${r3(all4.falseAlarmRate)}, AUC ${r3(all4.auc)}; per fold ${perFold.map(r3).join(' ')}; features ${names.length}${derive.length ? ` (+${derive.join(',')})` : ''}${drop.size ? ` (-${[...drop].join(',')})` : ''}; ${JSON.stringify(cfg)} seed ${values.seed}; ${((performance.now() - t0) / 1000).toFixed(0)} s`;
  process.stdout.write(`${line}\n`);
  const dir = path.resolve(import.meta.dirname, '../../.tmp/oilslick-cv');
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, `${values.name}.json`), JSON.stringify({ line, cfg, drop: [...drop], derive, folds, files: train.map((c) => c.file), scores }));
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  main().catch((e: unknown) => {
    console.error(e);
    process.exitCode = 1;
  });
}
