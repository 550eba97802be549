/**
 * Credit arithmetic; the movements themselves are one module each under `credits/`.
 * Amounts are micro-credits (integers) inside; the API shows credits as numbers rounded to
 * 6 decimals.
 */
import type { Db } from '../store/index.ts';

export { moveCredits, type LedgerKind } from './credits/moveCredits.ts';
export { reserveCredits } from './credits/reserveCredits.ts';
export { settleCredits } from './credits/settleCredits.ts';

export const MICROS = 1_000_000;
export const toMicros = (credits: number): number => Math.round(credits * MICROS);
export const fromMicros = (micros: number | string): number => Number(micros) / MICROS;

/** Credits for an area at a price, rounded up to the micro-credit so no charge is under-counted. */
export function priceMicros(areaSqkm: number, pricePerSqkm: number): number {
  return Math.ceil(areaSqkm * pricePerSqkm * MICROS - 1e-6);
}

export async function balanceMicros(db: Db, accountId: string): Promise<number | null> {
  const row = await db.selectFrom('accounts').select('balance_micros').where('id', '=', accountId).executeTakeFirst();
  return row ? Number(row.balance_micros) : null;
}
