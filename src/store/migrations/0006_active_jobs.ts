import type { Kysely } from 'kysely';

/**
 * Every submission counts the account's pending and processing jobs under the account's
 * lock (the concurrent-job limit). Without this index that count read every job the
 * account ever had, so a submission slowed down with the account's history, and held the
 * lock longer while it did.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('jobs_account_status').on('jobs').columns(['account_id', 'status']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('jobs_account_status').execute();
}
