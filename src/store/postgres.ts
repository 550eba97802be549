import pg from 'pg';
import { Kysely, PostgresDialect } from 'kysely';
import type { Database } from './schema.ts';

const INT8_OID = 20;

/**
 * Parses int8 (bigint columns, count(*)) into numbers. node-postgres returns int8 as text
 * because it can exceed 2^53; our int8 values are micro-credits, byte sizes and counts, all
 * far below 2^53 (9 × 10^9 credits), so a number is exact. The parser is set on this pool
 * only, never on the process-wide `pg.types`.
 */
function parseInt8(text: string): number {
  const value = Number(text);
  if (!Number.isSafeInteger(value)) throw new Error(`int8 value ${text} is outside the safe integer range`);
  return value;
}

const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === INT8_OID && format !== 'binary') return parseInt8;
    return pg.types.getTypeParser(oid, format as 'text');
  },
};

/** Opens the PostgreSQL store of the scaled-out mode (`DATABASE_URL=postgres://…`). */
export function openPostgres(url: string, poolSize: number): Kysely<Database> {
  const pool = new pg.Pool({ connectionString: url, max: poolSize, types: types as pg.CustomTypesConfig });
  // An idle pooled connection that the server ends (a PostgreSQL restart or failover, an
  // administrator's pg_terminate_backend) is emitted on the pool; unheard, that event is an
  // uncaught exception that stops the process. The pool has already dropped the client; the
  // next query opens a new connection, and a database that stays down shows in the failing
  // requests and in /readyz.
  pool.on('error', () => {});
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
}
