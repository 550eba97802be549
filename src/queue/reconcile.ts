/**
 * Closes the gap between the store and the queue: a job committed as `pending` whose
 * enqueue never happened (the API process died in between), or that recovery put back to
 * `pending` after its worker died, is enqueued again. Enqueueing is idempotent by job id,
 * so running this in several processes at once is harmless; one at a time is enough.
 */
import type { Db } from '../store/index.ts';
import type { JobQueue } from './port.ts';
import { deliveryId } from './bullmq.ts';

export interface ReconcilableQueue extends JobQueue {
  /** Delivery ids (see deliveryId) waiting or running in the queue. */
  queuedDeliveries(): Promise<Set<string>>;
}

/** Enqueues pending jobs older than `graceMs` that the queue lacks; returns their ids. */
export async function reconcileQueue(db: Db, queue: ReconcilableQueue, opts: { graceMs?: number; batch?: number } = {}): Promise<string[]> {
  const before = new Date(Date.now() - (opts.graceMs ?? 5000)).toISOString();
  const pending = await db
    .selectFrom('jobs')
    .select(['id', 'attempts'])
    .where('status', '=', 'pending')
    .where('updated_at', '<', before)
    .orderBy('created_at')
    .limit(opts.batch ?? 1000)
    .execute();
  if (pending.length === 0) return [];
  const queued = await queue.queuedDeliveries();
  const missing = pending.filter((r) => !queued.has(deliveryId(r.id, r.attempts)));
  for (const r of missing) await queue.enqueue(r.id, r.attempts);
  return missing.map((r) => r.id);
}
