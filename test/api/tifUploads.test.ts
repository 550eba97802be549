/**
 * Issue 14, image uploads: POST/GET/DELETE /api/v1/tifs with generated σ0 GeoTIFFs and a
 * generated SAFE zip. Runs on SQLite, and on PostgreSQL with SARWATCH_TEST_STORE=postgres
 * (startTestService).
 */
import fs from 'node:fs';
import path from 'node:path';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, tempDataDir, waitForTerminal, type TestService } from '../helpers/service.ts';
import { expectEnvelope } from '../helpers/envelope.ts';
import { zip, zipFolder } from '../helpers/zip.ts';
import { rawRequest } from '../helpers/rawHttp.ts';
import { writeTiff } from '../../src/synth/tiff.ts';
import { writeSafeGrd } from '../../src/synth/safe.ts';
import { mulberry32 } from '../../src/prng.ts';
import { centroidLonLat, geodesicAreaSqm, intersectAoi, unionAoi, type Polygon } from '../../src/geo/index.ts';
import { readSigma0, writeGcpSigma0 } from '../imagery/sigma0Fixtures.ts';
import { createTifUpload } from '../../src/uploads/transitions.ts';
import { isoNow } from '../../src/time.ts';

const MAX_BYTES = 4 * 1024 * 1024;
// A north-up EPSG:4326 σ0 GeoTIFF: 200 × 150 pixels of 0.0002°, upper-left corner at (3.4, 54.1).
const W = 200;
const H = 150;
const STEP = 0.0002;
const WEST = 3.4;
const NORTH = 54.1;

let t: TestService;
let dir: string;
let sigma0Tif: Buffer;
let safeZip: Buffer;
let safeCenter: [number, number];

async function sigma0GeoTiff(file: string, opts: { georeferenced?: boolean; descriptions?: string[] } = {}): Promise<Buffer> {
  const data = new Float32Array(W * H * 2);
  for (let i = 0; i < W * H; i++) {
    data[2 * i] = 0.02 + 0.001 * ((i * 7) % 5); // VV
    data[2 * i + 1] = 0.004; // VH
  }
  await writeTiff(
    file,
    {
      width: W,
      height: H,
      bands: 2,
      sampleType: 'float32',
      ...(opts.georeferenced === false ? {} : { georeference: { type: 'epsg' as const, epsg: 4326, originX: WEST, originY: NORTH, pixelWidth: STEP, pixelHeight: STEP } }),
      gdalMetadata: { bands: (opts.descriptions ?? ['Sigma0_VV', 'Sigma0_VH']).map((description) => ({ description })) },
    },
    data,
  );
  return fs.readFileSync(file);
}

// A sea of 4-look speckle (VV −17 dB, VH −24 dB) 400 × 300 pixels of 0.0002° with one ship:
// 6 × 3 bright pixels (VV +3 dB, VH −3 dB) centred on SHIP.
const SEA = { width: 400, height: 300 };
const SHIP_PX = { col: 250, row: 140 };
const SHIP: [number, number] = [WEST + (SHIP_PX.col + 0.5) * STEP, NORTH - (SHIP_PX.row + 0.5) * STEP];

async function seaWithShipGeoTiff(file: string): Promise<Buffer> {
  const { width, height } = SEA;
  const random = mulberry32(14);
  const look4 = (mean: number) => (mean / 4) * -(Math.log(1 - random()) + Math.log(1 - random()) + Math.log(1 - random()) + Math.log(1 - random()));
  const data = new Float32Array(width * height * 2);
  for (let row = 0; row < height; row++) {
    for (let col = 0; col < width; col++) {
      const i = row * width + col;
      const ship = Math.abs(col - SHIP_PX.col) <= 3 && row >= SHIP_PX.row - 1 && row <= SHIP_PX.row + 1;
      data[2 * i] = ship ? 2 : look4(0.02);
      data[2 * i + 1] = ship ? 0.5 : look4(0.004);
    }
  }
  await writeTiff(
    file,
    {
      width,
      height,
      bands: 2,
      sampleType: 'float32',
      georeference: { type: 'epsg' as const, epsg: 4326, originX: WEST, originY: NORTH, pixelWidth: STEP, pixelHeight: STEP },
      gdalMetadata: { bands: [{ description: 'Sigma0_VV' }, { description: 'Sigma0_VH' }] },
    },
    data,
  );
  return fs.readFileSync(file);
}

