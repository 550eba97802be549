/**
 * The scaled-out mode's stores for a bench run: a fresh PostgreSQL database and BullMQ queue
 * names (SARWATCH_BENCH_PG_URL, SARWATCH_BENCH_REDIS_URL override the local defaults), and
 * how to drop them again.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { Queue } from 'bullmq';

export interface ScaledStore {
  env: { DATABASE_URL: string; REDIS_URL: string; SARWATCH_QUEUE_NAME: string };
  /** Drops the database and obliterates the queues (the job queue and those named by `queueSuffixes`). */
  cleanup(): Promise<void>;
}

export async function scaledStore(label: string, queueSuffixes: string[] = []): Promise<ScaledStore> {
  const adminUrl = process.env.SARWATCH_BENCH_PG_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
  const redisUrl = process.env.SARWATCH_BENCH_REDIS_URL || 'redis://127.0.0.1:6379';
  const suffix = `${process.pid}_${randomBytes(3).toString('hex')}`;
  const dbName = `sarwatch_bench_${label}_${suffix}`;
  const admin = async (sql: string) => {
    const c = new pg.Client({ connectionString: adminUrl });
    await c.connect();
    try {
      await c.query(sql);
    } finally {
      await c.end();
    }
  };
  await admin(`CREATE DATABASE ${dbName}`);
  const dbUrl = new URL(adminUrl);
  dbUrl.pathname = `/${dbName}`;
  const queueName = `sarwatch-bench-${label}-${suffix}`;
  return {
    env: { DATABASE_URL: dbUrl.toString(), REDIS_URL: redisUrl, SARWATCH_QUEUE_NAME: queueName },
    cleanup: async () => {
      for (const name of [queueName, ...queueSuffixes.map((s) => `${queueName}${s}`)]) {
        const q = new Queue(name, { connection: { url: redisUrl } });
        await q.obliterate({ force: true }).catch(() => {});
        await q.close();
      }
      await admin(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    },
  };
}
