/**
 * Both store backends for tests that check a store-level rule on each: a fresh SQLite file or
 * a fresh PostgreSQL database per call, migrated, closed (and dropped) by `closeStores`.
 */
import path from 'node:path';
import { openStore, type Db, type OpenStoreOptions } from '../../src/store/index.ts';
import { tempDataDir } from './service.ts';
import { createTestDatabase } from './services.ts';

export type StoreKind = 'sqlite' | 'postgres';
export const STORE_KINDS: readonly StoreKind[] = ['sqlite', 'postgres'];

/** A migrated store of `kind` and the URL that opens further connections to it. */
export interface OpenedStore {
  db: Db;
  url: string;
}

const cleanup: Array<() => Promise<void>> = [];

export async function freshStore(kind: StoreKind, opts: OpenStoreOptions = {}): Promise<OpenedStore> {
  if (kind === 'sqlite') {
    const url = `sqlite:${path.join(tempDataDir(), 'store.db')}`;
    const db = await openStore(url, opts);
    cleanup.push(() => db.destroy());
    return { db, url };
  }
  const database = await createTestDatabase();
  const db = await openStore(database.url, opts);
  cleanup.push(async () => {
    await db.destroy();
    await database.drop();
  });
  return { db, url: database.url };
}

/** Another connection (SQLite) or pool (PostgreSQL) to a store made by freshStore, closed with it. */
export async function secondHandle(url: string, opts: OpenStoreOptions = {}): Promise<Db> {
  const db = await openStore(url, { ...opts, migrate: false });
  cleanup.push(() => db.destroy());
  return db;
}

/** Closes (and drops) every store opened here, the later ones first; for afterAll. */
export async function closeStores(): Promise<void> {
  for (const fn of cleanup.splice(0).reverse()) await fn();
}
