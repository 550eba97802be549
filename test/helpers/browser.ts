/**
 * The dashboard's browser tests: Debian's Chromium driven by playwright-core (no browser
 * download). When Chromium is absent (a newcomer's `npm test`) the tests skip and say so,
 * as the GDAL cross-checks do; CI installs it (.ci/run).
 *
 * The dashboard they load is the current source: dist/web when it is newer than every file
 * of src/web (as `npm install` leaves it), else a fresh build into a temporary folder.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { REPO_ROOT } from '../../src/repoPaths.ts';

function findChromium(): string | null {
  for (const p of [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].filter(Boolean) as string[]) {
    if (fs.existsSync(p)) return p;
  }
  const which = spawnSync('which', ['chromium'], { encoding: 'utf8' });
  return which.status === 0 && which.stdout.trim() ? which.stdout.trim() : null;
}

export const CHROMIUM = findChromium();
export const BROWSER_SKIP_NOTE = CHROMIUM ? '' : ' (SKIPPED: no Chromium here — `apt-get install chromium`, or set CHROMIUM_PATH)';

/** What playwright-core passes as --disable-features (its chromiumSwitches), kept when we add ours. */
const PLAYWRIGHT_DISABLED_FEATURES = [
  'AvoidUnnecessaryBeforeUnloadCheckSync', 'DestroyProfileOnBrowserClose', 'HttpsUpgrades', 'HttpsFirstBalancedModeAutoEnable', 'LensOverlay', 'MediaRouter',
  'PaintHolding', 'ThirdPartyStoragePartitioning', 'AvoidCorsURLLoaderRestartOnRedirect', 'OptimizationHints', 'NetworkTimeServiceQuerying', 'AimEnabled', 'PreconnectToSearch',
];

/**
 * Headless Chromium as root on a machine with no GPU and no internet (the dashboard's
 * Leaflet map draws on a 2D canvas: no WebGL), and none of Chromium's own background
 * connections.
 */
export async function launchBrowser(): Promise<Browser> {
  if (!CHROMIUM) throw new Error('no Chromium');
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--disable-quic',
      // Chromium 15x's headless mode is the full browser: every new window (a new context)
      // preloads the omnibox popup's WebUI in a renderer of its own (~1 CPU s of a first visit,
      // nothing the page asked for). The list repeats Playwright's own (a second
      // --disable-features replaces the first).
      `--disable-features=${[...PLAYWRIGHT_DISABLED_FEATURES, 'PreloadTopChromeWebUI', 'WebUIOmniboxPopup', 'WebUIOmniboxFullPopup', 'WebUIOmniboxAimPopup'].join(',')}`,
    ],
  });
}

const WEB_SRC = path.join(REPO_ROOT, 'src', 'web');
const WEB_BUILT = path.join(REPO_ROOT, 'dist', 'web');

function newestMtime(dir: string): number {
  let newest = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    newest = Math.max(newest, e.isDirectory() ? newestMtime(p) : fs.statSync(p).mtimeMs);
  }
  return newest;
}

/** A built dashboard of the current source: dist/web when fresh, else a new build of its own. */
export function dashboardDir(): { dir: string; cleanup: () => void } {
  const index = path.join(WEB_BUILT, 'index.html');
  const fresh = fs.existsSync(index) && fs.statSync(index).mtimeMs >= Math.max(newestMtime(WEB_SRC), fs.statSync(path.join(REPO_ROOT, 'package-lock.json')).mtimeMs);
  if (fresh) return { dir: WEB_BUILT, cleanup: () => {} };
  // Its own folder: test files run in parallel and must not rebuild dist/web under each other.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sarwatch-web-'));
  const r = spawnSync(process.execPath, [path.join(REPO_ROOT, 'bin', 'build-web.js'), dir], { cwd: REPO_ROOT, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`dashboard build failed:\n${r.stdout}\n${r.stderr}`);
  return { dir, cleanup: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

/** Screenshots go here (git-ignored); they are looked at, never compared pixel by pixel. */
export const SCREENSHOT_DIR = path.join(REPO_ROOT, 'test-output', 'screenshots');

export async function screenshot(page: Page, name: string): Promise<string> {
  fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const file = path.join(SCREENSHOT_DIR, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

/**
 * What went wrong in the page: uncaught errors, console errors (CSP violations are reported
 * there as "Refused to …"), dialogs (alert/confirm/prompt — an XSS payload's usual proof).
 */
export function watchPage(page: Page): { errors: string[]; dialogs: string[] } {
  const errors: string[] = [];
  const dialogs: string[] = [];
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(`console: ${m.text()}`);
  });
  page.on('dialog', (d) => {
    dialogs.push(`${d.type()}: ${d.message()}`);
    void d.dismiss();
  });
  return { errors, dialogs };
}

const AXE_SOURCE = fs.readFileSync(path.join(REPO_ROOT, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: number;
  targets: string[];
}

/**
 * axe-core on the page as it is now. Its source is evaluated through the DevTools protocol
 * (the page's own policy forbids inline script, rightly); returns the serious and critical
 * violations.
 */
export async function axeSerious(page: Page): Promise<AxeViolation[]> {
  const loaded = await page.evaluate(() => typeof (globalThis as any).axe !== 'undefined');
  if (!loaded) await page.evaluate(`${AXE_SOURCE}\n;void 0`);
  const violations = (await page.evaluate(async () => {
    const g = globalThis as any;
    const r = (await g.axe.run(g.document, { resultTypes: ['violations'] })) as { violations: any[] };
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.length, targets: v.nodes.slice(0, 5).map((n: any) => String(n.target)) }));
  })) as AxeViolation[];
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/** The screen position (CSS px inside the map) of a lon/lat, from the map's published view (Web Mercator; Leaflet's zoom, 256-px tiles). */
export function project(view: { lon: number; lat: number; zoom: number }, size: { width: number; height: number }, lon: number, lat: number): { x: number; y: number } {
  const world = 256 * 2 ** view.zoom;
  const mx = (l: number) => ((l + 180) / 360) * world;
  const my = (p: number) => ((1 - Math.log(Math.tan(Math.PI / 4 + (p * Math.PI) / 360)) / Math.PI) / 2) * world;
  return { x: size.width / 2 + mx(lon) - mx(view.lon), y: size.height / 2 + my(lat) - my(view.lat) };
}
