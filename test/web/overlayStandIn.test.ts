/**
 * The job page's quicklook overlay and its handling of hostile feature properties, with the
 * job API answered by a STAND-IN AT THE BROWSER'S NETWORK LAYER (Playwright's page.route):
 * the real service serves the dashboard, the account and the signed object URLs, but the job
 * view, its list entry and the 302s of its result and overlay are fakes in the shapes of
 * issue 22 §1 (`overlay: {path, bounds, crs}`, a 302 to a signed PNG). The real end-to-end
 * check of the overlay is test/web/dashboard.test.ts. The stand-in's request_params carry
 * hostile names and values too, which the real API would refuse at submission.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PNG } from 'pngjs';
import type { Browser, Page, Route } from 'playwright-core';
import { startTestService, type TestService } from '../helpers/service.ts';
import { BROWSER_SKIP_NOTE, CHROMIUM, dashboardDir, launchBrowser, project, screenshot, watchPage } from '../helpers/browser.ts';

const JOB = '6f1c1a52-2f59-4c52-9b7e-0d4f6f9c1a11';
const PORT = 'POLYGON ((4.2 52.38, 4.5 52.38, 4.5 52.58, 4.2 52.58, 4.2 52.38))';
const BOUNDS: [number, number, number, number] = [4.25, 52.42, 4.45, 52.54];
const IMG = '<img src=x onerror="window.__xss=1">';

/** A solid magenta PNG: unmistakable on the map. */
function magentaPng(): Buffer {
  const png = new PNG({ width: 64, height: 64 });
  for (let i = 0; i < png.data.length; i += 4) png.data.set([255, 0, 255, 255], i);
  return PNG.sync.write(png);
}

const RESULT = {
  type: 'FeatureCollection',
  bbox: [4.3, 52.45, 4.41, 52.51],
  features: [
    { type: 'Feature', id: 1, geometry: { type: 'Polygon', coordinates: [[[4.3, 52.45], [4.301, 52.45], [4.301, 52.451], [4.3, 52.451], [4.3, 52.45]]] }, properties: { area_sqm: 812.5, confidence: null, [IMG]: `<script>window.__xss=2</script>`, note: IMG } },
    { type: 'Feature', id: 2, geometry: { type: 'Polygon', coordinates: [[[4.41, 52.51], [4.411, 52.51], [4.411, 52.511], [4.41, 52.511], [4.41, 52.51]]] }, properties: { area_sqm: 640, confidence: null } },
  ],
};

/** A second job, for the page's kept result: three features. */
const JOB2 = '0b7e2c1d-5a44-4f0e-8d2b-3c9a7e6f5d22';
const RESULT2 = {
  type: 'FeatureCollection',
  features: [[4.31, 52.46], [4.33, 52.47], [4.35, 52.48]].map(([x, y], i) => ({
    type: 'Feature',
    id: i + 1,
    geometry: { type: 'Polygon', coordinates: [[[x, y], [x! + 0.001, y], [x! + 0.001, y! + 0.001], [x, y! + 0.001], [x, y]]] },
    properties: { area_sqm: 700 + i, confidence: null },
  })),
};

const HOSTILE_PARAMS = { satellite_id: 'sentinel-1', polygon: PORT, date: '2024-06-14', [IMG]: `<script>window.__xss=3</script>`, note: IMG };

function jobView(withOverlay: boolean, requestParams: Record<string, unknown> = HOSTILE_PARAMS) {
  return {
    job_id: JOB,
    endpoint_id: 'ship',
    satellite_id: 'sentinel-1',
    status: 'completed',
    created_at: '2026-12-01T10:00:00.000Z',
    completed_at: '2026-12-01T10:01:00.000Z',
    result_path: `/api/v1/jobs/${JOB}/result.geojson`,
    error_code: null,
    error_message: null,
    error: null,
    area_sqkm: 453.6,
    coverage: { method: 'estimated', requested_area_sqkm: 453.6, ratio: 1, polygon: null },
    scene_selection: { first_month: '2024-06', last_month: '2024-06' },
    warnings: [],
    progress: 100,
    quicklook_path: withOverlay ? `/api/v1/jobs/${JOB}/quicklook.png` : null,
    overlay: withOverlay ? { path: `/api/v1/jobs/${JOB}/overlay`, bounds: BOUNDS, crs: 'EPSG:3857' } : null,
    credits_used: 4.536,
    request_params: requestParams,
  };
}

let t: TestService;
let web: ReturnType<typeof dashboardDir>;
let browser: Browser;
/** Signed URLs of the real object store, where the stand-in's 302s point. */
const signed = { result: '', overlay: '', result2: '' };

