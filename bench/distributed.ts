/**
 * Issue 20 §2: one job over many workers. A scaled-out deployment (PostgreSQL, BullMQ on Redis,
 * `sarwatch worker` processes; the object store a folder all of them share) runs big jobs of
 * the shared archive:
 *   - `oilslick`: oil slicks on the full-scene bench scene (bench/imagery-read.ts, `--size`);
 *   - `newbuilding`: building change on the 30,000 km² RTC pair of bench/change.ts (17,408² px
 *     at 10 m, VV + VH, two dates), linked into the archive under OPERA RTC names; the AOI is
 *     its central square just under the endpoint's 30,000 km² limit;
 *   - `ship`: ships on the full-scene bench scene;
 * each on two deployments:
 *   - 1 worker process, fan-out off (SARWATCH_TILE_FANOUT_MIN_TILES huge): the one-process job;
 *   - 3 worker processes, fan-out on: the tiles spread over all three.
 * On a two-core machine wall time cannot show the gain, so the figures are CPU seconds of each
 * worker process over the job (/proc/<pid>/stat, all its threads): the sum of the three against
 * the one worker's (overhead of spreading; target ≤ 1.15×), and the busiest worker against a
 * third of the sum (balance; target ≤ 1.3×). Where each worker's CPU went (`cpuParts`): its
 * analysis threads running tile tasks and loading their modules and its main thread merging, as
 * the worker itself counts them (thread CPU from /proc/thread-self; its `/metrics`,
 * `sarwatch_analysis_cpu_seconds_total`), the rest of its main thread (planning, dispatch, queue
 * and store traffic, the result's upload, idle polls) and its other threads (V8's GC helpers,
 * analysis threads outside tasks, libuv) from /proc. Each job runs `SARWATCH_BENCH_DISTRIBUTED_RUNS`
 * times (default 1) per deployment, the jobs in the order given: a deployment's first job pays
 * each analysis thread's first use (modules, JIT), a job's first run its products' opening.
 * The bench fails unless every run's result equals the one-process result.
 *   SARWATCH_BENCH_DISTRIBUTED_JOBS: jobs to run, in order (default `oilslick,newbuilding`).
 *   SARWATCH_BENCH_CHANGE_PX: the change pair's size (bench/change.ts; default 17408).
 *   SARWATCH_BENCH_DISTRIBUTED_THREADS: a file to append, per job and deployment, each worker's
 *     CPU seconds by thread (main thread flagged; analysis, V8 helper and loader threads unnamed).
 *   SARWATCH_BENCH_PG_URL / SARWATCH_BENCH_REDIS_URL: the servers (bench/scaledStore.ts).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../src/config.ts';
import { startService } from '../src/runtime.ts';
import { createAccount, createApiKey } from '../src/jobs/accounts.ts';
import { SarwatchClient } from '../src/client/index.ts';
import { toWkt } from '../src/geo/wkt.ts';
import { ensureBenchScene, type BenchStage } from './imagery-read.ts';
import { ensurePair, pairAoi } from './change.ts';
import { scaledStore } from './scaledStore.ts';

const BIN = path.resolve(import.meta.dirname, '../bin/sarwatch.js');
export const TICKS = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** CPU seconds (user + system, every thread) of a live process. */
export function cpuSeconds(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS;
}

/** CPU seconds of one thread (the main thread: tid = pid). */
function oneThreadCpuSeconds(pid: number, tid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS;
}

/** Where a worker's CPU went, seconds: as the worker reports it (`/metrics`, src/analysis/engine/cpu.ts) beside /proc. */
interface CpuParts {
  total: number;
  /** The main thread (/proc): coordination, merging, queue and store traffic, idle polls. */
  main: number;
  /** Of `main`: merging tile results and building the result (the worker's own figure). */
  merge: number;
  /** Analysis threads loading a tile task's module (the worker's own figure). */
  taskModules: number;
  /** Analysis threads running tile tasks (the worker's own figure). */
  tileTasks: number;
}

