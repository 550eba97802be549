/**
 * Issue 20 §2: one job over many workers. A scaled-out deployment (PostgreSQL, BullMQ on Redis,
 * `sarwatch worker` processes; the object store a folder all of them share) runs one full-scene
 * ship job (the bench scene of bench/imagery-read.ts, `--size`), twice:
 *   - 1 worker process, fan-out off (SARWATCH_TILE_FANOUT_MIN_TILES huge): the one-process job;
 *   - 3 worker processes, fan-out on: the tiles spread over all three.
 * On a two-core machine wall time cannot show the gain, so the figures are CPU seconds of each
 * worker process over the job (/proc/<pid>/stat, all its threads): the sum of the three against
 * the one worker's (overhead of spreading; target ≤ 1.15×), and the busiest worker against a
 * third of the sum (balance; target ≤ 1.3×). Each deployment runs the job twice: cold (each
 * analysis thread's first use: modules, product, land mask, JIT) and warm.
 *   SARWATCH_BENCH_PG_URL / SARWATCH_BENCH_REDIS_URL: the servers (bench/scaledStore.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { loadConfig } from '../src/config.ts';
import { startService } from '../src/runtime.ts';
import { createAccount, createApiKey } from '../src/jobs/accounts.ts';
import { SarwatchClient } from '../src/client/index.ts';
import { ensureBenchScene, type BenchStage } from './imagery-read.ts';
import { scaledStore } from './scaledStore.ts';

const BIN = path.resolve(import.meta.dirname, '../bin/sarwatch.js');
const TICKS = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** CPU seconds (user + system, every thread) of a live process. */
function cpuSeconds(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS;
}

interface JobRun {
  /** CPU seconds of each worker over the job. */
  cpu: number[];
  seconds: number;
  loadAverage: number;
  features: number;
  /** The result, to compare the runs. */
  result: string;
}

interface Deployment {
  workers: number;
  fanout: boolean;
  /** CPU seconds per second of each worker while idle. */
  idleRate: number[];
  /** A cold job, then a warm one. */
  runs: JobRun[];
}

