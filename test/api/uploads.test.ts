/**
 * Issue 14, part 2: polygon uploads (POST/GET/DELETE /api/v1/polygons) and `polygon_id`
 * wherever `polygon` is accepted. Runs on SQLite, and on PostgreSQL with
 * SARWATCH_TEST_STORE=postgres (startTestService).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, waitForTerminal, TINY_SQUARE, type TestService } from '../helpers/service.ts';
import { expectEnvelope } from '../helpers/envelope.ts';
import { shapefileZip } from '../helpers/shapefile.ts';
import { zip } from '../helpers/zip.ts';
import type { AnalysisModule } from '../../src/analysis/port.ts';
import { createRegistry } from '../../src/endpoints/analysisRegistry.ts';
import { aoiEchoTestDetector } from '../helpers/testDetectors.ts';
import { geodesicAreaSqkm, parseAoiWkt, unionAoi } from '../../src/geo/index.ts';
import { createUpload } from '../../src/uploads/transitions.ts';
import { isoNow } from '../../src/time.ts';

type Ring = [number, number][];
const square = (x: number, y: number, d: number): Ring => [[x, y], [x + d, y], [x + d, y + d], [x, y + d], [x, y]];
const polygonOf = (ring: Ring) => ({ type: 'Polygon' as const, coordinates: [ring] });
const featureOf = (ring: Ring, properties: Record<string, unknown>) => ({ type: 'Feature', geometry: polygonOf(ring), properties });

// Two fields inside the fixture scenes' footprint (near TINY_SQUARE), 0.01° apart.
const FIELD_A = square(2.5, 51.3, 0.02);
const FIELD_B = square(2.53, 51.3, 0.02);
const FIELDS_AREA = geodesicAreaSqkm(unionAoi([polygonOf(FIELD_A), polygonOf(FIELD_B)])!);

const fieldsGeoJson = JSON.stringify({
  type: 'FeatureCollection',
  features: [featureOf(FIELD_A, { name: 'north', crop: 'wheat' }), featureOf(FIELD_B, { name: 'south' })],
});

const kmlCoords = (ring: Ring) => ring.map(([x, y]) => `${x},${y}`).join(' ');
const fieldsKml = `<?xml version="1.0" encoding="UTF-8"?>
<kml xmlns="http://www.opengis.net/kml/2.2"><Document>
  <Placemark><name>north</name><Polygon><outerBoundaryIs><LinearRing><coordinates>${kmlCoords(FIELD_A)}</coordinates></LinearRing></outerBoundaryIs></Polygon></Placemark>
  <Placemark><name>south</name><MultiGeometry><Polygon><outerBoundaryIs><LinearRing><coordinates>${kmlCoords(FIELD_B)}</coordinates></LinearRing></outerBoundaryIs></Polygon></MultiGeometry></Placemark>
</Document></kml>`;

/** Returns the upload's features it was handed (one result feature each, its name kept): proves a detector can work per field. */
const perFeatureTestDetector: AnalysisModule = {
  endpointId: 'newbuilding',
  async run(request) {
    if (!request.upload) throw new Error('no upload on the request');
    const { features } = await request.upload.features();
    return {
      result: {
        type: 'FeatureCollection',
        features: features.map((f, i) => ({
          type: 'Feature' as const,
          id: i + 1,
          geometry: f.geometry.type === 'Polygon' ? f.geometry : { type: 'Polygon' as const, coordinates: f.geometry.coordinates[0]! },
          properties: { area_sqm: 0, confidence: null, name: f.properties.name, polygon_id: request.upload!.polygonId },
        })),
      },
    };
  },
};

/**
 * aoiEchoTestDetector('timeseries'), held while `holdTimeseries` is set when it starts: a job
 * that keeps the one worker busy for as long as a test needs (an 800 ms detector before gave
 * the test 800 ms to submit and delete, at the machine's load's mercy).
 */
