import type { Db } from '../../store/index.ts';
import { isoNow } from '../../time.ts';
import { failJob } from './failJob.ts';
import { requeueJob } from './requeueJob.ts';

/**
 * Crash recovery by lease, never by process list: a job stays `processing` while some
 * worker renews its lease, in this process or another. A job whose lease expired goes back
 * to `pending`, or fails with JOB_INTERRUPTED once it has been tried `maxAttempts` times, so
 * a job that kills its worker cannot loop forever. Safe to run in every process at once:
 * each change is a guarded statement that applies once.
 */
export async function recoverInterruptedJobs(db: Db, opts: { maxAttempts: number }): Promise<{ requeued: string[]; failed: string[] }> {
  const now = isoNow();
  const stuck = await db
    .selectFrom('jobs')
    .select(['id', 'attempts'])
    .where('status', '=', 'processing')
    .where('lease_expires_at', '<', now)
    .execute();
  const requeued: string[] = [];
  const failed: string[] = [];
  for (const job of stuck) {
    if (Number(job.attempts) >= opts.maxAttempts) {
      if (await failJob(db, job.id, { code: 'JOB_INTERRUPTED', message: '' }, { leaseExpiredBefore: now })) failed.push(job.id);
    } else if (await requeueJob(db, job.id, now)) {
      requeued.push(job.id);
    }
  }
  return { requeued, failed };
}