async function runDeployment(productPath: string, workers: number, fanout: boolean): Promise<Deployment> {
  const store = await scaledStore('distributed', ['-tiles', '-webhooks']);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sarwatch-bench-distributed-'));
  const archive = path.join(dataDir, 'archive');
  fs.mkdirSync(archive, { recursive: true });
  fs.symlinkSync(productPath, path.join(archive, path.basename(productPath)));
  const env: Record<string, string> = {
    ...store.env,
    SARWATCH_DATA_DIR: dataDir,
    SARWATCH_ARCHIVE_DIR: archive,
    SARWATCH_SAMPLES_DIR: '',
    SARWATCH_DEMO_ARCHIVE: '0',
    SARWATCH_TILE_FANOUT_MIN_TILES: fanout ? '2' : '1000000',
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
  };
  const children: ChildProcess[] = [];
  let service: Awaited<ReturnType<typeof startService>> | null = null;
  try {
    await new Promise<void>((resolve, reject) => {
      const m = spawn(process.execPath, [BIN, 'migrate'], { env: { ...process.env, ...env }, stdio: 'ignore' });
      m.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`migrate exited ${code}`))));
    });
    const started = Array.from({ length: workers }, () => {
      let out = '';
      const child = spawn(process.execPath, [BIN, 'worker'], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
      child.stdout!.on('data', (d) => (out += String(d)));
      child.stderr!.on('data', (d) => (out += String(d)));
      children.push(child);
      return { child, output: () => out };
    });
    // Every worker up, and the archive indexed (by one of them, the others wait for it).
    for (const w of started) {
      const end = Date.now() + 600_000;
      while (!/worker running/.test(w.output())) {
        if (Date.now() > end || w.child.exitCode !== null) throw new Error(`worker did not start:\n${w.output()}`);
        await sleep(100);
      }
    }
    service = await startService(loadConfig({ ...env }), { roles: { api: true, worker: false }, migrate: false });
    const { accountId } = await createAccount(service.db, { name: 'bench', credits: 1_000_000 });
    const { apiKey } = await createApiKey(service.db, { accountId });
    const client = new SarwatchClient({ baseUrl: service.url, apiKey });
    const sceneId = path.basename(productPath).replace(/\.SAFE$/, '');
    // The workers' own CPU while idle (maintenance, heartbeats, polls), over 10 s: reported, not subtracted.
    await sleep(2000);
    const idle0 = children.map((c) => cpuSeconds(c.pid!));
    await sleep(10_000);
    const idleRate = children.map((c, i) => (cpuSeconds(c.pid!) - idle0[i]!) / 10);
    const runs: JobRun[] = [];
    // Twice: the first job pays each analysis thread's first use (modules, product, land mask, JIT); the second runs warm.
    for (let k = 0; k < 2; k++) {
      const before = children.map((c) => cpuSeconds(c.pid!));
      const t0 = performance.now();
      const { job_id } = await client.submit('analyze', 'ship', { satellite_id: 'sentinel-1', scene_id: sceneId });
      // Polled from the store: the API's rate limit is not what is measured.
      for (;;) {
        const job = await service.db.selectFrom('jobs').select(['status', 'error_code', 'error_message']).where('id', '=', job_id).executeTakeFirstOrThrow();
        if (job.status === 'failed') throw new Error(`the job failed: ${job.error_code} ${job.error_message ?? ''}`);
        if (job.status === 'completed') break;
        await sleep(250);
      }
      const seconds = (performance.now() - t0) / 1000;
      const after = children.map((c) => cpuSeconds(c.pid!));
      const result = await client.downloadResult(job_id);
      runs.push({ cpu: after.map((a, i) => a - before[i]!), seconds, loadAverage: os.loadavg()[0]!, features: result.features.length, result: JSON.stringify(result) });
    }
    return { workers, fanout, idleRate, runs };
  } finally {
    for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
    await Promise.all(children.map((c) => (c.exitCode === null && c.signalCode === null ? new Promise((r) => c.once('exit', r)) : null)));
    await service?.close();
    await store.cleanup().catch(() => {});
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

export async function benchDistributed(opts: { workDir: string; width: number; height: number }): Promise<{ stages: Array<BenchStage & { cpuSeconds: number; loadAverage: number }>; details: Record<string, unknown> }> {
  const { productPath } = await ensureBenchScene(opts.workDir, opts.width, opts.height);
  const one = await runDeployment(productPath, 1, false);
  const three = await runDeployment(productPath, 3, true);
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
  const round = (x: number, d = 10) => Math.round(x * d) / d;
  const megapixels = (opts.width * opts.height) / 1e6;
  const stage = (name: string, d: JobRun, cpu: number): BenchStage & { cpuSeconds: number; loadAverage: number } => ({
    name,
    seconds: d.seconds,
    mpxPerSecond: megapixels / d.seconds,
    peakRssMb: 0,
    cpuSeconds: round(cpu),
    loadAverage: round(d.loadAverage),
  });
  const stages = [];
  const figures: Record<string, unknown> = {};
  for (const [k, label] of [[0, 'cold'], [1, 'warm']] as const) {
    const a = one.runs[k]!;
    const b = three.runs[k]!;
    stages.push(stage(`${label} job, 1 worker, one process`, a, sum(a.cpu)), ...b.cpu.map((c, i) => stage(`${label} job, 3 workers fanned out: worker ${i + 1}`, b, c)), stage(`${label} job, 3 workers fanned out: all`, b, sum(b.cpu)));
    figures[label] = {
      cpuSeconds: { oneWorker: round(sum(a.cpu)), threeWorkers: b.cpu.map((c) => round(c)) },
      summedCpuRatio: round(sum(b.cpu) / sum(a.cpu), 1000),
      busiestOverThird: round(Math.max(...b.cpu) / (sum(b.cpu) / 3), 1000),
      identicalResult: a.result === b.result && a.result === one.runs[0]!.result,
      features: a.features,
    };
  }
  return {
    stages,
    details: {
      size: `${opts.width}x${opts.height}`,
      ...figures,
      idleCpuPerSecond: { oneWorker: one.idleRate.map((r) => round(r, 1000)), threeWorkers: three.idleRate.map((r) => round(r, 1000)) },
    },
  };
}
