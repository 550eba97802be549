/**
 * Per chip, which validation oil chips of one wind range on the calibrated path each model hits
 * with the service's vetoes (params.ts; the model's calibrated threshold when it has one), misses, or loses to a veto — to see what
 * separates two candidates' per-range hit rates (docs/oilslick.md, candidate F). The chips as
 * calibrated σ0 come from calibratedFromGrey with the evaluation's seed key ('calibrated'), so
 * the counts are eval/oilCalibrated.ts's. Prints only the chips that some model does not hit.
 *
 *   node --import tsx training/oilslick/calibratedChips.ts [--from 7 --to 10] NAME=model.json …
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { calibratedFromGrey } from './calibrated.ts';
import { defaultChipDir, listChips, splitBySource } from './dataset.ts';
import { extractAll } from './extract.ts';
import { SPLIT_SEED, VALIDATION_FRACTION } from './split.ts';
import { decodeGreyJpeg } from '../../src/analysis/oilslick/greyImage.ts';
import { gbtPredict } from '../../src/analysis/oilslick/gbt.ts';
import { FEATURE_NAMES } from '../../src/analysis/oilslick/featureVector.ts';
import { DEFAULT_OIL_SLICK_PARAMS } from '../../src/analysis/oilslick/params.ts';

/** The service's vetoes on calibrated σ0 (params.ts). */
const VETOES: readonly string[] = DEFAULT_OIL_SLICK_PARAMS.vetoRules;

const { values, positionals } = parseArgs({ options: { from: { type: 'string', default: '7' }, to: { type: 'string', default: '10' } }, allowPositionals: true });
const [from, to] = [Number(values.from), Number(values.to)];
if (positionals.length === 0) throw new Error('usage: calibratedChips.ts [--from 7 --to 10] NAME=model.json …');
const models = Object.fromEntries(positionals.map((s) => { const k = s.indexOf('='); return [s.slice(0, k), JSON.parse(readFileSync(s.slice(k + 1), 'utf8'))]; }));
const chips = listChips(defaultChipDir());
const split = splitBySource(chips, SPLIT_SEED, VALIDATION_FRACTION);
const all = extractAll(chips, 2);
const byFile = new Map(all.map((c) => [c.file, c]));
const el = FEATURE_NAMES.indexOf('log_elongation'), ar = FEATURE_NAMES.indexOf('log10_area_km2'), ct = FEATURE_NAMES.indexOf('contrast_db'), eg = FEATURE_NAMES.indexOf('edge_gradient_db_per_100m');
const rows: string[] = [];
const hits: Record<string, number> = Object.fromEntries(Object.keys(models).map((n) => [n, 0]));
const last = Object.keys(models).at(-1)!;
for (const chip of split.validation) {
  if (chip.label !== 1) continue;
  const c8 = byFile.get(chip.file)!;
  const cal = calibratedFromGrey(c8, decodeGreyJpeg(readFileSync(chip.path)), 'calibrated');
  if (!(cal.wind >= from && cal.wind < to)) continue;
  const out: string[] = [];
  for (const [n, m] of Object.entries(models)) {
    const ps = cal.candidates.map((v) => gbtPredict(m.gbt, v));
    const t: number = m.calibratedThreshold ?? m.threshold;
    const svc = Math.max(0, ...ps.filter((_, j) => !cal.reasons[j]!.some((r) => VETOES.includes(r))));
    const alone = Math.max(0, ...ps);
    if (svc >= t) hits[n]!++;
    out.push(`${n} ${svc >= t ? 'HIT' : alone >= t ? 'veto' : 'miss'} svc ${svc.toFixed(3)} alone ${alone.toFixed(3)} (t ${t.toFixed(3)})`);
  }
  const j = cal.candidates.map((v) => gbtPredict(models[last].gbt, v)).reduce((b, p, i, a) => (p > a[b]! ? i : b), 0);
  const v = cal.candidates[j];
  const desc = v ? `best candidate (last model): area ${(10 ** v[ar]!).toFixed(3)} km², elong ${Math.exp(v[el]!).toFixed(2)}, contrast ${v[ct]!.toFixed(1)} dB, edge ${v[eg]!.toFixed(2)}, rules [${cal.reasons[j]!.join(',')}]` : 'no candidate';
  if (out.some((s) => !s.includes('HIT')) ) rows.push(`${chip.file} wind ${cal.wind.toFixed(1)}: ${out.join(' | ')}; ${desc}`);
}
console.log(`oil chips at ${from}–${to} m/s hit with the service's vetoes:`, hits);
for (const r of rows) console.log(r);
