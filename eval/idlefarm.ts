/**
 * Idle farmland (`npm run eval -- --only idlefarm`): field-level precision, recall and F1 of
 * "idle" (fallow) on generated seasons with ground truth (src/synth/fields.ts), seeds held out
 * from the fit (training/idlefarm/fit.ts uses 101–116 and 121–132); on the generator held out
 * of the fit entirely (src/synth/rtc.ts farmland) and the demo archive's farmland written by it,
 * per crop class; target F1 ≥ 0.9 on each; then plausibility on the real
 * OPERA RTC stacks committed in samples/s1 (no truth there: what the detector says about land
 * that is not cropland, and the too-few-dates rule on a real date window). docs/idlefarm.md.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { analyseFields, type FieldOutcome, type UploadedCollection } from '../src/analysis/idlefarm/index.ts';
import type { Position } from '../src/geo/types.ts';
import { openRasterProduct } from '../src/imagery/index.ts';
import { S1_DATA } from '../src/repoPaths.ts';
import { readFile } from 'node:fs/promises';
import { demoFarmlandSpec, writeFieldSeason, writeRtcStack, type SeasonStackSpec, type TruthCollection } from '../src/synth/index.ts';
import { prf } from './scoring/changeEval.ts';
import { f3, table } from './format.ts';

export const IDLEFARM_TARGET_F1 = 0.9;

/** Held-out seasons: the default generator, two with more missing dates and no-data strips, one shorter window. */
const GENERATED: SeasonStackSpec[] = [
  ...[9001, 9002, 9003, 9004, 9005, 9006, 9007, 9008].map((seed) => ({ seed })),
  { seed: 9011, missingDates: 6, stripDates: 5 },
  { seed: 9012, missingDates: 6, stripDates: 5, idleShare: 0.6 },
  // A shorter window (March to October): the wheat canopy is already up at the start.
  { seed: 9013, start: '2023-03-01', count: 20 },
  // With managed meadows (in use), full years and April–September windows (as the fit's mix).
  ...[9021, 9022, 9023, 9024].map((seed) => ({ seed, meadowShare: 1 / 6 })),
  ...[9031, 9032, 9033, 9034].map((seed, i) => ({ seed, meadowShare: 1 / 6, start: ['2023-03-20', '2023-04-10', '2023-04-25', '2023-05-05'][i]!, count: 15 })),
];

interface Counts {
  truePositives: number;
  falsePositives: number;
  falseNegatives: number;
  trueNegatives: number;
  undetermined: number;
  precision: number;
  recall: number;
  f1: number;
}

function score(pairs: { truth: boolean; outcome: FieldOutcome }[]): Counts {
  let tp = 0;
  let fp = 0;
  let fn = 0;
  let tn = 0;
  let undetermined = 0;
  for (const { truth, outcome } of pairs) {
    // An undetermined field counts as a miss of whichever class it is (it answered nothing).
    if (outcome.idle === null) {
      undetermined++;
      if (truth) fn++;
      continue;
    }
    if (outcome.idle && truth) tp++;
    else if (outcome.idle) fp++;
    else if (truth) fn++;
    else tn++;
  }
  const r = prf(tp, fp, fn);
  return { truePositives: tp, falsePositives: fp, falseNegatives: fn, trueNegatives: tn, undetermined, precision: r3(r.precision), recall: r3(r.recall), f1: r3(r.f1) };
}

const r3 = (v: number): number => Math.round(v * 1000) / 1000;
const r2 = (v: number): number => Math.round(v * 100) / 100;

async function evalGenerated(dir: string) {
  const stacks: Array<{ seed: number; fields: number; dates: number; seconds: number } & Counts> = [];
  const all: { truth: boolean; outcome: FieldOutcome; cls: string }[] = [];
  for (const spec of GENERATED) {
    const season = await writeFieldSeason(path.join(dir, `idlefarm-${spec.seed}`), spec);
    const t0 = performance.now();
    const { outcomes } = await analyseFields(season.fields as UploadedCollection, season.scenes);
    const seconds = r2((performance.now() - t0) / 1000);
    const pairs = season.truth.map((t, i) => ({ truth: t.idle, outcome: outcomes[i]!, cls: t.cls }));
    all.push(...pairs);
    stacks.push({ seed: spec.seed, fields: pairs.length, dates: season.scenes.length, seconds, ...score(pairs) });
  }
  const byClass = byClassOf(all);
  const total = score(all);
  return { heldOutSeeds: GENERATED.map((s) => s.seed), fittedOnSeeds: '101-116, 121-132', stacks, byClass, total, targetF1: IDLEFARM_TARGET_F1, met: total.f1 >= IDLEFARM_TARGET_F1 };
}

