import type { DeliveryRow, Db } from '../../store/index.ts';
import { RETRY_WINDOW_MS } from '../backoff.ts';

/**
 * Any delivery that is not being attempted right now → pending, due now, with a fresh 24 h
 * retry window (the account asked for this event again). Its attempt count goes on, so the
 * log keeps the history. Null when the delivery is held by a sender at this moment.
 */
export async function redeliver(db: Db, deliveryId: string, now: Date): Promise<DeliveryRow | null> {
  const at = now.toISOString();
  const row = await db
    .updateTable('webhook_deliveries')
    .set({ status: 'pending', next_attempt_at: at, retry_until: new Date(now.getTime() + RETRY_WINDOW_MS).toISOString(), updated_at: at })
    .where('id', '=', deliveryId)
    .where((eb) => eb.or([eb('lease_expires_at', 'is', null), eb('lease_expires_at', '<', at)]))
    .returningAll()
    .executeTakeFirst();
  return row ?? null;
}
