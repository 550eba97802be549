/**
 * Issue 22 §3: the dashboard in a real browser (Debian's Chromium through playwright-core)
 * against a real `npm start` service — `node bin/sarwatch.js serve` in a child process
 * (test/helpers/serveProcess.ts) with its own data directory, the demo archive linked in from
 * the test cache first, signed in with the demo key it prints and stopped by SIGTERM at the
 * end — : submit a ship job on the demo port, watch it complete, count the ship features the
 * map drew against the result, click one; a time-series job's cell chart; hostile strings in
 * uploads and request parameters rendered as text with nothing executed; axe-core on every
 * page; screenshots of every page into test-output/screenshots (git-ignored).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startServeProcess, type ServeProcess } from '../helpers/serveProcess.ts';
import { axeSerious, BROWSER_SKIP_NOTE, CHROMIUM, dashboardDir, launchBrowser, project, screenshot, watchPage } from '../helpers/browser.ts';
import { DEMO_ANCHORAGE, DEMO_PORT as PORT, DEMO_SLICK_AREA } from '../helpers/demoArchive.ts';

const CITY = 'POLYGON ((4.985 52.35, 5.005 52.35, 5.005 52.362, 4.985 52.362, 4.985 52.35))';
/** Sets a flag and opens a dialog if it ever runs; neither may happen. */
const IMG = '<img src=x onerror="window.__xss=(window.__xss||0)+1;alert(1)">';
const SCRIPT = '<script>window.__xss=1;alert(2)</script>';

let server: ServeProcess;
let web: ReturnType<typeof dashboardDir>;
let browser: Browser;
let context: BrowserContext;
let demoKey = '';
/** The time-series job the dashboard submitted (its own test makes one when run alone). */
let timeseriesJobId: string | undefined;