let holdTimeseries: Promise<void> | null = null;
let timeseriesRunning: () => void = () => {};
const heldTimeseries: AnalysisModule = {
  endpointId: 'timeseries',
  async run(request, ctx) {
    if (holdTimeseries) {
      timeseriesRunning();
      await holdTimeseries;
    }
    return aoiEchoTestDetector('timeseries').run(request, ctx);
  },
};

let t: TestService;
const MAX_BYTES = 64 * 1024;
const MAX_FEATURES = 5;

beforeAll(async () => {
  t = await startTestService(
    { SARWATCH_MAX_UPLOAD_BYTES: String(MAX_BYTES), SARWATCH_MAX_UPLOAD_FEATURES: String(MAX_FEATURES) },
    { credits: 1000, registry: createRegistry([heldTimeseries, perFeatureTestDetector]) },
  );
});
afterAll(() => t.close());

async function post(body: string | Buffer, contentType: string | null, key: string = t.apiKey) {
  const headers: Record<string, string> = { Authorization: `Bearer ${key}` };
  if (contentType) headers['Content-Type'] = contentType;
  const res = await fetch(`${t.url}/api/v1/polygons`, { method: 'POST', headers, body });
  const text = await res.text();
  return { status: res.status, text, json: JSON.parse(text) };
}

