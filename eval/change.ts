/**
 * The building-change and time-series parts of `npm run eval` (eval/run.ts `--only change`,
 * `--only timeseries`). Scoring rules live in test/analysis/changeEval.ts and
 * test/analysis/timeseriesEval.ts, shared with the tests; docs/change.md and
 * docs/timeseries.md ("Measured accuracy") describe the data and the figures.
 *
 * Building change (targets: per-object F1 ≥ 0.9 for buildings ≥ 400 m²):
 * - `cities`: generated city stacks (src/synth writeRtcStack, 'city', 10 m, 400 × 400 px =
 *   16 km², 12 dates, VV+VH, Deflate GeoTIFFs), seeds 611–614 (not used by the calibration,
 *   which fits on simulate.ts pairs, nor by the tests, which use cities 5, 11 and 21), first
 *   → last date, through detectChangeInRtcPair (threads = analysisThreads()). Per-object
 *   precision / recall / F1 and pixel IoU, for newbuilding and disappearbuilding.
 * - `pairs`: the calibration generator (training/change/simulate.ts, 600 × 600 px,
 *   10 m), held-out seeds 501–504 (training used 101–104, selection 201–203, the docs'
 *   held-out table 301–302, the tests 401–404), through detectChangeInTile; per-object scores.
 *
 * Time series (target: ≥ 90 % of true breaks dated within one revisit):
 * - `generatedSeries`: 1,000 series of the penalty-calibration generator (20–90 dates at a
 *   12-day revisit, noise 0.3–1.2 dB, 0–2 breaks of 3–8 σ, 5 % missing VV), seed 9101 (the
 *   tests use seed 2024), through detectChangePoints. Also the share of break-free series
 *   with a (false) change point.
 * - `stacks`: generated RTC stacks through detectTimeseries: farmland (30 m, 120 × 120 px,
 *   90 dates = 3 years from February, 100 m cells: each harvested field's first harvest,
 *   the date the truth records) and city (10 m, 300 × 300 px, 24 dates, 50 m cells so that
 *   the ~100 m change areas hold several: forest clearing, start and end of a flood), seeds
 *   31 and 32 (the tests use 11); cells at least 99 % (farmland) / 50 % (city) inside a
 *   changed area.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { analysisThreads } from '../src/analysis/engine/pool.ts';
import { detectChangeInRtcPair, detectChangeInTile } from '../src/analysis/change/index.ts';
import { scoreObjects, simulateChangePair } from '../training/change/simulate.ts';
import { detectTimeseries } from '../src/analysis/timeseries/index.ts';
import type { AoiGeometry, Position } from '../src/geo/types.ts';
import { openRasterProduct } from '../src/imagery/index.ts';
import { writeRtcStack } from '../src/synth/index.ts';
import { pixelIou, prf, readBuildings, scoreBuildingChange, type BuildingChangeScore, type ChangeKind } from './scoring/changeEval.ts';
import { evaluateGeneratedBreaks, scoreStackBreaks, type StackTruthFeature } from './scoring/timeseriesEval.ts';
import { f3, table } from './format.ts';

const MIB = 1 << 20;
const KINDS: ChangeKind[] = ['newbuilding', 'disappearbuilding'];
const r3 = (v: number): number => Math.round(v * 1000) / 1000;

/** Per-object counts as scoreBuildingChange gives them, without its `ignored`. */
type ObjectCounts = Omit<BuildingChangeScore, 'ignored'>;

// ------------------------------------------------------------------------------ building change

const CITY_SEEDS = [611, 612, 613, 614];
const CITY_CENTERS: Position[] = [
  [5.12, 52.09],
  [4.48, 51.92],
  [6.57, 53.22],
  [5.47, 51.44],
];
const CITY_SIZE = 400;
const CITY_DATES = 12;
const PAIR_SEEDS = [501, 502, 503, 504];
const PAIR_SIZE = 600;

export interface CityResult extends ObjectCounts {
  seed: number;
  kind: ChangeKind;
  detections: number;
  /** Detections on changed buildings < 400 m² (neither hit nor false alarm). */
  ignored: number;
  iou: number;
  /** Detected pixels on targets / detected pixels (outside ignored buildings); target pixels detected / target pixels. */
  pixelPrecision: number;
  pixelRecall: number;
  intersectionPx: number;
  unionPx: number;
  seconds: number;
}

