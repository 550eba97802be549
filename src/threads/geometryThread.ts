/**
 * src/threads/: the geometry thread — one worker thread for the heavy part of a request (a
 * large polygon's geometry, an uploaded polygon file or image read), separate from the analysis
 * pool so a request never queues behind a detector's tiles. Idle, it ends and does not keep the
 * process alive. Its callers hand it their own modules' thread tasks (task.ts).
 */
import type { TransferListItem } from 'node:worker_threads';
import { ThreadPool } from './pool.ts';
import type { TaskCall, TaskFn, TaskResult } from './task.ts';

const thread = new ThreadPool(() => ({ minThreads: 0, maxThreads: 1, idleTimeout: 60_000 }));

/** Runs `call.task` on the geometry thread. */
export function onGeometryThread<F extends TaskFn>(call: TaskCall<F>, transfer: TransferListItem[] = []): Promise<TaskResult<F>> {
  return thread.run(call, transfer);
}

/** Stops the geometry thread (tests, shutdown). */
export function closeGeometryThread(): Promise<void> {
  return thread.close();
}
