/**
 * `npm run bench -- --only startup` (issue 19 §3, issue 20 §2): the fixed CPU cost of a
 * `sarwatch` process and of an analysis pool thread, each way the code can run: precompiled
 * (build/, bin/build-src.js: what the command, `npm start` and the threads run), and the
 * TypeScript sources through tsx (SARWATCH_PRECOMPILED=0) with tsx's transform cache warm and
 * cold (TSX_DISABLE_CACHE=1, a checkout's first run). Median of SARWATCH_BENCH_STARTUP_RUNS (3).
 *
 * - a command: `sarwatch --help` (the CLI's own modules) and `sarwatch migrate` on a new SQLite
 *   store (the store and the service's runtime), CPU of the whole process (every thread);
 * - `sarwatch serve` (SQLite, no demo archive) from its start to "is running at";
 * - one pool thread's first task: loading what an oil or a ship tile task loads on a new thread
 *   (its task module, then the product readers it imports at its first tile: a call to a name a
 *   module does not export loads the module, then fails), CPU of this process while its main
 *   thread only waits.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ThreadPool } from '../src/threads/pool.ts';
import { cpuSeconds, TICKS } from './distributed.ts';
import type { BenchStage } from './imagery-read.ts';

const BIN = path.join(import.meta.dirname, '../bin/sarwatch.js');
const RUNS = Number(process.env.SARWATCH_BENCH_STARTUP_RUNS ?? 3);

const WAYS = {
  precompiled: {},
  'tsx, warm cache': { SARWATCH_PRECOMPILED: '0' },
  'tsx, cold cache': { SARWATCH_PRECOMPILED: '0', TSX_DISABLE_CACHE: '1' },
} satisfies Record<string, Record<string, string>>;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** A process's CPU seconds, from the shell that waited for it (its children's user + system time in /proc). */
function commandCpu(env: Record<string, string>, args: string[]): number {
  const r = spawnSync('sh', ['-c', '"$0" "$@" >/dev/null 2>&1 || exit 1; cat /proc/$$/stat', process.execPath, BIN, ...args], { env: { ...process.env, ...env }, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`sarwatch ${args.join(' ')} failed: ${r.stderr}`);
  const fields = r.stdout.slice(r.stdout.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[13]) + Number(fields[14])) / TICKS;
}

/** `sarwatch serve` from its start to "is running at": CPU seconds of the process then. */
async function serveCpu(env: Record<string, string>): Promise<number> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sarwatch-bench-startup-'));
  const child = spawn(process.execPath, [BIN, 'serve'], {
    env: { ...process.env, ...env, SARWATCH_DATA_DIR: dataDir, PORT: '0', SARWATCH_DEMO_ARCHIVE: '0', LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    let out = '';
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (d) => {
        out += String(d);
        if (out.includes('is running at')) resolve();
      });
      child.on('exit', (code) => reject(new Error(`sarwatch serve exited with ${code}: ${out}`)));
    });
    return cpuSeconds(child.pid!);
  } finally {
    const exited = new Promise((r) => child.on('exit', r));
    child.kill('SIGTERM');
    await exited;
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/** CPU seconds of a new pool thread loading `modules` (its first calls), this process's main thread waiting. */
async function threadFirstCallCpu(env: Record<string, string>, modules: string[]): Promise<number> {
  const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  Object.assign(process.env, env); // a worker thread starts with this process's environment
  const pool = new ThreadPool(() => ({ minThreads: 1, maxThreads: 1, idleTimeout: 60_000 }));
  try {
    const before = process.cpuUsage();
    for (const module of modules) {
      const e = await pool.runCall({ module, name: '-', input: null }).catch((x: unknown) => x);
      if (!String((e as Error)?.message).includes('exports no')) throw new Error(`expected ${module} to load and the call to fail: ${String(e)}`);
    }
    const used = process.cpuUsage(before);
    return (used.user + used.system) / 1e6;
  } finally {
    await pool.close();
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

export async function benchStartup(): Promise<{ stages: Array<BenchStage & { cpuSeconds: number; loadAverage: number }>; details: Record<string, unknown> }> {
  const stages: Array<BenchStage & { cpuSeconds: number; loadAverage: number }> = [];
  const measure = async (name: string, one: () => number | Promise<number>) => {
    const loadAverage = os.loadavg()[0]!;
    const t0 = performance.now();
    const cpu: number[] = [];
    for (let i = 0; i < RUNS; i++) cpu.push(await one());
    stages.push({ name, seconds: (performance.now() - t0) / 1000 / RUNS, mpxPerSecond: 0, peakRssMb: 0, cpuSeconds: median(cpu), loadAverage });
  };
  const migrateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sarwatch-bench-startup-'));
  try {
    for (const [way, env] of Object.entries(WAYS)) {
      await measure(`${way}: sarwatch --help`, () => commandCpu(env, ['--help']));
      await measure(`${way}: sarwatch migrate`, () => commandCpu({ ...env, SARWATCH_DATA_DIR: fs.mkdtempSync(path.join(migrateDir, 'd')) }, ['migrate']));
      await measure(`${way}: sarwatch serve until listening`, () => serveCpu(env));
      // engine/products.ts imports the product readers at a thread's first tile.
      await measure(`${way}: a thread's first oil tile, its modules`, () => threadFirstCallCpu(env, ['analysis/oilslick/sceneTile.ts', 'imagery/source.ts']));
      await measure(`${way}: a thread's first ship tile, its modules`, () => threadFirstCallCpu(env, ['analysis/ship/sceneTile.ts', 'imagery/source.ts']));
    }
  } finally {
    fs.rmSync(migrateDir, { recursive: true, force: true });
  }
  return { stages, details: { runs: RUNS, note: 'CPU s: median over the runs; seconds: mean wall time per run; peak RSS not measured' } };
}
