/**
 * Chips presented as CALIBRATED σ0 (issue 24 §2): the grey → dB mapping that puts a chip's sea
 * at CMOD5.N's VV level for a wind, keeping the published scale (0.137 dB per grey level), so
 * every contrast stays as on the 8-bit path and only the absolute level becomes physical. Used
 * by the calibrated-path evaluation (eval/oilCalibrated.ts, validation chips) and, with its own
 * seed key, for the TRAINING split's chips as fit-only rows of the mix and an out-of-fold
 * estimate of the calibrated path (train.ts) — never the validation chips.
 *
 * The training chips' calibrated candidates come from their 8-bit ones (calibratedFromGrey),
 * with the veto rules that apply to each (the vetoes are decided from these, whatever the
 * model), cached as JSON under .tmp/oilslick-calibrated/ (never committed).
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { cmod5nSigma0 } from '../../src/imagery/cmod5n.ts';
import { crosswindSpeedFromSigma0Db, FEATURE_NAMES, featureVector } from '../../src/analysis/oilslick/featureVector.ts';
import { lowWindSigma0Db } from '../../src/analysis/oilslick/cmod5n.ts';
import { decodeGreyJpeg, GREY_DB_RANGE, type GreyDbMapping, type GreyImage } from '../../src/analysis/oilslick/greyImage.ts';
import { greyRasterInput } from '../../src/analysis/oilslick/greyDetect.ts';
import { detectSlicksInRaster } from '../../src/analysis/oilslick/detect.ts';
import { resolveOilSlickParams } from '../../src/analysis/oilslick/params.ts';
import { hashString, Random } from '../../src/synth/index.ts';
import type { Chip } from './dataset.ts';
import type { ChipCandidates } from './extract.ts';

export const CHIP_INCIDENCE_DEG = 35;
/** dB per grey level: the published working assumption's scale (−35…0 dB over 0…255). */
export const DB_PER_GREY = 35 / 255;
/** Winds (m/s) drawn uniformly for a chip: the range of the calibrated target. */
export const CALIBRATED_WINDS: readonly [number, number] = [3, 10];

/** The grey → dB mapping that puts the chip's sea (median usable grey) at CMOD5.N's level for this wind. */
export function calibratedMapping(image: GreyImage, windSpeed: number, windDirDeg: number, incidenceDeg = CHIP_INCIDENCE_DEG): GreyDbMapping {
  const hist = new Float64Array(256);
  let count = 0;
  for (let i = 0; i < image.grey.length; i++) {
    const g = image.grey[i]!;
    if (g > 0 && g < 255) {
      hist[g]!++;
      count++;
    }
  }
  let acc = 0;
  let seaGrey = 128;
  for (let g = 1; g < 255; g++) {
    acc += hist[g]!;
    if (acc >= count / 2) {
      seaGrey = g;
      break;
    }
  }
  const seaDb = 10 * Math.log10(cmod5nSigma0(windSpeed, windDirDeg, incidenceDeg));
  const minDb = seaDb - seaGrey * DB_PER_GREY;
  return { minDb, maxDb: minDb + 255 * DB_PER_GREY };
}

/** A training chip as calibrated σ0: its candidates, the rules that apply to each, and the wind drawn. */
export interface CalibratedChip extends ChipCandidates {
  wind: number;
  /** Look-alike rules (LookAlikeReason) that apply to each candidate, same order as `candidates`. */
  reasons: string[][];
}

/** Seed key of the training chips' winds (the evaluation draws with 'calibrated' on validation chips). */
const TRAIN_KEY = 'calibrated-train';

const round = (v: number) => (Number.isFinite(v) ? Math.round(v * 1e5) / 1e5 : Number.NaN);

export function calibratedChip(chip: Chip): CalibratedChip {
  const image = decodeGreyJpeg(readFileSync(chip.path));
  const rng = new Random(hashString(chip.file), TRAIN_KEY);
  const wind = rng.range(CALIBRATED_WINDS[0], CALIBRATED_WINDS[1]);
  const { input } = greyRasterInput(image, { mapping: calibratedMapping(image, wind, rng.range(0, 360)) });
  const candidates = detectSlicksInRaster(input, resolveOilSlickParams({ vetoRules: [] }), { incidenceDeg: CHIP_INCIDENCE_DEG, model: null }).filter(
    (c) => !c.reasons.includes('too_small'),
  );
  return {
    file: chip.file,
    label: chip.label,
    source: chip.source,
    wind: round(wind),
    candidates: candidates.map((c) => featureVector(c.features).map(round)),
    reasons: candidates.map((c) => c.reasons.filter((r) => r !== 'low_probability')),
  };
}

