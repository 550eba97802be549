/**
 * The embedded delivery queue: the webhook_deliveries table is the queue. Due deliveries
 * (pending, next attempt passed, not held) are read oldest first; `schedule` only wakes the
 * dispatcher early, so nothing is lost with the process — a restart finds every retry in
 * the table.
 */
import type { Db } from '../../store/index.ts';
import type { DeliveryHandler, DeliveryQueue } from './port.ts';

export class StoreBackedDeliveryQueue implements DeliveryQueue {
  private handler: DeliveryHandler | null = null;
  private concurrency = 1;
  /** A finished delivery asks for more once no more than this many are in flight. */
  private refillBelow = 0;
  private readonly inFlight = new Set<string>();
  private timer: NodeJS.Timeout | null = null;
  private dispatching = false;
  private again = false;
  private closed = false;
  private readonly idle = new Set<() => void>();

  constructor(
    private readonly db: Db,
    private readonly pollMs = 500,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async schedule(_deliveryId: string, _attempt: number, at: Date): Promise<void> {
    const wait = at.getTime() - this.now().getTime();
    if (wait <= 0) this.wake();
    else if (wait < this.pollMs) setTimeout(() => this.wake(), wait).unref();
  }

  consume(handler: DeliveryHandler, concurrency: number): void {
    this.handler = handler;
    this.concurrency = concurrency;
    this.refillBelow = Math.floor(concurrency / 2);
    this.timer = setInterval(() => this.wake(), this.pollMs);
    this.timer.unref();
    this.wake();
  }

  private wake(): void {
    if (!this.handler || this.closed) return;
    if (this.dispatching) {
      this.again = true;
      return;
    }
    this.dispatching = true;
    void this.dispatch().finally(() => {
      this.dispatching = false;
      if (this.again) {
        this.again = false;
        this.wake();
      }
    });
  }

  private async dispatch(): Promise<void> {
    const free = this.concurrency - this.inFlight.size;
    if (free <= 0) return;
    const at = this.now().toISOString();
    const rows = await this.db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('status', '=', 'pending')
      .where('next_attempt_at', '<=', at)
      .where((eb) => eb.or([eb('lease_expires_at', 'is', null), eb('lease_expires_at', '<', at)]))
      .orderBy('next_attempt_at')
      .limit(free + this.inFlight.size)
      .execute()
      .catch(() => []);
    let started = 0;
    for (const { id } of rows) {
      if (this.closed || this.inFlight.size >= this.concurrency) break;
      if (this.inFlight.has(id)) continue;
      this.inFlight.add(id);
      started++;
      void this.handler!(id)
        .catch(() => {})
        .finally(() => {
          this.inFlight.delete(id);
          if (this.inFlight.size === 0) for (const resolve of this.idle) resolve();
          // Refill in batches: one query for half the slots, not one per finished delivery
          // (that query was the costliest statement of a delivery). Deliveries that fall due
          // meanwhile are found by the next refill, `schedule` or the poll.
          if (this.inFlight.size <= this.refillBelow) this.wake();
        });
    }
    // A full batch: more may be due right now.
    if (started > 0 && started === free) this.again = true;
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    if (this.inFlight.size === 0) return;
    await new Promise<void>((resolve) => this.idle.add(resolve));
  }
}
