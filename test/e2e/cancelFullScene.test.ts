/**
 * Issue 21 §4, the cancel test: a long job — ship detection on a full-size generated IW GRDH
 * scene (25,000 × 16,700 px, VV+VH, the ship bench's scene, made once into
 * $SARWATCH_BENCH_DIR or <tmp>/sarwatch-bench and reused) — is canceled mid-run, and the worker
 * is free again within 2 s: it has taken the next job. Once in the embedded service (in-process
 * worker, store-backed queue), once scaled out: the API in this process, a `sarwatch worker`
 * process on PostgreSQL and BullMQ, which learns of the cancel from the store. The real
 * detector, the real abort path; nothing sleeps (polls with deadlines).
 *
 * The first run generates the scene (about 40 s on a quiet 2-core machine, 1.7 GB on disk; 7 min
 * at load 20). The 2 s bound needs the worker's event loop free: the ship tiles are read on the
 * pool (analysis/ship/sceneTile.ts), so what still holds the loop is opening the scene, the
 * ambiguity step, polygons and the quicklook sampling — on an overloaded machine (2 cores at load
 * 27–31) still up to 4.1 s, a miss of 4.2 s embedded while scaled out passed at 1.44 s; a miss
 * says where the time went.
 *
 * Runs only with SARWATCH_E2E_FULL=1 (.ci/run sets it): the 1.7 GB scene and two full-scene
 * jobs would make up minutes of a plain `npm test` (issue 19 §3); skipped otherwise, saying so.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Queue } from 'bullmq';
import { ensureBenchScene } from '../../bench/imagery-read.ts';
import type { Db } from '../../src/store/index.ts';
import type { SarwatchClient } from '../../src/client/index.ts';
import { startTestService, tempDataDir, waitForTerminal, type TestService } from '../helpers/service.ts';
import { REDIS_URL, createTestDatabase, ensureRedis, uniqueQueueName, type TestDatabase } from '../helpers/services.ts';
import { REPO_ROOT, SARWATCH_BIN } from '../helpers/cli.ts';

const BENCH_DIR = process.env.SARWATCH_BENCH_DIR ?? path.join(os.tmpdir(), 'sarwatch-bench');
const FULL = process.env.SARWATCH_E2E_FULL === '1';
if (!FULL) console.info('test/e2e/cancelFullScene.test.ts skipped: the full-scene cancel test runs with SARWATCH_E2E_FULL=1 (.ci/run sets it)');
/** The next job must have been claimed this soon after the cancel was sent (issue 21: "within 2 s"). */
const FREE_WITHIN_MS = 2000;

let archiveDir: string;
let sceneId: string;

beforeAll(async () => {
  if (!FULL) return;
  const { productPath } = await ensureBenchScene(BENCH_DIR, 25_000, 16_700);
  // An archive holding only the full scene, linked (not copied) from the bench folder.
  archiveDir = tempDataDir();
  fs.symlinkSync(productPath, path.join(archiveDir, path.basename(productPath)));
  sceneId = path.basename(productPath).replace(/\.SAFE$/, '');
}, 1_200_000);

afterAll(() => {
  if (archiveDir) fs.rmSync(archiveDir, { recursive: true, force: true });
});

const jobRow = (db: Db, jobId: string) => db.selectFrom('jobs').selectAll().where('id', '=', jobId).executeTakeFirstOrThrow();
const ledgerKinds = async (db: Db, jobId: string) =>
  (await db.selectFrom('credit_ledger').select('kind').where('job_id', '=', jobId).execute()).map((r) => r.kind).sort();

