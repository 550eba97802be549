import fs from 'node:fs';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely } from 'kysely';
import type { Database } from './schema.ts';
import { withStatementCache } from './statementCache.ts';
import { BusyRetryingSqliteDialect, isSqliteBusy } from './sqliteBusy.ts';
import type { StoreDialect } from './port.ts';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE, restrictFile } from '../privateFiles.ts';

/** How long a statement waits for another process's write lock before SQLITE_BUSY goes out (the API's 503). */
export const SQLITE_BUSY_TIMEOUT_MS = 10_000;

export interface OpenSqliteOptions {
  /** Wait for another process's write lock this long (ms); tests shorten it. */
  busyTimeoutMs?: number;
}

/**
 * Opens (creating if needed) the embedded SQLite store. WAL lets the CLI read and write
 * while the server runs; the processes wait for each other's write lock (up to
 * SQLITE_BUSY_TIMEOUT_MS) instead of failing with SQLITE_BUSY at once.
 *
 * That waiting is asynchronous (src/store/sqliteBusy.ts): SQLite's own busy handler would
 * sleep inside a synchronous better-sqlite3 call and stall the whole process, so it is only
 * used while opening (the pragmas below, before anything is served) and is 0 afterwards.
 *
 * The file is created 0600 before SQLite opens it: SQLite gives its -wal and -shm files the
 * database file's mode, so all three stay private. Files of older versions are narrowed.
 */
export function openSqlite(file: string, opts: OpenSqliteOptions = {}): Kysely<Database> {
  const busyTimeoutMs = opts.busyTimeoutMs ?? SQLITE_BUSY_TIMEOUT_MS;
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: PRIVATE_DIR_MODE }); // the data dir itself is narrowed by the runtime
  fs.closeSync(fs.openSync(file, 'a', PRIVATE_FILE_MODE));
  for (const f of [file, `${file}-wal`, `${file}-shm`]) restrictFile(f);
  const sqlite = new SqliteDatabase(file, { timeout: busyTimeoutMs });
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('busy_timeout = 0');
  const dialect = new BusyRetryingSqliteDialect(
    { database: withStatementCache(sqlite) },
    { timeoutMs: busyTimeoutMs, inTransaction: () => sqlite.inTransaction },
  );
  return new Kysely<Database>({ dialect });
}

const codeOf = (err: unknown): unknown => (err as { code?: unknown } | null)?.code;

/** SQLite's side of the store port (src/store/port.ts). */
export const sqliteDialect: StoreDialect = {
  name: 'sqlite',
  /**
   * A write that changes nothing takes the database write lock at once (the dialect begins
   * transactions IMMEDIATE anyway), instead of at the insert after the caller's count.
   */
  async lockAccount(tx, accountId) {
    const res = await tx.updateTable('accounts').set((eb) => ({ balance_micros: eb.ref('balance_micros') })).where('id', '=', accountId).executeTakeFirst();
    return Number(res.numUpdatedRows) > 0;
  },
  isUniqueViolation: (err) => codeOf(err) === 'SQLITE_CONSTRAINT_UNIQUE' || codeOf(err) === 'SQLITE_CONSTRAINT_PRIMARYKEY',
  /** SQLITE_BUSY (and its extended codes) once the wait for another process's write lock is over, and SQLITE_LOCKED. */
  isUnavailable: (err) => isSqliteBusy(err) || codeOf(err) === 'SQLITE_LOCKED',
};
