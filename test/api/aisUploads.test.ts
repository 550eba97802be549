/**
 * Issue 23 §4: AIS uploads (POST/GET/DELETE /api/v1/ais), with the lifecycle, limits, scopes
 * and error envelope of the polygon uploads.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import geodesic from 'geographiclib-geodesic';
import { startTestService, waitForTerminal, type TestService } from '../helpers/service.ts';
import { expectEnvelope } from '../helpers/envelope.ts';
import type { AnalysisModule } from '../../src/analysis/port.ts';
import { createRegistry } from '../../src/endpoints/analysisRegistry.ts';
import { geodesicAreaSqm } from '../../src/geo/index.ts';

const WGS84 = geodesic.Geodesic.WGS84;
/** A 40 m square ship outline at lon/lat with its length. */
function shipAt(id: number, lon: number, lat: number, length: number) {
  const d = 0.0002;
  const ring: [number, number][] = [[lon - d, lat - d], [lon + d, lat - d], [lon + d, lat + d], [lon - d, lat + d], [lon - d, lat - d]];
  const polygon = { type: 'Polygon' as const, coordinates: [ring] };
  return { type: 'Feature' as const, id, geometry: polygon, properties: { area_sqm: geodesicAreaSqm(polygon), confidence: null, length_m: length } };
}
// Two detections inside the job's polygon: S1 has AIS, S2 is dark.
const S1 = { lon: 2.52, lat: 51.32, length: 120 };
const S2 = { lon: 2.6, lat: 51.4, length: 80 };
const generatedShips: AnalysisModule = {
  endpointId: 'ship',
  async run() {
    return { result: { type: 'FeatureCollection' as const, features: [shipAt(1, S1.lon, S1.lat, S1.length), shipAt(2, S2.lon, S2.lat, S2.length)] } };
  },
};

let t: TestService;
const MAX_BYTES = 4 * 1024;
const MAX_FIXES = 6;

beforeAll(async () => {
  t = await startTestService({ SARWATCH_MAX_UPLOAD_BYTES: String(MAX_BYTES), SARWATCH_MAX_UPLOAD_FEATURES: String(MAX_FIXES) }, { credits: 1000, registry: createRegistry([generatedShips]) });
});
afterAll(() => t.close());

const CSV = ['mmsi,timestamp,lat,lon,sog,cog', '227000001,2024-06-01T10:00:00Z,51.30,2.50,10,90', '227000001,2024-06-01T10:10:00Z,51.30,2.55,10,90', '244000002,2024-06-01T10:05:00+02:00,51.35,2.60,,'].join('\n');

async function post(body: string | Buffer, contentType: string | null, key: string = t.apiKey) {
  const headers: Record<string, string> = { Authorization: `Bearer ${key}` };
  if (contentType) headers['Content-Type'] = contentType;
  const res = await fetch(`${t.url}/api/v1/ais`, { method: 'POST', headers, body });
  const text = await res.text();
  return { status: res.status, text, json: JSON.parse(text) };
}

