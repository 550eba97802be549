import { PostgresAdapter } from 'kysely';
import type { Db } from '../../store/index.ts';

/**
 * Serialises the submissions of one account until the transaction ends, so a check that
 * counts the account's jobs and the insert that follows it cannot interleave with another
 * submission's. PostgreSQL: a row lock on the account (READ COMMITTED gives every later
 * statement of the waiting transaction a fresh snapshot, so its count sees the winner's
 * job). SQLite: a write that changes nothing takes the database write lock at once,
 * instead of at the insert after the count. False when the account does not exist.
 */
export async function lockAccount(tx: Db, accountId: string): Promise<boolean> {
  if (tx.getExecutor().adapter instanceof PostgresAdapter) {
    const row = await tx.selectFrom('accounts').select('id').where('id', '=', accountId).forUpdate().executeTakeFirst();
    return row !== undefined;
  }
  const res = await tx.updateTable('accounts').set((eb) => ({ balance_micros: eb.ref('balance_micros') })).where('id', '=', accountId).executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
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
