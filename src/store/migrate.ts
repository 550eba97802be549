import { Migrator, type Kysely, type Migration, type MigrationProvider } from 'kysely';
import * as m0001 from './migrations/0001_initial.ts';
import * as m0002 from './migrations/0002_scene_index.ts';
import * as m0003 from './migrations/0003_idempotency.ts';
import * as m0004 from './migrations/0004_leases.ts';
import * as m0005 from './migrations/0005_polygon_uploads.ts';
import * as m0006 from './migrations/0006_active_jobs.ts';
import * as m0007 from './migrations/0007_tif_uploads.ts';
import * as m0008 from './migrations/0008_job_events.ts';
import * as m0009 from './migrations/0009_monitors_webhooks.ts';
import * as m0010 from './migrations/0010_quicklooks.ts';
import * as m0011 from './migrations/0011_ais_uploads.ts';
import * as m0012 from './migrations/0012_map_layers.ts';

/** Migrations are listed here in order; a new one is a new file plus one line. */
const MIGRATIONS: Record<string, Migration> = {
  '0001_initial': m0001,
  '0002_scene_index': m0002,
  '0003_idempotency': m0003,
  '0004_leases': m0004,
  '0005_polygon_uploads': m0005,
  '0006_active_jobs': m0006,
  '0007_tif_uploads': m0007,
  '0008_job_events': m0008,
  '0009_monitors_webhooks': m0009,
  '0010_quicklooks': m0010,
  '0011_ais_uploads': m0011,
  '0012_map_layers': m0012,
};

class StaticMigrationProvider implements MigrationProvider {
  async getMigrations(): Promise<Record<string, Migration>> {
    return MIGRATIONS;
  }
}

/**
 * Migration numbers are handed out to work going on side by side, and that work is merged in
 * whatever order it is finished: a store may have run 0009 before the release with 0008 reaches
 * it. Each migration stands alone (none depends on a later number), so one the store has not
 * run is run, whatever its place — rather than Kysely's default refusal ("corrupted migrations").
 */
const migratorOptions = (db: Kysely<any>) => ({ db, provider: new StaticMigrationProvider(), allowUnorderedMigrations: true });

export async function migrateToLatest(db: Kysely<any>): Promise<void> {
  const migrator = new Migrator(migratorOptions(db));
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    throw new Error(`database migration ${failed?.migrationName ?? ''} failed: ${String((error as Error)?.message ?? error)}`);
  }
}

/** Names of the migrations this version has that the database has not run. */
export async function pendingMigrations(db: Kysely<any>): Promise<string[]> {
  const migrator = new Migrator(migratorOptions(db));
  const all = await migrator.getMigrations();
  return all.filter((m) => m.executedAt === undefined).map((m) => m.name);
}
