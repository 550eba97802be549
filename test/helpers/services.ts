/**
 * The servers the scaled-out tests need — PostgreSQL and Redis — found running, or
 * started here when installed but stopped. Nothing is skipped: when a server cannot be
 * reached or started, the test fails with a message that says how to provide it
 * (`.ci/run` installs both on a fresh machine).
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import pg from 'pg';
import { Redis } from 'ioredis';

/** The store the job and API suites run on: `sqlite` (default) or `postgres`. */
export const TEST_STORE: 'sqlite' | 'postgres' = process.env.SARWATCH_TEST_STORE === 'postgres' ? 'postgres' : 'sqlite';

/** A superuser connection to an existing database, used to create and drop test databases. */
export const PG_ADMIN_URL = process.env.SARWATCH_TEST_PG_URL || 'postgres://postgres@127.0.0.1:5432/postgres';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function pgReachable(): Promise<boolean> {
  const client = new pg.Client({ connectionString: PG_ADMIN_URL, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

let pgReady: Promise<void> | null = null;

/** Resolves once PostgreSQL answers, starting the local cluster if it is installed but stopped. */
export function ensurePostgres(): Promise<void> {
  pgReady ??= (async () => {
    if (await pgReachable()) return;
    const versions = fs.existsSync('/etc/postgresql') ? fs.readdirSync('/etc/postgresql') : [];
    if (versions.length === 0) {
      throw new Error(`PostgreSQL is not reachable at ${PG_ADMIN_URL} and not installed; run .ci/run (installs it) or set SARWATCH_TEST_PG_URL`);
    }
    try {
      execFileSync('pg_ctlcluster', ['--skip-systemctl-redirect', versions[0]!, 'main', 'start'], { stdio: 'pipe' });
    } catch {
      // Another test file may be starting it at the same moment; the wait below decides.
    }
    for (let i = 0; i < 60; i++) {
      if (await pgReachable()) return;
      await sleep(250);
    }
    throw new Error(`PostgreSQL did not come up at ${PG_ADMIN_URL}`);
  })();
  return pgReady;
}

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

/** A fresh, uniquely named database, so parallel test files never share tables. */
export async function createTestDatabase(): Promise<TestDatabase> {
  await ensurePostgres();
  const name = `sarwatch_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: PG_ADMIN_URL });
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await c.end();
      }
    },
  };
}

/** By data directory; a promise, so calls racing for the same directory share one database. */
const databases = new Map<string, Promise<TestDatabase>>();

/**
 * The environment that points a service at the test store: nothing for SQLite (the data
 * directory holds it); for PostgreSQL a database created for `dataDir`, the same one on
 * every call, so a restarted service finds its jobs.
 */
export async function testStoreEnv(dataDir: string): Promise<Record<string, string>> {
  if (TEST_STORE === 'sqlite') return {};
  let db = databases.get(dataDir);
  if (!db) {
    db = createTestDatabase();
    databases.set(dataDir, db);
  }
  return { DATABASE_URL: (await db).url };
}

/** Drops the database made for `dataDir`, if any. */
export async function dropTestStore(dataDir: string): Promise<void> {
  const db = databases.get(dataDir);
  databases.delete(dataDir);
  // A database that was never made (its creation failed) has nothing to drop.
  await (await db?.catch(() => null))?.drop();
}

/** The Redis the BullMQ tests use; each test picks its own queue name. */
export const REDIS_URL = process.env.SARWATCH_TEST_REDIS_URL || 'redis://127.0.0.1:6379';

async function redisReachable(): Promise<boolean> {
  const client = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 2000 });
  client.on('error', () => {});
  try {
    await client.connect();
    return (await client.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

let redisReady: Promise<void> | null = null;

/** Resolves once Redis answers, starting a local redis-server in the background if installed. */
export function ensureRedis(): Promise<void> {
  redisReady ??= (async () => {
    if (await redisReachable()) return;
    const port = new URL(REDIS_URL).port || '6379';
    try {
      execFileSync('redis-server', ['--daemonize', 'yes', '--bind', '127.0.0.1', '--port', port, '--save', '', '--appendonly', 'no'], { stdio: 'pipe' });
    } catch (e) {
      throw new Error(`Redis is not reachable at ${REDIS_URL} and redis-server could not be started (${(e as Error).message}); run .ci/run (installs it) or set SARWATCH_TEST_REDIS_URL`);
    }
    for (let i = 0; i < 40; i++) {
      if (await redisReachable()) return;
      await sleep(250);
    }
    throw new Error(`Redis did not come up at ${REDIS_URL}`);
  })();
  return redisReady;
}

/** A queue name no other test uses. */
export function uniqueQueueName(): string {
  return `sarwatch-test-${process.pid}-${randomBytes(4).toString('hex')}`;
}
