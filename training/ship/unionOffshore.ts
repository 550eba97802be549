/**
 * Issue 23 §1 offshore target (recall ≥ 0.95 at precision ≥ 0.90 on the SSDD offshore chips):
 * is the UNION of the two detectors enough — what a ship job runs (the default detector, with the
 * near-shore classifier where the land mask has a coast) plus every detection of the candidate
 * classifier run everywhere that no default detection already covers? A measurement, not a
 * detector: both run separately and are merged here (`unionDetections`).
 *
 *   node --import tsx training/ship/unionOffshore.ts ssdd [--land-cache FILE] [--no-oof]
 *   node --import tsx training/ship/unionOffshore.ts generated
 *   node --import tsx training/ship/unionOffshore.ts scene [--dir /tmp/sarwatch-bench]   (UNION_ONLY=default|classifier)
 *
 * `ssdd`: the DEVELOPMENT chips only (validation is the lead's to score). Default = the eval's row
 * 'scene sea/land segmentation + near-shore classifier' (eval/shipChips.ts SSDD_METHODS); the
 * classifier = the row 'scene sea/land segmentation + candidate classifier' with every candidate
 * kept (threshold 0) and its probability from the committed trees, so one run gives every
 * threshold. The committed trees were fitted on these chips: their figures are IN-SAMPLE. The
 * honest curve (unless --no-oof) takes fitClassifier.ts's out-of-fold machinery: per fold (3, by
 * run) the candidates of chipCandidates.ts (out-of-fold segmenter's land as mask and land
 * features) judged by trees fitted on the other two folds with the committed trees' options. The
 * default detections are the eval row's in both (offshore chips have little segmented land: the
 * default CFAR decides there, nothing fitted; inshore, the near-shore path's trees and the
 * committed segmenter are in-sample). Besides the sweep: the merge with additions dropped only on a
 * shared pixel, and the ceiling of any merge rule (ships matched by either detector, each scored
 * alone), also with every candidate kept (the candidates' own ceiling).
 *
 * `generated`: the same union on test/analysis/shipMeasurements.ts's `nearshore` scenes (8 ×
 * 768² VH, 160 vessels; 12 × 1024² VV+VH, 360) and the real North-Sea crop (16 certain ships),
 * at the committed thresholds and at the sweep's.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { MATCH_DISTANCE_M, SSDD_DIR, SSDD_PIXEL_M, decodeLuma, detectOnChip, greyAmplitudeToSigma0, loadSsddChips, sceneLandMaskOfChip, sumCounts, type ChipCounts, type SsddChip } from '../../eval/shipChips.ts';
import { readTruthPoints, scoreDetections, scoreMatches } from '../../eval/scoring/shipEval.ts';
import { CANDIDATE_FEATURES, candidateModel, candidateProbability, candidateThreshold } from '../../src/analysis/ship/classifier.ts';
import type { ShipDetection, ShipParamsInput } from '../../src/analysis/ship/index.ts';
import { gbtPredict } from '../../src/analysis/oilslick/gbt.ts';
import { trainGbt } from '../oilslick/gbtTrain.ts';
import { CANDIDATE_GBT, chipCandidates } from './chipCandidates.ts';
import { outOfFoldLandModels } from './oofLand.ts';
import { foldsByRun, runOf } from './seaLandData.ts';
import { arg } from './args.ts';

/** What a ship job runs on a chip (the eval's near-shore row, with its land source). */
export const DEFAULT_PATH: ShipParamsInput = { nearShore: { enabled: true } };
/** The classifier everywhere (the eval's row), every candidate kept: the threshold is applied here. */
export const CLASSIFIER_ALL: ShipParamsInput = { classifier: { enabled: true, sceneLandMask: true, threshold: 0 } };
/** The additions' thresholds swept; 'rule' = the committed model's own (0.51, 0.37 within 2 km of land). */
export const SWEEP = ['rule', 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.98] as const;
/** Every candidate kept: the candidates' own ceiling (SSDD only). */
const EVERY = 0;
export type Cut = (typeof SWEEP)[number] | typeof EVERY;

