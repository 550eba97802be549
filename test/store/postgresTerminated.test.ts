/**
 * Issue 13, Store: the server ending an idle pooled connection (a PostgreSQL restart or
 * failover, pg_terminate_backend) must not stop the process. pg's Pool emits such a client's
 * error on the pool; without a listener that is an uncaught exception (vitest reports it as
 * an error of the run). The next query opens a new connection. And the pool's int8 parser:
 * numbers, exact, refused past 2^53. Always on PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import pg from 'pg';
import { openPostgres } from '../../src/store/postgres.ts';
import { openStore } from '../../src/store/index.ts';
import { createAccount } from '../../src/jobs/accounts.ts';
import { balanceMicros } from '../../src/jobs/credits.ts';
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
        // pg_terminate_backend only signals the backend: wait until it has exited (on a loaded
        // machine that can take longer than the 200 ms below gave it), generous deadline.
        const deadline = Date.now() + 30_000;
        while ((await admin.query('select 1 from pg_stat_activity where pid = $1', [pid])).rowCount) {
          if (Date.now() > deadline) throw new Error(`backend ${pid} still running 30 s after pg_terminate_backend`);
          await new Promise((r) => setTimeout(r, 20));
        }
      } finally {
        await admin.end();
      }
      // Let the closed socket reach the idle client (its error event fires on the pool).
      await new Promise((r) => setTimeout(r, 200));
      const again = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(db);
      expect(again.rows[0]!.pid).not.toBe(pid);
    } finally {
      await db.destroy();
    }
  });
  it('issue 13: int8 values (micro-credits, count(*)) come back as numbers, exact above 2^32; one past 2^53 is refused, never rounded', async () => {
    const db = await openStore(database.url);
    try {
      // 5 billion credits: 5e15 micro-credits, far past 32 bits, still an exact double.
      const { accountId } = await createAccount(db, { name: 'int8', credits: 5e9 });
      const row = await db.selectFrom('accounts').select('balance_micros').where('id', '=', accountId).executeTakeFirstOrThrow();
      expect(row.balance_micros).toBe(5e15);
      expect(await balanceMicros(db, accountId)).toBe(5e15);
      const ledger = await db.selectFrom('credit_ledger').select(['amount_micros', 'balance_after_micros']).where('account_id', '=', accountId).execute();
      expect(ledger).toEqual([{ amount_micros: 5e15, balance_after_micros: 5e15 }]);
      const count = await db.selectFrom('accounts').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
      expect(count.n).toBe(1);
      // 2^53 + 1 has no exact double: reading it fails loudly.
      await expect(sql`select 9007199254740993::int8 as v`.execute(db)).rejects.toThrow(/outside the safe integer range/);
    } finally {
      await db.destroy();
    }
  });
});
