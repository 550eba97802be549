/**
 * `npm run bench -- --only dashboard`: how long the job page takes to draw a large result in
 * headless Chromium (issue 22 §3: 5,000 ship features, 2,000 time-series cells, ≤ 1 s).
 *
 * The real embedded service serves the built dashboard and the result from its object store
 * (a signed URL); the job view and the list entry are answered at the browser's network layer
 * (the stand-in of test/web/overlayStandIn.test.ts), since making 5,000 real detections would
 * measure the detector, not the page.
 *
 * A time series' page draws its map layer (the cells and their deviation, made by the worker's
 * own code, src/analysis/quicklook/mapLayer.ts), not the result; the bench then clicks a cell
 * on the first visit and times the full result's download until the cell's chart is shown.
 *
 * Render time, as the page itself times it: from navigation start to the animation frame after
 * the one whose canvas redraw drew every result feature within the map's view (the page's
 * `sarwatch:all-features-drawn` mark, taken once that frame was painted). Navigation start is
 * the document's on a first visit (a new browser context: every asset from the server, nothing
 * cached) and the hash change (`sarwatch:navigate`) on returning to the page within the app
 * (median of 5). Beside it the bench's own wall time (Playwright's navigation to its sight of
 * the mark on a first visit, of the count on a return) and the CPU seconds of every process
 * involved.
 *
 *   SARWATCH_BENCH_SHIPS (5000), SARWATCH_BENCH_CELLS (2000), SARWATCH_BENCH_DATES (91: three
 *   years at the 12-day revisit, the time series' limit) size the results.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, CDPSession, Page } from 'playwright-core';
import { loadConfig } from '../src/config.ts';
import { startService } from '../src/runtime.ts';
import { createAccount, createApiKey } from '../src/jobs/accounts.ts';
import { CHROMIUM, dashboardDir, launchBrowser, project } from '../test/helpers/browser.ts';
import { makeMapLayer } from '../src/analysis/quicklook/index.ts';
import type { ResultCollection } from '../src/analysis/port.ts';
import type { BenchStage } from './imagery-read.ts';

type Stage = BenchStage & { cpuSeconds?: number; loadAverage?: number };

const PORT_BOX = [4.2, 52.38, 4.5, 52.58] as const;

function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32);
}

/** Ship-sized rectangles (20–300 m) scattered over the demo port's AOI, as the ship result has them. */
export function shipResult(n: number): GeoJSON.FeatureCollection {
  const r = prng(5000);
  const [w, s, e, nn] = PORT_BOX;
  const features: GeoJSON.Feature[] = [];
  for (let i = 0; i < n; i++) {
    const x = w + r() * (e - w);
    const y = s + r() * (nn - s);
    const len = (20 + r() * 280) / 111_320;
    const wid = len / 5;
    const ring = [[x, y], [x + len / Math.cos((y * Math.PI) / 180), y], [x + len / Math.cos((y * Math.PI) / 180), y + wid], [x, y + wid], [x, y]];
    features.push({ type: 'Feature', id: i + 1, geometry: { type: 'Polygon', coordinates: [ring] }, properties: { area_sqm: Math.round(len * wid * 111_320 ** 2 * 100) / 100, confidence: null } });
  }
  return { type: 'FeatureCollection', features };
}

/** A grid of 100 m cells with the time series' full properties (chart of `dates` dates). */
export function timeseriesResult(n: number, dates: number): GeoJSON.FeatureCollection {
  const r = prng(2000);
  const cols = Math.ceil(Math.sqrt(n * 1.25));
  const dLon = 100 / (111_320 * Math.cos((52.36 * Math.PI) / 180));
  const dLat = 100 / 111_320;
  const day0 = Date.parse('2022-01-03T00:00:00Z');
  const chartDates = Array.from({ length: dates }, (_, i) => new Date(day0 + i * 12 * 86400e3).toISOString().slice(0, 10));
  const features: GeoJSON.Feature[] = [];
  for (let i = 0; i < n; i++) {
    const x = 4.95 + (i % cols) * dLon;
    const y = 52.33 + Math.floor(i / cols) * dLat;
    const vv = chartDates.map(() => Math.round((-12 + r() * 3) * 100) / 100);
    const vh = chartDates.map(() => Math.round((-19 + r() * 3) * 100) / 100);
    const ma = vv.map((_, k) => (k < 3 ? null : Math.round(((vv[k - 1]! + vv[k - 2]! + vv[k - 3]!) / 3) * 100) / 100));
    const deviation = Math.round((r() * 8 - 4) * 1000) / 1000;
    features.push({
      type: 'Feature',
      id: i + 1,
      geometry: { type: 'Polygon', coordinates: [[[x, y], [x + dLon, y], [x + dLon, y + dLat], [x, y + dLat], [x, y]]] },
      properties: {
        deviation,
        changePointDates: [],
        fill: '#f7f7f7',
        'fill-opacity': 0.3,
        stroke: '#636363',
        'stroke-width': 0.5,
        chart: { dates: chartDates, vv, vh, channel: 'vv', movingAverage: ma, band: { lower: ma.map((m) => (m === null ? null : m - 2)), upper: ma.map((m) => (m === null ? null : m + 2)) }, unit: 'dB' },
        area_sqm: 10_000,
        confidence: null,
      },
    });
  }
  return { type: 'FeatureCollection', features };
}