/** A classifier detection with its probability and the committed rule's threshold for it. */
export interface Judged {
  det: Pick<ShipDetection, 'centroidRow' | 'centroidCol' | 'pixels'>;
  probability: number;
  ruleThreshold: number;
}

export const kept = (j: Judged, cut: Cut) => j.probability >= (cut === 'rule' ? j.ruleThreshold : cut);

/**
 * `base` and every detection of `extra` that shares no pixel with a `base` detection and whose
 * centroid lies farther than `maxDistPx` from every `base` centroid (the eval's match distance:
 * closer, it would compete for the same ship). `base` is kept whole: union ⊇ default.
 */
export function unionDetections<T extends Pick<ShipDetection, 'centroidRow' | 'centroidCol' | 'pixels'>>(base: T[], extra: T[], maxDistPx: number, rowStride = 1 << 20): T[] {
  const taken = new Set<number>();
  for (const d of base) for (let k = 0; k < d.pixels.rows.length; k++) taken.add(d.pixels.rows[k]! * rowStride + d.pixels.cols[k]!);
  const added = extra.filter((e) => {
    if (base.some((d) => Math.hypot(d.centroidRow - e.centroidRow, d.centroidCol - e.centroidCol) <= maxDistPx)) return false;
    for (let k = 0; k < e.pixels.rows.length; k++) if (taken.has(e.pixels.rows[k]! * rowStride + e.pixels.cols[k]!)) return false;
    return true;
  });
  return [...base, ...added];
}

const cpuSeconds = (t0: NodeJS.CpuUsage) => {
  const u = process.cpuUsage(t0);
  return (u.user + u.system) / 1e6;
};
const f3 = (v: number) => v.toFixed(3);

// ---------------------------------------------------------------------------------- SSDD dev

interface ChipRun {
  chip: SsddChip;
  base: ShipDetection[];
  /** Classifier everywhere, committed trees (in-sample). */
  inSample: Judged[];
  /** Out-of-fold candidates (chipCandidates.ts) with their features, probability filled in later. */
  oof: Judged[];
  oofFeatures: number[][];
  oofLabels: number[];
}

function scoreChip(chip: SsddChip, dets: ReadonlyArray<Pick<ShipDetection, 'centroidRow' | 'centroidCol'>>) {
  const truth = chip.ships.map((s, id) => ({ ...s, certain: true, id }));
  const s = scoreMatches(dets.length, truth, MATCH_DISTANCE_M / SSDD_PIXEL_M, (d, t) => Math.hypot(dets[d]!.centroidRow - t.row, dets[d]!.centroidCol - t.col));
  return { chip, tp: s.truePositives, fp: s.falsePositives, fn: s.falseNegatives, detections: dets.length };
}

function row(name: string, runs: ChipRun[], detsOf: (r: ChipRun) => ReadonlyArray<Pick<ShipDetection, 'centroidRow' | 'centroidCol'>>): string {
  const scored = runs.map((r) => scoreChip(r.chip, detsOf(r)));
  const cell = (c: ChipCounts) => `${f3(c.precision)} / ${f3(c.recall)} (${c.truePositives} TP, ${c.falsePositives} FP)`;
  const off = sumCounts(scored.filter((s) => !s.chip.inshore));
  const ins = sumCounts(scored.filter((s) => s.chip.inshore));
  const met = off.recall >= 0.95 && off.precision >= 0.9 ? ' **MET**' : '';
  return `| ${name} | ${cell(off)}${met} | ${cell(ins)} |`;
}

