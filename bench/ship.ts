/**
 * Ship detection benchmark: `detectShipsInProduct` (worker threads = analysisThreads()) on the
 * full-size generated IW GRDH scene (25,000 × 16,700 px, VV+VH; `--size WxH` for others).
 * Reports wall time, throughput and peak RSS (sampled every 10 ms, worker threads included:
 * they share the process), then the job's quicklook (bench/quicklook.ts).
 *
 * The scene: bench/imagery-read.ts's (200 ships, 4 slicks, 2 calm patches on open North Sea),
 * generated once into the work dir and reused while its marker (bench-imagery-read.json)
 * matches the size. bench/oilslick.ts uses the same scene.
 *
 * Then (unless SARWATCH_BENCH_SHIP_JOB=0) issue 23 §5's job through the service, `benchShipJob`:
 * the same scene with its track's 5 earlier dates in the archive (fixed structures) and an AIS
 * upload matched to the detections; wall, CPU seconds and peak RSS of the job and of each part.
 */
import fs from 'node:fs';
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { analysisThreads, closeAnalysisPool } from '../src/analysis/engine/pool.ts';
import { detectShipsInProduct } from '../src/analysis/ship/index.ts';
import { openSafeProduct } from '../src/imagery/index.ts';
import { loadConfig } from '../src/config.ts';
import { startService } from '../src/runtime.ts';
import { createAccount, createApiKey } from '../src/jobs/accounts.ts';
import { SarwatchClient } from '../src/client/index.ts';
import { createRegistry, defaultRegistry } from '../src/endpoints/analysisRegistry.ts';
import { Random } from '../src/synth/index.ts';
import { benchStage, ensureBenchScene, ensureBenchTrack, type BenchStage } from './imagery-read.ts';
import { quicklookStage } from './quicklook.ts';
import { quicklookBlocksFor } from '../src/worker/quicklook.ts';
import { threadCpuNow, threadCpuSplit } from './threadCpu.ts';

export interface BenchAnalysisResult {
  stages: BenchStage[];
  productPath: string;
  width: number;
  height: number;
  /** Features in the result, and the truth objects of the relevant kind in the scene. */
  found: number;
  truth: number;
}


export async function truthCount(productPath: string, kind: string): Promise<number> {
  const truthPath = productPath.replace(/\.SAFE$/, '.truth.geojson');
  try {
    const fc = JSON.parse(await readFile(truthPath, 'utf8')) as { features: Array<{ properties: { kind: string } }> };
    return fc.features.filter((f) => f.properties.kind === kind).length;
  } catch {
    return 0;
  }
}

export async function sceneStage(workDir: string, width: number, height: number): Promise<{ stage: BenchStage; productPath: string }> {
  const generated = await benchStage('generate IW GRDH VV+VH', (2 * width * height) / 1e6, () => ensureBenchScene(workDir, width, height));
  const stage = generated.value.reused ? { ...generated.stage, name: 'generate IW GRDH VV+VH (reused)', mpxPerSecond: 0 } : generated.stage;
  return { stage, productPath: generated.value.productPath };
}

/**
 * The detector alone on the bench scene, then (unless `job: false`; `SARWATCH_BENCH_SHIP_JOB=0`
 * in `npm run bench`) the issue 23 §5 job through the service: `benchShipJob`.
 */
export async function benchShips(opts: { workDir: string; width?: number; height?: number; job?: boolean }): Promise<BenchAnalysisResult & { threads: number; job: BenchShipJobResult | null }> {
  const width = opts.width ?? 25_000;
  const height = opts.height ?? 16_700;
  const scene = await sceneStage(opts.workDir, width, height);
  const detector = await benchDetector(scene, width, height);
  // The job starts its own analysis pool; the detector's was closed.
  const job = opts.job === false ? null : await benchShipJob({ workDir: opts.workDir, width, height, scenePath: scene.productPath, ensureTrack: ensureBenchTrack });
  return { ...detector, job };
}