async function cpuParts(pid: number, metricsUrl: string): Promise<CpuParts> {
  // A fresh connection each time (the worker's listener closes idle ones, and a reused one may be closed under the request), tried thrice.
  let text = '';
  for (let attempt = 1; ; attempt++) {
    try {
      text = await (await fetch(metricsUrl, { headers: { connection: 'close' } })).text();
      break;
    } catch (error) {
      if (attempt >= 3) throw error;
      await sleep(200);
    }
  }
  const part = (name: string) => Number(new RegExp(`^sarwatch_analysis_cpu_seconds_total\\{part="${name}"\\} (\\S+)$`, 'm').exec(text)?.[1] ?? Number.NaN);
  return { total: cpuSeconds(pid), main: oneThreadCpuSeconds(pid, pid), merge: part('merge'), taskModules: part('task_modules'), tileTasks: part('tile_tasks') };
}

/**
 * A worker's CPU over a job by part: tile tasks, task modules, merge, the main thread's rest
 * (coordination, queue/store traffic, polling) and the other threads (V8's GC helpers, the
 * analysis threads outside tasks: their start, idle waits; libuv).
 */
function partsOver(a: CpuParts, b: CpuParts): Record<string, number> {
  const d = (k: keyof CpuParts) => b[k] - a[k];
  const r = (x: number) => Math.round(x * 10) / 10;
  return {
    total: r(d('total')),
    tileTasks: r(d('tileTasks')),
    taskModules: r(d('taskModules')),
    merge: r(d('merge')),
    mainRest: r(d('main') - d('merge')),
    otherThreads: r(d('total') - d('main') - d('tileTasks') - d('taskModules')),
  };
}

/** CPU seconds of each thread of a live process, by thread id (threads that ended are not listed). */
function threadCpuSeconds(pid: number): Map<number, number> {
  const out = new Map<number, number>();
  for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(Number(tid), (Number(fields[11]) + Number(fields[12])) / TICKS);
    } catch {
      // ended meanwhile
    }
  }
  return out;
}

type JobName = 'ship' | 'oilslick' | 'newbuilding';
const JOB_NAMES: readonly JobName[] = ['ship', 'oilslick', 'newbuilding'];

/** One job as submitted: its endpoint and body; `files` are linked into the shared archive. */
interface BenchJob {
  name: JobName;
  endpoint: JobName;
  body: Record<string, unknown>;
  files: Array<{ target: string; name: string }>;
  /** Pixels analysed (Mpx), for the throughput column. */
  megapixels: number;
}

interface JobRun {
  job: JobName;
  /** CPU seconds of each worker over the job. */
  cpu: number[];
  seconds: number;
  loadAverage: number;
  features: number;
  /** The result, to compare the runs. */
  result: string;
  /** Each worker's CPU over the job by part (partsOver). */
  parts: Array<Record<string, number>>;
}

interface Deployment {
  workers: number;
  fanout: boolean;
  /** CPU seconds per second of each worker while idle. */
  idleRate: number[];
  runs: JobRun[];
}

/** Change pair: the OPERA RTC-S1 name each generated band is linked under (one burst, two dates 24 days apart). */
const PAIR_NAMES = ['20240601T055500Z', '20240625T055500Z'].flatMap((t) =>
  ['VV', 'VH'].map((pol) => `OPERA_L2_RTC-S1_T008-016000-IW2_${t}_${t}_S1A_10_v1.0_${pol}.tif`),
);
/** Inset of the change AOI from each edge of the pair: 17,408 − 2 × 60 px at 10 m ≈ 29,900 km² on the ground, under the 30,000 km² limit. */
const PAIR_INSET_PX = 60;

async function benchJobs(names: readonly JobName[], workDir: string, width: number, height: number): Promise<BenchJob[]> {
  const jobs: BenchJob[] = [];
  for (const name of names) {
    if (name === 'newbuilding') {
      const sizePx = Number(process.env.SARWATCH_BENCH_CHANGE_PX ?? 17_408);
      const { marker } = await ensurePair(workDir, sizePx);
      const aoi = await pairAoi(marker.files[0]!, sizePx, PAIR_INSET_PX);
      jobs.push({
        name,
        endpoint: name,
        body: { satellite_id: 'sentinel-1', polygon: toWkt(aoi), date_start: '2024-05-25', date_end: '2024-06-30' },
        files: marker.files.map((target, i) => ({ target, name: PAIR_NAMES[i]! })),
        megapixels: (sizePx - 2 * PAIR_INSET_PX) ** 2 / 1e6,
      });
    } else {
      const { productPath } = await ensureBenchScene(workDir, width, height);
      const sceneId = path.basename(productPath).replace(/\.SAFE$/, '');
      jobs.push({ name, endpoint: name, body: { satellite_id: 'sentinel-1', scene_id: sceneId }, files: [{ target: productPath, name: path.basename(productPath) }], megapixels: (width * height) / 1e6 });
    }
  }
  return jobs;
}