async function poll<T>(read: () => Promise<T>, ok: (v: T) => boolean, deadlineMs: number, what: string): Promise<{ value: T; ms: number }> {
  const t0 = performance.now();
  for (;;) {
    const value = await read();
    const ms = performance.now() - t0;
    if (ok(value)) return { value, ms };
    if (ms > deadlineMs) throw new Error(`${what}: not within ${deadlineMs} ms; last ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/**
 * Two full-scene ship jobs on a worker that runs one at a time: the first is canceled once
 * its analysis is under way; the second must be claimed within FREE_WITHIN_MS of sending the
 * cancel. The times are the store's own: the canceled job's completed_at and the next job's
 * started_at, against the moment the cancel was sent — so a slow answer does not hide when
 * the worker was free, nor a fast one flatter it.
 */
async function cancelMidRun(t: TestService, client: SarwatchClient): Promise<{ first: string; next: string; freeMs: number; committedMs: number; sentAt: number }> {
  const body = { satellite_id: 'sentinel-1' as const, scene_id: sceneId };
  const { job_id: first } = await client.submit('detect', 'ship', body);
  const { job_id: next } = await client.submit('detect', 'ship', body);
  // Mid-run: the detector is reading and analysing tiles (progress ≥ 10 of 100).
  await poll(() => jobRow(t.service.db, first), (r) => r.status === 'processing' && Number(r.progress) >= 10, 600_000, 'first job under way');
  expect((await jobRow(t.service.db, next)).status).toBe('pending');

  const sentAt = Date.now();
  const canceled = await client.cancel(first);
  expect({ status: canceled.status, error_code: canceled.error_code }).toEqual({ status: 'failed', error_code: 'CANCELED' });
  const { value } = await poll(() => jobRow(t.service.db, next), (r) => r.started_at !== null, 60_000, 'the worker takes the next job');
  const freeMs = Date.parse(value.started_at!) - sentAt;
  const committedMs = Date.parse(canceled.completed_at!) - sentAt;
  return { first, next, freeMs, committedMs, sentAt };
}

describe.skipIf(!FULL)('issue 21 §4: a full-scene job canceled mid-run frees its worker within 2 s (SARWATCH_E2E_FULL=1)', () => {
  it('issue 21 §4: embedded service (in-process worker): the analysis stops, the next job is claimed within 2 s, the canceled job is never charged', async () => {
    const t = await startTestService({ SARWATCH_ARCHIVE_DIR: archiveDir }, { scenes: [], credits: 2000 });
    try {
      // How long this process's event loop (API and worker alike) was held, to explain a miss.
      const loop = monitorEventLoopDelay({ resolution: 10 });
      loop.enable();
      const { first, next, freeMs, committedMs } = await cancelMidRun(t, t.client);
      loop.disable();
      const account = `cancel committed ${committedMs} ms and the next job claimed ${freeMs} ms after the cancel was sent; the event loop stalled up to ${Math.round(loop.max / 1e6)} ms meanwhile`;
      console.log(`embedded: ${account}`);
      expect(freeMs, account).toBeLessThan(FREE_WITHIN_MS);
      expect(t.service.runner['held'].has(first)).toBe(false);
      const row = await jobRow(t.service.db, first);
      expect({ status: row.status, error_code: row.error_code, credits_used: Number(row.credits_used_micros), result_key: row.result_key }).toEqual({
        status: 'failed',
        error_code: 'CANCELED',
        credits_used: 0,
        result_key: null,
      });
      expect(await ledgerKinds(t.service.db, first)).toEqual(['release', 'reserve']);
      await t.client.cancel(next);
      expect((await waitForTerminal(t.client, next, 60_000)).error_code).toBe('CANCELED');
    } finally {
      await t.close();
    }
  }, 900_000);

  describe('scaled out: a `sarwatch worker` process on PostgreSQL and BullMQ', () => {
    let database: TestDatabase;
    let queueName: string;
    let workerDir: string;
    const children: ChildProcess[] = [];

    beforeAll(async () => {
      await ensureRedis();
      database = await createTestDatabase();
      queueName = uniqueQueueName();
      workerDir = tempDataDir();
    });

    afterAll(async () => {
      for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
      await Promise.all(children.map((c) => (c.exitCode === null && c.signalCode === null ? new Promise((r) => c.once('exit', r)) : null)));
      const q = new Queue(queueName, { connection: { url: REDIS_URL } });
      await q.obliterate({ force: true });
      await q.close();
      await database?.drop();
      fs.rmSync(workerDir, { recursive: true, force: true });
    });

    it('issue 21 §4: the worker process learns of the cancel from the store, stops the analysis and takes the next BullMQ message within 2 s', async () => {
      const env = { DATABASE_URL: database.url, REDIS_URL, SARWATCH_QUEUE_NAME: queueName, SARWATCH_ARCHIVE_DIR: archiveDir, SARWATCH_SAMPLES_DIR: '' };
      // This process: the API only (it migrates the new database).
      const t = await startTestService(env, { roles: { api: true, worker: false }, scenes: [], credits: 2000 });
      try {
        let out = '';
        const child = spawn(process.execPath, [SARWATCH_BIN, 'worker'], {
          cwd: REPO_ROOT,
          env: { ...process.env, ...env, SARWATCH_DATA_DIR: workerDir, LOG_LEVEL: 'info' },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        children.push(child);
        child.stdout!.on('data', (d) => (out += String(d)));
        child.stderr!.on('data', (d) => (out += String(d)));
        await poll(async () => out, (o) => /worker running/.test(o) || child.exitCode !== null, 300_000, 'worker start');
        expect(child.exitCode, out).toBeNull();

        // A miss names what the worker process said (its log is the only account of it).
        const { first, next, freeMs, committedMs, sentAt } = await cancelMidRun(t, t.client).catch((e: Error) => {
          throw new Error(`${e.message}\nworker exit code ${child.exitCode}; its log (last 6,000 characters):\n${out.slice(-6000)}`);
        });
        // The worker's own account of it (its log lines may trail the claim a little).
        const logged = (msg: string, jobId: string) =>
          out
            .split('\n')
            .filter((l) => l.startsWith('{'))
            .map((l) => JSON.parse(l) as { msg?: string; jobId?: string; time: number })
            .find((l) => l.msg === msg && l.jobId === jobId)?.time;
        await poll(async () => logged('job canceled: its analysis stopped', first) && logged('job started', next), (ok) => !!ok, 10_000, `worker log:\n${out}`);
        const seenMs = logged('job canceled: aborting its analysis', first)! - sentAt;
        const stoppedMs = logged('job canceled: its analysis stopped', first)! - sentAt;
        const account = `cancel committed ${committedMs} ms, seen by the worker ${seenMs} ms, its analysis stopped ${stoppedMs} ms and the next job claimed ${freeMs} ms after the cancel was sent`;
        console.log(`scaled out: ${account}`);
        expect(freeMs, account).toBeLessThan(FREE_WITHIN_MS);
        expect(await ledgerKinds(t.service.db, first)).toEqual(['release', 'reserve']);
        await t.client.cancel(next);
        expect((await waitForTerminal(t.client, next, 60_000)).error_code).toBe('CANCELED');
      } finally {
        await t.close();
      }
    }, 900_000);
  });
});
