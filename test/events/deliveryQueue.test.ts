/**
 * The store-backed delivery queue (embedded mode) on SQLite and PostgreSQL: every due delivery
 * is handed out once it is claimable, never more than `concurrency` at a time, and the queue
 * refills in batches — a query for due deliveries once half the slots are free, not one after
 * every finished delivery — without leaving any behind (the poll is set far beyond the test, so
 * only refills can hand them out).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import type { KyselyPlugin } from 'kysely';
import { StoreBackedDeliveryQueue } from '../../src/events/deliveryQueue/storeBacked.ts';
import { claimDelivery } from '../../src/events/transitions/claimDelivery.ts';
import { finishAttempt } from '../../src/events/transitions/finishAttempt.ts';
import { STORE_KINDS, closeStores, freshStore } from '../helpers/stores.ts';

afterAll(closeStores);

const DELIVERIES = 60;
const CONCURRENCY = 8;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.each(STORE_KINDS)('store-backed delivery queue on %s', (kind) => {
  it(`hands out ${DELIVERIES} due deliveries, at most ${CONCURRENCY} at a time, refilling in batches`, async () => {
    const { db } = await freshStore(kind);
    const now = new Date();
    const past = new Date(now.getTime() - 1000).toISOString();
    const retryUntil = new Date(now.getTime() + 86_400_000).toISOString();
    await db
      .insertInto('webhook_deliveries')
      .values(
        Array.from({ length: DELIVERIES }, () => ({
          id: randomUUID(), webhook_id: randomUUID(), event_id: randomUUID(), account_id: 'a', status: 'pending',
          next_attempt_at: past, retry_until: retryUntil, created_at: past, updated_at: past,
        })),
      )
      .execute();

    // Counts the queue's own queries (the handler below uses `db` itself).
    let queueQueries = 0;
    const counting: KyselyPlugin = {
      transformQuery: (args) => {
        queueQueries++;
        return args.node;
      },
      transformResult: async (args) => args.result,
    };
    const queue = new StoreBackedDeliveryQueue(db.withPlugin(counting), 600_000);

    const handled = new Map<string, number>();
    let running = 0;
    let maxRunning = 0;
    let allDone!: () => void;
    const done = new Promise<void>((r) => (allDone = r));
    queue.consume(async (id) => {
      running++;
      maxRunning = Math.max(maxRunning, running);
      try {
        const claimed = await claimDelivery(db, id, 'me', new Date(), 30_000);
        if (!claimed) return;
        await sleep(Math.random() * 10);
        const ok = { ok: true, statusCode: 200, error: null, body: '' };
        expect(await finishAttempt(db, claimed, 'me', ok, new Date(), new Date())).not.toBeNull();
        handled.set(id, (handled.get(id) ?? 0) + 1);
        if (handled.size === DELIVERIES) allDone();
      } finally {
        running--;
      }
    }, CONCURRENCY);
    await Promise.race([done, sleep(60_000)]);
    await queue.close();

    expect(handled.size).toBe(DELIVERIES);
    expect([...handled.values()].every((n) => n === 1)).toBe(true);
    expect(maxRunning).toBeLessThanOrEqual(CONCURRENCY);
    const left = await db.selectFrom('webhook_deliveries').select('id').where('status', '!=', 'delivered').execute();
    expect(left).toEqual([]);
    // One query per batch of about half the slots: ~DELIVERIES / (CONCURRENCY / 2) plus the tail,
    // where one per finished delivery would be DELIVERIES or more.
    expect(queueQueries).toBeGreaterThan(DELIVERIES / CONCURRENCY);
    expect(queueQueries).toBeLessThanOrEqual(DELIVERIES / 2);
  });
});