/** The demo archive's farmland as `sarwatch serve` writes it (src/cli/main.ts DEMO_SEED 20240613), April–September 2024. */
export const DEMO_FARMLAND = demoFarmlandSpec(20240613);

type ClassCounts = Record<string, { fields: number; calledIdle: number; undetermined: number; meanProbability: number }>;

function byClassOf(pairs: { outcome: FieldOutcome; cls: string }[]): ClassCounts {
  const out: ClassCounts = {};
  for (const p of pairs) {
    const c = (out[p.cls] ??= { fields: 0, calledIdle: 0, undetermined: 0, meanProbability: 0 });
    c.fields++;
    if (p.outcome.idle) c.calledIdle++;
    if (p.outcome.idle === null) c.undetermined++;
    c.meanProbability += p.outcome.idleProbability ?? 0;
  }
  for (const c of Object.values(out)) c.meanProbability = r3(c.meanProbability / c.fields);
  return out;
}

/**
 * A second generator: the farmland scene of src/synth/rtc.ts (its own crop models: winter
 * wheat, maize, sugar beet, potato; managed meadows mown three times; idle fields), read
 * through analyseFields, the code runIdlefarm (the API's job) runs. Idle truth is the
 * generator's `idle` (fallow): a mown meadow is land in use, not idle (issue 24 §3), and so
 * is a winter wheat field whose canopy is already up when the window starts. Three full-year
 * stacks and the demo archive's own farmland (a shorter April–September window).
 */
async function evalOtherGenerator(dir: string) {
  const stacks: Array<{ seed: string; fields: number; dates: number } & Counts> = [];
  const all: { truth: boolean; outcome: FieldOutcome; cls: string }[] = [];
  const specs = [9201, 9202, 9203].map((seed) => ({ name: String(seed), spec: { scene: 'farmland' as const, seed, center: [5.6, 52.6] as Position, start: '2023-01-01', count: 31, track: 37 } }));
  let demo: { counts: Counts; byClass: ClassCounts } | undefined;
  for (const { name, spec } of [...specs, { name: 'demo', spec: DEMO_FARMLAND }]) {
    const out = await writeRtcStack(path.join(dir, `idlefarm-rtc-${spec.seed}`), spec);
    const truth = (JSON.parse(await readFile(out.groundTruthPath, 'utf8')) as TruthCollection).features.filter((f) => f.properties.kind === 'field');
    const scenes = out.dates.map((date, k) => ({ date, vv: out.files[2 * k]!, vh: out.files[2 * k + 1]! }));
    const fields: UploadedCollection = { type: 'FeatureCollection', features: truth.map((f) => ({ type: 'Feature', geometry: f.geometry, properties: {} })) };
    const { outcomes } = await analyseFields(fields, scenes);
    const pairs = truth.map((f, i) => ({ truth: f.properties.idle === true, outcome: outcomes[i]!, cls: String(f.properties.crop) }));
    if (name === 'demo') demo = { counts: score(pairs), byClass: byClassOf(pairs) };
    else all.push(...pairs);
    stacks.push({ seed: name, fields: pairs.length, dates: scenes.length, ...score(pairs) });
  }
  const total = score(all);
  return { generator: 'src/synth/rtc.ts farmland', stacks, total, byClass: byClassOf(all), demo: demo!, targetF1: IDLEFARM_TARGET_F1, met: total.f1 >= IDLEFARM_TARGET_F1 && demo!.counts.f1 >= IDLEFARM_TARGET_F1 };
}

// ------------------------------------------------------------------ real stacks (plausibility)

interface RealScene {
  date: string;
  vv: string;
  vh: string;
}

/** OPERA RTC files of one burst under `root`, paired by acquisition date. `suffix` picks a variant (e.g. `_tv_cropped`). */
function operaPairs(root: string, burst: string, suffix: string): RealScene[] {
  const files: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(path.join(d, e.name));
      else if (e.name.includes(burst) && e.name.endsWith(`${suffix}.tif`)) files.push(path.join(d, e.name));
    }
  };
  walk(root);
  const byDate = new Map<string, Partial<RealScene>>();
  for (const f of files) {
    const m = /_(\d{4})(\d{2})(\d{2})T\d{6}Z_.*_(VV|VH)/.exec(path.basename(f));
    if (!m) continue;
    const date = `${m[1]}-${m[2]}-${m[3]}`;
    const entry = byDate.get(date) ?? { date };
    entry[m[4] === 'VV' ? 'vv' : 'vh'] = f;
    byDate.set(date, entry);
  }
  return [...byDate.values()].filter((s): s is RealScene => !!s.vv && !!s.vh).sort((a, b) => (a.date < b.date ? -1 : 1));
}