async function runDeployment(jobs: readonly BenchJob[], runsPerJob: number, workers: number, fanout: boolean): Promise<Deployment> {
  const store = await scaledStore('distributed', ['-tiles', '-webhooks']);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sarwatch-bench-distributed-'));
  const archive = path.join(dataDir, 'archive');
  fs.mkdirSync(archive, { recursive: true });
  for (const job of jobs) for (const f of job.files) if (!fs.existsSync(path.join(archive, f.name))) fs.symlinkSync(f.target, path.join(archive, f.name));
  const env: Record<string, string> = {
    ...store.env,
    SARWATCH_DATA_DIR: dataDir,
    SARWATCH_ARCHIVE_DIR: archive,
    SARWATCH_SAMPLES_DIR: '',
    SARWATCH_DEMO_ARCHIVE: '0',
    SARWATCH_TILE_FANOUT_MIN_TILES: fanout ? '2' : '1000000',
    PORT: '0',
    HOST: '127.0.0.1',
    // Each worker's own account of its analysis CPU by part (sarwatch_analysis_cpu_seconds_total).
    SARWATCH_METRICS_PORT: '0',
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
    const metricsUrls = started.map((w) => {
      const url = /metrics at (\S+)/.exec(w.output())?.[1];
      if (!url) throw new Error(`worker named no metrics URL:\n${w.output()}`);
      return url;
    });
    const partsNow = () => Promise.all(children.map((c, i) => cpuParts(c.pid!, metricsUrls[i]!)));
    service = await startService(loadConfig({ ...env }), { roles: { api: true, worker: false }, migrate: false });
    const { accountId } = await createAccount(service.db, { name: 'bench', credits: 1_000_000 });
    const { apiKey } = await createApiKey(service.db, { accountId });
    const client = new SarwatchClient({ baseUrl: service.url, apiKey });
    // The workers' own CPU while idle (maintenance, heartbeats, polls), over 10 s: reported, not subtracted.
    await sleep(2000);
    const idle0 = children.map((c) => cpuSeconds(c.pid!));
    await sleep(10_000);
    const idleRate = children.map((c, i) => (cpuSeconds(c.pid!) - idle0[i]!) / 10);
    const runs: JobRun[] = [];
    for (const job of jobs) {
      for (let k = 0; k < runsPerJob; k++) {
        const partsBefore = await partsNow();
        const before = children.map((c) => cpuSeconds(c.pid!));
        const threadsBefore = children.map((c) => threadCpuSeconds(c.pid!));
        const t0 = performance.now();
        const { job_id } = await client.submit('analyze', job.endpoint, job.body as never);
        // Polled from the store: the API's rate limit is not what is measured.
        for (;;) {
          const row = await service.db.selectFrom('jobs').select(['status', 'error_code', 'error_message']).where('id', '=', job_id).executeTakeFirstOrThrow();
          if (row.status === 'failed') throw new Error(`the ${job.name} job failed: ${row.error_code} ${row.error_message ?? ''}`);
          if (row.status === 'completed') break;
          await sleep(250);
        }
        const seconds = (performance.now() - t0) / 1000;
        const after = children.map((c) => cpuSeconds(c.pid!));
        const threadsAfter = children.map((c) => threadCpuSeconds(c.pid!));
        const partsAfter = await partsNow();
        if (process.env.SARWATCH_BENCH_DISTRIBUTED_THREADS) {
          const rows = children.map((c, i) => ({ worker: i + 1, pid: c.pid, total: after[i]! - before[i]!, threads: [...threadsAfter[i]!].map(([tid, s]) => ({ tid, main: tid === c.pid, cpu: s - (threadsBefore[i]!.get(tid) ?? 0) })).filter((t) => t.cpu > 0.05) }));
          fs.appendFileSync(process.env.SARWATCH_BENCH_DISTRIBUTED_THREADS, `${JSON.stringify({ job: job.name, workers, rows })}\n`);
        }
        const result = await client.downloadResult(job_id);
        runs.push({ job: job.name, cpu: after.map((a, i) => a - before[i]!), parts: partsAfter.map((p, i) => partsOver(partsBefore[i]!, p)), seconds, loadAverage: os.loadavg()[0]!, features: result.features.length, result: JSON.stringify(result) });
      }
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
  const names = (process.env.SARWATCH_BENCH_DISTRIBUTED_JOBS ?? 'oilslick,newbuilding').split(',').map((n) => n.trim());
  const unknown = names.filter((n) => !(JOB_NAMES as readonly string[]).includes(n));
  if (unknown.length > 0 || names.length === 0) throw new Error(`SARWATCH_BENCH_DISTRIBUTED_JOBS: jobs are ${JOB_NAMES.join(', ')}; got ${unknown.join(', ') || 'none'}`);
  const runsPerJob = Number(process.env.SARWATCH_BENCH_DISTRIBUTED_RUNS ?? 1);
  if (!Number.isInteger(runsPerJob) || runsPerJob < 1) throw new Error('SARWATCH_BENCH_DISTRIBUTED_RUNS must be a positive integer');
  const jobs = await benchJobs(names as JobName[], opts.workDir, opts.width, opts.height);
  const one = await runDeployment(jobs, runsPerJob, 1, false);
  const three = await runDeployment(jobs, runsPerJob, 3, true);
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
  const round = (x: number, d = 10) => Math.round(x * d) / d;
  const stage = (name: string, d: JobRun, megapixels: number, cpu: number): BenchStage & { cpuSeconds: number; loadAverage: number } => ({
    name,
    seconds: d.seconds,
    mpxPerSecond: megapixels / d.seconds,
    peakRssMb: 0,
    cpuSeconds: round(cpu),
    loadAverage: round(d.loadAverage),
  });
  const stages = [];
  const figures: Record<string, unknown> = {};
  for (let i = 0; i < one.runs.length; i++) {
    const a = one.runs[i]!;
    const b = three.runs[i]!;
    const job = jobs.find((j) => j.name === a.job)!;
    // The one-process result of this job (its first run) is what every run must give.
    const reference = one.runs.find((r) => r.job === a.job)!;
    if (a.result !== reference.result || b.result !== reference.result) {
      throw new Error(`${a.job} run ${i + 1}: the fanned-out result differs from the one-process result (${b.features} vs ${reference.features} features)`);
    }
    const label = `${a.job} #${one.runs.slice(0, i + 1).filter((r) => r.job === a.job).length}`;
    stages.push(
      stage(`${label}, 1 worker, one process`, a, job.megapixels, sum(a.cpu)),
      ...b.cpu.map((c, w) => stage(`${label}, 3 workers fanned out: worker ${w + 1}`, b, job.megapixels, c)),
      stage(`${label}, 3 workers fanned out: all`, b, job.megapixels, sum(b.cpu)),
    );
    figures[label] = {
      cpuSeconds: { oneWorker: round(sum(a.cpu)), threeWorkers: b.cpu.map((c) => round(c)) },
      summedCpuRatio: round(sum(b.cpu) / sum(a.cpu), 1000),
      busiestOverThird: round(Math.max(...b.cpu) / (sum(b.cpu) / 3), 1000),
      identicalResult: true,
      features: a.features,
      // Each worker's CPU by part (seconds): where the 3 workers' extra over 1 goes.
      cpuParts: { oneWorker: a.parts, threeWorkers: b.parts },
    };
  }
  return {
    stages,
    details: {
      jobs: jobs.map((j) => `${j.name} (${Math.round(j.megapixels)} Mpx)`).join(', '),
      ...figures,
      idleCpuPerSecond: { oneWorker: one.idleRate.map((r) => round(r, 1000)), threeWorkers: three.idleRate.map((r) => round(r, 1000)) },
    },
  };
}