async function ssdd(): Promise<void> {
  const withOof = !process.argv.includes('--no-oof');
  const chips = loadSsddChips().filter((c) => c.split === 'dev');
  const model = candidateModel();
  const t0 = process.cpuUsage();
  const foldOf = foldsByRun(chips);
  const landModels = withOof ? outOfFoldLandModels(chips, process.argv.includes('--land-cache') ? arg('land-cache', '') : undefined) : [];
  if (withOof) console.log(`3 out-of-fold sea/land segmenters: ${cpuSeconds(t0).toFixed(0)} CPU s`);
  const times = { base: 0, classifier: 0, oof: 0 };
  const runs: ChipRun[] = chips.map((chip) => {
    const img = decodeLuma(readFileSync(path.join(SSDD_DIR, 'images', chip.file)));
    const sigma0 = greyAmplitudeToSigma0(img.grey);
    let t = process.cpuUsage();
    const base = detectOnChip(sigma0, chip.width, chip.height, SSDD_PIXEL_M, { land: sceneLandMaskOfChip(sigma0, chip.width, chip.height), params: DEFAULT_PATH });
    times.base += cpuSeconds(t);
    t = process.cpuUsage();
    const inSample = detectOnChip(sigma0, chip.width, chip.height, SSDD_PIXEL_M, { params: CLASSIFIER_ALL }).map((d) => ({
      det: d,
      probability: candidateProbability(model, d.candidate!.features),
      ruleThreshold: candidateThreshold(model, d.candidate!.features),
    }));
    times.classifier += cpuSeconds(t);
    const run: ChipRun = { chip, base, inSample, oof: [], oofFeatures: [], oofLabels: [] };
    if (withOof) {
      t = process.cpuUsage();
      const c = chipCandidates(chip, landModels[foldOf.get(runOf(chip))!]!, { candidatePfa: model.candidatePfa, seaLevelFactor: model.seaLevelFactor, useMask: true });
      run.oof = c.dets.map((d) => ({ det: d, probability: Number.NaN, ruleThreshold: candidateThreshold(model, d.candidate!.features) }));
      run.oofFeatures = c.dets.map((d) => d.candidate!.features);
      run.oofLabels = c.y;
      times.oof += cpuSeconds(t);
    }
    return run;
  });
  console.log(`${chips.length} development chips; detection CPU s: default path ${times.base.toFixed(1)}, classifier everywhere ${times.classifier.toFixed(1)}, out-of-fold candidates ${times.oof.toFixed(1)}`);
  if (withOof) {
    const t = process.cpuUsage();
    for (let f = 0; f < 3; f++) {
      const train = runs.filter((r) => foldOf.get(runOf(r.chip)) !== f);
      const trees = trainGbt(train.flatMap((r) => r.oofFeatures), train.flatMap((r) => r.oofLabels), null, CANDIDATE_GBT);
      for (const r of runs) if (foldOf.get(runOf(r.chip)) === f) r.oof.forEach((j, i) => (j.probability = gbtPredict({ ...trees, featureNames: [...CANDIDATE_FEATURES] }, r.oofFeatures[i]!)));
    }
    console.log(`out-of-fold trees: ${cpuSeconds(t).toFixed(1)} CPU s`);
  }
  const stride = 1 << 20;
  const maxPx = MATCH_DISTANCE_M / SSDD_PIXEL_M;
  console.log('\n| SSDD development chips | offshore P / R | inshore P / R |\n|---|---|---|');
  console.log(row('default path (eval row: segmenter mask + near-shore classifier)', runs, (r) => r.base));
  const sets: Array<[string, (r: ChipRun) => Judged[]]> = [['committed trees (IN-SAMPLE)', (r) => r.inSample]];
  if (withOof) sets.push(['out-of-fold trees', (r) => r.oof]);
  for (const [label, judged] of sets) {
    for (const cut of SWEEP) console.log(row(`classifier everywhere, ${label}, p ≥ ${cut === 'rule' ? 'rule 0.51 / 0.37' : cut}`, runs, (r) => judged(r).filter((j) => kept(j, cut)).map((j) => j.det)));
    for (const cut of SWEEP)
      console.log(row(`**union**, ${label}, additions p ≥ ${cut === 'rule' ? 'rule 0.51 / 0.37' : cut}`, runs, (r) => unionDetections(r.base, judged(r).filter((j) => kept(j, cut)).map((j) => j.det), maxPx, stride)));
    // The merge rule's own loss: an addition dropped only when it shares a pixel with a default detection.
    for (const cut of ['rule', 0.3, 0.5] as const)
      console.log(row(`union, pixel overlap only, ${label}, additions p ≥ ${cut === 'rule' ? 'rule' : cut}`, runs, (r) => unionDetections(r.base, judged(r).filter((j) => kept(j, cut)).map((j) => j.det), 0, stride)));
    // The ceiling of any merge: ships matched by the default path or by the classifier, each scored alone.
    console.log(row(`classifier everywhere, ${label}, every candidate (p ≥ 0)`, runs, (r) => judged(r).map((j) => j.det)));
    for (const cut of ['rule', 0.3, 0.5, EVERY] as const) {
      const either = { inshore: [0, 0], offshore: [0, 0] };
      for (const r of runs) {
        const missed = (dets: ReadonlyArray<Pick<ShipDetection, 'centroidRow' | 'centroidCol'>>) => {
          const truth = r.chip.ships.map((sh, id) => ({ ...sh, certain: true, id }));
          return new Set(scoreMatches(dets.length, truth, maxPx, (d, t) => Math.hypot(dets[d]!.centroidRow - t.row, dets[d]!.centroidCol - t.col)).missed);
        };
        const a = missed(r.base);
        const b = missed(judged(r).filter((j) => kept(j, cut)).map((j) => j.det));
        const e = either[r.chip.inshore ? 'inshore' : 'offshore'];
        e[0] += r.chip.ships.length - [...a].filter((id) => b.has(id)).length;
        e[1] += r.chip.ships.length;
      }
      console.log(`| ceiling of any merge, ${label}, p ≥ ${cut}: ships found by either | recall ${f3(either.offshore[0]! / either.offshore[1]!)} (${either.offshore[0]}) | recall ${f3(either.inshore[0]! / either.inshore[1]!)} (${either.inshore[0]}) |`);
    }
  }
  console.log(`\n${cpuSeconds(t0).toFixed(0)} CPU s in all`);
}

