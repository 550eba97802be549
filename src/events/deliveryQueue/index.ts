import type { Config } from '../../config.ts';
import type { Db } from '../../store/index.ts';
import { BullmqDeliveryQueue } from './bullmq.ts';
import type { DeliveryQueue } from './port.ts';
import { StoreBackedDeliveryQueue } from './storeBacked.ts';

export type { DeliveryQueue } from './port.ts';

/** As the job queue: empty REDIS_URL → the store is the queue; else BullMQ (`<queue name>-webhooks`). */
export function openDeliveryQueue(config: Config, db: Db, opts: { pollMs?: number } = {}): DeliveryQueue {
  if (!config.redisUrl) return new StoreBackedDeliveryQueue(db, opts.pollMs ?? 250);
  return new BullmqDeliveryQueue({ redisUrl: config.redisUrl, name: `${config.queueName}-webhooks` });
}
