import type { Kysely } from 'kysely';

/**
 * Polygon uploads (issue 14): an account's uploaded AOI file, validated asynchronously
 * (processing → ready | failed). The original file and the normalised GeoJSON live in the
 * object store; the row keeps the status, the facts of a ready upload and the union of its
 * features as WKT (the AOI of a job that names the upload).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('polygon_uploads')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('format', 'text', (c) => c.notNull())
    .addColumn('size_bytes', 'bigint', (c) => c.notNull())
    .addColumn('feature_count', 'integer')
    .addColumn('area_sqkm', 'double precision')
    .addColumn('aoi_wkt', 'text')
    .addColumn('error_message', 'text')
    .addColumn('original_key', 'text', (c) => c.notNull())
    .addColumn('geojson_key', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('polygon_uploads_account').on('polygon_uploads').columns(['account_id', 'created_at']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('polygon_uploads').execute();
}
