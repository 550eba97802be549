/**
 * The HTTP API under load (issue 13), `npm run bench -- --only api`, with autocannon at 50
 * concurrent connections against a real server in its own process, in both modes:
 *
 *   embedded    `sarwatch serve`: SQLite, local objects, the in-process worker;
 *   scaled out  `sarwatch api`: PostgreSQL, BullMQ on Redis, S3 (s3rver in this process);
 *               no worker, so submitted jobs stay pending.
 *
 * What is measured, per mode:
 *   1. submissions: POST /api/v1/analyze/ship with a scene_id, as fast as 50 connections go,
 *      for SECONDS, first all with one account's key (its submissions are serialised by the
 *      account's row lock: the worst case), then round-robin over 10 accounts. Each one is the whole acceptance path — authentication, rate limit,
 *      validation, the concurrent-job limit and the credit reservation under the account's
 *      row lock, the job row, the enqueue — and nothing more: the scene does not exist, so
 *      no detector runs (embedded, the worker fails each job at once, uncharged, which is
 *      part of the load; scaled out they stay pending).
 *   2. GET /api/v1/jobs/:id over 200 existing jobs at a fixed 1,000 req/s (autocannon
 *      overallRate): p50 / p99 latency of every answer, corrected for coordinated omission
 *      (bench/latency.ts says why not autocannon's own figure). Target embedded: p99 ≤ 20 ms.
 *   3. the same GET as fast as 50 connections go: the ceiling.
 * Target scaled out: ≥ 200 submissions/s.
 *
 * Rate limits, the concurrent-job limit and credits would turn most of this load into 429s
 * and 402s; the bench sets them out of the way through the environment of the server
 * (SARWATCH_RATE_LIMIT_PER_MINUTE, SARWATCH_MAX_CONCURRENT_JOBS, an account with 10^9
 * credits), so the figures are the API's own cost. Every non-2xx response is counted and
 * printed; a run with any is reported as such.
 *
 * Stages carry the server's CPU seconds (from /proc) and its peak RSS; the client
 * (autocannon) runs in this process and shares the machine's cores with the server. The
 * details add, per run, successful requests per server CPU second: on a loaded machine the
 * server gets a fraction of a core, and that figure is what one core of its own serves.
 *
 *   SARWATCH_BENCH_API_SECONDS  length of each autocannon run (default 10)
 *   SARWATCH_BENCH_PG_URL       an existing PostgreSQL database to create the bench database from
 *                               (default postgres://postgres@127.0.0.1:5432/postgres)
 *   SARWATCH_BENCH_REDIS_URL    Redis (default redis://127.0.0.1:6379); the bench uses its own queue name
 *   SARWATCH_BENCH_API_MODES    `embedded,scaled` (default) or one of them
 *   SARWATCH_BENCH_API_PROFILE  a folder: the server writes a V8 CPU profile (.cpuprofile) there
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import S3rver from 's3rver';
import type { BenchStage } from './imagery-read.ts';
import { correctedForOmission, percentile } from './latency.ts';
import { freePort } from './freePort.ts';
import { scaledStore } from './scaledStore.ts';

const CLI = new URL('../bin/sarwatch.js', import.meta.url).pathname;
const CONNECTIONS = 50;
const GET_RATE = 1000;
const GET_JOBS = 200;
/** Submissions of one account are serialised by its row lock; the spread run uses this many. */
const ACCOUNTS = 10;
/** A well-formed scene id no archive holds: accepted at submission, failed (uncharged) at run time. */
const MISSING_SCENE = 'S1A_IW_GRDH_1SDV_20200101T000000_20200101T000025_030000_036F00_BE0C';

type Stage = BenchStage & { cpuSeconds?: number; loadAverage?: number };

interface Throughput {
  requestsPerSecond: number;
  /** Successful requests per CPU second of the server process. */
  perServerCpuSecond: number;
  p50Ms: number;
  p99Ms: number;
}

