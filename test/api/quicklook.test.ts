/**
 * Issue 22 §1, quicklooks: a ship job on a generated GRD scene stores a quicklook PNG (≤ 2,048
 * px, the detections drawn where the ships are) and a Web-Mercator overlay placed by its WGS84
 * bounds (transparent outside the data and the analysed extent); GET /quicklook.png and
 * /overlay answer 302 like the result, 404 while a job has none, 410 after retention (the
 * sweep deletes the objects); a quicklook that fails leaves the job completed with null
 * fields. Runs on SQLite, and on PostgreSQL with SARWATCH_TEST_STORE=postgres.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SMALL_SQUARE, startTestService, waitForTerminal, type TestService } from '../helpers/service.ts';
import { expectEnvelope } from '../helpers/envelope.ts';
import { aoiEchoTestDetector } from '../helpers/testDetectors.ts';
import { createRegistry } from '../../src/endpoints/analysisRegistry.ts';
import { GoneError, NotFoundError } from '../../src/client/index.ts';
import { writeSafeGrd } from '../../src/synth/safe.ts';
import { openSafeProduct } from '../../src/imagery/index.ts';
import { sweepExpiredResults } from '../../src/worker/retention.ts';

const CENTER: [number, number] = [3.9, 53.3];
const DATE = '2024-06-13';
/** Vessels placed in the scene (lon, lat); long enough to be bright and certain. */
const SHIPS = [
  { lon: 3.86, lat: 53.31, lengthM: 220, headingDeg: 30 },
  { lon: 3.935, lat: 53.285, lengthM: 160, headingDeg: 110 },
  { lon: 3.9, lat: 53.335, lengthM: 190, headingDeg: 0 },
];
const SHIP_COLOUR = [255, 40, 40];

let t: TestService;
let sceneId = '';
let productDir = '';
/** Lon/lat 2.5 km inside and 1 km outside the scene's far-range edge, and on the edge (mid azimuth). */
let edge: { inside: [number, number]; outside: [number, number]; on: [number, number] };
let sceneJob: any;
let sceneFc: any;

function decode(bytes: Uint8Array): PNG {
  return PNG.sync.read(Buffer.from(bytes));
}

/** The image pixel (column, row) of a lon/lat point on a Web-Mercator image with these WGS84 corners (the seam a web map uses). */
function pixelOf(bounds: number[], png: PNG, lon: number, lat: number): [number, number] {
  const [west, south, east, north] = bounds as [number, number, number, number];
  const my = (phi: number) => Math.log(Math.tan(Math.PI / 4 + (phi * Math.PI) / 360));
  return [((lon - west) / (east - west)) * png.width, ((my(north) - my(lat)) / (my(north) - my(south))) * png.height];
}

function rgbaAt(png: PNG, x: number, y: number): number[] {
  if (!(x >= 0 && y >= 0 && x < png.width && y < png.height)) throw new RangeError(`(${x}, ${y}) is outside the ${png.width} × ${png.height} image`);
  const i = (Math.floor(y) * png.width + Math.floor(x)) * 4;
  return [png.data[i]!, png.data[i + 1]!, png.data[i + 2]!, png.data[i + 3]!];
}

function isShipColour(png: PNG, x: number, y: number): boolean {
  const [r, g, b, a] = rgbaAt(png, x, y);
  return r === SHIP_COLOUR[0] && g === SHIP_COLOUR[1] && b === SHIP_COLOUR[2] && a === 255;
}

/** Pixels within `radius` of (cx, cy) that satisfy `test`. */
function countNear(png: PNG, cx: number, cy: number, radius: number, test: (x: number, y: number) => boolean): number {
  let n = 0;
  for (let y = Math.max(0, Math.floor(cy - radius)); y <= Math.min(png.height - 1, cy + radius); y++) {
    for (let x = Math.max(0, Math.floor(cx - radius)); x <= Math.min(png.width - 1, cx + radius); x++) if (test(x, y)) n++;
  }
  return n;
}

