/**
 * The SQLite store waits for another process's write lock without blocking the event loop
 * (src/store/sqliteBusy.ts): transactions begin IMMEDIATE and are retried, like autocommit
 * statements, until the deadline; then SQLITE_BUSY goes out. The other process here is a
 * second better-sqlite3 connection to the same file (SQLite's locks are the file's).
 */
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { sql, type Kysely } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { openSqlite } from '../../src/store/sqlite.ts';
import { tempDataDir } from '../helpers/service.ts';
import { intervalTicks } from '../helpers/eventLoop.ts';

const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!();
});

function open(busyTimeoutMs?: number) {
  const file = path.join(tempDataDir(), 'busy.db');
  const db = openSqlite(file, { busyTimeoutMs }) as unknown as Kysely<any>;
  cleanup.push(() => db.destroy());
  const other = new SqliteDatabase(file, { timeout: 0 });
  cleanup.push(() => {
    if (other.inTransaction) other.exec('ROLLBACK');
    other.close();
  });
  return { db, other };
}

async function count(db: Kysely<any>): Promise<number> {
  const rows = await sql<{ n: number }>`select count(*) as n from t`.execute(db);
  return rows.rows[0]!.n;
}

/**
 * Runs `statement` while the other connection holds the write lock, and releases the lock once
 * this process's event loop has turned 20 times (a 5 ms interval) with the statement still
 * waiting: a store that waited inside SQLite's busy handler would block the loop, the release
 * would never come before its deadline, and the statement would fail. What the statement
 * resolved to, whether it settled before the release, and the interval's runs meanwhile.
 */
async function releasedAfterTicks<T>(other: SqliteDatabase.Database, statement: () => Promise<T>) {
  const ticks = intervalTicks();
  let released = false;
  let settledBeforeRelease = false;
  const pending = statement().finally(() => (settledBeforeRelease = !released));
  pending.catch(() => {});
  await Promise.race([ticks.reached(20), pending.then(() => undefined, () => undefined)]);
  const ticksWhilePending = ticks.count();
  other.exec('COMMIT');
  released = true;
  const value = await pending;
  ticks.stop();
  return { value, settledBeforeRelease, ticksWhilePending };
}

// Counts, not times: a bound on the longest pause of the event loop (150 ms before) or on the
// time waited after a release timer (which can fire early against performance.now() when the
// loop's cached time is stale) depends on the machine's load. The deadline itself is checked
// against Date.now() by the store (sqliteBusy.ts), so a lower bound on the time it waited is exact.
describe('SQLite store and another process holding the write lock', () => {
  it('a transaction waits for the lock asynchronously (the event loop keeps running) and commits once it is released', async () => {
    const { db, other } = open();
    await sql`create table t (n integer)`.execute(db);
    other.exec('BEGIN IMMEDIATE');
    const r = await releasedAfterTicks(other, () =>
      db.transaction().execute(async (tx) => {
        await sql`insert into t values (1)`.execute(tx);
      }),
    );
    expect(r.settledBeforeRelease).toBe(false);
    expect(r.ticksWhilePending).toBeGreaterThanOrEqual(20);
    expect(await count(db)).toBe(1);
  });

  it('a statement outside a transaction waits and is applied once', async () => {
    const { db, other } = open();
    await sql`create table t (n integer)`.execute(db);
    other.exec('BEGIN IMMEDIATE');
    const r = await releasedAfterTicks(other, () => sql`insert into t values (1)`.execute(db));
    expect(r.settledBeforeRelease).toBe(false);
    expect(r.ticksWhilePending).toBeGreaterThanOrEqual(20);
    expect(await count(db)).toBe(1);
  });

  it('held past the deadline: SQLITE_BUSY goes out, nothing is applied, and the store works once the lock is gone', async () => {
    const { db, other } = open(300);
    await sql`create table t (n integer)`.execute(db);
    other.exec('BEGIN IMMEDIATE');
    // The interval is due 5 ms from now, the store's last retry not before its 300 ms deadline:
    // with the loop free, the interval runs before the statement fails; blocked, not at all.
    let ticks = intervalTicks();
    let started = Date.now();
    await expect(db.transaction().execute((tx) => sql`insert into t values (1)`.execute(tx))).rejects.toMatchObject({ code: 'SQLITE_BUSY' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    expect(ticks.stop()).toBeGreaterThanOrEqual(1);
    ticks = intervalTicks();
    started = Date.now();
    await expect(sql`insert into t values (2)`.execute(db)).rejects.toMatchObject({ code: 'SQLITE_BUSY' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    expect(ticks.stop()).toBeGreaterThanOrEqual(1);
    // Reads do not wait for the write lock (WAL).
    expect(await count(db)).toBe(0);
    other.exec('ROLLBACK');
    await db.transaction().execute((tx) => sql`insert into t values (3)`.execute(tx));
    expect(await count(db)).toBe(1);
  });

  it('a transaction takes the write lock when it begins: one that reads, then writes, cannot lose a race to another writer (SQLITE_BUSY_SNAPSHOT)', async () => {
    const { db, other } = open();
    await sql`create table t (n integer)`.execute(db);
    await db.transaction().execute(async (tx) => {
      const before = await count(tx);
      // Another process writing between this transaction's read and its write: with a
      // deferred BEGIN it would succeed, and this transaction's insert fail.
      expect(() => other.exec('insert into t values (100)')).toThrow(expect.objectContaining({ code: 'SQLITE_BUSY' }));
      await sql`insert into t values (${before + 1})`.execute(tx);
    });
    expect(await count(db)).toBe(1);
    other.exec('insert into t values (100)');
    expect(await count(db)).toBe(2);
  });

  it('the busy handler is not used once open: the connection does not sleep inside SQLite', async () => {
    const { db } = open();
    const rows = await sql<{ timeout: number }>`pragma busy_timeout`.execute(db);
    expect(rows.rows[0]!.timeout).toBe(0);
  });
});
