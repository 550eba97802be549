/**
 * The near-shore path's cost on a full coastal IW scene (issue 23 §5 with §1): `detectShipsInProduct`
 * on 2 threads of the analysis pool with `nearShore` off and on, alternately, on the coastal bench
 * scene (bench/imagery-read.ts ensureCoastScene: the demo's port scene off IJmuiden enlarged to
 * the full 25,000 × 16,700 px, Natural Earth land over the footprint; generated once, ≈ 5 min).
 * Per run: wall, CPU seconds of all threads (the pool's threads are in this process), peak RSS
 * (sampled every 10 ms), the load average at start and end, the detector's stage clocks, the
 * detections and how many the candidate classifier judged, and a hash of the result (the runs
 * of one setting must agree). Then the tiles whose near-shore band reaches their core — the
 * tiles that run the classifier path — counted the way detectShipsInTile decides it (the same
 * tile plan, tile reads and nearShoreBand; outside the timed runs; only after runs).
 *
 * Then (unless SARWATCH_BENCH_COAST_JOB=0) issue 23 §5's whole job on the coastal scene through
 * the service, as bench/ship.ts benchShipJob runs it on the open-sea one: the scene with its
 * track's 5 earlier dates (bench/imagery-read.ts ensureCoastTrack: the wind farm and platform on
 * every date, the vessels elsewhere; generated once, ≈ 5 min each) and an AIS upload of its
 * vessels; near shore on, the ship job's default.
 *
 * `npm run bench -- --only shipcoast`. Environment:
 *   SARWATCH_BENCH_SHIP_COAST=0          skip the suite
 *   SARWATCH_BENCH_COAST_RUNS=off,on     the detector runs, in order (default off,on,off,on; empty: none)
 *   SARWATCH_BENCH_COAST_JOB=0           no job (N: N jobs one after the other in the one service)
 *   SARWATCH_BENCH_JOB_PAUSE_S=40        seconds between those jobs (over the analysis pool's 30 s idle
 *                                        timeout, all but one of its threads end: the next job starts fresh ones)
 */
import { createHash } from 'node:crypto';
import os from 'node:os';
import { closeAnalysisPool } from '../src/analysis/engine/pool.ts';
import { detectShipsInProduct, requiredHalo } from '../src/analysis/ship/index.ts';
import { nearShoreBand } from '../src/analysis/ship/nearShore.ts';
import { resolveShipParams } from '../src/analysis/ship/params.ts';
import { readShipTile } from '../src/analysis/ship/sceneTile.ts';
import { openSafeProduct, planTiles, SIGMA_FLOOR_LINEAR } from '../src/imagery/index.ts';
import { quicklookBlocksFor } from '../src/worker/quicklook.ts';
import { benchStage, ensureCoastScene, ensureCoastTrack, type BenchStage } from './imagery-read.ts';
import { benchShipJob, type BenchShipJobResult } from './ship.ts';

/** Issue 23 §5's budget is for 2 cores. */
export const COAST_THREADS = 2;

type Stage = BenchStage & { cpuSeconds?: number; loadAverage?: number };

export interface CoastRun {
  nearShore: boolean;
  seconds: number;
  cpuSeconds: number;
  peakRssMb: number;
  loadStart: number;
  loadEnd: number;
  detections: number;
  byClassifier: number;
  /** First 16 hex digits of the SHA-256 of the result's features (JSON). */
  resultHash: string;
  timings: { read: number; input: number; detect: number; ambiguityAndPolygons: number };
}

export interface BenchShipCoastResult {
  stages: Stage[];
  productPath: string;
  width: number;
  height: number;
  runs: CoastRun[];
  tiles: { total: number; withLand: number; classifierPath: number } | null;
  job: BenchShipJobResult | null;
}

function parseRuns(spec: string | undefined): boolean[] {
  const names = (spec ?? 'off,on,off,on').split(',').map((s) => s.trim());
  return names.filter((n) => n !== '').map((n) => {
    if (n !== 'on' && n !== 'off') throw new Error(`SARWATCH_BENCH_COAST_RUNS: each run is on or off, got ${n}`);
    return n === 'on';
  });
}

const round = (v: number, d: number) => Math.round(v * 10 ** d) / 10 ** d;

