/**
 * The store's port for what its two backends do differently; each side is in sqlite.ts and
 * postgres.ts, and dialect.ts says which side a handle runs on.
 */
import type { Kysely } from 'kysely';
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
