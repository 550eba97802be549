/**
 * Time-series benchmark (`npm run bench -- --only timeseries`): a 50 km² polygon × 3 years
 * of acquisitions (91 dates, 12-day revisit) through detectTimeseries with the default 100 m
 * cells, then the result serialised as the worker does, then the job's quicklook (the deviation
 * map) and its map layer as the worker makes them (issue 22 §1: their share of the job).
 *
 * The stack: src/synth writeRtcStack, farmland (fields with crop cycles, meadows, idle
 * fields), 740 × 740 px at 10 m (7.4 km square), VV + VH, float32 Deflate GeoTIFFs named and
 * tagged like OPERA RTC-S1 (182 files, ~2 MB each), from 2022-01-05. The polygon: a
 * 7,064 m square in the stack's UTM zone (49.9 km², just under the 50 km² limit) → 5,041
 * cells. Generated once into `<workDir>/bench-timeseries-<px>-<dates>/` (marker
 * `stack.json`) and reused.
 *
 * Each stage: wall time, peak RSS (10 ms samples), CPU seconds (all threads), load average.
 *
 *   SARWATCH_BENCH_TIMESERIES_DATES=30   fewer dates for a quick run (default 91)
 *   SARWATCH_BENCH_TIMESERIES_PX=300     a smaller stack (default 740; the polygon shrinks with it)
 */
import { mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { detectTimeseries } from '../src/analysis/timeseries/index.ts';
import type { AoiGeometry, Position } from '../src/geo/types.ts';
import { lonLatTransform } from '../src/imagery/index.ts';
import { writeRtcStack } from '../src/synth/index.ts';
import { makeMapLayer } from '../src/analysis/quicklook/index.ts';
import { quicklookRow } from './quicklook.ts';
import { benchStage } from './imagery-read.ts';
import type { ChangeBenchStage } from './change.ts';

const STACK_VERSION = 1;
const PIXEL_M = 10;
const CENTER: Position = [5.45, 52.52];
const START = '2022-01-05';
/** Side of the polygon: √49.9 km². */
const AOI_SIDE_M = 7064;

export interface TimeseriesBenchResult {
  stages: ChangeBenchStage[];
  sizePx: number;
  dates: number;
  firstDate: string;
  lastDate: string;
  aoiSqkm: number;
  cells: number;
  cellsWithData: number;
  cellsWithChangePoints: number;
  resultMb: number;
}

interface StackMarker {
  version: number;
  sizePx: number;
  count: number;
  epsg: number;
  dates: string[];
  files: string[];
}

async function ensureStack(workDir: string, sizePx: number, count: number): Promise<{ marker: StackMarker; reused: boolean }> {
  const dir = path.join(workDir, `bench-timeseries-${sizePx}-${count}`);
  const markerPath = path.join(dir, 'stack.json');
  try {
    const m = JSON.parse(await readFile(markerPath, 'utf8')) as StackMarker;
    if (m.version === STACK_VERSION && m.sizePx === sizePx && m.count === count && (await Promise.all(m.files.map((f) => stat(f)))).every((s) => s.size > 0)) {
      return { marker: m, reused: true };
    }
  } catch {
    // none yet
  }
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  const stack = await writeRtcStack(dir, {
    scene: 'farmland',
    seed: 2026,
    center: CENTER,
    width: sizePx,
    height: sizePx,
    pixelSize: PIXEL_M,
    start: START,
    count,
    track: 88,
  });
  const marker: StackMarker = { version: STACK_VERSION, sizePx, count, epsg: stack.epsg, dates: stack.dates, files: stack.files };
  await writeFile(markerPath, `${JSON.stringify(marker)}\n`);
  return { marker, reused: false };
}

async function stage<T>(name: string, run: (sample: () => void) => Promise<T>): Promise<{ stage: ChangeBenchStage; value: T }> {
  const cpu0 = process.cpuUsage();
  const r = await benchStage(name, 0, run);
  const cpu = process.cpuUsage(cpu0);
  return { stage: { ...r.stage, cpuSeconds: Math.round((cpu.user + cpu.system) / 1e4) / 100, loadAverage: Math.round(os.loadavg()[0]! * 100) / 100 }, value: r.value };
}

export async function benchTimeseries(opts: { workDir: string }): Promise<TimeseriesBenchResult> {
  const count = Number(process.env.SARWATCH_BENCH_TIMESERIES_DATES ?? 91);
  const sizePx = Number(process.env.SARWATCH_BENCH_TIMESERIES_PX ?? 740);
  if (!Number.isInteger(count) || count < 3) throw new Error('SARWATCH_BENCH_TIMESERIES_DATES must be an integer ≥ 3');
  if (!Number.isInteger(sizePx) || sizePx < 50) throw new Error('SARWATCH_BENCH_TIMESERIES_PX must be an integer ≥ 50');
  const stages: ChangeBenchStage[] = [];
  const generated = await stage(`generate RTC stack, ${count} dates × VV+VH`, () => ensureStack(opts.workDir, sizePx, count));
  stages.push(generated.value.reused ? { ...generated.stage, name: 'generate RTC stack (reused)' } : generated.stage);
  const { marker } = generated.value;

  // The polygon: a square centred on the stack, in its UTM zone (edges densified every ~500 m).
  const utm = lonLatTransform(marker.epsg);
  const [cx, cy] = utm.fromLonLat(CENTER[0], CENTER[1]);
  const half = Math.min(AOI_SIDE_M, (sizePx - 20) * PIXEL_M) / 2;
  const corners: [number, number][] = [
    [cx - half, cy - half],
    [cx + half, cy - half],
    [cx + half, cy + half],
    [cx - half, cy + half],
  ];
  const ring: Position[] = [];
  for (let i = 0; i < 4; i++) {
    const [x1, y1] = corners[i]!;
    const [x2, y2] = corners[(i + 1) % 4]!;
    for (let k = 0; k < 14; k++) ring.push(utm.toLonLat(x1 + ((x2 - x1) * k) / 14, y1 + ((y2 - y1) * k) / 14));
  }
  ring.push(ring[0]!);
  const aoi: AoiGeometry = { type: 'Polygon', coordinates: [ring] };
  const scenes = marker.dates.map((date, k) => ({ date, vv: marker.files[2 * k]!, vh: marker.files[2 * k + 1]! }));

  const detected = await stage(`detectTimeseries, ${count} dates, 100 m cells`, () => detectTimeseries(scenes, { aoi, maxRequestBytes: 1 << 20 }));
  stages.push(detected.stage);
  const out = detected.value;
  const serialised = await stage('result as GeoJSON (JSON.stringify)', async () => JSON.stringify(out.result).length);
  stages.push(serialised.stage);
  // What the worker makes after the analysis, side by side (worker/quicklook.ts); each one's share of the job (detection + it).
  const share = (s: ChangeBenchStage) => `${((100 * s.seconds) / (detected.stage.seconds + s.seconds)).toFixed(1)} % of the job`;
  stages.push(await quicklookRow({ endpointId: 'timeseries', family: 'analyze', input: { kind: 'series', scenes: [], extent: aoi, aoi }, result: out.result }, detected.stage, 'deviation map'));
  const layer = await stage('map layer', () => makeMapLayer({ endpointId: 'timeseries', result: out.result }));
  stages.push({ ...layer.stage, name: `map layer (${(layer.value!.length / 1e6).toFixed(2)} MB GeoJSON): ${share(layer.stage)}` });
  return {
    stages,
    sizePx,
    dates: out.stats.dates,
    firstDate: marker.dates[0]!,
    lastDate: marker.dates[marker.dates.length - 1]!,
    aoiSqkm: Math.round(out.coverage.requested_area_sqkm * 100) / 100,
    cells: out.stats.cells,
    cellsWithData: out.stats.cellsWithData,
    cellsWithChangePoints: out.result.features.filter((f) => (f.properties.changePointDates as string[]).length > 0).length,
    resultMb: Math.round(serialised.value / 1e5) / 10,
  };
}
