/**
 * Ship detection benchmark: `detectShipsInProduct` (worker threads = analysisThreads()) on the
 * full-size generated IW GRDH scene (25,000 × 16,700 px, VV+VH; `--size WxH` for others).
 * Reports wall time, throughput and peak RSS (sampled every 10 ms, worker threads included:
 * they share the process), then the job's quicklook (bench/quicklook.ts).
 *
 * The scene: bench/imagery-read.ts's (200 ships, 4 slicks, 2 calm patches on open North Sea),
 * generated once into the work dir and reused while its marker (bench-imagery-read.json)
 * matches the size. bench/oilslick.ts uses the same scene.
 */
import { readFile } from 'node:fs/promises';
import { analysisThreads, closeAnalysisPool } from '../src/analysis/engine/pool.ts';
import { detectShipsInProduct } from '../src/analysis/ship/index.ts';
import { openSafeProduct } from '../src/imagery/index.ts';
import { benchStage, ensureBenchScene, type BenchStage } from './imagery-read.ts';
import { quicklookStage } from './quicklook.ts';

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
      part('  · tile inputs: masks, calibration (main thread)', t.input),
      part('  · waiting for tile detection', t.detect),
      part('  · ambiguities + polygons', t.ambiguity + t.vectorize),
      part('  CPU seconds, all threads', (cpu.user + cpu.system) / 1000),
    ];
    const quicklook = await quicklookStage('ship', scene.productPath, detected.value.result, detected.stage.seconds);
    return {
      stages: [scene.stage, detected.stage, ...parts, quicklook],
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