describe.skipIf(!CHROMIUM)(`the dashboard in Chromium against npm start (sarwatch serve in a child process) on the demo archive${BROWSER_SKIP_NOTE}`, () => {
  beforeAll(async () => {
    web = dashboardDir();
    // What `npm start` runs, with the dashboard built from this checkout; no sample products
    // indexed beside the demo archive (as the in-process tests). Its demo account has the
    // default SARWATCH_DEMO_CREDITS (10,000).
    server = await startServeProcess({ SARWATCH_WEB_DIR: web.dir, SARWATCH_SAMPLES_DIR: '' });
    // The key `npm start` prints.
    demoKey = server.demoKey;
    browser = await launchBrowser();
    context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
  }, 300_000);
  afterAll(async () => {
    await browser?.close();
    const stopped = await server?.stop();
    web?.cleanup();
    // SIGTERM stops it cleanly, within the time.
    if (stopped) expect({ code: stopped.code, signal: stopped.signal, killed: stopped.killed }, server.output()).toEqual({ code: 0, signal: null, killed: false });
  }, 60_000);

  async function signedIn(): Promise<{ page: Page; watch: ReturnType<typeof watchPage> }> {
    const page = await context.newPage();
    const watch = watchPage(page);
    await page.goto(`${server.url}/`);
    await page.getByLabel('API key').fill(demoKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Jobs' }).waitFor();
    return { page, watch };
  }

  async function resultOf(jobId: string): Promise<GeoJSON.FeatureCollection> {
    const res = await fetch(`${server.url}/api/v1/jobs/${jobId}/result.geojson`, { headers: { Authorization: `Bearer ${demoKey}` } });
    expect(res.status).toBe(200);
    return (await res.json()) as GeoJSON.FeatureCollection;
  }

  /** Clicks the map at a lon/lat, aimed with the view the map publishes. */
  async function clickMapAt(page: Page, lon: number, lat: number): Promise<void> {
    const map = page.locator('#job-map');
    const view = JSON.parse((await map.getAttribute('data-view'))!) as { lon: number; lat: number; zoom: number };
    const box = (await map.boundingBox())!;
    const p = project(view, { width: box.width - 2, height: box.height - 2 }, lon, lat); // 1-px border
    await page.mouse.click(box.x + 1 + p.x, box.y + 1 + p.y);
  }

  const centre = (f: GeoJSON.Feature): [number, number] => {
    const ring = (f.geometry as GeoJSON.Polygon).coordinates[0]!.slice(0, -1);
    return [ring.reduce((s, p) => s + p[0]!, 0) / ring.length, ring.reduce((s, p) => s + p[1]!, 0) / ring.length];
  };

  it('the built files need no key, carry a strict Content-Security-Policy, hashed assets are immutable and index.html revalidated; the API still wants its key', async () => {
    const index = await fetch(`${server.url}/`);
    expect(index.status).toBe(200);
    const csp = index.headers.get('content-security-policy')!;
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).not.toContain('unsafe-eval');
    expect(index.headers.get('cache-control')).toBe('no-cache');
    const html = await index.text();
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/); // no inline script
    expect(html).not.toMatch(/\sstyle=/);
    const asset = /src="(\/assets\/[^"]+\.js)"/.exec(html)![1]!;
    const js = await fetch(`${server.url}${asset}`);
    expect(js.status).toBe(200);
    expect(js.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect((await fetch(`${server.url}/api/v1/jobs`)).status).toBe(401);
    const unknown = await fetch(`${server.url}/api/v1/no-such-route`, { headers: { Authorization: `Bearer ${demoKey}` } });
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as any).error.code).toBe('NOT_FOUND');
  });

  // The jobs run on the part of the port that holds what they show (the anchorage's ships, the slick): a third and a sixth of the port box's CPU.
  it('sign in with the demo key → a ship job on the demo port → it completes → the map draws as many ships as the result has; a click shows a ship’s properties', async () => {
    const { page, watch } = await signedIn();
    expect(await page.evaluate(() => (globalThis as any).sessionStorage.getItem('sarwatch.apiKey'))).toBe(demoKey);
    expect(await page.evaluate(() => (globalThis as any).localStorage.length)).toBe(0);
    await page.getByRole('navigation').getByRole('link', { name: 'New job' }).click();
    await page.getByLabel('Area of interest from').selectOption('wkt');
    await page.getByLabel('Polygon (WKT, EPSG:4326, lon lat)').fill(DEMO_ANCHORAGE);
    await page.getByLabel('Date', { exact: true }).fill('2024-06-14');
    const preview = page.getByTestId('preview-fields');
    await preview.waitFor({ timeout: 30_000 });
    await expect.poll(() => preview.textContent()).toContain('km²');
    await screenshot(page, 'new-job');
    const requests: string[] = [];
    page.on('request', (r) => requests.push(`${r.method()} ${new URL(r.url()).pathname}`));
    await page.getByRole('button', { name: 'Submit job' }).click();
    await page.waitForURL(/#\/jobs\/[0-9a-f-]{36}$/);
    const jobId = /#\/jobs\/([0-9a-f-]{36})$/.exec(page.url())![1]!;
    // The page follows the job by its event stream: the badge goes to completed without a reload,
    // and the job view is read once at the start and once after each stream ends — not polled.
    await page.locator('[data-testid=job-fields] .badge.status-completed').waitFor({ timeout: 240_000 });
    expect(await page.locator('section.details').getAttribute('data-live')).toBe('events');
    const streams = requests.filter((r) => r === `GET /api/v1/jobs/${jobId}/events`).length;
    expect(streams).toBeGreaterThanOrEqual(1);
    expect(requests.filter((r) => r === `GET /api/v1/jobs/${jobId}`).length).toBe(streams + 1);
    const map = page.locator('#job-map');
    await map.and(page.locator('[data-rendered-features]')).waitFor({ timeout: 60_000 });

    const fc = await resultOf(jobId);
    expect(fc.features.length).toBeGreaterThan(5);
    expect(Number(await map.getAttribute('data-result-features'))).toBe(fc.features.length);
    // The map's own report of the result features it drew within its view (mapView.ts).
    expect(Number(await map.getAttribute('data-rendered-features'))).toBe(fc.features.length);
    await expect.poll(() => page.locator('.drawn').textContent()).toBe(`${fc.features.length} of ${fc.features.length} result features drawn in this view.`);
    // Issue 22 §1 end to end: the job's own quicklook overlay (a Web-Mercator PNG placed by its bounds) is on the map, and the quicklook is offered for download.
    await expect.poll(() => map.getAttribute('data-overlay'), { timeout: 30_000 }).toBe('shown');
    expect(await page.getByRole('button', { name: 'Download quicklook (PNG)' }).count()).toBe(1);

    // Aim at the ship farthest from any other, so the marker under the cursor is unambiguous.
    const centres = fc.features.map(centre);
    const loneliness = centres.map((c, i) => Math.min(...centres.filter((_, j) => j !== i).map((d) => Math.hypot(c[0] - d[0], c[1] - d[1]))));
    const target = fc.features[loneliness.indexOf(Math.max(...loneliness))]!;
    await clickMapAt(page, ...centre(target));
    const props = page.getByTestId('feature-properties');
    await props.waitFor();
    await expect.poll(() => page.locator('.properties h2').textContent()).toBe(`Feature ${target.id}`);
    const text = (await props.textContent())!;
    expect(text).toContain('area_sqm');
    expect(text).toContain(String((target.properties as { area_sqm: number }).area_sqm));
    await screenshot(page, 'job-ship');

    // Leaving the job page right after the window is resized: Leaflet fires its debounced moveend
    // 200 ms later on the removed map (CI saw "reading '_leaflet_pos'" after the full-page
    // screenshot resized the viewport); nothing may throw.
    const viewport = page.viewportSize()!;
    await page.setViewportSize({ width: viewport.width - 40, height: viewport.height - 40 });
    await page.getByRole('navigation').getByRole('link', { name: 'Jobs', exact: true }).click();
    const row = page.locator(`tr[data-job-id="${jobId}"]`);
    await row.waitFor();
    await page.waitForTimeout(400);
    await page.setViewportSize(viewport);
    expect(await row.getAttribute('data-status')).toBe('completed');
    expect(await page.locator('.balance').textContent()).toMatch(/^Credits: [\d,.]+$/);
    await screenshot(page, 'jobs');
    expect(watch.errors).toEqual([]);
    expect(watch.dialogs).toEqual([]);
    await page.close();
  }, 400_000);

  it('New job: a polygon drawn by clicks on the map, a scene found by a search on the map, an uploaded polygon — each previewed', async () => {
    // An upload to choose from.
    const square = { type: 'FeatureCollection', features: [{ type: 'Feature', properties: {}, geometry: { type: 'Polygon', coordinates: [[[4.3, 52.45], [4.4, 52.45], [4.4, 52.5], [4.3, 52.5], [4.3, 52.45]]] } }] };
    const up = await server.http('POST', '/api/v1/polygons', { key: demoKey, rawBody: JSON.stringify(square), headers: { 'Content-Type': 'application/geo+json' } });
    expect(up.status).toBe(202);
    let upload: any;
    await expect.poll(async () => (upload = (await server.http('GET', `/api/v1/polygons/${up.json.polygon_id}`, { key: demoKey })).json).status, { timeout: 30_000 }).toBe('ready');

    const { page, watch } = await signedIn();
    await page.goto(`${server.url}/#/new`);
    const wkt = page.getByLabel('Polygon (WKT, EPSG:4326, lon lat)');
    // Frame the port first (the preview fits the map to the AOI), then draw inside it.
    await page.getByLabel('Area of interest from').selectOption('wkt');
    await wkt.fill(PORT);
    await page.getByLabel('Date', { exact: true }).fill('2024-06-14');
    await page.getByTestId('preview-fields').waitFor({ timeout: 30_000 });
    await page.getByLabel('Area of interest from').selectOption('draw');
    await page.getByRole('button', { name: 'Start drawing' }).click();
    const box = (await page.locator('#new-map').boundingBox())!;
    const cx = box.x + box.width / 2;
    const cy = box.y + box.height / 2;
    for (const [dx, dy] of [[-80, -60], [80, -60], [80, 60], [-80, 60]]) await page.mouse.click(cx + dx!, cy + dy!);
    await page.getByRole('button', { name: 'Finish polygon' }).click();
    const drawnWkt = await wkt.inputValue();
    const ring = /^POLYGON \(\((.+)\)\)$/.exec(drawnWkt)![1]!.split(', ').map((p) => p.split(' ').map(Number));
    expect(ring).toHaveLength(5);
    expect(ring[4]).toEqual(ring[0]);
    // Inside the port box, west-to-east then north-to-south as clicked.
    for (const [lon, lat] of ring) expect(lon! > 4.2 && lon! < 4.5 && lat! > 52.38 && lat! < 52.58, `${lon} ${lat}`).toBe(true);
    expect(ring[1]![0]).toBeGreaterThan(ring[0]![0]!);
    expect(ring[2]![1]).toBeLessThan(ring[1]![1]!);
    const area = async () => Number(/([\d,.]+) km²/.exec((await page.getByTestId('preview-fields').textContent()) ?? '')?.[1]?.replace(/,/g, ''));
    await expect.poll(area, { timeout: 30_000 }).toBeLessThan(200); // the drawn box, not the 454 km² port
    expect(await area()).toBeGreaterThan(1);

    // A scene by a search over the drawn polygon around a date.
    await page.getByLabel('Area of interest from').selectOption('scene');
    await page.getByLabel('Date to search scenes around (not sent)').fill('2024-06-13');
    await page.getByRole('button', { name: 'Search scenes on the map' }).click();
    const use = page.getByRole('button', { name: /^Use scene / });
    await use.first().waitFor({ timeout: 30_000 });
    const sceneId = (await use.first().getAttribute('aria-label'))!.replace('Use scene ', '');
    expect(sceneId).toMatch(/^S1[ABC]_IW_GRDH_/);
    await use.first().click();
    expect(await page.getByLabel('Scene id').inputValue()).toBe(sceneId);
    await expect.poll(() => page.locator('.preview').textContent(), { timeout: 30_000 }).toContain('CREDITS_NOT_ESTIMABLE');

    // An uploaded polygon: the preview's area is the upload's.
    await page.getByLabel('Area of interest from').selectOption('upload');
    await page.getByLabel('Uploaded polygon (ready uploads)').selectOption(upload.polygon_id);
    await expect.poll(area, { timeout: 30_000 }).toBeCloseTo(upload.area_sqkm, 2);
    await screenshot(page, 'new-job-upload');
    expect(watch.errors).toEqual([]);
    await page.close();
  }, 200_000);

  it('a time-series job on the demo city, its event stream refused (429): the page polls instead; cells coloured on the map; a click on a cell shows its chart and the values behind it', async () => {
    const { page, watch } = await signedIn();
    // The stream's place taken (as with 5 streams open on this key): the page falls back to polling.
    let refused = 0;
    await page.route(/\/api\/v1\/jobs\/[0-9a-f-]{36}\/events$/, (route) => {
      refused++;
      return route.fulfill({ status: 429, contentType: 'application/json', headers: { 'Retry-After': '10' }, body: JSON.stringify({ error: { code: 'TOO_MANY_STREAMS', message: 'at most 5 event streams per API key' } }) });
    });
    await page.goto(`${server.url}/#/new`);
    await page.getByLabel('Endpoint').selectOption('timeseries');
    await page.getByLabel('Family').selectOption('analyze');
    await page.getByLabel('Area of interest from').selectOption('wkt');
    await page.getByLabel('Polygon (WKT, EPSG:4326, lon lat)').fill(CITY);
    await page.getByLabel('From', { exact: true }).fill('2023-01-01');
    await page.getByLabel('To', { exact: true }).fill('2024-12-31');
    await page.getByTestId('preview-fields').waitFor({ timeout: 30_000 });
    await page.getByRole('button', { name: 'Submit job' }).click();
    await page.waitForURL(/#\/jobs\/[0-9a-f-]{36}$/);
    const jobId = /#\/jobs\/([0-9a-f-]{36})$/.exec(page.url())![1]!;
    timeseriesJobId = jobId;
    await page.locator('[data-testid=job-fields] .badge.status-completed').waitFor({ timeout: 240_000 });
    expect(refused).toBe(1);
    expect(await page.locator('section.details').getAttribute('data-live')).toBe('polling');
    const map = page.locator('#job-map');
    await map.and(page.locator('[data-rendered-features]')).waitFor({ timeout: 60_000 });
    const fc = await resultOf(jobId);
    expect(fc.features.length).toBeGreaterThan(3);
    expect(Number(await map.getAttribute('data-rendered-features'))).toBe(fc.features.length);

    const cell = fc.features.find((f) => (f.properties as { chart?: { dates: string[] } }).chart?.dates.length)!;
    await clickMapAt(page, ...centre(cell));
    await expect.poll(() => page.locator('.properties h2').textContent()).toBe(`Feature ${cell.id}`);
    const chart = page.locator('.properties figure.chart canvas');
    await chart.first().waitFor();
    const dates = (cell.properties as { chart: { dates: string[] } }).chart.dates;
    expect(await page.locator('.properties table.series tbody tr').count()).toBe(dates.length);
    expect(await page.locator('.properties table.series tbody tr').first().locator('td').first().textContent()).toBe(dates[0]);
    await screenshot(page, 'job-timeseries');
    expect(watch.errors.filter((e) => !/status of 429/.test(e))).toEqual([]);
    await page.close();
  }, 400_000);

  it('a time-series job’s page draws its cells from the map layer, not the full result; the first click downloads the result once and the chart still shows', async () => {
    if (!timeseriesJobId) {
      const res = await server.http('POST', '/api/v1/analyze/timeseries', { key: demoKey, body: { satellite_id: 'sentinel-1', polygon: CITY, date_start: '2023-01-01', date_end: '2024-12-31' } });
      expect(res.status).toBe(200);
      timeseriesJobId = res.json.job_id as string;
    }
    const jobId = timeseriesJobId;
    await expect.poll(async () => (await server.http('GET', `/api/v1/jobs/${jobId}`, { key: demoKey })).json.status, { timeout: 300_000, interval: 1000 }).toBe('completed');
    const view = (await server.http('GET', `/api/v1/jobs/${jobId}`, { key: demoKey })).json;
    expect(view.map_layer_path).toBe(`/api/v1/jobs/${jobId}/map-layer`);
    const fc = await resultOf(jobId);
    // A new page: nothing kept from the other tests' visits.
    const { page, watch } = await signedIn();
    const requests: string[] = [];
    page.on('request', (r) => requests.push(new URL(r.url()).pathname));
    await page.goto(`${server.url}/#/jobs/${jobId}`);
    const map = page.locator('#job-map');
    await map.and(page.locator(`[data-rendered-features="${fc.features.length}"]`)).waitFor({ timeout: 60_000 });
    expect(Number(await map.getAttribute('data-result-features'))).toBe(fc.features.length);
    expect(requests.filter((r) => r === `/api/v1/jobs/${jobId}/map-layer`)).toHaveLength(1);
    expect(requests.filter((r) => r === `/api/v1/jobs/${jobId}/result.geojson`)).toHaveLength(0);

    const withChart = fc.features.filter((f) => (f.properties as { chart?: { dates: string[] } }).chart?.dates.length);
    for (const cell of [withChart[0]!, withChart[withChart.length - 1]!]) {
      await clickMapAt(page, ...centre(cell));
      await expect.poll(() => page.locator('.properties h2').textContent()).toBe(`Feature ${cell.id}`);
      const dates = (cell.properties as { chart: { dates: string[] } }).chart.dates;
      await expect.poll(() => page.locator('.properties table.series tbody tr').count()).toBe(dates.length);
      expect(await page.locator('.properties figure.chart canvas').count()).toBeGreaterThan(0);
      // The values behind the chart are this cell's, from the full result.
      const vv = (cell.properties as { chart: { vv: Array<number | null> } }).chart.vv;
      const row = await page.locator('.properties table.series tbody tr').last().locator('td').allTextContents();
      expect(row[0]).toBe(dates[dates.length - 1]);
      expect(row[1]).toBe(String(vv[vv.length - 1] ?? '—'));
    }
    // One download of the full result for both clicks.
    expect(requests.filter((r) => r === `/api/v1/jobs/${jobId}/result.geojson`)).toHaveLength(1);
    expect(watch.errors).toEqual([]);
    await page.close();
  }, 400_000);

  it('Jobs: live status without a reload (a job submitted elsewhere appears and turns completed); the endpoint and status filters narrow the list as GET /api/v1/jobs does', async () => {
    const { page, watch } = await signedIn();
    const res = await server.http('POST', '/api/v1/detect/oilslick', { key: demoKey, body: { satellite_id: 'sentinel-1', polygon: DEMO_SLICK_AREA, date: '2024-06-13', date_direction: 'before' } });
    expect(res.status).toBe(200);
    const row = page.locator(`tr[data-job-id="${res.json.job_id}"]`);
    await row.waitFor({ timeout: 60_000 });
    await expect.poll(() => row.getAttribute('data-status'), { timeout: 240_000, interval: 500 }).toBe('completed');
    // Its page: the slick drawn (coloured by oil_probability), one feature per slick of the result.
    await row.getByRole('link').click();
    const map = page.locator('#job-map');
    await map.and(page.locator('[data-rendered-features]')).waitFor({ timeout: 60_000 });
    const slicks = await resultOf(res.json.job_id);
    expect(slicks.features.length).toBeGreaterThan(0);
    expect(Number(await map.getAttribute('data-rendered-features'))).toBe(slicks.features.length);
    await screenshot(page, 'job-oilslick');
    await page.goBack();

    await page.getByRole('checkbox', { name: 'oilslick' }).check();
    await page.getByRole('checkbox', { name: 'completed' }).check();
    await page.getByRole('button', { name: 'Apply' }).click();
    await expect.poll(() => page.url()).toMatch(/#\/jobs\?status=completed&endpoint_id=oilslick$/);
    const listed = (await server.http('GET', '/api/v1/jobs?status=completed&endpoint_id=oilslick', { key: demoKey })).json.jobs.map((j: { job_id: string }) => j.job_id);
    expect(listed).toContain(res.json.job_id);
    await expect.poll(async () => page.locator('table.jobs tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-job-id')))).toEqual(listed);
    // The filters live in the address: a reload keeps them.
    await page.reload();
    await page.locator('table.jobs').waitFor();
    expect(await page.getByRole('checkbox', { name: 'oilslick' }).isChecked()).toBe(true);
    expect(await page.getByRole('checkbox', { name: 'ship' }).isChecked()).toBe(false);
    await expect.poll(async () => page.locator('table.jobs tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-job-id')))).toEqual(listed);
    expect(watch.errors).toEqual([]);
    await page.close();
  }, 400_000);

  it('XSS: upload files and request parameters carrying <img onerror> and <script> render as text on every page; nothing executes', async () => {
    const { page, watch } = await signedIn();
    // An upload whose features are named with the payloads (ready), one that fails on them (its error is shown), a KML named so.
    const fc = (name: string, ring: number[][]) => JSON.stringify({ type: 'FeatureCollection', name, features: [{ type: 'Feature', properties: { name, [IMG]: SCRIPT }, geometry: { type: 'Polygon', coordinates: [ring] } }] });
    await page.goto(`${server.url}/#/uploads`);
    await page.locator('section[aria-labelledby=polygons-title] .table-wrap > *').first().waitFor(); // the list (or "None yet.") is in
    const readyBefore = await page.locator('.badge.status-ready').count();
    const failedBefore = await page.locator('.badge.status-failed').count();
    const upload = async (name: string, body: string) => {
      await page.getByLabel('Polygon file (GeoJSON, KML, zipped Shapefile)').setInputFiles({ name, mimeType: 'application/octet-stream', buffer: Buffer.from(body) });
      await page.getByRole('button', { name: 'Upload polygons' }).click();
      await page.getByText('Uploaded; validating.').waitFor();
    };
    await upload(`${IMG}.geojson`, fc(IMG, [[4.2, 52.4], [4.3, 52.4], [4.3, 52.5], [4.2, 52.4]]));
    await upload(`${SCRIPT}.geojson`, fc(SCRIPT, [[4.2, 52.4], [4.3, 52.5], [4.3, 52.4], [4.2, 52.5], [4.2, 52.4]]));
    const kml = `<?xml version="1.0"?><kml xmlns="http://www.opengis.net/kml/2.2"><Document><name>${IMG.replace(/</g, '&lt;')}</name><Placemark><name>${SCRIPT.replace(/</g, '&lt;')}</name><Polygon><outerBoundaryIs><LinearRing><coordinates>4.2,52.4 4.3,52.4 4.3,52.5 4.2,52.4</coordinates></LinearRing></outerBoundaryIs></Polygon></Placemark></Document></kml>`;
    await upload(`${IMG}.kml`, kml);
    await expect.poll(async () => page.locator('.badge.status-processing').count(), { timeout: 30_000 }).toBe(0);
    expect(await page.locator('.badge.status-ready').count()).toBe(readyBefore + 2);
    expect(await page.locator('.badge.status-failed').count()).toBe(failedBefore + 1);
    await screenshot(page, 'uploads');

    // A request parameter the API stores as given (a scene_id of the right shape with the payload after it).
    const sceneId = `S1A_IW_GRDH_1SDV_20240613T000000_20240613T000025_000000_000000_${IMG}`;
    const res = await server.http('POST', '/api/v1/analyze/ship', { key: demoKey, body: { satellite_id: 'sentinel-1', scene_id: sceneId } });
    expect(res.status).toBe(200);
    const hostileJob = res.json.job_id as string;

    // A polygon typed with the payload: the preview's error is shown as text.
    await page.goto(`${server.url}/#/new`);
    await page.getByLabel('Area of interest from').selectOption('wkt');
    await page.getByLabel('Polygon (WKT, EPSG:4326, lon lat)').fill(`POLYGON ((4.2 52.38, ${IMG}))`);
    await page.getByLabel('Date', { exact: true }).fill('2024-06-14');
    await page.locator('.preview .message.error').waitFor({ timeout: 30_000 });
    await page.getByRole('button', { name: 'Submit job' }).click();
    await page.locator('form .message.error').waitFor();

    await page.goto(`${server.url}/#/jobs`);
    await page.locator(`tr[data-job-id="${hostileJob}"]`).waitFor();
    // The list cuts long values; what it shows of the payload is its literal text.
    expect(await page.locator(`tr[data-job-id="${hostileJob}"] td.input`).textContent()).toContain('<img src=x onerro');
    await page.goto(`${server.url}/#/jobs/${hostileJob}`);
    await page.getByRole('heading', { name: 'Request parameters' }).waitFor();
    // From the job view's request_params, as text.
    expect(await page.getByTestId('request-params').textContent()).toContain(sceneId);
    await screenshot(page, 'job-hostile-params');

    for (const route of ['#/jobs', `#/jobs/${hostileJob}`, '#/uploads', '#/new']) {
      await page.goto(`${server.url}/${route}`);
      await page.locator('main h1').waitFor();
      await page.waitForTimeout(300);
      expect(await page.evaluate(() => (globalThis as any).__xss)).toBeUndefined();
      expect(await page.locator('img[src="x"], main script').count()).toBe(0);
    }
    expect(watch.dialogs).toEqual([]);
    expect(watch.errors.filter((e) => !/status of (400|404)/.test(e))).toEqual([]);
    await page.close();
  }, 200_000);

  it('axe-core: no serious or critical accessibility violation on any page', async () => {
    const page = await context.newPage();
    await page.goto(`${server.url}/#/signin`);
    await page.evaluate(() => (globalThis as any).sessionStorage.clear());
    await page.goto(`${server.url}/#/signin`);
    await page.getByLabel('API key').waitFor();
    const found: Record<string, unknown> = { signin: await axeSerious(page) };
    await screenshot(page, 'signin');
    await page.getByLabel('API key').fill(demoKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Jobs' }).waitFor();
    await page.locator('table.jobs').waitFor();
    found.jobs = await axeSerious(page);
    const first = (await page.locator('tr[data-status=completed]').first().getAttribute('data-job-id'))!;
    await page.goto(`${server.url}/#/jobs/${first}`);
    await page.locator('#job-map[data-rendered-features]').waitFor({ timeout: 60_000 });
    found.job = await axeSerious(page);
    await page.goto(`${server.url}/#/new`);
    await page.locator('#new-map canvas').waitFor();
    found.newJob = await axeSerious(page);
    await page.goto(`${server.url}/#/uploads`);
    await page.getByRole('heading', { name: 'Polygons' }).waitFor();
    found.uploads = await axeSerious(page);
    expect(found).toEqual({ signin: [], jobs: [], job: [], newJob: [], uploads: [] });
    await page.close();
  }, 120_000);

  it('sign-out forgets the key: sessionStorage is empty and the pages ask for a key again', async () => {
    const { page } = await signedIn();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('API key').waitFor();
    expect(await page.evaluate(() => (globalThis as any).sessionStorage.getItem('sarwatch.apiKey'))).toBeNull();
    await page.goto(`${server.url}/#/jobs`);
    await page.getByLabel('API key').waitFor();
    expect(page.url()).toMatch(/#\/signin$/);
    await page.close();
  });
});
