/**
 * Issue 21 §1, monitors, through the HTTP API of the embedded service (SQLite; PostgreSQL
 * with SARWATCH_TEST_STORE=postgres) over the STAC-item fixture archive: create, get, list,
 * patch, delete, preview; a product written into the archive folder is indexed by the watch
 * and runs the monitor as an ordinary job carrying monitor_id; the condition is evaluated on
 * the result (monitor.triggered, signed); suspension for the cap, the balance, a deleted
 * polygon upload and failures in a row (monitor.suspended); exactly one job per (monitor,
 * scene) with two processes racing and across a restart.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import type { AnalysisModule } from '../../src/analysis/port.ts';
import { createRegistry } from '../../src/endpoints/analysisRegistry.ts';
import { JobFailure } from '../../src/contract/errors.ts';
import { loadConfig } from '../../src/config.ts';
import { startService } from '../../src/runtime.ts';
import { MonitorService } from '../../src/monitors/service.ts';
import { startTestService, SMALL_SQUARE, type TestService } from '../helpers/service.ts';
import { aoiEchoTestDetector } from '../helpers/testDetectors.ts';
import { stacItem, type FixtureScene } from '../helpers/stacFixtures.ts';
import { startReceiver, type Receiver } from '../helpers/webhookReceiver.ts';
import { testStoreEnv } from '../helpers/services.ts';

/** A detector that always fails its job (the monitor's failure streak). */
const failingDetector = (endpointId: AnalysisModule['endpointId']): AnalysisModule => ({
  endpointId,
  run: async () => {
    throw new JobFailure('NO_VALID_DATA', 'the test detector found no valid data');
  },
});

let t: TestService;
let rx: Receiver;
let secret = '';
const env = {
  SARWATCH_WEBHOOK_ALLOW_PRIVATE: '1',
  SARWATCH_WEBHOOK_RETRY_BASE_SECONDS: '0.1',
  SARWATCH_MONITOR_MAX_FAILURES: '2',
};
const registry = () => createRegistry([aoiEchoTestDetector('ship'), failingDetector('oilslick'), aoiEchoTestDetector('newbuilding')]);

beforeAll(async () => {
  rx = await startReceiver();
  t = await startTestService(env, { registry: registry(), credits: 100_000 });
  const hook = await t.http('POST', '/api/v1/webhooks', { body: { url: rx.url, events: ['monitor.triggered', 'monitor.suspended'] } });
  secret = hook.json.secret;
}, 60_000);
afterAll(async () => {
  await t?.close();
  await rx?.close();
});

const shipMonitor = (over: Record<string, unknown> = {}) => ({ endpoint_id: 'ship', family: 'detect', polygon: SMALL_SQUARE, trigger: 'new_scene', condition: { min_count: 1 }, max_credits_per_month: 5000, ...over });

/** A new GRD acquisition over the North-Sea squares, written into the archive folder as a STAC item. */
let serial = 0;
function newScene(day: string, over: Partial<FixtureScene> = {}): FixtureScene {
  serial++;
  const compact = day.replace(/-/g, '');
  const s = String(serial).padStart(2, '0');
  return {
    id: `S1A_IW_GRDH_1SDV_${compact}T1733${s}_${compact}T1733${String(serial + 25).padStart(2, '0')}_0${String(50000 + serial)}_05B${s}0_C${s}0${s}`.slice(0, 67),
    productType: 'GRD',
    start: `${day}T17:33:${s}Z`,
    bbox: [2.0, 51.0, 3.2, 51.8],
    relativeOrbit: 88,
    ...over,
  };
}
function dropIntoArchive(svc: TestService, scene: FixtureScene): void {
  const dir = path.join(svc.config.archiveDir, 'incoming');
  fs.mkdirSync(dir, { recursive: true });
  // Written aside and renamed in, as a copy tool does: the watch never sees half a file.
  const tmp = path.join(dir, `.${scene.id}.json`);
  fs.writeFileSync(tmp, JSON.stringify(stacItem(scene)));
  fs.renameSync(tmp, path.join(dir, `${scene.id}.json`));
}

