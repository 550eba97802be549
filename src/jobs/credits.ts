/**
 * Credit arithmetic and ledger movements. Amounts are micro-credits (integers) inside;
 * the API shows credits as numbers rounded to 6 decimals.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { Db } from '../store/index.ts';
import { isoNow } from './time.ts';

export const MICROS = 1_000_000;
export const toMicros = (credits: number): number => Math.round(credits * MICROS);
export const fromMicros = (micros: number | string): number => Number(micros) / MICROS;

/** Credits for an area at a price, rounded up to the micro-credit so no charge is under-counted. */
export function priceMicros(areaSqkm: number, pricePerSqkm: number): number {
  return Math.ceil(areaSqkm * pricePerSqkm * MICROS - 1e-6);
}

type Tx = Db; // a transaction handle has the same query surface

export type LedgerKind = 'grant' | 'reserve' | 'release' | 'charge';

/**
 * Moves `delta` micro-credits on an account in one guarded statement: a debit applies only
 * if the balance covers it. Returns the new balance, or null when the debit was refused.
 */
export async function moveCredits(
  tx: Tx,
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

export async function balanceMicros(db: Db, accountId: string): Promise<number | null> {
  const row = await db.selectFrom('accounts').select('balance_micros').where('id', '=', accountId).executeTakeFirst();
  return row ? Number(row.balance_micros) : null;
}
