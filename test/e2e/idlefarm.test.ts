/**
 * Issue 14: a field file uploaded through the API runs as an idlefarm job whose result.zip
 * opens with fields.geojson, summary.csv, a PNG chart per field and README.txt. The season is
 * generated (src/synth/fields.ts, an OPERA-style RTC stack with ground truth) into the test
 * service's archive, so the analyze family finds its RTC scenes through the catalog; the
 * detect family runs on generated SAFE GRD products of a painted crop and bare field.
 */
import path from 'node:path';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, waitForTerminal, type TestService } from '../helpers/service.ts';
import { readFile } from 'node:fs/promises';
import { demoFarmlandSpec, writeRtcStack, type SeasonStackResult, type TruthCollection } from '../../src/synth/index.ts';
import { idleScore, seasonUpload, writeHeldOutSeason, type SeasonUploadFeature } from '../helpers/idlefarmSeason.ts';
import { unzip } from '../helpers/zip.ts';
import { createUpload } from '../../src/uploads/transitions.ts';
import { isoNow } from '../../src/time.ts';
import { geodesicAreaSqkm } from '../../src/geo/index.ts';
import { writeGrdFieldSeason, type GrdFieldSeason } from '../helpers/grdFieldSeason.ts';

let t: TestService;
let season: SeasonStackResult;
let grdSeason: GrdFieldSeason;
/** The demo archive's farmland (src/synth/rtc.ts, a generator the model was not fitted on): its field truth. */
let demoFarmFields: TruthCollection['features'];
/** The upload: the generated fields in reverse order, each with an extra property. */
let uploaded: { type: 'FeatureCollection'; features: SeasonUploadFeature[] };

beforeAll(async () => {
  t = await startTestService({}, {
    credits: 10_000,
    scenes: [],
    beforeIndex: async (archiveDir) => {
      season = await writeHeldOutSeason(path.join(archiveDir, 'season'));
      // The detect family's season: 16 generated SAFE GRD products over a crop and a bare field.
      grdSeason = await writeGrdFieldSeason(path.join(archiveDir, 'grd'));
      // The demo archive's Flevoland farmland, as `sarwatch serve` writes it (seed 20240613).
      const farm = await writeRtcStack(path.join(archiveDir, 'farmland'), demoFarmlandSpec(20240613));
      demoFarmFields = (JSON.parse(await readFile(farm.groundTruthPath, 'utf8')) as TruthCollection).features.filter((f) => f.properties.kind === 'field');
    },
  });
  uploaded = { type: 'FeatureCollection', features: seasonUpload(season) };
}, 240_000);
afterAll(() => t?.close());

const season2023 = { satellite_id: 'sentinel-1' as const, date_start: '2023-01-01', date_end: '2023-12-31' };

async function uploadFields(): Promise<{ polygonId: string; areaSqkm: number }> {
  const { polygon_id } = await t.client.uploadPolygons(JSON.stringify(uploaded), 'geojson');
  const ready = await t.client.waitForPolygonUpload(polygon_id, { initialDelayMs: 50, maxDelayMs: 200, timeoutMs: 30_000 });
  expect(ready.feature_count).toBe(uploaded.features.length);
  return { polygonId: polygon_id, areaSqkm: ready.area_sqkm! };
}

