/**
 * `npm run eval [-- --json] [-- --only ship,oilslick,change,timeseries]`: accuracy of the ship and oil-slick detectors against ground
 * truth, on generated SAFE products (src/synth `writeSafeGrd`, deterministic seeds) and on
 * the real North-Sea crop (samples/s1/grd-safe-northsea-ships, committed in the repository). Oil
 * slicks lead with real data: chip-level hit and false-alarm rates on the validation split of
 * the CSIRO dev chips (eval/oilChips.ts; development-only data beside the clone, skipped with a
 * message when absent — src/devData.ts).
 *
 * Ships lead with real data too: SSDD chips (detection, inshore and offshore apart, under a stated
 * pixel-size assumption) and OpenSARShip chips (length, width, heading vs AIS, per scene) —
 * eval/shipChips.ts, development-only data beside the clone, skipped with a message when absent.
 *
 * Ships: 4 generated open-sea scenes of 2000 × 2000 px (20 × 20 km, VV+VH; crops of a full-width
 * IW image, in IW1, IW2, IW3 and IW1), wind 3, 5, 7 and 10 m/s, 40 vessels each of 20–300 m (log-uniform), placed ≥ 500 m apart. A detection's
 * centroid within 100 m of a vessel centre matches it (one-to-one, closest first;
 * eval/scoring/shipEval.ts). Scored twice: vessels ≥ 30 m (smaller ones neither hit nor
 * miss; a detection on one is not a false alarm), and all sizes. Detections on azimuth
 * ghosts (truth kind `ambiguity`) are false alarms and are also counted separately.
 * North-Sea crop: its 16 certain vessels; its uncertain targets neither hit nor false alarm.
 *
 * Slicks: 4 generated scenes of 3000 × 3000 px (30 × 30 km, VV), wind 5–8 m/s, each with
 * 2 slicks and 2 low-wind calm patches (look-alikes) in separate quadrants and a few ships.
 * Per slick: the detected features that overlap its truth outline, IoU of their union with
 * the outline (polygon overlay in lon/lat, geodesic areas); a missed slick has IoU 0.
 * False alarms: features overlapping a look-alike, and features overlapping no truth.
 * Then the harder generated world (eval/oilHard.ts): thin ship-trail slicks among biogenic
 * films, large calm areas, rain cells, internal waves, ship wakes and upwelling, false alarms
 * per look-alike kind. Targets for both (issue 11): mean IoU ≥ 0.7, no look-alike flagged.
 *
 * Building change (per-object F1 and pixel IoU on generated cities) and time-series change
 * points (date error on generated series with known breaks): eval/change.ts.
 *
 * Idle farmland (`--only idlefarm`; field-level F1 of "idle" on held-out generated seasons,
 * plausibility on the real OPERA stacks): eval/idlefarm.ts.
 *
 * Fixed structures (`--only fixed`; issue 23 §3): the persistence rule of ship jobs on the real
 * OPERA RTC stack of the Santa Barbara Channel: eval/fixedStructures.ts.
 *
 *   SARWATCH_EVAL_DIR      where generated products go (default: a temp dir, removed after)
 */
import { mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { analysisThreads, closeAnalysisPool } from '../src/analysis/engine/pool.ts';
import { detectSlicksInSafeDetailed } from '../src/analysis/oilslick/index.ts';
import { detectShipsInProduct } from '../src/analysis/ship/index.ts';
import { geodesicAreaSqm } from '../src/geo/area.ts';
import type { Polygon } from '../src/geo/types.ts';
import { openSafeProduct } from '../src/imagery/index.ts';
import { GrdGeometry, Random, subSwathBounds, writeSafeGrd, type ShipSpec } from '../src/synth/index.ts';
import { distanceM, readTruthPoints, scoreDetections, type Score } from './scoring/shipEval.ts';
import { evalChange, evalTimeseries, printChange, printTimeseries } from './change.ts';
import { prf } from './scoring/changeEval.ts';
import { REPO_ROOT, S1_DATA } from '../src/repoPaths.ts';
import { f3, table } from './format.ts';
import { GENERATED_SLICK_TARGETS, iou, overlaps } from './scoring/slickEval.ts';
import { evalOilChips, printOilChips } from './oilChips.ts';
import { evalSlicksHard, printSlicksHard } from './oilHard.ts';
import { evalChipOutlines, evalGeneratedOutlines, printOutlines } from './oilOutline.ts';
import { evalOilCalibrated, printOilCalibrated } from './oilCalibrated.ts';
import { evalIdlefarm, printIdlefarm } from './idlefarm.ts';
import { evalOpenSarShip, evalSsdd, printOpenSarShip, printSsdd } from './shipChips.ts';
import { evalAisOnOpenSarShip, printAisChips } from './aisChips.ts';
import { evalFixedStructuresRtc, printFixedStructuresRtc } from './fixedStructures.ts';
import { basicSceneSpec } from '../training/oilslick/basicScenes.ts';

const NORTH_SEA_DIR = path.join(S1_DATA, 'grd-safe-northsea-ships');
const NORTH_SEA_SAFE = path.join(NORTH_SEA_DIR, 'notebooks/VesselDetection/data/S1A_IW_GRDH_1SDV_20220612T173329_20220612T173354_043633_05359A_EA25_test.SAFE');
const NORTH_SEA_TRUTH = path.join(NORTH_SEA_DIR, 'ships-ground-truth.geojson');

interface TruthFeature {
  geometry: Polygon;
  properties: { kind: string; id: string; length_m?: number; center_lon?: number; center_lat?: number };
}

function readTruth(file: string): TruthFeature[] {
  return (JSON.parse(readFileSync(file, 'utf8')) as { features: TruthFeature[] }).features;
}

interface Counts {
  truePositives: number;
  falsePositives: number;
  falseNegatives: number;
  precision: number;
  recall: number;
  f1: number;
}

function counts(tp: number, fp: number, fn: number): Counts {
  return { truePositives: tp, falsePositives: fp, falseNegatives: fn, ...prf(tp, fp, fn) };
}

const fromScore = (s: Score): Counts => counts(s.truePositives, s.falsePositives, s.falseNegatives);
const r3 = (v: number): number => Math.round(v * 1000) / 1000;

// ------------------------------------------------------------------------------ ships

const SHIP_WINDS = [3, 5, 7, 10];
const SHIP_SIZE = 2000;
const SHIP_COUNT = 40;
/** Width of the full IW GRDH image the ship scenes are cut from. */
const FULL_WIDTH = 25_000;
/** The sub-swath of each ship scene, by wind: 3 m/s IW1, 5 IW2, 7 IW3, 10 IW1 (near range, the brightest sea). */
const SHIP_SCENE_SWATHS = ['IW1', 'IW2', 'IW3', 'IW1'] as const;

interface ShipSceneResult {
  windSpeed: number;
  /** Sub-swath the scene is cut from, and the incidence range of its columns (°). */
  swath: string;
  incidenceDeg: [number, number];
  vessels: number;
  vesselsAtLeast30m: number;
  detections: number;
  atLeast30m: Counts & { ignored: number };
  allSizes: Counts;
  /** False alarms (all-sizes scoring) within 150 m of an azimuth ghost. */
  falseAlarmsOnGhosts: number;
  /** Lengths (m) of missed vessels ≥ 30 m. */
  missedLengthsM: number[];
  seconds: number;
}

async function shipScene(dir: string, wind: number, index: number): Promise<ShipSceneResult> {
  const seed = 7100 + index;
  const rng = new Random(seed, 'eval-ships');
  // Open North Sea, a different spot per scene.
  const center: [number, number] = [2.2 + 0.5 * index, 55.6 - 0.3 * index];
  // A full-width IW GRDH image (25,000 px across the three sub-swaths) of which a 2000 px
  // square is written (a crop, as GDAL crops; the annotation describes the full image), in
  // the middle of the scene's sub-swath: PRF, incidence, noise floor and ghost offsets differ.
  const swath = SHIP_SCENE_SWATHS[index % SHIP_SCENE_SWATHS.length]!;
  const full = new GrdGeometry({ center, width: FULL_WIDTH, height: SHIP_SIZE, passDirection: 'ascending' });
  const [from, to] = subSwathBounds(swath);
  const mid = (from + to) / 2;
  let x0 = 0;
  while (x0 + SHIP_SIZE < FULL_WIDTH && full.incidenceAngle(x0 + SHIP_SIZE / 2) < mid) x0 += 100;
  const crop = { x0, y0: 0, width: SHIP_SIZE, height: SHIP_SIZE };
  const placed: Array<{ line: number; pixel: number; lengthM: number }> = [];
  for (let attempts = 0; placed.length < SHIP_COUNT && attempts < 20_000; attempts++) {
    const lengthM = Math.round(20 * 15 ** rng.uniform());
    const line = rng.range(80, SHIP_SIZE - 80);
    const pixel = x0 + rng.range(80, SHIP_SIZE - 80);
    if (placed.some((p) => Math.hypot(p.line - line, p.pixel - pixel) * 10 < 500 + (p.lengthM + lengthM) / 2)) continue;
    placed.push({ line, pixel, lengthM });
  }
  const ships: ShipSpec[] = placed.map((p, i) => {
    const g = full.pixelToLonLat(p.line, p.pixel);
    return { id: `v${i + 1}`, lon: g.lon, lat: g.lat, lengthM: p.lengthM, headingDeg: Math.round(rng.range(0, 360)) };
  });
  const written = await writeSafeGrd(dir, {
    seed,
    start: new Date(Date.UTC(2024, 5, 3 + index, 17, 30)),
    center,
    width: FULL_WIDTH,
    height: SHIP_SIZE,
    crop,
    passDirection: 'ascending',
    wind: { speed: wind, directionDeg: 40 + 70 * index },
    ships,
  });
  const truth = readTruth(written.groundTruthPath);
  const vessels = truth.filter((f) => f.properties.kind === 'ship');
  const ghosts = truth.filter((f) => f.properties.kind === 'ambiguity');
  const point = (f: TruthFeature): [number, number] => [f.properties.center_lon!, f.properties.center_lat!];

  const t0 = performance.now();
  const product = await openSafeProduct(written.productPath);
  let points: Array<[number, number]>;
  try {
    const report = await detectShipsInProduct(product, { threads: analysisThreads() });
    points = report.detections.map((d) => product.geolocation.pixelToLonLat(d.centroidRow, d.centroidCol) as [number, number]);
  } finally {
    await product.close();
  }
  const seconds = (performance.now() - t0) / 1000;

  const big = scoreDetections(
    points,
    vessels.map((f, i) => ({ lon: point(f)[0], lat: point(f)[1], certain: f.properties.length_m! >= 30, id: i })),
    100,
  );
  const all = scoreDetections(points, vessels.map((f, i) => ({ lon: point(f)[0], lat: point(f)[1], certain: true, id: i })), 100);
  const onGhosts = all.falseAlarms.filter((i) => ghosts.some((g) => distanceM(points[i]!, point(g)) <= 150)).length;
  return {
    windSpeed: wind,
    swath,
    incidenceDeg: [Math.round(full.incidenceAngle(x0) * 10) / 10, Math.round(full.incidenceAngle(x0 + SHIP_SIZE - 1) * 10) / 10],
    vessels: vessels.length,
    vesselsAtLeast30m: vessels.filter((f) => f.properties.length_m! >= 30).length,
    detections: points.length,
    atLeast30m: { ...fromScore(big), ignored: big.ignored },
    allSizes: fromScore(all),
    falseAlarmsOnGhosts: onGhosts,
    missedLengthsM: big.missed.map((i) => Math.round(vessels[i!]!.properties.length_m!)).sort((a, b) => a - b),
    seconds: Math.round(seconds * 10) / 10,
  };
}

async function northSea(): Promise<(Counts & { detections: number; ignored: number; certain: number; uncertain: number }) | { skipped: string }> {
  if (!existsSync(NORTH_SEA_SAFE) || !existsSync(NORTH_SEA_TRUTH)) return { skipped: `not found: ${NORTH_SEA_DIR}` };
  const truth = readTruthPoints(NORTH_SEA_TRUTH);
  const product = await openSafeProduct(NORTH_SEA_SAFE);
  try {
    const report = await detectShipsInProduct(product, { threads: analysisThreads() });
    const points = report.detections.map((d) => product.geolocation.pixelToLonLat(d.centroidRow, d.centroidCol) as [number, number]);
    const s = scoreDetections(points, truth, 100);
    return {
      ...fromScore(s),
      detections: points.length,
      ignored: s.ignored,
      certain: truth.filter((t) => t.certain).length,
      uncertain: truth.filter((t) => !t.certain).length,
    };
  } finally {
    await product.close();
  }
}

async function evalShips(dir: string) {
  const scenes: ShipSceneResult[] = [];
  for (const [i, wind] of SHIP_WINDS.entries()) scenes.push(await shipScene(dir, wind, i));
  const sum = (pick: (s: ShipSceneResult) => Counts) =>
    counts(
      scenes.reduce((a, s) => a + pick(s).truePositives, 0),
      scenes.reduce((a, s) => a + pick(s).falsePositives, 0),
      scenes.reduce((a, s) => a + pick(s).falseNegatives, 0),
    );
  return {
    matchDistanceM: 100,
    sceneSizePx: [SHIP_SIZE, SHIP_SIZE],
    generated: scenes,
    total: { atLeast30m: sum((s) => s.atLeast30m), allSizes: sum((s) => s.allSizes) },
    northSea: await northSea(),
  };
}

// ------------------------------------------------------------------------------ slicks

const SLICK_WINDS = [5, 6, 7, 8];
const SLICK_SIZE = 3000;

interface SlickResult {
  scene: number;
  windSpeed: number;
  id: string;
  lengthKm: number;
  widthM: [number, number];
  areaKm2: number;
  detectedFeatures: number;
  iou: number;
}

interface LookAlikeResult {
  scene: number;
  windSpeed: number;
  id: string;
  lengthKm: number;
  minWindSpeed: number;
  /** Detected features overlapping it (each a false alarm). */
  falseAlarms: number;
}


async function slickScene(dir: string, wind: number, index: number) {
  // The basic world's scene spec lives with the training mix that reuses its other seeds.
  const spec = basicSceneSpec(wind, index);
  const slicks = spec.slicks ?? [];
  const written = await writeSafeGrd(dir, { ...spec, width: SLICK_SIZE, height: SLICK_SIZE, pols: ['VV'] });
  const truth = readTruth(written.groundTruthPath);
  const t0 = performance.now();
  const details = await detectSlicksInSafeDetailed(written.productPath);
  const seconds = (performance.now() - t0) / 1000;
  const features = details.collection.features.map((f) => f.geometry as Polygon);
  const truthSlicks = truth.filter((f) => f.properties.kind === 'oilslick');
  const truthLookAlikes = truth.filter((f) => f.properties.kind === 'lookalike');

  const slickResults: SlickResult[] = truthSlicks.map((f) => {
    const hits = features.filter((g) => overlaps(f.geometry, g));
    const spec = slicks.find((s) => s.id === f.properties.id)!;
    const p = f.properties as unknown as { length_m: number };
    return {
      scene: index + 1,
      windSpeed: wind,
      id: f.properties.id,
      lengthKm: Math.round(p.length_m / 100) / 10,
      widthM: spec.widthM as [number, number],
      areaKm2: Math.round(geodesicAreaSqm(f.geometry) / 1e4) / 100,
      detectedFeatures: hits.length,
      iou: r3(iou(f.geometry, hits)),
    };
  });
  const lookAlikeResults: LookAlikeResult[] = truthLookAlikes.map((f) => {
    const p = f.properties as unknown as { length_m: number; min_wind_speed: number };
    return {
      scene: index + 1,
      windSpeed: wind,
      id: f.properties.id,
      lengthKm: Math.round(p.length_m / 100) / 10,
      minWindSpeed: p.min_wind_speed,
      falseAlarms: features.filter((g) => overlaps(f.geometry, g)).length,
    };
  });
  const otherFalseAlarms = features.filter((g) => ![...truthSlicks, ...truthLookAlikes].some((f) => overlaps(f.geometry, g))).length;
  const reasons: Record<string, number> = {};
  for (const c of details.candidates) for (const r of c.reasons) reasons[r] = (reasons[r] ?? 0) + 1;
  return {
    slicks: slickResults,
    lookAlikes: lookAlikeResults,
    scene: {
      scene: index + 1,
      windSpeed: wind,
      features: features.length,
      candidates: details.candidates.length,
      rejected: details.candidates.filter((c) => !c.isSlick).length,
      otherFalseAlarms,
      seconds: Math.round(seconds * 10) / 10,
    },
    reasons,
  };
}

async function evalSlicks(dir: string) {
  const slicks: SlickResult[] = [];
  const lookAlikes: LookAlikeResult[] = [];
  const scenes = [];
  const reasons: Record<string, number> = {};
  for (const [i, wind] of SLICK_WINDS.entries()) {
    const r = await slickScene(dir, wind, i);
    slicks.push(...r.slicks);
    lookAlikes.push(...r.lookAlikes);
    scenes.push(r.scene);
    for (const [k, v] of Object.entries(r.reasons)) reasons[k] = (reasons[k] ?? 0) + v;
  }
  const found = slicks.filter((s) => s.detectedFeatures > 0);
  const mean = (xs: number[]) => (xs.length ? r3(xs.reduce((a, b) => a + b, 0) / xs.length) : 0);
  return {
    sceneSizePx: [SLICK_SIZE, SLICK_SIZE],
    slicks,
    lookAlikes,
    scenes,
    targets: GENERATED_SLICK_TARGETS,
    summary: {
      slicks: slicks.length,
      detected: found.length,
      meanIou: mean(slicks.map((s) => s.iou)),
      meanIouOfDetected: mean(found.map((s) => s.iou)),
      minIouOfDetected: found.length ? Math.min(...found.map((s) => s.iou)) : 0,
      lookAlikes: lookAlikes.length,
      lookAlikesWithFalseAlarm: lookAlikes.filter((l) => l.falseAlarms > 0).length,
      falseAlarmsOnLookAlikes: lookAlikes.reduce((a, l) => a + l.falseAlarms, 0),
      otherFalseAlarms: scenes.reduce((a, s) => a + s.otherFalseAlarms, 0),
      rejectedCandidates: scenes.reduce((a, s) => a + s.rejected, 0),
      rejectionReasons: reasons,
    },
  };
}

// ------------------------------------------------------------------------------ output


function printShips(ship: Awaited<ReturnType<typeof evalShips>>): void {
  console.log(`ships: generated open sea, ${SHIP_SIZE} × ${SHIP_SIZE} px VV+VH, ${SHIP_COUNT} vessels 20–300 m per scene, match ≤ 100 m`);
  const rows: Array<Array<string | number>> = [];
  for (const s of ship.generated) {
    rows.push([`${s.windSpeed} m/s ${s.swath}, ≥ 30 m`, s.vesselsAtLeast30m, s.detections, s.atLeast30m.truePositives, s.atLeast30m.falsePositives, s.atLeast30m.falseNegatives, f3(s.atLeast30m.precision), f3(s.atLeast30m.recall), f3(s.atLeast30m.f1), s.falseAlarmsOnGhosts, s.seconds]);
    rows.push([`${s.windSpeed} m/s ${s.swath}, all sizes`, s.vessels, s.detections, s.allSizes.truePositives, s.allSizes.falsePositives, s.allSizes.falseNegatives, f3(s.allSizes.precision), f3(s.allSizes.recall), f3(s.allSizes.f1), '', '']);
  }
  for (const [label, c] of [['total, ≥ 30 m', ship.total.atLeast30m], ['total, all sizes', ship.total.allSizes]] as const) {
    rows.push([label, c.truePositives + c.falseNegatives, '', c.truePositives, c.falsePositives, c.falseNegatives, f3(c.precision), f3(c.recall), f3(c.f1), '', '']);
  }
  const ns = ship.northSea;
  if ('skipped' in ns) rows.push(['North-Sea crop (real)', `skipped: ${ns.skipped}`, '', '', '', '', '', '', '', '', '']);
  else rows.push([`North-Sea crop (real), certain`, ns.certain, ns.detections, ns.truePositives, ns.falsePositives, ns.falseNegatives, f3(ns.precision), f3(ns.recall), f3(ns.f1), '', '']);
  console.log(table(['set', 'vessels', 'detections', 'TP', 'FP', 'FN', 'precision', 'recall', 'F1', 'FP on ghosts', 's'], rows));
  const missed = ship.generated.flatMap((s) => s.missedLengthsM);
  console.log(`missed vessels ≥ 30 m (lengths, m): ${missed.length ? missed.sort((a, b) => a - b).join(', ') : 'none'}`);
  if (!('skipped' in ns)) console.log(`North-Sea crop: ${ns.uncertain} uncertain targets, ${ns.ignored} of them detected (not counted)`);
  console.log('');
}

function printSlicks(oil: Awaited<ReturnType<typeof evalSlicks>>): void {
  console.log(`oil slicks: generated sea, ${SLICK_SIZE} × ${SLICK_SIZE} px VV, 2 slicks + 2 low-wind look-alikes per scene`);
  console.log(
    table(
      ['slick', 'wind m/s', 'length km', 'width m', 'area km²', 'features', 'IoU'],
      oil.slicks.map((s) => [s.id, s.windSpeed, s.lengthKm, `${s.widthM[0]}–${s.widthM[1]}`, s.areaKm2, s.detectedFeatures, f3(s.iou)]),
    ),
  );
  console.log('');
  console.log(
    table(
      ['look-alike', 'wind m/s', 'length km', 'min wind m/s', 'false alarms'],
      oil.lookAlikes.map((l) => [l.id, l.windSpeed, l.lengthKm, l.minWindSpeed, l.falseAlarms]),
    ),
  );
  const s = oil.summary;
  console.log('');
  console.log(
    `slicks detected ${s.detected}/${s.slicks}; mean IoU ${f3(s.meanIou)} (misses as 0; target ≥ ${oil.targets.meanIou}), ${f3(s.meanIouOfDetected)} over detected (min ${f3(s.minIouOfDetected)})`,
  );
  console.log(
    `false alarms: ${s.falseAlarmsOnLookAlikes} on look-alikes (${s.lookAlikesWithFalseAlarm}/${s.lookAlikes} look-alikes hit; target ${oil.targets.lookAlikesFlagged}), ${s.otherFalseAlarms} elsewhere; ` +
      `${s.rejectedCandidates} candidates rejected (${Object.entries(s.rejectionReasons).map(([k, v]) => `${k} ${v}`).join(', ') || 'none'})`,
  );
  console.log(`seconds per scene (detection): ${oil.scenes.map((x) => x.seconds).join(', ')}`);
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { json: { type: 'boolean' }, only: { type: 'string' } }, allowPositionals: false });
  // `--only ship,oilslick,change,timeseries` (any of them, comma-separated): run just those parts.
  const only = values.only ? new Set(values.only.split(',')) : null;
  const parts = ['ship', 'oilslick', 'change', 'timeseries'];
  parts.push('idlefarm'); // eval/idlefarm.ts
  parts.push('fixed'); // eval/fixedStructures.ts: the fixed-structure rule on the real RTC stack
  for (const name of only ?? []) if (!parts.includes(name)) throw new Error(`unknown eval part ${name}; known: ${parts.join(', ')}`);
  const runs = (name: string): boolean => !only || only.has(name);
  const own = !process.env.SARWATCH_EVAL_DIR;
  const dir = process.env.SARWATCH_EVAL_DIR ?? mkdtempSync(path.join(os.tmpdir(), 'sarwatch-eval-'));
  const t0 = performance.now();
  try {
    // Real data leads: the oil-slick model on the real validation chips.
    const oilReal = runs('oilslick') ? await evalOilChips(REPO_ROOT) : undefined;
    if (oilReal && !values.json) printOilChips(oilReal);
    // Outlines (issue 24 §1): completeness on the real chips, pixel IoU on generated broken slicks.
    const oilOutlines = runs('oilslick') ? { real: evalChipOutlines(), generated: evalGeneratedOutlines() } : undefined;
    if (oilOutlines && !values.json) printOutlines(oilOutlines.real, oilOutlines.generated);
    // The calibrated path (issue 24 §2): the real chips as σ0 at CMOD5.N levels, per wind range.
    const oilCalibrated = runs('oilslick') ? evalOilCalibrated() : undefined;
    if (oilCalibrated && !values.json) printOilCalibrated(oilCalibrated);
    // Ships: the real chips first (eval/shipChips.ts), then generated scenes and the North-Sea crop.
    const shipReal = runs('ship') ? { ssdd: await evalSsdd(), attributes: await evalOpenSarShip(), ais: evalAisOnOpenSarShip() } : undefined;
    if (shipReal && !values.json) {
      printSsdd(shipReal.ssdd);
      printOpenSarShip(shipReal.attributes);
      printAisChips(shipReal.ais);
    }
    const fixedStructures = runs('fixed') ? await evalFixedStructuresRtc() : undefined;
    if (fixedStructures && !values.json) printFixedStructuresRtc(fixedStructures);
    const shipGenerated = runs('ship') ? await evalShips(dir) : undefined;
    if (shipGenerated && !values.json) printShips(shipGenerated);
    const ship = shipGenerated ? { real: shipReal, ...shipGenerated } : undefined;
    const oilGenerated = runs('oilslick') ? await evalSlicks(dir) : undefined;
    if (oilGenerated && !values.json) printSlicks(oilGenerated);
    const oilHard = runs('oilslick') ? await evalSlicksHard(dir) : undefined;
    if (oilHard && !values.json) printSlicksHard(oilHard);
    const oilslick = oilGenerated ? { real: oilReal, outlines: oilOutlines, calibrated: oilCalibrated, ...oilGenerated, harder: oilHard } : undefined;
    // Building change and time series: eval/change.ts.
    const change = runs('change') ? await evalChange(dir) : undefined;
    if (change && !values.json) printChange(change);
    const timeseries = runs('timeseries') ? await evalTimeseries(dir) : undefined;
    if (timeseries && !values.json) printTimeseries(timeseries);
    const idlefarm = runs('idlefarm') ? await evalIdlefarm(dir) : undefined;
    if (idlefarm && !values.json) printIdlefarm(idlefarm);
    if (values.json) process.stdout.write(`${JSON.stringify({ ship, fixedStructures, oilslick, change, timeseries, idlefarm })}\n`);
    else {
      console.log(`\ntotal ${((performance.now() - t0) / 1000).toFixed(0)} s`);
    }
  } finally {
    await closeAnalysisPool();
    if (own) rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
