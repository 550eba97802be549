/**
 * One pool of worker threads for tile-parallel analysis (src/threads/pool.ts). Sized to the
 * machine's cores by default (SARWATCH_ANALYSIS_THREADS overrides); created on first use, shared
 * by all jobs of the process, so concurrent jobs share the cores instead of oversubscribing them.
 * It runs any module's `threadTasks` (the caller hands it the task), so it imports no detector.
 */
import os from 'node:os';
import type { TransferListItem } from 'node:worker_threads';
import { ThreadPool } from '../../threads/pool.ts';
import { reviveError } from './revive.ts';
import { threadCall, type TaskCall, type TaskFn, type TaskResult, type ThreadCall } from '../../threads/task.ts';
import { addAnalysisCpu } from './cpu.ts';
import { threadTasks as measuredTasks, type Measured } from './measuredTask.ts';

export function analysisThreads(): number {
  const configured = Number(process.env.SARWATCH_ANALYSIS_THREADS);
  if (Number.isInteger(configured) && configured > 0) return configured;
  return Math.max(1, os.availableParallelism?.() ?? os.cpus().length);
}

/** Every thread kept running (keepAnalysisThreadsWarm), or only one while idle. */
let warm = false;

const pool = new ThreadPool(() => ({ minThreads: warm ? analysisThreads() : 1, maxThreads: analysisThreads(), idleTimeout: 30_000 }), reviveError);

/**
 * A process that runs other processes' tiles (a scaled-out worker: queue/tiles.ts) keeps all
 * its analysis threads running from now on, so a fanned-out job does not pay each thread's
 * start and first module loads again after 30 s of idleness. Takes effect on a pool not yet
 * started (or the next one after a close).
 */
export function keepAnalysisThreadsWarm(): void {
  warm = true;
  pool.start();
}

/**
 * Runs one tile task on a thread of the pool; `transfer` lists buffers (or ports) to move, not
 * copy. Aborting `signal` rejects the task at once: a queued task is dropped, a running one
 * has its thread terminated (piscina starts a fresh one), so a job's analysis stops promptly.
 */
export function runTileTask<F extends TaskFn>(call: TaskCall<F>, transfer: TransferListItem[] = [], signal?: AbortSignal): Promise<TaskResult<F>> {
  return runTileCall(threadCall(call), transfer, signal) as Promise<TaskResult<F>>;
}

/**
 * Runs a call that came as data (a tile message of the queue, scaled out) on the pool. Every
 * call runs inside measuredTask.ts, which hands back the thread's CPU time beside the result
 * (this process's analysisCpu, cpu.ts).
 */
export async function runTileCall(call: ThreadCall, transfer: TransferListItem[] = [], signal?: AbortSignal): Promise<unknown> {
  const out = (await pool.run({ task: measuredTasks.measured, input: call }, transfer, signal)) as Measured;
  addAnalysisCpu('taskModules', out.moduleCpu);
  addAnalysisCpu('tileTasks', out.taskCpu);
  return out.value;
}

/** Stops the worker threads (process shutdown, tests). */
export function closeAnalysisPool(): Promise<void> {
  return pool.close();
}
