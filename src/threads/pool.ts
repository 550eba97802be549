/**
 * src/threads/: a pool of worker threads (piscina) that runs ThreadCalls — any module's
 * `threadTasks`, run by worker.ts. The analysis pool (analysis/engine/pool.ts) and the request
 * geometry thread (geometryThread.ts; jobs/geometry/pool.ts and uploads/ use it) are two of these, sized differently.
 */
import type { TransferListItem } from 'node:worker_threads';
import { Piscina } from 'piscina';
import { isThrownData, threadCall, type TaskCall, type TaskFn, type TaskResult, type ThreadCall, type ThrownData } from './task.ts';

export interface ThreadPoolOptions {
  minThreads: number;
  maxThreads: number;
  /** ms a thread stays idle before it ends. */
  idleTimeout: number;
}

/** Makes the caller's error back from what a thread threw (its class and code); a plain Error by default. */
export type ReviveError = (data: ThrownData) => Error;

export function plainError(data: ThrownData): Error {
  const e = new Error(data.message);
  if (data.stack) e.stack = data.stack;
  return e;
}

export class ThreadPool {
  private pool: Piscina | null = null;

  /** `options` are read when the threads are first needed (after a close, again). */
  constructor(
    private readonly options: () => ThreadPoolOptions,
    private readonly revive: ReviveError = plainError,
  ) {}

  private piscina(): Piscina {
    this.pool ??= new Piscina({
      filename: new URL('./worker-entry.mjs', import.meta.url).href,
      ...this.options(),
      // Tasks that read images load geotiff, which imports the web-worker package; on a worker
      // thread that package destructures workerData, which must then be an object (undefined
      // fails at import; {} makes it the plain module it is on the main thread).
      workerData: {},
    });
    return this.pool;
  }

  /**
   * Runs one call on a thread; `transfer` lists buffers (or ports) to move, not copy. Aborting
   * `signal` rejects it at once: a queued call is dropped, a running one has its thread
   * terminated (piscina starts a fresh one).
   */
  runCall(call: ThreadCall, transfer: TransferListItem[] = [], signal?: AbortSignal): Promise<unknown> {
    return (this.piscina().run(call, { transferList: transfer, signal }) as Promise<unknown>).catch((e: unknown) => {
      throw isThrownData(e) ? this.revive(e) : e;
    });
  }

  /** Runs `call.task` on a thread: its input, parameters and result typed by the task's function. */
  run<F extends TaskFn>(call: TaskCall<F>, transfer: TransferListItem[] = [], signal?: AbortSignal): Promise<TaskResult<F>> {
    return this.runCall(threadCall(call), transfer, signal) as Promise<TaskResult<F>>;
  }

  /** Starts the pool's threads now (its minThreads of them), not at the first call. */
  start(): void {
    this.piscina();
  }

  /** Threads running now (none before the first call or start()). */
  get threadCount(): number {
    return this.pool?.threads.length ?? 0;
  }

  /** Stops the threads (shutdown, tests); the next call starts new ones. */
  async close(): Promise<void> {
    const p = this.pool;
    this.pool = null;
    if (p) await p.destroy();
  }
}
