/**
 * The one tile loop of the tiled detectors (ship, oil slick, building change): reads the plan's
 * tiles in order with bounded read-ahead, turns each into its tile task's input on this thread,
 * runs the task in this thread or on the shared analysis pool (pool.ts) with a bounded number
 * out at once, and hands the results to the detector's merge in plan order — so a result never
 * depends on which thread finished first, and equals the one-thread result bit for bit. With no
 * `read`, the task reads its own tile (its input names the tile and the product's source): this
 * thread then only plans, dispatches and merges, and its event loop stays free.
 *
 * The tasks run on the pool, or through `options.runner` (scaled out: tiles spread over every
 * worker process; docs/analysis-engine.md) — the merge order, and so the result, is the same.
 *
 * Abort and progress are the engine's too: an abort ends the loop at once (a read or task being
 * awaited is not waited for), no further task is dispatched, the signal goes to the pool (a
 * queued task is dropped, a running one's thread terminated), and progress is the share of
 * tiles merged.
 *
 * A detector is then its parameters, a tile task (a function of its own module's `threadTasks`,
 * src/threads/task.ts: run on the pool by its address, called directly in this thread) and a merge.
 */
import type { TransferListItem } from 'node:worker_threads';
import { readTiles, type Tile, type TilePlan } from '../../imagery/tiles.ts';
import type { PixelWindow } from '../../imagery/window.ts';
import { threadCall, type TaskFn, type TaskResult, type ThreadTask } from '../../threads/task.ts';
import type { TileRunner } from '../port.ts';
import { runTileCall } from './pool.ts';
import { addAnalysisCpu, cpuSince, threadCpuSeconds } from './cpu.ts';

/** A tile's task input (its buffers listed in `transfer` move to the worker, not copied) and what the merge keeps of the tile besides the task's result. */
export type TileInput<F extends TaskFn, K> =
  | { input: Parameters<F>[0]; transfer?: TransferListItem[]; keep: K }
  /** A tile that needs no task (e.g. land throughout): its result as given. */
  | { result: TaskResult<F>; keep: K };

/** What a detector runs on each tile. */
export interface TileTask<F extends TaskFn, D, K> {
  /** The task: an entry of its module's `threadTasks`, run on the pool (or the runner) by its address, called directly when no thread is asked for. */
  run: ThreadTask<F>;
  params: Parameters<F>[1];
  /** From a tile's read data (undefined when mapTiles has no `read`) to its task input, on this thread. */
  input(tile: Tile, data: D): TileInput<F, K>;
}

export interface MapTilesOptions {
  signal?: AbortSignal;
  /** After each tile merged: tiles merged so far and the plan's total. */
  onProgress?: (done: number, total: number) => void;
  /** Tile tasks out on the analysis pool at once; 0 (default): every task in this thread. */
  threads?: number;
  /** Reads in flight beyond the tile being turned into a task input (default 1). */
  prefetch?: number;
  /**
   * Where else the tasks may run (scaled out: any worker, through the queue): used instead of
   * the pool when `read` is null (the tasks read their own tiles) and the plan has at least
   * `runner.minTiles` tiles, with `runner.concurrency` tasks out at once.
   */
  runner?: TileRunner;
}

/** Where the calling thread's time went, ms: waiting for reads, making task inputs, running or waiting for tasks, merging. */
export interface TileTimings {
  read: number;
  input: number;
  tasks: number;
  merge: number;
}

interface Pending<R, K> {
  tile: Tile;
  keep: K;
  settled: boolean;
  failed: boolean;
  value?: R;
  error?: unknown;
  done: Promise<void>;
}

