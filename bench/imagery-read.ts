/**
 * Imagery read benchmark: a full-size synthetic IW GRDH scene (25,000 × 16,700 px, VV+VH,
 * ~835 MB per polarisation, 1-row strips like ESA's) is generated once into `workDir`, then
 * read tile by tile through src/imagery (1024-px tiles, 32-px halo, block cache) as raw DN
 * and as σ0 with thermal-noise removal. Reports throughput (Mpx/s) and the peak resident
 * memory of each stage: reading must stay bounded however large the image.
 *
 *   node --import tsx bench/imagery-read.ts [workDir]     (default: $SARWATCH_BENCH_DIR or <tmp>/sarwatch-bench)
 */
import { readFile, stat, writeFile, mkdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { openSafeProduct, planTiles, readTiles, type ReadWindowOptions, type SafeBand } from '../src/imagery/index.ts';
import { demoPortSpecs, Random, trackAcquisitions, writeSafeGrd, type SafeGrdSpec, type ShipSpec, type SlickSpec } from '../src/synth/index.ts';

export interface BenchStage {
  name: string;
  seconds: number;
  mpxPerSecond: number;
  peakRssMb: number;
}

export interface BenchImageryReadOptions {
  workDir: string;
  /** Default 25,000 × 16,700 (a full IW GRDH scene). */
  width?: number;
  height?: number;
  /** Default 1024. */
  tileSize?: number;
}

export interface BenchImageryReadResult {
  stages: BenchStage[];
  productPath: string;
  width: number;
  height: number;
}

/**
 * Version of the generated scene: bump when src/synth changes what it writes (2: the
 * annotation carries orbit state vectors, per-swath PRFs and swath-merge bounds, and ghosts
 * sit where the detector looks for them). The ship and oil-slick suites reuse this scene.
 */
export const BENCH_VERSION = 2;

/** Peak RSS over a stage: sampled every 10 ms and whenever the stage calls `sample()`. */
function rssProbe(): { sample: () => void; stop: () => number } {
  let peak = process.memoryUsage.rss();
  const sample = () => {
    const rss = process.memoryUsage.rss();
    if (rss > peak) peak = rss;
  };
  const timer = setInterval(sample, 10);
  return {
    sample,
    stop: () => {
      clearInterval(timer);
      sample();
      return peak / (1024 * 1024);
    },
  };
}

/** Runs one timed stage: wall time, throughput and peak RSS. Shared by every bench suite. */
export async function benchStage<T>(name: string, megapixels: number, run: (sample: () => void) => Promise<T>): Promise<{ stage: BenchStage; value: T }> {
  const probe = rssProbe();
  const t0 = performance.now();
  const value = await run(probe.sample);
  const seconds = (performance.now() - t0) / 1000;
  const peakRssMb = probe.stop();
  return {
    stage: { name, seconds: round(seconds, 2), mpxPerSecond: megapixels > 0 ? round(megapixels / seconds, 1) : 0, peakRssMb: Math.round(peakRssMb) },
    value,
  };
}

function round(v: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(v * f) / f;
}

/** The bench scene's place and track: central North Sea, track 132 ascending. */
const BENCH_CENTER: [number, number] = [2.6, 55.2];
const BENCH_TRACK = { mission: 'S1A', relativeOrbit: 132, pass: 'ascending' } as const;
const DAY_MS = 86_400_000;

function benchSpans(width: number, height: number): { lonSpan: number; latSpan: number } {
  return {
    lonSpan: (width * 10) / (111_000 * Math.cos((BENCH_CENTER[1] * Math.PI) / 180)) / 2,
    latSpan: (height * 10) / 111_000 / 2,
  };
}

/** The bench scene's acquisition time (the pass of track 132 after 2024-07-01 at its south edge). */
function benchStart(latSpan: number): Date {
  return trackAcquisitions(BENCH_TRACK.mission, BENCH_TRACK.relativeOrbit, BENCH_TRACK.pass, BENCH_CENTER[1] - latSpan, new Date('2024-07-01T00:00:00Z'), 1)[0]!.time;
}

function randomShips(rng: Random, count: number, width: number, height: number): ShipSpec[] {
  const { lonSpan, latSpan } = benchSpans(width, height);
  return Array.from({ length: count }, (_, i) => ({
    id: `ship-${i + 1}`,
    lon: BENCH_CENTER[0] + rng.range(-0.85, 0.85) * lonSpan,
    lat: BENCH_CENTER[1] + rng.range(-0.85, 0.85) * latSpan,
    lengthM: Math.round(15 + 285 * rng.uniform() ** 2),
    headingDeg: Math.round(rng.range(0, 360)),
  }));
}

/** Open sea in the central North Sea (no land in 250 × 170 km), ships, slicks and calm patches. */
function benchSpec(width: number, height: number): SafeGrdSpec {
  const rng = new Random(2024, 'bench-scene');
  const center = BENCH_CENTER;
  const { lonSpan, latSpan } = benchSpans(width, height);
  const ships = randomShips(rng, 200, width, height);
  // Slick and calm-patch sizes scale with the scene so a small --size still holds them
  // (k = 1 at full size and above).
  const k = Math.min(1, width / 25_000 / 0.4);
  const slicks: SlickSpec[] = Array.from({ length: 4 }, (_, i) => {
    const lon = center[0] + rng.range(-0.7, 0.7) * lonSpan;
    const lat = center[1] + rng.range(-0.7, 0.7) * latSpan;
    return { id: `slick-${i + 1}`, path: [[lon, lat], [lon - 0.04 * k, lat - 0.02 * k], [lon - 0.09 * k, lat - 0.03 * k]], widthM: [150, 800] };
  });
  const start = benchStart(latSpan);
  return {
    seed: 2024,
    start,
    center,
    width,
    height,
    passDirection: 'ascending',
    wind: { speed: 7, directionDeg: 240 },
    lowWind: [
      { center: [center[0] - 0.3 * lonSpan, center[1] + 0.4 * latSpan], lengthM: 20_000 * k, widthM: 8000 * k, orientationDeg: 30 },
      { center: [center[0] + 0.5 * lonSpan, center[1] - 0.3 * latSpan], lengthM: 12_000 * k, widthM: 5000 * k, orientationDeg: 100 },
    ],
    ships,
    slicks,
  };
}

/** The bench scene of this size (imagery, ship and oil-slick suites), generated once and reused while its marker matches. */
export async function ensureBenchScene(workDir: string, width: number, height: number): Promise<{ productPath: string; reused: boolean }> {
  const markerPath = path.join(workDir, 'bench-imagery-read.json');
  try {
    const marker = JSON.parse(await readFile(markerPath, 'utf8')) as { version: number; width: number; height: number; productPath: string };
    if (marker.version === BENCH_VERSION && marker.width === width && marker.height === height && (await stat(marker.productPath)).isDirectory()) {
      return { productPath: marker.productPath, reused: true };
    }
  } catch {
    // no usable scene yet
  }
  await mkdir(workDir, { recursive: true });
  const { productPath } = await writeSafeGrd(workDir, benchSpec(width, height));
  await writeFile(markerPath, `${JSON.stringify({ version: BENCH_VERSION, width, height, productPath })}\n`);
  return { productPath, reused: false };
}

/** Version of the coastal bench scene (`ensureCoastScene`): bump when what it holds changes. It also follows BENCH_VERSION. */
export const COAST_VERSION = 1;

/** The demo archive's seed (src/cli/main.ts): the coastal scene is its port scene's first date, enlarged. */
export const COAST_SEED = 20240613;

/**
 * The coastal bench scene (bench/shipCoast.ts): the demo's port scene off IJmuiden on its first
 * date (`demoPortSpecs(COAST_SEED)[0]`: its ships, slick, wind farm and port surfaces) enlarged
 * to `width` × `height` px around the same centre, Natural Earth 1:10m land over the footprint
 * — the Dutch coast runs through it, so a share of its tiles hold a coast. Generated once into
 * `workDir` beside the open-sea scene and reused while its marker (bench-ship-coast.json) matches.
 */
export async function ensureCoastScene(workDir: string, width: number, height: number): Promise<{ productPath: string; reused: boolean }> {
  const markerPath = path.join(workDir, 'bench-ship-coast.json');
  try {
    const marker = JSON.parse(await readFile(markerPath, 'utf8')) as { version: number; coastVersion: number; width: number; height: number; productPath: string };
    if (
      marker.version === BENCH_VERSION &&
      marker.coastVersion === COAST_VERSION &&
      marker.width === width &&
      marker.height === height &&
      (await stat(marker.productPath)).isDirectory()
    ) {
      return { productPath: marker.productPath, reused: true };
    }
  } catch {
    // no usable scene yet
  }
  await mkdir(workDir, { recursive: true });
  const [spec] = demoPortSpecs(COAST_SEED, 1, { width, height });
  const { productPath } = await writeSafeGrd(workDir, spec);
  await writeFile(markerPath, `${JSON.stringify({ version: BENCH_VERSION, coastVersion: COAST_VERSION, width, height, productPath })}\n`);
  return { productPath, reused: false };
}

/**
 * Version of the bench scene's earlier acquisitions (`ensureBenchTrack`): bump when what they
 * hold changes. They also follow BENCH_VERSION (the writer's format).
 */
export const BENCH_TRACK_VERSION = 1;

/**
 * The bench scene's track before it: acquisition `k` (1 = newest) is the same footprint and
 * relative orbit `12·k` days earlier, open sea with 200 other ships (its own seeds), another
 * wind and no slicks. What a ship job compares its detections with (issue 23 §3).
 */
export function earlierBenchSpec(width: number, height: number, k: number): SafeGrdSpec {
  const rng = new Random(2024 + k, 'bench-scene-earlier');
  const { latSpan } = benchSpans(width, height);
  const ships = randomShips(rng, 200, width, height);
  const start = new Date(benchStart(latSpan).getTime() - 12 * k * DAY_MS - DAY_MS / 2);
  const pass = trackAcquisitions(BENCH_TRACK.mission, BENCH_TRACK.relativeOrbit, BENCH_TRACK.pass, BENCH_CENTER[1] - latSpan, start, 1)[0]!;
  return {
    seed: 2024 * 100 + k,
    start: pass.time,
    center: BENCH_CENTER,
    width,
    height,
    passDirection: 'ascending',
    wind: { speed: Math.round(rng.range(5, 10) * 10) / 10, directionDeg: Math.round(rng.range(0, 360)) },
    ships,
  };
}

/**
 * The `count` earlier acquisitions of the bench scene's track (newest first), generated once
 * beside the bench scene and reused while their marker (bench-ship-track.json) matches.
 * Returns their product paths and how many had to be generated.
 */
export function ensureBenchTrack(workDir: string, width: number, height: number, count: number): Promise<{ productPaths: string[]; generated: number }> {
  return ensureTrack(workDir, 'bench-ship-track.json', BENCH_TRACK_VERSION, width, height, count, (k) => earlierBenchSpec(width, height, k));
}

/** Version of the coastal scene's earlier acquisitions (`ensureCoastTrack`): bump when what they hold changes. */
export const COAST_TRACK_VERSION = 1;

/**
 * The coastal scene's track before it: acquisition `k` (1 = newest) is the same footprint, land,
 * port surfaces, wind farm and platform on track 161 `12·k` days earlier, another wind, no
 * slick, and the first date's vessels each somewhere else — moved 0.3–3 km in a random direction
 * with a random heading (its own seeds), as the traffic and the anchorage change from pass to
 * pass. The fixed structures stand on every date; a vessel is never within the 30 m of the
 * fixed-structure rule of its place on the scene (issue 23 §3).
 */
export function earlierCoastSpec(width: number, height: number, k: number): SafeGrdSpec {
  const [first] = demoPortSpecs(COAST_SEED, 1, { width, height });
  const rng = new Random(COAST_SEED + k, 'coast-scene-earlier');
  const ships = (first.ships ?? []).map((ship): ShipSpec => {
    const distanceM = rng.range(300, 3000);
    const bearing = rng.range(0, 2 * Math.PI);
    const mPerDegLat = 111_320;
    const mPerDegLon = mPerDegLat * Math.cos((ship.lat * Math.PI) / 180);
    return {
      ...ship,
      lon: Math.round((ship.lon + (distanceM * Math.sin(bearing)) / mPerDegLon) * 1e6) / 1e6,
      lat: Math.round((ship.lat + (distanceM * Math.cos(bearing)) / mPerDegLat) * 1e6) / 1e6,
      headingDeg: Math.round(rng.range(0, 360)),
    };
  });
  const firstStart = new Date(first.start).getTime();
  // Track 161's pass at the scene's south edge, as demoPortSpecs times the first date.
  const southEdgeLat = first.center[1] - (height * 10) / 2 / 111_000;
  const pass = trackAcquisitions('S1A', 161, 'ascending', southEdgeLat, new Date(firstStart - 12 * k * DAY_MS - DAY_MS / 2), 1)[0]!;
  const { slicks: _slicks, lowWind: _lowWind, ...rest } = first;
  return {
    ...rest,
    seed: COAST_SEED * 100 + k,
    start: pass.time,
    wind: { speed: Math.round(rng.range(5, 10) * 10) / 10, directionDeg: Math.round(rng.range(0, 360)) },
    ships,
  };
}

/**
 * The `count` earlier acquisitions of the coastal scene's track (newest first), generated once
 * beside the coastal scene and reused while their marker (bench-ship-coast-track.json) matches.
 */
export function ensureCoastTrack(workDir: string, width: number, height: number, count: number): Promise<{ productPaths: string[]; generated: number }> {
  return ensureTrack(workDir, 'bench-ship-coast-track.json', COAST_TRACK_VERSION, width, height, count, (k) => earlierCoastSpec(width, height, k));
}

/**
 * Earlier acquisitions `specOf(1 … count)` (newest first), each generated once into `workDir`
 * and kept in the marker after each product, so an interrupted run resumes where it stopped.
 */
async function ensureTrack(
  workDir: string,
  markerName: string,
  trackVersion: number,
  width: number,
  height: number,
  count: number,
  specOf: (k: number) => SafeGrdSpec,
): Promise<{ productPaths: string[]; generated: number }> {
  const markerPath = path.join(workDir, markerName);
  let known: string[] = [];
  try {
    const marker = JSON.parse(await readFile(markerPath, 'utf8')) as { version: number; trackVersion: number; width: number; height: number; productPaths: string[] };
    if (marker.version === BENCH_VERSION && marker.trackVersion === trackVersion && marker.width === width && marker.height === height) known = marker.productPaths;
  } catch {
    // none kept yet
  }
  await mkdir(workDir, { recursive: true });
  const productPaths: string[] = [];
  let generated = 0;
  for (let k = 1; k <= count; k++) {
    const kept = known[k - 1];
    if (kept && (await stat(kept).then((s) => s.isDirectory(), () => false))) {
      productPaths.push(kept);
      continue;
    }
    const { productPath } = await writeSafeGrd(workDir, specOf(k));
    productPaths.push(productPath);
    generated++;
    await writeFile(markerPath, `${JSON.stringify({ version: BENCH_VERSION, trackVersion, width, height, productPaths: [...productPaths, ...known.slice(k)] })}\n`);
  }
  return { productPaths, generated };
}

async function readAll(band: SafeBand, tileSize: number, options: ReadWindowOptions, sample: () => void): Promise<number> {
  const plan = planTiles(band.width, band.height, tileSize, 32);
  let checksum = 0;
  for await (const { data } of readTiles(plan, (w) => band.readWindow(w, options))) {
    // Touch the result so nothing is optimised away: one value per tile.
    checksum += data.data[data.data.length >> 1]!;
    sample();
  }
  return checksum;
}

/** Generate (or reuse) the full-size scene and time tiled reads of it. */
export async function benchImageryRead(opts: BenchImageryReadOptions): Promise<BenchImageryReadResult> {
  const width = opts.width ?? 25_000;
  const height = opts.height ?? 16_700;
  const tileSize = opts.tileSize ?? 1024;
  const megapixels = (width * height) / 1e6;
  const stages: BenchStage[] = [];

  const generated = await benchStage('generate IW GRDH VV+VH', 2 * megapixels, () => ensureBenchScene(opts.workDir, width, height));
  if (generated.value.reused) {
    stages.push({ ...generated.stage, name: 'generate IW GRDH VV+VH (reused)', mpxPerSecond: 0 });
  } else {
    stages.push(generated.stage);
  }
  const { productPath } = generated.value;

  const opened = await benchStage('open SAFE (manifest, annotation, LUTs)', 0, () => openSafeProduct(productPath));
  stages.push(opened.stage);
  const product = opened.value;
  try {
    const vv = product.bands.VV!;
    const vh = product.bands.VH!;
    const tiles = `${tileSize}-px tiles`;
    stages.push((await benchStage(`read DN VV, ${tiles}`, megapixels, (s) => readAll(vv, tileSize, { quantity: 'dn', denoise: false }, s))).stage);
    stages.push((await benchStage(`read σ0 VV denoised, ${tiles}`, megapixels, (s) => readAll(vv, tileSize, { quantity: 'sigma0', denoise: true }, s))).stage);
    stages.push((await benchStage(`read σ0 VH denoised, ${tiles}`, megapixels, (s) => readAll(vh, tileSize, { quantity: 'sigma0', denoise: true }, s))).stage);
  } finally {
    await product.close();
  }
  return { stages, productPath, width, height };
}

function printTable(result: BenchImageryReadResult): void {
  const rows = result.stages.map((s) => [s.name, s.seconds.toFixed(2), s.mpxPerSecond ? s.mpxPerSecond.toFixed(1) : '—', String(s.peakRssMb)]);
  const head = ['stage', 's', 'Mpx/s', 'peak RSS MB'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  console.log(`imagery read: ${result.width} × ${result.height} px IW GRDH (${path.basename(result.productPath)})`);
  console.log(line(head));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const r of rows) console.log(line(r));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const workDir = process.argv[2] ?? process.env.SARWATCH_BENCH_DIR ?? path.join(os.tmpdir(), 'sarwatch-bench');
  benchImageryRead({ workDir }).then(printTable, (error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
