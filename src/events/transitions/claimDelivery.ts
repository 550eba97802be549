import { sql } from 'kysely';
import type { DeliveryRow, Db } from '../../store/index.ts';

/**
 * pending (due, not held) → held by `owner` for one attempt, counting it. Null when the
 * delivery is not due, already delivered or given up, or another sender holds it — so a
 * delivery handed out twice (a queue redelivery, two processes) is attempted once at a time.
 * A sender that dies mid-attempt loses the hold when `leaseMs` passes; the attempt is retried.
 */
export async function claimDelivery(db: Db, deliveryId: string, owner: string, now: Date, leaseMs: number): Promise<DeliveryRow | null> {
  const at = now.toISOString();
  const row = await db
    .updateTable('webhook_deliveries')
    .set({ lease_owner: owner, lease_expires_at: new Date(now.getTime() + leaseMs).toISOString(), attempts: sql<number>`attempts + 1`, last_attempt_at: at, updated_at: at })
    .where('id', '=', deliveryId)
    .where('status', '=', 'pending')
    .where('next_attempt_at', '<=', at)
    .where((eb) => eb.or([eb('lease_expires_at', 'is', null), eb('lease_expires_at', '<', at)]))
    .returningAll()
    .executeTakeFirst();
  return row ?? null;
}