async function cityScores(dir: string, index: number): Promise<CityResult[]> {
  const seed = CITY_SEEDS[index]!;
  const stack = await writeRtcStack(path.join(dir, `city-${seed}`), {
    scene: 'city',
    seed,
    center: CITY_CENTERS[index]!,
    width: CITY_SIZE,
    height: CITY_SIZE,
    start: '2023-03-01',
    count: CITY_DATES,
    track: 37 + index,
  });
  const buildings = await readBuildings(stack.groundTruthPath);
  const raster = await openRasterProduct(stack.files[0]!);
  const aoi: AoiGeometry = { type: 'Polygon', coordinates: raster.bounds().coordinates };
  const paths = (k: number) => ({ vv: stack.files[2 * k]!, vh: stack.files[2 * k + 1]! });
  const out: CityResult[] = [];
  try {
    for (const kind of KINDS) {
      const t0 = performance.now();
      const result = await detectChangeInRtcPair(paths(0), paths(CITY_DATES - 1), { aoi, kind, maxRequestBytes: MIB, params: { threads: analysisThreads() } });
      const seconds = (performance.now() - t0) / 1000;
      const detections = result.result.features.map((f) => f.geometry);
      const pair = { kind, dates: stack.dates, pre: 0, post: CITY_DATES - 1, aoi };
      const s = scoreBuildingChange(detections, buildings, pair);
      const iou = pixelIou(detections, buildings, raster, pair);
      out.push({
        seed,
        kind,
        detections: detections.length,
        targets: s.targets,
        truePositives: s.truePositives,
        falsePositives: s.falsePositives,
        falseNegatives: s.falseNegatives,
        precision: s.precision,
        recall: s.recall,
        f1: s.f1,
        ignored: s.ignored,
        iou: iou.iou,
        pixelPrecision: r3(iou.intersection / Math.max(1, iou.detected)),
        pixelRecall: r3(iou.intersection / Math.max(1, iou.truth)),
        intersectionPx: iou.intersection,
        unionPx: iou.union,
        seconds: Math.round(seconds * 10) / 10,
      });
    }
  } finally {
    await raster.close();
  }
  return out;
}

export interface PairResult extends ObjectCounts {
  seed: number;
  kind: ChangeKind;
  detections: number;
}

function pairScores(seed: number): PairResult[] {
  const pair = simulateChangePair({ width: PAIR_SIZE, height: PAIR_SIZE, seed });
  const input = { pre: pair.pre, post: pair.post, validPre: pair.validPre, validPost: pair.validPost, width: pair.width, height: pair.height, pixelSizeM: pair.pixelSizeM };
  return KINDS.map((kind) => {
    const { regions } = detectChangeInTile(input, { kind });
    const truth = kind === 'newbuilding' ? pair.appeared : pair.vanished;
    const s = scoreObjects(regions, truth, pair.width, 400);
    return {
      seed,
      kind,
      detections: regions.length,
      targets: s.tp + s.fn,
      truePositives: s.tp,
      falsePositives: s.fp,
      falseNegatives: s.fn,
      precision: r3(s.precision),
      recall: r3(s.recall),
      f1: r3(s.f1),
    };
  });
}

function total(rows: ReadonlyArray<ObjectCounts>): ObjectCounts {
  const tp = rows.reduce((a, r) => a + r.truePositives, 0);
  const fp = rows.reduce((a, r) => a + r.falsePositives, 0);
  const fn = rows.reduce((a, r) => a + r.falseNegatives, 0);
  return { targets: tp + fn, truePositives: tp, falsePositives: fp, falseNegatives: fn, ...prf(tp, fp, fn) };
}