/**
 * Fields drawn over visible land: squares of `sizePx` pixels on a regular grid over the raster,
 * kept where the square is fully valid on every date and its stack-mean VH is above −20 dB
 * (land; calm sea and shadow are darker).
 */
async function landSquares(scenes: RealScene[], sizePx: number): Promise<UploadedCollection> {
  const first = await openRasterProduct(scenes[0]!.vh);
  const { width, height } = first;
  const corners = (r0: number, c0: number): Position[] => {
    const p = (r: number, c: number) => first.pixelToLonLat(r, c) as Position;
    return [p(r0 - 0.5, c0 - 0.5), p(r0 - 0.5, c0 + sizePx - 0.5), p(r0 + sizePx - 0.5, c0 + sizePx - 0.5), p(r0 + sizePx - 0.5, c0 - 0.5), p(r0 - 0.5, c0 - 0.5)];
  };
  const sum = new Float64Array(width * height);
  const allValid = new Uint8Array(width * height).fill(1);
  for (const s of scenes) {
    const r = await openRasterProduct(s.vh);
    const read = await r.readWindow({ x0: 0, y0: 0, width, height }, { bands: [0] });
    for (let i = 0; i < sum.length; i++) {
      if (!read.valid[i]) allValid[i] = 0;
      else sum[i]! += read.data[0]![i]!;
    }
    await r.close();
  }
  const features: UploadedCollection['features'] = [];
  for (let r0 = 0; r0 + sizePx <= height; r0 += sizePx) {
    for (let c0 = 0; c0 + sizePx <= width; c0 += sizePx) {
      let ok = true;
      let s = 0;
      for (let r = r0; r < r0 + sizePx && ok; r++) {
        for (let c = c0; c < c0 + sizePx; c++) {
          if (!allValid[r * width + c]) {
            ok = false;
            break;
          }
          s += sum[r * width + c]!;
        }
      }
      if (!ok || 10 * Math.log10(s / (sizePx * sizePx * scenes.length)) <= -20) continue;
      features.push({ type: 'Feature', geometry: { type: 'Polygon', coordinates: [corners(r0, c0)] }, properties: { row: r0, col: c0 } });
    }
  }
  await first.close();
  return { type: 'FeatureCollection', features };
}

interface RealRun {
  stack: string;
  dates: number;
  firstDate: string;
  lastDate: string;
  fields: number;
  idle: number;
  cropped: number;
  undetermined: number;
  reasons: string[];
  vhAmplitudeDb: { median: number | null; p90: number | null; max: number | null };
}

async function realRun(stack: string, scenes: RealScene[], fields: UploadedCollection): Promise<RealRun> {
  const { outcomes } = await analyseFields(fields, scenes);
  const amps = outcomes.flatMap((o) => (o.stats ? [o.stats.vhRiseDb] : [])).sort((a, b) => a - b);
  const q = (p: number) => (amps.length ? r2(amps[Math.min(amps.length - 1, Math.floor(p * amps.length))]!) : null);
  return {
    stack,
    dates: scenes.length,
    firstDate: scenes[0]!.date,
    lastDate: scenes[scenes.length - 1]!.date,
    fields: outcomes.length,
    idle: outcomes.filter((o) => o.idle === true).length,
    cropped: outcomes.filter((o) => o.idle === false).length,
    undetermined: outcomes.filter((o) => o.idle === null).length,
    reasons: [...new Set(outcomes.flatMap((o) => (o.reason ? [o.reason] : [])))],
    vhAmplitudeDb: { median: q(0.5), p90: q(0.9), max: amps.length ? r2(amps[amps.length - 1]!) : null },
  };
}

async function evalReal() {
  const runs: RealRun[] = [];
  // Santa Barbara: the land bursts (IW2) of track 137, 21 dates in three Nov–Jan windows.
  const sb = path.join(S1_DATA, 'rtc-stack-santabarbara');
  for (const burst of ['T137-292319-IW2', 'T137-292321-IW2', 'T137-292323-IW2']) {
    const scenes = operaPairs(sb, burst, '');
    const fields = await landSquares(scenes, 10);
    runs.push(await realRun(`santabarbara ${burst} (all dates)`, scenes, fields));
    // One autumn window alone: 8 dates over 84 days, under the 90-day span a season needs.
    runs.push(await realRun(`santabarbara ${burst} (2023-10-04 to 2023-12-27)`, scenes.filter((s) => s.date >= '2023-10-01' && s.date <= '2023-12-31'), fields));
  }
  // Enga: the despeckled VV+VH pairs, forested mountains, Jan–May 2024.
  const enga = operaPairs(path.join(S1_DATA, 'rtc-stack-png-enga'), 'T009-019294-IW2', '_tv_cropped');
  runs.push(await realRun('png-enga T009-019294-IW2 (despeckled VV+VH)', enga, await landSquares(enga, 10)));
  return { runs };
}