export interface ApiModeFigures {
  /** 50 connections, one account (serialised by the account's row lock). */
  submissions: Throughput & { accepted: number };
  /** 50 connections spread over ACCOUNTS accounts. */
  submissionsSpread: Throughput & { accepted: number };
  /**
   * p50/p99/max from every 2xx answer, corrected for coordinated omission with the right
   * interval (bench/latency.ts); autocannonP99Ms is autocannon's own figure, whose correction
   * uses a 1 ms interval at any rate and overstates the tail.
   */
  getAtRate: Throughput & { maxMs: number; answers: number; autocannonP99Ms: number };
  getMax: Throughput;
  non2xx: number;
  errors: number;
  serverCpuSeconds: number;
  serverPeakRssMb: number;
  loadAverage1min: number;
}

async function waitUntilUp(url: string, child: ChildProcess, seconds: number): Promise<void> {
  const deadline = Date.now() + seconds * 1000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the server exited (${child.exitCode}) before answering ${url}/healthz`);
    try {
      if ((await fetch(`${url}/healthz`)).ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`the server did not answer ${url}/healthz within ${seconds} s`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** CPU seconds (user + system) a process has used so far, from /proc. */
function processCpuSeconds(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime are fields 14 and 15 of stat (index 11 and 12 after the command name).
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

function peakRssMb(pid: number): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Math.round(Number(m[1]) / 1024) : NaN;
}

/** Waits until /metrics shows no pending or processing job. */
async function untilNoActiveJobs(url: string, seconds: number): Promise<void> {
  const deadline = Date.now() + seconds * 1000;
  for (;;) {
    const text = await (await fetch(`${url}/metrics`)).text();
    const active = [...text.matchAll(/^sarwatch_jobs\{[^}]*state="(?:pending|processing)"[^}]*\} (\d+)/gm)].reduce((n, m) => n + Number(m[1]), 0);
    if (active === 0) return;
    if (Date.now() > deadline) throw new Error(`${active} jobs still active after ${seconds} s`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

const round = (v: number, digits = 1) => Math.round(v * 10 ** digits) / 10 ** digits;

/** Runs autocannon; `responseMs`, when given, receives the time of every 2xx answer. */
function cannon(opts: autocannon.Options, responseMs?: number[]): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    const instance = autocannon(opts, (err, result) => (err ? reject(err) : resolve(result)));
    if (responseMs) {
      instance.on('response', (_client: unknown, statusCode: number, _bytes: number, ms: number) => {
        if (statusCode >= 200 && statusCode < 300) responseMs.push(ms);
      });
    }
  });
}

interface Server {
  url: string;
  pid: number;
  /** One key per account; the first is the one account of the one-account runs. */
  apiKeys: string[];
  stop(): Promise<void>;
}

function cli(env: NodeJS.ProcessEnv, ...args: string[]): string {
  return execFileSync(process.execPath, [CLI, ...args], { env, encoding: 'utf8' });
}

/** Environment that takes rate limits, the concurrent-job limit and credits out of the measurement. */
function unlimited(dataDir: string, port: number): NodeJS.ProcessEnv {
  return {
    ...process.env,
    SARWATCH_DATA_DIR: dataDir,
    HOST: '127.0.0.1',
    PORT: String(port),
    SARWATCH_SAMPLES_DIR: '',
    SARWATCH_DEMO_ARCHIVE: '0',
    SARWATCH_RATE_LIMIT_PER_MINUTE: '1000000000',
    SARWATCH_MAX_CONCURRENT_JOBS: '1000000000',
    LOG_LEVEL: 'warn',
  };
}

async function spawnServer(role: 'serve' | 'api', env: NodeJS.ProcessEnv, cleanup: () => Promise<void>): Promise<Server> {
  const apiKeys: string[] = [];
  for (let i = 0; i < ACCOUNTS; i++) {
    apiKeys.push((JSON.parse(cli(env, 'accounts', 'create', '--name', `bench-${i}`, '--credits', '1000000000', '--json')) as { api_key: string }).api_key);
  }
  const profile = process.env.SARWATCH_BENCH_API_PROFILE ? [`--cpu-prof`, `--cpu-prof-dir=${process.env.SARWATCH_BENCH_API_PROFILE}`] : [];
  const child = spawn(process.execPath, [...profile, CLI, role], { env, stdio: ['ignore', 'ignore', 'inherit'] });
  const url = `http://127.0.0.1:${env.PORT}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
    await cleanup();
  };
  try {
    await waitUntilUp(url, child, 300);
  } catch (e) {
    await stop();
    throw e;
  }
  return { url, pid: child.pid!, apiKeys, stop };
}