async function until<T>(fn: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`timed out; last: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
const monitorOf = (id: string, svc = t) => svc.http('GET', `/api/v1/monitors/${id}`).then((r) => r.json);
const jobsOfMonitor = async (id: string, svc = t) => (await svc.http('GET', '/api/v1/jobs?limit=30')).json.jobs.filter((j: any) => j.monitor_id === id);
const events = (type: string, monitorId: string) =>
  rx.received.map((r) => new Webhook(secret).verify(r.body, r.headers as Record<string, string>) as any).filter((e) => e.type === type && e.data.monitor_id === monitorId);

describe('monitors: create, get, list, patch, delete', () => {
  it('POST /api/v1/monitors → 201 {monitor_id, state: active, …}; GET one and list show it', async () => {
    const res = await t.http('POST', '/api/v1/monitors', { body: shipMonitor() });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({
      endpoint_id: 'ship',
      family: 'detect',
      polygon: SMALL_SQUARE,
      polygon_id: null,
      trigger: 'new_scene',
      condition: { min_count: 1 },
      max_credits_per_month: 5000,
      state: 'active',
      suspended_reason: null,
      runs: { total: 0, triggered: 0, consecutive_failures: 0 },
      last_scene: null,
      credits_spent_this_month: 0,
    });
    expect((await monitorOf(res.json.monitor_id)).monitor_id).toBe(res.json.monitor_id);
    expect((await t.http('GET', '/api/v1/monitors')).json.monitors.map((m: any) => m.monitor_id)).toContain(res.json.monitor_id);
    await t.http('DELETE', `/api/v1/monitors/${res.json.monitor_id}`);
  });

  it('bad monitors are 400 with the envelope: wrong condition member, every_days on a scene endpoint, idlefarm, both AOIs, none, too large', async () => {
    const bad = [
      shipMonitor({ condition: { min_area_sqm: 5 } }),
      shipMonitor({ condition: { min_count: 1, min_area_sqm: 5 } }),
      shipMonitor({ trigger: { every_days: 12 } }),
      shipMonitor({ endpoint_id: 'idlefarm' }),
      shipMonitor({ polygon_id: '00000000-0000-4000-8000-000000000000' }),
      shipMonitor({ polygon: undefined }),
      shipMonitor({ endpoint_id: 'timeseries', family: 'analyze', condition: { min_abs_deviation: 2 }, polygon: 'POLYGON ((2 51, 3 51, 3 52, 2 52, 2 51))' }),
      shipMonitor({ max_credits_per_month: 0 }),
      shipMonitor({ polygon: 'POLYGON ((0 0, 1 1))' }),
    ];
    for (const body of bad) {
      const res = await t.http('POST', '/api/v1/monitors', { body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.json.error.code).toBe('VALIDATION_ERROR');
    }
    const unknownUpload = await t.http('POST', '/api/v1/monitors', { body: shipMonitor({ polygon: undefined, polygon_id: '00000000-0000-4000-8000-000000000000' }) });
    expect(unknownUpload.status).toBe(404);
  });

  it('scopes: creating needs monitors:write, reading jobs:read; a key limited to endpoints may watch those only; another account sees 404', async () => {
    const reader = await t.newAccount({ scopes: ['jobs:read'] });
    expect((await t.http('POST', '/api/v1/monitors', { body: shipMonitor(), key: reader.apiKey })).status).toBe(403);
    expect((await t.http('POST', '/api/v1/monitors/preview', { body: shipMonitor(), key: reader.apiKey })).status).toBe(403);
    expect((await t.http('GET', '/api/v1/monitors', { key: reader.apiKey })).status).toBe(200);
    const oilOnly = await t.newAccount({ scopes: ['monitors:write', 'jobs:read'], endpoints: ['oilslick'] });
    expect((await t.http('POST', '/api/v1/monitors', { body: shipMonitor(), key: oilOnly.apiKey })).status).toBe(403);
    const mine = (await t.http('POST', '/api/v1/monitors', { body: shipMonitor() })).json;
    expect((await t.http('GET', `/api/v1/monitors/${mine.monitor_id}`, { key: reader.apiKey })).status).toBe(404);
    expect((await t.http('PATCH', `/api/v1/monitors/${mine.monitor_id}`, { body: { state: 'paused' }, key: oilOnly.apiKey })).status).toBe(404);
    await t.http('DELETE', `/api/v1/monitors/${mine.monitor_id}`);
  });

  it('PATCH pauses, resumes, changes the condition and the cap; DELETE → 204 then 404', async () => {
    const m = (await t.http('POST', '/api/v1/monitors', { body: shipMonitor() })).json;
    expect((await t.http('PATCH', `/api/v1/monitors/${m.monitor_id}`, { body: { state: 'paused' } })).json.state).toBe('paused');
    const changed = await t.http('PATCH', `/api/v1/monitors/${m.monitor_id}`, { body: { state: 'active', condition: { min_count: 3 }, max_credits_per_month: 42 } });
    expect(changed.json).toMatchObject({ state: 'active', condition: { min_count: 3 }, max_credits_per_month: 42 });
    expect((await t.http('PATCH', `/api/v1/monitors/${m.monitor_id}`, { body: { condition: { min_oil_probability: 0.5 } } })).status).toBe(400);
    expect((await t.http('PATCH', `/api/v1/monitors/${m.monitor_id}`, { body: { state: 'suspended' } })).status).toBe(400);
    expect((await t.http('PATCH', `/api/v1/monitors/${m.monitor_id}`, { body: {} })).status).toBe(400);
    expect((await t.http('DELETE', `/api/v1/monitors/${m.monitor_id}`)).status).toBe(204);
    expect((await t.http('GET', `/api/v1/monitors/${m.monitor_id}`)).status).toBe(404);
  });
});

describe('monitors: preview', () => {
  it('says what one run costs (the AOI at the endpoint price) and how many runs the last 90 days would have made', async () => {
    const res = await t.http('POST', '/api/v1/monitors/preview', { body: shipMonitor() });
    expect(res.status).toBe(200);
    expect(res.json.credits_per_run).toBeCloseTo(res.json.area_sqkm * t.config.pricesPerSqkm.ship, 4);
    expect(res.json.runs_last_90_days).toBe(0); // the fixture archive ends in 2023
    // The same service as of mid-2023: GRD fixture scenes every 12 days.
    const asOf = new MonitorService({ db: t.service.db, config: t.config, catalog: t.service.catalog, now: () => new Date('2023-06-30T00:00:00Z') });
    const principal = { accountId: t.accountId, keyId: 'k', scopes: new Set(['monitors:write'] as const), endpoints: null } as never;
    const every = await asOf.preview(principal, shipMonitor() as never);
    // 2023-04-01 … 06-29 (days 91–180 of 2023) holds the fixture dates of days 99, 111, …, 171.
    expect(every.runs_last_90_days).toBe(7);
    expect(every.credits_last_90_days).toBeCloseTo(every.credits_per_run! * 7, 4);
    // Every 24 days: days 99, 123, 147, 171.
    const change = await asOf.preview(principal, shipMonitor({ endpoint_id: 'newbuilding', family: 'detect', trigger: { every_days: 24 }, condition: { min_area_sqm: 100 } }) as never);
    expect(change.runs_last_90_days).toBe(4);
  });
});

describe('monitors: runs on new scenes', () => {
  it('a product written into the archive folder is indexed and runs the monitor: a job of the account with monitor_id; a met condition sends monitor.triggered', async () => {
    const m = (await t.http('POST', '/api/v1/monitors', { body: shipMonitor() })).json;
    const scene = newScene('2024-03-01');
    dropIntoArchive(t, scene);
    const [job] = await until(() => jobsOfMonitor(m.monitor_id), (j) => j.length === 1);
    expect(job).toMatchObject({ endpoint_id: 'ship', monitor_id: m.monitor_id, request_params: { polygon: SMALL_SQUARE, date: '2024-03-01', date_direction: 'nearest', orbit_direction: 'ascending' } });
    expect((await t.http('GET', `/api/v1/jobs/${job.job_id}`)).json.monitor_id).toBe(m.monitor_id);
    const done = await until(() => monitorOf(m.monitor_id), (x) => x.runs.triggered === 1);
    expect(done).toMatchObject({ runs: { total: 1, triggered: 1 }, last_scene: { scene_id: scene.id, acquired_at: new Date(scene.start).toISOString() } });
    expect(done.credits_spent_this_month).toBeGreaterThan(0);
    await rx.waitFor(1);
    const [ev] = await until(async () => events('monitor.triggered', m.monitor_id), (e) => e.length === 1);
    expect(ev.data).toMatchObject({ monitor_id: m.monitor_id, job_id: job.job_id, endpoint_id: 'ship', summary: { count: 1 }, result_path: `/api/v1/jobs/${job.job_id}/result.geojson` });
    expect(ev.data.summary.bbox[0]).toBeCloseTo(2.5, 6);
    const runs = (await t.http('GET', `/api/v1/monitors/${m.monitor_id}/runs`)).json.runs;
    expect(runs).toEqual([expect.objectContaining({ scene_id: scene.id, status: 'triggered', job_id: job.job_id, summary: { count: 1, bbox: ev.data.summary.bbox } })]);
    await t.http('DELETE', `/api/v1/monitors/${m.monitor_id}`);
  });

  it('a condition not met records the run as not_triggered and sends nothing; a paused monitor does not run; a scene outside the AOI does not run it', async () => {
    const m = (await t.http('POST', '/api/v1/monitors', { body: shipMonitor({ condition: { min_count: 2 } }) })).json;
    const paused = (await t.http('POST', '/api/v1/monitors', { body: shipMonitor() })).json;
    await t.http('PATCH', `/api/v1/monitors/${paused.monitor_id}`, { body: { state: 'paused' } });
    dropIntoArchive(t, newScene('2024-03-13'));
    dropIntoArchive(t, newScene('2024-03-14', { bbox: [10, 40, 11, 41] }));
    await until(() => monitorOf(m.monitor_id), (x) => x.runs.total === 1);
    const runs = await until(() => t.http('GET', `/api/v1/monitors/${m.monitor_id}/runs`).then((r) => r.json.runs), (r) => r[0]?.status !== 'submitted');
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ status: 'not_triggered', summary: { count: 1 } });
    expect(events('monitor.triggered', m.monitor_id)).toHaveLength(0);
    expect((await monitorOf(paused.monitor_id)).runs.total).toBe(0);
    await t.http('DELETE', `/api/v1/monitors/${m.monitor_id}`);
    await t.http('DELETE', `/api/v1/monitors/${paused.monitor_id}`);
  });
});

describe('monitors: suspension', () => {
  it('cap reached: a run that would pass max_credits_per_month is not submitted; the monitor is suspended (cap_reached) and monitor.suspended is sent', async () => {
    // One run of the small square reserves about 0.78 credits.
    const m = (await t.http('POST', '/api/v1/monitors', { body: shipMonitor({ max_credits_per_month: 0.5 }) })).json;
    dropIntoArchive(t, newScene('2024-04-01'));
    const s = await until(() => monitorOf(m.monitor_id), (x) => x.state === 'suspended');
    expect(s).toMatchObject({ suspended_reason: 'cap_reached', runs: { total: 0 } });
    expect(s.suspended_message).toMatch(/of the 0.5 allowed this month/);
    expect(await jobsOfMonitor(m.monitor_id)).toHaveLength(0);
    const [ev] = await until(async () => events('monitor.suspended', m.monitor_id), (e) => e.length === 1);
    expect(ev.data).toMatchObject({ monitor_id: m.monitor_id, reason: 'cap_reached' });
    const runs = (await t.http('GET', `/api/v1/monitors/${m.monitor_id}/runs`)).json.runs;
    expect(runs[0]).toMatchObject({ status: 'skipped', job_id: null });
    await t.http('DELETE', `/api/v1/monitors/${m.monitor_id}`);
  });

  it('balance too low: the run is not submitted and the monitor is suspended (balance_too_low)', async () => {
    const poor = await t.newAccount({ credits: 0.001 });
    const m = (await t.http('POST', '/api/v1/monitors', { body: shipMonitor(), key: poor.apiKey })).json;
    dropIntoArchive(t, newScene('2024-04-13'));
    const s = await until(() => monitorOf(m.monitor_id, { ...t, http: (a, b, o = {}) => t.http(a, b, { ...o, key: poor.apiKey }) } as TestService), (x) => x.state === 'suspended');
    expect(s.suspended_reason).toBe('balance_too_low');
  });

  it('failures in a row: SARWATCH_MONITOR_MAX_FAILURES failed runs suspend the monitor (repeated_failures)', async () => {
    const m = (await t.http('POST', '/api/v1/monitors', { body: shipMonitor({ endpoint_id: 'oilslick', condition: { min_oil_probability: 0.5 } }) })).json;
    dropIntoArchive(t, newScene('2024-05-01'));
    await until(() => monitorOf(m.monitor_id), (x) => x.runs.consecutive_failures === 1);
    expect((await monitorOf(m.monitor_id)).state).toBe('active');
    dropIntoArchive(t, newScene('2024-05-13'));
    const s = await until(() => monitorOf(m.monitor_id), (x) => x.state === 'suspended');
    expect(s).toMatchObject({ suspended_reason: 'repeated_failures', runs: { total: 2, consecutive_failures: 2 } });
    expect(s.suspended_message).toMatch(/2 runs in a row failed \(last: NO_VALID_DATA\)/);
    // Resuming clears the streak.
    const resumed = (await t.http('PATCH', `/api/v1/monitors/${m.monitor_id}`, { body: { state: 'active' } })).json;
    expect(resumed).toMatchObject({ state: 'active', suspended_reason: null, runs: { consecutive_failures: 0 } });
    await t.http('DELETE', `/api/v1/monitors/${m.monitor_id}`);
  });

  it('polygon upload deleted: the monitor is suspended (polygon_deleted)', async () => {
    const fc = { type: 'FeatureCollection', features: [{ type: 'Feature', properties: {}, geometry: { type: 'Polygon', coordinates: [[[2.5, 51.3], [2.6, 51.3], [2.6, 51.4], [2.5, 51.4], [2.5, 51.3]]] } }] };
    const up = await t.http('POST', '/api/v1/polygons', { rawBody: JSON.stringify(fc), headers: { 'Content-Type': 'application/geo+json' } });
    await until(() => t.http('GET', `/api/v1/polygons/${up.json.polygon_id}`).then((r) => r.json.status), (s) => s === 'ready');
    const m = (await t.http('POST', '/api/v1/monitors', { body: shipMonitor({ polygon: undefined, polygon_id: up.json.polygon_id }) })).json;
    expect(m.state).toBe('active');
    await t.http('DELETE', `/api/v1/polygons/${up.json.polygon_id}`);
    expect(await t.service.monitorRunner.suspendOrphans()).toBe(1);
    expect(await monitorOf(m.monitor_id)).toMatchObject({ state: 'suspended', suspended_reason: 'polygon_deleted' });
    await until(async () => events('monitor.suspended', m.monitor_id), (e) => e.length === 1);
  });
});

describe('monitors: one job per (monitor, scene)', () => {
  it('two processes that see the same new scene at once submit one job; a restart that sees it again submits none', async () => {
    const m = (await t.http('POST', '/api/v1/monitors', { body: shipMonitor() })).json;
    const scene = newScene('2024-06-01');
    // A second process on the same store (worker role, its own data dir for its files): both
    // hear of the scene at the same moment.
    const other = await startService(loadConfig({ ...env, SARWATCH_DATA_DIR: t.dataDir, SARWATCH_SAMPLES_DIR: '', ...(await testStoreEnv(t.dataDir)), SARWATCH_ARCHIVE_WATCH: '0' }), {
      roles: { api: false, worker: true },
      registry: registry(),
      queuePollMs: 50,
    });
    try {
      fs.mkdirSync(path.join(t.config.archiveDir, 'incoming'), { recursive: true });
      fs.writeFileSync(path.join(t.config.archiveDir, 'incoming', `.${scene.id}.json`), JSON.stringify(stacItem(scene))); // hidden: the watch ignores it
      const record = { ...(await import('../../src/catalog/stac/item.ts')).stacItemToScene(stacItem(scene) as never, { source: 'local' }) };
      const counts = await Promise.all([t.service.monitorRunner.onNewScenes([record]), other.monitorRunner.onNewScenes([record]), t.service.monitorRunner.onNewScenes([record]), other.monitorRunner.onNewScenes([record])]);
      expect(counts.reduce((a, b) => a + b, 0)).toBe(1);
      expect(await jobsOfMonitor(m.monitor_id)).toHaveLength(1);
      // Later, and after a restart of the other process: the scene comes in again.
      await other.close();
      const again = await startService(loadConfig({ ...env, SARWATCH_DATA_DIR: t.dataDir, SARWATCH_SAMPLES_DIR: '', ...(await testStoreEnv(t.dataDir)), SARWATCH_ARCHIVE_WATCH: '0' }), {
        roles: { api: false, worker: true },
        registry: registry(),
      });
      try {
        expect(await again.monitorRunner.onNewScenes([record])).toBe(0);
      } finally {
        await again.close();
      }
      expect(await jobsOfMonitor(m.monitor_id)).toHaveLength(1);
    } finally {
      await other.close().catch(() => {});
    }
    await t.http('DELETE', `/api/v1/monitors/${m.monitor_id}`);
  });
});