async function benchDetector(scene: { stage: BenchStage; productPath: string }, width: number, height: number): Promise<BenchAnalysisResult & { threads: number }> {
  const threads = analysisThreads();
  try {
    const cpu0 = process.cpuUsage();
    const detected = await benchStage(`detect ships (${threads} threads)`, (width * height) / 1e6, async () => {
      const product = await openSafeProduct(scene.productPath);
      try {
        // The quicklook's blocks as the worker asks for them (src/worker/quicklook.ts).
        return await detectShipsInProduct(product, { threads, quicklookBlocks: quicklookBlocksFor('ship', { kind: 'scene', scene: {} as never })! });
      } finally {
        await product.close();
      }
    });
    const cpu = process.cpuUsage(cpu0);
    // Where the wall time went (the detector's own stage clocks; reading overlaps the workers'
    // detection, so "waiting for tile detection" is only what reading did not hide), and the
    // CPU time of all threads (worker threads are in this process).
    const t = detected.value.timings;
    const part = (name: string, ms: number) => ({ name, seconds: Math.round(ms / 10) / 100, mpxPerSecond: 0, peakRssMb: detected.stage.peakRssMb });
    const parts = [
      part('  · read tiles (main thread)', t.read),
      part('  · tile inputs: masks, calibration (main thread)', t.input),
      part('  · waiting for tile detection', t.detect),
      part('  · ambiguities + polygons', t.ambiguity + t.vectorize),
      part('  CPU seconds, all threads', (cpu.user + cpu.system) / 1000),
    ];
    const job = { seconds: detected.stage.seconds, cpuSeconds: (cpu.user + cpu.system) / 1e6 };
    const quicklook = await quicklookStage('ship', scene.productPath, detected.value.result, job, detected.value.quicklookCopy);
    // For comparison, the strided read's quicklook (an uploaded image's, the CLI's) right after: second of the process, so its modules are warm.
    const strided = detected.value.quicklookCopy ? [await quicklookStage('ship', scene.productPath, detected.value.result, job)] : [];
    return {
      stages: [scene.stage, detected.stage, ...parts, quicklook, ...strided],
      productPath: scene.productPath,
      width,
      height,
      found: detected.value.result.features.length,
      truth: await truthCount(scene.productPath, 'ship'),
      threads,
    };
  } finally {
    await closeAnalysisPool();
  }
}

// ------------------------------------------------------------------ the job (issue 23 §5)

/** Earlier acquisitions of the track the job compares with: the fixed-structure rule's maximum. */
const EARLIER_DATES = 5;
/** AIS: one fix every 2 min over ±30 min around the acquisition. */
const AIS_FIX_STEP_S = 120;
const AIS_HALF_WINDOW_S = 1800;
/** Every DARK_EVERY-th ship of the scene sends no AIS (a dark vessel). */
const DARK_EVERY = 10;
/** AIS vessels inside the footprint that are not in the image, and outside it. */
const AIS_UNSEEN_INSIDE = 40;
const AIS_UNSEEN_OUTSIDE = 10;

export interface BenchShipJobResult {
  stages: Array<BenchStage & { cpuSeconds?: number; loadAverage?: number }>;
  details: Record<string, unknown>;
}

interface TruthShip {
  id: string;
  lon: number;
  lat: number;
  lengthM: number;
  headingDeg: number;
}

async function truthShips(productPath: string): Promise<{ ships: TruthShip[]; structures: Array<{ lon: number; lat: number }>; footprint: [number, number][] }> {
  const fc = JSON.parse(await readFile(productPath.replace(/\.SAFE$/, '.truth.geojson'), 'utf8')) as {
    features: Array<{ properties: Record<string, unknown> }>;
    sarwatch: { footprint: { coordinates: [number, number][][] } };
  };
  const ships = fc.features
    .filter((f) => f.properties.kind === 'ship')
    .map((f) => ({ id: String(f.properties.id), lon: Number(f.properties.center_lon), lat: Number(f.properties.center_lat), lengthM: Number(f.properties.length_m), headingDeg: Number(f.properties.heading_deg) }));
  // Wind turbines and platforms (the coastal scene's wind farm).
  const structures = fc.features.filter((f) => f.properties.kind === 'fixed_structure').map((f) => ({ lon: Number(f.properties.center_lon), lat: Number(f.properties.center_lat) }));
  return { ships, structures, footprint: fc.sarwatch.footprint.coordinates[0]! };
}

/**
 * The AIS a user would upload for the scene: a fix every 2 min over ±30 min of the acquisition
 * for every ship of the scene but every 10th (dark), each moving along its heading at its own
 * speed through its place in the image at the scene's start time (what the matcher moves it
 * to); plus vessels the image does not hold, inside the footprint (listed `detected: false`)
 * and outside it (not listed). MMSI 2xxxxxxxx = a ship of the scene (its number), 3… unseen.
 */
