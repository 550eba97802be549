import { sql, type Kysely } from 'kysely';

// Portable DDL only (text, integer, bigint, double precision) so the same migration runs on
// SQLite and PostgreSQL.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('accounts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('balance_micros', 'bigint', (c) => c.notNull().check(sql`balance_micros >= 0`))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('secret_hash', 'text', (c) => c.notNull())
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('endpoints', 'text')
    .addColumn('label', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('revoked_at', 'text')
    .execute();

  await db.schema
    .createTable('credit_ledger')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('job_id', 'text')
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('amount_micros', 'bigint', (c) => c.notNull())
    .addColumn('balance_after_micros', 'bigint', (c) => c.notNull())
    .addColumn('note', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  // One reservation and one settlement per job, at most: a retried settlement cannot
  // charge or refund twice.
  await db.schema
    .createIndex('credit_ledger_job_kind_unique')
    .on('credit_ledger')
    .columns(['job_id', 'kind'])
    .unique()
    .where((eb) => eb('job_id', 'is not', null))
    .execute();
  await db.schema.createIndex('credit_ledger_account').on('credit_ledger').columns(['account_id', 'created_at']).execute();

  await db.schema
    .createTable('jobs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('endpoint_id', 'text')
    .addColumn('family', 'text', (c) => c.notNull())
    .addColumn('satellite_id', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('started_at', 'text')
    .addColumn('completed_at', 'text')
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('request_params', 'text')
    .addColumn('credits_reserved_micros', 'bigint', (c) => c.notNull())
    .addColumn('credits_used_micros', 'bigint')
    .addColumn('area_sqkm', 'double precision')
    .addColumn('lat', 'double precision')
    .addColumn('lon', 'double precision')
    .addColumn('coverage', 'text')
    .addColumn('scene_selection', 'text')
    .addColumn('warnings', 'text', (c) => c.notNull())
    .addColumn('error_code', 'text')
    .addColumn('error_message', 'text')
    .addColumn('progress', 'integer')
    .addColumn('result_key', 'text')
    .addColumn('result_expires_at', 'text')
    .addColumn('result_deleted_at', 'text')
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('lease_owner', 'text')
    .addColumn('lease_expires_at', 'text')
    .execute();
  await db.schema.createIndex('jobs_account_created').on('jobs').columns(['account_id', 'created_at', 'id']).execute();
  await db.schema.createIndex('jobs_status_created').on('jobs').columns(['status', 'created_at']).execute();
  await db.schema.createIndex('jobs_result_expiry').on('jobs').columns(['result_expires_at']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const t of ['jobs', 'credit_ledger', 'api_keys', 'accounts']) await db.schema.dropTable(t).execute();
}