async function settled(id: string, key = t.apiKey) {
  for (let i = 0; i < 400; i++) {
    const res = await t.http('GET', `/api/v1/ais/${id}`, { key });
    expect(res.status).toBe(200);
    if (res.json.status !== 'processing') return res.json;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('the upload stayed processing');
}

describe('issue 23 §4: AIS uploads', () => {
  it('a CSV answers 202 processing, then ready with its fix and vessel counts and time span', async () => {
    const res = await post(CSV, 'text/csv; charset=utf-8');
    expect(res.status).toBe(202);
    expect(res.json.status).toBe('processing');
    const up = await settled(res.json.ais_id);
    expect(up).toMatchObject({ status: 'ready', fix_count: 3, vessel_count: 2, time_start: '2024-06-01T08:05:00.000Z', time_end: '2024-06-01T10:10:00.000Z', error: null, size_bytes: Buffer.byteLength(CSV) });
    const list = await t.http('GET', '/api/v1/ais');
    expect(list.json.ais.map((a: { ais_id: string }) => a.ais_id)).toContain(res.json.ais_id);
  });

  it('bad CSV is 400 naming line and field, and nothing of the body comes back', async () => {
    const hostile = '<script>alert(1)</script>';
    const cases: [string, string][] = [
      [`mmsi,timestamp,lat,${hostile}`, 'line 1, column 4: unknown column'],
      ['mmsi,timestamp,lat', 'line 1: the header lacks lon'],
      [`mmsi,timestamp,lat,lon\n227000001,2024-06-01T10:00:00Z,51.3,2.5\n${hostile},2024-06-01T10:00:00Z,51.3,2.5`, 'line 3, field mmsi: must be 9 digits'],
      [`mmsi,timestamp,lat,lon\n227000001,2024-06-01 10:00:00,51.3,2.5`, 'line 2, field timestamp'],
      [`mmsi,timestamp,lat,lon\n227000001,2024-06-01T10:00:00Z,91,2.5`, 'line 2, field lat: must be a number from -90 to 90'],
      [`mmsi,timestamp,lat,lon,sog\n227000001,2024-06-01T10:00:00Z,51,2.5,${hostile}`, 'line 2, field sog: must be a number or empty'],
      [`mmsi,timestamp,lat,lon\n227000001,2024-06-01T10:00:00Z,51`, 'line 2: 3 fields where the header names 4'],
      ['mmsi,timestamp,lat,lon\n', 'the file has a header but no fixes'],
    ];
    const before = (await t.http('GET', '/api/v1/ais')).json.ais.length;
    for (const [body, message] of cases) {
      const res = await post(body, 'text/csv');
      expect(res.status, message).toBe(400);
      expectEnvelope(res.status, res.text, 'VALIDATION_ERROR');
      expect(res.json.error.message).toContain(message);
      expect(res.text).not.toContain('script');
    }
    expect((await t.http('GET', '/api/v1/ais')).json.ais.length).toBe(before);
  });

  it('limits: more than SARWATCH_MAX_UPLOAD_FEATURES fixes is 400, a body over SARWATCH_MAX_UPLOAD_BYTES 413, another Content-Type 415', async () => {
    const rows = Array.from({ length: MAX_FIXES + 1 }, (_, i) => `227000001,2024-06-01T10:0${i}:00Z,51.3,2.5`);
    const many = await post(['mmsi,timestamp,lat,lon', ...rows].join('\n'), 'text/csv');
    expect(many.status).toBe(400);
    expect(many.json.error.message).toBe(`more than ${MAX_FIXES} fixes (SARWATCH_MAX_UPLOAD_FEATURES); split the file`);
    const big = await post(CSV + '\n' + ' '.repeat(MAX_BYTES), 'text/csv');
    expect(big.status).toBe(413);
    expectEnvelope(big.status, big.text, 'PAYLOAD_TOO_LARGE');
    const json = await post(CSV, 'application/json');
    expect(json.status).toBe(415);
    expectEnvelope(json.status, json.text, 'UNSUPPORTED_MEDIA_TYPE');
    expect(json.json.error.message).toContain('text/csv');
  });

  it('scopes and accounts: POST needs uploads:write (403 before 400); another account sees 404; DELETE 204 then 404', async () => {
    const reader = await t.newAccount({ scopes: ['jobs:read', 'jobs:write'] });
    const forbidden = await post('not csv', 'text/csv', reader.apiKey);
    expect(forbidden.status).toBe(403);
    expectEnvelope(forbidden.status, forbidden.text, 'FORBIDDEN');
    const id = (await post(CSV, 'text/csv')).json.ais_id as string;
    expect((await settled(id)).status).toBe('ready');
    const other = await t.newAccount();
    for (const method of ['GET', 'DELETE']) {
      const res = await t.http(method, `/api/v1/ais/${id}`, { key: other.apiKey });
      expect(res.status).toBe(404);
      expectEnvelope(res.status, res.text, 'NOT_FOUND');
    }
    expect((await t.http('GET', '/api/v1/ais', { key: other.apiKey })).json.ais).toEqual([]);
    expect((await t.http('DELETE', `/api/v1/ais/${id}`)).status).toBe(204);
    expect((await t.http('GET', `/api/v1/ais/${id}`)).status).toBe(404);
  });
});

describe('issue 23 §4: a ship job with ais_id', () => {
  // The fixture GRD of 2022-06-12 starts at 17:33:29Z; the polygon lies inside it.
  const POLYGON = 'POLYGON ((2.45 51.25, 2.7 51.25, 2.7 51.45, 2.45 51.45, 2.45 51.25))';
  const job = (aisId: string) => ({ satellite_id: 'sentinel-1', polygon: POLYGON, date: '2022-06-12', ais_id: aisId });

  it('generated tracks: a matched vessel (mmsi, distance), a dark detection, an undetected vessel inside the area; outside and stale vessels left out', async () => {
    // 227000001 steams east at 10 kn; its fix 180 s before the image lies 926 m + 200 m west of S1.
    const start = WGS84.Direct(S1.lat, S1.lon, 270, 926 + 200);
    const rows = [
      'mmsi,timestamp,lat,lon,sog,cog,heading,length',
      `227000001,2022-06-12T17:30:29Z,${start.lat2!.toFixed(7)},${start.lon2!.toFixed(7)},10,90,90,125`,
      '227000002,2022-06-12T17:20:00Z,51.27,2.65,0,,,60', // at anchor, undetected, inside the polygon
      '227000003,2022-06-12T17:33:00Z,51.40,2.90,0,,,200', // in the scene, outside the polygon
      '227000004,2022-06-12T14:00:00Z,51.38,2.55,12,45,,90', // hours old: not placed
    ];
    // Through the SDK: uploadAis, waitForAisUpload.
    const up = await t.client.uploadAis(rows.join('\n'));
    expect(up.status).toBe('processing');
    expect(await t.client.waitForAisUpload(up.ais_id, { initialDelayMs: 25, timeoutMs: 30_000 })).toMatchObject({ status: 'ready', fix_count: 4, vessel_count: 4 });
    expect((await t.client.listAisUploads()).ais.map((a) => a.ais_id)).toContain(up.ais_id);
    const submit = await t.http('POST', '/api/v1/detect/ship', { body: job(up.ais_id) });
    expect(submit.status).toBe(200);
    const done = await waitForTerminal(t.client, submit.json.job_id);
    expect(done.status).toBe('completed');
    const result = (await t.client.downloadResult(submit.json.job_id)) as { features: { id: number; geometry: { type: string }; properties: Record<string, unknown> }[] };
    expect(result.features).toHaveLength(3);
    const [s1, s2, missed] = result.features;
    expect(s1!.properties.mmsi).toBe('227000001');
    // The detection's centre is the vertex mean of its square: within a metre of S1.
    expect(Math.abs((s1!.properties.ais_distance_m as number) - 200)).toBeLessThanOrEqual(2);
    expect(s1!.properties.dark).toBeUndefined();
    expect(s2!.properties).toMatchObject({ dark: true, length_m: 80 });
    expect(s2!.properties.mmsi).toBeUndefined();
    expect(missed!.id).toBe(3);
    expect(missed!.geometry.type).toBe('Polygon');
    expect(missed!.properties).toMatchObject({ detected: false, mmsi: '227000002', length_m: 60, ais_lon: 2.65, ais_lat: 51.27, ais_position: 'reported', ais_fix_age_s: 809, confidence: null });
  });

  it("ais_id is validated: ship only, not with tif_id, unknown, another account's or not a UUID is 404 without echoing it", async () => {
    const id = (await post(CSV, 'text/csv')).json.ais_id as string;
    expect((await settled(id)).status).toBe('ready');
    const oil = await t.http('POST', '/api/v1/detect/oilslick', { body: { satellite_id: 'sentinel-1', polygon: 'POLYGON ((2.45 51.25, 2.7 51.25, 2.7 51.45, 2.45 51.45, 2.45 51.25))', date: '2022-06-12', ais_id: id } });
    expect(oil.status).toBe(400);
    expectEnvelope(oil.status, oil.text, 'VALIDATION_ERROR');
    expect(oil.json.error.message).toBe('ais_id applies to ship jobs only, not to oilslick');
    const withTif = await t.http('POST', '/api/v1/detect/ship', { body: { satellite_id: 'sentinel-1', tif_id: '00000000-0000-4000-8000-000000000000', ais_id: id } });
    expect(withTif.status).toBe(400);
    expect(withTif.json.error.message).toContain('ais_id cannot be given with tif_id');
    const unknown = await t.http('POST', '/api/v1/detect/ship', { body: job('00000000-0000-4000-8000-000000000000') });
    expect(unknown.status).toBe(404);
    expectEnvelope(unknown.status, unknown.text, 'NOT_FOUND');
    expect(unknown.json.error.message).toBe('ais_id: no AIS upload 00000000-0000-4000-8000-000000000000');
    const other = await t.newAccount();
    const theirs = await t.http('POST', '/api/v1/detect/ship', { key: other.apiKey, body: job(id) });
    expect(theirs.status).toBe(404);
    const garbage = await t.http('POST', '/api/v1/detect/ship', { body: job('<script>') });
    expect(garbage.status).toBe(404);
    expect(garbage.text).not.toContain('script');
    // A preview checks the field's rules, not the upload (submission only): its estimate stands.
    const preview = await t.http('POST', '/api/v1/analyze/ship/preview', { body: job('00000000-0000-4000-8000-000000000000') });
    expect(preview.status).toBe(200);
    expect(preview.json.area_sqkm).toBeGreaterThan(0);
    expect((await t.http('POST', '/api/v1/analyze/oilslick/preview', { body: job(id) })).status).toBe(400);
  });
});
