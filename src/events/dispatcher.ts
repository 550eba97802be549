/**
 * The webhook duties of a worker process: fan the outbox out into deliveries, send due
 * deliveries through the delivery queue, and prune what is old. Every step is guarded in the
 * store, so any number of processes may run this at once.
 */
import type { Db } from '../store/index.ts';
import type { DeliveryQueue } from './deliveryQueue/port.ts';
import { reconcileDeliveries } from './deliveryQueue/bullmq.ts';
import { StoreBackedDeliveryQueue } from './deliveryQueue/storeBacked.ts';
import { fanOutEvents } from './transitions/fanOut.ts';
import { WebhookSender, type SenderDeps } from './sender.ts';

/** Delivered and given-up deliveries, and their events, are kept this long for the log and redelivery. */
export const DELIVERY_LOG_DAYS = 30;

export interface DispatchDeps extends Omit<SenderDeps, 'queue'> {
  queue: DeliveryQueue;
  concurrency: number;
  /** How often the outbox is read while it yields deliveries (ms; default 250). */
  fanOutMs?: number;
  /** The longest wait between reads once it yields none (ms; default 1000). */
  fanOutIdleMs?: number;
}

/** Fans out up to `batch` events not yet fanned out; returns the deliveries created. */
export async function fanOutPending(db: Db, queue: DeliveryQueue, now: Date, batch = 200): Promise<number> {
  const events = await db
    .selectFrom('outbox')
    .select(['id', 'account_id', 'type', 'created_at'])
    .where('fanned_out_at', 'is', null)
    .orderBy('created_at')
    .limit(batch)
    .execute();
  const ids = await fanOutEvents(db, events, now);
  for (const id of ids) await queue.schedule(id, 0, now);
  return ids.length;
}

/** Deletes finished deliveries and fanned-out events older than the delivery log keeps. */
export async function pruneDeliveryLog(db: Db, now: Date): Promise<void> {
  const before = new Date(now.getTime() - DELIVERY_LOG_DAYS * 86_400_000).toISOString();
  await db.deleteFrom('webhook_deliveries').where('status', 'in', ['delivered', 'failed']).where('updated_at', '<', before).execute();
  await db
    .deleteFrom('outbox')
    .where('fanned_out_at', '<', before)
    .where((eb) => eb.not(eb.exists(eb.selectFrom('webhook_deliveries').select('id').whereRef('webhook_deliveries.event_id', '=', 'outbox.id'))))
    .execute();
}

export function startWebhookDispatch(d: DispatchDeps): () => Promise<void> {
  const now = d.now ?? (() => new Date());
  const sender = new WebhookSender(d);
  d.queue.consume(sender.deliver, d.concurrency);
  // The outbox is read every fanOutMs while it yields deliveries; each read that finds none
  // doubles the wait, up to fanOutIdleMs: an idle worker reads it about once a second instead
  // of four times (every worker does: idle polling is a share of what spreading a job over
  // workers costs, issue 20 §2), and a new event waits at most fanOutIdleMs for its deliveries.
  const busyMs = d.fanOutMs ?? 250;
  const idleMs = Math.max(busyMs, d.fanOutIdleMs ?? 1000);
  let wait = busyMs;
  let stopped = false;
  let fanOut: NodeJS.Timeout;
  const readOutbox = (): void => {
    void fanOutPending(d.db, d.queue, now())
      .then(
        (created) => (wait = created > 0 ? busyMs : Math.min(idleMs, 2 * wait)),
        (e) => d.log?.error({ err: String(e) }, 'webhook fan-out failed'),
      )
      .finally(() => {
        if (stopped) return;
        fanOut = setTimeout(readOutbox, wait);
        fanOut.unref();
      });
  };
  fanOut = setTimeout(readOutbox, busyMs);
  fanOut.unref();
  const reconcile =
    d.queue instanceof StoreBackedDeliveryQueue
      ? null
      : setInterval(() => void reconcileDeliveries(d.db, d.queue, now()).catch((e) => d.log?.error({ err: String(e) }, 'delivery reconciliation failed')), 10_000);
  reconcile?.unref();
  const prune = setInterval(() => void pruneDeliveryLog(d.db, now()).catch(() => {}), 3600_000);
  prune.unref();
  return async () => {
    stopped = true;
    clearTimeout(fanOut);
    if (reconcile) clearInterval(reconcile);
    clearInterval(prune);
    await d.queue.close();
  };
}