describe('issue 14: idlefarm through the API', () => {
  it('issue 14: uploaded fields → analyze/idlefarm → result.zip (302) with fields.geojson in upload order, summary.csv, PNG charts, README.txt; idle by the truth; credits = field area × price', async () => {
    const { polygonId, areaSqkm } = await uploadFields();
    const preview = await t.http('POST', '/api/v1/analyze/idlefarm/preview', { body: { ...season2023, polygon_id: polygonId } });
    expect(preview.status).toBe(200);
    expect(preview.json.credits.estimated).toBeCloseTo(areaSqkm * 1, 2);

    const { job_id } = await t.client.submit('analyze', 'idlefarm', { ...season2023, polygon_id: polygonId });
    const job = await waitForTerminal(t.client, job_id, 200_000);
    expect(job.status, job.error_message ?? '').toBe('completed');
    expect(job.endpoint_id).toBe('idlefarm');
    expect(job.result_path).toBe(`/api/v1/jobs/${job_id}/result.zip`);
    // Credits on the fields' area (every field lies inside the stack), 1 credit per km².
    expect(job.area_sqkm!).toBeCloseTo(areaSqkm, 3);
    const listed = (await t.client.listJobs({ limit: 1 })).jobs[0]!;
    expect(listed.job_id).toBe(job_id);
    expect(listed.credits_used!).toBeCloseTo(areaSqkm * 1, 2);

    const redirect = await t.http('GET', `/api/v1/jobs/${job_id}/result.zip`);
    expect(redirect.status).toBe(302);
    const download = await fetch(new URL(redirect.headers.get('location')!, t.url));
    expect(download.status).toBe(200);
    expect(download.headers.get('content-type')).toBe('application/zip');
    expect(download.headers.get('content-disposition')).toBe(`attachment; filename="idlefarm_${job_id}.zip"`);
    const members = await unzip(new Uint8Array(await download.arrayBuffer()));
    // The SDK downloads the same bytes.
    expect((await unzip(await t.client.downloadArchive(job_id))).get('summary.csv')).toEqual(members.get('summary.csv'));

    const names = [...members.keys()].sort();
    expect(names.filter((n) => !n.startsWith('charts/'))).toEqual(['README.txt', 'fields.geojson', 'series.csv', 'summary.csv']);
    expect(names.filter((n) => n.startsWith('charts/'))).toHaveLength(uploaded.features.length);
    const chart = PNG.sync.read(members.get('charts/0001.png')!);
    expect(chart.width).toBeGreaterThan(100);
    expect(members.get('README.txt')!.toString('utf8')).toContain(`Fields: ${uploaded.features.length} `);

    const out = JSON.parse(members.get('fields.geojson')!.toString('utf8')) as { features: { id: string; geometry: unknown; properties: Record<string, any> }[] };
    // Upload order, told by the uploaded properties (a feature's GeoJSON `id` member is not kept by the upload; its properties are).
    expect(out.features.map((f) => f.properties.name)).toEqual(uploaded.features.map((f) => f.properties.name));
    out.features.forEach((f, i) => {
      expect(f.geometry).toEqual(uploaded.features[i]!.geometry);
      expect(f.properties).toMatchObject({ name: uploaded.features[i]!.properties.name, parcel: uploaded.features[i]!.properties.parcel, owner: 'Rossi' });
      const truth = season.truth.find((x) => x.id === f.properties.name)!;
      // Every date of the stack was selected; a field under a no-data strip or speckled edge loses a few.
      expect(f.properties.valid_dates).toBeLessThanOrEqual(season.scenes.length);
      expect(f.properties.valid_dates).toBeGreaterThanOrEqual(season.scenes.length - 4);
      if (['maize', 'wheat', 'rice'].includes(truth.cls)) expect(f.properties.idle, truth.id).toBe(false);
      expect(f.properties.idle_probability).toBeGreaterThanOrEqual(0);
      expect(f.properties.idle_probability).toBeLessThanOrEqual(1);
      expect(f.properties.idle).toBe(f.properties.idle_probability > 0.5);
      expect(typeof f.properties.vh_amplitude_db).toBe('number');
    });
    // Fallow: most, not all, idle since cuts count as use (issue 24 §3; test/analysis/idlefarm.test.ts).
    const fallow = out.features.filter((f) => ['bare', 'grass'].includes(season.truth.find((x) => x.id === f.properties.name)!.cls));
    expect(fallow.filter((f) => f.properties.idle === true).length).toBeGreaterThanOrEqual(Math.ceil(0.8 * fallow.length));
    const score = idleScore(season, out.features);
    expect(score.tp).toBeGreaterThan(0);
    expect(score.f1).toBeGreaterThanOrEqual(0.9);
    const csv = members.get('summary.csv')!.toString('utf8').trim().split(/\r?\n/);
    expect(csv).toHaveLength(uploaded.features.length + 1);
  });

  it('issue 24 §3: the demo archive\'s farmland through the API: fallow is idle, mown meadows and winter wheat are in use, F1 ≥ 0.9', async () => {
    const upload = { type: 'FeatureCollection', features: demoFarmFields.map((f) => ({ type: 'Feature', geometry: f.geometry, properties: { name: String(f.properties.id) } })) };
    const { polygon_id } = await t.client.uploadPolygons(JSON.stringify(upload), 'geojson');
    await t.client.waitForPolygonUpload(polygon_id, { initialDelayMs: 50, maxDelayMs: 200, timeoutMs: 30_000 });
    const { job_id } = await t.client.submit('analyze', 'idlefarm', { satellite_id: 'sentinel-1', polygon_id, date_start: '2024-04-01', date_end: '2024-10-31' });
    const job = await waitForTerminal(t.client, job_id, 200_000);
    expect(job.status, job.error_message ?? '').toBe('completed');
    const out = JSON.parse((await unzip(await t.client.downloadArchive(job_id))).get('fields.geojson')!.toString('utf8')) as { features: { properties: Record<string, any> }[] };
    expect(out.features).toHaveLength(demoFarmFields.length);
    let tp = 0;
    let fp = 0;
    let fn = 0;
    const wrong: string[] = [];
    out.features.forEach((f, i) => {
      const truth = demoFarmFields[i]!.properties;
      expect(f.properties.name).toBe(String(truth.id));
      if (f.properties.idle !== truth.idle) wrong.push(`${String(truth.id)} ${String(truth.crop)}`);
      if (f.properties.idle && truth.idle) tp++;
      else if (f.properties.idle) fp++;
      else if (truth.idle) fn++;
    });
    expect(demoFarmFields.some((f) => f.properties.crop === 'grass')).toBe(true);
    expect((2 * tp) / (2 * tp + fp + fn), wrong.join(', ')).toBeGreaterThanOrEqual(0.9);
  }, 240_000);

  it('issue 14: detect/idlefarm on a GRD season: the crop field is cropped, the bare field idle, a field without imagery null with its reason; credits on the covered fields', async () => {
    const { polygon_id } = await t.client.uploadPolygons(JSON.stringify(grdSeason.fields), 'geojson');
    const ready = await t.client.waitForPolygonUpload(polygon_id, { initialDelayMs: 50, maxDelayMs: 200, timeoutMs: 30_000 });
    const { job_id } = await t.client.submit('detect', 'idlefarm', { ...season2023, polygon_id });
    const job = await waitForTerminal(t.client, job_id, 200_000);
    expect(job.status, job.error_message ?? '').toBe('completed');
    expect(job.progress).toBe(100);
    // The field outside the scenes is not charged: the charged area is below the upload's.
    expect(job.area_sqkm!).toBeLessThan(ready.area_sqkm!);
    const outsideArea = geodesicAreaSqkm(grdSeason.fields.features.find((f) => f.properties.name === 'outside')!.geometry);
    expect(job.area_sqkm!).toBeCloseTo(ready.area_sqkm! - outsideArea, 2);
    expect((await t.client.listJobs({ limit: 1 })).jobs[0]!.credits_used!).toBeCloseTo(job.area_sqkm! * 1, 2);
    const members = await unzip(await t.client.downloadArchive(job_id));
    const [crop, bare, outside] = (JSON.parse(members.get('fields.geojson')!.toString('utf8')) as { features: { properties: Record<string, any> }[] }).features.map((f) => f.properties);
    // 15 of the 16 products fall in 2023 (day 10 + 24 k; the last is 2024-01-05).
    expect(crop).toMatchObject({ name: 'crop', idle: false, valid_dates: 15 });
    expect(bare).toMatchObject({ name: 'bare', idle: true, valid_dates: 15 });
    expect(outside).toMatchObject({ name: 'outside', idle: null, idle_probability: null, idle_reason: expect.stringMatching(/valid/) });
    expect(members.get('README.txt')!.toString('utf8')).toContain('Sentinel-1 GRD');
  });

  it('issue 14: a season too short to decide any field fails NO_SCENE_FOUND, uncharged', async () => {
    const { polygonId } = await uploadFields();
    const { job_id } = await t.client.submit('analyze', 'idlefarm', { satellite_id: 'sentinel-1', polygon_id: polygonId, date_start: '2023-01-01', date_end: '2023-02-20' });
    const job = await waitForTerminal(t.client, job_id, 60_000);
    expect(job.status).toBe('failed');
    expect(job.error_code).toBe('NO_SCENE_FOUND');
    expect(job.error_message).toMatch(/needs at least 8 dates/);
    expect((await t.client.listJobs({ limit: 1 })).jobs[0]!.credits_used).toBe(0);
  });

  it('issue 14: unknown polygon_id 404 and an upload still processing 409 at submission; polygon (WKT) refused; the preview answers 200', async () => {
    const unknown = '11111111-2222-4333-8444-555555555555';
    const notFound = await t.http('POST', '/api/v1/analyze/idlefarm', { body: { ...season2023, polygon_id: unknown } });
    expect(notFound.status).toBe(404);
    expect(notFound.json.error.code).toBe('NOT_FOUND');
    const id = '22222222-3333-4444-8555-666666666666';
    await createUpload(t.service.db, { id, account_id: t.accountId, format: 'geojson', size_bytes: 10, original_key: `uploads/polygons/${id}/original.geojson`, created_at: isoNow() });
    const processing = await t.http('POST', '/api/v1/detect/idlefarm', { body: { ...season2023, polygon_id: id } });
    expect(processing.status).toBe(409);
    expect(processing.json.error.code).toBe('NOT_READY');
    for (const pid of [unknown, id]) {
      const preview = await t.http('POST', '/api/v1/analyze/idlefarm/preview', { body: { ...season2023, polygon_id: pid } });
      expect(preview.status).toBe(200);
    }
    const wkt = await t.http('POST', '/api/v1/analyze/idlefarm', { body: { ...season2023, polygon: 'POLYGON ((11.19 45.09, 11.21 45.09, 11.21 45.11, 11.19 45.09))' } });
    expect(wkt.status).toBe(400);
    expect(wkt.json.error.code).toBe('VALIDATION_ERROR');
    const long = await t.http('POST', '/api/v1/analyze/idlefarm', { body: { satellite_id: 'sentinel-1', polygon_id: unknown, date_start: '2023-01-01', date_end: '2024-06-01' } });
    expect(long.status).toBe(400);
    expect(long.json.error.message).toMatch(/1 years/);
  });

  it('issue 14: /openapi.json lists the idlefarm routes and result.zip', async () => {
    const doc = await t.http('GET', '/openapi.json', { key: null });
    expect(doc.status).toBe(200);
    for (const p of ['/api/v1/analyze/idlefarm', '/api/v1/detect/idlefarm', '/api/v1/analyze/idlefarm/preview', '/api/v1/jobs/{job_id}/result.zip']) expect(Object.keys(doc.json.paths)).toContain(p);
    const schema = doc.json.paths['/api/v1/analyze/idlefarm'].post.requestBody.content['application/json'].schema;
    expect(schema.required).toEqual(expect.arrayContaining(['polygon_id', 'date_start', 'date_end']));
    expect(schema.properties).not.toHaveProperty('polygon');
  });
});
