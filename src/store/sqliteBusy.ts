/**
 * Waiting for SQLite's write lock without blocking the event loop.
 *
 * better-sqlite3 is synchronous: with SQLite's own `busy_timeout`, a statement that finds the
 * write lock held by another process (a `sarwatch` CLI command, a backup tool) sleeps inside
 * SQLite's busy handler, and the whole process — every request, even /healthz — stalls with
 * it. So the server's connection runs with `busy_timeout = 0` and this dialect does the
 * waiting instead, asynchronously:
 *
 * - A transaction starts with `BEGIN IMMEDIATE` (Kysely's driver says `BEGIN`, deferred). It
 *   takes the write lock at once, so it is the only statement of a transaction that can find
 *   the database locked: in WAL mode a deferred transaction that reads and then writes fails
 *   with SQLITE_BUSY_SNAPSHOT when another process wrote in between, and no waiting helps it.
 *   Within the process Kysely serialises the one connection anyway, so taking the write lock
 *   early costs nothing here.
 * - A statement outside a transaction (autocommit), `BEGIN IMMEDIATE` included, that fails with
 *   SQLITE_BUSY is retried after a short pause (5 ms doubling to 100 ms, jittered) until the
 *   deadline; then the SQLITE_BUSY error goes out (the API answers 503). Such a statement was
 *   either applied whole or not at all, so running it again is safe.
 * - A statement inside a transaction is never retried (the transaction already holds the lock;
 *   an error there is the caller's to see).
 *
 * While one statement waits, the process's other queries wait for the connection (Kysely
 * hands it out one caller at a time), but the event loop runs.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import {
  CompiledQuery,
  SqliteDialect,
  SqliteDriver,
  type DatabaseConnection,
  type Driver,
  type QueryResult,
  type SqliteDialectConfig,
} from 'kysely';

export interface BusyRetry {
  /** How long one statement keeps retrying on SQLITE_BUSY (ms) before the error goes out. */
  timeoutMs: number;
  /** Whether the connection is inside a transaction (better-sqlite3's `inTransaction`). */
  inTransaction: () => boolean;
}

const FIRST_PAUSE_MS = 5;
const MAX_PAUSE_MS = 100;

/** SQLITE_BUSY and its extended codes (better-sqlite3 reports extended codes: SQLITE_BUSY_SNAPSHOT, …). */
export function isSqliteBusy(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code === 'SQLITE_BUSY' || code.startsWith('SQLITE_BUSY_'));
}

/** SqliteDialect whose driver begins transactions IMMEDIATE and waits for a busy database asynchronously. */
export class BusyRetryingSqliteDialect extends SqliteDialect {
  readonly #config: SqliteDialectConfig;
  readonly #busy: BusyRetry;

  constructor(config: SqliteDialectConfig, busy: BusyRetry) {
    super(config);
    this.#config = config;
    this.#busy = busy;
  }

  override createDriver(): Driver {
    return new BusyRetryingSqliteDriver(this.#config, this.#busy);
  }
}

class BusyRetryingSqliteDriver extends SqliteDriver {
  readonly #busy: BusyRetry;
  #wrapped: { inner: DatabaseConnection; outer: DatabaseConnection } | undefined;

  constructor(config: SqliteDialectConfig, busy: BusyRetry) {
    super(config);
    this.#busy = busy;
  }

  override async acquireConnection(): Promise<DatabaseConnection> {
    const inner = await super.acquireConnection();
    if (this.#wrapped?.inner !== inner) this.#wrapped = { inner, outer: new BusyRetryingConnection(inner, this.#busy) };
    return this.#wrapped.outer;
  }

  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    // Outside a transaction still, so the connection retries it while the database is busy.
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

class BusyRetryingConnection implements DatabaseConnection {
  readonly #inner: DatabaseConnection;
  readonly #busy: BusyRetry;

  constructor(inner: DatabaseConnection, busy: BusyRetry) {
    this.#inner = inner;
    this.#busy = busy;
  }

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (this.#busy.inTransaction()) return this.#inner.executeQuery<R>(query);
    const deadline = Date.now() + this.#busy.timeoutMs;
    let pause = FIRST_PAUSE_MS;
    for (;;) {
      try {
        return await this.#inner.executeQuery<R>(query);
      } catch (e) {
        // A statement that left a transaction open is not an autocommit one to run again.
        if (!isSqliteBusy(e) || this.#busy.inTransaction()) throw e;
        const left = deadline - Date.now();
        if (left <= 0) throw e;
        // Jittered, so processes waiting for the same lock do not retry in step.
        await sleep(Math.min(left, pause / 2 + (Math.random() * pause) / 2));
        pause = Math.min(pause * 2, MAX_PAUSE_MS);
      }
    }
  }

  streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    return this.#inner.streamQuery<R>(query, chunkSize);
  }
}