interface Scenario {
  name: string;
  endpoint: 'ship' | 'timeseries';
  jobId: string;
  fc: GeoJSON.FeatureCollection;
  polygon: string;
  signedResult: string;
  /** A time series' map layer (signed URL), drawn instead of the result. */
  signedLayer: string | null;
}

function jobView(s: Scenario) {
  return {
    job_id: s.jobId, endpoint_id: s.endpoint, satellite_id: 'sentinel-1', status: 'completed',
    created_at: '2026-12-01T10:00:00.000Z', completed_at: '2026-12-01T10:01:00.000Z',
    result_path: `/api/v1/jobs/${s.jobId}/result.geojson`, error_code: null, error_message: null, error: null,
    area_sqkm: 450, coverage: null, scene_selection: null, warnings: [], progress: 100,
    credits_used: 4.5, request_params: { satellite_id: 'sentinel-1', polygon: s.polygon },
    map_layer_path: s.signedLayer ? `/api/v1/jobs/${s.jobId}/map-layer` : null,
  };
}

/**
 * A new context and page whose job API (the job views, the list, the result's and the layer's
 * redirects) is answered at the browser's network layer. Only those requests are paused
 * (Chrome's Fetch domain with a URL pattern, not Playwright's page.route): a route makes
 * Playwright pause EVERY request of the page — the document, the bundle, the land, the signed
 * result — for a round trip to this process, a cost no user's browser pays (on Chromium 156,
 * 0.1–0.35 s added to each of the first visit's requests, load ≈ 2).
 */
async function openPage(browser: Browser, url: string, apiKey: string, scenarios: Scenario[]): Promise<{ page: Page; cdp: CDPSession }> {
  const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
  await context.addInitScript((key) => (globalThis as any).sessionStorage.setItem('sarwatch.apiKey', key), apiKey);
  const page = await context.newPage();
  const answer = (pathname: string, search: string): { status: number; headers: Record<string, string>; body?: string } | null => {
    if (pathname === '/api/v1/jobs') {
      const ep = new URLSearchParams(search).get('endpoint_id');
      const jobs = scenarios.filter((s) => !ep || s.endpoint === ep).map((s) => ({ ...jobView(s), lat: null, lon: null }));
      return { status: 200, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ jobs }) };
    }
    for (const s of scenarios) {
      if (pathname === `/api/v1/jobs/${s.jobId}`) return { status: 200, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(jobView(s)) };
      if (pathname === `/api/v1/jobs/${s.jobId}/result.geojson`) return { status: 302, headers: { Location: s.signedResult } };
      if (s.signedLayer && pathname === `/api/v1/jobs/${s.jobId}/map-layer`) return { status: 302, headers: { Location: s.signedLayer } };
    }
    return null; // anything else under /api/v1/jobs: the real service's answer
  };
  const cdp = await context.newCDPSession(page);
  cdp.on('Fetch.requestPaused', (e: { requestId: string; request: { url: string } }) => {
    const u = new URL(e.request.url);
    const a = answer(u.pathname, u.search);
    const sent = a
      ? cdp.send('Fetch.fulfillRequest', {
          requestId: e.requestId,
          responseCode: a.status,
          responseHeaders: Object.entries(a.headers).map(([name, value]) => ({ name, value })),
          ...(a.body === undefined ? {} : { body: Buffer.from(a.body).toString('base64') }),
        })
      : cdp.send('Fetch.continueRequest', { requestId: e.requestId });
    sent.catch(() => {}); // the page closed meanwhile
  });
  await cdp.send('Fetch.enable', { patterns: [{ urlPattern: `${url}/api/v1/jobs*`, requestStage: 'Request' }] });
  return { page, cdp };
}