async function download(res: { status: number; headers: Headers }): Promise<{ bytes: Uint8Array; type: string | null }> {
  expect(res.status).toBe(302);
  const got = await fetch(new URL(res.headers.get('location')!, t.url));
  expect(got.status).toBe(200);
  return { bytes: new Uint8Array(await got.arrayBuffer()), type: got.headers.get('content-type') };
}

beforeAll(async () => {
  t = await startTestService({}, {
    credits: 100_000,
    scenes: [],
    beforeIndex: async (archiveDir) => {
      productDir = path.join(archiveDir, 'generated');
      await writeSafeGrd(productDir, { seed: 22, start: `${DATE}T17:33:40Z`, center: CENTER, width: 2400, height: 1600, pols: ['VV', 'VH'], wind: { speed: 7, directionDeg: 200 }, ships: SHIPS });
    },
  });
  const scenes = (await t.http('GET', `/api/v1/scenes?product_type=GRD&date_start=${DATE}&date_end=${DATE}`)).json.scenes;
  expect(scenes).toHaveLength(1);
  sceneId = scenes[0].scene_id;
  const safe = fs.readdirSync(productDir).find((n) => n.endsWith('.SAFE'))!;
  const product = await openSafeProduct(path.join(productDir, safe));
  const mid = product.height / 2;
  const inside = product.geolocation.pixelToLonLat(mid, product.width - 250);
  const on = product.geolocation.pixelToLonLat(mid, product.width - 1);
  // About 100 pixels past the edge (1 km: still within the scene's bounding box, whose far-range corners lie further out).
  edge = { inside, on, outside: [on[0] + 0.4 * (on[0] - inside[0]), on[1] + 0.4 * (on[1] - inside[1])] };
  await product.close();
  const { job_id } = await t.client.submit('analyze', 'ship', { satellite_id: 'sentinel-1', scene_id: sceneId });
  sceneJob = await t.client.wait(job_id, { initialDelayMs: 200, maxDelayMs: 1000, timeoutMs: 200_000 });
  sceneFc = await t.client.downloadResult(job_id);
}, 300_000);
afterAll(() => t?.close());

