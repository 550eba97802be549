/**
 * Issue 20 §1: the store port (src/store/dialect.ts) on each backend, with real driver errors —
 * a duplicate key, a database locked by another connection, a connection the server ended —
 * and the account lock holding a second writer until the first commits.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { dialectOf, isStoreUnavailable } from '../../src/store/dialect.ts';
import { createAccount } from '../../src/jobs/accounts.ts';
import { isBackendUnavailable } from '../../src/api/errors.ts';
import { STORE_KINDS, closeStores, freshStore, secondHandle } from '../helpers/stores.ts';

afterAll(closeStores);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function errorOf(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  throw new Error('expected the statement to fail');
}

describe.each(STORE_KINDS)('store dialect on %s', (kind) => {
  it('is found from the store and from a transaction of it', async () => {
    const { db } = await freshStore(kind);
    expect(dialectOf(db).name).toBe(kind);
    expect(await db.transaction().execute(async (tx) => dialectOf(tx).name)).toBe(kind);
  });

  it('tells a unique-key violation from other constraint errors, and neither is "unavailable"', async () => {
    const { db } = await freshStore(kind);
    const { accountId } = await createAccount(db, { name: 'dup', credits: 0 });
    const now = new Date().toISOString();
    const duplicate = await errorOf(db.insertInto('accounts').values({ id: accountId, name: 'again', balance_micros: 0, created_at: now }).execute());
    const notNull = await errorOf(db.insertInto('accounts').values({ id: 'x', name: null as unknown as string, balance_micros: 0, created_at: now }).execute());
    const d = dialectOf(db);
    expect(d.isUniqueViolation(duplicate)).toBe(true);
    expect(d.isUniqueViolation(notNull)).toBe(false);
    expect(d.isUnavailable(duplicate)).toBe(false);
    expect(isBackendUnavailable(duplicate)).toBe(false);
    // The other backend's side does not claim this backend's errors.
    const other = dialectOf(db).name === 'sqlite' ? 'postgres' : 'sqlite';
    const otherDialect = other === 'postgres' ? (await import('../../src/store/postgres.ts')).postgresDialect : (await import('../../src/store/sqlite.ts')).sqliteDialect;
    expect(otherDialect.isUniqueViolation(duplicate)).toBe(false);
  });

  it('lockAccount: false for a missing account; a second writer waits until the first commits', async () => {
    const { db, url } = await freshStore(kind);
    const other = await secondHandle(url);
    const { accountId } = await createAccount(db, { name: 'lock', credits: 5 });
    expect(await db.transaction().execute((tx) => dialectOf(tx).lockAccount(tx, 'no-such-account'))).toBe(false);

    const order: string[] = [];
    let locked!: () => void;
    const firstHolds = new Promise<void>((r) => (locked = r));
    const first = db.transaction().execute(async (tx) => {
      expect(await dialectOf(tx).lockAccount(tx, accountId)).toBe(true);
      locked();
      await sleep(300);
      await tx.updateTable('accounts').set({ balance_micros: 7 }).where('id', '=', accountId).execute();
      order.push('first commits');
    });
    await firstHolds;
    const second = other.transaction().execute(async (tx) => {
      expect(await dialectOf(tx).lockAccount(tx, accountId)).toBe(true);
      order.push('second locked');
      // A fresh read after the lock sees the first writer's change.
      return (await tx.selectFrom('accounts').select('balance_micros').where('id', '=', accountId).executeTakeFirstOrThrow()).balance_micros;
    });
    await first;
    expect(await second).toBe(7);
    expect(order).toEqual(['first commits', 'second locked']);
  });

  it('calls a store that did not answer unavailable (the API answers 503)', async () => {
    const { db, url } = await freshStore(kind);
    let err: unknown;
    if (kind === 'sqlite') {
      // Another connection holds the write lock past this one's (short) wait: SQLITE_BUSY.
      const impatient = await secondHandle(url, { sqliteBusyTimeoutMs: 50 });
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      let locked!: () => void;
      const holding = new Promise<void>((r) => (locked = r));
      const holder = db.transaction().execute(async () => {
        locked();
        await held;
      });
      await holding;
      err = await errorOf(createAccount(impatient, { name: 'late', credits: 0 }));
      release();
      await holder;
    } else {
      // The server ends the connection under a running statement (admin shutdown, 57P01).
      const admin = await secondHandle(url);
      const sleeping = errorOf(sql`select pg_sleep(30) as dialect_test`.execute(db));
      let pid: number | undefined;
      for (let i = 0; i < 200 && pid === undefined; i++) {
        const { rows } = await sql<{ pid: number }>`select pid from pg_stat_activity where query like '%as dialect_test%' and pid <> pg_backend_pid()`.execute(admin);
        pid = rows[0]?.pid;
        if (pid === undefined) await sleep(50);
      }
      await sql`select pg_terminate_backend(${pid!})`.execute(admin);
      err = await sleeping;
      expect((err as { code?: string }).code).toBe('57P01');
    }
    expect(dialectOf(db).isUnavailable(err)).toBe(true);
    expect(isStoreUnavailable(err)).toBe(true);
    expect(isBackendUnavailable(err)).toBe(true);
    expect(dialectOf(db).isUniqueViolation(err)).toBe(false);
  });
});

describe('a PostgreSQL connection ended while a transaction holds it idle', () => {
  it.runIf(STORE_KINDS.includes('postgres'))('fails that transaction as unavailable instead of stopping the process; the store answers again', async () => {
    const { db, url } = await freshStore('postgres');
    const admin = await secondHandle(url);
    const err = await errorOf(
      db.transaction().execute(async (tx) => {
        const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(tx);
        // Idle in transaction: no statement of ours is running when the server ends the connection, so
        // node-postgres emits the error on the checked-out client (uncaught, unless the store listens).
        await sql`select pg_terminate_backend(${rows[0]!.pid})`.execute(admin);
        await sleep(300);
        await sql`select 1`.execute(tx);
      }),
    );
    expect(dialectOf(db).isUnavailable(err)).toBe(true);
    expect(isBackendUnavailable(err)).toBe(true);
    const { rows } = await sql<{ one: number }>`select 1 as one`.execute(db);
    expect(rows[0]!.one).toBe(1);
  });
});