export async function evalChange(dir: string) {
  const cities: CityResult[] = [];
  for (let i = 0; i < CITY_SEEDS.length; i++) cities.push(...(await cityScores(dir, i)));
  const pairs = PAIR_SEEDS.flatMap((seed) => pairScores(seed));
  const summary = Object.fromEntries(
    KINDS.map((kind) => {
      const c = cities.filter((r) => r.kind === kind);
      const inter = c.reduce((a, r) => a + r.intersectionPx, 0);
      const union = c.reduce((a, r) => a + r.unionPx, 0);
      return [kind, { cities: { ...total(c), iou: union > 0 ? r3(inter / union) : 1 }, pairs: total(pairs.filter((r) => r.kind === kind)) }];
    }),
  ) as Record<ChangeKind, { cities: ObjectCounts & { iou: number }; pairs: ObjectCounts }>;
  return {
    minAreaSqm: 400,
    target: { f1: 0.9 },
    citySizePx: [CITY_SIZE, CITY_SIZE],
    cityPixelSizeM: 10,
    cityDates: [0, CITY_DATES - 1],
    pairSizePx: [PAIR_SIZE, PAIR_SIZE],
    cities,
    pairs,
    summary,
    met: KINDS.every((k) => summary[k].cities.f1 >= 0.9 && summary[k].pairs.f1 >= 0.9),
  };
}

// ------------------------------------------------------------------------------ time series

const SERIES_SEED = 9101;
const SERIES_COUNT = 1000;
const STACK_SEEDS = [31, 32];

export interface StackResult {
  scene: 'farmland' | 'city';
  seed: number;
  dates: number;
  cellSizeM: number;
  cellsScored: number;
  breaks: number;
  datedWithinOneRevisit: number;
  fraction: number;
  medianErrorDays: number | null;
  seconds: number;
}