async function settled(polygonId: string, key = t.apiKey) {
  for (let i = 0; i < 400; i++) {
    const res = await t.http('GET', `/api/v1/polygons/${polygonId}`, { key });
    expect(res.status).toBe(200);
    if (res.json.status !== 'processing') return res.json;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('the upload stayed processing');
}

async function readyUpload(): Promise<string> {
  const res = await post(fieldsGeoJson, 'application/geo+json');
  expect(res.status).toBe(202);
  expect((await settled(res.json.polygon_id)).status).toBe('ready');
  return res.json.polygon_id;
}

describe('issue 14: polygon upload formats', () => {
  it('issue 14: a GeoJSON FeatureCollection answers 202 {polygon_id, status: processing}, then becomes ready with its facts', async () => {
    const res = await post(fieldsGeoJson, 'application/geo+json');
    expect(res.status).toBe(202);
    expect(Object.keys(res.json).sort()).toEqual(['polygon_id', 'status']);
    expect(res.json.polygon_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.json.status).toBe('processing');
    const upload = await settled(res.json.polygon_id);
    expect(upload).toMatchObject({ polygon_id: res.json.polygon_id, status: 'ready', format: 'geojson', feature_count: 2, error: null, size_bytes: Buffer.byteLength(fieldsGeoJson) });
    expect(upload.area_sqkm).toBeCloseTo(FIELDS_AREA, 5);
    expect(upload.area_sqkm).toBeGreaterThan(4); // two 0.02° squares at 51° N ≈ 2 × 3.1 km²
    expect(Date.parse(upload.created_at)).toBeGreaterThan(Date.now() - 60_000);
  });

  it('issue 14: application/json is GeoJSON too', async () => {
    const res = await post(fieldsGeoJson, 'application/json; charset=utf-8');
    expect(res.status).toBe(202);
    expect(await settled(res.json.polygon_id)).toMatchObject({ status: 'ready', format: 'geojson', feature_count: 2 });
  });

  it('issue 14: KML (a Polygon and a MultiGeometry placemark)', async () => {
    const res = await post(fieldsKml, 'application/vnd.google-earth.kml+xml');
    expect(res.status).toBe(202);
    const upload = await settled(res.json.polygon_id);
    expect(upload).toMatchObject({ status: 'ready', format: 'kml', feature_count: 2, error: null });
    expect(upload.area_sqkm).toBeCloseTo(FIELDS_AREA, 5);
  });

  it('issue 14: a zipped Shapefile (WGS84 .prj)', async () => {
    const body = shapefileZip([{ rings: [FIELD_A], name: 'north' }, { rings: [FIELD_B], name: 'south' }]);
    const res = await post(body, 'application/zip');
    expect(res.status).toBe(202);
    const upload = await settled(res.json.polygon_id);
    expect(upload).toMatchObject({ status: 'ready', format: 'shapefile', feature_count: 2, size_bytes: body.length });
    expect(upload.area_sqkm).toBeCloseTo(FIELDS_AREA, 5);
  });
});

describe('issue 14: asynchronous validation', () => {
  it('issue 14: a self-intersecting feature ends the upload failed, naming the feature and the rule', async () => {
    const bowtie: Ring = [[2.5, 51.3], [2.52, 51.32], [2.52, 51.3], [2.5, 51.32], [2.5, 51.3]];
    const body = JSON.stringify({ type: 'FeatureCollection', features: [featureOf(FIELD_A, {}), featureOf(bowtie, {})] });
    const res = await post(body, 'application/geo+json');
    expect(res.status).toBe(202);
    const upload = await settled(res.json.polygon_id);
    expect(upload.status).toBe('failed');
    expect(upload.error).toMatch(/^feature 2 of 2: polygon ring 1 intersects itself/);
    expect(upload.feature_count).toBeNull();
    expect(upload.area_sqkm).toBeNull();
  });

  it('issue 14: a line feature fails (only polygons are accepted)', async () => {
    const body = JSON.stringify({ type: 'FeatureCollection', features: [{ type: 'Feature', geometry: { type: 'LineString', coordinates: [[2.5, 51.3], [2.6, 51.4]] }, properties: {} }] });
    const upload = await settled((await post(body, 'application/geo+json')).json.polygon_id);
    expect(upload).toMatchObject({ status: 'failed', error: 'feature 1 of 1: it is a LineString; only Polygon and MultiPolygon are accepted' });
  });
});

describe('issue 14: uploads left processing by a stopped process', () => {
  it('issue 14: validation resumes from the stored original (ready), or fails when the original is gone', async () => {
    const kept = '33333333-4444-4555-8666-777777777777';
    const lost = '44444444-5555-4666-8777-888888888888';
    const originalKey = `uploads/polygons/${kept}/original.geojson`;
    await t.service.objects.put(originalKey, fieldsGeoJson, 'application/geo+json');
    const created = new Date(Date.now() - 60_000).toISOString();
    await createUpload(t.service.db, { id: kept, account_id: t.accountId, format: 'geojson', size_bytes: Buffer.byteLength(fieldsGeoJson), original_key: originalKey, created_at: created });
    await createUpload(t.service.db, { id: lost, account_id: t.accountId, format: 'kml', size_bytes: 5, original_key: `uploads/polygons/${lost}/original.kml`, created_at: created });
    expect(await t.service.uploads.resumeProcessing(isoNow())).toBe(2);
    expect(await settled(kept)).toMatchObject({ status: 'ready', feature_count: 2 });
    expect(await settled(lost)).toMatchObject({ status: 'failed', error: 'the uploaded file was lost before it was validated; upload it again' });
  });
});

describe('issue 14: upload limits and bad bodies', () => {
  it('issue 14: a body over SARWATCH_MAX_UPLOAD_BYTES is 413 PAYLOAD_TOO_LARGE with the envelope', async () => {
    const big = JSON.stringify({ type: 'FeatureCollection', features: [featureOf(FIELD_A, { pad: 'x'.repeat(MAX_BYTES) })] });
    const res = await post(big, 'application/geo+json');
    expect(res.status).toBe(413);
    expectEnvelope(res.status, res.text, 'PAYLOAD_TOO_LARGE');
  });

  it('issue 14: more features than SARWATCH_MAX_UPLOAD_FEATURES is 400 before anything is stored', async () => {
    const features = Array.from({ length: MAX_FEATURES + 1 }, (_, i) => featureOf(square(2.5 + 0.03 * i, 51.3, 0.01), {}));
    const before = (await t.http('GET', '/api/v1/polygons')).json.polygons.length;
    const res = await post(JSON.stringify({ type: 'FeatureCollection', features }), 'application/geo+json');
    expect(res.status).toBe(400);
    expectEnvelope(res.status, res.text, 'VALIDATION_ERROR');
    expect(res.json.error.message).toBe(`the GeoJSON holds ${MAX_FEATURES + 1} features; at most ${MAX_FEATURES} are accepted`);
    expect((await t.http('GET', '/api/v1/polygons')).json.polygons.length).toBe(before);
  });

  it('issue 14: unreadable files are 400 and nothing of the body comes back', async () => {
    const hostile = '<script>alert(1)</script>';
    const cases: [string | Buffer, string, RegExp][] = [
      [`{"type": "FeatureCollection", ${hostile}`, 'application/geo+json', /not valid JSON/],
      [JSON.stringify({ type: 'Feature', geometry: polygonOf(FIELD_A), properties: { hostile } }), 'application/geo+json', /must be a FeatureCollection/],
      [JSON.stringify({ type: 'FeatureCollection', features: [] }), 'application/geo+json', /holds no feature/],
      [`<kml><Placemark>${hostile}`, 'application/vnd.google-earth.kml+xml', /not a well-formed XML document/],
      [`<gpx>${hostile}</gpx>`, 'application/vnd.google-earth.kml+xml', /not KML/],
      [Buffer.from(`PK${hostile}`), 'application/zip', /not a readable zip/],
      [zip([['readme.txt', Buffer.from(hostile)]]), 'application/zip', /no readable Shapefile/],
    ];
    for (const [body, type, message] of cases) {
      const res = await post(body, type);
      expect(res.status, String(message)).toBe(400);
      expectEnvelope(res.status, res.text, 'VALIDATION_ERROR');
      expect(res.json.error.message).toMatch(message);
      expect(res.text).not.toContain('script');
    }
  });

  it('issue 14: another Content-Type is 415 naming the accepted ones', async () => {
    const res = await post('POLYGON ((0 0, 1 0, 1 1, 0 0))', 'text/plain');
    expect(res.status).toBe(415);
    expectEnvelope(res.status, res.text, 'UNSUPPORTED_MEDIA_TYPE');
    expect(res.json.error.message).toContain('application/vnd.google-earth.kml+xml');
  });
});

describe('issue 14: scopes and per-account isolation', () => {
  it('issue 14: POST and DELETE need uploads:write, checked before the body (403 before 400)', async () => {
    const reader = await t.newAccount({ scopes: ['jobs:read', 'jobs:write'] });
    const res = await post('not even json', 'application/geo+json', reader.apiKey);
    expect(res.status).toBe(403);
    expectEnvelope(res.status, res.text, 'FORBIDDEN');
    expect(res.json.error.message).toContain('uploads:write');
    const del = await t.http('DELETE', '/api/v1/polygons/00000000-0000-4000-8000-000000000000', { key: reader.apiKey });
    expect(del.status).toBe(403);
  });

  it('issue 14: reading takes jobs:read or uploads:write; jobs:write alone is 403', async () => {
    const uploader = await t.newAccount({ scopes: ['uploads:write'] });
    const created = await post(fieldsGeoJson, 'application/geo+json', uploader.apiKey);
    expect(created.status).toBe(202);
    expect((await settled(created.json.polygon_id, uploader.apiKey)).status).toBe('ready');
    const writerOnly = await t.newAccount({ scopes: ['jobs:write'] });
    const res = await t.http('GET', '/api/v1/polygons', { key: writerOnly.apiKey });
    expect(res.status).toBe(403);
    expectEnvelope(res.status, res.text, 'FORBIDDEN');
  });

  it("issue 14: another account's upload is 404 on GET and DELETE, absent from its list, and 404 at its submissions", async () => {
    const id = await readyUpload();
    const other = await t.newAccount();
    for (const method of ['GET', 'DELETE']) {
      const res = await t.http(method, `/api/v1/polygons/${id}`, { key: other.apiKey });
      expect(res.status).toBe(404);
      expectEnvelope(res.status, res.text, 'NOT_FOUND');
    }
    expect((await t.http('GET', '/api/v1/polygons', { key: other.apiKey })).json.polygons).toEqual([]);
    const mine = (await t.http('GET', '/api/v1/polygons')).json.polygons.map((p: { polygon_id: string }) => p.polygon_id);
    expect(mine).toContain(id);
    const submit = await t.http('POST', '/api/v1/analyze/timeseries', {
      key: other.apiKey,
      body: { satellite_id: 'sentinel-1', polygon_id: id, date_start: '2023-01-01', date_end: '2023-12-31' },
    });
    expect(submit.status).toBe(404);
    // Still there for its owner.
    expect((await t.http('GET', `/api/v1/polygons/${id}`)).json.status).toBe('ready');
  });

  it('issue 14: DELETE answers 204; the upload is then 404 everywhere', async () => {
    const id = await readyUpload();
    const del = await t.http('DELETE', `/api/v1/polygons/${id}`);
    expect(del.status).toBe(204);
    expect((await t.http('GET', `/api/v1/polygons/${id}`)).status).toBe(404);
    expect((await t.http('DELETE', `/api/v1/polygons/${id}`)).status).toBe(404);
  });
});

describe('issue 14: polygon_id at submission and preview', () => {
  const period = (extra: Record<string, unknown>) => ({ satellite_id: 'sentinel-1', date_start: '2023-01-01', date_end: '2023-12-31', ...extra });

  it('issue 14: an unknown polygon_id is 404 at submission; a preview answers 200 without an estimate', async () => {
    const unknown = '11111111-2222-4333-8444-555555555555';
    const submit = await t.http('POST', '/api/v1/detect/timeseries', { body: period({ polygon_id: unknown }) });
    expect(submit.status).toBe(404);
    expectEnvelope(submit.status, submit.text, 'NOT_FOUND');
    expect(submit.json.error.message).toBe(`polygon_id: no polygon upload ${unknown}`);
    const notUuid = await t.http('POST', '/api/v1/detect/timeseries', { body: period({ polygon_id: '<b>x</b>' }) });
    expect(notUuid.status).toBe(404);
    expect(notUuid.text).not.toContain('<b>');
    const preview = await t.http('POST', '/api/v1/analyze/timeseries/preview', { body: period({ polygon_id: unknown }) });
    expect(preview.status).toBe(200);
    expect(preview.json).toMatchObject({ endpoint_id: 'timeseries', area_sqkm: null, credits: { estimated: null, balance: expect.any(Number), sufficient: null } });
    expect(preview.json.warnings.map((w: { code: string }) => w.code)).toEqual(['CREDITS_NOT_ESTIMABLE']);
  });

  it('issue 14: an upload still processing (or failed) is 409 NOT_READY at submission; a preview answers 200', async () => {
    const id = '22222222-3333-4444-8555-666666666666';
    await createUpload(t.service.db, { id, account_id: t.accountId, format: 'geojson', size_bytes: 10, original_key: `uploads/polygons/${id}/original.geojson`, created_at: isoNow() });
    const submit = await t.http('POST', '/api/v1/analyze/timeseries', { body: period({ polygon_id: id }) });
    expect(submit.status).toBe(409);
    expectEnvelope(submit.status, submit.text, 'NOT_READY');
    expect(submit.json.error.message).toContain('still being validated');
    const preview = await t.http('POST', '/api/v1/analyze/timeseries/preview', { body: period({ polygon_id: id }) });
    expect(preview.status).toBe(200);
    expect(preview.json.area_sqkm).toBeNull();

    const failed = await post(JSON.stringify({ type: 'FeatureCollection', features: [{ type: 'Feature', geometry: null, properties: {} }] }), 'application/geo+json');
    expect((await settled(failed.json.polygon_id)).status).toBe('failed');
    const onFailed = await t.http('POST', '/api/v1/analyze/timeseries', { body: period({ polygon_id: failed.json.polygon_id }) });
    expect(onFailed.status).toBe(409);
    expect(onFailed.json.error.message).toContain('failed validation');
  });

  it('issue 14: polygon and polygon_id together are 400; a period endpoint without either is 400', async () => {
    const id = await readyUpload();
    const both = await t.http('POST', '/api/v1/analyze/timeseries', { body: period({ polygon: TINY_SQUARE, polygon_id: id }) });
    expect(both.status).toBe(400);
    expect(both.json.error.message).toMatch(/mutually exclusive/);
    const neither = await t.http('POST', '/api/v1/analyze/timeseries', { body: period({}) });
    expect(neither.status).toBe(400);
    expect(neither.json.error.message).toMatch(/missing required field "polygon"/);
    const shipBoth = await t.http('POST', '/api/v1/analyze/ship', { body: { satellite_id: 'sentinel-1', polygon_id: id, scene_id: 'S1A_IW_GRDH_1SDV_20220612T173329_20220612T173354_043633_05359A_EA25' } });
    expect(shipBoth.status).toBe(400);
    expect(shipBoth.json.error.message).toMatch(/not both/);
  });

  it('issue 14: a ready upload previews like its union as polygon, and a job on it analyses the union', async () => {
    const id = await readyUpload();
    const preview = await t.http('POST', '/api/v1/analyze/timeseries/preview', { body: period({ polygon_id: id }) });
    expect(preview.status).toBe(200);
    expect(preview.json.area_sqkm).toBeGreaterThan(0);
    expect(preview.json.area_sqkm).toBeLessThanOrEqual(FIELDS_AREA + 1e-6);
    expect(preview.json.credits.estimated).toBeCloseTo(preview.json.area_sqkm * 1, 4);

    const submit = await t.http('POST', '/api/v1/analyze/timeseries', { body: period({ polygon_id: id }) });
    expect(submit.status).toBe(200);
    const job = await waitForTerminal(t.client, submit.json.job_id);
    expect(job.status).toBe('completed');
    expect(job.area_sqkm).toBeCloseTo(preview.json.area_sqkm, 4);
    // The echo detector returns the analysed extent: inside the union of the two fields.
    const result = (await (await fetch(new URL(job.result_path!, t.url), { headers: { Authorization: `Bearer ${t.apiKey}` } })).json()) as { features: { geometry: { coordinates: Ring[] } }[] };
    const ring = result.features[0]!.geometry.coordinates[0]!;
    for (const [x, y] of ring) {
      expect(x).toBeGreaterThanOrEqual(2.5 - 1e-9);
      expect(x).toBeLessThanOrEqual(2.55 + 1e-9);
      expect(y).toBeGreaterThanOrEqual(51.3 - 1e-9);
      expect(y).toBeLessThanOrEqual(51.32 + 1e-9);
    }
    const listed = (await t.client.listJobs({})).jobs.find((j) => j.job_id === submit.json.job_id)!;
    expect(listed.request_params).toMatchObject({ polygon_id: id });
    expect(geodesicAreaSqkm(parseAoiWkt(TINY_SQUARE))).toBeGreaterThan(FIELDS_AREA); // the fields are well under the 50 km² limit
  });

  it('issue 14: a detector is handed the upload’s features in upload order, properties kept', async () => {
    const id = await readyUpload();
    const submit = await t.http('POST', '/api/v1/analyze/newbuilding', { body: period({ polygon_id: id }) });
    expect(submit.status).toBe(200);
    const job = await waitForTerminal(t.client, submit.json.job_id);
    expect(job.status).toBe('completed');
    const result = (await t.client.downloadResult(submit.json.job_id)) as { features: { geometry: unknown; properties: Record<string, unknown> }[] };
    expect(result.features.map((f) => f.properties.name)).toEqual(['north', 'south']);
    expect(result.features.map((f) => f.properties.polygon_id)).toEqual([id, id]);
    expect(result.features[0]!.geometry).toEqual(polygonOf(FIELD_A));
  });

  it('issue 14: a job whose upload was deleted before it ran fails with VALIDATION_ERROR, uncharged', async () => {
    const id = await readyUpload();
    // One worker, busy with a first job (held until the upload is deleted): the second waits.
    let release!: () => void;
    holdTimeseries = new Promise<void>((r) => (release = r));
    const running = new Promise<void>((r) => (timeseriesRunning = r));
    const first = await t.http('POST', '/api/v1/analyze/timeseries', { body: period({ polygon: TINY_SQUARE }) });
    expect(first.status).toBe(200);
    await running;
    const submit = await t.http('POST', '/api/v1/analyze/timeseries', { body: period({ polygon_id: id }) });
    expect(submit.status).toBe(200);
    expect((await t.http('DELETE', `/api/v1/polygons/${id}`)).status).toBe(204);
    expect((await t.client.getJob(submit.json.job_id)).status).toBe('pending');
    holdTimeseries = null;
    release();
    expect((await waitForTerminal(t.client, first.json.job_id)).status).toBe('completed');
    const job = await waitForTerminal(t.client, submit.json.job_id);
    expect(job.status).toBe('failed');
    expect(job.error_code).toBe('VALIDATION_ERROR');
    expect(job.error_message).toBe(`polygon_id: no polygon upload ${id}`);
    const listed = (await t.client.listJobs({})).jobs.find((j) => j.job_id === submit.json.job_id)!;
    expect(listed.credits_used).toBe(0);
  });
});

describe('issue 14: SDK upload helpers', () => {
  it('issue 14: uploadPolygons, waitForPolygonUpload, listPolygonUploads, deletePolygonUpload; a failed upload throws with its reason', async () => {
    const accepted = await t.client.uploadPolygons(fieldsKml, 'kml');
    expect(accepted.status).toBe('processing');
    const ready = await t.client.waitForPolygonUpload(accepted.polygon_id, { initialDelayMs: 20, timeoutMs: 20_000 });
    expect(ready).toMatchObject({ polygon_id: accepted.polygon_id, status: 'ready', format: 'kml', feature_count: 2 });
    expect((await t.client.listPolygonUploads()).polygons.map((p) => p.polygon_id)).toContain(accepted.polygon_id);
    await t.client.deletePolygonUpload(accepted.polygon_id);
    await expect(t.client.getPolygonUpload(accepted.polygon_id)).rejects.toMatchObject({ code: 'NOT_FOUND', status: 404 });

    const zipped = shapefileZip([{ rings: [FIELD_A], name: 'a' }]);
    const fromZip = await t.client.uploadPolygons(new Uint8Array(zipped), 'shapefile');
    expect((await t.client.waitForPolygonUpload(fromZip.polygon_id, { initialDelayMs: 20, timeoutMs: 20_000 })).feature_count).toBe(1);

    const bad = await t.client.uploadPolygons(JSON.stringify({ type: 'FeatureCollection', features: [{ type: 'Feature', geometry: null, properties: {} }] }), 'geojson');
    await expect(t.client.waitForPolygonUpload(bad.polygon_id, { initialDelayMs: 20, timeoutMs: 20_000 })).rejects.toThrow('feature 1 of 1: it has no geometry');
    await expect(t.client.uploadPolygons('{', 'geojson')).rejects.toMatchObject({ code: 'VALIDATION_ERROR', status: 400 });
  });
});
