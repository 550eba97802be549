/**
 * Oil-slick benchmark: `detectSlicksInSafe` (default workers) on the full-size generated IW
 * GRDH scene (25,000 × 16,700 px, VV read; `--size WxH` for others), the same scene as
 * bench/ship.ts. Reports wall time, throughput and peak RSS (sampled every 10 ms), then the
 * job's quicklook (bench/quicklook.ts).
 */
import { detectSlicksInSafe } from '../src/analysis/oilslick/index.ts';
import { benchStage } from './imagery-read.ts';
import { quicklookStage } from './quicklook.ts';
import { sceneStage, truthCount, type BenchAnalysisResult } from './ship.ts';

export async function benchOilSlicks(opts: { workDir: string; width?: number; height?: number }): Promise<BenchAnalysisResult> {
  const width = opts.width ?? 25_000;
  const height = opts.height ?? 16_700;
  const scene = await sceneStage(opts.workDir, width, height);
  const detected = await benchStage('detect slicks (VV)', (width * height) / 1e6, () => detectSlicksInSafe(scene.productPath));
  const quicklook = await quicklookStage('oilslick', scene.productPath, detected.value, detected.stage.seconds);
  return {
    stages: [scene.stage, detected.stage, quicklook],
    productPath: scene.productPath,
    width,
    height,
    found: detected.value.features.length,
    truth: await truthCount(scene.productPath, 'oilslick'),
  };
}
