import type { Db, JobRow } from '../../store/index.ts';
import { TRANSITIONS } from '../stateMachine.ts';
import { settleCredits } from '../credits/settleCredits.ts';
import { isoNow } from '../../time.ts';
import { lockJobAccount } from './lockAccount.ts';
import { recordTerminalEvent } from '../outbox.ts';
import { endedUncharged } from './failJob.ts';

export const CANCELED_MESSAGE = 'The job was canceled by the client. It was not charged.';

/**
 * pending|processing → failed with CANCELED, for the account that owns the job: the whole
 * reservation is released (a release row in the ledger, no charge). The lease is cleared in
 * the same statement, so the worker that may still be running the job can neither complete
 * nor fail it afterwards (both transitions are guarded on its lease); the worker learns of the
 * cancel from the store (src/worker/jobWatch.ts) and aborts the analysis. Null when the job
 * is not this account's or has already ended.
 *
 * A terminal transition: like failJob and completeJob it records `job.failed` in the event
 * outbox (webhooks) in the same transaction.
 */
export async function cancelJob(db: Db, jobId: string, accountId: string): Promise<JobRow | null> {
  return db.transaction().execute(async (tx) => {
    if (!(await lockJobAccount(tx, jobId))) return null;
    const now = isoNow();
    const row = await tx
      .updateTable('jobs')
      .set({ status: TRANSITIONS.cancel.to, error_code: 'CANCELED', error_message: CANCELED_MESSAGE, ...endedUncharged(now) })
      .where('id', '=', jobId)
      .where('account_id', '=', accountId)
      .where('status', 'in', [...TRANSITIONS.cancel.from])
      .returningAll()
      .executeTakeFirst();
    if (!row) return null;
    await settleCredits(tx, row, 0);
    await recordTerminalEvent(tx, row);
    return row;
  });
}