/**
 * Waits in the page for its `sarwatch:all-features-drawn` mark (a PerformanceObserver, in the
 * page's own world). Not a Playwright locator on a first visit: a locator makes Playwright
 * compile and run its injected script (≈ 0.5 MB) in the page at the load event — in the middle
 * of the render being timed (≈ 30 ms of the main thread on Chromium 156), which no user pays.
 */
async function allDrawnMark(cdp: CDPSession): Promise<void> {
  const expression = `new Promise((resolve) => {
    const NAME = 'sarwatch:all-features-drawn';
    if (performance.getEntriesByName(NAME).length) return resolve(true);
    new PerformanceObserver((list, observer) => {
      if (list.getEntriesByName(NAME).length) { observer.disconnect(); resolve(true); }
    }).observe({ type: 'mark' });
  })`;
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      cdp.send('Runtime.evaluate', { expression, awaitPromise: true, returnByValue: true }),
      new Promise((_, reject) => (timer = setTimeout(() => reject(new Error('no sarwatch:all-features-drawn mark within 120 s')), 120_000))),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The page's own marks (src/web), ms from navigation start (the document's on a first visit,
 * the last `sarwatch:navigate` within the app): the breakdown, and the render time (the last
 * mark, all-features-drawn).
 */
async function marks(page: Page, withinApp: boolean): Promise<{ breakdown: string; renderSeconds: number }> {
  const names = ['app-start', 'job-view', 'land-fetched', 'map-loaded', 'layer-requested', 'layer-parsed', 'layer-kept', 'result-requested', 'result-parsed', 'result-kept', 'result-set', 'all-features-drawn'];
  // A string, not a function: tsx's name-keeping helper does not exist in the page.
  const times = (await page.evaluate(`(() => {
    const all = performance.getEntriesByType('mark');
    const last = (n) => { const m = all.filter((e) => e.name === n); return m.length ? m[m.length - 1].startTime : null; };
    const t0 = ${withinApp} ? last('sarwatch:navigate') : 0;
    return ${JSON.stringify(names)}.map((n) => { const t = last('sarwatch:' + n); return t === null ? null : Math.round(t - t0); });
  })()`)) as Array<number | null>;
  const drawnAt = times[times.length - 1];
  if (drawnAt === null || drawnAt === undefined || drawnAt < 0) throw new Error(`no all-features-drawn mark after navigation: ${JSON.stringify(times)}`);
  // A mark before navigation: made for an earlier page (the map, the script) and reused.
  const breakdown = names.map((n, i) => `${n} ${times[i] === null ? '—' : times[i]! < 0 ? '(before)' : times[i]}`).join(', ');
  return { breakdown, renderSeconds: drawnAt / 1000 };
}

/**
 * CPU seconds used so far by this process and every process under it (Chromium's browser,
 * renderer, GPU and utility processes; the service runs in this process): a figure the other
 * load on a shared machine inflates far less than wall time. Linux /proc only.
 */
function treeCpuSeconds(): number {
  const stats = new Map<number, { ppid: number; ticks: number }>();
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      stats.set(Number(name), { ppid: Number(f[1]), ticks: Number(f[11]) + Number(f[12]) });
    } catch {
      // the process ended meanwhile
    }
  }
  let ticks = 0;
  for (const [pid, st] of stats) {
    for (let p = pid, hops = 0; p > 1 && hops < 50; p = stats.get(p)?.ppid ?? 0, hops++) {
      if (p === process.pid) {
        ticks += st.ticks;
        break;
      }
    }
  }
  return ticks / 100; // USER_HZ
}

/**
 * CPU ticks by process kind and thread name, for this process and every process under it:
 * where a render's CPU goes (the renderer's main thread, its V8 pool, the GPU process's
 * compositing, the service in this process). Thread names with their numbers dropped, so a pool's threads add up.
 */
