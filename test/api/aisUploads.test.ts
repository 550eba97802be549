/**
 * Issue 23 §4: AIS uploads (POST/GET/DELETE /api/v1/ais), with the lifecycle, limits, scopes
 * and error envelope of the polygon uploads.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.ts';
import { expectEnvelope } from '../helpers/envelope.ts';

let t: TestService;
const MAX_BYTES = 4 * 1024;
const MAX_FIXES = 6;

beforeAll(async () => {
  t = await startTestService({ SARWATCH_MAX_UPLOAD_BYTES: String(MAX_BYTES), SARWATCH_MAX_UPLOAD_FEATURES: String(MAX_FIXES) }, { credits: 100 });
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
