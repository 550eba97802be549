/**
 * Cancel latency (issue 21 §3, "a worker running it stops within 2 s"): the embedded service
 * (SQLite, in-process worker, one job at a time) runs ship detection on the full-size bench
 * scene (bench/imagery-read.ts's, generated once and reused); once the first job is under way
 * (progress ≥ 10) it is canceled, and the time is taken from sending the cancel to (a) its
 * commit (the job's completed_at) and (b) the worker's claim of the next queued job (its
 * started_at) — the worker is free again. Beside each time, the longest the process's event
 * loop (API and worker alike) was held while the job ran (perf_hooks monitorEventLoopDelay):
 * what delays the worker's sight of a cancel. First, unless `SARWATCH_BENCH_CANCEL_FULL=0`, one
 * job runs to completion, for the longest block over a whole full-scene ship job.
 * `SARWATCH_BENCH_CANCEL_ROUNDS` rounds (default 3); median and worst reported.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { loadConfig } from '../src/config.ts';
import { startService } from '../src/runtime.ts';
import { createAccount, createApiKey } from '../src/jobs/accounts.ts';
import { SarwatchClient } from '../src/client/index.ts';
import { ensureBenchScene, type BenchStage } from './imagery-read.ts';

export interface BenchCancelResult {
  stages: Array<BenchStage & { loadAverage?: number }>;
  details: Record<string, unknown>;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function benchCancel(opts: { workDir: string }): Promise<BenchCancelResult> {
  const rounds = Number(process.env.SARWATCH_BENCH_CANCEL_ROUNDS || 3);
  const { productPath } = await ensureBenchScene(opts.workDir, 25_000, 16_700);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sarwatch-bench-cancel-'));
  const archiveDir = path.join(dataDir, 'archive');
  fs.mkdirSync(archiveDir, { recursive: true });
  fs.symlinkSync(productPath, path.join(archiveDir, path.basename(productPath)));
  const sceneId = path.basename(productPath).replace(/\.SAFE$/, '');
  const config = loadConfig({ SARWATCH_DATA_DIR: dataDir, PORT: '0', SARWATCH_SAMPLES_DIR: '', SARWATCH_DEMO_ARCHIVE: '0' });
  const service = await startService(config, { queuePollMs: 1000 });
  const answered: number[] = [];
  const freed: number[] = [];
  const loads: number[] = [];
  /** Longest event-loop delay (ms) while each canceled job ran, from its submission to its cancel. */
  const blocked: number[] = [];
  let full: { seconds: number; blockedMs: number; loadAverage: number } | null = null;
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  try {
    const { accountId } = await createAccount(service.db, { name: 'bench', credits: 1_000_000 });
    const { apiKey } = await createApiKey(service.db, { accountId });
    const client = new SarwatchClient({ baseUrl: service.url, apiKey });
    // Polled from the store, not the API: a poll every 50 ms would exceed the API's rate limit.
    const jobRow = (id: string) => service.db.selectFrom('jobs').select(['status', 'progress', 'error_code']).where('id', '=', id).executeTakeFirstOrThrow();
    const body = { satellite_id: 'sentinel-1' as const, scene_id: sceneId };
    if (process.env.SARWATCH_BENCH_CANCEL_FULL !== '0') {
      loop.reset();
      const { job_id } = await client.submit('detect', 'ship', body);
      const t0 = performance.now();
      let job;
      while (!['completed', 'failed'].includes((job = await jobRow(job_id)).status)) await new Promise((r) => setTimeout(r, 200));
      if (job.status !== 'completed') throw new Error(`the full job failed: ${job.error_code}`);
      full = { seconds: (performance.now() - t0) / 1000, blockedMs: loop.max / 1e6, loadAverage: os.loadavg()[0]! };
    }
    loop.reset();
    const { job_id: first } = await client.submit('detect', 'ship', body);
    let running = first;
    for (let round = 0; round < rounds; round++) {
      const { job_id: next } = await client.submit('detect', 'ship', body);
      for (;;) {
        const row = await jobRow(running);
        if (row.status === 'completed' || row.status === 'failed') throw new Error(`job ${running} ended (${row.status} ${row.error_code}) before it could be canceled`);
        if (Number(row.progress) >= 10) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      loads.push(os.loadavg()[0]!);
      // Times are the store's: the canceled job's completed_at, the next job's started_at.
      const sentAt = Date.now();
      blocked.push(loop.max / 1e6);
      const canceled = await client.cancel(running);
      answered.push(Date.parse(canceled.completed_at!) - sentAt);
      let started: string | null = null;
      while (!(started = (await service.db.selectFrom('jobs').select('started_at').where('id', '=', next).executeTakeFirstOrThrow()).started_at)) {
        await new Promise((r) => setTimeout(r, 5));
      }
      freed.push(Date.parse(started) - sentAt);
      loop.reset();
      running = next;
    }
    await client.cancel(running);
  } finally {
    loop.disable();
    await service.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  const stage = (name: string, ms: number, loadAverage = median(loads)): BenchStage & { loadAverage?: number } => ({
    name,
    seconds: Math.round(ms) / 1000,
    mpxPerSecond: 0,
    peakRssMb: Math.round(process.memoryUsage.rss() / 2 ** 20),
    loadAverage,
  });
  return {
    stages: [
      ...(full
        ? [stage('full-scene ship job, submitted → completed', full.seconds * 1000, full.loadAverage), stage('longest event-loop block during that job', full.blockedMs, full.loadAverage)]
        : []),
      stage(`longest event-loop block while a canceled job ran (worst of ${rounds})`, Math.max(...blocked)),
      stage(`cancel committed (median of ${rounds})`, median(answered)),
      stage(`cancel → next job claimed (median of ${rounds})`, median(freed)),
      stage(`cancel → next job claimed (worst of ${rounds})`, Math.max(...freed)),
    ],
    details: {
      rounds,
      committedMs: answered.map(Math.round),
      freedMs: freed.map(Math.round),
      blockedMs: blocked.map(Math.round),
      loadAverage: loads.map((l) => Math.round(l * 10) / 10),
      ...(full ? { fullJob: { seconds: Math.round(full.seconds * 10) / 10, blockedMs: Math.round(full.blockedMs), loadAverage: Math.round(full.loadAverage * 10) / 10 } } : {}),
    },
  };
}
