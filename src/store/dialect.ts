/**
 * The store's port for what its two backends do differently — the only place outside the
 * backend files (sqlite.ts, postgres.ts) that knows there are two. Callers ask it instead of
 * testing an adapter class or a driver's error code: how to lock an account row for the rest of a
 * transaction, whether an error is a unique-key violation, whether the store did not answer.
 */
import { PostgresAdapter, SqliteAdapter, type DialectAdapter, type Kysely } from 'kysely';
import { postgresDialect } from './postgres.ts';
import { sqliteDialect } from './sqlite.ts';
import type { Database } from './schema.ts';

export interface StoreDialect {
  readonly name: 'sqlite' | 'postgres';
  /**
   * Serialises the writers of one account until `tx` ends, so a check that counts the
   * account's jobs and the insert that follows cannot interleave with another writer's.
   * False when the account does not exist.
   */
  lockAccount(tx: Kysely<Database>, accountId: string): Promise<boolean>;
  /** The error of a statement refused by a unique index. */
  isUniqueViolation(err: unknown): boolean;
  /**
   * The error of a store that did not answer — down, restarting, out of connections, or
   * locked by another process past the wait — as opposed to a fault of the statement.
   */
  isUnavailable(err: unknown): boolean;
}

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
