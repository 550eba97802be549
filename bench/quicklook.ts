/**
 * The quicklook of a full-scene job, as the worker makes it after the analysis
 * (src/analysis/quicklook: strided read of the scene, resampling and PNG encoding on the
 * analysis pool), timed after the detector on the same scene: its seconds and its share of the
 * job (detection + quicklook). bench/ship.ts and bench/oilslick.ts add this row.
 */
import { makeQuicklook } from '../src/analysis/quicklook/index.ts';
import type { ResultCollection } from '../src/analysis/port.ts';
import type { SceneRecord } from '../src/catalog/types.ts';
import { benchStage, type BenchStage } from './imagery-read.ts';

export async function quicklookStage(endpointId: 'ship' | 'oilslick', productPath: string, result: ResultCollection, jobSeconds: number): Promise<BenchStage> {
  // What the worker reads of the scene's catalog record: the SAFE product's location.
  const scene = { assets: { product: { href: productPath } } } as unknown as SceneRecord;
  const cpu0 = process.cpuUsage();
  const made = await benchStage('quicklook', 0, () => makeQuicklook({ endpointId, family: 'analyze', input: { kind: 'scene', scene }, result }));
  const cpu = process.cpuUsage(cpu0);
  const images = made.value!;
  const share = (100 * made.stage.seconds) / (jobSeconds + made.stage.seconds);
  const kb = Math.round((images.quicklook.length + (images.overlay?.png.length ?? 0)) / 1024);
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  return { ...made.stage, name: `quicklook + overlay (${kb} KiB, CPU ${cpuSeconds.toFixed(2)} s): ${share.toFixed(1)} % of the job` };
}
