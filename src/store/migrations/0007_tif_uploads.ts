import type { Kysely } from 'kysely';

/**
 * Image uploads (issue 14): an account's σ0 GeoTIFF or SAFE zip, streamed to the object
 * store and validated asynchronously (processing → ready | failed), as polygon uploads are.
 * The row keeps the status and, once ready, what validation read: the polarisations, the
 * image size and its footprint as WKT (the AOI of a job on the image without a polygon).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('tif_uploads')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('size_bytes', 'bigint', (c) => c.notNull())
    .addColumn('polarisations', 'text')
    .addColumn('width', 'integer')
    .addColumn('height', 'integer')
    .addColumn('footprint_wkt', 'text')
    .addColumn('error_message', 'text')
    .addColumn('original_key', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('tif_uploads_account').on('tif_uploads').columns(['account_id', 'created_at']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('tif_uploads').execute();
}
