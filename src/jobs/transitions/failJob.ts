import type { Db, JobRow } from '../../store/index.ts';
import { GENERIC_FAILURE_MESSAGE, JOB_FAILURES, type JobFailureCode } from '../../contract/errors.ts';
import { TRANSITIONS } from '../stateMachine.ts';
import { settleCredits } from '../credits/settleCredits.ts';
import { isoNow } from '../../time.ts';
import { lockJobAccount } from './lockAccount.ts';
import { recordTerminalEvent } from '../outbox.ts';

export interface FailGuard {
  /** Only while this worker holds the lease: once its lease is lost the job is someone else's. */
  workerId?: string;
  /** Only while the job is processing under a lease that expired before this instant (recovery). */
  leaseExpiredBefore?: string;
}

/**
 * The columns every transition to `failed` writes beside its status and error (failJob,
 * cancelJob): ended at `now`, nothing charged, no result, the lease cleared.
 */
export function endedUncharged(now: string) {
  return {
    completed_at: now,
    updated_at: now,
    credits_used_micros: 0,
    result_key: null,
    area_sqkm: null,
    coverage: null,
    scene_selection: null,
    warnings: '[]',
    lease_owner: null,
    lease_expires_at: null,
  } as const;
}

/**
 * pending|processing → failed; releases the whole reservation (failed jobs are never
 * charged). Server-class codes get the fixed generic message.
 */
export async function failJob(db: Db, jobId: string, failure: { code: JobFailureCode; message: string }, guard: FailGuard = {}): Promise<JobRow | null> {
  return db.transaction().execute(async (tx) => {
    if (!(await lockJobAccount(tx, jobId))) return null;
    const now = isoNow();
    const message = JOB_FAILURES[failure.code].serverClass ? GENERIC_FAILURE_MESSAGE : failure.message;
    let update = tx
      .updateTable('jobs')
      .set({ status: TRANSITIONS.fail.to, error_code: failure.code, error_message: message, ...endedUncharged(now) })
      .where('id', '=', jobId)
      .where('status', 'in', [...TRANSITIONS.fail.from]);
    if (guard.workerId) update = update.where('lease_owner', '=', guard.workerId);
    if (guard.leaseExpiredBefore) update = update.where('status', '=', 'processing').where('lease_expires_at', '<', guard.leaseExpiredBefore);
    const row = await update.returningAll().executeTakeFirst();
    if (!row) return null;
    await settleCredits(tx, row, 0);
    await recordTerminalEvent(tx, row);
    return row;
  });
}