function threadTicks(): Map<string, number> {
  const procs = new Map<number, { ppid: number; kind: string }>();
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const cmd = fs.readFileSync(`/proc/${name}/cmdline`, 'utf8');
      const type = /--type=([a-z-]+)/.exec(cmd)?.[1];
      const kind = Number(name) === process.pid ? 'bench+service' : /chrom/.test(cmd) ? `chromium ${type ?? 'browser'}` : cmd.split('\0')[0]!.split('/').pop()!;
      procs.set(Number(name), { ppid, kind });
    } catch {
      // the process ended meanwhile
    }
  }
  const out = new Map<string, number>();
  for (const [pid, p] of procs) {
    let mine = false;
    for (let q = pid, hops = 0; q > 1 && hops < 50; q = procs.get(q)?.ppid ?? 0, hops++) if (q === process.pid) mine = true;
    if (!mine) continue;
    let tasks: string[] = [];
    try {
      tasks = fs.readdirSync(`/proc/${pid}/task`);
    } catch {
      continue;
    }
    for (const tid of tasks) {
      try {
        const stat = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
        const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        const comm = fs.readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim().replace(/[\d]+/g, '#');
        const key = `${p.kind}: ${comm}`;
        out.set(key, (out.get(key) ?? 0) + Number(f[11]) + Number(f[12]));
      } catch {
        // the thread ended meanwhile
      }
    }
  }
  return out;
}

/** The threads that used CPU between two threadTicks(), in seconds, largest first. */
function threadCpuSince(before: Map<string, number>): string {
  const after = threadTicks();
  return [...after]
    .map(([k, t]) => [k, (t - (before.get(k) ?? 0)) / 100] as const)
    .filter(([, s]) => s >= 0.02)
    .sort((a, b) => b[1] - a[1])
    .map(([k, s]) => `${k} ${s.toFixed(2)}`)
    .join(', ');
}

/** SARWATCH_BENCH_TRACE=DIR: a Chrome trace of the last first visit and return per result, for chrome://tracing or Perfetto. */
const TRACE_CATEGORIES = ['devtools.timeline', 'v8', 'v8.execute', 'blink', 'gpu', 'cc', 'toplevel', 'disabled-by-default-devtools.timeline', 'disabled-by-default-v8.cpu_profiler'];

/** SARWATCH_BENCH_PROFILE=1: V8's sampling profile of the page's main thread on a first visit, its largest self times. */
interface CpuProfile {
  nodes: Array<{ id: number; callFrame: { functionName: string; url: string; lineNumber: number }; hitCount?: number }>;
  samples?: number[];
  timeDeltas?: number[];
}

function profileTop(profile: CpuProfile, n = 12): string {
  const byNode = new Map<number, number>();
  profile.samples?.forEach((id, i) => byNode.set(id, (byNode.get(id) ?? 0) + (profile.timeDeltas?.[i] ?? 0)));
  const byFrame = new Map<string, number>();
  for (const node of profile.nodes) {
    const us = byNode.get(node.id) ?? 0;
    if (!us) continue;
    const { functionName, url, lineNumber } = node.callFrame;
    const key = `${functionName || '(anonymous)'} ${url ? `${url.split('/').pop()}:${lineNumber + 1}` : ''}`.trim();
    byFrame.set(key, (byFrame.get(key) ?? 0) + us);
  }
  return [...byFrame]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([k, us]) => `${k} ${(us / 1000).toFixed(0)} ms`)
    .join(', ');
}

async function drawn(page: Page, n: number): Promise<void> {
  await page.locator(`#job-map[data-rendered-features="${n}"]`).waitFor({ timeout: 120_000 });
}