/** Reads no pixels on this thread: each tile's task reads its own (task.input gets the tile alone). */
export async function mapTiles<F extends TaskFn, K>(
  plan: TilePlan,
  read: null,
  task: TileTask<F, undefined, K>,
  merge: (tile: Tile, result: TaskResult<F>, keep: K) => void,
  options?: MapTilesOptions,
): Promise<TileTimings>;
export async function mapTiles<F extends TaskFn, D, K>(
  plan: TilePlan,
  read: (window: PixelWindow, tile: Tile) => Promise<D>,
  task: TileTask<F, D, K>,
  merge: (tile: Tile, result: TaskResult<F>, keep: K) => void,
  options?: MapTilesOptions,
): Promise<TileTimings>;
export async function mapTiles<F extends TaskFn, D, K>(
  plan: TilePlan,
  read: ((window: PixelWindow, tile: Tile) => Promise<D>) | null,
  task: TileTask<F, D, K>,
  merge: (tile: Tile, result: TaskResult<F>, keep: K) => void,
  options: MapTilesOptions = {},
): Promise<TileTimings> {
  const { signal } = options;
  const total = plan.tiles.length;
  const runner = read === null && options.runner && total >= options.runner.minTiles ? options.runner : null;
  const threads = runner ? Math.max(1, runner.concurrency) : Math.max(0, Math.floor(options.threads ?? 0));
  const dispatch = (input: Parameters<F>[0], transfer: TransferListItem[]): Promise<TaskResult<F>> => {
    const call = threadCall({ task: task.run, input, params: task.params });
    return (runner ? runner.run(call, signal) : runTileCall(call, transfer, signal)) as Promise<TaskResult<F>>;
  };
  const timings: TileTimings = { read: 0, input: 0, tasks: 0, merge: 0 };
  // Tiles not yet merged, in plan order. Results that finish out of order wait here for
  // their predecessors; at most 2 × threads tiles are held, so memory stays bounded.
  const pending: Pending<TaskResult<F>, K>[] = [];
  const cap = 2 * Math.max(1, threads);
  let running = 0;
  let merged = 0;

  const mergeSettled = (): void => {
    if (!(pending.length > 0 && pending[0]!.settled)) return;
    const started = performance.now();
    const cpu = threadCpuSeconds();
    try {
      mergeReady();
    } finally {
      addAnalysisCpu('merge', cpuSince(cpu));
      timings.merge += performance.now() - started;
    }
  };
  const mergeReady = (): void => {
    while (pending.length > 0 && pending[0]!.settled) {
      // An abort (the progress callback may raise it) merges nothing further, however many tiles have settled.
      signal?.throwIfAborted();
      const head = pending.shift()!;
      if (head.failed) {
        // An aborted job fails with its signal's reason, whichever tile noticed first.
        signal?.throwIfAborted();
        throw head.error;
      }
      merge(head.tile, head.value!, head.keep);
      merged++;
      options.onProgress?.(merged, total);
    }
  };
  const settle = (entry: Pending<TaskResult<F>, K>, ok: boolean, value: unknown): void => {
    entry.settled = true;
    entry.failed = !ok;
    if (ok) entry.value = value as TaskResult<F>;
    else entry.error = value;
  };
  const resolved = (tile: Tile, keep: K, value: TaskResult<F>): Pending<TaskResult<F>, K> => ({ tile, keep, settled: true, failed: false, value, done: Promise.resolve() });
  /** Waits until a task settles (the head, when the held tiles reach the cap). */
  // Rejects when the signal aborts: every wait below races it, so an abort ends the loop at once.
  const aborted = signal
    ? new Promise<never>((_, reject) => {
        if (signal.aborted) reject(signal.reason);
        else signal.addEventListener('abort', () => reject(signal.reason), { once: true });
      })
    : null;
  aborted?.catch(() => {}); // surfaced where it is raced
  const unlessAborted = <T>(p: Promise<T>): Promise<T> => (aborted ? Promise.race([p, aborted]) : p);
  const waitForTask = async (): Promise<void> => {
    const started = performance.now();
    const unsettled = pending.filter((p) => !p.settled);
    if (pending.length >= cap) await unlessAborted(pending[0]!.done);
    else await unlessAborted(Promise.race(unsettled.map((p) => p.done)));
    timings.tasks += performance.now() - started;
  };
  const tiles: AsyncIterator<{ tile: Tile; data: D }> = read
    ? readTiles(plan, read, { prefetch: options.prefetch ?? 1 })
    : (async function* () {
        for (const tile of plan.tiles) yield { tile, data: undefined as D };
      })();

  try {
    let clock = performance.now();
    for (;;) {
      signal?.throwIfAborted();
      const next = tiles.next();
      next.catch(() => {}); // a read still running when an abort ends the loop: its failure is moot
      const step = await unlessAborted(next);
      if (step.done) break;
      const { tile, data } = step.value;
      timings.read += performance.now() - clock;
      signal?.throwIfAborted();
      clock = performance.now();
      const prepared = task.input(tile, data);
      timings.input += performance.now() - clock;
      if ('result' in prepared) {
        pending.push(resolved(tile, prepared.keep, prepared.result));
      } else if (threads === 0) {
        clock = performance.now();
        const value = (await unlessAborted(Promise.resolve(task.run.run(prepared.input, task.params)))) as TaskResult<F>;
        timings.tasks += performance.now() - clock;
        pending.push(resolved(tile, prepared.keep, value));
      } else {
        const entry: Pending<TaskResult<F>, K> = { tile, keep: prepared.keep, settled: false, failed: false, done: Promise.resolve() };
        running++;
        // `done` never rejects: a failure is kept on the entry and thrown when merging reaches it.
        entry.done = dispatch(prepared.input, prepared.transfer ?? []).then(
          (value) => settle(entry, true, value),
          (error: unknown) => settle(entry, false, error),
        ).finally(() => running--);
        pending.push(entry);
      }
      mergeSettled();
      while (running >= Math.max(1, threads) || pending.length >= cap) {
        if (pending.every((p) => p.settled)) break;
        await waitForTask();
        signal?.throwIfAborted();
        mergeSettled();
      }
      clock = performance.now();
    }
    while (pending.length > 0) {
      if (!pending[0]!.settled) await waitForTask();
      mergeSettled();
    }
  } catch (error) {
    // No task is left running behind a failure or an abort (an aborted task's promise settles
    // at once: the pool drops or terminates it).
    await Promise.all(pending.map((p) => p.done));
    throw error;
  }
  return timings;
}
