/**
 * Issue 13, Queue: BullMQ on a real Redis, with the store on PostgreSQL. Enqueueing is by
 * job id (deduplicated), workers consume with a concurrency limit, a pending job the queue
 * lacks is enqueued by the reconciler, and a job whose worker died runs again elsewhere as
 * one more attempt, charged once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import path from 'node:path';
import { Queue } from 'bullmq';
import { BullmqQueue } from '../../src/queue/bullmq.ts';
import { createRegistry, type AnalysisRegistry } from '../../src/endpoints/analysisRegistry.ts';
import { loadConfig } from '../../src/config.ts';
import { startService, type Service } from '../../src/runtime.ts';
import { createAccount, createApiKey } from '../../src/jobs/accounts.ts';
import { createJob } from '../../src/jobs/transitions.ts';
import { SarwatchClient } from '../../src/client/index.ts';
import { TINY_SQUARE, tempDataDir } from '../helpers/service.ts';
import { REDIS_URL, createTestDatabase, ensureRedis, uniqueQueueName, type TestDatabase } from '../helpers/services.ts';
import { northSeaFixtureScenes, writeStacArchive } from '../helpers/stacFixtures.ts';
import { aoiEchoTestDetector, hangingTestDetector } from '../helpers/testDetectors.ts';

const body = { satellite_id: 'sentinel-1' as const, polygon: TINY_SQUARE, date_start: '2023-01-01', date_end: '2023-12-31' };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const queueNames: string[] = [];

beforeAll(async () => {
  await ensureRedis();
});
afterAll(async () => {
  for (const name of queueNames) {
    const q = new Queue(name, { connection: { url: REDIS_URL } });
    await q.obliterate({ force: true });
    await q.close();
  }
});

function newQueueName(): string {
  const name = uniqueQueueName();
  queueNames.push(name);
  return name;
}

async function until(cond: () => boolean | Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error('timed out');
    await sleep(25);
  }
}

describe('BullmqQueue', () => {
  it('a job id enqueued twice while queued is delivered once', async () => {
    const q = new BullmqQueue({ redisUrl: REDIS_URL, name: newQueueName() });
    await q.enqueue('job-a');
    await q.enqueue('job-a');
    await q.enqueue('job-b');
    expect(await q.depth()).toBe(2);
    const seen: string[] = [];
    q.consume(async (id) => {
      seen.push(id);
    }, 1);
    await until(() => seen.length >= 2);
    await sleep(300);
    await q.close();
    expect(seen.sort()).toEqual(['job-a', 'job-b']);
  });

  it('runs at most `concurrency` handlers at once, and a finished id can be enqueued again', async () => {
    const q = new BullmqQueue({ redisUrl: REDIS_URL, name: newQueueName() });
    let active = 0;
    let maxActive = 0;
    const done: string[] = [];
    // The first handlers hold until two run at once: whether two overlap does not depend on
    // how fast the enqueues below follow each other (150 ms handlers before: enqueues slower
    // than that on a loaded machine would never overlap them). With concurrency 1 they would
    // wait for ever, and `until` below fail.
    let bothRunning!: () => void;
    const twoAtOnce = new Promise<void>((r) => (bothRunning = r));
    q.consume(async (id) => {
      active++;
      maxActive = Math.max(maxActive, active);
      if (active === 2) bothRunning();
      await twoAtOnce;
      await sleep(150);
      active--;
      done.push(id);
    }, 2);
    for (let i = 0; i < 6; i++) await q.enqueue(`j${i}`);
    await until(() => done.length === 6);
    expect(maxActive).toBe(2);
    await q.enqueue('j0');
    await until(() => done.length === 7);
    expect(done.filter((id) => id === 'j0')).toHaveLength(2);
    await q.close();
  });
});

describe('the service on PostgreSQL + BullMQ', () => {
  let database: TestDatabase;
  const services: Service[] = [];
  let queueName: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    queueName = newQueueName();
  });
  afterAll(async () => {
    for (const s of services) await s.close().catch(() => {});
    await database?.drop();
  });

  async function boot(registry: AnalysisRegistry, opts: { leaseSeconds?: number; redisUrl?: string; roles?: { api: boolean; worker: boolean } } = {}): Promise<Service> {
    const dataDir = tempDataDir();
    writeStacArchive(path.join(dataDir, 'archive', 'fixtures'), northSeaFixtureScenes());
    const config = loadConfig({
      SARWATCH_DATA_DIR: dataDir,
      PORT: '0',
      SARWATCH_SAMPLES_DIR: '',
      DATABASE_URL: database.url,
      REDIS_URL: opts.redisUrl ?? REDIS_URL,
      SARWATCH_QUEUE_NAME: queueName,
      SARWATCH_RECONCILE_INTERVAL_SECONDS: '0.5',
      SARWATCH_WORKER_CONCURRENCY: '2',
      SARWATCH_MAX_CONCURRENT_JOBS: '50',
    });
    const service = await startService(config, { registry, leaseSeconds: opts.leaseSeconds ?? 2, roles: opts.roles });
    services.push(service);
    return service;
  }

  it('jobs submitted through two processes each run once and are charged once', async () => {
    // Leases of 30 s: each job must run once, and a 2 s lease is lost to a stall of 1.3 s on a
    // loaded machine (nothing here waits for a lease to end).
    const a = await boot(createRegistry([aoiEchoTestDetector('timeseries', { delayMs: 100 })]), { leaseSeconds: 30 });
    const b = await boot(createRegistry([aoiEchoTestDetector('timeseries', { delayMs: 100 })]), { leaseSeconds: 30 });
    const { accountId } = await createAccount(a.db, { name: 'q', credits: 10_000 });
    const { apiKey } = await createApiKey(a.db, { accountId });
    const clients = [a, b].map((s) => new SarwatchClient({ baseUrl: s.url, apiKey }));
    const ids = await Promise.all(Array.from({ length: 8 }, (_, i) => clients[i % 2]!.submit('analyze', 'timeseries', body).then((r) => r.job_id)));
    for (const id of ids) {
      const job = await clients[0]!.wait(id, { initialDelayMs: 25, maxDelayMs: 100, timeoutMs: 30_000, throwOnFailure: false });
      expect(job.status).toBe('completed');
    }
    const rows = await a.db.selectFrom('jobs').select(['id', 'attempts']).where('account_id', '=', accountId).execute();
    expect(rows.map((r) => r.attempts)).toEqual(ids.map(() => 1));
    const ledger = await a.db.selectFrom('credit_ledger').select(['job_id', 'kind', 'amount_micros']).where('account_id', '=', accountId).execute();
    for (const id of ids) expect(ledger.filter((r) => r.job_id === id).map((r) => r.kind).sort()).toEqual(['charge', 'release', 'reserve']);
    const balance = await a.db.selectFrom('accounts').select('balance_micros').where('id', '=', accountId).executeTakeFirstOrThrow();
    expect(ledger.reduce((s, r) => s + r.amount_micros, 0)).toBe(balance.balance_micros);
  });

  it('a pending job that never reached the queue (API died after commit) is enqueued by the reconciler', async () => {
    const [a] = services as [Service];
    const { accountId } = await createAccount(a.db, { name: 'gap', credits: 1000 });
    const old = new Date(Date.now() - 60_000).toISOString();
    const job = await createJob(
      a.db,
      {
        id: crypto.randomUUID(), account_id: accountId, endpoint_id: 'timeseries', family: 'analyze', satellite_id: 'sentinel-1',
        created_at: old, updated_at: old, request_params: JSON.stringify(body), credits_reserved_micros: 0, credits_used_micros: null,
        area_sqkm: null, lat: null, lon: null, coverage: null, scene_selection: null, warnings: '[]', error_code: null, error_message: null,
        progress: null, result_key: null, result_expires_at: null, result_deleted_at: null, lease_owner: null, lease_expires_at: null,
        idempotency_key: null, request_hash: null,
      },
      { maxConcurrentJobs: 10 },
    );
    await until(async () => (await a.db.selectFrom('jobs').select('status').where('id', '=', job.id).executeTakeFirstOrThrow()).status === 'completed');
  });

  it('issue 13: /readyz checks the store, the object store, the queue (Redis) and the worker; /metrics shows the broker depth', async () => {
    const s = services[0] ?? (await boot(createRegistry([aoiEchoTestDetector('timeseries')])));
    const ready = await fetch(`${s.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready', checks: { store: 'ok', objects: 'ok', queue: 'ok', worker: 'ok' } });
    const metrics = await (await fetch(`${s.url}/metrics`)).text();
    expect(metrics).toMatch(/^sarwatch_broker_queue_depth \d+$/m);
  });

  it('issue 13: an API process whose Redis does not answer is not ready: 503 naming the queue', async () => {
    // A port nothing listens on: every Redis command waits for a connection that never comes.
    const s = await boot(createRegistry([]), { redisUrl: 'redis://127.0.0.1:1', roles: { api: true, worker: false } });
    const res = await fetch(`${s.url}/readyz`);
    expect(res.status).toBe(503);
    const body = (await res.json()) as { error: { code: string; details: { checks: Record<string, string> } } };
    expect(body.error.code).toBe('SERVICE_UNAVAILABLE');
    expect(body.error.details.checks).toEqual({ store: 'ok', objects: 'ok', queue: 'failed' });
  });

  it('issue 13: a worker starting beside a live one takes none of its jobs (nothing is requeued at start)', async () => {
    for (const s of services.splice(0)) await s.close();
    const live = await boot(createRegistry([hangingTestDetector('timeseries')]), { leaseSeconds: 30 });
    const { accountId } = await createAccount(live.db, { name: 'live', credits: 1000 });
    const { apiKey } = await createApiKey(live.db, { accountId });
    const { job_id } = await new SarwatchClient({ baseUrl: live.url, apiKey }).submit('analyze', 'timeseries', body);
    const state = () => live.db.selectFrom('jobs').select(['status', 'attempts', 'lease_owner']).where('id', '=', job_id).executeTakeFirstOrThrow();
    await until(async () => (await state()).status === 'processing');
    // The newcomer runs its start-up recovery and several reconciler rounds (every 0.5 s).
    await boot(createRegistry([aoiEchoTestDetector('timeseries')]), { leaseSeconds: 30 });
    await sleep(2500);
    expect(await state()).toEqual({ status: 'processing', attempts: 1, lease_owner: live.runner.workerId });
  });

  it('a worker killed mid-job: the job runs again elsewhere as a second attempt, completed and charged once', async () => {
    for (const s of services.splice(0)) await s.close();
    const doomed = await boot(createRegistry([hangingTestDetector('timeseries')]));
    const { accountId } = await createAccount(doomed.db, { name: 'kill', credits: 1000 });
    const { apiKey } = await createApiKey(doomed.db, { accountId });
    const { job_id } = await new SarwatchClient({ baseUrl: doomed.url, apiKey }).submit('analyze', 'timeseries', body);
    const state = () => doomed.db.selectFrom('jobs').select(['status', 'attempts']).where('id', '=', job_id).executeTakeFirstOrThrow();
    await until(async () => (await state()).status === 'processing');
    // kill -9: no drain, no release; the lease and the BullMQ lock just stop being renewed.
    services.splice(services.indexOf(doomed), 1);
    await (doomed.queue as BullmqQueue).abandon();
    await doomed.app.close();
    // The doomed worker's 2 s lease ends its hold; the survivor's own is 30 s, so its attempt
    // is not lost to a stall on a loaded machine (the attempts must be exactly 2).
    const survivor = await boot(createRegistry([aoiEchoTestDetector('timeseries')]), { leaseSeconds: 30 });
    await doomed.db.destroy();
    await until(async () => {
      const row = await survivor.db.selectFrom('jobs').select('status').where('id', '=', job_id).executeTakeFirstOrThrow();
      return row.status === 'completed';
    }, 90_000);
    const row = await survivor.db.selectFrom('jobs').select('attempts').where('id', '=', job_id).executeTakeFirstOrThrow();
    expect(row.attempts).toBe(2);
    const ledger = await survivor.db.selectFrom('credit_ledger').select('kind').where('job_id', '=', job_id).execute();
    expect(ledger.map((r) => r.kind).sort()).toEqual(['charge', 'release', 'reserve']);
  }, 150_000);
});
