/**
 * Oil-slick benchmark: `detectSlicksInSafe` (default workers) on the full-size generated IW
 * GRDH scene (25,000 × 16,700 px, VV read; `--size WxH` for others), the same scene as
 * bench/ship.ts. Reports wall time, throughput and peak RSS (sampled every 10 ms), the CPU
 * seconds of all threads (the steadier figure on a shared machine) and the load average over
 * the run, then the job's quicklook (bench/quicklook.ts) from the detector's pooled copy as the
 * worker asks for it, and for comparison the strided read's right after (an uploaded image's).
 */
import os from 'node:os';
import { detectSlicksInSafeDetailed } from '../src/analysis/oilslick/index.ts';
import { quicklookBlocksFor } from '../src/worker/quicklook.ts';
import { benchStage } from './imagery-read.ts';
import { quicklookStage } from './quicklook.ts';
import { sceneStage, truthCount, type BenchAnalysisResult } from './ship.ts';

export async function benchOilSlicks(opts: { workDir: string; width?: number; height?: number }): Promise<BenchAnalysisResult> {
  const width = opts.width ?? 25_000;
  const height = opts.height ?? 16_700;
  const scene = await sceneStage(opts.workDir, width, height);
  const load0 = os.loadavg()[0]!;
  const cpu0 = process.cpuUsage();
  // The quicklook's blocks as the worker asks for them (src/worker/quicklook.ts).
  const quicklookBlocks = quicklookBlocksFor('oilslick', { kind: 'scene', scene: {} as never })!;
  const detected = await benchStage('detect slicks (VV)', (width * height) / 1e6, () => detectSlicksInSafeDetailed(scene.productPath, { quicklookBlocks }));
  const cpu = process.cpuUsage(cpu0);
  const load = `${load0.toFixed(1)} → ${os.loadavg()[0]!.toFixed(1)}`;
  const part = (name: string, seconds: number) => ({ name, seconds: Math.round(seconds * 100) / 100, mpxPerSecond: 0, peakRssMb: detected.stage.peakRssMb });
  const job = { seconds: detected.stage.seconds, cpuSeconds: (cpu.user + cpu.system) / 1e6 };
  const { collection, quicklookCopy } = detected.value;
  const quicklook = await quicklookStage('oilslick', scene.productPath, collection, job, quicklookCopy);
  // For comparison, the strided read's quicklook right after: second of the process, so its modules are warm.
  const strided = quicklookCopy ? [await quicklookStage('oilslick', scene.productPath, collection, job)] : [];
  return {
    stages: [scene.stage, detected.stage, part(`  CPU seconds, all threads (load average ${load})`, (cpu.user + cpu.system) / 1e6), quicklook, ...strided],
    productPath: scene.productPath,
    width,
    height,
    found: collection.features.length,
    truth: await truthCount(scene.productPath, 'oilslick'),
  };
}