export async function evalIdlefarm(dir: string) {
  const generated = await evalGenerated(dir);
  const otherGenerator = await evalOtherGenerator(dir);
  const real = await evalReal();
  return { generated, otherGenerator, real };
}

export function printIdlefarm(r: Awaited<ReturnType<typeof evalIdlefarm>>): void {
  const g = r.generated;
  console.log(`idle farmland: field-level "idle" on generated seasons held out from the fit (fit seeds ${g.fittedOnSeeds}); target F1 ≥ ${g.targetF1}`);
  console.log(
    table(
      ['season (seed)', 'fields', 'dates', 'TP', 'FP', 'FN', 'TN', 'undet.', 'precision', 'recall', 'F1', 's'],
      [
        ...g.stacks.map((s) => [String(s.seed), s.fields, s.dates, s.truePositives, s.falsePositives, s.falseNegatives, s.trueNegatives, s.undetermined, f3(s.precision), f3(s.recall), f3(s.f1), s.seconds]),
        ['total', g.stacks.reduce((n, s) => n + s.fields, 0), '', g.total.truePositives, g.total.falsePositives, g.total.falseNegatives, g.total.trueNegatives, g.total.undetermined, f3(g.total.precision), f3(g.total.recall), f3(g.total.f1), ''],
      ],
    ),
  );
  console.log(`F1 ${f3(g.total.f1)} (target ≥ ${g.targetF1}): ${g.met ? 'met' : 'NOT met'}`);
  console.log(table(['class', 'fields', 'called idle', 'undet.', 'mean P(idle)'], Object.entries(g.byClass).map(([c, v]) => [c, v.fields, v.calledIdle, v.undetermined, f3(v.meanProbability)])));
  const o = r.otherGenerator;
  console.log(`\nanother generator (${o.generator}; idle = fallow; mown meadows and crops are in use); "demo" is the demo archive's farmland`);
  console.log(
    table(
      ['season (seed)', 'fields', 'dates', 'TP', 'FP', 'FN', 'TN', 'undet.', 'precision', 'recall', 'F1'],
      [...o.stacks, { seed: 'total (without demo)', fields: o.stacks.filter((s) => s.seed !== 'demo').reduce((n, s) => n + s.fields, 0), dates: '', ...o.total }].map((s) => [s.seed, s.fields, s.dates, s.truePositives, s.falsePositives, s.falseNegatives, s.trueNegatives, s.undetermined, f3(s.precision), f3(s.recall), f3(s.f1)]),
    ),
  );
  console.log(`F1 ${f3(o.total.f1)} full years, ${f3(o.demo.counts.f1)} demo farmland (target ≥ ${o.targetF1} on both): ${o.met ? 'met' : 'NOT met'}`);
  const classRows = (b: ClassCounts, tag: string) => Object.entries(b).map(([c, v]) => [`${tag} ${c}`, v.fields, v.calledIdle, v.undetermined, f3(v.meanProbability)]);
  console.log(table(['class', 'fields', 'called idle', 'undet.', 'mean P(idle)'], [...classRows(o.byClass, 'full years'), ...classRows(o.demo.byClass, 'demo')]));
  console.log('\nplausibility on real OPERA RTC stacks (no truth: 300 m squares over land, none of it cropland in these scenes)');
  console.log(
    table(
      ['stack', 'dates', 'from', 'to', 'fields', 'idle', 'crop', 'undet.', 'VH rise median', 'p90', 'max'],
      r.real.runs.map((x) => [x.stack, x.dates, x.firstDate, x.lastDate, x.fields, x.idle, x.cropped, x.undetermined, x.vhAmplitudeDb.median ?? '—', x.vhAmplitudeDb.p90 ?? '—', x.vhAmplitudeDb.max ?? '—']),
    ),
  );
  for (const x of r.real.runs) if (x.reasons.length) console.log(`  ${x.stack}: ${x.reasons.join('; ')}`);
  console.log('');
}
