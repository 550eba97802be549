import type { Kysely } from 'kysely';

/**
 * AIS uploads (issue 23 §4): an account's AIS positions (CSV), with the lifecycle of the other
 * uploads (processing → ready | failed). The original file and the normalised fixes (JSON)
 * live in the object store; the row keeps the status and, once ready, how many fixes and
 * vessels it holds and the time span they cover.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('ais_uploads')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('size_bytes', 'bigint', (c) => c.notNull())
    .addColumn('fix_count', 'integer')
    .addColumn('vessel_count', 'integer')
    .addColumn('time_start', 'text')
    .addColumn('time_end', 'text')
    .addColumn('error_message', 'text')
    .addColumn('original_key', 'text', (c) => c.notNull())
    .addColumn('geojson_key', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('ais_uploads_account').on('ais_uploads').columns(['account_id', 'created_at']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('ais_uploads').execute();
}