/**
 * The same, from the chip's 8-bit candidates (extract.ts) without running the engine again:
 * the calibrated mapping keeps the 8-bit path's dB per grey level and only shifts every level
 * by one offset, and the engine's regions and features depend on level differences only
 * (the backgrounds, the dark test, the bright-target test are relative), except the region's
 * level (`level_db`), the wind proxy (`wind_speed_ms`, CMOD5.N of the background) and the
 * `low_wind` rule. So those are shifted and recomputed; `compact_shape` comes from the shape
 * features. Checked against calibratedChip (the engine run on the calibrated σ0) by
 * test/analysis/oilslick-calibrated.test.ts. `seedKey` 'calibrated' draws the evaluation's winds
 * (eval/oilCalibrated.ts, validation chips).
 */
export function calibratedFromGrey(chip: ChipCandidates, image: GreyImage, seedKey = TRAIN_KEY): CalibratedChip {
  const rng = new Random(hashString(chip.file), seedKey);
  const wind = rng.range(CALIBRATED_WINDS[0], CALIBRATED_WINDS[1]);
  const mapping = calibratedMapping(image, wind, rng.range(0, 360));
  const shift = mapping.minDb - GREY_DB_RANGE.minDb;
  if (Math.abs(mapping.maxDb - mapping.minDb - (GREY_DB_RANGE.maxDb - GREY_DB_RANGE.minDb)) > 1e-9) throw new Error('calibrated mapping changes the dB scale');
  const params = resolveOilSlickParams();
  const lowWindDb = lowWindSigma0Db(CHIP_INCIDENCE_DEG, params.lowWindSpeed);
  const reasons: string[][] = [];
  const candidates = chip.candidates.map((v8) => {
    const v = [...v8];
    const backgroundDb = v8[COL.level]! + v8[COL.contrast]! + shift;
    v[COL.level] = round(v8[COL.level]! + shift);
    v[COL.wind] = round(crosswindSpeedFromSigma0Db(backgroundDb, CHIP_INCIDENCE_DEG));
    const r: string[] = [];
    if (!(backgroundDb >= lowWindDb)) r.push('low_wind');
    if (Math.exp(v8[COL.elongation]!) < params.compactMaxElongation && Math.exp(-v8[COL.complexity]!) > params.compactMinCompactness) r.push('compact_shape');
    reasons.push(r);
    return v;
  });
  return { file: chip.file, label: chip.label, source: chip.source, wind: round(wind), candidates, reasons };
}

const col = (name: string): number => {
  const j = (FEATURE_NAMES as readonly string[]).indexOf(name);
  if (j < 0) throw new Error(`no feature ${name}`);
  return j;
};
const COL = { level: col('level_db'), contrast: col('contrast_db'), wind: col('wind_speed_ms'), elongation: col('log_elongation'), complexity: col('log_complexity') };

const repoRoot = path.resolve(import.meta.dirname, '../..');
const CACHE_DIR = path.join(repoRoot, '.tmp/oilslick-calibrated');

function cacheKey(chips: readonly ChipCandidates[]): string {
  const { minOilProbability: _p, vetoRules: _v, scaledInput: _s, ...params } = resolveOilSlickParams();
  const h = createHash('sha256');
  h.update(JSON.stringify({ params, names: FEATURE_NAMES, key: TRAIN_KEY, winds: CALIBRATED_WINDS, dbPerGrey: DB_PER_GREY, files: chips.map((c) => c.file), v: 2 }));
  return h.digest('hex').slice(0, 12);
}

/** The TRAINING split's chips as calibrated σ0 (calibratedFromGrey; cached), in the order of `train` (extract.ts rows of split.train). */
export function calibratedTrainingChips(train: readonly ChipCandidates[], paths: ReadonlyMap<string, string>): CalibratedChip[] {
  const file = path.join(CACHE_DIR, `${cacheKey(train)}.json`);
  if (existsSync(file)) {
    const rows = JSON.parse(readFileSync(file, 'utf8')) as CalibratedChip[];
    for (const r of rows) for (const v of r.candidates) for (let i = 0; i < v.length; i++) if (v[i] === null) v[i] = Number.NaN;
    return rows;
  }
  const out = train.map((c) => calibratedFromGrey(c, decodeGreyJpeg(readFileSync(paths.get(c.file)!))));
  mkdirSync(CACHE_DIR, { recursive: true });
  writeFileSync(file, JSON.stringify(out));
  return out;
}