// ------------------------------------------------------------------- generated scenes, crop

async function generated(): Promise<void> {
  // Test helpers, loaded only here (the SSDD part needs none of them).
  const { generateSea, scoreScene } = await import('../../test/analysis/synthSea.ts');
  const { NORTH_SEA_SAFE, NORTH_SEA_TRUTH } = await import('../../test/imagery/fixtures.ts');
  const { detectShipsInProduct, detectShipsInTile } = await import('../../src/analysis/ship/index.ts');
  const { openSafeProduct } = await import('../../src/imagery/index.ts');
  const model = candidateModel();
  type Scene = ReturnType<typeof generateSea>;
  const sets: Record<string, { scenes: Scene[]; vh: boolean }> = { 'shipTile.test scenes (8 × 768², VH, 160 vessels)': { scenes: [], vh: true }, 'synthetic scenes (12 × 1024², 360 vessels)': { scenes: [], vh: false } };
  // The scenes of shipMeasurements.ts nearShore(), seed for seed.
  for (const wind of [3, 5, 7, 10]) for (const seed of [1, 2]) sets['shipTile.test scenes (8 × 768², VH, 160 vessels)']!.scenes.push(generateSea({ width: 768, height: 768, windSpeed: wind, seed: 100 * wind + seed, vessels: 20, channels: ['VH'] }));
  for (const wind of [3, 5, 7, 10]) for (let seed = 0; seed < 3; seed++) sets['synthetic scenes (12 × 1024², 360 vessels)']!.scenes.push(generateSea({ width: 1024, height: 1024, windSpeed: wind, seed: 1000 * wind + seed, vessels: 30 }));
  console.log('| set | configuration | vessels | found | false | missed | CPU s |\n|---|---|---|---|---|---|---|');
  for (const [set, { scenes, vh }] of Object.entries(sets)) {
    const tally = new Map<string, { tp: number; fp: number; fn: number }>();
    const add = (name: string, s: { tp: number; fp: number; fn: number }) => {
      const t = tally.get(name) ?? { tp: 0, fp: 0, fn: 0 };
      tally.set(name, { tp: t.tp + s.tp, fp: t.fp + s.fp, fn: t.fn + s.fn });
    };
    const cpu = { base: 0, classifier: 0 };
    for (const scene of scenes) {
      const input = () => ({ sigma0: { vh: scene.vh, ...(vh ? {} : { vv: scene.vv }) }, valid: scene.valid, width: scene.width, height: scene.height, pixelSpacing: scene.spacing, core: { x0: 0, y0: 0, width: scene.width, height: scene.height } });
      let t = process.cpuUsage();
      const base = detectShipsInTile(input(), DEFAULT_PATH);
      cpu.base += cpuSeconds(t);
      t = process.cpuUsage();
      const judged: Judged[] = detectShipsInTile(input(), CLASSIFIER_ALL).map((d) => ({ det: d, probability: candidateProbability(model, d.candidate!.features), ruleThreshold: candidateThreshold(model, d.candidate!.features) }));
      cpu.classifier += cpuSeconds(t);
      const maxPx = MATCH_DISTANCE_M / Math.min(scene.spacing.range, scene.spacing.azimuth);
      add('default path', scoreScene(base, scene));
      for (const cut of SWEEP) {
        add(`classifier everywhere, p ≥ ${cut}`, scoreScene(judged.filter((j) => kept(j, cut)).map((j) => j.det), scene));
        add(`union, additions p ≥ ${cut}`, scoreScene(unionDetections(base, judged.filter((j) => kept(j, cut)).map((j) => j.det), maxPx), scene));
      }
    }
    for (const [name, s] of tally) {
      const c = name === 'default path' ? cpu.base : name.startsWith('classifier') ? cpu.classifier : cpu.base + cpu.classifier;
      console.log(`| ${set} | ${name} | ${s.tp + s.fn} | ${s.tp} | ${s.fp} | ${s.fn} | ${c.toFixed(1)} |`);
    }
  }
  // The real crop, through the scene path as shipMeasurements.ts does.
  const truth = readTruthPoints(NORTH_SEA_TRUTH);
  const product = await openSafeProduct(NORTH_SEA_SAFE);
  try {
    let t = process.cpuUsage();
    const base = (await detectShipsInProduct(product, { params: DEFAULT_PATH })).detections;
    const baseCpu = cpuSeconds(t);
    t = process.cpuUsage();
    const judged: Judged[] = (await detectShipsInProduct(product, { params: CLASSIFIER_ALL })).detections.map((d) => ({ det: d, probability: candidateProbability(model, d.candidate!.features), ruleThreshold: candidateThreshold(model, d.candidate!.features) }));
    const clsCpu = cpuSeconds(t);
    const band = Object.values(product.bands).find((b) => b?.hasMeasurement)!;
    const spacing = Math.min(band.annotation.rangePixelSpacing, band.annotation.azimuthPixelSpacing);
    const score = (dets: ShipDetection[] | Array<Judged['det']>) => scoreDetections(dets.map((d) => product.geolocation.pixelToLonLat(d.centroidRow, d.centroidCol)), truth, MATCH_DISTANCE_M);
    const line = (name: string, dets: Array<Judged['det']>, c: number) => {
      const s = score(dets);
      console.log(`| North-Sea crop (16 certain, 4 uncertain) | ${name} | 16 | ${s.truePositives} | ${s.falsePositives} | ${s.falseNegatives} (${dets.length} detections) | ${c.toFixed(1)} |`);
    };
    line('default path', base, baseCpu);
    for (const cut of SWEEP) {
      line(`classifier everywhere, p ≥ ${cut}`, judged.filter((j) => kept(j, cut)).map((j) => j.det), clsCpu);
      line(`union, additions p ≥ ${cut}`, unionDetections(base, judged.filter((j) => kept(j, cut)).map((j) => j.det), MATCH_DISTANCE_M / spacing), baseCpu + clsCpu);
    }
  } finally {
    await product.close();
  }
}

