import type { Kysely } from 'kysely';
import { migrateToLatest } from './migrate.ts';
import type { Database } from './schema.ts';
import { openSqlite } from './sqlite.ts';

export type Db = Kysely<Database>;
export * from './schema.ts';

/**
 * Opens the store named by DATABASE_URL-style text: a `sqlite:` path (the embedded default)
 * for now; the PostgreSQL dialect plugs in here.
 */
export async function openStore(url: string): Promise<Db> {
  let db: Db;
  if (url.startsWith('sqlite:')) db = openSqlite(url.slice('sqlite:'.length));
  else throw new Error(`unsupported DATABASE_URL "${url}": expected sqlite:PATH`);
  await migrateToLatest(db);
  return db;
}
