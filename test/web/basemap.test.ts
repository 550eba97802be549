/**
 * The online basemap option (SARWATCH_BASEMAP_URL) in Chromium: tiles from another origin
 * pass the dashboard's Content-Security-Policy (their origin is added to it) and are drawn;
 * the map's checkbox hides them, leaving the offline land and sea. The tile server is a
 * stand-in on loopback answering every tile with one solid green PNG.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PNG } from 'pngjs';
import type { Browser, Page } from 'playwright-core';
import { startTestService, type TestService } from '../helpers/service.ts';
import { BROWSER_SKIP_NOTE, CHROMIUM, dashboardDir, launchBrowser, screenshot, watchPage } from '../helpers/browser.ts';

function greenTile(): Buffer {
  const png = new PNG({ width: 256, height: 256 });
  for (let i = 0; i < png.data.length; i += 4) png.data.set([0, 200, 0, 255], i);
  return PNG.sync.write(png);
}

let tiles: http.Server;
let tileRequests = 0;
let t: TestService;
let web: ReturnType<typeof dashboardDir>;
let browser: Browser;

describe.skipIf(!CHROMIUM)(`the online basemap through the dashboard's policy (stand-in tile server on loopback)${BROWSER_SKIP_NOTE}`, () => {
  beforeAll(async () => {
    const tile = greenTile();
    tiles = http.createServer((req, res) => {
      tileRequests++;
      if (!/^\/\d+\/\d+\/\d+\.png$/.test(req.url ?? '')) return void res.writeHead(404).end();
      res.writeHead(200, { 'Content-Type': 'image/png', 'Access-Control-Allow-Origin': '*' }).end(tile);
    });
    await new Promise<void>((r) => tiles.listen(0, '127.0.0.1', r));
    const port = (tiles.address() as AddressInfo).port;
    web = dashboardDir();
    t = await startTestService({ SARWATCH_WEB_DIR: web.dir, SARWATCH_BASEMAP_URL: `http://127.0.0.1:${port}/{z}/{x}/{y}.png` });
    browser = await launchBrowser();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await new Promise((r) => tiles?.close(r));
    web?.cleanup();
  });

  async function centrePixel(page: Page): Promise<[number, number, number]> {
    const png = PNG.sync.read(await page.locator('#new-map').screenshot());
    const i = (Math.floor(png.height / 2) * png.width + Math.floor(png.width / 2)) * 4;
    return [png.data[i]!, png.data[i + 1]!, png.data[i + 2]!];
  }
  const green = ([r, g, b]: [number, number, number]) => g > 150 && r < 60 && b < 60;

  it('tiles of the configured origin are fetched and drawn under the policy; the checkbox hides them', async () => {
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    const watch = watchPage(page);
    await page.goto(`${t.url}/`);
    await page.getByLabel('API key').fill(t.apiKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Jobs' }).waitFor();
    await page.goto(`${t.url}/#/new`);
    await page.locator('#new-map[data-view]').waitFor();
    await expect.poll(() => centrePixel(page).then(green), { timeout: 30_000 }).toBe(true);
    expect(tileRequests).toBeGreaterThan(0);
    await screenshot(page, 'new-job-online-basemap');
    await page.getByLabel('Online basemap').uncheck();
    await expect.poll(() => centrePixel(page).then(green), { timeout: 10_000 }).toBe(false);
    expect(watch.errors).toEqual([]);
    await page.close();
  });
});
