import type { Kysely } from 'kysely';

/**
 * Named leases: one holder at a time across every process sharing the store (the retention
 * sweeper, the archive indexer). A holder renews its lease; a dead holder's lease expires.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('leases')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('owner', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();
  // Lease-based job recovery looks for processing jobs whose lease has expired.
  await db.schema.createIndex('jobs_status_lease').on('jobs').columns(['status', 'lease_expires_at']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('jobs_status_lease').execute();
  await db.schema.dropTable('leases').execute();
}
