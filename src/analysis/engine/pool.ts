/**
 * One pool of worker threads for tile-parallel analysis (piscina). Sized to the machine's
 * cores by default (SARWATCH_ANALYSIS_THREADS overrides); created on first use, shared by all
 * jobs of the process, so concurrent jobs share the cores instead of oversubscribing them.
 */
import os from 'node:os';
import type { TransferListItem } from 'node:worker_threads';
import { Piscina } from 'piscina';
import type { TileTask, TileTaskName, TileTaskResult } from './tasks.ts';

let pool: Piscina | null = null;

export function analysisThreads(): number {
  const configured = Number(process.env.SARWATCH_ANALYSIS_THREADS);
  if (Number.isInteger(configured) && configured > 0) return configured;
  return Math.max(1, os.availableParallelism?.() ?? os.cpus().length);
}

function getPool(): Piscina {
  if (!pool) {
    pool = new Piscina({
      filename: new URL('./worker-entry.mjs', import.meta.url).href,
      minThreads: 1,
      maxThreads: analysisThreads(),
      idleTimeout: 30_000,
      // Tasks that read their own tiles load src/imagery, whose geotiff imports the web-worker
      // package; on a worker thread that package destructures workerData, which must then be an
      // object (undefined fails at import; {} makes it the plain module it is on the main thread).
      workerData: {},
    });
  }
  return pool;
}

/**
 * Runs one task of the table in tasks.ts on a worker thread; `transfer` lists buffers (or ports) to move, not
 * copy. Aborting `signal` rejects the task at once: a queued task is dropped, a running one
 * has its thread terminated (piscina starts a fresh one), so a job's analysis stops promptly.
 */
export function runTileTask<N extends TileTaskName>(task: TileTask<N>, transfer: TransferListItem[] = [], signal?: AbortSignal): Promise<TileTaskResult<N>> {
  return getPool().run(task, { transferList: transfer, signal }) as Promise<TileTaskResult<N>>;
}

/** Stops the worker threads (process shutdown, tests). */
export async function closeAnalysisPool(): Promise<void> {
  const p = pool;
  pool = null;
  if (p) await p.destroy();
}
