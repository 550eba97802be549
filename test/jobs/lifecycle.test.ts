/**
 * The job state machine and crash recovery (issue 2, "Inside"): transitions are guarded,
 * credits move once, and a job cut off by a dead process ends in a terminal state.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { startService, type Service } from '../../src/runtime.ts';
import { createAccount, createApiKey } from '../../src/jobs/accounts.ts';
import { completeJob, failJob, recoverInterruptedJobs, requeueJob } from '../../src/jobs/transitions.ts';
import { canTransition } from '../../src/jobs/stateMachine.ts';
import type { AnalysisModule } from '../../src/analysis/port.ts';
import { createRegistry } from '../../src/endpoints/analysisRegistry.ts';
import { GENERIC_FAILURE_MESSAGE } from '../../src/contract/errors.ts';
import { SarwatchClient } from '../../src/client/index.ts';
import path from 'node:path';
import { TINY_SQUARE, tempDataDir } from '../helpers/service.ts';
import { dropTestStore, testStoreEnv } from '../helpers/services.ts';
import { northSeaFixtureScenes, writeStacArchive } from '../helpers/stacFixtures.ts';
import { aoiEchoTestDetector, hangingTestDetector } from '../helpers/testDetectors.ts';
import { scrapeUntil } from '../helpers/metrics.ts';

const periodBody = { satellite_id: 'sentinel-1' as const, polygon: TINY_SQUARE, date_start: '2023-01-01', date_end: '2023-12-31' };
const open: Service[] = [];
const dataDirs: string[] = [];
afterEach(async () => {
  while (open.length) await open.pop()!.close().catch(() => {});
});
afterAll(async () => {
  for (const dir of dataDirs) await dropTestStore(dir);
});

/**
 * A service on `dataDir`. Its leases are 2 s, so a crashed one's jobs come back soon; a worker
 * whose run must not lose its job (the attempts are counted exactly) gets `leaseSeconds` 30:
 * on a loaded machine a 2 s lease is lost to a 1.3 s stall between heartbeats.
 */
async function boot(dataDir: string, registry: ReturnType<typeof createRegistry>, env: Record<string, string> = {}, leaseSeconds = 2) {
  writeStacArchive(path.join(dataDir, 'archive', 'fixtures'), northSeaFixtureScenes());
  if (!dataDirs.includes(dataDir)) dataDirs.push(dataDir);
  const config = loadConfig({ SARWATCH_DATA_DIR: dataDir, PORT: '0', SARWATCH_SAMPLES_DIR: '', ...(await testStoreEnv(dataDir)), ...env });
  const service = await startService(config, { queuePollMs: 30, registry, leaseSeconds });
  return { service, config };
}

/** What a kill -9 leaves behind: the process is gone, its job rows stay as they were. */
async function crash(service: Service) {
  await service.app.close();
  await service.db.destroy();
}

