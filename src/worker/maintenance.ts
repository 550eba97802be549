/**
 * Background duties of a worker process: lease-based recovery of jobs whose worker died
 * (every process may run it: each change is guarded), the retention sweep (result objects,
 * and the progress events of ended jobs) and the queue reconciler (one process at a time
 * each, under a store lease).
 */
import type { Db } from '../store/index.ts';
import type { ObjectStore } from '../objects/port.ts';
import { runExclusive } from '../store/leases.ts';
import { recoverInterruptedJobs } from '../jobs/transitions.ts';
import { sweepExpiredResults } from './retention.ts';
import { pruneJobEvents } from './pruneJobEvents.ts';
import { tilePrefix } from '../queue/tiles.ts';
import type { Logger } from '../logger.ts';

export interface MaintenanceDeps {
  db: Db;
  objects: ObjectStore;
  log: Logger;
  /** Names this process as a lease holder. */
  owner: string;
  leaseSeconds: number;
  maxJobAttempts: number;
  sweepIntervalSeconds: number;
  /** Told of the jobs recovery failed with JOB_INTERRUPTED (the metrics). */
  onInterrupted?: (jobIds: string[]) => void;
  /** Enqueues pending jobs the queue lacks (BullMQ), one process at a time. */
  reconcile?: { run: () => Promise<unknown>; intervalSeconds: number } | null;
}

export const SWEEPER_LEASE = 'retention-sweeper';
export const RECONCILER_LEASE = 'queue-reconciler';

/** Starts the timers; the returned function stops them. */
export function startMaintenance(d: MaintenanceDeps): () => void {
  const recover = () =>
    recoverInterruptedJobs(d.db, { maxAttempts: d.maxJobAttempts }).then(
      (r) => {
        if (r.requeued.length || r.failed.length) d.log.info(r, 'recovered interrupted jobs');
        if (r.failed.length) d.onInterrupted?.(r.failed);
        // Their coordinators died: the results of their fanned-out tiles (scaled out) go with them.
        for (const jobId of r.failed) void d.objects.deletePrefix(tilePrefix(jobId)).catch((e) => d.log.error({ jobId, err: String(e) }, 'tile results not deleted'));
      },
      (e) => d.log.error({ err: String(e) }, 'job recovery failed'),
    );
  const sweep = () =>
    runExclusive(d.db, SWEEPER_LEASE, d.owner, Math.max(30, d.sweepIntervalSeconds * 2), async () => {
      await sweepExpiredResults(d.db, d.objects);
      await pruneJobEvents(d.db);
    }).catch((e) =>
      d.log.error({ err: String(e) }, 'retention sweep failed'),
    );
  const reconcile = d.reconcile;
  const reconciler = reconcile
    ? setInterval(() => {
        void runExclusive(d.db, RECONCILER_LEASE, d.owner, Math.max(30, reconcile.intervalSeconds * 2), reconcile.run).catch((e) =>
          d.log.error({ err: String(e) }, 'queue reconciliation failed'),
        );
      }, reconcile.intervalSeconds * 1000)
    : null;
  reconciler?.unref();
  void recover();
  // Half a lease: an abandoned job waits at most 1.5 leases before it runs again.
  const recovery = setInterval(() => void recover(), (d.leaseSeconds * 1000) / 2);
  const sweeper = setInterval(() => void sweep(), d.sweepIntervalSeconds * 1000);
  recovery.unref();
  sweeper.unref();
  return () => {
    clearInterval(recovery);
    clearInterval(sweeper);
    if (reconciler) clearInterval(reconciler);
  };
}
