/**
 * The scaled-out delivery queue: BullMQ delayed messages on Redis, one per delivery attempt
 * (`<delivery id>.<attempt>`, so scheduling an attempt twice is a no-op). Messages carry
 * ids only; the store decides. A message lost with Redis is made good by
 * `reconcileDeliveries`, which schedules again every due delivery no sender holds.
 */
import { Queue, Worker } from 'bullmq';
import type { Db } from '../../store/index.ts';
import type { DeliveryHandler, DeliveryQueue } from './port.ts';

export class BullmqDeliveryQueue implements DeliveryQueue {
  private readonly queue: Queue;
  private worker: Worker | null = null;
  private readonly connection: { url: string; maxRetriesPerRequest: null };

  constructor(
    opts: { redisUrl: string; name: string },
    private readonly now: () => Date = () => new Date(),
  ) {
    this.connection = { url: opts.redisUrl, maxRetriesPerRequest: null };
    this.queue = new Queue(opts.name, { connection: this.connection });
    this.queue.on('error', () => {});
    this.name = opts.name;
  }

  readonly name: string;

  async schedule(deliveryId: string, attempt: number, at: Date): Promise<void> {
    const delay = Math.max(0, at.getTime() - this.now().getTime());
    await this.queue.add('deliver', { deliveryId }, { jobId: `${deliveryId}.${attempt}`, delay, removeOnComplete: true, removeOnFail: true });
  }

  consume(handler: DeliveryHandler, concurrency: number): void {
    if (this.worker) throw new Error('this queue is already consuming');
    this.worker = new Worker<{ deliveryId: string }>(this.name, (job) => handler(job.data.deliveryId), { connection: this.connection, concurrency });
    this.worker.on('error', () => {});
  }

  async close(): Promise<void> {
    await this.worker?.close();
    await this.queue.close();
  }
}

/** Schedules again the deliveries due for longer than `graceMs` that no sender holds (lost messages). */
export async function reconcileDeliveries(db: Db, queue: DeliveryQueue, now: Date, graceMs = 10_000): Promise<number> {
  const before = new Date(now.getTime() - graceMs).toISOString();
  const at = now.toISOString();
  const rows = await db
    .selectFrom('webhook_deliveries')
    .select(['id', 'attempts'])
    .where('status', '=', 'pending')
    .where('next_attempt_at', '<', before)
    .where((eb) => eb.or([eb('lease_expires_at', 'is', null), eb('lease_expires_at', '<', at)]))
    .limit(1000)
    .execute();
  for (const r of rows) await queue.schedule(r.id, Number(r.attempts), now);
  return rows.length;
}
