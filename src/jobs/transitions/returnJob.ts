import { sql } from 'kysely';
import type { Db, JobRow } from '../../store/index.ts';
import { TRANSITIONS } from '../stateMachine.ts';
import { isoNow } from '../../time.ts';

/**
 * processing → pending when the worker holding the lease shuts down: the job goes back to
 * the queue as submitted and its attempt is given back (stopping the service is not the
 * job's failure, so it does not count toward JOB_INTERRUPTED). Guarded on the lease owner,
 * so a worker can return only a job that is still its own. The credit reservation stays
 * held: a returned job settles once, when it completes or fails. Null when not returned.
 *
 * `keepAttempt`: the shutdown deadline passed while the analysis was still running (it did
 * not stop when aborted). The job goes back all the same, but the attempt stays counted:
 * that run may still write its own result object (`results/<job>.<attempt>`), so the next
 * attempt must not reuse its number, and a job that never stops cannot loop forever.
 */
export async function returnJob(db: Db, jobId: string, workerId: string, opts: { keepAttempt?: boolean } = {}): Promise<JobRow | null> {
  const row = await db
    .updateTable('jobs')
    .set({
      status: TRANSITIONS.requeue.to,
      updated_at: isoNow(),
      progress: null,
      lease_owner: null,
      lease_expires_at: null,
      started_at: null,
      ...(opts.keepAttempt ? {} : { attempts: sql<number>`attempts - 1` }),
    })
    .where('id', '=', jobId)
    .where('status', 'in', [...TRANSITIONS.requeue.from])
    .where('lease_owner', '=', workerId)
    .returningAll()
    .executeTakeFirst();
  return row ?? null;
}
