/**
 * Ship detection benchmark: `detectShipsInProduct` (worker threads = analysisThreads()) on the
 * full-size generated IW GRDH scene (25,000 × 16,700 px, VV+VH; `--size WxH` for others).
 * Reports wall time, throughput and peak RSS (sampled every 10 ms, worker threads included:
 * they share the process).
 *
 * The scene: imagery-read's cached scene when its marker (bench-imagery-read.json) matches
 * the size; otherwise this file's own scene (200 ships, 4 slicks, 2 calm patches on open
 * North Sea), generated once into the work dir and recorded in bench-analysis-scene.json.
 * bench/oilslick.ts uses the same scene.
 */
import { readFile, stat, writeFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { analysisThreads, closeAnalysisPool } from '../src/analysis/engine/pool.ts';
import { detectShipsInProduct } from '../src/analysis/ship/index.ts';
import { openSafeProduct } from '../src/imagery/index.ts';
import { Random, trackAcquisitions, writeSafeGrd, type SafeGrdSpec, type ShipSpec, type SlickSpec } from '../src/synth/index.ts';
import { BENCH_VERSION as IMAGERY_BENCH_VERSION, benchStage, type BenchStage } from './imagery-read.ts';

// 2: the annotation carries the orbit and swath-merge bounds; ghosts at the orbit's speed.
const SCENE_VERSION = 2;

export interface BenchAnalysisResult {
  stages: BenchStage[];
  productPath: string;
  width: number;
  height: number;
  /** Features in the result, and the truth objects of the relevant kind in the scene. */
  found: number;
  truth: number;
}


/** Open central North Sea (no land in 250 × 170 km): ships 15–300 m, slicks, calm patches. */
function analysisSpec(width: number, height: number): SafeGrdSpec {
  const rng = new Random(2025, 'bench-analysis-scene');
  const center: [number, number] = [2.6, 55.2];
  const lonSpan = (width * 10) / (111_000 * Math.cos((center[1] * Math.PI) / 180)) / 2;
  const latSpan = (height * 10) / 111_000 / 2;
  const ships: ShipSpec[] = Array.from({ length: 200 }, (_, i) => ({
    id: `ship-${i + 1}`,
    lon: center[0] + rng.range(-0.85, 0.85) * lonSpan,
    lat: center[1] + rng.range(-0.85, 0.85) * latSpan,
    lengthM: Math.round(15 + 285 * rng.uniform() ** 2),
    headingDeg: Math.round(rng.range(0, 360)),
  }));
  // Slick size in degrees scales with the scene so a small --size still holds them.
  const k = Math.min(1, width / 25_000 / 0.4);
  const slicks: SlickSpec[] = Array.from({ length: 4 }, (_, i) => {
    const lon = center[0] + rng.range(-0.6, 0.6) * lonSpan;
    const lat = center[1] + rng.range(-0.6, 0.6) * latSpan;
    return { id: `slick-${i + 1}`, path: [[lon, lat], [lon - 0.04 * k, lat - 0.02 * k], [lon - 0.09 * k, lat - 0.03 * k]], widthM: [150, 600] };
  });
  const start = trackAcquisitions('S1A', 132, 'ascending', center[1] - latSpan, new Date('2024-07-01T00:00:00Z'), 1)[0]!.time;
  return {
    seed: 2025,
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

interface Marker {
  version: number;
  width: number;
  height: number;
  productPath: string;
}

async function usable(markerPath: string, version: number, width: number, height: number): Promise<string | null> {
  try {
    const m = JSON.parse(await readFile(markerPath, 'utf8')) as Marker;
    if (m.version === version && m.width === width && m.height === height && (await stat(m.productPath)).isDirectory()) return m.productPath;
  } catch {
    // none
  }
  return null;
}

/** The VV+VH scene of the given size: imagery-read's if cached, else ours (generated once). */
export async function ensureAnalysisScene(workDir: string, width: number, height: number): Promise<{ productPath: string; reused: boolean }> {
  const imagery = await usable(path.join(workDir, 'bench-imagery-read.json'), IMAGERY_BENCH_VERSION, width, height);
  if (imagery) return { productPath: imagery, reused: true };
  const markerPath = path.join(workDir, 'bench-analysis-scene.json');
  const own = await usable(markerPath, SCENE_VERSION, width, height);
  if (own) return { productPath: own, reused: true };
  await mkdir(workDir, { recursive: true });
  const { productPath } = await writeSafeGrd(workDir, analysisSpec(width, height));
  await writeFile(markerPath, `${JSON.stringify({ version: SCENE_VERSION, width, height, productPath })}\n`);
  return { productPath, reused: false };
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
  const generated = await benchStage('generate IW GRDH VV+VH', (2 * width * height) / 1e6, () => ensureAnalysisScene(workDir, width, height));
  const stage = generated.value.reused ? { ...generated.stage, name: 'generate IW GRDH VV+VH (reused)', mpxPerSecond: 0 } : generated.stage;
  return { stage, productPath: generated.value.productPath };
}

export async function benchShips(opts: { workDir: string; width?: number; height?: number }): Promise<BenchAnalysisResult & { threads: number }> {
  const width = opts.width ?? 25_000;
  const height = opts.height ?? 16_700;
  const scene = await sceneStage(opts.workDir, width, height);
  const threads = analysisThreads();
  try {
    const cpu0 = process.cpuUsage();
    const detected = await benchStage(`detect ships (${threads} threads)`, (width * height) / 1e6, async () => {
      const product = await openSafeProduct(scene.productPath);
      try {
        return await detectShipsInProduct(product, { threads });
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
      part('  · land mask (main thread)', t.landMask),
      part('  · waiting for tile detection', t.detect),
      part('  · ambiguities + polygons', t.ambiguity + t.vectorize),
      part('  CPU seconds, all threads', (cpu.user + cpu.system) / 1000),
    ];
    return {
      stages: [scene.stage, detected.stage, ...parts],
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