async function waitFor<T>(fn: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 30_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (ok(v)) return v;
    if (Date.now() > end) throw new Error(`timed out; last value ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('state machine', () => {
  it('allows exactly pending→processing→completed|failed, pending→failed and the recovery requeue', () => {
    expect(canTransition('claim', 'pending')).toBe(true);
    expect(canTransition('claim', 'processing')).toBe(false);
    expect(canTransition('complete', 'processing')).toBe(true);
    expect(canTransition('complete', 'pending')).toBe(false);
    expect(canTransition('complete', 'failed')).toBe(false);
    expect(canTransition('fail', 'completed')).toBe(false);
    expect(canTransition('fail', 'failed')).toBe(false);
    expect(canTransition('fail', 'pending')).toBe(true);
    expect(canTransition('requeue', 'processing')).toBe(true);
    expect(canTransition('requeue', 'completed')).toBe(false);
  });

  it('a completed job cannot be failed or completed again, and is charged once', async () => {
    const dataDir = tempDataDir();
    const { service } = await boot(dataDir, createRegistry([aoiEchoTestDetector('timeseries')]));
    open.push(service);
    const { accountId } = await createAccount(service.db, { name: 'a', credits: 100 });
    const { apiKey } = await createApiKey(service.db, { accountId });
    const client = new SarwatchClient({ baseUrl: service.url, apiKey });
    const { job_id } = await client.submit('analyze', 'timeseries', periodBody);
    const done = await client.wait(job_id, { initialDelayMs: 20, maxDelayMs: 50, timeoutMs: 30_000 });
    const balance = async () => Number((await service.db.selectFrom('accounts').select('balance_micros').where('id', '=', accountId).executeTakeFirstOrThrow()).balance_micros);
    const after = await balance();
    expect(await failJob(service.db, job_id, { code: 'PROCESSING_ERROR', message: 'x' })).toBeNull();
    expect(
      await completeJob(service.db, job_id, 'someone', {
        resultKey: 'x', areaSqkm: 1, lat: 0, lon: 0, coverage: null, sceneSelection: null, warnings: [], pricePerSqkm: 1, retentionDays: 30,
      }),
    ).toBeNull();
    expect(await balance()).toBe(after);
    expect((await client.getJob(job_id)).status).toBe('completed');
    expect(100 - after / 1e6).toBeCloseTo(done.area_sqkm!, 5);
  });
});

describe('crash recovery', () => {
  it('a job processing when the process dies is picked up on restart and completes', async () => {
    const dataDir = tempDataDir();
    const first = await boot(dataDir, createRegistry([hangingTestDetector('timeseries')]));
    const { accountId } = await createAccount(first.service.db, { name: 'a', credits: 100 });
    const { apiKey } = await createApiKey(first.service.db, { accountId });
    let client = new SarwatchClient({ baseUrl: first.service.url, apiKey });
    const { job_id } = await client.submit('analyze', 'timeseries', periodBody);
    await waitFor(() => client.getJob(job_id), (j) => j.status === 'processing');
    await crash(first.service);

    const second = await boot(dataDir, createRegistry([aoiEchoTestDetector('timeseries')]), {}, 30);
    open.push(second.service);
    client = new SarwatchClient({ baseUrl: second.service.url, apiKey });
    const job = await client.wait(job_id, { initialDelayMs: 20, maxDelayMs: 50, timeoutMs: 30_000 });
    expect(job.status).toBe('completed');
    const row = await second.service.db.selectFrom('jobs').select('attempts').where('id', '=', job_id).executeTakeFirstOrThrow();
    expect(Number(row.attempts)).toBe(2);
    // Credits: one reservation, one release, one charge — not two.
    const ledger = await second.service.db.selectFrom('credit_ledger').select('kind').where('job_id', '=', job_id).execute();
    expect(ledger.map((r) => r.kind).sort()).toEqual(['charge', 'release', 'reserve']);
  });

  it('a job that keeps dying is failed with JOB_INTERRUPTED after SARWATCH_MAX_JOB_ATTEMPTS, uncharged, once its lease expires', async () => {
    const dataDir = tempDataDir();
    const env = { SARWATCH_MAX_JOB_ATTEMPTS: '2' };
    let { service } = await boot(dataDir, createRegistry([hangingTestDetector('timeseries')]), env);
    const { accountId } = await createAccount(service.db, { name: 'a', credits: 100 });
    const { apiKey } = await createApiKey(service.db, { accountId });
    const { job_id } = await new SarwatchClient({ baseUrl: service.url, apiKey }).submit('analyze', 'timeseries', periodBody);
    for (let attempt = 1; attempt <= 2; attempt++) {
      // Attempt n runs once the previous run's lease has expired and recovery requeued the job.
      const db = service.db;
      await waitFor(
        () => db.selectFrom('jobs').select(['status', 'attempts']).where('id', '=', job_id).executeTakeFirstOrThrow(),
        (j) => j.status === 'processing' && Number(j.attempts) === attempt,
      );
      await crash(service);
      ({ service } = await boot(dataDir, createRegistry([hangingTestDetector('timeseries')]), env));
    }
    open.push(service);
    const client = new SarwatchClient({ baseUrl: service.url, apiKey });
    const job = await waitFor(() => client.getJob(job_id), (j) => j.status !== 'processing' && j.status !== 'pending');
    expect(job.status).toBe('failed');
    expect(job.error_code).toBe('JOB_INTERRUPTED');
    expect(job.error_message).toBe(GENERIC_FAILURE_MESSAGE);
    const balance = await service.db.selectFrom('accounts').select('balance_micros').where('id', '=', accountId).executeTakeFirstOrThrow();
    expect(Number(balance.balance_micros)).toBe(100 * 1e6);
    // Issue 13: the process whose recovery failed it counts it among failures by code.
    // Counted after the recovery's commit, which the job read above may see first: see scrapeUntil.
    const { text: metrics } = await scrapeUntil(`${service.url}/metrics`, (x) => x.includes('sarwatch_job_failures_total{error_code="JOB_INTERRUPTED"}'));
    expect(metrics).toMatch(/^sarwatch_job_failures_total\{error_code="JOB_INTERRUPTED"\} 1$/m);
  });

  it('a worker whose lease expired loses the job to recovery (scaled-out rule: lease, not process list)', async () => {
    const dataDir = tempDataDir();
    const { service } = await boot(dataDir, createRegistry([hangingTestDetector('timeseries')]));
    open.push(service);
    const { accountId } = await createAccount(service.db, { name: 'a', credits: 100 });
    const { apiKey } = await createApiKey(service.db, { accountId });
    const client = new SarwatchClient({ baseUrl: service.url, apiKey });
    const { job_id } = await client.submit('analyze', 'timeseries', periodBody);
    await waitFor(() => client.getJob(job_id), (j) => j.status === 'processing');
    // The lease is live (heartbeats every lease/3): lease-based recovery leaves it alone.
    expect(await recoverInterruptedJobs(service.db, { maxAttempts: 3 })).toEqual({ requeued: [], failed: [] });
    await service.db.updateTable('jobs').set({ lease_expires_at: '2000-01-01T00:00:00.000Z' }).where('id', '=', job_id).execute();
    // This call or the service's own recovery loop (whichever runs first) requeues it, once.
    const recovered = await recoverInterruptedJobs(service.db, { maxAttempts: 3 });
    expect(recovered.failed).toEqual([]);
    // The old worker notices at its next heartbeat and lets go without failing the job;
    // the queue hands the job out again.
    const again = await waitFor(
      () => service.db.selectFrom('jobs').select(['status', 'attempts', 'error_code']).where('id', '=', job_id).executeTakeFirstOrThrow(),
      (j) => Number(j.attempts) === 2,
    );
    expect(again.status).toBe('processing');
    expect(again.error_code).toBeNull();
  });

  it('issue 13: a worker that runs on after losing its lease does not delete the result of the worker that completed the job', async () => {
    const dataDir = tempDataDir();
    // An analysis that ignores its abort signal (a detector stuck in a long main-thread
    // stretch): it runs to its end after its lease has passed to another worker.
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let running!: () => void;
    const started = new Promise<void>((r) => (running = r));
    const echo = aoiEchoTestDetector('timeseries');
    const slow: AnalysisModule = {
      endpointId: 'timeseries',
      async run(request, ctx) {
        running();
        await gate;
        return echo.run(request, ctx);
      },
    };
    const stale = await boot(dataDir, createRegistry([slow]));
    open.push(stale.service);
    const { accountId } = await createAccount(stale.service.db, { name: 'a', credits: 100 });
    const { apiKey } = await createApiKey(stale.service.db, { accountId });
    const { job_id } = await new SarwatchClient({ baseUrl: stale.service.url, apiKey }).submit('analyze', 'timeseries', periodBody);
    await started;
    // Its lease expires and recovery puts the job back, in one transaction so that no
    // heartbeat of the stale worker renews the lease in between.
    await stale.service.db.transaction().execute(async (tx) => {
      await tx.updateTable('jobs').set({ lease_expires_at: '2000-01-01T00:00:00.000Z' }).where('id', '=', job_id).execute();
      expect(await requeueJob(tx, job_id, new Date().toISOString())).toBe(true);
    });
    // Another worker (a second process on the same store and objects) runs it to completion.
    const fresh = await boot(dataDir, createRegistry([aoiEchoTestDetector('timeseries')]), {}, 30);
    open.push(fresh.service);
    const client = new SarwatchClient({ baseUrl: fresh.service.url, apiKey });
    const done = await client.wait(job_id, { initialDelayMs: 20, maxDelayMs: 50, timeoutMs: 30_000 });
    expect(done.status).toBe('completed');
    // Now the stale worker's analysis ends: it writes its result, loses the completion and
    // cleans up what it wrote. close() waits until it has let go.
    release();
    await stale.service.runner.close();
    const row = await fresh.service.db.selectFrom('jobs').select(['status', 'attempts', 'result_key']).where('id', '=', job_id).executeTakeFirstOrThrow();
    expect(row.status).toBe('completed');
    expect(Number(row.attempts)).toBe(2);
    expect(await fresh.service.objects.get(row.result_key!)).not.toBeNull();
    const res = await fetch(`${fresh.service.url}/api/v1/jobs/${job_id}/result.geojson`, { headers: { Authorization: `Bearer ${apiKey}` } });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { type: string }).type).toBe('FeatureCollection');
    const ledger = await fresh.service.db.selectFrom('credit_ledger').select('kind').where('job_id', '=', job_id).execute();
    expect(ledger.map((r) => r.kind).sort()).toEqual(['charge', 'release', 'reserve']);
  });
});
