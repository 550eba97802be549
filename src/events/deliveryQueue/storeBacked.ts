/**
 * The embedded delivery queue: the webhook_deliveries table is the queue. Due deliveries
 * (pending, next attempt passed, not held) are read oldest first; `schedule` only wakes the
 * dispatcher early, so nothing is lost with the process — a restart finds every retry in
 * the table.
 */
import type { Db } from '../../store/index.ts';
import { TablePump } from '../../queue/tablePump.ts';
import type { DeliveryHandler, DeliveryQueue } from './port.ts';

export class StoreBackedDeliveryQueue implements DeliveryQueue {
  private readonly pump: TablePump;

  constructor(
    db: Db,
    private readonly pollMs = 500,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.pump = new TablePump(
      {
        due: async (limit) => {
          const at = this.now().toISOString();
          const rows = await db
            .selectFrom('webhook_deliveries')
            .select('id')
            .where('status', '=', 'pending')
            .where('next_attempt_at', '<=', at)
            .where((eb) => eb.or([eb('lease_expires_at', 'is', null), eb('lease_expires_at', '<', at)]))
            .orderBy('next_attempt_at')
            .limit(limit)
            .execute();
          return rows.map((r) => r.id);
        },
        // Refill in batches: one query for half the slots, not one per finished delivery
        // (that query was the costliest statement of a delivery). Deliveries that fall due
        // meanwhile are found by the next refill, `schedule` or the poll.
        refillBelow: (concurrency) => Math.floor(concurrency / 2),
      },
      pollMs,
    );
  }

  async schedule(_deliveryId: string, _attempt: number, at: Date): Promise<void> {
    const wait = at.getTime() - this.now().getTime();
    if (wait <= 0) this.pump.wake();
    else if (wait < this.pollMs) setTimeout(() => this.pump.wake(), wait).unref();
  }

  consume(handler: DeliveryHandler, concurrency: number): void {
    this.pump.consume(handler, concurrency);
  }

  close(): Promise<void> {
    return this.pump.close();
  }
}
