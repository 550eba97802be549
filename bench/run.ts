/**
 * `npm run bench [-- --json] [-- --only NAME[,NAME]] [-- --size WxH]`: the speed figures of
 * the README. Each suite measures wall time and peak RSS per stage on generated full-size
 * data (made once into the bench folder, then reused). Suites: imagery, ship, oilslick, remote
 * (`--size` sets their GRD scene), shipcoast (bench/shipCoast.ts: the detector with nearShore off and on on a coastal scene, then the §5 job on it; `--size` applies), change and timeseries (fixed sizes of their own; see
 * bench/change.ts, bench/timeseries.ts for the environment variables that shrink them),
 * validation (bench/validation.ts), monitors (bench/monitors.ts), cancel (bench/cancel.ts: cancel
 * latency on the full scene), quicklook (bench/quicklook.ts: each endpoint's quicklook row after its
 * detection, from the ship, oilslick, change and timeseries suites), distributed (bench/distributed.ts: a full-scene oil job and the
 * 30,000 km² change pair on 1 and 3 scaled-out worker processes, CPU per worker), api (the HTTP API under autocannon in both modes; bench/api.ts names
 * its environment variables) and dashboard (the job page with a large result in headless Chromium,
 * bench/dashboard.ts) and startup (a `sarwatch` process's and a pool thread's fixed CPU cost, precompiled and
 * through tsx: bench/startup.ts).
 *
 *   SARWATCH_BENCH_DIR  where generated scenes are kept (default <tmp>/sarwatch-bench)
 */
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { benchApi } from './api.ts';
import { benchChange } from './change.ts';
import { benchImageryRead, type BenchStage } from './imagery-read.ts';
import { benchOilSlicks } from './oilslick.ts';
import { benchRemote } from './remote.ts';
import { benchShips } from './ship.ts';
import { benchShipCoast, COAST_THREADS } from './shipCoast.ts';
import { benchTimeseries } from './timeseries.ts';
import { benchValidation } from './validation.ts';
import { benchIdlefarm } from './idlefarm.ts';
import { benchDashboard } from './dashboard.ts';
import { benchMonitors } from './monitors.ts';
import { benchCancel } from './cancel.ts';
import { benchDistributed } from './distributed.ts';
import { benchStartup } from './startup.ts';
import { closeAnalysisPool } from '../src/analysis/engine/pool.ts';
import { benchGrdChangeQuicklook, QUICKLOOK_ROW } from './quicklook.ts';

interface SuiteResult {
  name: string;
  description: string;
  stages: Array<BenchStage & { cpuSeconds?: number; loadAverage?: number }>;
  /** Suite-specific figures (counts, sizes), printed under the table and carried by --json. */
  details?: Record<string, unknown>;
}

type Suite = (ctx: { workDir: string; width: number; height: number }) => Promise<SuiteResult>;

