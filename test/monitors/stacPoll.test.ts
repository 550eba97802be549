/**
 * Issue 21 §1, monitors over a remote catalog: every SARWATCH_MONITOR_POLL_SECONDS the AOI is
 * searched for items newer than the last one seen, against the project's local stand-in for
 * the public STAC APIs (test/imagery/standIn.ts; the real ones are out of this network's
 * reach). An item published later runs the monitor once; polling again runs nothing more.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRegistry } from '../../src/endpoints/analysisRegistry.ts';
import { startTestService, SMALL_SQUARE, type TestService } from '../helpers/service.ts';
import { aoiEchoTestDetector } from '../helpers/testDetectors.ts';
import { northSeaItem, startStandIn, type StandIn } from '../imagery/standIn.ts';

let standIn: StandIn;
let t: TestService;

/** The North-Sea item as a new acquisition at `start` (a new id, the same footprint). */
function itemAt(start: Date, n: number): Record<string, unknown> {
  const item = structuredClone(northSeaItem(standIn)) as Record<string, any>;
  const compact = start.toISOString().slice(0, 19).replace(/[-:]/g, '');
  item.id = `S1A_IW_GRDH_1SDV_${compact}_${compact}_0${60000 + n}_06000${n}`;
  Object.assign(item.properties, { datetime: start.toISOString(), start_datetime: start.toISOString(), end_datetime: new Date(start.getTime() + 25_000).toISOString() });
  item.properties['s1:product_identifier'] = `${item.id}_ABC${n}`;
  return item;
}

beforeAll(async () => {
  standIn = await startStandIn();
  standIn.items.set('sentinel-1-grd', [northSeaItem(standIn)]);
  t = await startTestService(
    { CATALOG_PROVIDER: 'stac', CATALOG_URL: `${standIn.url}/stac`, SARWATCH_MONITOR_POLL_SECONDS: '0.3', SARWATCH_REMOTE_ATTEMPTS: '2' },
    { scenes: [], credits: 100_000, registry: createRegistry([aoiEchoTestDetector('ship')]) },
  );
}, 60_000);
afterAll(async () => {
  await t?.close();
  await standIn?.close();
});

describe('monitors over a STAC catalog (stand-in server)', () => {
  it('items acquired before the monitor existed never run it; a newer item runs it once, however often the poll sees it', async () => {
    const m = (await t.http('POST', '/api/v1/monitors', { body: { endpoint_id: 'ship', family: 'detect', polygon: SMALL_SQUARE, condition: { min_count: 1 }, max_credits_per_month: 100 } })).json;
    const searches = () => standIn.requests.filter((r) => r.path === '/stac/search').length;
    // Three polls over the 2022 item only: counted at the stand-in, not assumed from a 1 s sleep
    // (fewer polls on a loaded machine would have let this pass without looking).
    const start = searches();
    while (searches() < start + 3) await new Promise((r) => setTimeout(r, 50));
    expect((await t.http('GET', `/api/v1/monitors/${m.monitor_id}`)).json.runs.total).toBe(0);
    const before = searches();
    const fresh = itemAt(new Date(Date.now() + 60_000), 1);
    standIn.items.get('sentinel-1-grd')!.push(fresh);
    let jobs: any[] = [];
    for (let i = 0; i < 300 && jobs.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 100));
      jobs = (await t.http('GET', '/api/v1/jobs')).json.jobs.filter((j: any) => j.monitor_id === m.monitor_id);
    }
    expect(jobs).toHaveLength(1);
    expect(jobs[0].request_params.date).toBe(String(fresh.properties && (fresh.properties as any).start_datetime).slice(0, 10));
    // More polls see the same item: still one job.
    const seen = searches();
    while (searches() < seen + 3) await new Promise((r) => setTimeout(r, 100));
    expect(searches()).toBeGreaterThan(before);
    expect((await t.http('GET', '/api/v1/jobs')).json.jobs.filter((j: any) => j.monitor_id === m.monitor_id)).toHaveLength(1);
    const after = (await t.http('GET', `/api/v1/monitors/${m.monitor_id}`)).json;
    expect(after.last_scene.scene_id).toBe(fresh.id);
  });
});
