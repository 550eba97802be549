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