const SUITES: Record<string, Suite> = {
  imagery: async ({ workDir, width, height }) => {
    const r = await benchImageryRead({ workDir, width, height });
    return { name: 'imagery', description: `read + calibrate a ${r.width} × ${r.height} px IW GRDH scene (VV+VH), 1024-px tiles`, stages: r.stages };
  },
  ship: async ({ workDir, width, height }) => {
    const r = await benchShips({ workDir, width, height, job: process.env.SARWATCH_BENCH_SHIP_JOB !== '0' });
    const job = r.job ? `; then issue 23 §5's job through the service (bench/ship.ts benchShipJob): the scene with its track's 5 earlier dates and an AIS upload` : '';
    return { name: 'ship', description: `detectShipsInSafe on a ${r.width} × ${r.height} px IW GRDH scene (VH), ${r.threads} threads: ${r.found} vessels found, ${r.truth} in the truth${job}`, stages: [...r.stages, ...(r.job?.stages ?? [])], details: r.job?.details };
  },
  shipcoast: async ({ workDir, width, height }) => {
    // The near-shore path's cost on a full coastal scene (bench/shipCoast.ts); SARWATCH_BENCH_SHIP_COAST=0 skips it.
    if (process.env.SARWATCH_BENCH_SHIP_COAST === '0') return { name: 'shipcoast', description: 'skipped (SARWATCH_BENCH_SHIP_COAST=0)', stages: [] };
    const jobs = Number(process.env.SARWATCH_BENCH_COAST_JOB ?? '1');
    if (!(Number.isInteger(jobs) && jobs >= 0)) throw new Error(`SARWATCH_BENCH_COAST_JOB: how many jobs (0: none), got ${process.env.SARWATCH_BENCH_COAST_JOB}`);
    const r = await benchShipCoast({ workDir, width, height, jobs });
    const runs = r.runs.map((x) => ({ nearShore: x.nearShore, cpuS: x.cpuSeconds, wallS: x.seconds, peakRssMb: x.peakRssMb, load: `${x.loadStart}→${x.loadEnd}`, detections: x.detections, byClassifier: x.byClassifier, hash: x.resultHash }));
    return {
      name: 'shipcoast',
      description: `detectShipsInProduct on a coastal ${r.width} × ${r.height} px IW GRDH scene off IJmuiden (VH; the demo port scene enlarged, Natural Earth land), ${COAST_THREADS} threads, nearShore off and on alternately; CPU s of all threads${r.job ? `; then issue 23 §5's job on it through the service (bench/ship.ts benchShipJob): the scene with its track's 5 earlier dates and an AIS upload` : ''}`,
      stages: r.stages,
      details: { tiles: r.tiles, runs, ...(r.job ? { job: r.job.details } : {}) },
    };
  },
  oilslick: async ({ workDir, width, height }) => {
    const r = await benchOilSlicks({ workDir, width, height });
    return { name: 'oilslick', description: `detectSlicksInSafe on a ${r.width} × ${r.height} px IW GRDH scene (VV): ${r.found} slicks found, ${r.truth} in the truth`, stages: r.stages };
  },
  remote: async ({ workDir, width, height }) => {
    const r = await benchRemote({ workDir, width, height });
    return {
      name: 'remote',
      description: `ship detector on a ${r.width} × ${r.height} px IW GRDH scene: local SAFE folder vs. the same files as STAC assets over loopback HTTP (range requests, cold byte cache)`,
      stages: r.stages,
      details: r.details,
    };
  },
  quicklook: async ({ workDir, width, height }) => {
    // Issue 22: each endpoint's quicklook after its job (bench/quicklook.ts), the detection it follows and its share.
    const keep = (stages: SuiteResult['stages']) => stages.filter((s) => s.name.startsWith(QUICKLOOK_ROW) || /^(detect|  CPU seconds)/.test(s.name));
    const ship = await benchShips({ workDir, width, height, job: false });
    const oil = await benchOilSlicks({ workDir, width, height });
    const { stages: change } = await benchChange({ workDir });
    const { stages: grd } = await benchGrdChangeQuicklook({ workDir });
    const { stages: series } = await benchTimeseries({ workDir });
    return {
      name: 'quicklook',
      description: `each endpoint's quicklook after its job, as the worker makes it: ship and oil on the ${width} × ${height} px IW GRDH scene, newbuilding on the change bench's RTC pair and on a GRD pair (detect family, bench/quicklook.ts), the time series' deviation map on its stack`,
      stages: [...keep(ship.stages), ...keep(oil.stages), ...keep(change), ...keep(grd), ...keep(series)],
    };
  },
  // Fixed sizes of their own (--size does not apply): bench/change.ts, bench/timeseries.ts.
  change: async ({ workDir }) => {
    const { stages, files: _files, ...details } = await benchChange({ workDir });
    return {
      name: 'change',
      description: `detectChangeInRtcPair (newbuilding, ${details.threads} threads) on a ${details.sizePx} × ${details.sizePx} px RTC pair at 10 m, VV+VH, Deflate 512² tiles; AOI ${details.aoiSqkm} km²: ${details.detections} regions found, ${details.truthNewBuildings} new buildings ≥ 400 m² in the image`,
      stages,
      details,
    };
  },
  timeseries: async ({ workDir }) => {
    const { stages, ...details } = await benchTimeseries({ workDir });
    return {
      name: 'timeseries',
      description: `detectTimeseries on ${details.aoiSqkm} km² × ${details.dates} dates (${details.firstDate} → ${details.lastDate}), VV+VH at 10 m: ${details.cellsWithData} cells`,
      stages,
      details,
    };
  },
  idlefarm: async ({ workDir }) => {
    const { stages, ...details } = await benchIdlefarm({ workDir });
    return { name: 'idlefarm', description: `idle farmland on ${details.fields} fields × ${details.dates} dates (${details.sizePx} × ${details.sizePx} px RTC at 30 m, VV+VH): series, decisions, result.zip`, stages, details };
  },
  cancel: async ({ workDir }) => {
    const { stages, details } = await benchCancel({ workDir });
    return {
      name: 'cancel',
      description: 'embedded service, ship detection on the full-size IW GRDH scene canceled mid-run: time from sending the cancel to its commit and to the worker claiming the next job',
      stages,
      details,
    };
  },
  distributed: async ({ workDir, width, height }) => {
    const { stages, details } = await benchDistributed({ workDir, width, height });
    return {
      name: 'distributed',
      description: `issue 20 §2: big jobs in the scaled-out mode (${String(details.jobs)}), each on 1 worker process (one process) and on 3 (its tiles fanned out over the queue): CPU seconds of each worker over the job, the result identical`,
      stages,
      details,
    };
  },
  api: async () => ({ name: 'api', description: `HTTP API under autocannon, 50 connections: submissions/s and GET job latency, embedded (serve, SQLite) and scaled out (api on PostgreSQL, Redis, S3)`, ...(await benchApi()) }),
  dashboard: async () => {
    const { stages, details } = await benchDashboard();
    return {
      name: 'dashboard',
      description: 'the job page in headless Chromium (Leaflet canvas map): render time, from navigation start to the frame after every result feature was drawn in view (the page marks it)',
      stages,
      details,
    };
  },
  monitors: async () => {
    const modes = (process.env.SARWATCH_BENCH_MONITORS_MODES ?? 'embedded').split(',') as Array<'embedded' | 'scaled'>;
    const runs = [];
    for (const mode of modes) runs.push(await benchMonitors(mode));
    const d = runs[0]!.details;
    return {
      name: 'monitors',
      description: `issue 21: ${d.monitors} active monitors, one new scene into the archive folder → every run submitted; then ${d.deliveries} webhook events → delivered to a local receiver (${modes.join(', ')}: embedded SQLite + store-backed queues; scaled PostgreSQL + BullMQ)`,
      stages: runs.flatMap((r) => r.stages),
      details: Object.fromEntries(runs.map((r) => [String(r.details.mode), r.details])),
    };
  },
  startup: async () => ({
    name: 'startup',
    description: 'the fixed CPU cost of a `sarwatch` process and of a pool thread: precompiled (build/), and the sources through tsx with its cache warm and cold',
    ...(await benchStartup()),
  }),
  validation: async () => {
    const { stages, details } = await benchValidation();
    return {
      name: 'validation',
      description: 'hostile request polygons (issue 10 item 1): validation in-process; the 1,200-strip preview against a real server (issue 19 item 2: median of 5, server CPU); then ship previews of every shape while /healthz is polled',
      stages,
      details,
    };
  },
};

