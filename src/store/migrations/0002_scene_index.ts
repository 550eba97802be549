import type { Kysely } from 'kysely';

/** The local catalog's index: scenes (with a bbox for coarse spatial filtering) and files. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('scenes')
    .addColumn('scene_id', 'text', (c) => c.primaryKey())
    .addColumn('product_type', 'text', (c) => c.notNull())
    .addColumn('orbit_direction', 'text', (c) => c.notNull())
    .addColumn('start_time', 'text', (c) => c.notNull())
    .addColumn('min_lon', 'double precision', (c) => c.notNull())
    .addColumn('min_lat', 'double precision', (c) => c.notNull())
    .addColumn('max_lon', 'double precision', (c) => c.notNull())
    .addColumn('max_lat', 'double precision', (c) => c.notNull())
    /** The whole SceneRecord as JSON. */
    .addColumn('record', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('scenes_start').on('scenes').columns(['start_time', 'scene_id']).execute();
  await db.schema
    .createTable('catalog_files')
    .addColumn('path', 'text', (c) => c.primaryKey())
    .addColumn('mtime_ms', 'double precision', (c) => c.notNull())
    .addColumn('size', 'bigint', (c) => c.notNull())
    /** JSON array of the scene ids this file contributes to. */
    .addColumn('scene_ids', 'text', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('catalog_files').execute();
  await db.schema.dropTable('scenes').execute();
}
