/**
 * Monitors and webhooks (issue 21 §4), `npm run bench -- --only monitors`, on the service
 * in this process — embedded (SQLite, in-process worker, store-backed queues) and, with
 * SARWATCH_BENCH_MONITORS_MODES=embedded,scaled, also on PostgreSQL with BullMQ on Redis:
 *
 *   1. fan-in: MONITORS active ship monitors (ACCOUNTS accounts) over one archive of STAC
 *      items; one new item is written into the archive folder; measured: until the folder
 *      watch has indexed it, and until the last monitor's job is submitted (every job row
 *      carrying a monitor_id exists). The runs' analysis is a no-op module: the figure is
 *      the monitor path, not a detector.
 *   2. delivery throughput: DELIVERIES events (one per account, each account with one
 *      webhook) written to the outbox at once; measured: until the local receiver (node:http
 *      in this process, http allowed by SARWATCH_WEBHOOK_ALLOW_PRIVATE) has answered 200 to
 *      every one, and until every delivery is recorded delivered. Target ≥ 200 deliveries/s.
 *
 *   SARWATCH_BENCH_MONITORS     monitors (default 1000)
 *   SARWATCH_BENCH_DELIVERIES   webhook events (default 2000)
 *   SARWATCH_BENCH_MONITORS_MODES  `embedded` (default), `scaled`, or both comma-separated
 *   SARWATCH_BENCH_PG_URL       scaled: an existing PostgreSQL database to create the bench database from
 *   SARWATCH_BENCH_REDIS_URL    scaled: Redis (default redis://127.0.0.1:6379); own queue names
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../src/config.ts';
import { startService } from '../src/runtime.ts';
import type { AnalysisModule } from '../src/analysis/port.ts';
import { createRegistry } from '../src/endpoints/analysisRegistry.ts';
import { createAccount, createApiKey } from '../src/jobs/accounts.ts';
import { recordEvent } from '../src/jobs/outbox.ts';
import type { BenchStage } from './imagery-read.ts';
import { scaledStore } from './scaledStore.ts';

const MONITORS = Number(process.env.SARWATCH_BENCH_MONITORS ?? 1000);
const DELIVERIES = Number(process.env.SARWATCH_BENCH_DELIVERIES ?? 2000);
const ACCOUNTS = 50;
const SQUARE = 'POLYGON ((2.5 51.3, 2.6 51.3, 2.6 51.4, 2.5 51.4, 2.5 51.3))';

const noopShip: AnalysisModule = { endpointId: 'ship', run: async () => ({ result: { type: 'FeatureCollection', features: [] } }) };

function stacItem(id: string, start: string): object {
  return {
    type: 'Feature',
    stac_version: '1.0.0',
    id,
    properties: { constellation: 'sentinel-1', platform: 'sentinel-1a', start_datetime: start, end_datetime: start, datetime: start, 'sar:instrument_mode': 'IW', 'sar:product_type': 'GRD', 'sar:polarizations': ['VV', 'VH'], 'sat:orbit_state': 'ascending', 'sat:relative_orbit': 88 },
    geometry: { type: 'Polygon', coordinates: [[[2, 51], [3.2, 51], [3.2, 51.8], [2, 51.8], [2, 51]]] },
    bbox: [2, 51, 3.2, 51.8],
    assets: { vv: { href: `./${id}-vv.tif`, roles: ['data'] }, vh: { href: `./${id}-vh.tif`, roles: ['data'] } },
    links: [],
  };
}

const rssMb = () => process.memoryUsage().rss / 2 ** 20;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function benchMonitors(mode: 'embedded' | 'scaled' = 'embedded'): Promise<{ stages: Array<BenchStage & { loadAverage: number }>; details: Record<string, unknown> }> {
  const scaled = mode === 'scaled' ? await scaledStore('monitors', ['-webhooks']) : null;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sarwatch-bench-monitors-'));
  const archive = path.join(dataDir, 'archive');
  fs.mkdirSync(path.join(archive, 'items'), { recursive: true });
  fs.writeFileSync(path.join(archive, 'items', 'S1A_IW_GRDH_1SDV_20240101T173300_20240101T173325_052000_064000_AAAA.json'), JSON.stringify(stacItem('S1A_IW_GRDH_1SDV_20240101T173300_20240101T173325_052000_064000_AAAA', '2024-01-01T17:33:00Z')));

  let answered = 0;
  const receiver = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      answered++;
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

  const config = loadConfig({
    SARWATCH_DATA_DIR: dataDir,
    PORT: '0',
    HOST: '127.0.0.1',
    SARWATCH_SAMPLES_DIR: '',
    SARWATCH_WEBHOOK_ALLOW_PRIVATE: '1',
    SARWATCH_MAX_CONCURRENT_JOBS: String(Math.ceil(MONITORS / ACCOUNTS)),
    ...(scaled?.env ?? {}),
  });
  const service = await startService(config, { registry: createRegistry([noopShip]), queuePollMs: 200 });
  const stages: Array<BenchStage & { loadAverage: number; cpuSeconds: number }> = [];
  let cpuMark = process.cpuUsage();
  const markCpu = () => (cpuMark = process.cpuUsage());
  const stage = (name: string, seconds: number) => {
    const used = process.cpuUsage(cpuMark);
    stages.push({ name, seconds, mpxPerSecond: 0, peakRssMb: rssMb(), loadAverage: os.loadavg()[0]!, cpuSeconds: (used.user + used.system) / 1e6 });
  };
  try {
    const accounts: string[] = [];
    for (let i = 0; i < ACCOUNTS; i++) {
      const { accountId } = await createAccount(service.db, { name: `bench-${i}`, credits: 1e9 });
      accounts.push(accountId);
    }
    const keys = await Promise.all(accounts.map((accountId) => createApiKey(service.db, { accountId }).then((k) => k.apiKey)));
    // 1. monitors
    markCpu();
    let t0 = performance.now();
    for (let i = 0; i < MONITORS; i++) {
      const res = await fetch(`${service.url}/api/v1/monitors`, {
        method: 'POST',
        headers: { authorization: `Bearer ${keys[i % ACCOUNTS]}`, 'content-type': 'application/json' },
        body: JSON.stringify({ endpoint_id: 'ship', family: 'detect', polygon: SQUARE, condition: { min_count: 1 }, max_credits_per_month: 1e6 }),
      });
      if (res.status !== 201) throw new Error(`monitor ${i}: HTTP ${res.status} ${await res.text()}`);
    }
    stage(`${mode}: create ${MONITORS} monitors (POST, one at a time)`, (performance.now() - t0) / 1000);

    const id = 'S1A_IW_GRDH_1SDV_20240113T173300_20240113T173325_052175_064100_BBBB';
    const tmp = path.join(archive, 'items', `.${id}.json`);
    fs.writeFileSync(tmp, JSON.stringify(stacItem(id, '2024-01-13T17:33:00Z')));
    markCpu();
    const wall0 = Date.now();
    t0 = performance.now();
    fs.renameSync(tmp, path.join(archive, 'items', `${id}.json`));
    for (;;) {
      const n = await service.db.selectFrom('jobs').select((eb) => eb.fn.countAll<number>().as('n')).where('monitor_id', 'is not', null).executeTakeFirstOrThrow();
      if (Number(n.n) >= MONITORS) break;
      if (performance.now() - t0 > 600_000) throw new Error(`only ${n.n} of ${MONITORS} runs submitted after 10 min`);
      await sleep(20);
    }
    // The jobs' own creation times (the store's clock, this process), not this loop's polling.
    const span = await service.db
      .selectFrom('jobs')
      .select((eb) => [eb.fn.min('created_at').as('first'), eb.fn.max('created_at').as('last')])
      .where('monitor_id', 'is not', null)
      .executeTakeFirstOrThrow();
    stage(`${mode}: new scene in → first run submitted (watch, 1 s debounce, index)`, (Date.parse(String(span.first)) - wall0) / 1000);
    stage(`${mode}: new scene in → last of ${MONITORS} runs submitted`, (Date.parse(String(span.last)) - wall0) / 1000);

    // Let the runs finish, so the deliveries below do not share the worker with them.
    for (;;) {
      const n = await service.db.selectFrom('jobs').select((eb) => eb.fn.countAll<number>().as('n')).where('status', 'in', ['pending', 'processing']).executeTakeFirstOrThrow();
      if (Number(n.n) === 0) break;
      await sleep(200);
    }

    // 2. deliveries
    for (const key of keys) {
      const res = await fetch(`${service.url}/api/v1/webhooks`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ url: receiverUrl, events: ['monitor.suspended'] }),
      });
      if (res.status !== 201) throw new Error(`webhook: HTTP ${res.status}`);
    }
    answered = 0;
    markCpu();
    t0 = performance.now();
    await service.db.transaction().execute(async (tx) => {
      for (let i = 0; i < DELIVERIES; i++) await recordEvent(tx, { accountId: accounts[i % ACCOUNTS]!, type: 'monitor.suspended', data: { monitor_id: `bench-${i}`, reason: 'cap_reached' } });
    });
    const written = performance.now();
    while (answered < DELIVERIES) {
      if (performance.now() - t0 > 600_000) throw new Error(`only ${answered} of ${DELIVERIES} deliveries after 10 min`);
      await sleep(10);
    }
    const received = performance.now();
    for (;;) {
      const n = await service.db.selectFrom('webhook_deliveries').select((eb) => eb.fn.countAll<number>().as('n')).where('status', '=', 'delivered').executeTakeFirstOrThrow();
      if (Number(n.n) >= DELIVERIES) break;
      await sleep(10);
    }
    const recorded = performance.now();
    stage(`${mode}: ${DELIVERIES} events written (one transaction) → all recorded delivered`, (recorded - t0) / 1000);
    stages.splice(stages.length - 1, 0, { ...stages[stages.length - 1]!, name: `${mode}: ${DELIVERIES} events written → all answered by the receiver`, seconds: (received - t0) / 1000 });
    void written;
    return {
      stages,
      details: {
        mode,
        monitors: MONITORS,
        accounts: ACCOUNTS,
        deliveries: DELIVERIES,
        deliveriesPerSecond: Math.round(DELIVERIES / ((recorded - t0) / 1000)),
        // On a shared machine this process gets a fraction of a core: what one core of its own delivers.
        deliveriesPerCpuSecond: Math.round(DELIVERIES / stages[stages.length - 1]!.cpuSeconds),
        webhookConcurrency: config.webhookConcurrency,
      },
    };
  } finally {
    await service.close();
    await new Promise((r) => receiver.close(r));
    fs.rmSync(dataDir, { recursive: true, force: true });
    await scaled?.cleanup();
  }
}
