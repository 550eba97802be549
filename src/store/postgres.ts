import pg from 'pg';
import { Kysely, PostgresDialect } from 'kysely';
import type { Database } from './schema.ts';
import type { StoreDialect } from './port.ts';

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
  // The same for a connection the server ends while a transaction holds it idle (checked out of
  // the pool, so the pool does not listen): the error is emitted on the client. Heard here, the
  // transaction's next statement fails as the store being unavailable and the pool replaces the
  // client when the transaction releases it.
  pool.on('connect', (client) => client.on('error', () => {}));
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
}

/**
 * SQLSTATEs of a server that is down, restarting or full: admin-shutdown, crash-shutdown,
 * cannot-connect-now, the connection-exception class, too-many-connections.
 */
const UNAVAILABLE_STATES = new Set(['57P01', '57P02', '57P03', '08000', '08001', '08003', '08004', '08006', '53300']);
/** node-postgres's own messages for a connection it lost or could not get (no code). */
const UNAVAILABLE_MESSAGE = /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error and is not queryable)/;
const UNIQUE_VIOLATION = '23505';

const codeOf = (err: unknown): unknown => (err as { code?: unknown } | null)?.code;

/** PostgreSQL's side of the store port (src/store/port.ts). */
export const postgresDialect: StoreDialect = {
  name: 'postgres',
  /**
   * A row lock on the account: READ COMMITTED gives every later statement of a waiting
   * transaction a fresh snapshot, so its count sees the winner's rows.
   */
  async lockAccount(tx, accountId) {
    const row = await tx.selectFrom('accounts').select('id').where('id', '=', accountId).forUpdate().executeTakeFirst();
    return row !== undefined;
  },
  isUniqueViolation: (err) => codeOf(err) === UNIQUE_VIOLATION,
  isUnavailable: (err) => {
    const code = codeOf(err);
    return (typeof code === 'string' && UNAVAILABLE_STATES.has(code)) || (err instanceof Error && UNAVAILABLE_MESSAGE.test(err.message));
  },
};
