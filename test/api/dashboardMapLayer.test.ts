/**
 * Issue 22, the dashboard's time-series page: a completed timeseries job also stores a map
 * layer — its cells (the result's order and ids, coordinates rounded to 6 decimals) with only
 * `deviation` — served like the quicklook: `map_layer_path` on the job, GET …/map-layer a 302
 * to a signed GeoJSON, 404 while a job has none (a ship job), 410 after retention, deleted by
 * the sweep with the result. A real timeseries job on the demo city. Runs on SQLite, and on
 * PostgreSQL with SARWATCH_TEST_STORE=postgres.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, waitForTerminal, type TestService } from '../helpers/service.ts';
import { expectEnvelope } from '../helpers/envelope.ts';
import { DEMO_ANCHORAGE, linkDemoArchive } from '../helpers/demoArchive.ts';
import { GoneError, NotFoundError } from '../../src/client/index.ts';
import { sweepExpiredResults } from '../../src/worker/retention.ts';
import { renderMapLayer } from '../../src/analysis/quicklook/mapLayer.ts';
import { flattenGeometries } from '../../src/analysis/quicklook/vectors.ts';

const CITY = 'POLYGON ((4.985 52.35, 5.005 52.35, 5.005 52.362, 4.985 52.362, 4.985 52.35))';

let t: TestService;
let job: any;
let result: any;

beforeAll(async () => {
  t = await startTestService({}, { credits: 100_000, scenes: [], beforeIndex: (dir) => linkDemoArchive(dir).then(() => {}) });
  const { job_id } = await t.client.submit('analyze', 'timeseries', { satellite_id: 'sentinel-1', polygon: CITY, date_start: '2023-01-01', date_end: '2024-12-31' });
  job = await waitForTerminal(t.client, job_id, 300_000);
  result = await t.client.downloadResult(job_id);
}, 400_000);
afterAll(() => t?.close());

describe('issue 22: a timeseries job stores a map layer of its cells', () => {
  it('map_layer_path on the job (not on list items); the layer has the result’s cells in order with their ids and deviations, coordinates within 0.5e-6°', async () => {
    expect(job.status, job.error_message ?? '').toBe('completed');
    expect(job.map_layer_path).toBe(`/api/v1/jobs/${job.job_id}/map-layer`);
    const item = (await t.client.listJobs({ limit: 30 })).jobs.find((j) => j.job_id === job.job_id)!;
    expect(item).not.toHaveProperty('map_layer_path');

    const res = await t.http('GET', job.map_layer_path);
    expect(res.status).toBe(302);
    const got = await fetch(new URL(res.headers.get('location')!, t.url));
    expect(got.status).toBe(200);
    expect(got.headers.get('content-type')).toMatch(/^application\/geo\+json/);
    const text = await got.text();
    const layer = JSON.parse(text);
    expect(layer.type).toBe('FeatureCollection');
    expect(result.features.length).toBeGreaterThan(10);
    expect(layer.features).toHaveLength(result.features.length);
    let maxError = 0;
    layer.features.forEach((f: any, i: number) => {
      const r = result.features[i];
      expect(f.id).toBe(r.id);
      expect(Object.keys(f.properties)).toEqual(['deviation']);
      expect(f.properties.deviation).toBe(r.properties.deviation);
      expect(f.geometry.type).toBe(r.geometry.type);
      const a = f.geometry.coordinates.flat(2);
      const b = r.geometry.coordinates.flat(2);
      expect(a).toHaveLength(b.length);
      a.forEach((x: number, k: number) => (maxError = Math.max(maxError, Math.abs(x - b[k]))));
      for (const x of a) expect(Math.abs(x * 1e6 - Math.round(x * 1e6))).toBeLessThan(1e-6);
    });
    expect(maxError).toBeLessThanOrEqual(0.5e-6 + 1e-12);
    const [w, s, e, n] = layer.bbox;
    for (const x of layer.features.flatMap((f: any) => f.geometry.coordinates.flat(2))) expect(typeof x).toBe('number');
    expect(w).toBeLessThan(e);
    expect(s).toBeLessThan(n);
    // Far smaller than the result, which carries every cell's chart.
    const resultBytes = Buffer.byteLength(JSON.stringify(result));
    expect(Buffer.byteLength(text)).toBeLessThan(resultBytes / 10);
  });

  it('the SDK downloads it; a ship job has none (null, 404); another account’s job is 404, unauthenticated 401', async () => {
    const layer = await t.client.downloadMapLayer(job.job_id);
    expect(layer.features.map((f) => f.id)).toEqual(result.features.map((f: any) => f.id));
    const ship = await waitForTerminal(t.client, (await t.client.submit('detect', 'ship', { satellite_id: 'sentinel-1', polygon: DEMO_ANCHORAGE, date: '2024-06-13', date_direction: 'before' })).job_id, 300_000);
    expect(ship.status, ship.error_message ?? '').toBe('completed');
    expect(ship.quicklook_path).not.toBeNull();
    expect(ship.map_layer_path).toBeNull();
    const none = await t.http('GET', `/api/v1/jobs/${ship.job_id}/map-layer`);
    expect(none.status).toBe(404);
    expectEnvelope(none.status, none.text, 'NOT_FOUND');
    await expect(t.client.downloadMapLayer(ship.job_id)).rejects.toBeInstanceOf(NotFoundError);
    const other = await t.newAccount();
    const foreign = await t.http('GET', job.map_layer_path, { key: other.apiKey });
    expect(foreign.status).toBe(404);
    expectEnvelope(foreign.status, foreign.text, 'NOT_FOUND');
    expect((await t.http('GET', job.map_layer_path, { key: null })).status).toBe(401);
  }, 400_000);

  it('the OpenAPI document has the route (302, 404, 410) and the Job field', async () => {
    const doc: any = (await t.http('GET', '/openapi.json', { key: null })).json;
    const responses = doc.paths['/api/v1/jobs/{job_id}/map-layer'].get.responses;
    for (const status of ['302', '404', '410']) expect(responses[status], status).toBeDefined();
    const schema = doc.paths['/api/v1/jobs/{job_id}'].get.responses['200'].content['application/json'].schema;
    const resolved = schema.$ref ? doc.components.schemas[schema.$ref.split('/').pop()] : schema;
    expect(resolved.properties.map_layer_path).toBeDefined();
  });

  it('after retention: 410 GONE, and the sweep deletes the layer with the result and the quicklook', async () => {
    const id = job.job_id;
    const objectsDir = path.join(t.dataDir, 'objects');
    const files = [`results/${id}.1.geojson`, `quicklooks/${id}.1.png`, `maplayers/${id}.1.geojson`].map((f) => path.join(objectsDir, f));
    for (const f of files) expect(fs.existsSync(f), f).toBe(true);
    await t.service.db.updateTable('jobs').set({ result_expires_at: new Date(Date.now() - 1000).toISOString() }).where('id', '=', id).execute();
    const res = await t.http('GET', `/api/v1/jobs/${id}/map-layer`);
    expect(res.status).toBe(410);
    expectEnvelope(res.status, res.text, 'GONE');
    await expect(t.client.downloadMapLayer(id)).rejects.toBeInstanceOf(GoneError);
    expect(await sweepExpiredResults(t.service.db, t.service.objects)).toBeGreaterThanOrEqual(1);
    for (const f of files) expect(fs.existsSync(f), f).toBe(false);
    // The job keeps its path (the answer there is 410), as result_path does.
    expect((await t.client.getJob(id)).map_layer_path).toBe(`/api/v1/jobs/${id}/map-layer`);
  });
});

describe('the map layer of polygons with holes and of multipolygons', () => {
  it('keeps each part and hole, closes every ring, writes null deviations and leaves out absent ids', async () => {
    const square = (x: number, y: number, d: number): Array<[number, number]> => [[x, y], [x + d, y], [x + d, y + d], [x, y + d], [x, y]];
    const geometries = [
      { type: 'Polygon' as const, coordinates: [square(4.1234567, 52.1, 0.01), square(4.125, 52.102, 0.002)] },
      { type: 'MultiPolygon' as const, coordinates: [[square(5, 53, 0.01), square(5.002, 53.002, 0.002)], [square(5.1, 53, 0.01)]] },
    ];
    const cells = await flattenGeometries(geometries);
    const exterior = Uint8Array.of(1, 0, 1, 0, 1);
    const layer = JSON.parse(new TextDecoder().decode(await renderMapLayer({ cells, exterior, multi: Uint8Array.of(0, 1), ids: [7, null], deviations: Float64Array.of(-2.5, Number.NaN) })));
    const round = (c: unknown): unknown => (Array.isArray(c) ? c.map(round) : Math.round((c as number) * 1e6) / 1e6);
    expect(layer.features[0]).toEqual({ type: 'Feature', id: 7, geometry: { type: 'Polygon', coordinates: round(geometries[0]!.coordinates) }, properties: { deviation: -2.5 } });
    expect(layer.features[1]).toEqual({ type: 'Feature', geometry: { type: 'MultiPolygon', coordinates: round(geometries[1]!.coordinates) }, properties: { deviation: null } });
    expect(layer.bbox).toEqual([4.123457, 52.1, 5.11, 53.01]);
  });
});
