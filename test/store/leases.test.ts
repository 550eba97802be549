/**
 * Issue 13, Shared limits: one retention sweeper and one archive indexer at a time across
 * processes, by a lease in the store. Runs on SQLite and on PostgreSQL.
 */
import { afterAll, describe, expect, it } from 'vitest';
import path from 'node:path';
import { openStore, type Db } from '../../src/store/index.ts';
import { acquireLease, releaseLease, runExclusive } from '../../src/store/leases.ts';
import { tempDataDir } from '../helpers/service.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/services.ts';

const cleanup: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const fn of cleanup.reverse()) await fn();
});

const stores: Record<string, () => Promise<Db>> = {
  sqlite: async () => {
    const db = await openStore(`sqlite:${path.join(tempDataDir(), 'lease.db')}`);
    cleanup.push(() => db.destroy());
    return db;
  },
  postgres: async () => {
    const database: TestDatabase = await createTestDatabase();
    const db = await openStore(database.url);
    cleanup.push(async () => {
      await db.destroy();
      await database.drop();
    });
    return db;
  },
};

describe.each(Object.keys(stores))('leases on %s', (kind) => {
  it('one holder at a time; the holder renews; an expired lease passes to the next process', async () => {
    const db = await stores[kind]!();
    expect(await acquireLease(db, 'sweeper', 'a', 60)).toBe(true);
    expect(await acquireLease(db, 'sweeper', 'b', 60)).toBe(false);
    expect(await acquireLease(db, 'sweeper', 'a', 60)).toBe(true);
    expect(await acquireLease(db, 'indexer', 'b', 60)).toBe(true);
    await db.updateTable('leases').set({ expires_at: '2000-01-01T00:00:00.000Z' }).where('name', '=', 'sweeper').execute();
    expect(await acquireLease(db, 'sweeper', 'b', 60)).toBe(true);
    expect(await acquireLease(db, 'sweeper', 'a', 60)).toBe(false);
    await releaseLease(db, 'sweeper', 'a'); // not a's any more: no effect
    expect(await acquireLease(db, 'sweeper', 'a', 60)).toBe(false);
    await releaseLease(db, 'sweeper', 'b');
    expect(await acquireLease(db, 'sweeper', 'a', 60)).toBe(true);
  });

  it('ten racing runExclusive calls never overlap: whoever holds the lease runs, the others are refused', async () => {
    const db = await stores[kind]!();
    let active = 0;
    let maxActive = 0;
    // A holder keeps the lease until another caller has been refused: whether one is refused
    // does not depend on the others' statements reaching the store within a 100 ms hold (on a
    // loaded machine PostgreSQL's backends may not). Were callers queued instead of refused,
    // the first holder would wait for ever and the test time out.
    let refusedOnce!: () => void;
    const aRefusal = new Promise<void>((r) => (refusedOnce = r));
    const racing = Array.from({ length: 10 }, (_, i) =>
      runExclusive(db, 'retention-sweeper', `p${i}`, 60, async () => {
        active++;
        maxActive = Math.max(maxActive, active);
        await aRefusal;
        await new Promise((r) => setTimeout(r, 20));
        active--;
      }).then((ran) => {
        if (!ran) refusedOnce();
        return ran;
      }),
    );
    const ran = await Promise.all(racing);
    expect(maxActive).toBe(1);
    // A caller whose statement came after a holder released may run too, but never alongside.
    expect(ran.filter(Boolean).length).toBeGreaterThanOrEqual(1);
    expect(ran.filter((r) => !r).length).toBeGreaterThanOrEqual(1);
    // Released afterwards: the next caller runs.
    expect(await runExclusive(db, 'retention-sweeper', 'later', 60, async () => {})).toBe(true);
  });
});
