import type { Config } from '../config.ts';
import type { Db } from '../store/index.ts';
import { BullmqQueue } from './bullmq.ts';
import type { JobQueue } from './port.ts';
import { reconcileQueue } from './reconcile.ts';
import { StoreBackedQueue } from './storeBacked.ts';

export type { JobQueue } from './port.ts';

export interface OpenedQueue {
  queue: JobQueue;
  /** Enqueues pending jobs the queue lacks; null where the store is the queue. */
  reconcile: (() => Promise<string[]>) | null;
}

/** The queue named by REDIS_URL: empty → the store-backed embedded queue; else BullMQ. */
export function openQueue(config: Config, db: Db, opts: { pollMs?: number } = {}): OpenedQueue {
  if (!config.redisUrl) return { queue: new StoreBackedQueue(db, opts.pollMs ?? 1000), reconcile: null };
  const queue = new BullmqQueue({ redisUrl: config.redisUrl, name: config.queueName });
  return { queue, reconcile: () => reconcileQueue(db, queue) };
}