/** Metres between two lon/lat points (equirectangular: exact enough over a few km). */
function metresBetween(a: [number, number], b: [number, number]): number {
  const kx = 111_320 * Math.cos((((a[1] + b[1]) / 2) * Math.PI) / 180);
  return Math.hypot((a[0] - b[0]) * kx, (a[1] - b[1]) * 110_574);
}

beforeAll(async () => {
  dir = tempDataDir();
  sigma0Tif = await sigma0GeoTiff(path.join(dir, 'sigma0.tif'));
  safeCenter = [3.9, 52.3];
  const safe = await writeSafeGrd(path.join(dir, 'safe'), { seed: 3, start: '2024-06-13T17:33:40Z', center: safeCenter, width: 500, height: 400, pols: ['VV', 'VH'], wind: { speed: 7, directionDeg: 200 } });
  safeZip = zipFolder(safe.productPath, path.basename(safe.productPath), () => 'store');
  // The tests poll uploads every 25 ms and jobs every ≤ 200 ms; on a loaded machine, where an
  // upload or a job takes a few times longer, that alone passed the default 300 requests a
  // minute and later tests got 429s. Rate limits are tested elsewhere (test/api/jobs.test.ts).
  t = await startTestService({ SARWATCH_MAX_TIF_UPLOAD_BYTES: String(MAX_BYTES), SARWATCH_RATE_LIMIT_PER_MINUTE: '100000' });
}, 120_000);
afterAll(async () => {
  await t?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function post(body: Buffer | ReadableStream, contentType: string | null, key: string = t.apiKey) {
  const headers: Record<string, string> = { Authorization: `Bearer ${key}` };
  if (contentType) headers['Content-Type'] = contentType;
  const init: RequestInit & { duplex?: 'half' } = { method: 'POST', headers, body };
  if (body instanceof ReadableStream) init.duplex = 'half';
  const res = await fetch(`${t.url}/api/v1/tifs`, init);
  const text = await res.text();
  return { status: res.status, text, json: JSON.parse(text) };
}

async function settled(tifId: string, key = t.apiKey) {
  for (let i = 0; i < 800; i++) {
    const res = await t.http('GET', `/api/v1/tifs/${tifId}`, { key });
    expect(res.status).toBe(200);
    if (res.json.status !== 'processing') return res.json;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('the upload stayed processing');
}

describe('issue 14: image uploads', () => {
  it('issue 14: a σ0 GeoTIFF answers 202 {tif_id, status: processing}, then is ready with its polarisations, size and footprint', async () => {
    const res = await post(sigma0Tif, 'image/tiff');
    expect(res.status).toBe(202);
    expect(Object.keys(res.json).sort()).toEqual(['status', 'tif_id']);
    expect(res.json.status).toBe('processing');
    const tif = await settled(res.json.tif_id);
    expect(tif).toMatchObject({ tif_id: res.json.tif_id, status: 'ready', kind: 'geotiff', size_bytes: sigma0Tif.length, polarisations: ['VV', 'VH'], width: W, height: H, error: null });
    // The footprint is the image's extent (pixel centres of the border at most half a pixel in).
    const [west, south, east, north] = tif.bbox;
    expect(west).toBeCloseTo(WEST, 3);
    expect(east).toBeCloseTo(WEST + W * STEP, 3);
    expect(north).toBeCloseTo(NORTH, 3);
    expect(south).toBeCloseTo(NORTH - H * STEP, 3);
    expect(tif.footprint.type).toBe('Polygon');
    expect(Date.parse(tif.created_at)).toBeGreaterThan(Date.now() - 120_000);
  });

  it('issue 14: a zipped SAFE GRD product is ready with its polarisations and a footprint around its centre', async () => {
    const res = await post(safeZip, 'application/zip');
    expect(res.status).toBe(202);
    const tif = await settled(res.json.tif_id);
    expect(tif).toMatchObject({ status: 'ready', kind: 'safe', size_bytes: safeZip.length, polarisations: ['VV', 'VH'], width: 500, height: 400, error: null });
    const [west, south, east, north] = tif.bbox;
    expect(west).toBeLessThan(safeCenter[0]);
    expect(east).toBeGreaterThan(safeCenter[0]);
    expect(south).toBeLessThan(safeCenter[1]);
    expect(north).toBeGreaterThan(safeCenter[1]);
  });

  it('issue 14: the SDK uploads an image and waits for it; a failed one throws with the reason', async () => {
    const { tif_id } = await t.client.uploadTif(sigma0Tif, 'geotiff');
    expect(await t.client.waitForTifUpload(tif_id, { initialDelayMs: 25 })).toMatchObject({ tif_id, status: 'ready', polarisations: ['VV', 'VH'] });
    expect((await t.client.listTifUploads()).tifs.some((x) => x.tif_id === tif_id)).toBe(true);
    const plain = await sigma0GeoTiff(path.join(dir, 'plain-sdk.tif'), { georeferenced: false });
    const failed = await t.client.uploadTif(plain, 'geotiff');
    await expect(t.client.waitForTifUpload(failed.tif_id, { initialDelayMs: 25 })).rejects.toThrow(/no georeference/);
    await t.client.deleteTifUpload(tif_id);
    await expect(t.client.getTifUpload(tif_id)).rejects.toMatchObject({ status: 404 });
  });

  it('issue 14: a body streamed without Content-Length is stored whole', async () => {
    const chunks = [sigma0Tif.subarray(0, 1000), sigma0Tif.subarray(1000)];
    const body = new ReadableStream({ pull(c) { const next = chunks.shift(); if (next) c.enqueue(next); else c.close(); } });
    const res = await post(body, 'image/tiff');
    expect(res.status).toBe(202);
    expect(await settled(res.json.tif_id)).toMatchObject({ status: 'ready', size_bytes: sigma0Tif.length });
  });

  it('issue 14: list, then DELETE: 204, then 404, and gone from the list', async () => {
    const res = await post(sigma0Tif, 'image/tiff');
    await settled(res.json.tif_id);
    const list = await t.http('GET', '/api/v1/tifs');
    expect(list.status).toBe(200);
    expect(list.json.tifs.map((x: { tif_id: string }) => x.tif_id)).toContain(res.json.tif_id);
    expect((await t.http('DELETE', `/api/v1/tifs/${res.json.tif_id}`)).status).toBe(204);
    const gone = await t.http('GET', `/api/v1/tifs/${res.json.tif_id}`);
    expectEnvelope(404, gone.text, 'NOT_FOUND');
    expect((await t.http('GET', '/api/v1/tifs')).json.tifs.map((x: { tif_id: string }) => x.tif_id)).not.toContain(res.json.tif_id);
    expectEnvelope(404, (await t.http('DELETE', `/api/v1/tifs/${res.json.tif_id}`)).text, 'NOT_FOUND');
  });
});

describe('issue 14: invalid images', () => {
  it('issue 14: a body that is not a TIFF is 400 at once, nothing stored', async () => {
    const before = (await t.http('GET', '/api/v1/tifs')).json.tifs.length;
    const res = await post(Buffer.from('<html>not a tiff</html>'), 'image/tiff');
    expectEnvelope(400, res.text, 'VALIDATION_ERROR');
    expect(res.json.error.message).not.toContain('html');
    expect((await t.http('GET', '/api/v1/tifs')).json.tifs.length).toBe(before);
  });

  it('issue 14: a zip that is not a SAFE product, and a TIFF header over garbage, end failed with a reason', async () => {
    const notSafe = await post(zip([['fields/readme.txt', Buffer.from('<script>x</script>')]], { store: true }), 'application/zip');
    expect(notSafe.status).toBe(202);
    const a = await settled(notSafe.json.tif_id);
    expect(a).toMatchObject({ status: 'failed', kind: 'safe', polarisations: null, footprint: null, bbox: null });
    expect(a.error).toMatch(/not a Sentinel-1 SAFE product/);
    expect(a.error).not.toContain('script');

    const garbage = Buffer.concat([Buffer.from([0x49, 0x49, 42, 0]), Buffer.alloc(2000, 0xff)]);
    const b = await settled((await post(garbage, 'image/tiff')).json.tif_id);
    // The reader finds no image directory it can use: no georeference is what it reports.
    expect(b).toMatchObject({ status: 'failed', kind: 'geotiff', polarisations: null });
    expect(b.error).toMatch(/GeoTIFF|TIFF/);
  });

  it('issue 14: a TIFF without georeference ends failed: it needs a CRS or GCPs', async () => {
    const body = await sigma0GeoTiff(path.join(dir, 'plain.tif'), { georeferenced: false });
    const tif = await settled((await post(body, 'image/tiff')).json.tif_id);
    expect(tif.status).toBe('failed');
    expect(tif.error).toMatch(/no georeference.*CRS.*ground control points/);
  });

  it('issue 14: a GeoTIFF without a σ0 band of a polarisation ends failed, the band names not echoed', async () => {
    const body = await sigma0GeoTiff(path.join(dir, 'gamma.tif'), { descriptions: ['<b>gamma0_VV</b>', 'amplitude_VH'] });
    const tif = await settled((await post(body, 'image/tiff')).json.tif_id);
    expect(tif.status).toBe('failed');
    expect(tif.error).toMatch(/no band .*σ0 of a polarisation/);
    expect(tif.error).not.toContain('<b>');
    expect(tif.error).not.toContain('amplitude');
  });

  it('issue 14: over SARWATCH_MAX_TIF_UPLOAD_BYTES is 413, by Content-Length and when streamed without one', async () => {
    const big = Buffer.concat([sigma0Tif, Buffer.alloc(MAX_BYTES)]);
    const declared = await post(big, 'image/tiff');
    expectEnvelope(413, declared.text, 'PAYLOAD_TOO_LARGE');
    const chunks = Array.from({ length: 10 }, (_, i) => big.subarray(i * (big.length / 10), (i + 1) * (big.length / 10)));
    const body = new ReadableStream({ pull(c) { const next = chunks.shift(); if (next) c.enqueue(next); else c.close(); } });
    const streamed = await post(body, 'image/tiff');
    expectEnvelope(413, streamed.text, 'PAYLOAD_TOO_LARGE');
    expect(streamed.json.error.message).toContain('SARWATCH_MAX_TIF_UPLOAD_BYTES');
  });

  it('issue 14: another Content-Type is 415', async () => {
    expectEnvelope(415, (await post(sigma0Tif, 'application/octet-stream')).text, 'UNSUPPORTED_MEDIA_TYPE');
  });
});

describe('issue 14: image upload permissions and isolation', () => {
  it('issue 14: POST and DELETE need uploads:write, checked before the body (403 before 413)', async () => {
    const reader = await t.newAccount({ scopes: ['jobs:read'] });
    // Content-Length past the limit, the body not sent: the answer comes before it is read.
    const host = new URL(t.url).host;
    const raw = await rawRequest(
      t.url,
      `POST /api/v1/tifs HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${reader.apiKey}\r\nContent-Type: image/tiff\r\nContent-Length: ${2 * MAX_BYTES}\r\nConnection: close\r\n\r\nII*\0`,
      { untilResponse: true },
    );
    expectEnvelope(403, raw.body, 'FORBIDDEN');
    const allowed = await rawRequest(
      t.url,
      `POST /api/v1/tifs HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${t.apiKey}\r\nContent-Type: image/tiff\r\nContent-Length: ${2 * MAX_BYTES}\r\nConnection: close\r\n\r\nII*\0`,
      { untilResponse: true },
    );
    expectEnvelope(413, allowed.body, 'PAYLOAD_TOO_LARGE');
    expectEnvelope(403, (await post(Buffer.from('x'), 'text/plain', reader.apiKey)).text, 'FORBIDDEN');
    const mine = await post(sigma0Tif, 'image/tiff');
    expectEnvelope(403, (await t.http('DELETE', `/api/v1/tifs/${mine.json.tif_id}`, { key: reader.apiKey })).text, 'FORBIDDEN');
  });

  it("issue 14: another account's tif_id is 404 on GET and DELETE, and absent from its list", async () => {
    const mine = await post(sigma0Tif, 'image/tiff');
    await settled(mine.json.tif_id);
    const other = await t.newAccount();
    expectEnvelope(404, (await t.http('GET', `/api/v1/tifs/${mine.json.tif_id}`, { key: other.apiKey })).text, 'NOT_FOUND');
    expectEnvelope(404, (await t.http('DELETE', `/api/v1/tifs/${mine.json.tif_id}`, { key: other.apiKey })).text, 'NOT_FOUND');
    expect((await t.http('GET', '/api/v1/tifs', { key: other.apiKey })).json.tifs).toEqual([]);
    expect((await t.http('GET', `/api/v1/tifs/${mine.json.tif_id}`)).json.status).toBe('ready');
  });

  it('issue 14: an id that is not a UUID is 404 without echoing it', async () => {
    const res = await t.http('GET', `/api/v1/tifs/${encodeURIComponent('<img src=x>')}`);
    expectEnvelope(404, res.text, 'NOT_FOUND');
    expect(res.text).not.toContain('<img');
  });
});

describe('issue 14: tif_id on ship and oilslick jobs', () => {
  const onImage = (extra: Record<string, unknown>) => ({ satellite_id: 'sentinel-1', ...extra });

  it('issue 14: a ship job on an uploaded σ0 GeoTIFF completes and finds the generated ship where it was put', async () => {
    const tif = await post(await seaWithShipGeoTiff(path.join(dir, 'sea-ship.tif')), 'image/tiff');
    expect((await settled(tif.json.tif_id)).status).toBe('ready');
    const submit = await t.http('POST', '/api/v1/analyze/ship', { body: onImage({ tif_id: tif.json.tif_id }) });
    expect(submit.status).toBe(200);
    const job = await waitForTerminal(t.client, submit.json.job_id, 60_000);
    expect(job).toMatchObject({ status: 'completed', error_code: null, scene_selection: null });
    // A GeoTIFF has no SAFE annotation: the job says the ambiguity step did not run; and an
    // uploaded image has no track in the catalog, so fixed structures could not be told apart.
    expect(job.warnings.map((w: { code: string }) => w.code)).toEqual(['AZIMUTH_AMBIGUITY_NOT_SUPPRESSED', 'FIXED_STRUCTURES_NOT_SEPARATED']);
    expect(job.warnings[0].message).toContain('azimuth-ambiguity suppression was skipped');
    expect(job.warnings[1].message).toMatch(/^\d+ of \d+ detections have no earlier acquisition of the same track/);
    // The AOI is the image's footprint: ≈ 0.08° × 0.06° at 54° N.
    expect(job.area_sqkm).toBeGreaterThan(30);
    expect(job.area_sqkm).toBeLessThan(40);
    const result: any = await (await fetch(new URL((await t.http('GET', `/api/v1/jobs/${submit.json.job_id}/result.geojson`)).headers.get('location')!, t.url))).json();
    expect(result.features.length).toBeGreaterThanOrEqual(1);
    const distances = result.features.map((f: { geometry: any }) => {
      const c = centroidLonLat(f.geometry);
      return metresBetween([c.lon, c.lat], SHIP);
    });
    expect(Math.min(...distances)).toBeLessThan(60);
    // Nothing is invented in the speckle around it.
    expect(distances.filter((d: number) => d > 200)).toEqual([]);
    // Issue 22 §1: the quicklook of an uploaded GeoTIFF (read a line at a time through its block cache) draws the ship where it was put.
    const png = PNG.sync.read(Buffer.from(await t.client.downloadQuicklook(submit.json.job_id)));
    const [west, south, east, north] = job.overlay!.bounds;
    const my = (phi: number) => Math.log(Math.tan(Math.PI / 4 + (phi * Math.PI) / 360));
    const sx = ((SHIP[0] - west) / (east - west)) * png.width;
    const sy = ((my(north) - my(SHIP[1])) / (my(north) - my(south))) * png.height;
    let drawn = 0;
    for (let y = Math.max(0, Math.floor(sy - 10)); y <= Math.min(png.height - 1, sy + 10); y++) {
      for (let x = Math.max(0, Math.floor(sx - 10)); x <= Math.min(png.width - 1, sx + 10); x++) {
        const i = 4 * (y * png.width + x);
        if (png.data[i] === 255 && png.data[i + 1] === 40 && png.data[i + 2] === 40) drawn++;
      }
    }
    expect(drawn).toBeGreaterThan(10);
  }, 90_000);

  it('issue 14: a ship job on an uploaded SAFE zip runs the ambiguity step: no warning', async () => {
    const tif = await post(safeZip, 'application/zip');
    expect((await settled(tif.json.tif_id)).status).toBe('ready');
    const submit = await t.http('POST', '/api/v1/analyze/ship', { body: onImage({ tif_id: tif.json.tif_id }) });
    expect(submit.status).toBe(200);
    const job = await waitForTerminal(t.client, submit.json.job_id, 60_000);
    expect(job).toMatchObject({ status: 'completed', error_code: null, warnings: [] });
  }, 90_000);

  it('issue 14: an oilslick job on an uploaded σ0 GeoTIFF (no incidence band) finds the generated slick, with oil_probability, and warns INCIDENCE_ANGLE_ASSUMED', async () => {
    // A generated SAFE with one slick, written as a linear σ0 GeoTIFF with GCPs (VV only): ≈ 2.9 MB.
    const center: [number, number] = [3.5, 54.0];
    const km = (dx: number, dy: number): [number, number] => [center[0] + dx / (111.32 * Math.cos((center[1] * Math.PI) / 180)), center[1] + dy / 110.57];
    const written = await writeSafeGrd(path.join(dir, 'slick'), {
      seed: 7,
      start: '2024-05-01T17:30:00',
      center,
      width: 900,
      height: 800,
      pols: ['VV'],
      wind: { speed: 6, directionDeg: 200 },
      slicks: [{ id: 'slick', path: [km(-3, -1.5), km(3, 1.5)], widthM: [150, 400] }],
    });
    const truth = (JSON.parse(fs.readFileSync(written.groundTruthPath, 'utf8')) as { features: { geometry: Polygon; properties: { id: string } }[] }).features.find((f) => f.properties.id === 'slick')!.geometry;
    const src = await readSigma0(written.productPath, ['VV']);
    const file = path.join(dir, 'slick.tif');
    await writeGcpSigma0(src, file);
    await src.product.close();
    const tif = await post(fs.readFileSync(file), 'image/tiff');
    expect((await settled(tif.json.tif_id)).status).toBe('ready');
    const submit = await t.http('POST', '/api/v1/analyze/oilslick', { body: onImage({ tif_id: tif.json.tif_id }) });
    expect(submit.status).toBe(200);
    const job = await waitForTerminal(t.client, submit.json.job_id, 60_000);
    expect(job).toMatchObject({ status: 'completed', error_code: null, scene_selection: null });
    expect(job.warnings.map((w: { code: string }) => w.code)).toEqual(['INCIDENCE_ANGLE_ASSUMED']);
    expect(job.warnings[0].message).toContain('assumed 38°');
    const result: any = await (await fetch(new URL((await t.http('GET', `/api/v1/jobs/${submit.json.job_id}/result.geojson`)).headers.get('location')!, t.url))).json();
    // One slick, where it was put (IoU with the truth measured 0.96), with the model's probability (measured 0.998).
    expect(result.features).toHaveLength(1);
    const found = result.features[0];
    const overlap = intersectAoi(found.geometry, truth);
    expect(overlap).not.toBeNull();
    expect(geodesicAreaSqm(overlap!) / geodesicAreaSqm(unionAoi([found.geometry, truth])!)).toBeGreaterThanOrEqual(0.9);
    expect(found.properties.oil_probability).toBeGreaterThan(0.5);
    expect(found.properties.oil_probability).toBeLessThanOrEqual(1);
  }, 120_000);

  it('issue 14: an unknown or another account\'s tif_id is 404 at submission; a preview answers 200 without an estimate', async () => {
    const unknown = '33333333-4444-4555-8666-777777777777';
    const submit = await t.http('POST', '/api/v1/analyze/ship', { body: onImage({ tif_id: unknown }) });
    expectEnvelope(submit.status, submit.text, 'NOT_FOUND');
    expect(submit.status).toBe(404);
    expect(submit.json.error.message).toBe(`tif_id: no image upload ${unknown}`);
    const mine = await post(sigma0Tif, 'image/tiff');
    await settled(mine.json.tif_id);
    const other = await t.newAccount();
    expect((await t.http('POST', '/api/v1/analyze/oilslick', { key: other.apiKey, body: onImage({ tif_id: mine.json.tif_id }) })).status).toBe(404);
    const notUuid = await t.http('POST', '/api/v1/analyze/ship', { body: onImage({ tif_id: '<b>x</b>' }) });
    expect(notUuid.status).toBe(404);
    expect(notUuid.text).not.toContain('<b>');
    const preview = await t.http('POST', '/api/v1/analyze/ship/preview', { body: onImage({ tif_id: unknown }) });
    expect(preview.status).toBe(200);
    expect(preview.json).toMatchObject({ endpoint_id: 'ship', area_sqkm: null, credits: { estimated: null, sufficient: null } });
    expect(preview.json.warnings.map((w: { code: string }) => w.code)).toEqual(['CREDITS_NOT_ESTIMABLE']);
  });

  it('issue 14: a tif_id still processing or failed is 409 NOT_READY at submission; a preview answers 200', async () => {
    const id = '44444444-5555-4666-8777-888888888888';
    await createTifUpload(t.service.db, { id, account_id: t.accountId, kind: 'geotiff', size_bytes: 10, original_key: `uploads/tifs/${id}/original.tif`, created_at: isoNow() });
    const processing = await t.http('POST', '/api/v1/analyze/ship', { body: onImage({ tif_id: id }) });
    expect(processing.status).toBe(409);
    expectEnvelope(processing.status, processing.text, 'NOT_READY');
    expect(processing.json.error.message).toContain('still being validated');
    expect((await t.http('POST', '/api/v1/analyze/ship/preview', { body: onImage({ tif_id: id }) })).status).toBe(200);
    const failed = await post(await sigma0GeoTiff(path.join(dir, 'plain-job.tif'), { georeferenced: false }), 'image/tiff');
    expect((await settled(failed.json.tif_id)).status).toBe('failed');
    const onFailed = await t.http('POST', '/api/v1/analyze/oilslick', { body: onImage({ tif_id: failed.json.tif_id }) });
    expect(onFailed.status).toBe(409);
    expect(onFailed.json.error.message).toContain('failed validation');
  });

  it('issue 14: a preview on a ready tif_id estimates the footprint (or the polygon within it)', async () => {
    const tif = await post(sigma0Tif, 'image/tiff');
    await settled(tif.json.tif_id);
    const whole = await t.http('POST', '/api/v1/analyze/ship/preview', { body: onImage({ tif_id: tif.json.tif_id }) });
    expect(whole.status).toBe(200);
    // 200 × 150 pixels of 0.0002° at 54° N: 0.04° × 0.03° ≈ 2.62 km × 3.34 km.
    expect(whole.json.area_sqkm).toBeGreaterThan(8.4);
    expect(whole.json.area_sqkm).toBeLessThan(9.1);
    expect(whole.json.credits.estimated).toBeGreaterThan(0);
    expect(whole.json.coverage).toMatchObject({ method: 'estimated', ratio: 1 });
    // A polygon half over the image: half of it is analysed.
    const half = `POLYGON ((${WEST + 0.02} ${NORTH - 0.03}, ${WEST + 0.06} ${NORTH - 0.03}, ${WEST + 0.06} ${NORTH}, ${WEST + 0.02} ${NORTH}, ${WEST + 0.02} ${NORTH - 0.03}))`;
    const part = await t.http('POST', '/api/v1/analyze/ship/preview', { body: onImage({ tif_id: tif.json.tif_id, polygon: half }) });
    expect(part.status).toBe(200);
    expect(part.json.coverage.ratio).toBe(0.5);
    expect(part.json.warnings.map((w: { code: string }) => w.code)).toEqual(['LOW_AOI_COVERAGE']);
    expect(part.json.area_sqkm).toBeCloseTo(whole.json.area_sqkm / 2, 1);
    // The same half as a ring of 4,000 vertices (WKT over 32 KiB): clipped on the geometry
    // thread (issue 10 item 1), with the same answer.
    const corners: Array<[number, number]> = [[WEST + 0.02, NORTH - 0.03], [WEST + 0.06, NORTH - 0.03], [WEST + 0.06, NORTH], [WEST + 0.02, NORTH]];
    const ring: string[] = [];
    for (let c = 0; c < 4; c++) {
      const [x0, y0] = corners[c]!;
      const [x1, y1] = corners[(c + 1) % 4]!;
      for (let i = 0; i < 1000; i++) ring.push(`${(x0 + ((x1 - x0) * i) / 1000).toFixed(7)} ${(y0 + ((y1 - y0) * i) / 1000).toFixed(7)}`);
    }
    const dense = `POLYGON ((${[...ring, ring[0]].join(', ')}))`;
    expect(dense.length).toBeGreaterThan(32_768);
    const densePart = await t.http('POST', '/api/v1/analyze/ship/preview', { body: onImage({ tif_id: tif.json.tif_id, polygon: dense }) });
    expect(densePart.status).toBe(200);
    expect(densePart.json.coverage.ratio).toBeCloseTo(0.5, 1); // ratios are given to 2 decimals; the dense ring follows parallels, the 5-vertex one geodesics
    expect(densePart.json.area_sqkm).toBeCloseTo(part.json.area_sqkm, 1);
  });

  it('issue 14: tif_id with scene_id, or with date, is 400', async () => {
    const tifId = '55555555-6666-4777-8888-999999999999';
    const withScene = await t.http('POST', '/api/v1/analyze/ship', { body: onImage({ tif_id: tifId, scene_id: 'S1A_IW_GRDH_1SDV_20220612T173329_20220612T173354_043633_05359A_EA25' }) });
    expectEnvelope(withScene.status, withScene.text, 'VALIDATION_ERROR');
    expect(withScene.status).toBe(400);
    expect(withScene.json.error.message).toContain('scene_id');
    const withDate = await t.http('POST', '/api/v1/analyze/oilslick', { body: onImage({ tif_id: tifId, date: '2024-06-01' }) });
    expect(withDate.status).toBe(400);
    expect(withDate.json.error.message).toContain('date');
  });
});

describe('issue 14: image uploads in the OpenAPI document', () => {
  it('issue 14: /api/v1/tifs documents POST (image/tiff, application/zip), list, GET and DELETE', async () => {
    const doc: any = await (await fetch(`${t.url}/openapi.json`)).json();
    expect(Object.keys(doc.paths['/api/v1/tifs']).sort()).toEqual(['get', 'post']);
    expect(Object.keys(doc.paths['/api/v1/tifs'].post.requestBody.content).sort()).toEqual(['application/zip', 'image/tiff']);
    expect(Object.keys(doc.paths['/api/v1/tifs'].post.responses).sort()).toEqual(['202', '400', '401', '403', '413', '415', '429', '500', '503']);
    expect(Object.keys(doc.paths['/api/v1/tifs/{tif_id}']).sort()).toEqual(['delete', 'get']);
    const view = doc.paths['/api/v1/tifs/{tif_id}'].get.responses['200'].content['application/json'].schema;
    expect(Object.keys(view.properties).sort()).toEqual(['bbox', 'created_at', 'error', 'footprint', 'height', 'kind', 'polarisations', 'size_bytes', 'status', 'tif_id', 'width']);
  });
});