async function coastRun(productPath: string, width: number, height: number, nearShore: boolean): Promise<{ stage: Stage; run: CoastRun }> {
  const loadStart = os.loadavg()[0]!;
  const cpu0 = process.cpuUsage();
  const detected = await benchStage(`detect ships, nearShore ${nearShore ? 'on' : 'off'} (${COAST_THREADS} threads)`, (width * height) / 1e6, async () => {
    const product = await openSafeProduct(productPath);
    try {
      // As the worker runs it: the quicklook's blocks pooled by the tile tasks (src/worker/quicklook.ts).
      return await detectShipsInProduct(product, {
        threads: COAST_THREADS,
        params: { nearShore: { enabled: nearShore } },
        quicklookBlocks: quicklookBlocksFor('ship', { kind: 'scene', scene: {} as never })!,
      });
    } finally {
      await product.close();
    }
  });
  const cpu = process.cpuUsage(cpu0);
  // The pool's threads end with the run: the next one starts from the same state.
  await closeAnalysisPool();
  const loadEnd = os.loadavg()[0]!;
  const report = detected.value;
  const cpuSeconds = round((cpu.user + cpu.system) / 1e6, 1);
  const t = report.timings;
  const run: CoastRun = {
    nearShore,
    seconds: detected.stage.seconds,
    cpuSeconds,
    peakRssMb: detected.stage.peakRssMb,
    loadStart: round(loadStart, 2),
    loadEnd: round(loadEnd, 2),
    detections: report.result.features.length,
    byClassifier: report.detections.filter((d) => d.candidate !== undefined).length,
    resultHash: createHash('sha256').update(JSON.stringify(report.result.features)).digest('hex').slice(0, 16),
    timings: { read: round(t.read / 1000, 2), input: round(t.input / 1000, 2), detect: round(t.detect / 1000, 2), ambiguityAndPolygons: round((t.ambiguity + t.vectorize) / 1000, 2) },
  };
  return { stage: { ...detected.stage, cpuSeconds, loadAverage: run.loadStart }, run };
}

/**
 * The tiles of the detector's plan whose near-shore band reaches their core (tile.ts
 * detectShipsInTile runs the classifier path on exactly those), and those holding land: each
 * tile read as the detector reads it (VH DN, valid and land masks), one thread.
 */
export async function coastalTiles(productPath: string): Promise<{ total: number; withLand: number; classifierPath: number }> {
  const params = resolveShipParams({ nearShore: { enabled: true } });
  const product = await openSafeProduct(productPath);
  try {
    const band = product.bands.VH!;
    const spacing = { range: band.annotation.rangePixelSpacing, azimuth: band.annotation.azimuthPixelSpacing };
    const region = product.validWindow;
    if (!region) return { total: 0, withLand: 0, classifierPath: 0 };
    const plan = planTiles(product.width, product.height, params.tileSize, requiredHalo(params, spacing), region);
    let withLand = 0;
    let classifierPath = 0;
    for (const tile of plan.tiles) {
      const input = await readShipTile(
        product,
        { vh: 'VH', calibrateOnTask: true, floor: SIGMA_FLOOR_LINEAR, denoise: false, landMask: true, landBufferM: params.landBufferM, pixelSpacing: spacing },
        tile,
      );
      if (!input.land?.includes(1)) continue;
      withLand++;
      const near = nearShoreBand(input.land, input.valid, input.width, input.height, spacing, params.nearShore.distanceM, input.core);
      if (near?.reachesCore) classifierPath++;
    }
    return { total: plan.tiles.length, withLand, classifierPath };
  } finally {
    await product.close();
  }
}

/** The coastal scene (generated or reused), the runs in the given order, the tile count after runs, then the job. */
export async function benchShipCoast(opts: { workDir: string; width?: number; height?: number; runs?: boolean[]; jobs?: number }): Promise<BenchShipCoastResult> {
  const width = opts.width ?? 25_000;
  const height = opts.height ?? 16_700;
  const generated = await benchStage('generate coastal IW GRDH VV+VH (IJmuiden)', (2 * width * height) / 1e6, () => ensureCoastScene(opts.workDir, width, height));
  const sceneStage = generated.value.reused ? { ...generated.stage, name: `${generated.stage.name} (reused)`, mpxPerSecond: 0 } : generated.stage;
  const { productPath } = generated.value;
  const stages: Stage[] = [sceneStage];
  const runs: CoastRun[] = [];
  for (const nearShore of opts.runs ?? parseRuns(process.env.SARWATCH_BENCH_COAST_RUNS)) {
    const { stage, run } = await coastRun(productPath, width, height, nearShore);
    const part = (name: string, seconds: number) => ({ name, seconds, mpxPerSecond: 0, peakRssMb: stage.peakRssMb });
    stages.push(
      stage,
      // (The pool's tasks read their own tiles: the main thread's read and input clocks stay 0, kept in `runs`.)
      part('  · waiting for tile detection', run.timings.detect),
      part('  · ambiguities + polygons', run.timings.ambiguityAndPolygons),
    );
    runs.push(run);
  }
  let tiles: BenchShipCoastResult['tiles'] = null;
  if (runs.length > 0) {
    const counted = await benchStage('count tiles on the classifier path (1 thread, not a detector cost)', 0, () => coastalTiles(productPath));
    stages.push(counted.stage);
    tiles = counted.value;
  }
  const jobs = opts.jobs ?? 1;
  const job = jobs === 0 ? null : await benchShipJob({ workDir: opts.workDir, width, height, scenePath: productPath, ensureTrack: ensureCoastTrack, jobs });
  if (job) stages.push(...job.stages);
  return { stages, productPath, width, height, runs, tiles, job };
}
