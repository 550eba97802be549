/**
 * Issue 2, "What a newcomer must be able to do": `npm start` prints a working demo key and
 * a curl example; the `sarwatch` CLI manages accounts, keys and credits in the same data
 * directory as the running server.
 */
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { promisify } from 'node:util';
import path from 'node:path';
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDataDir } from '../helpers/service.ts';
import { expectResultRules } from '../helpers/resultRules.ts';
import { runSarwatchInProcess, runSarwatchWithEnv } from '../helpers/cli.ts';
import { TEST_STORE, dropTestStore, testStoreEnv } from '../helpers/services.ts';
import { S1_DATA, SAMPLES } from '../helpers/samples.ts';
import { northSeaShipRun } from '../helpers/runFixtures.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');

// SARWATCH_TEST_STORE=postgres: the server and the CLI share a PostgreSQL database made for the data directory.
const sarwatch = async (dir: string, ...args: string[]) => runSarwatchWithEnv(await testStoreEnv(dir), dir, ...args);
/** The same command in this process (runCli): for the refusals and the checks that need no `sarwatch` process. */
const inProcess = async (dir: string, ...args: string[]) => runSarwatchInProcess(await testStoreEnv(dir), dir, ...args);

let dataDir: string;
let server: ChildProcess;
let output = '';
let baseUrl = '';
let demoKey = '';