export async function benchDashboard(): Promise<{ stages: Stage[]; details: Record<string, unknown> }> {
  if (!CHROMIUM) throw new Error('the dashboard bench needs Chromium (apt-get install chromium, or CHROMIUM_PATH)');
  const ships = Number(process.env.SARWATCH_BENCH_SHIPS ?? 5000);
  const cells = Number(process.env.SARWATCH_BENCH_CELLS ?? 2000);
  const dates = Number(process.env.SARWATCH_BENCH_DATES ?? 91);
  const web = dashboardDir();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sarwatch-bench-web-'));
  const config = loadConfig({ SARWATCH_DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', SARWATCH_SAMPLES_DIR: '', SARWATCH_WEB_DIR: web.dir, SARWATCH_RATE_LIMIT_PER_MINUTE: '100000' });
  const service = await startService(config);
  let browser: Browser | undefined;
  try {
    const { accountId } = await createAccount(service.db, { name: 'bench', credits: 1000 });
    const { apiKey } = await createApiKey(service.db, { accountId });
    const scenarios: Scenario[] = [];
    const layerBytes: Record<string, number> = {};
    const layerCost: Record<string, string> = {};
    for (const [name, endpoint, fc, polygon] of [
      [`${ships.toLocaleString('en')} ship features`, 'ship', shipResult(ships), 'POLYGON ((4.2 52.38, 4.5 52.38, 4.5 52.58, 4.2 52.58, 4.2 52.38))'],
      [`${cells.toLocaleString('en')} time-series cells × ${dates} dates`, 'timeseries', timeseriesResult(cells, dates), 'POLYGON ((4.95 52.33, 5.03 52.33, 5.03 52.38, 4.95 52.38, 4.95 52.33))'],
    ] as const) {
      const jobId = crypto.randomUUID();
      const body = JSON.stringify(fc);
      await service.objects.put(`bench/${jobId}.geojson`, body, 'application/geo+json');
      const signedResult = await service.objects.presign(`bench/${jobId}.geojson`, { expiresInSeconds: 3600, filename: 'result.geojson', contentType: 'application/geo+json' });
      // What the worker stores at a job's end beside the quicklook (worker/quicklook.ts).
      const made0 = { wall: performance.now(), cpu: process.cpuUsage() };
      const layer = await makeMapLayer({ endpointId: endpoint, result: fc as ResultCollection });
      // Main thread and the pool's threads (one process): the worker's cost of the layer.
      const madeCpu = process.cpuUsage(made0.cpu);
      if (layer) layerCost[endpoint] = `${(performance.now() - made0.wall).toFixed(0)} ms wall, ${((madeCpu.user + madeCpu.system) / 1000).toFixed(0)} CPU ms (the pool started cold: a worker's is warm)`;
      let signedLayer: string | null = null;
      if (layer) {
        await service.objects.put(`bench/${jobId}.layer.geojson`, Buffer.from(layer), 'application/geo+json');
        signedLayer = await service.objects.presign(`bench/${jobId}.layer.geojson`, { expiresInSeconds: 3600, filename: 'map_layer.geojson', contentType: 'application/geo+json' });
        layerBytes[endpoint] = layer.length;
      }
      scenarios.push({ name, endpoint, jobId, fc, polygon, signedResult, signedLayer });
    }
    browser = await launchBrowser();
    // A user's browser is running before they open the page: the browser's own first page
    // (its first renderer and network context, ~0.1 s before the document is even requested
    // on Chromium 156) is paid here, on a blank page of a context of its own that is then
    // closed — nothing of the service or of the dashboard is loaded or cached by it.
    const warm = await browser.newContext();
    await (await warm.newPage()).goto('data:text/html,<canvas></canvas><script>document.querySelector("canvas").getContext("2d").fillRect(0,0,1,1)</script>');
    await warm.close();
    const stages: Stage[] = [];
    const sizes: Record<string, string> = {};
    const verdicts: Record<string, string> = {};
    const breakdown: Record<string, string> = {};
    const wall: Record<string, string> = {};
    const threads: Record<string, string> = {};
    const profiles: Record<string, string> = {};
    for (const s of scenarios) {
      const n = s.fc.features.length;
      sizes[s.endpoint] = `${(Buffer.byteLength(JSON.stringify(s.fc)) / 2 ** 20).toFixed(1)} MB${layerBytes[s.endpoint] ? ` (map layer ${(layerBytes[s.endpoint]! / 2 ** 20).toFixed(2)} MB)` : ''}`;
      // First visit: a new context, so the bundle, the land layer and the result all come over the wire.
      const { page, cdp: stand } = await openPage(browser, service.url, apiKey, scenarios);
      let t0 = performance.now();
      let cpu0 = treeCpuSeconds();
      let threads0 = threadTicks();
      const trace = process.env.SARWATCH_BENCH_TRACE;
      if (trace) await browser.startTracing(page, { path: path.join(trace, `${s.endpoint}-first.json`), categories: TRACE_CATEGORIES });
      const cdp = process.env.SARWATCH_BENCH_PROFILE ? await page.context().newCDPSession(page) : null;
      if (cdp) await cdp.send('Profiler.enable').then(() => cdp.send('Profiler.start'));
      await page.goto(`${service.url}/#/jobs/${s.jobId}`);
      await allDrawnMark(stand);
      const firstWall = (performance.now() - t0) / 1000;
      const firstCpu = treeCpuSeconds() - cpu0;
      threads[`${s.endpoint} first`] = threadCpuSince(threads0);
      if (trace) await browser.stopTracing();
      if (cdp) profiles[`${s.endpoint} first`] = profileTop(((await cdp.send('Profiler.stop')) as { profile: CpuProfile }).profile);
      // The count the page shows (checked after the timed render: see allDrawnMark).
      await drawn(page, n);
      const firstMarks = await marks(page, false);
      const first = firstMarks.renderSeconds;
      breakdown[`${s.endpoint} first`] = firstMarks.breakdown;
      wall[`${s.endpoint} first`] = `${firstWall.toFixed(2)} s`;
      stages.push({ name: `${s.name}: first visit`, seconds: first, mpxPerSecond: 0, peakRssMb: 0, cpuSeconds: firstCpu, loadAverage: os.loadavg()[0] });
      if (s.signedLayer) {
        // The first click on a cell drawn from the layer: the full result downloaded and parsed, the cell's chart shown.
        const cell = s.fc.features[Math.floor(n / 2)]!;
        const ring = (cell.geometry as GeoJSON.Polygon).coordinates[0]!.slice(0, -1);
        const [lon, lat] = [ring.reduce((a, p) => a + p[0]!, 0) / ring.length, ring.reduce((a, p) => a + p[1]!, 0) / ring.length];
        const map = page.locator('#job-map');
        const view = JSON.parse((await map.getAttribute('data-view'))!) as { lon: number; lat: number; zoom: number };
        const box = (await map.boundingBox())!;
        const at = project(view, { width: box.width - 2, height: box.height - 2 }, lon, lat);
        t0 = performance.now();
        cpu0 = treeCpuSeconds();
        await page.mouse.click(box.x + 1 + at.x, box.y + 1 + at.y);
        const dates = (cell.properties as { chart: { dates: string[] } }).chart.dates.length;
        await page.locator('.properties table.series tbody tr').nth(dates - 1).waitFor({ state: 'attached', timeout: 120_000 });
        // Cells are a few pixels wide in this view: the click may hit a neighbour (every cell has the same dates).
        const heading = await page.locator('.properties h2').textContent();
        if (!/^Feature \d+$/.test(heading ?? '')) throw new Error(`the click showed ${heading}, not a cell`);
        stages.push({ name: `${s.name}: first click, the cell's chart (full result fetched)`, seconds: (performance.now() - t0) / 1000, mpxPerSecond: 0, peakRssMb: 0, cpuSeconds: treeCpuSeconds() - cpu0, loadAverage: os.loadavg()[0] });
      }
      // Back to the page within the app: assets cached, the result downloaded and drawn again.
      const again: number[] = [];
      const againWall: number[] = [];
      const againCpu: number[] = [];
      for (let i = 0; i < 5; i++) {
        await page.evaluate(() => ((globalThis as any).location.hash = '#/jobs'));
        await page.locator('table.jobs').waitFor();
        t0 = performance.now();
        cpu0 = treeCpuSeconds();
        threads0 = threadTicks();
        if (trace && i === 4) await browser.startTracing(page, { path: path.join(trace, `${s.endpoint}-again.json`), categories: TRACE_CATEGORIES });
        await page.evaluate((id) => ((globalThis as any).location.hash = `#/jobs/${id}`), s.jobId);
        await drawn(page, n);
        if (trace && i === 4) await browser.stopTracing();
        againWall.push((performance.now() - t0) / 1000);
        againCpu.push(treeCpuSeconds() - cpu0);
        const m = await marks(page, true);
        again.push(m.renderSeconds);
        if (i === 4) {
          breakdown[`${s.endpoint} again`] = m.breakdown;
          threads[`${s.endpoint} again`] = threadCpuSince(threads0);
        }
      }
      again.sort((a, b) => a - b);
      againWall.sort((a, b) => a - b);
      againCpu.sort((a, b) => a - b);
      wall[`${s.endpoint} again`] = `${againWall[2]!.toFixed(2)} s`;
      const median = again[2]!;
      stages.push({ name: `${s.name}: again in the app (median of 5)`, seconds: median, mpxPerSecond: 0, peakRssMb: 0, cpuSeconds: againCpu[2]!, loadAverage: os.loadavg()[0] });
      verdicts[s.endpoint] = `first ${first.toFixed(2)} s, again ${median.toFixed(2)} s: ${Math.max(first, median) <= 1 ? 'within' : 'over'} 1 s`;
      await page.context().close();
    }
    return { stages, details: { renderTime: 'navigation start → the frame after the canvas drew every result feature within the view (page marks)', resultSizes: sizes, mapLayerMade: layerCost, breakdownMs: breakdown, benchWallTime: wall, cpuByThread: threads, ...(Object.keys(profiles).length ? { mainThreadSelfTime: profiles } : {}), target: verdicts, chromium: (await browser.version()), load: os.loadavg().map((l) => l.toFixed(2)).join(' ') } };
  } finally {
    await browser?.close();
    await service.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
    web.cleanup();
  }
}