async function embedded(): Promise<Server> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sarwatch-bench-api-'));
  return spawnServer('serve', unlimited(dataDir, await freePort()), async () => fs.rmSync(dataDir, { recursive: true, force: true }));
}

async function scaledOut(): Promise<Server> {
  const store = await scaledStore('api');
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sarwatch-bench-api-'));
  const s3Dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sarwatch-bench-s3-'));
  const s3 = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: s3Dir, configureBuckets: [{ name: 'sarwatch-bench' }] });
  const { port: s3Port } = await s3.run();
  const env: NodeJS.ProcessEnv = {
    ...unlimited(dataDir, await freePort()),
    ...store.env,
    STORAGE_URL: 's3://sarwatch-bench/results',
    S3_ENDPOINT: `http://127.0.0.1:${s3Port}`,
    S3_FORCE_PATH_STYLE: 'true',
    // s3rver's fixed credentials.
    AWS_ACCESS_KEY_ID: 'S3RVER',
    AWS_SECRET_ACCESS_KEY: 'S3RVER',
    AWS_REGION: 'us-east-1',
  };
  const cleanup = async () => {
    await s3.close();
    fs.rmSync(s3Dir, { recursive: true, force: true });
    fs.rmSync(dataDir, { recursive: true, force: true });
    await store.cleanup();
  };
  try {
    cli(env, 'migrate');
  } catch (e) {
    await cleanup();
    throw e;
  }
  return spawnServer('api', env, cleanup);
}

