import { sql, type Kysely } from 'kysely';
import { migrateToLatest } from './migrate.ts';
import type { Database } from './schema.ts';
import { openSqlite } from './sqlite.ts';
import { openPostgres } from './postgres.ts';

export type Db = Kysely<Database>;
export * from './schema.ts';

export interface OpenStoreOptions {
  /** Bring the schema up to date (default). `sarwatch api`/`worker` in a deployment run `sarwatch migrate` first instead. */
  migrate?: boolean;
  /** Connections per process (PostgreSQL only; SQLite has one). */
  poolSize?: number;
  /** How long a statement waits for another process's SQLite write lock (ms; SQLite only, default 10 s); tests shorten it. */
  sqliteBusyTimeoutMs?: number;
}

/**
 * Opens the store named by DATABASE_URL-style text: `sqlite:PATH` (the embedded default) or
 * `postgres://…` / `postgresql://…` (the scaled-out mode). Both run the same queries and the
 * same migrations.
 */
export async function openStore(url: string, opts: OpenStoreOptions = {}): Promise<Db> {
  let db: Db;
  if (url.startsWith('sqlite:')) db = openSqlite(url.slice('sqlite:'.length), { busyTimeoutMs: opts.sqliteBusyTimeoutMs });
  else if (/^postgres(ql)?:\/\//.test(url)) db = openPostgres(url, opts.poolSize ?? 10);
  else throw new Error(`unsupported DATABASE_URL "${redact(url)}": expected sqlite:PATH or postgres://…`);
  if (opts.migrate ?? true) {
    try {
      await migrateToLatest(db);
    } catch (e) {
      await db.destroy();
      throw e;
    }
  }
  return db;
}

/** Resolves when the store answers a trivial query (the readiness probe). */
export async function pingStore(db: Db): Promise<void> {
  await sql`select 1`.execute(db);
}

/** The URL without its password, for messages. */
function redact(url: string): string {
  return url.replace(/\/\/([^:/@]*):[^@/]*@/, '//$1:***@');
}
