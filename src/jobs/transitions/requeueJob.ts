import type { Db } from '../../store/index.ts';
import { TRANSITIONS } from '../stateMachine.ts';
import { isoNow } from '../../time.ts';

/**
 * processing → pending for a job whose worker stopped renewing its lease. The guard
 * repeats the expiry test, so a worker that renewed its lease a moment ago keeps its job.
 * False when the job was not requeued.
 */
export async function requeueJob(db: Db, jobId: string, leaseExpiredBefore: string): Promise<boolean> {
  const res = await db
    .updateTable('jobs')
    .set({ status: TRANSITIONS.requeue.to, updated_at: isoNow(), progress: null, lease_owner: null, lease_expires_at: null, started_at: null })
    .where('id', '=', jobId)
    .where('status', 'in', [...TRANSITIONS.requeue.from])
    .where('lease_expires_at', '<', leaseExpiredBefore)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}