async function measure(mode: string, server: Server, seconds: number): Promise<{ stages: Stage[]; figures: ApiModeFigures }> {
  const headers = { Authorization: `Bearer ${server.apiKeys[0]}`, 'Content-Type': 'application/json' };
  const submitBody = JSON.stringify({ satellite_id: 'sentinel-1', scene_id: MISSING_SCENE });
  const stages: Stage[] = [];
  let non2xx = 0;
  let errors = 0;
  const cpuOf = new Map<autocannon.Result, number>();
  // Successful requests per CPU second of the server process: on a shared, loaded machine
  // the server gets a fraction of a core, and this says what one core of its own would serve
  // (PostgreSQL's and Redis's own CPU not included).
  const perCpuSecond = (r: autocannon.Result) => round(r['2xx'] / Math.max(cpuOf.get(r)!, 0.01), 0);
  const run = async (name: string, opts: autocannon.Options, responseMs?: number[]) => {
    const cpu0 = processCpuSeconds(server.pid);
    const t0 = performance.now();
    const result = await cannon({ connections: CONNECTIONS, duration: seconds, ...opts }, responseMs);
    const wall = (performance.now() - t0) / 1000;
    cpuOf.set(result, processCpuSeconds(server.pid) - cpu0);
    non2xx += result.non2xx;
    errors += result.errors + result.timeouts;
    stages.push({
      name: `${mode}: ${name}`,
      seconds: round(wall, 1),
      mpxPerSecond: 0,
      peakRssMb: peakRssMb(server.pid),
      cpuSeconds: round(processCpuSeconds(server.pid) - cpu0, 1),
      loadAverage: round(os.loadavg()[0]!, 2),
    });
    return result;
  };

  // Warm-up: JIT, the store's connections, the first enqueue.
  await cannon({ url: `${server.url}/api/v1/analyze/ship`, method: 'POST', headers, body: submitBody, connections: 10, amount: 200 });

  const cpuStart = processCpuSeconds(server.pid);
  const submitOpts = { url: `${server.url}/api/v1/analyze/ship`, method: 'POST' as const, headers, body: submitBody };
  const submit = await run(`POST submissions, one account`, submitOpts);
  // The same, round-robin over ACCOUNTS accounts: what many customers submitting at once see.
  let next = 0;
  const spread = await run(`POST submissions, ${ACCOUNTS} accounts`, {
    ...submitOpts,
    requests: [
      {
        setupRequest: (req) => ({ ...req, headers: { ...req.headers, Authorization: `Bearer ${server.apiKeys[next++ % ACCOUNTS]}` } }),
      },
    ],
  });

  const ids: string[] = [];
  for (let i = 0; i < GET_JOBS; i++) {
    const res = await fetch(`${server.url}/api/v1/analyze/ship`, { method: 'POST', headers, body: submitBody });
    if (res.status !== 200) throw new Error(`submission → ${res.status}: ${await res.text()}`);
    ids.push(((await res.json()) as { job_id: string }).job_id);
  }
  // Embedded, the in-process worker fails the submitted jobs one by one on the API's event
  // loop; the GET runs start once it is idle, so they measure reads, not the worker's backlog.
  if (mode === 'embedded') await untilNoActiveJobs(server.url, 600);
  const requests = ids.map((id) => ({ method: 'GET' as const, path: `/api/v1/jobs/${id}` }));
  const getOpts = { url: server.url, headers: { Authorization: headers.Authorization }, requests };
  // Warm-up of the read path (JIT, statement caches), as the submissions had theirs.
  await cannon({ ...getOpts, connections: 10, amount: 3000 });
  const atRateMs: number[] = [];
  const atRate = await run(`GET job at ${GET_RATE} req/s`, { ...getOpts, overallRate: GET_RATE }, atRateMs);
  // Each connection is due to send one request every CONNECTIONS / GET_RATE seconds.
  const atRateLatency = correctedForOmission(atRateMs, (1000 * CONNECTIONS) / GET_RATE);
  const max = await run('GET job, as fast as it goes', getOpts);

  return {
    stages,
    figures: {
      submissions: { requestsPerSecond: round(submit['2xx'] / submit.duration, 0), perServerCpuSecond: perCpuSecond(submit), accepted: submit['2xx'], p50Ms: submit.latency.p50, p99Ms: submit.latency.p99 },
      submissionsSpread: { requestsPerSecond: round(spread['2xx'] / spread.duration, 0), perServerCpuSecond: perCpuSecond(spread), accepted: spread['2xx'], p50Ms: spread.latency.p50, p99Ms: spread.latency.p99 },
      getAtRate: {
        requestsPerSecond: round(atRate.requests.average, 0),
        perServerCpuSecond: perCpuSecond(atRate),
        p50Ms: round(percentile(atRateLatency, 0.5)),
        p99Ms: round(percentile(atRateLatency, 0.99)),
        maxMs: round(atRateLatency.at(-1) ?? NaN),
        answers: atRateMs.length,
        autocannonP99Ms: atRate.latency.p99,
      },
      getMax: { requestsPerSecond: round(max.requests.average, 0), perServerCpuSecond: perCpuSecond(max), p50Ms: max.latency.p50, p99Ms: max.latency.p99 },
      non2xx,
      errors,
      serverCpuSeconds: round(processCpuSeconds(server.pid) - cpuStart, 1),
      serverPeakRssMb: peakRssMb(server.pid),
      loadAverage1min: round(os.loadavg()[0]!, 2),
    },
  };
}

export async function benchApi(): Promise<{ stages: Stage[]; details: Record<string, ApiModeFigures> }> {
  const seconds = Number(process.env.SARWATCH_BENCH_API_SECONDS || 10);
  const modes = (process.env.SARWATCH_BENCH_API_MODES || 'embedded,scaled').split(',');
  const stages: Stage[] = [];
  const details: Record<string, ApiModeFigures> = {};
  for (const mode of modes) {
    if (mode !== 'embedded' && mode !== 'scaled') throw new Error(`SARWATCH_BENCH_API_MODES: unknown mode ${mode} (embedded, scaled)`);
    const server = mode === 'embedded' ? await embedded() : await scaledOut();
    try {
      const r = await measure(mode, server, seconds);
      stages.push(...r.stages);
      details[mode] = r.figures;
    } finally {
      await server.stop();
    }
  }
  return { stages, details };
}
