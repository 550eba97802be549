/**
 * Which side of the store port (port.ts) a handle runs on — the only place outside the
 * backend files (sqlite.ts, postgres.ts) that knows there are two. Callers ask it instead of
 * testing an adapter class or a driver's error code: how to lock an account row for the rest of a
 * transaction, whether an error is a unique-key violation, whether the store did not answer.
 */
import { PostgresAdapter, SqliteAdapter, type DialectAdapter } from 'kysely';
import type { StoreDialect } from './port.ts';
import { postgresDialect } from './postgres.ts';
import { sqliteDialect } from './sqlite.ts';

const DIALECTS: readonly StoreDialect[] = [sqliteDialect, postgresDialect];

/** The dialect of the backend `db` (a store, a transaction of it, or a migration's handle) runs on. */
export function dialectOf(db: { getExecutor(): { readonly adapter: DialectAdapter } }): StoreDialect {
  const adapter = db.getExecutor().adapter;
  if (adapter instanceof PostgresAdapter) return postgresDialect;
  if (adapter instanceof SqliteAdapter) return sqliteDialect;
  throw new Error(`no store dialect for the adapter ${adapter.constructor.name}`);
}

/** Whether `err` says a store of either backend did not answer (the API's 503). */
export function isStoreUnavailable(err: unknown): boolean {
  return DIALECTS.some((d) => d.isUnavailable(err));
}
