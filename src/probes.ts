/**
 * The readiness probes of the embedded service (see api/readiness.ts): one per dependency,
 * each cheap enough to run on every /readyz call.
 */
import { randomUUID } from 'node:crypto';
import { pingStore, type Db } from './store/index.ts';
import type { ObjectStore } from './objects/port.ts';
import type { ReadinessProbe } from './api/readiness.ts';

/** The store answers a trivial query. */
export function storeProbe(db: Db): ReadinessProbe {
  return { name: 'store', check: () => pingStore(db) };
}

/** The object store takes a write, gives it back and deletes it. */
export function objectStoreProbe(objects: ObjectStore): ReadinessProbe {
  return {
    name: 'objects',
    async check() {
      const key = `readyz/${randomUUID()}`;
      const text = `readiness probe ${key}`;
      await objects.put(key, text, 'text/plain');
      try {
        const got = await objects.get(key);
        if (!got) throw new Error('the probe object was not found after writing it');
        const chunks: Buffer[] = [];
        for await (const chunk of got.body) chunks.push(Buffer.from(chunk as Buffer));
        if (Buffer.concat(chunks).toString('utf8') !== text) throw new Error('the probe object read back differs');
      } finally {
        await objects.delete(key);
      }
    },
  };
}

/** The queue's broker (Redis, in the scaled-out mode) answers a ping. */
export function brokerProbe(broker: { ping(): Promise<void> }): ReadinessProbe {
  return { name: 'queue', check: () => broker.ping() };
}

/** Something that polls for jobs and says when it last did (null: not consuming). */
export interface PollingWorker {
  readonly lastPollAt: number | null;
}

/** The worker is consuming and has polled within `maxAgeMs` (on the clock its poll times use). */
export function workerProbe(worker: PollingWorker, maxAgeMs: number, clock: () => number = Date.now): ReadinessProbe {
  return {
    name: 'worker',
    async check() {
      const last = worker.lastPollAt;
      if (last === null) throw new Error('the worker is not consuming jobs');
      const age = clock() - last;
      if (age > maxAgeMs) throw new Error(`the worker last polled ${age} ms ago`);
    },
  };
}