beforeAll(async () => {
  dataDir = tempDataDir();
  server = spawn('npm', ['start'], {
    cwd: ROOT,
    // SARWATCH_ARCHIVE_WATCH=0: `catalog index DIR` below counts what its own walk adds; a
    // watching server would index the new link at the same time and race it for the count (the
    // folder watch has its own tests: test/catalog/watchArchive.test.ts).
    env: { ...process.env, ...(await testStoreEnv(dataDir)), SARWATCH_DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'warn', SARWATCH_ARCHIVE_WATCH: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  server.stdout!.on('data', (d) => (output += String(d)));
  server.stderr!.on('data', (d) => (output += String(d)));
  // First start generates the demo archive (about 20 s on two cores).
  const deadline = Date.now() + 150_000;
  while (!/Demo API key: (\S+)/.test(output)) {
    if (Date.now() > deadline || server.exitCode !== null) throw new Error(`server did not start:\n${output}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  baseUrl = /running at (http:\/\/\S+)/.exec(output)![1];
  demoKey = /Demo API key: (\S+)/.exec(output)![1];
}, 180_000);

afterAll(async () => {
  if (server?.pid) {
    try {
      process.kill(-server.pid, 'SIGTERM');
    } catch {
      /* already gone */
    }
    await new Promise((r) => setTimeout(r, 300));
  }
  await dropTestStore(dataDir);
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('npm start (embedded default)', () => {
  it('prints the URL, the docs link, a demo API key with credits and a curl example; /healthz is 200', async () => {
    expect(output).toMatch(/API docs: +http:\/\/127\.0\.0\.1:\d+\/docs/);
    expect(output).toMatch(/Dashboard: +http:\/\/127\.0\.0\.1:\d+\/ /);
    expect(output).toMatch(/curl -s -H "Authorization: Bearer sw_/);
    expect((await fetch(`${baseUrl}/healthz`)).status).toBe(200);
    const preview = await fetch(`${baseUrl}/api/v1/analyze/ship/preview`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${demoKey}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ satellite_id: 'sentinel-1', polygon: 'POLYGON ((2.5 51.3, 2.7 51.3, 2.7 51.45, 2.5 51.45, 2.5 51.3))', date: '2022-06-12' }),
    });
    expect(preview.status).toBe(200);
    const body: any = await preview.json();
    expect(body.credits.balance).toBe(10_000);
    expect(body.credits.sufficient).toBe(true);
  });

  it('the printed curl example works as printed: a preview over the demo port with predicted coverage', async () => {
    const block = /Try it:\n((?: {2}.*\n)+)/.exec(output)![1];
    const { stdout } = await promisify(execFile)('bash', ['-c', block.replace(/\\\n/g, ' ')]);
    const preview = JSON.parse(stdout);
    expect(preview.endpoint_id).toBe('ship');
    expect(preview.coverage).toMatchObject({ method: 'estimated', ratio: 1 });
    expect(preview.credits.sufficient).toBe(true);
  });

  it('the default archive holds the demo products (GRD port, RTC city and farmland, an SLC) and the real samples', async () => {
    const scenes = async (qs: string) =>
      ((await (await fetch(`${baseUrl}/api/v1/scenes?${qs}`, { headers: { Authorization: `Bearer ${demoKey}` } })).json()) as any).scenes as Array<{ scene_id: string; product_type: string; start_time: string }>;
    const port = await scenes('product_type=GRD&date_start=2024-06-01&date_end=2024-06-30');
    expect(port.map((s) => s.start_time.slice(0, 10))).toEqual(['2024-06-13', '2024-06-25']);
    expect((await scenes('product_type=SLC')).length).toBeGreaterThanOrEqual(1);
    expect((await scenes('product_type=RTC&date_start=2023-01-01&date_end=2024-12-31&limit=500')).length).toBeGreaterThanOrEqual(61);
    expect((await scenes('product_type=GRD&date_start=2022-06-12&date_end=2022-06-12')).map((s) => s.scene_id)).toContain(
      'S1A_IW_GRDH_1SDV_20220612T173329_20220612T173354_043633_05359A_EA25',
    );
    expect(output).toMatch(/Generated \d+ demo products in [\d.]+ s/);
  });

  it('keeps its state in SARWATCH_DATA_DIR: the demo key is the same on the next start', () => {
    expect(fs.readFileSync(path.join(dataDir, 'demo-api-key'), 'utf8').trim()).toBe(demoKey);
    // The SQLite file is there when SQLite is the store; on PostgreSQL nothing is.
    expect(fs.existsSync(path.join(dataDir, 'sarwatch.db'))).toBe(TEST_STORE === 'sqlite');
  });
});

// Each test runs `node bin/sarwatch.js` once or twice as a user does — each such process pays
// its start-up (node and the precompiled modules it loads: ~1.3 CPU s for a command that opens
// the store, several seconds of wall time on the shared two-core box under load) — and its
// refusals and further commands in this process (runCli: the same exit code, stdout and stderr),
// which pays the modules' loading once. The same budget as the other CLI tests.
describe('sarwatch CLI shares the data directory with the server', { timeout: 180_000 }, () => {
  it('accounts create --json prints {"account_id","api_key"}; the key works on the running server at once', async () => {
    const res = await sarwatch(dataDir, 'accounts', 'create', '--name', 'Port of Rotterdam', '--credits', '250', '--json');
    expect(res.code).toBe(0);
    const created = JSON.parse(res.stdout);
    expect(Object.keys(created).sort()).toEqual(['account_id', 'api_key']);
    const jobs = await fetch(`${baseUrl}/api/v1/jobs`, { headers: { Authorization: `Bearer ${created.api_key}` } });
    expect(jobs.status).toBe(200);
    expect(await jobs.json()).toEqual({ jobs: [] });

    const shown = JSON.parse((await inProcess(dataDir, 'credits', 'show', '--account', created.account_id, '--json')).stdout);
    expect(shown.balance).toBe(250);
    const granted = JSON.parse((await inProcess(dataDir, 'credits', 'grant', '--account', created.account_id, '--credits', '50', '--json')).stdout);
    expect(granted.balance).toBe(300);
    const overdrawn = await inProcess(dataDir, 'credits', 'grant', '--account', created.account_id, '--credits=-1000');
    expect(overdrawn.code).toBe(2);
    expect(overdrawn.stderr).toMatch(/^sarwatch: /);
    expect(overdrawn.stdout).toBe('');
    expect(JSON.parse((await inProcess(dataDir, 'credits', 'show', '--account', created.account_id, '--json')).stdout).balance).toBe(300);
  });

  it('keys create with scopes, keys revoke: the revoked key is refused by the server', async () => {
    const account = JSON.parse((await inProcess(dataDir, 'accounts', 'create', '--name', 'reader', '--credits', '0', '--json')).stdout);
    const key = JSON.parse((await sarwatch(dataDir, 'keys', 'create', '--account', account.account_id, '--scopes', 'jobs:read', '--json')).stdout);
    const post = await fetch(`${baseUrl}/api/v1/detect/ship`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key.api_key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ satellite_id: 'sentinel-1', scene_id: 'S1A_IW_GRDH_1SDV_20220612T173329_20220612T173354_043633_05359A_EA25' }),
    });
    expect(post.status).toBe(403);
    expect((await sarwatch(dataDir, 'keys', 'revoke', key.key_id)).code).toBe(0);
    const after = await fetch(`${baseUrl}/api/v1/jobs`, { headers: { Authorization: `Bearer ${key.api_key}` } });
    expect(after.status).toBe(401);
    const again = await inProcess(dataDir, 'keys', 'revoke', key.key_id);
    expect(again).toEqual({ code: 2, stdout: '', stderr: `sarwatch: no active key ${key.key_id}\n` });
  });

  it('catalog index DIR links the folder into the archive and indexes it incrementally; catalog list finds its scenes', async () => {
    const stac = path.join(SAMPLES, 'stac-examples');
    const first = await sarwatch(dataDir, 'catalog', 'index', stac, '--json');
    expect(first.code).toBe(0);
    const result = JSON.parse(first.stdout);
    expect(result.added).toBe(4); // two GRD and two RTC example items
    expect(fs.lstatSync(path.join(dataDir, 'archive', 'stac-examples')).isSymbolicLink()).toBe(true);
    const again = JSON.parse((await inProcess(dataDir, 'catalog', 'index', '--json')).stdout);
    expect(again.added).toBe(0);
    expect(again.skipped).toBeGreaterThanOrEqual(4);
    const listed = JSON.parse((await sarwatch(dataDir, 'catalog', 'list', '--product-type', 'GRD', '--date-start', '2021-08-09', '--date-end', '2021-08-09', '--json')).stdout);
    expect(listed.scenes.map((s: { scene_id: string }) => s.scene_id)).toEqual(['S1A_IW_GRDH_1SDV_20210809T173953_20210809T174018_039156_049F13']);
    const text = await inProcess(dataDir, 'catalog', 'list', '--product-type', 'GRD', '--date-start', '2021-08-09', '--date-end', '2021-08-09');
    expect(text.stdout).toMatch(/2021-08-09T17:39:53Z {2}GRD {2}S1A rel {2}59 ascending/);
    // The running server sees the same catalog.
    const res = await fetch(`${baseUrl}/api/v1/scenes?product_type=GRD&date_start=2021-08-09&date_end=2021-08-09`, { headers: { Authorization: `Bearer ${demoKey}` } });
    expect(((await res.json()) as any).scenes).toHaveLength(1);
    const limit = await inProcess(dataDir, 'catalog', 'list', '--limit', '0');
    expect(limit.code).toBe(2);
    expect(limit.stderr).toMatch(/^sarwatch: .*limit/);
  });

  it('analyze ship runs the detector on a SAFE product without the service (issue 4: like SNAP gpt)', async () => {
    const safe = path.join(S1_DATA, 'grd-safe-northsea-ships/notebooks/VesselDetection/data/S1A_IW_GRDH_1SDV_20220612T173329_20220612T173354_043633_05359A_EA25_test.SAFE');
    // `sarwatch analyze ship SAFE --out FILE`, run once per test run and shared with
    // test/cli/analyze-sigma0.test.ts (test/helpers/runFixtures.ts): 8 CPU s a run.
    const res = await northSeaShipRun();
    expect(res.args).toEqual(['analyze', 'ship', safe, '--out', expect.stringMatching(/\.geojson$/)]);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).toMatch(/\d+ features written to/);
    const fc = res.fc!;
    expectResultRules(fc);
    // The 16 certain vessels of the ground truth are all there (docs/ship.md).
    expect(fc.features.length).toBeGreaterThanOrEqual(16);
    const tif = await inProcess(dataDir, 'analyze', 'ship', path.join(ROOT, 'README.md'));
    expect(tif.code, tif.stderr).toBe(2);
    expect(tif.stderr).toMatch(/^sarwatch: /);
    // A time series of GRD products needs several dates.
    const grd = await inProcess(dataDir, 'analyze', 'timeseries', safe, '--polygon', 'POLYGON ((2.5 51.3, 2.7 51.3, 2.7 51.45, 2.5 51.45, 2.5 51.3))');
    expect(grd.code).toBe(2);
    expect(grd.stderr).toMatch(/a time series needs at least two SAFE products; got 1/);
  });

  it('bad usage exits 2 with a message; unknown scopes are refused', async () => {
    // The process exits 2 with the message on stderr …
    const missing = await sarwatch(dataDir, 'accounts', 'create', '--credits', '5');
    expect(missing).toEqual({ code: 2, stdout: '', stderr: 'sarwatch: --name is required\n' });
    // … as runCli returns and writes it in this process.
    expect(await inProcess(dataDir, 'accounts', 'create', '--credits', '5')).toEqual(missing);
    const scope = await inProcess(dataDir, 'accounts', 'create', '--name', 'x', '--credits', '5', '--scopes', 'admin');
    expect(scope.code).toBe(2);
    expect(scope.stderr).toMatch(/unknown scope "admin"/);
    const unknown = await inProcess(dataDir, 'frobnicate');
    expect(unknown).toEqual({ code: 2, stdout: '', stderr: 'sarwatch: unknown command "frobnicate"\n' });
    const option = await inProcess(dataDir, 'accounts', 'create', '--nmae', 'x');
    expect(option.code).toBe(2);
    expect(option.stderr).toMatch(/^sarwatch: Unknown option '--nmae'/);
    const none = await inProcess(dataDir);
    expect(none.code).toBe(2);
    expect(none.stdout).toMatch(/^sarwatch \d+\.\d+\.\d+ — .*\n\nUsage:\n/);
    expect(await inProcess(dataDir, '--help')).toEqual({ code: 0, stdout: none.stdout, stderr: '' });
  });
});
