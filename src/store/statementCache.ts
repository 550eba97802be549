/**
 * Kysely's SQLite driver prepares every query anew (`db.prepare(sql)` per execution). Under
 * the API bench that compiling was a sixth of the embedded server's CPU. The store's SQL
 * texts are few (Kysely compiles the same query shape to the same text, values are bound),
 * so prepared statements are kept by text, least recently used dropped past `max`.
 *
 * better-sqlite3 runs a statement to its end synchronously (`all`, `run`), so one statement
 * serves every caller; only one that is still being iterated (`busy`) is not reused.
 */
import type BetterSqlite3 from 'better-sqlite3';
import type { SqliteDatabase, SqliteStatement } from 'kysely';

export function withStatementCache(db: BetterSqlite3.Database, max = 256): SqliteDatabase {
  const cache = new Map<string, BetterSqlite3.Statement>();
  return {
    close: () => db.close(),
    prepare(sql: string): SqliteStatement {
      const cached = cache.get(sql);
      if (cached && !cached.busy) {
        // Most recently used last: Map keeps insertion order.
        cache.delete(sql);
        cache.set(sql, cached);
        return cached as unknown as SqliteStatement;
      }
      const stmt = db.prepare(sql);
      if (!cached) {
        cache.set(sql, stmt);
        if (cache.size > max) cache.delete(cache.keys().next().value!);
      }
      return stmt as unknown as SqliteStatement;
    },
  };
}