describe.skipIf(!CHROMIUM)(`job page against a network-layer stand-in of the quicklook job view${BROWSER_SKIP_NOTE}`, () => {
  beforeAll(async () => {
    web = dashboardDir();
    t = await startTestService({ SARWATCH_WEB_DIR: web.dir });
    await t.service.objects.put(`stand-in/${JOB}.geojson`, JSON.stringify(RESULT), 'application/geo+json');
    await t.service.objects.put(`stand-in/${JOB}.png`, magentaPng(), 'image/png');
    signed.result = await t.service.objects.presign(`stand-in/${JOB}.geojson`, { expiresInSeconds: 3600, filename: 'result.geojson', contentType: 'application/geo+json' });
    signed.overlay = await t.service.objects.presign(`stand-in/${JOB}.png`, { expiresInSeconds: 3600, filename: 'overlay.png', contentType: 'image/png' });
    await t.service.objects.put(`stand-in/${JOB2}.geojson`, JSON.stringify(RESULT2), 'application/geo+json');
    signed.result2 = await t.service.objects.presign(`stand-in/${JOB2}.geojson`, { expiresInSeconds: 3600, filename: 'result.geojson', contentType: 'application/geo+json' });
    browser = await launchBrowser();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    web?.cleanup();
  });

  async function openJob(
    withOverlay: boolean,
    requestParams?: Record<string, unknown>,
  ): Promise<{ page: Page; watch: ReturnType<typeof watchPage>; overlayRequests: string[]; resultRequests: string[] }> {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    const watch = watchPage(page);
    const overlayRequests: string[] = [];
    const resultRequests: string[] = [];
    const json = (route: Route, body: unknown) => route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify(body) });
    await page.route((u) => u.pathname === `/api/v1/jobs/${JOB}`, (route) => json(route, jobView(withOverlay, requestParams)));
    await page.route((u) => u.pathname === '/api/v1/jobs', (route) =>
      json(route, { jobs: [{ ...jobView(withOverlay, requestParams), lat: 52.48, lon: 4.35 }] }),
    );
    await page.route((u) => u.pathname === `/api/v1/jobs/${JOB}/result.geojson`, (route) => {
      resultRequests.push(JOB);
      return route.fulfill({ status: 302, headers: { Location: signed.result } });
    });
    await page.route((u) => u.pathname === `/api/v1/jobs/${JOB2}`, (route) =>
      json(route, { ...jobView(false, requestParams), job_id: JOB2, result_path: `/api/v1/jobs/${JOB2}/result.geojson` }),
    );
    await page.route((u) => u.pathname === `/api/v1/jobs/${JOB2}/result.geojson`, (route) => {
      resultRequests.push(JOB2);
      return route.fulfill({ status: 302, headers: { Location: signed.result2 } });
    });
    await page.route((u) => u.pathname === `/api/v1/jobs/${JOB}/overlay`, (route) => {
      overlayRequests.push(route.request().headers().authorization ?? '');
      return route.fulfill({ status: 302, headers: { Location: signed.overlay } });
    });
    await page.goto(`${t.url}/`);
    await page.getByLabel('API key').fill(t.apiKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Jobs' }).waitFor();
    await page.goto(`${t.url}/#/jobs/${JOB}`);
    await page.locator('#job-map[data-rendered-features="2"]').waitFor({ timeout: 30_000 }).catch(async (e) => {
      throw new Error(`${e}\npage errors: ${watch.errors.join('\n')}\nmap: ${JSON.stringify(await page.locator('#job-map').evaluate((m) => ({ ...(m as any).dataset })))}`);
    });
    return { page, watch, overlayRequests, resultRequests };
  }

  /** The map's pixel (RGB) at a lon/lat, read from a screenshot of the map. */
  async function pixelAt(page: Page, lon: number, lat: number): Promise<[number, number, number]> {
    const map = page.locator('#job-map');
    const view = JSON.parse((await map.getAttribute('data-view'))!) as { lon: number; lat: number; zoom: number };
    const box = (await map.boundingBox())!;
    const p = project(view, { width: box.width - 2, height: box.height - 2 }, lon, lat);
    const png = PNG.sync.read(await map.screenshot());
    const x = Math.round(p.x + 1);
    const y = Math.round(p.y + 1);
    expect(x > 0 && y > 0 && x < png.width && y < png.height, `${lon} ${lat} on screen`).toBe(true);
    const i = (y * png.width + x) * 4;
    return [png.data[i]!, png.data[i + 1]!, png.data[i + 2]!];
  }
  const magenta = ([r, g, b]: [number, number, number]) => r > 200 && g < 100 && b > 200;
  // Inside the overlay's bounds, away from the two ships and the AOI outline.
  const INSIDE: [number, number] = [4.35, 52.49];

  it('a job view with `overlay`: the PNG is fetched with the key (302 to the signed URL) and drawn within its bounds; the quicklook is offered for download', async () => {
    const { page, watch, overlayRequests } = await openJob(true);
    await expect.poll(() => pixelAt(page, ...INSIDE).then(magenta), { timeout: 20_000 }).toBe(true).catch(async (e) => {
      throw new Error(`${e}\npixel ${await pixelAt(page, ...INSIDE)}; page errors: ${watch.errors.join('\n')}`);
    });
    expect(magenta(await pixelAt(page, 4.22, 52.40))).toBe(false); // inside the AOI, outside the overlay
    expect(overlayRequests).toEqual([`Bearer ${t.apiKey}`]);
    expect(await page.getByRole('button', { name: 'Download quicklook (PNG)' }).count()).toBe(1);
    await screenshot(page, 'job-overlay-stand-in');
    expect(watch.errors).toEqual([]);
    await page.close();
  });

  it('a job view with `overlay: null`: no overlay drawn, none requested, no quicklook button', async () => {
    const { page, watch, overlayRequests } = await openJob(false);
    expect(magenta(await pixelAt(page, ...INSIDE))).toBe(false);
    expect(overlayRequests).toEqual([]);
    expect(await page.getByRole('button', { name: 'Download quicklook (PNG)' }).count()).toBe(0);
    expect(watch.errors).toEqual([]);
    await page.close();
  });

  it('returning to a job’s page within the app draws its kept result (no second download), clickable; another job’s page draws its own result', async () => {
    const { page, watch, resultRequests } = await openJob(false);
    const map = page.locator('#job-map');
    const visit = async (id: string, features: number) => {
      await page.evaluate(() => ((globalThis as any).location.hash = '#/jobs'));
      await page.locator('table.jobs').waitFor();
      await page.evaluate((j) => ((globalThis as any).location.hash = `#/jobs/${j}`), id);
      await page.locator(`#job-map[data-result-features="${features}"][data-rendered-features="${features}"]`).waitFor({ timeout: 30_000 });
    };
    await visit(JOB, 2);
    expect(resultRequests).toEqual([JOB]);
    // The kept result's features answer clicks (the page's id → feature table is rebuilt).
    const view = JSON.parse((await map.getAttribute('data-view'))!) as { lon: number; lat: number; zoom: number };
    const box = (await map.boundingBox())!;
    const p = project(view, { width: box.width - 2, height: box.height - 2 }, 4.4105, 52.5105);
    await page.mouse.click(box.x + 1 + p.x, box.y + 1 + p.y);
    await expect.poll(async () => (await page.getByTestId('feature-properties').textContent()) ?? '', { timeout: 10_000 }).toContain('640');
    // Another job: its own result, downloaded; the first job's is downloaded again after it (one result is kept).
    await visit(JOB2, 3);
    await visit(JOB, 2);
    expect(resultRequests).toEqual([JOB, JOB2, JOB]);
    expect(watch.errors).toEqual([]);
    await page.close();
  });

  it('a scene job (no AOI to frame the map by): the map is framed by the result once it is in, every feature drawn', async () => {
    const { page, watch } = await openJob(false, { satellite_id: 'sentinel-1', scene_id: 'S1A_IW_GRDH_1SDV_20240614T055000_20240614T055025_054321_069ABC_1234' });
    const view = JSON.parse((await page.locator('#job-map').getAttribute('data-view'))!) as { lon: number; lat: number; zoom: number };
    // The result's bbox (4.3–4.411, 52.45–52.511) in the middle, at a zoom that holds it (> the default view's 3).
    expect(view.lon).toBeCloseTo(4.3555, 2);
    expect(view.lat).toBeCloseTo(52.4805, 2);
    expect(view.zoom).toBeGreaterThan(9);
    expect(await page.getByTestId('job-fields').textContent()).toContain('scene S1A_IW_GRDH');
    expect(watch.errors).toEqual([]);
    await page.close();
  });

  it('hostile property names and values in a result (on click) and in the job view’s request_params are shown as text; nothing executes', async () => {
    const { page, watch } = await openJob(false);
    // request_params from the job view itself (no list look-up): every name and value as text.
    const params = (await page.getByTestId('request-params').textContent())!;
    expect(params).toContain(IMG);
    expect(params).toContain('<script>window.__xss=3</script>');
    expect(params).toContain(PORT);
    expect(await page.getByTestId('job-fields').textContent()).toContain('4.536');
    const map = page.locator('#job-map');
    const view = JSON.parse((await map.getAttribute('data-view'))!) as { lon: number; lat: number; zoom: number };
    const box = (await map.boundingBox())!;
    const p = project(view, { width: box.width - 2, height: box.height - 2 }, 4.3005, 52.4505);
    await page.mouse.click(box.x + 1 + p.x, box.y + 1 + p.y);
    const props = page.getByTestId('feature-properties');
    await props.waitFor();
    const text = (await props.textContent())!;
    expect(text).toContain(IMG);
    expect(text).toContain('<script>window.__xss=2</script>');
    expect(await page.locator('img[src="x"], main script').count()).toBe(0);
    expect(await page.evaluate(() => (globalThis as any).__xss)).toBeUndefined();
    expect(watch.dialogs).toEqual([]);
    expect(watch.errors).toEqual([]);
    await page.close();
  });
});
