import type { Db } from '../../store/index.ts';
import { dialectOf } from '../../store/dialect.ts';

/**
 * Serialises the submissions of one account until the transaction ends, so a check that
 * counts the account's jobs and the insert that follows it cannot interleave with another
 * submission's (each backend's way: src/store/dialect.ts). False when the account does not
 * exist.
 */
export function lockAccount(tx: Db, accountId: string): Promise<boolean> {
  return dialectOf(tx).lockAccount(tx, accountId);
}

/**
 * A job's end settles credits on its account, so the terminal transitions lock the account
 * before they touch the job: account, then job, the order a submission takes them in
 * (createJob). With the other order PostgreSQL deadlocks a worker finishing a job against a
 * submission retried with that job's Idempotency-Key (its unique check waits on the job row
 * while holding the account). False when the job does not exist.
 */
export async function lockJobAccount(tx: Db, jobId: string): Promise<boolean> {
  const job = await tx.selectFrom('jobs').select('account_id').where('id', '=', jobId).executeTakeFirst();
  return job !== undefined && (await lockAccount(tx, job.account_id));
}
