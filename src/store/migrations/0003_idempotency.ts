import type { Kysely } from 'kysely';

/** Idempotent submission: a retried POST with the same Idempotency-Key returns the same job. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('jobs').addColumn('idempotency_key', 'text').execute();
  await db.schema.alterTable('jobs').addColumn('request_hash', 'text').execute();
  await db.schema
    .createIndex('jobs_account_idempotency_unique')
    .on('jobs')
    .columns(['account_id', 'idempotency_key'])
    .unique()
    .where((eb) => eb('idempotency_key', 'is not', null))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('jobs_account_idempotency_unique').execute();
  await db.schema.alterTable('jobs').dropColumn('request_hash').execute();
  await db.schema.alterTable('jobs').dropColumn('idempotency_key').execute();
}