describe('issue 22 §1: a ship job on a whole generated scene', () => {
  it('the job carries quicklook_path and overlay (path, WGS84 bounds, EPSG:3857); list items do not', async () => {
    expect(sceneJob.status).toBe('completed');
    expect(sceneJob.quicklook_path).toBe(`/api/v1/jobs/${sceneJob.job_id}/quicklook.png`);
    expect(sceneJob.overlay).toMatchObject({ path: `/api/v1/jobs/${sceneJob.job_id}/overlay`, crs: 'EPSG:3857' });
    const [west, south, east, north] = sceneJob.overlay.bounds;
    for (const s of SHIPS) {
      expect(s.lon).toBeGreaterThan(west);
      expect(s.lon).toBeLessThan(east);
      expect(s.lat).toBeGreaterThan(south);
      expect(s.lat).toBeLessThan(north);
    }
    const item = (await t.client.listJobs({ limit: 30 })).jobs.find((j) => j.job_id === sceneJob.job_id)!;
    expect(item).not.toHaveProperty('quicklook_path');
    expect(item).not.toHaveProperty('overlay');
  });

  it('quicklook.png: a PNG of at most 2,048 px whose detection colour is drawn at every placed ship and only near detections', async () => {
    const { bytes, type } = await download(await t.http('GET', sceneJob.quicklook_path));
    expect(type).toBe('image/png');
    const png = decode(bytes);
    expect(Math.max(png.width, png.height)).toBeLessThanOrEqual(2048);
    expect(Math.max(png.width, png.height)).toBeGreaterThan(1000);
    expect(sceneFc.features.length).toBeGreaterThanOrEqual(SHIPS.length);
    for (const s of SHIPS) {
      const [x, y] = pixelOf(sceneJob.overlay.bounds, png, s.lon, s.lat);
      expect(countNear(png, x, y, 10, (px, py) => isShipColour(png, px, py))).toBeGreaterThan(10);
    }
    // Every pixel of the detection colour belongs to the drawing of some detection (its outline or marker).
    const centres = sceneFc.features.map((f: any) => {
      const ring = f.geometry.coordinates[0] as [number, number][];
      const lon = ring.reduce((a, p) => a + p[0], 0) / ring.length;
      const lat = ring.reduce((a, p) => a + p[1], 0) / ring.length;
      return pixelOf(sceneJob.overlay.bounds, png, lon, lat);
    });
    let coloured = 0;
    for (let y = 0; y < png.height; y++) {
      for (let x = 0; x < png.width; x++) {
        if (!isShipColour(png, x, y)) continue;
        coloured++;
        expect(centres.some(([cx, cy]: [number, number]) => Math.hypot(cx - x, cy - y) <= 12)).toBe(true);
      }
    }
    expect(coloured).toBeGreaterThan(0);
  });

  it('overlay: the same grid without the drawing, the ships bright where the bounds place them, transparent outside the scene', async () => {
    const { bytes, type } = await download(await t.http('GET', sceneJob.overlay.path));
    expect(type).toBe('image/png');
    const overlay = decode(bytes);
    const quicklook = decode((await download(await t.http('GET', sceneJob.quicklook_path))).bytes);
    expect([overlay.width, overlay.height]).toEqual([quicklook.width, quicklook.height]);
    let grey = true;
    const values: number[] = [];
    for (let i = 0; i < overlay.data.length; i += 4) {
      if (overlay.data[i + 3] === 0) continue;
      grey &&= overlay.data[i] === overlay.data[i + 1] && overlay.data[i + 1] === overlay.data[i + 2];
      values.push(overlay.data[i]!);
    }
    expect(grey).toBe(true);
    values.sort((a, b) => a - b);
    const median = values[values.length >> 1]!;
    expect(median).toBeGreaterThan(40);
    expect(median).toBeLessThan(200);
    for (const s of SHIPS) {
      const [x, y] = pixelOf(sceneJob.overlay.bounds, overlay, s.lon, s.lat);
      // The stretch saturates above the 98th percentile: a vessel is white within a few pixels of where it was placed.
      expect(countNear(overlay, x, y, 3, (px, py) => rgbaAt(overlay, px, py)[0]! >= 250)).toBeGreaterThan(0);
    }
    // The scene is a rotated quadrilateral inside its north-up bounds: the corners have no data, the centre has.
    for (const [x, y] of [[0, 0], [overlay.width - 1, 0], [0, overlay.height - 1], [overlay.width - 1, overlay.height - 1]]) {
      expect(rgbaAt(overlay, x!, y!)[3]).toBe(0);
    }
    expect(rgbaAt(overlay, overlay.width / 2, overlay.height / 2)[3]).toBe(255);
    const [ox, oy] = pixelOf(sceneJob.overlay.bounds, overlay, ...edge.outside);
    const [ix, iy] = pixelOf(sceneJob.overlay.bounds, overlay, ...edge.inside);
    expect(rgbaAt(overlay, ox, oy)[3]).toBe(0);
    expect(rgbaAt(overlay, ix, iy)[3]).toBe(255);
  });

  it('the SDK downloads both PNGs', async () => {
    const ql = await t.client.downloadQuicklook(sceneJob.job_id);
    const ov = await t.client.downloadOverlay(sceneJob.job_id);
    expect(Buffer.from(ql.subarray(0, 8)).toString('latin1')).toBe('\x89PNG\r\n\x1a\n');
    expect(decode(ov).width).toBe(decode(ql).width);
  });
});

