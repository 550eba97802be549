import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { Db } from '../../store/index.ts';
import { isoNow } from '../../time.ts';

export type LedgerKind = 'grant' | 'reserve' | 'release' | 'charge';

/**
 * Moves `delta` micro-credits on an account in one guarded statement: a debit applies only
 * if the balance covers it. The ledger row records the movement in the same transaction
 * (callers pass a transaction); its unique (job_id, kind) index refuses a second
 * reservation, release or charge of one job. Returns the new balance, or null when the
 * debit was refused.
 */
export async function moveCredits(
  tx: Db,
  move: { accountId: string; jobId: string | null; kind: LedgerKind; delta: number; note?: string },
): Promise<number | null> {
  const updated = await tx
    .updateTable('accounts')
    .set({ balance_micros: sql<number>`balance_micros + ${move.delta}` })
    .where('id', '=', move.accountId)
    .where(sql<boolean>`balance_micros + ${move.delta} >= 0`)
    .returning('balance_micros')
    .executeTakeFirst();
  if (!updated) return null;
  const balanceAfter = Number(updated.balance_micros);
  await tx
    .insertInto('credit_ledger')
    .values({
      id: randomUUID(),
      account_id: move.accountId,
      job_id: move.jobId,
      kind: move.kind,
      amount_micros: move.delta,
      balance_after_micros: balanceAfter,
      note: move.note ?? null,
      created_at: isoNow(),
    })
    .execute();
  return balanceAfter;
}
