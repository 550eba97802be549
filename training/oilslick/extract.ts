/**
 * Candidate features of every chip: decode, run the engine without a model (greyDetect.ts),
 * keep the candidates of at least params.minAreaSqkm with their feature vectors. Cached as
 * JSON under .tmp/oilslick-features/ keyed by a hash of the parameters, the feature names
 * and the chip list, so training reruns in seconds; the cache is never committed.
 *
 *   node --import tsx training/oilslick/extract.ts --part 0/2   (one half, for a second process)
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { FEATURE_NAMES, featureVector } from '../../src/analysis/oilslick/featureVector.ts';
import { decodeGreyJpeg, GREY_DB_RANGE } from '../../src/analysis/oilslick/greyImage.ts';
import { detectSlicksInGreyImage } from '../../src/analysis/oilslick/greyDetect.ts';
import { resolveOilSlickParams } from '../../src/analysis/oilslick/params.ts';
import { defaultChipDir, listChips, type Chip } from './dataset.ts';

export interface ChipCandidates {
  file: string;
  label: 0 | 1;
  source: string;
  /** Feature vectors (FEATURE_NAMES order) of the candidates ≥ minAreaSqkm. */
  candidates: number[][];
  /** Weight of the chip in training relative to a real chip (default 1; generated bags, generated.ts). */
  weight?: number;
}

const repoRoot = path.resolve(import.meta.dirname, '../..');
const CACHE_DIR = path.join(repoRoot, '.tmp/oilslick-features');

export function cacheKey(chips: readonly Chip[]): string {
  // Only what shapes the candidates and their features (not the decision parameters).
  const { minOilProbability: _p, vetoRules: _v, scaledInput: _s, ...params } = resolveOilSlickParams();
  const h = createHash('sha256');
  h.update(JSON.stringify({ params, names: FEATURE_NAMES, mapping: GREY_DB_RANGE, files: chips.map((c) => c.file) }));
  return h.digest('hex').slice(0, 12);
}

/** Candidates of one chip (no model: only the features are needed). */
export function chipCandidates(chip: Chip): ChipCandidates {
  const params = resolveOilSlickParams();
  const image = decodeGreyJpeg(readFileSync(chip.path));
  const candidates = detectSlicksInGreyImage(image, { model: null })
    .filter((c) => c.features.areaSqkm >= params.minAreaSqkm)
    .map((c) => featureVector(c.features).map((v) => (Number.isFinite(v) ? Math.round(v * 1e5) / 1e5 : Number.NaN)));
  return { file: chip.file, label: chip.label, source: chip.source, candidates };
}

function partPath(key: string, part: number, parts: number): string {
  return path.join(CACHE_DIR, `${key}-part${part}of${parts}.json`);
}

/** JSON with NaN kept (as null). */
function revive(rows: ChipCandidates[]): ChipCandidates[] {
  for (const r of rows) for (const v of r.candidates) for (let i = 0; i < v.length; i++) if (v[i] === null) v[i] = Number.NaN;
  return rows;
}

export function extractPart(chips: readonly Chip[], part: number, parts: number, log = (m: string) => process.stderr.write(m)): ChipCandidates[] {
  const key = cacheKey(chips);
  const file = partPath(key, part, parts);
  if (existsSync(file)) return revive(JSON.parse(readFileSync(file, 'utf8')) as ChipCandidates[]);
  const out: ChipCandidates[] = [];
  const mine = chips.filter((_, i) => i % parts === part);
  const t0 = performance.now();
  mine.forEach((c, i) => {
    out.push(chipCandidates(c));
    if ((i + 1) % 250 === 0) log(`  part ${part}/${parts}: ${i + 1}/${mine.length} chips, ${((performance.now() - t0) / 1000).toFixed(0)} s\n`);
  });
  mkdirSync(CACHE_DIR, { recursive: true });
  writeFileSync(file, JSON.stringify(out));
  return out;
}

/** Every chip's candidates, from the cache where present (parts written by other processes count). */
export function extractAll(chips: readonly Chip[], parts = 1): ChipCandidates[] {
  const byFile = new Map<string, ChipCandidates>();
  for (let p = 0; p < parts; p++) for (const r of extractPart(chips, p, parts)) byFile.set(r.file, r);
  return chips.map((c) => byFile.get(c.file)!);
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  const { values } = parseArgs({ options: { part: { type: 'string', default: '0/1' } } });
  const [part, parts] = values.part!.split('/').map(Number) as [number, number];
  const chips = listChips(defaultChipDir());
  extractPart(chips, part, parts);
  process.stderr.write(`part ${part}/${parts} done (key ${cacheKey(chips)})\n`);
}