const median = (xs: number[]): number | null => {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

async function stackScore(dir: string, scene: 'farmland' | 'city', seed: number, index: number): Promise<StackResult> {
  const count = scene === 'farmland' ? 90 : 24;
  const width = scene === 'farmland' ? 120 : 300;
  const stack = await writeRtcStack(path.join(dir, `ts-${scene}-${seed}`), {
    scene,
    seed,
    center: scene === 'farmland' ? [5.55 + 0.2 * index, 52.45] : [5.2 + 0.2 * index, 52.1],
    start: '2023-02-01',
    count,
    track: 88,
    width,
  });
  const scenes = stack.dates.map((date, k) => ({ date, vv: stack.files[2 * k]!, vh: stack.files[2 * k + 1]! }));
  const raster = await openRasterProduct(scenes[0]!.vv);
  const aoi: AoiGeometry = { type: 'Polygon', coordinates: raster.bounds().coordinates };
  await raster.close();
  const t0 = performance.now();
  const result = await detectTimeseries(scenes, { aoi, maxRequestBytes: MIB, cellSizeM: scene === 'city' ? 50 : 100 });
  const seconds = (performance.now() - t0) / 1000;
  const truth = JSON.parse(await readFile(stack.groundTruthPath, 'utf8')) as { features: StackTruthFeature[] };
  const s = scoreStackBreaks(result, truth, scene === 'farmland' ? 0.99 : 0.5);
  return {
    scene,
    seed,
    dates: count,
    cellSizeM: scene === 'city' ? 50 : 100,
    cellsScored: s.cells,
    breaks: s.total,
    datedWithinOneRevisit: s.within,
    fraction: s.total ? r3(s.within / s.total) : 1,
    medianErrorDays: median(s.errorsDays.filter(Number.isFinite)),
    seconds: Math.round(seconds * 10) / 10,
  };
}

export async function evalTimeseries(dir: string) {
  const g = evaluateGeneratedBreaks(SERIES_SEED, SERIES_COUNT);
  const finite = g.errors.filter(Number.isFinite);
  const generatedSeries = {
    seed: SERIES_SEED,
    series: g.series,
    breaks: g.breaks,
    datedWithinOneRevisit: g.dated,
    fraction: r3(g.fractionDated),
    exact: r3(g.breaks ? g.exact / g.breaks : 1),
    medianErrorRevisits: median(finite),
    breaksWithoutChangePoint: g.errors.length - finite.length,
    breakFreeSeries: g.breakFreeSeries,
    breakFreeWithChangePoint: g.breakFreeWithDetection,
    falseBreakSeriesRate: r3(g.breakFreeSeries ? g.breakFreeWithDetection / g.breakFreeSeries : 0),
    extraChangePoints: g.extraChangePoints,
  };
  const stacks: StackResult[] = [];
  for (const [i, seed] of STACK_SEEDS.entries()) for (const scene of ['farmland', 'city'] as const) stacks.push(await stackScore(dir, scene, seed, i));
  const sb = stacks.reduce((a, s) => a + s.breaks, 0);
  const sw = stacks.reduce((a, s) => a + s.datedWithinOneRevisit, 0);
  return {
    revisitDays: 12,
    target: { fractionWithinOneRevisit: 0.9 },
    generatedSeries,
    stacks,
    summary: { generatedSeries: generatedSeries.fraction, stacks: sb ? r3(sw / sb) : 1, stackBreaks: sb },
    met: generatedSeries.fraction >= 0.9 && (sb ? sw / sb : 1) >= 0.9,
  };
}

// ------------------------------------------------------------------------------ output


export function printChange(r: Awaited<ReturnType<typeof evalChange>>): void {
  console.log(`building change: buildings ≥ ${r.minAreaSqm} m², target per-object F1 ≥ ${r.target.f1}`);
  console.log(`generated cities (writeRtcStack, ${r.citySizePx.join(' × ')} px at ${r.cityPixelSizeM} m, dates ${r.cityDates.join(' → ')}), detectChangeInRtcPair`);
  const rows: Array<Array<string | number>> = r.cities.map((c) => [
    `city ${c.seed}, ${c.kind}`, c.targets, c.detections, c.truePositives, c.falsePositives, c.falseNegatives, c.ignored, f3(c.precision), f3(c.recall), f3(c.f1), f3(c.iou), `${f3(c.pixelPrecision)} / ${f3(c.pixelRecall)}`, c.seconds,
  ]);
  for (const kind of KINDS) {
    const s = r.summary[kind].cities;
    rows.push([`total, ${kind}`, s.targets, '', s.truePositives, s.falsePositives, s.falseNegatives, '', f3(s.precision), f3(s.recall), f3(s.f1), f3(s.iou), '', '']);
  }
  console.log(table(['set', 'targets', 'detections', 'TP', 'FP', 'FN', 'small', 'precision', 'recall', 'F1', 'pixel IoU', 'pixel P / R', 's'], rows));
  console.log('');
  console.log(`generated pairs (simulate.ts, ${r.pairSizePx.join(' × ')} px at 10 m, held-out seeds), detectChangeInTile`);
  const prow: Array<Array<string | number>> = r.pairs.map((p) => [`pair ${p.seed}, ${p.kind}`, p.targets, p.detections, p.truePositives, p.falsePositives, p.falseNegatives, f3(p.precision), f3(p.recall), f3(p.f1)]);
  for (const kind of KINDS) {
    const s = r.summary[kind].pairs;
    prow.push([`total, ${kind}`, s.targets, '', s.truePositives, s.falsePositives, s.falseNegatives, f3(s.precision), f3(s.recall), f3(s.f1)]);
  }
  console.log(table(['set', 'targets', 'detections', 'TP', 'FP', 'FN', 'precision', 'recall', 'F1'], prow));
  console.log(`target met: ${r.met ? 'yes' : 'NO'}`);
  console.log('');
}

export function printTimeseries(r: Awaited<ReturnType<typeof evalTimeseries>>): void {
  const g = r.generatedSeries;
  console.log(`time-series change points: target ≥ ${r.target.fractionWithinOneRevisit * 100} % of true breaks dated within one revisit (${r.revisitDays} days)`);
  console.log(
    `generated series (seed ${g.seed}, ${g.series} series): ${g.datedWithinOneRevisit}/${g.breaks} breaks within one revisit (${(100 * g.fraction).toFixed(1)} %), ` +
      `${(100 * g.exact).toFixed(1)} % exact, median error ${g.medianErrorRevisits} revisits, ${g.breaksWithoutChangePoint} with no change point; ` +
      `${g.breakFreeWithChangePoint}/${g.breakFreeSeries} break-free series with a change point (${(100 * g.falseBreakSeriesRate).toFixed(1)} %), ${g.extraChangePoints} change points off every break`,
  );
  console.log(
    table(
      ['stack (detectTimeseries)', 'dates', 'cell m', 'cells', 'breaks', 'within 1 revisit', 'fraction', 'median error days', 's'],
      r.stacks.map((s) => [`${s.scene} ${s.seed}`, s.dates, s.cellSizeM, s.cellsScored, s.breaks, s.datedWithinOneRevisit, f3(s.fraction), s.medianErrorDays ?? '—', s.seconds]),
    ),
  );
  console.log(`stacks total: ${(100 * r.summary.stacks).toFixed(1)} % of ${r.summary.stackBreaks} breaks; target met: ${r.met ? 'yes' : 'NO'}`);
  console.log('');
}
