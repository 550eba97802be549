/**
 * Issue 23 §1 through the API: `near_shore_detection` on a ship body asks for the near-shore
 * classifier path (ShipParams.nearShore.enabled). Validated like the other fields, after
 * authentication and scope; without it a job runs with NEAR_SHORE_DETECTION_DEFAULT. On the
 * demo port scene (2024-06-13, no earlier pass, so nothing is set apart as a fixed structure)
 * the AOI around IJmuiden's piers holds a 44 m vessel 2.5 km off the coastline and the two
 * pier heads, 590–750 m from it, which the default detector reports as ships: with the field
 * the classifier judges the candidates near shore and drops both pier heads, and the vessel
 * further out is reported exactly as without it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NEAR_SHORE_DETECTION_DEFAULT } from '../../src/contract/bodies.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { expectResultRules } from '../helpers/resultRules.ts';
import { linkDemoArchive } from '../helpers/demoArchive.ts';

/** The demo port's piers and the water west of them (about 75 km²). */
const PIERS = 'POLYGON ((4.5 52.44, 4.6 52.44, 4.6 52.49, 4.5 52.49, 4.5 52.44))';
const BODY = { satellite_id: 'sentinel-1', polygon: PIERS, date: '2024-06-13' };
let t: TestService;

beforeAll(async () => {
  t = await startTestService({}, { credits: 100_000, scenes: [], beforeIndex: async (archiveDir) => void (await linkDemoArchive(archiveDir)) });
}, 240_000);
afterAll(() => t?.close());

async function run(body: object) {
  const { job_id } = await t.client.submit('detect', 'ship', { ...BODY, ...body } as never);
  const job = await t.client.wait(job_id, { initialDelayMs: 200, maxDelayMs: 1000, timeoutMs: 200_000 });
  expect(job.status).toBe('completed');
  const fc = await t.client.downloadResult(job_id);
  expectResultRules(fc);
  return { job, features: fc.features as any[] };
}

describe('near_shore_detection on ship jobs', () => {
  it('is a boolean of ship bodies: anything else is 400 with the envelope, the value never echoed; auth and scope come first', async () => {
    for (const value of ['true', 1, 0, null, {}, [], '<img src=x onerror=alert(1)>']) {
      const res = await t.http('POST', '/api/v1/detect/ship', { body: { ...BODY, near_shore_detection: value } });
      expect(res.status, JSON.stringify(value)).toBe(400);
      // The envelope, naming the field and not what was sent.
      expect(res.json).toEqual({ error: { code: 'VALIDATION_ERROR', message: 'near_shore_detection must be boolean' } });
    }
    const preview = await t.http('POST', '/api/v1/analyze/ship/preview', { body: { ...BODY, near_shore_detection: 'yes' } });
    expect(preview.status).toBe(400);
    expect(preview.json.error).toEqual({ code: 'VALIDATION_ERROR', message: 'near_shore_detection must be boolean' });
    const oil = await t.http('POST', '/api/v1/detect/oilslick', { body: { ...BODY, near_shore_detection: true } });
    expect(oil.status).toBe(400);
    expect(oil.json.error).toEqual({ code: 'VALIDATION_ERROR', message: 'near_shore_detection applies to ship jobs only, not to oilslick' });
    const period = await t.http('POST', '/api/v1/analyze/timeseries', { body: { satellite_id: 'sentinel-1', polygon: PIERS, date_start: '2024-01-01', date_end: '2024-06-30', near_shore_detection: true } });
    expect(period.status).toBe(400);
    expect(period.json.error).toEqual({ code: 'VALIDATION_ERROR', message: 'body: unknown field "near_shore_detection"' });

    const bad = { ...BODY, near_shore_detection: 'true' };
    expect((await t.http('POST', '/api/v1/detect/ship', { body: bad, key: null })).status).toBe(401);
    const reader = await t.newAccount({ scopes: ['jobs:read'] });
    const forbidden = await t.http('POST', '/api/v1/detect/ship', { body: bad, key: reader.apiKey });
    expect(forbidden.status).toBe(403);
    expect(forbidden.json.error.code).toBe('FORBIDDEN');
  });

  it('is in /openapi.json as an optional boolean whose description gives the default; a preview with it prices the same', async () => {
    const doc: any = await (await fetch(`${t.url}/openapi.json`)).json();
    const schema = doc.paths['/api/v1/detect/ship'].post.requestBody.content['application/json'].schema;
    expect(schema.properties.near_shore_detection.type).toBe('boolean');
    expect(schema.properties.near_shore_detection.description).toMatch(new RegExp(`Default ${NEAR_SHORE_DETECTION_DEFAULT}$`));
    expect(schema.required).not.toContain('near_shore_detection');
    const oilSchema = doc.paths['/api/v1/detect/oilslick'].post.requestBody.content['application/json'].schema;
    expect(oilSchema.properties.near_shore_detection).toBeDefined(); // one scene body for ship and oilslick; oilslick refuses it (above)

    const plain = await t.http('POST', '/api/v1/analyze/ship/preview', { body: BODY });
    const near = await t.http('POST', '/api/v1/analyze/ship/preview', { body: { ...BODY, near_shore_detection: true } });
    expect(plain.status).toBe(200);
    expect(near.status).toBe(200);
    expect(near.json).toEqual(plain.json);
  });

  it('on the demo port piers: the classifier drops the two pier heads the default detector reports; the vessel 2.5 km out is unchanged', async () => {
    const unset = await run({});
    const asDefault = await run({ near_shore_detection: NEAR_SHORE_DETECTION_DEFAULT });
    // Without the field a job runs as with the field at the one default.
    expect(unset.features).toEqual(asDefault.features);
    const off = NEAR_SHORE_DETECTION_DEFAULT ? await run({ near_shore_detection: false }) : asDefault;
    const on = NEAR_SHORE_DETECTION_DEFAULT ? asDefault : await run({ near_shore_detection: true });
    for (const r of [off, on]) expect(r.job.warnings.map((w: { code: string }) => w.code)).toEqual(['FIXED_STRUCTURES_NOT_SEPARATED']);

    // The default detector: the vessel, and the two pier heads (near shore, by the coastline).
    const vesselOff = off.features.filter((f) => f.properties.near_shore === false);
    const piersOff = off.features.filter((f) => f.properties.near_shore === true);
    expect(off.features).toHaveLength(3);
    expect(vesselOff.map((f) => [f.properties.length_m, f.properties.distance_to_shore_m])).toEqual([[44, 2543]]);
    expect(piersOff.map((f) => f.properties.distance_to_shore_m).sort((a, b) => a - b)).toEqual([590, 744]);

    // The near-shore path: the pier heads judged and dropped, the vessel as before, to the bit.
    expect(on.features).toEqual(vesselOff);
  }, 600_000);
});