describe('issue 22 §1: a ship job on a polygon that runs off the scene', () => {
  it('the overlay bounds contain the AOI; pixels outside the AOI or outside the imagery are transparent', async () => {
    const [lon, lat] = edge.on;
    const r = 0.06;
    // A diamond around a point of the scene's edge: half of it has no imagery, and its bounding box's corners lie outside it.
    const aoi = `POLYGON ((${lon} ${lat - r}, ${lon + r} ${lat}, ${lon} ${lat + r}, ${lon - r} ${lat}, ${lon} ${lat - r}))`;
    const { job_id } = await t.client.submit('detect', 'ship', { satellite_id: 'sentinel-1', polygon: aoi, date: DATE });
    const job = await t.client.wait(job_id, { initialDelayMs: 200, maxDelayMs: 1000, timeoutMs: 120_000 });
    expect(job.status).toBe('completed');
    const [west, south, east, north] = job.overlay!.bounds;
    expect(west).toBeLessThanOrEqual(lon - r);
    expect(east).toBeGreaterThanOrEqual(lon + r);
    expect(south).toBeLessThanOrEqual(lat - r);
    expect(north).toBeGreaterThanOrEqual(lat + r);
    const overlay = decode(await t.client.downloadOverlay(job_id));
    const at = (p: [number, number]) => rgbaAt(overlay, ...pixelOf(job.overlay!.bounds, overlay, ...p))[3];
    expect(at(edge.inside)).toBe(255); // in the AOI and the scene
    expect(at(edge.outside)).toBe(0); // in the AOI, past the scene's edge
    expect(at([lon - r * 0.9, lat + r * 0.9])).toBe(0); // in the scene, outside the AOI (the bounding box's corner)
    const quicklook = decode(await t.client.downloadQuicklook(job_id));
    expect(Math.max(quicklook.width, quicklook.height)).toBeLessThanOrEqual(2048);
  });
});

describe('issue 22 §1: /quicklook.png and /overlay answer like result.geojson', () => {
  it('404 NOT_FOUND with the envelope while a job is pending or processing, and for a failed job', async () => {
    const { job_id } = await t.client.submit('analyze', 'ship', { satellite_id: 'sentinel-1', scene_id: sceneId });
    for (const route of ['quicklook.png', 'overlay']) {
      const res = await t.http('GET', `/api/v1/jobs/${job_id}/${route}`);
      expect(res.status).toBe(404);
      expectEnvelope(res.status, res.text, 'NOT_FOUND');
    }
    const running = await t.client.getJob(job_id);
    expect(running.status).not.toBe('completed');
    expect(running.quicklook_path).toBeNull();
    expect(running.overlay).toBeNull();
    const missing = 'S1A_IW_GRDH_1SDV_20200101T000000_20200101T000025_030000_036F00_ABCD';
    const failed = await waitForTerminal(t.client, (await t.client.submit('analyze', 'ship', { satellite_id: 'sentinel-1', scene_id: missing })).job_id, 200_000);
    expect(failed.status).toBe('failed');
    expect(failed.quicklook_path).toBeNull();
    expect(failed.overlay).toBeNull();
    for (const route of ['quicklook.png', 'overlay']) {
      const res = await t.http('GET', `/api/v1/jobs/${failed.job_id}/${route}`);
      expect(res.status).toBe(404);
      expectEnvelope(res.status, res.text, 'NOT_FOUND');
    }
    await expect(t.client.downloadQuicklook(failed.job_id)).rejects.toBeInstanceOf(NotFoundError);
    await waitForTerminal(t.client, job_id, 200_000);
  }, 400_000);

  it("another account's job is 404, unauthenticated is 401", async () => {
    const other = await t.newAccount();
    for (const route of ['quicklook.png', 'overlay']) {
      const res = await t.http('GET', `/api/v1/jobs/${sceneJob.job_id}/${route}`, { key: other.apiKey });
      expect(res.status).toBe(404);
      expectEnvelope(res.status, res.text, 'NOT_FOUND');
      expect((await t.http('GET', `/api/v1/jobs/${sceneJob.job_id}/${route}`, { key: null })).status).toBe(401);
    }
  });

  it('after retention: 410 GONE for both, the sweep deletes the quicklook and overlay objects with the result', async () => {
    const id = sceneJob.job_id;
    const objectsDir = path.join(t.dataDir, 'objects');
    const files = [`results/${id}.1.geojson`, `quicklooks/${id}.1.png`, `overlays/${id}.1.png`].map((f) => path.join(objectsDir, f));
    for (const f of files) expect(fs.existsSync(f)).toBe(true);
    await t.service.db.updateTable('jobs').set({ result_expires_at: new Date(Date.now() - 1000).toISOString() }).where('id', '=', id).execute();
    for (const route of ['quicklook.png', 'overlay']) {
      const res = await t.http('GET', `/api/v1/jobs/${id}/${route}`);
      expect(res.status).toBe(410);
      expectEnvelope(res.status, res.text, 'GONE');
    }
    await expect(t.client.downloadOverlay(id)).rejects.toBeInstanceOf(GoneError);
    expect(await sweepExpiredResults(t.service.db, t.service.objects)).toBeGreaterThanOrEqual(1);
    for (const f of files) expect(fs.existsSync(f)).toBe(false);
    // The job keeps its paths (the answer there is 410), as result_path does.
    expect((await t.client.getJob(id)).quicklook_path).toBe(`/api/v1/jobs/${id}/quicklook.png`);
  });
});

