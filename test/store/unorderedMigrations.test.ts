/**
 * Migrations merged out of number order: a store that ran 0009 (monitors) before the release
 * with 0008 (job events) reaches it still migrates — 0008 runs then, and the job event log
 * works. Without allowUnorderedMigrations Kysely refuses ("corrupted migrations") and the
 * service cannot start on such a store. SQLite, and PostgreSQL with SARWATCH_TEST_STORE=postgres.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Migrator, type Migration } from 'kysely';
import { openStore } from '../../src/store/index.ts';
import { migrateToLatest, pendingMigrations } from '../../src/store/migrate.ts';
import { TEST_STORE, createTestDatabase, type TestDatabase } from '../helpers/services.ts';

const EARLIER = ['0001_initial', '0002_scene_index', '0003_idempotency', '0004_leases', '0005_polygon_uploads', '0006_active_jobs', '0007_tif_uploads', '0009_monitors_webhooks'];

let database: TestDatabase | null = null;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sarwatch-unordered-'));
afterAll(async () => {
  await database?.drop();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('migrations merged out of number order', () => {
  it('a store that ran 0009 before 0008 existed runs 0008 afterwards; the job event trigger then logs job changes', async () => {
    let url = `sqlite:${path.join(dir, 'store.db')}`;
    if (TEST_STORE === 'postgres') {
      database = await createTestDatabase();
      url = database.url;
    }
    const db = await openStore(url, { migrate: false });
    try {
      const earlier: Record<string, Migration> = {};
      for (const name of EARLIER) earlier[name] = (await import(`../../src/store/migrations/${name}.ts`)) as Migration;
      const { error } = await new Migrator({ db, provider: { getMigrations: async () => earlier } }).migrateToLatest();
      expect(error).toBeUndefined();
      // 0008 is pending although a later number ran; so is every migration added after 0009.
      const all = fs
        .readdirSync(path.join(import.meta.dirname, '../../src/store/migrations'))
        .filter((f) => /^\d{4}_.*\.ts$/.test(f))
        .map((f) => f.replace(/\.ts$/, ''))
        .sort();
      const pending = await pendingMigrations(db);
      expect(pending[0]).toBe('0008_job_events');
      expect(pending).toEqual(all.filter((name) => !EARLIER.includes(name)));

      await migrateToLatest(db);
      expect(await pendingMigrations(db)).toEqual([]);
      const now = new Date().toISOString();
      await db.insertInto('accounts').values({ id: 'a1', name: 'a', balance_micros: 0, created_at: now }).execute();
      await db
        .insertInto('jobs')
        .values({ id: 'j1', account_id: 'a1', endpoint_id: 'ship', family: 'detect', status: 'pending', created_at: now, updated_at: now, credits_reserved_micros: 0, warnings: '[]' })
        .execute();
      await db.updateTable('jobs').set({ status: 'processing', progress: 0 }).where('id', '=', 'j1').execute();
      const events = await db.selectFrom('job_events').select(['kind', 'status']).where('job_id', '=', 'j1').orderBy('id').execute();
      expect(events).toEqual([
        { kind: 'status', status: 'pending' },
        { kind: 'status', status: 'processing' },
      ]);
    } finally {
      await db.destroy();
    }
  });
});
