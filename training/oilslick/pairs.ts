/**
 * Is configuration B's cross-validation figure better than A's beyond noise? Both out-of-fold
 * score files (cv.ts, .tmp/oilslick-cv/NAME.json) hold the same training chips; a bootstrap
 * over the training SOURCES (chips of a source are alike, so they are drawn together, seeded)
 * recomputes each one's hit rate at its own false-alarm rate of 0.10 on every resample, and
 * reports the difference B − A with its 5 %…95 % interval and how often B wins; plus the
 * per-fold differences. Several runs per side (comma-separated, paired in order: the same
 * training seed on both sides) average the difference over the seeds on every resample, so
 * both the chips drawn and the training seed are in the interval.
 *
 *   node --import tsx training/oilslick/pairs.ts base candidate [--resamples 1000]
 *   node --import tsx training/oilslick/pairs.ts base,base_s200 cand,cand_s200
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { chipRates, thresholdForFalseAlarmRate, type ChipScore } from './chipScore.ts';
import { mulberry32 } from './gbtTrain.ts';

interface CvFile {
  line: string;
  folds: number[];
  files: string[];
  scores: ChipScore[];
}

const dir = path.resolve(import.meta.dirname, '../../.tmp/oilslick-cv');
const load = (name: string) => JSON.parse(readFileSync(path.join(dir, `${name}.json`), 'utf8')) as CvFile;
const hitAt = (s: readonly ChipScore[]) => chipRates(s, thresholdForFalseAlarmRate(s, 0.1)).hitRate;
/** Source id of a chip file (dataset.ts NAME). */
const sourceOf = (file: string) => /_img_([A-Za-z0-9]{16})_/.exec(file)![1]!;

function main(): void {
  const { values, positionals } = parseArgs({ allowPositionals: true, options: { resamples: { type: 'string', default: '1000' } } });
  const As = positionals[0]!.split(',').map(load);
  const Bs = positionals[1]!.split(',').map(load);
  if (As.length !== Bs.length) throw new Error('as many runs on each side, paired by seed');
  const a = As[0]!;
  for (const r of [...As, ...Bs]) if (r.files.join() !== a.files.join()) throw new Error('the runs scored different chips');
  const meanDiff = (idx: readonly number[] | null): number => {
    let sum = 0;
    As.forEach((ra, k) => {
      const rb = Bs[k]!;
      const pick = (r: CvFile) => (idx ? idx.map((i) => r.scores[i]!) : r.scores);
      sum += hitAt(pick(rb)) - hitAt(pick(ra));
    });
    return sum / As.length;
  };
  const bySource = new Map<string, number[]>();
  a.files.forEach((f, i) => {
    const s = sourceOf(f);
    const list = bySource.get(s);
    if (list) list.push(i);
    else bySource.set(s, [i]);
  });
  const sources = [...bySource.values()];
  const rnd = mulberry32(7);
  const diffs: number[] = [];
  for (let r = 0; r < Number(values.resamples); r++) {
    const idx: number[] = [];
    for (let k = 0; k < sources.length; k++) idx.push(...sources[Math.floor(rnd() * sources.length)]!);
    diffs.push(meanDiff(idx));
  }
  diffs.sort((x, y) => x - y);
  const q = (p: number) => diffs[Math.min(diffs.length - 1, Math.floor(p * diffs.length))]!;
  const r3 = (v: number) => (Math.round(v * 1000) / 1000).toFixed(3);
  const folds = [...new Set(a.folds)].sort();
  const perFold = folds.map((f) => meanDiff(a.folds.map((g, i) => (g === f ? i : -1)).filter((i) => i >= 0)));
  const perSeed = As.map((ra, k) => hitAt(Bs[k]!.scores) - hitAt(ra.scores));
  process.stdout.write(
    `${positionals[1]} − ${positionals[0]}: ${r3(meanDiff(null))} (per seed ${perSeed.map(r3).join(' ')}); bootstrap by source ${diffs.length}: median ${r3(q(0.5))}, 5–95 % ${r3(q(0.05))} … ${r3(q(0.95))}, B better in ${r3(diffs.filter((d) => d > 0).length / diffs.length)}; per fold ${perFold.map(r3).join(' ')}\n`,
  );
}

main();
