import type { Kysely } from 'kysely';

/**
 * Map layers (issue 22, the dashboard): a completed time-series job's cells with their
 * deviation as a small GeoJSON object of its own, written by the attempt that completes the
 * job and kept and deleted with the result and the quicklook. Null when the job has none
 * (another endpoint, a layer that failed, jobs completed before this migration).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('jobs').addColumn('map_layer_key', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('jobs').dropColumn('map_layer_key').execute();
}
