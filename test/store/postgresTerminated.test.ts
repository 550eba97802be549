/**
 * Issue 13, Store: the server ending an idle pooled connection (a PostgreSQL restart or
 * failover, pg_terminate_backend) must not stop the process. pg's Pool emits such a client's
 * error on the pool; without a listener that is an uncaught exception (vitest reports it as
 * an error of the run). The next query opens a new connection. Always on PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import pg from 'pg';
import { openPostgres } from '../../src/store/postgres.ts';
import { PG_ADMIN_URL, createTestDatabase, type TestDatabase } from '../helpers/services.ts';

let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase();
});

afterAll(async () => {
  await database?.drop();
});

describe('PostgreSQL pool', () => {
  it('issue 13: idle connections terminated by the server are dropped quietly; the next query reconnects', async () => {
    const db = openPostgres(database.url, 4);
    try {
      const first = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(db);
      const pid = first.rows[0]!.pid;
      const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
      await admin.connect();
      try {
        const killed = await admin.query('select pg_terminate_backend($1) as ok', [pid]);
        expect(killed.rows[0].ok).toBe(true);
      } finally {
        await admin.end();
      }
      // Let the termination reach the idle client (its error event fires on the pool).
      await new Promise((r) => setTimeout(r, 200));
      const again = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(db);
      expect(again.rows[0]!.pid).not.toBe(pid);
    } finally {
      await db.destroy();
    }
  });
});
