/**
 * A job's quicklook as the worker makes it after the analysis (src/analysis/quicklook: the
 * strided read on the analysis pool, resampling and PNG encoding there), timed right after the
 * detector it follows: its wall and CPU seconds (all threads) and its share of the job's
 * (detection + quicklook), wall and CPU — issue 22's "at most a few percent of the job's time".
 * bench/ship.ts, oilslick.ts, change.ts (newbuilding) and timeseries.ts (the deviation map) add
 * this row; `npm run bench -- --only quicklook` runs those four and shows only these rows.
 */
import os from 'node:os';
import { makeQuicklook, type QuicklookRequest } from '../src/analysis/quicklook/index.ts';
import type { PooledBlocks, ResultCollection } from '../src/analysis/port.ts';
import type { SceneRecord } from '../src/catalog/types.ts';
import { benchStage, type BenchStage } from './imagery-read.ts';

export interface QuicklookBenchStage extends BenchStage {
  cpuSeconds: number;
  loadAverage: number;
}

/** The job the quicklook follows: its wall and CPU seconds (all threads). */
export interface JobTime {
  seconds: number;
  cpuSeconds: number;
}

/** Marks the rows `--only quicklook` keeps (the detections they follow are kept by name: see bench/run.ts). */
export const QUICKLOOK_ROW = 'quicklook';

/** The quicklook of `request`, timed after `job`: its row, named with its share of the job's wall and CPU time. */
export async function quicklookRow(request: QuicklookRequest, job: JobTime, label = 'quicklook + overlay'): Promise<QuicklookBenchStage> {
  const cpu0 = process.cpuUsage();
  const made = await benchStage(label, 0, () => makeQuicklook(request));
  const cpu = process.cpuUsage(cpu0);
  const images = made.value!;
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  const share = (q: number, j: number) => `${((100 * q) / (j + q)).toFixed(1)} %`;
  const kb = Math.round((images.quicklook.length + (images.overlay?.png.length ?? 0)) / 1024);
  return {
    ...made.stage,
    name: `${QUICKLOOK_ROW}: ${label} (${kb} KiB): ${share(made.stage.seconds, job.seconds)} of the job's wall, ${share(cpuSeconds, job.cpuSeconds)} of its CPU`,
    cpuSeconds: Math.round(cpuSeconds * 100) / 100,
    loadAverage: Math.round(os.loadavg()[0]! * 100) / 100,
  };
}

/** A full-scene (scene_id) ship or oil job's quicklook of the SAFE product at `productPath`. */
export function quicklookStage(endpointId: 'ship' | 'oilslick', productPath: string, result: ResultCollection, job: JobTime, pooled?: PooledBlocks): Promise<QuicklookBenchStage> {
  // What the worker reads of the scene's catalog record: the SAFE product's location.
  const scene = { assets: { product: { href: productPath } } } as unknown as SceneRecord;
  // ship: the detector's pooled copy, as the worker hands it over (no second read of the scene).
  return quicklookRow({ endpointId, family: 'analyze', input: { kind: 'scene', scene }, result, ...(pooled ? { pooled } : {}) }, job, pooled ? 'quicklook + overlay, pooled copy' : 'quicklook + overlay, strided read');
}
