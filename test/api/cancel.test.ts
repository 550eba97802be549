/**
 * Issue 21 §3, cancel: POST /api/v1/jobs/{job_id}/cancel fails a pending or processing job
 * with CANCELED, releases its reservation (a ledger row, never a charge), and the worker
 * running it stops within 2 s — told by the store, through the same abort signal shutdown
 * uses. Idempotent for a canceled job; 409 with the state for any other ended job. Runs on
 * SQLite, and on PostgreSQL with SARWATCH_TEST_STORE=postgres; the BullMQ path on Redis.
 * Nothing sleeps: the tests poll for a state with a deadline, and the test detectors say when
 * they run, stop, or are released.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { Queue } from 'bullmq';
import type { AnalysisModule } from '../../src/analysis/port.ts';
import { createRegistry } from '../../src/endpoints/analysisRegistry.ts';
import type { Db } from '../../src/store/index.ts';
import { JobNotCancelableError, NotFoundError, ForbiddenError } from '../../src/client/index.ts';
import { GRD_SCENE, TINY_SQUARE, startTestService, waitForTerminal, type TestService } from '../helpers/service.ts';
import { REDIS_URL, ensureRedis, testStoreEnv, uniqueQueueName } from '../helpers/services.ts';
import { loadConfig } from '../../src/config.ts';
import { startService } from '../../src/runtime.ts';
import { aoiEchoTestDetector } from '../helpers/testDetectors.ts';

const periodBody = { satellite_id: 'sentinel-1' as const, polygon: TINY_SQUARE, date_start: '2023-01-01', date_end: '2023-12-31' };

const open: TestService[] = [];
afterEach(async () => {
  while (open.length) await open.pop()!.close();
});

async function start(...args: Parameters<typeof startTestService>): Promise<TestService> {
  const t = await startTestService(...args);
  open.push(t);
  return t;
}

function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** Polls `read` until `ok`, failing once `deadlineMs` have passed: how long a state took, without a sleep in the test. */
async function within<T>(deadlineMs: number, read: () => Promise<T> | T, ok: (v: T) => boolean): Promise<{ value: T; ms: number }> {
  const t0 = performance.now();
  for (;;) {
    const value = await read();
    const ms = performance.now() - t0;
    if (ok(value)) return { value, ms };
    if (ms > deadlineMs) throw new Error(`not within ${deadlineMs} ms; last ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Runs until its job's signal aborts (then records when), like a real analysis between tiles. */
function abortableTestDetector(endpointId: AnalysisModule['endpointId']) {
  const running = deferred();
  let abortedAt: number | null = null;
  const module: AnalysisModule = {
    endpointId,
    run: (_request, ctx) =>
      new Promise((_resolve, reject) => {
        ctx.signal.addEventListener(
          'abort',
          () => {
            abortedAt = performance.now();
            reject(ctx.signal.reason);
          },
          { once: true },
        );
        ctx.reportProgress(30);
        running.resolve();
      }),
  };
  return { module, running: running.promise, abortedAt: () => abortedAt };
}

const jobRow = (db: Db, jobId: string) => db.selectFrom('jobs').selectAll().where('id', '=', jobId).executeTakeFirstOrThrow();
const ledger = async (db: Db, jobId: string) =>
  (await db.selectFrom('credit_ledger').select(['kind', 'amount_micros']).where('job_id', '=', jobId).execute())
    .map((r) => ({ kind: r.kind, amount: Number(r.amount_micros) }))
    .sort((a, b) => a.kind.localeCompare(b.kind));
const balance = async (db: Db, accountId: string) =>
  Number((await db.selectFrom('accounts').select('balance_micros').where('id', '=', accountId).executeTakeFirstOrThrow()).balance_micros);

describe('issue 21 §3: POST /api/v1/jobs/{job_id}/cancel', () => {
  it('issue 21 §3: a pending job becomes failed with CANCELED; its reservation is released in the ledger, nothing charged, the balance whole again', async () => {
    // No worker in this process: the job stays pending.
    const t = await start({}, { roles: { api: true, worker: false } });
    const before = await balance(t.service.db, t.accountId);
    const { job_id } = await t.client.submit('analyze', 'timeseries', periodBody);
    expect(await balance(t.service.db, t.accountId)).toBeLessThan(before);

    const res = await t.http('POST', `/api/v1/jobs/${job_id}/cancel`);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toContain('no-store');
    expect(res.json).toMatchObject({ job_id, status: 'failed', error_code: 'CANCELED', error: 'CANCELED', result_path: null, area_sqkm: null });
    expect(res.json.error_message).toMatch(/canceled/);
    expect(res.json.completed_at).toMatch(/Z$/);

    const reserved = Number((await jobRow(t.service.db, job_id)).credits_reserved_micros);
    expect(reserved).toBeGreaterThan(0);
    expect(await ledger(t.service.db, job_id)).toEqual([
      { kind: 'release', amount: reserved },
      { kind: 'reserve', amount: -reserved },
    ]);
    expect(await balance(t.service.db, t.accountId)).toBe(before);
    const item = (await t.client.listJobs({ limit: 1 })).jobs[0]!;
    expect({ status: item.status, error_code: item.error_code, credits_used: item.credits_used }).toEqual({ status: 'failed', error_code: 'CANCELED', credits_used: 0 });
    // A terminal transition: job.failed is in the event outbox (webhooks), once.
    const outbox = await t.service.db.selectFrom('outbox').select(['type', 'payload']).where('account_id', '=', t.accountId).execute();
    expect(outbox.map((e) => [e.type, JSON.parse(e.payload).job_id, JSON.parse(e.payload).error_code])).toEqual([['job.failed', job_id, 'CANCELED']]);
    // No runner settled it: the API process counts it among the failures by code.
    expect(await (await fetch(`${t.url}/metrics`)).text()).toMatch(/^sarwatch_job_failures_total\{error_code="CANCELED"\} 1$/m);
  });

  it('issue 21 §3: idempotent — cancelling a canceled job answers 200 with the job again and moves no credit; the SDK cancel() too', async () => {
    const t = await start({}, { roles: { api: true, worker: false } });
    const { job_id } = await t.client.submit('analyze', 'timeseries', periodBody);
    const first = await t.client.cancel(job_id);
    const again = await t.http('POST', `/api/v1/jobs/${job_id}/cancel`);
    expect(again.status).toBe(200);
    expect(again.json).toEqual(first);
    expect(await t.client.cancel(job_id)).toEqual(first);
    expect((await ledger(t.service.db, job_id)).map((r) => r.kind)).toEqual(['release', 'reserve']);
  });

  it('issue 21 §3: a completed job, or one failed otherwise, is 409 JOB_NOT_CANCELABLE with its state in the envelope, and stays as it was', async () => {
    const t = await start({}, { registry: createRegistry([aoiEchoTestDetector('timeseries')]) });
    const { job_id: done } = await t.client.submit('analyze', 'timeseries', periodBody);
    expect((await waitForTerminal(t.client, done)).status).toBe('completed');
    const res = await t.http('POST', `/api/v1/jobs/${done}/cancel`);
    expect(res.status).toBe(409);
    expect(res.json.error.code).toBe('JOB_NOT_CANCELABLE');
    expect(res.json.error.message).toContain('completed');
    expect(res.json.error.details).toEqual({ job_id: done, status: 'completed', error_code: null });
    const ledgerBefore = await ledger(t.service.db, done);
    expect(ledgerBefore.map((r) => r.kind)).toEqual(['charge', 'release', 'reserve']);

    // No ship detector in this registry: the job fails NOT_IMPLEMENTED.
    const { job_id: failed } = await t.client.submit('detect', 'ship', { satellite_id: 'sentinel-1', scene_id: GRD_SCENE });
    expect((await waitForTerminal(t.client, failed)).error_code).toBe('NOT_IMPLEMENTED');
    const err = await t.client.cancel(failed).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(JobNotCancelableError);
    expect((err as JobNotCancelableError).details).toEqual({ job_id: failed, status: 'failed', error_code: 'NOT_IMPLEMENTED' });

    expect((await t.client.getJob(done)).status).toBe('completed');
    expect(await ledger(t.service.db, done)).toEqual(ledgerBefore);
  });

  it("issue 21 §3: another account's job is 404 like every job route; a key without jobs:write is 403; a key limited to other endpoints may not cancel this one", async () => {
    const t = await start({}, { roles: { api: true, worker: false } });
    const { job_id } = await t.client.submit('analyze', 'timeseries', periodBody);
    const other = await t.newAccount();
    await expect(other.client.cancel(job_id)).rejects.toBeInstanceOf(NotFoundError);
    const raw = await t.http('POST', `/api/v1/jobs/${job_id}/cancel`, { key: other.apiKey });
    expect(raw.json).toEqual({ error: { code: 'NOT_FOUND', message: `no job ${job_id}` } });
    expect((await t.http('POST', '/api/v1/jobs/not-a-uuid/cancel')).status).toBe(404);

    const { createApiKey } = await import('../../src/jobs/accounts.ts');
    const { apiKey: reader } = await createApiKey(t.service.db, { accountId: t.accountId, scopes: ['jobs:read'] });
    const forbidden = await t.http('POST', `/api/v1/jobs/${job_id}/cancel`, { key: reader });
    expect(forbidden.status).toBe(403);
    expect(forbidden.json.error.message).toContain('jobs:write');
    const { apiKey: shipsOnly } = await createApiKey(t.service.db, { accountId: t.accountId, endpoints: ['ship'] });
    const limited = await t.http('POST', `/api/v1/jobs/${job_id}/cancel`, { key: shipsOnly });
    expect(limited.status).toBe(403);
    expect(limited.json.error.message).toContain('timeseries');
    await expect(other.client.cancel(job_id)).rejects.not.toBeInstanceOf(ForbiddenError);
    expect((await t.client.getJob(job_id)).status).toBe('pending');
  });

  it('issue 21 §3: a processing job is canceled and its analysis aborted within 2 s (the in-process cancel notice alone: the store check is off), through the signal shutdown uses; the worker takes the next job', async () => {
    const detector = abortableTestDetector('timeseries');
    const t = await start({ SARWATCH_JOB_WATCH_SECONDS: '3600' }, { registry: createRegistry([detector.module, aoiEchoTestDetector('ship')]) });
    const { job_id } = await t.client.submit('analyze', 'timeseries', periodBody);
    await detector.running;
    // Concurrency 1: the next job waits for the worker.
    const { job_id: next } = await t.client.submit('detect', 'ship', { satellite_id: 'sentinel-1', scene_id: GRD_SCENE });
    expect((await t.client.getJob(next)).status).toBe('pending');

    const canceledAt = performance.now();
    const job = await t.client.cancel(job_id);
    expect({ status: job.status, error_code: job.error_code }).toEqual({ status: 'failed', error_code: 'CANCELED' });
    await within(2000, detector.abortedAt, (at) => at !== null);
    expect(detector.abortedAt()! - canceledAt).toBeLessThan(2000);
    await within(2000 - (performance.now() - canceledAt), () => jobRow(t.service.db, next), (r) => r.status !== 'pending');
    expect((await waitForTerminal(t.client, next)).status).toBe('completed');

    // The canceled job stayed canceled and uncharged: the runner did not fail or complete it.
    const row = await jobRow(t.service.db, job_id);
    expect({ status: row.status, error_code: row.error_code, credits_used_micros: Number(row.credits_used_micros), lease_owner: row.lease_owner }).toEqual({
      status: 'failed',
      error_code: 'CANCELED',
      credits_used_micros: 0,
      lease_owner: null,
    });
    expect((await ledger(t.service.db, job_id)).map((r) => r.kind)).toEqual(['release', 'reserve']);
  });

  it('issue 21 §3: a worker that gets no notice (another process, no Redis) finds the cancel in the store and aborts within 2 s', async () => {
    const api = await start({}, { roles: { api: true, worker: false } });
    const detector = abortableTestDetector('timeseries');
    // A worker process of its own on the same store: the API's in-process notices do not reach it.
    const config = loadConfig({ SARWATCH_DATA_DIR: api.dataDir, PORT: '0', SARWATCH_SAMPLES_DIR: '', ...(await testStoreEnv(api.dataDir)) });
    const worker = await startService(config, { roles: { api: false, worker: true }, queuePollMs: 30, registry: createRegistry([detector.module]) });
    try {
      const { job_id } = await api.client.submit('analyze', 'timeseries', periodBody);
      await detector.running;
      const canceledAt = performance.now();
      await api.client.cancel(job_id);
      await within(2000, detector.abortedAt, (at) => at !== null);
      expect(detector.abortedAt()! - canceledAt).toBeLessThan(2000);
      await within(2000, () => worker.runner['held'].size, (n) => n === 0);
    } finally {
      await worker.close();
    }
  });

  it('issue 21 §3: an analysis that finishes anyway after the cancel can neither complete nor charge the job; its result object is not kept', async () => {
    const running = deferred();
    const finish = deferred();
    let returned = false;
    // Ignores its signal: returns a result when the test says so.
    const stubborn: AnalysisModule = {
      endpointId: 'timeseries',
      async run(request, ctx) {
        running.resolve();
        await finish.promise;
        const out = await aoiEchoTestDetector('timeseries').run(request, ctx);
        returned = true;
        return out;
      },
    };
    const t = await start({ SARWATCH_JOB_WATCH_SECONDS: '3600' }, { registry: createRegistry([stubborn]) });
    const { job_id } = await t.client.submit('analyze', 'timeseries', periodBody);
    await running.promise;
    await t.client.cancel(job_id);
    finish.resolve();
    await within(30_000, () => returned, (r) => r);
    // The runner lets go of the job once its completion is refused.
    await within(30_000, () => t.service.runner['held'].size, (n) => n === 0);
    const row = await jobRow(t.service.db, job_id);
    expect({ status: row.status, error_code: row.error_code, result_key: row.result_key, credits_used_micros: Number(row.credits_used_micros) }).toEqual({
      status: 'failed',
      error_code: 'CANCELED',
      result_key: null,
      credits_used_micros: 0,
    });
    expect((await ledger(t.service.db, job_id)).map((r) => r.kind)).toEqual(['release', 'reserve']);
    expect(await t.service.objects.get(`results/${job_id}.1.geojson`)).toBeNull();
  });
});

describe('issue 21 §3: cancel on the queue (BullMQ) path', () => {
  const queues: string[] = [];
  afterAll(async () => {
    for (const name of queues) {
      const q = new Queue(name, { connection: { url: REDIS_URL } });
      await q.obliterate({ force: true });
      await q.close();
    }
  });

  it('issue 21 §3: with REDIS_URL, a processing job is canceled, its analysis stops within 2 s on the Redis cancel notice alone (the store check is off) and the BullMQ worker takes the next message', async () => {
    await ensureRedis();
    const name = uniqueQueueName();
    queues.push(name);
    const detector = abortableTestDetector('timeseries');
    const t = await start({ REDIS_URL, SARWATCH_QUEUE_NAME: name, SARWATCH_JOB_WATCH_SECONDS: '3600' }, { registry: createRegistry([detector.module, aoiEchoTestDetector('ship')]) });
    const { job_id } = await t.client.submit('analyze', 'timeseries', periodBody);
    await detector.running;
    const { job_id: next } = await t.client.submit('detect', 'ship', { satellite_id: 'sentinel-1', scene_id: GRD_SCENE });

    const canceledAt = performance.now();
    await t.client.cancel(job_id);
    await within(2000, detector.abortedAt, (at) => at !== null);
    await within(2000 - (performance.now() - canceledAt), () => jobRow(t.service.db, next), (r) => r.status !== 'pending');
    expect((await waitForTerminal(t.client, next)).status).toBe('completed');
    expect((await t.client.getJob(job_id)).error_code).toBe('CANCELED');
  });
});
