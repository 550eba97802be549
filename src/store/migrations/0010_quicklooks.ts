import type { Kysely } from 'kysely';

/**
 * Quicklooks (issue 22): a completed job's picture and its Web-Mercator overlay are objects
 * of their own, written by the attempt that completes the job; the overlay's WGS84 corners are
 * kept as JSON ([west, south, east, north]). Null when the job has none (idlefarm, a quicklook
 * that failed, jobs completed before this migration).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('jobs').addColumn('quicklook_key', 'text').execute();
  await db.schema.alterTable('jobs').addColumn('overlay_key', 'text').execute();
  await db.schema.alterTable('jobs').addColumn('overlay_bounds', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('jobs').dropColumn('overlay_bounds').execute();
  await db.schema.alterTable('jobs').dropColumn('overlay_key').execute();
  await db.schema.alterTable('jobs').dropColumn('quicklook_key').execute();
}