function table(result: SuiteResult): string {
  const withCpu = result.stages.some((s) => s.cpuSeconds !== undefined);
  const rows = result.stages.map((s) => [
    s.name,
    s.seconds >= 1 ? s.seconds.toFixed(1) : s.seconds.toFixed(3),
    s.mpxPerSecond ? s.mpxPerSecond.toFixed(1) : '—',
    s.peakRssMb.toFixed(0),
    ...(withCpu ? [s.cpuSeconds === undefined ? '—' : s.cpuSeconds >= 1 ? s.cpuSeconds.toFixed(1) : s.cpuSeconds.toFixed(3), s.loadAverage?.toFixed(2) ?? '—'] : []),
  ]);
  const head = ['stage', 'seconds', 'Mpx/s', 'peak RSS MB', ...(withCpu ? ['CPU s', 'load 1 min'] : [])];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  const details = result.details ? [`  ${Object.entries(result.details).map(([k, v]) => `${k} ${typeof v === 'object' ? JSON.stringify(v) : v}`).join('; ')}`] : [];
  return [`${result.name}: ${result.description}`, line(head), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line), ...details, ''].join('\n');
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { json: { type: 'boolean' }, only: { type: 'string' }, size: { type: 'string' } },
    allowPositionals: false,
  });
  const [width, height] = (values.size ?? '25000x16700').split('x').map(Number);
  if (!(width! > 0 && height! > 0)) throw new Error(`--size must be WIDTHxHEIGHT, got ${values.size}`);
  const workDir = process.env.SARWATCH_BENCH_DIR ?? path.join(os.tmpdir(), 'sarwatch-bench');
  const names = values.only ? values.only.split(',') : Object.keys(SUITES);
  const results: SuiteResult[] = [];
  for (const name of names) {
    const suite = SUITES[name];
    if (!suite) throw new Error(`unknown suite ${name}; known: ${Object.keys(SUITES).join(', ')}`);
    const result = await suite({ workDir, width: width!, height: height! });
    results.push(result);
    if (!values.json) process.stdout.write(`${table(result)}\n`);
  }
  const machine = { cpus: os.cpus().length, cpu: os.cpus()[0]?.model ?? 'unknown', memoryGb: Math.round(os.totalmem() / 2 ** 30), node: process.version };
  if (values.json) process.stdout.write(`${JSON.stringify({ machine, suites: results })}\n`);
  else process.stdout.write(`machine: ${machine.cpus} cores (${machine.cpu}), ${machine.memoryGb} GiB, Node ${machine.node}\n`);
}

main()
  .catch((e: unknown) => {
    console.error(e);
    process.exitCode = 1;
  })
  // The analysis threads would keep the process alive after the last suite.
  .finally(() => closeAnalysisPool());