export function benchAisCsv(ships: readonly TruthShip[], footprint: readonly [number, number][], startTime: Date): { csv: string; vessels: number; fixes: number; dark: number; unseenInside: number } {
  const rng = new Random(2024, 'bench-ais');
  const lons = footprint.map((p) => p[0]);
  const lats = footprint.map((p) => p[1]);
  const [w, e, s, n] = [Math.min(...lons), Math.max(...lons), Math.min(...lats), Math.max(...lats)];
  const t0 = startTime.getTime();
  const lines = ['mmsi,timestamp,lat,lon,sog,cog,heading,length'];
  let fixes = 0;
  const track = (mmsi: string, lon: number, lat: number, headingDeg: number, lengthM: number) => {
    const sogKn = Math.round(rng.range(0, 16) * 10) / 10;
    const v = (sogKn * 1852) / 3600;
    const k = (headingDeg * Math.PI) / 180;
    for (let dt = -AIS_HALF_WINDOW_S; dt <= AIS_HALF_WINDOW_S; dt += AIS_FIX_STEP_S) {
      const dLat = (v * dt * Math.cos(k)) / 111_320;
      const dLon = (v * dt * Math.sin(k)) / (111_320 * Math.cos((lat * Math.PI) / 180));
      const at = new Date(t0 + dt * 1000).toISOString();
      lines.push(`${mmsi},${at},${(lat + dLat).toFixed(6)},${(lon + dLon).toFixed(6)},${sogKn},${headingDeg % 360},${headingDeg % 360},${lengthM}`);
      fixes++;
    }
  };
  let dark = 0;
  ships.forEach((ship, i) => {
    if ((i + 1) % DARK_EVERY === 0) {
      dark++;
      return;
    }
    track(String(200_000_000 + i + 1), ship.lon, ship.lat, ship.headingDeg, ship.lengthM);
  });
  // Inside the footprint's inner part (its corners are not a lon/lat box), and well outside it.
  for (let j = 0; j < AIS_UNSEEN_INSIDE + AIS_UNSEEN_OUTSIDE; j++) {
    const inside = j < AIS_UNSEEN_INSIDE;
    const lon = inside ? w + (e - w) * rng.range(0.2, 0.8) : e + rng.range(0.5, 1.5);
    const lat = inside ? s + (n - s) * rng.range(0.2, 0.8) : s + (n - s) * rng.range(0, 1);
    track(String(300_000_000 + j + 1), lon, lat, Math.round(rng.range(0, 360)), Math.round(rng.range(20, 250)));
  }
  return { csv: `${lines.join('\n')}\n`, vessels: ships.length - dark + AIS_UNSEEN_INSIDE + AIS_UNSEEN_OUTSIDE, fixes, dark, unseenInside: AIS_UNSEEN_INSIDE };
}

/** Index of the point nearest a detection's ring (vertex mean), and its distance in m (-1, Infinity when none). */
function nearestTo(points: ReadonlyArray<{ lon: number; lat: number }>, ring: number[][]): { index: number; metres: number } {
  const pts = ring.length > 1 ? ring.slice(0, -1) : ring;
  const lon = pts.reduce((a, p) => a + p[0]!, 0) / pts.length;
  const lat = pts.reduce((a, p) => a + p[1]!, 0) / pts.length;
  const k = Math.cos((lat * Math.PI) / 180);
  let index = -1;
  let bestD = Infinity;
  points.forEach((s, i) => {
    const d = ((s.lon - lon) * k) ** 2 + (s.lat - lat) ** 2;
    if (d < bestD) [index, bestD] = [i, d];
  });
  return { index, metres: Math.sqrt(bestD) * 111_320 };
}

/** The MMSI benchAisCsv gave the truth ship nearest a detection's ring, or null when that ship is dark. */
function ownMmsi(ships: readonly TruthShip[], ring: number[][]): string | null {
  const best = nearestTo(ships, ring).index;
  return best < 0 || (best + 1) % DARK_EVERY === 0 ? null : String(200_000_000 + best + 1);
}

/** A fixed structure of the truth lies this close to a reported detection (m): it was not separated. */
const STRUCTURE_REPORTED_M = 100;

/**
 * Issue 23 §5, "full IW scene ship job with all of the above", run as a user runs it: the
 * embedded service (SQLite, in-process worker) over an archive folder holding the scene and its
 * track's 5 earlier acquisitions (`ensureTrack`: bench/imagery-read.ts ensureBenchTrack for the
 * open-sea scene, ensureCoastTrack for the coastal one, bench/shipCoast.ts); the AIS CSV
 * of the scene's vessels uploaded through POST /api/v1/ais; then POST /api/v1/detect/ship with
 * scene_id and ais_id, waited for to completion. Wall time, CPU seconds of the process (worker
 * threads included) and peak RSS, over the job and per part: the ship module's run is wrapped
 * (the default registry's module, called unchanged) to note when detection ends (it asks for
 * the earlier acquisitions) and when the fixed-structure check ends (it returns); the worker's
 * log lines "AIS matched" and "job completed" end the AIS matching and the job.
 */