describe('issue 22 §1: the OpenAPI document', () => {
  it('documents both routes (302, 404, 410) and the Job fields quicklook_path and overlay (path, bounds, crs)', async () => {
    const doc: any = (await t.http('GET', '/openapi.json', { key: null })).json;
    for (const route of ['quicklook.png', 'overlay']) {
      const responses = doc.paths[`/api/v1/jobs/{job_id}/${route}`].get.responses;
      for (const status of ['302', '404', '410']) expect(responses[status], `${route} ${status}`).toBeDefined();
    }
    const job = doc.paths['/api/v1/jobs/{job_id}'].get.responses['200'].content['application/json'].schema;
    const resolve = (s: any): any => (s.$ref ? doc.components.schemas[s.$ref.split('/').pop()] : s);
    const props = resolve(job).properties;
    expect(props.quicklook_path).toBeDefined();
    const overlay = props.overlay.anyOf.map(resolve).find((s: any) => s.type === 'object');
    expect(Object.keys(overlay.properties).sort()).toEqual(['bounds', 'crs', 'path']);
    const crs = overlay.properties.crs;
    expect(crs.const ?? crs.enum?.[0]).toBe('EPSG:3857');
    expect(crs.enum ?? [crs.const]).toEqual(['EPSG:3857']);
  });
});

describe('issue 22 §1: a quicklook that fails costs the job nothing', () => {
  it('the job completes with quicklook_path and overlay null, the routes answer 404, and the failure is logged', async () => {
    // The STAC fixture scenes have no SAFE product to read pixels from: a stand-in detector
    // completes the job, then the quicklook cannot open the scene.
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk, _enc, cb) {
        lines.push(String(chunk));
        cb();
      },
    });
    const s = await startTestService({}, { registry: createRegistry([aoiEchoTestDetector('ship')]), logger: { level: 'info', stream } });
    try {
      const { job_id } = await s.client.submit('analyze', 'ship', { satellite_id: 'sentinel-1', polygon: SMALL_SQUARE, date: '2022-06-12' });
      const job = await waitForTerminal(s.client, job_id);
      expect(job.status).toBe('completed');
      expect(job.result_path).not.toBeNull();
      expect(job.quicklook_path).toBeNull();
      expect(job.overlay).toBeNull();
      expect((await s.http('GET', `/api/v1/jobs/${job_id}/quicklook.png`)).status).toBe(404);
      expect((await s.http('GET', `/api/v1/jobs/${job_id}/overlay`)).status).toBe(404);
      expect(lines.some((l) => l.includes(job_id) && l.includes('quicklook failed'))).toBe(true);
      expect(fs.existsSync(path.join(s.dataDir, 'objects', 'quicklooks'))).toBe(false);
    } finally {
      await s.close();
    }
  });
});