// ------------------------------------------------------------------- the open-sea bench scene

/**
 * Cost on a full open-sea IW scene (bench/ship.ts's, made by `npm run bench -- --only ship`):
 * the default path and the classifier everywhere (committed thresholds) one after the other,
 * each through detectShipsInProduct on analysisThreads() workers, wall and CPU seconds (all
 * threads: the workers are this process's), vessels found against the scene's truth, and the
 * union's (additions at the committed thresholds).
 */
async function scene(): Promise<void> {
  const { analysisThreads, closeAnalysisPool } = await import('../../src/analysis/engine/pool.ts');
  const { detectShipsInProduct } = await import('../../src/analysis/ship/index.ts');
  const { openSafeProduct } = await import('../../src/imagery/index.ts');
  const { readdirSync } = await import('node:fs');
  const dir = arg('dir', '/tmp/sarwatch-bench');
  const safe = readdirSync(dir).find((f) => f.endsWith('.SAFE'));
  if (!safe) throw new Error(`no .SAFE in ${dir}: run SARWATCH_BENCH_DIR=${dir} SARWATCH_BENCH_SHIP_JOB=0 npm run bench -- --only ship once`);
  const productPath = path.join(dir, safe);
  const fc = JSON.parse(readFileSync(productPath.replace(/\.SAFE$/, '.truth.geojson'), 'utf8')) as { features: Array<{ properties: Record<string, unknown> }> };
  const truth = fc.features.filter((f) => f.properties.kind === 'ship').map((f, id) => ({ lon: Number(f.properties.center_lon), lat: Number(f.properties.center_lat), certain: true, id }));
  const threads = analysisThreads();
  const only = process.env.UNION_ONLY?.split(',');
  const configs: Array<[string, ShipParamsInput]> = [
    ['default path (nearShore on: a ship job)', DEFAULT_PATH],
    ['classifier everywhere (sceneLandMask, committed thresholds)', { classifier: { enabled: true, sceneLandMask: true } }],
  ];
  const found: ShipDetection[][] = [];
  let geo: { pixelToLonLat(r: number, c: number): [number, number] } | null = null;
  let spacing = 10;
  try {
    for (const [name, params] of configs) {
      if (only && !only.some((o) => name.includes(o))) continue;
      const product = await openSafeProduct(productPath);
      try {
        const band = Object.values(product.bands).find((b) => b?.hasMeasurement)!;
        spacing = Math.min(band.annotation.rangePixelSpacing, band.annotation.azimuthPixelSpacing);
        geo = product.geolocation;
        const t0 = process.cpuUsage();
        const w0 = performance.now();
        const r = await detectShipsInProduct(product, { threads, params });
        const wall = (performance.now() - w0) / 1000;
        const c = cpuSeconds(t0);
        const s = scoreDetections(r.detections.map((d) => product.geolocation.pixelToLonLat(d.centroidRow, d.centroidCol)), truth, MATCH_DISTANCE_M);
        found.push(r.detections);
        console.log(`${name}: ${threads} threads, ${wall.toFixed(1)} s wall, ${c.toFixed(1)} CPU s, peak-so-far RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB; ${r.detections.length} detections, ${s.truePositives} / ${truth.length} vessels, ${s.falsePositives} false; timings ${JSON.stringify(r.timings)}`);
      } finally {
        await product.close();
      }
    }
  } finally {
    await closeAnalysisPool();
  }
  if (found.length === 2 && geo) {
    const u = unionDetections(found[0]!, found[1]!, MATCH_DISTANCE_M / spacing);
    const g = geo;
    const s = scoreDetections(u.map((d) => g.pixelToLonLat(d.centroidRow, d.centroidCol)), truth, MATCH_DISTANCE_M);
    console.log(`union: ${u.length} detections, ${s.truePositives} / ${truth.length} vessels, ${s.falsePositives} false`);
  }
}

const which = process.argv[2];
if (which === 'ssdd') await ssdd();
else if (which === 'generated') await generated();
else if (which === 'scene') await scene();
else throw new Error('usage: unionOffshore.ts ssdd [--land-cache FILE] [--no-oof] | generated | scene [--dir DIR]');
