/**
 * Named leases in the store: at most one holder of a name at a time across every process
 * that shares the store, with no coordinator. Taking a lease is one statement — an upsert
 * that only overwrites an expired lease or the caller's own — so two processes racing for
 * a free lease cannot both win. A holder that dies simply stops renewing.
 */
import type { Db } from './index.ts';

const later = (seconds: number) => new Date(Date.now() + seconds * 1000).toISOString();

/** Takes or renews the lease `name` for `owner` for `ttlSeconds`; false while someone else holds it. */
export async function acquireLease(db: Db, name: string, owner: string, ttlSeconds: number): Promise<boolean> {
  const now = new Date().toISOString();
  const row = await db
    .insertInto('leases')
    .values({ name, owner, expires_at: later(ttlSeconds) })
    .onConflict((oc) =>
      oc
        .column('name')
        .doUpdateSet((eb) => ({ owner: eb.ref('excluded.owner'), expires_at: eb.ref('excluded.expires_at') }))
        .where((eb) => eb.or([eb('leases.expires_at', '<', now), eb('leases.owner', '=', owner)])),
    )
    .returning('owner')
    .executeTakeFirst();
  return row !== undefined;
}

export async function releaseLease(db: Db, name: string, owner: string): Promise<void> {
  await db.deleteFrom('leases').where('name', '=', name).where('owner', '=', owner).execute();
}

/**
 * Runs `fn` if the lease `name` is free, holding (and renewing) it until `fn` settles.
 * Returns false without running `fn` when another process holds the lease.
 */
export async function runExclusive(db: Db, name: string, owner: string, ttlSeconds: number, fn: () => Promise<unknown>): Promise<boolean> {
  if (!(await acquireLease(db, name, owner, ttlSeconds))) return false;
  const renew = setInterval(() => void acquireLease(db, name, owner, ttlSeconds).catch(() => {}), (ttlSeconds * 1000) / 3);
  renew.unref();
  try {
    await fn();
  } finally {
    clearInterval(renew);
    await releaseLease(db, name, owner).catch(() => {});
  }
  return true;
}

/** Like runExclusive, but waits for the lease when another process holds it. */
export async function runWhenFree(db: Db, name: string, owner: string, ttlSeconds: number, fn: () => Promise<unknown>, pollMs = 250): Promise<void> {
  while (!(await runExclusive(db, name, owner, ttlSeconds, fn))) await new Promise((r) => setTimeout(r, pollMs));
}