export async function benchShipJob(opts: {
  workDir: string;
  width: number;
  height: number;
  scenePath: string;
  ensureTrack: (workDir: string, width: number, height: number, count: number) => Promise<{ productPaths: string[]; generated: number }>;
  /** Jobs run one after the other by the one service (default 1): does a long-running worker's next job cost the same? */
  jobs?: number;
}): Promise<BenchShipJobResult> {
  const { width, height } = opts;
  const track = await benchStage(`generate ${EARLIER_DATES} earlier dates of the track`, (2 * EARLIER_DATES * width * height) / 1e6, () => opts.ensureTrack(opts.workDir, width, height, EARLIER_DATES));
  const trackStage = track.value.generated === 0 ? { ...track.stage, name: `${track.stage.name} (reused)`, mpxPerSecond: 0 } : track.stage;
  const sceneId = path.basename(opts.scenePath).replace(/\.SAFE$/, '');
  const truth = await truthShips(opts.scenePath);

  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sarwatch-bench-shipjob-'));
  const archiveDir = path.join(dataDir, 'archive');
  fs.mkdirSync(archiveDir, { recursive: true });
  for (const p of [opts.scenePath, ...track.value.productPaths]) fs.symlinkSync(p, path.join(archiveDir, path.basename(p)));

  // Part clocks: wall, CPU of all threads, peak RSS (sampled every 10 ms) per part.
  interface Part { name: string; t: number; cpu: number; peak: number }
  let parts: Part[] = [];
  const cpuNow = () => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1e6;
  };
  const mark = (name: string) => parts.push({ name, t: performance.now(), cpu: cpuNow(), peak: process.memoryUsage.rss() });
  let jobPeak = 0;
  const sampler = setInterval(() => {
    const rss = process.memoryUsage.rss();
    const current = parts.at(-1);
    if (current && rss > current.peak) current.peak = rss;
    if (rss > jobPeak) jobPeak = rss;
  }, 10);
  sampler.unref();

  const base = defaultRegistry();
  const ship = base.get('ship')!;
  const registry = createRegistry([
    ...[...base.values()].filter((m) => m.endpointId !== 'ship'),
    {
      endpointId: 'ship',
      run: async (request, ctx) => {
        mark('detection');
        const earlierAcquisitions = request.earlierAcquisitions;
        const timed = earlierAcquisitions
          ? {
              ...request,
              earlierAcquisitions: (limit: number, days: number) => {
                mark('fixed structures (5 earlier dates)');
                return earlierAcquisitions(limit, days);
              },
            }
          : request;
        const out = await ship.run(timed, ctx);
        mark('AIS matching');
        return out;
      },
    },
  ]);
  const logger = {
    level: 'info',
    stream: {
      write(line: string) {
        if (line.includes('"msg":"AIS matched"')) mark('quicklook + result stored');
        else if (line.includes('"msg":"job completed"')) mark('end');
      },
    },
  };

  const config = loadConfig({ SARWATCH_DATA_DIR: dataDir, PORT: '0', SARWATCH_SAMPLES_DIR: '', SARWATCH_DEMO_ARCHIVE: '0', SARWATCH_ARCHIVE_WATCH: '0' });
  const service = await startService(config, { queuePollMs: 100, registry, logger });
  const jobs = opts.jobs ?? 1;
  const pauseS = Number(process.env.SARWATCH_BENCH_JOB_PAUSE_S ?? 0);
  const round = (v: number, d: number) => Math.round(v * 10 ** d) / 10 ** d;
  const mb = (b: number) => Math.round(b / 2 ** 20);
  const stages: BenchShipJobResult['stages'] = [trackStage];
  const allDetails: Array<Record<string, unknown>> = [];
  try {
    const { accountId } = await createAccount(service.db, { name: 'bench', credits: 1_000_000 });
    const { apiKey } = await createApiKey(service.db, { accountId });
    const client = new SarwatchClient({ baseUrl: service.url, apiKey });
    const scene = await service.catalog.get(sceneId);
    if (!scene) throw new Error(`the archive did not index ${sceneId}`);
    const ais = benchAisCsv(truth.ships, truth.footprint, new Date(scene.startTime));
    const { ais_id } = await client.uploadAis(ais.csv);
    const upload = await client.waitForAisUpload(ais_id, { initialDelayMs: 50, maxDelayMs: 200, timeoutMs: 60_000 });
    if (upload.status !== 'ready') throw new Error(`the AIS upload ended ${upload.status}: ${upload.error}`);

    for (let k = 1; k <= jobs; k++) {
      // SARWATCH_BENCH_JOB_PAUSE_S: an idle worker between jobs (the pool's threads idle out after 30 s).
      if (k > 1 && pauseS > 0) await new Promise((r) => setTimeout(r, pauseS * 1000));
      parts = [];
      jobPeak = process.memoryUsage.rss();
      const threadsAtSubmit = threadCpuNow();
      mark('submitted → claimed, scene resolved');
      const submittedAt = parts.at(-1)!.t;
      const cpuAtSubmit = parts.at(-1)!.cpu;
      const { job_id } = await client.submit('detect', 'ship', { satellite_id: 'sentinel-1', scene_id: sceneId, ais_id } as never);
      let row;
      while (!['completed', 'failed'].includes((row = await service.db.selectFrom('jobs').select(['status', 'error_code', 'error_message']).where('id', '=', job_id).executeTakeFirstOrThrow()).status)) {
        await new Promise((r) => setTimeout(r, 100));
      }
      if (row.status !== 'completed') throw new Error(`the ship job failed: ${row.error_code} ${row.error_message}`);
      if (parts.at(-1)?.name !== 'end') mark('end');
      const threadCpu = threadCpuSplit(threadsAtSubmit, threadCpuNow());
      const load = os.loadavg()[0]!;
      const job = await client.getJob(job_id);
      const fc = (await client.downloadResult(job_id)) as { features: Array<{ geometry: { type: string; coordinates: number[][][] }; properties: Record<string, unknown> }> };
      const props = fc.features.map((f) => f.properties);
      const detections = fc.features.filter((f) => f.properties.detected !== false);
      // A match is its own when the MMSI is the one the bench gave the truth ship nearest the detection.
      const own = detections.filter((f) => f.properties.mmsi === ownMmsi(truth.ships, f.geometry.coordinates[0]!)).length;
      allDetails.push({
        earlierDates: track.value.productPaths.length,
        aisVessels: ais.vessels,
        aisFixes: ais.fixes,
        aisDarkInTruth: ais.dark,
        aisUnseenInside: ais.unseenInside,
        truthShips: truth.ships.length,
        truthStructures: truth.structures.length,
        shipsReported: detections.length,
        structuresReported: detections.filter((f) => nearestTo(truth.structures, f.geometry.coordinates[0]!).metres <= STRUCTURE_REPORTED_M).length,
        fixedStructureFalse: detections.filter((f) => f.properties.fixed_structure === false).length,
        fixedStructureTrue: detections.filter((f) => f.properties.fixed_structure === true).length,
        unflagged: detections.filter((f) => !('fixed_structure' in f.properties)).length,
        matched: detections.filter((f) => typeof f.properties.mmsi === 'string').length,
        matchedOwnVessel: own,
        dark: detections.filter((f) => f.properties.dark === true).length,
        aisUndetected: props.length - detections.length,
        warnings: job.warnings.map((w) => w.code),
        // The job's CPU seconds by thread (bench/threadCpu.ts): main, the pool threads it started, the rest.
        ...(threadCpu ? { threadCpu } : {}),
      });
      const end = parts.at(-1)!;
      const nth = jobs > 1 ? ` (job ${k} of ${jobs}, one service)` : '';
      stages.push(
        { name: `ship job: scene + ${EARLIER_DATES} earlier dates + AIS, submitted → completed${nth}`, seconds: round((end.t - submittedAt) / 1000, 2), mpxPerSecond: round((width * height) / 1e6 / ((end.t - submittedAt) / 1000), 1), peakRssMb: mb(jobPeak), cpuSeconds: round(end.cpu - cpuAtSubmit, 1), loadAverage: load },
        ...parts.slice(0, -1).map((p, i) => {
          const next = parts[i + 1]!;
          return { name: `  · ${p.name}`, seconds: round((next.t - p.t) / 1000, 2), mpxPerSecond: 0, peakRssMb: mb(p.peak), cpuSeconds: round(next.cpu - p.cpu, 2), loadAverage: load };
        }),
      );
    }
  } finally {
    clearInterval(sampler);
    await service.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  return { stages, details: jobs > 1 ? { jobs: allDetails } : allDetails[0]! };
}
