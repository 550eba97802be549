/**
 * CATALOG_PROVIDER=planetary-computer end to end, against the stand-in archive
 * (test/imagery/standIn.ts answers as Planetary Computer: STAC API, SAS token endpoint, blob
 * storage that wants the token): scene_id jobs resolve through the provider in both
 * families, read the North-Sea crop's assets by range and find the same vessels as the local
 * SAFE; failures of search and of range reads end in clear codes and are never charged.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detectShipsInSafe } from '../../src/analysis/ship/index.ts';
import { closeAnalysisPool } from '../../src/analysis/engine/pool.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { openCatalogProvider } from '../../src/catalog/providers/index.ts';
import { loadConfig } from '../../src/config.ts';
import { openRasterProduct, remoteAccess, setRemoteAccess } from '../../src/imagery/index.ts';
import { NORTH_SEA_SAFE, SAN_FRANCISCO_VV } from '../imagery/fixtures.ts';
import { STAC_EXAMPLES } from './fixtures.ts';
import { NORTH_SEA_ID, northSeaItem, startStandIn, type StandIn } from '../imagery/standIn.ts';

const CROP = 'POLYGON ((2.75 51.55, 2.95 51.55, 2.95 51.7, 2.75 51.7, 2.75 51.55))';
let standIn: StandIn;
let t: TestService;

beforeAll(async () => {
  standIn = await startStandIn();
  standIn.items.set('sentinel-1-grd', [northSeaItem(standIn)]);
  t = await startTestService(
    {
      CATALOG_PROVIDER: 'planetary-computer',
      CATALOG_URL: `${standIn.url}/api/stac/v1`,
      PC_SAS_TOKEN_URL: `${standIn.url}/api/sas/v1/token`,
      PC_SUBSCRIPTION_KEY: 'stand-in-key',
      SARWATCH_REMOTE_ATTEMPTS: '3',
    },
    { scenes: [], credits: 100_000 },
  );
}, 120_000);

afterAll(async () => {
  await t?.close();
  await closeAnalysisPool();
  await standIn?.close();
});

async function run(family: 'analyze' | 'detect', body: object) {
  const { job_id } = await t.client.submit(family, 'ship', body as never);
  // wait() throws on a failed job; the job itself is what these tests look at.
  await t.client.wait(job_id, { initialDelayMs: 200, maxDelayMs: 500, timeoutMs: 200_000 }).catch(() => null);
  return (await t.http('GET', `/api/v1/jobs/${job_id}`)).json;
}

async function balance(): Promise<number> {
  return (await t.client.preview('ship', { satellite_id: 'sentinel-1', polygon: CROP, date: '2022-06-12' } as never)).credits.balance;
}

describe('Planetary Computer provider on the stand-in archive', () => {
  it('range reads that keep failing (503) fail the job with IMAGERY_UNAVAILABLE after the retry budget; not charged', async () => {
    const before = await balance();
    standIn.inject(/iw-vh\.tiff$/, [503, 503, 503]);
    const job = await run('analyze', { satellite_id: 'sentinel-1', scene_id: NORTH_SEA_ID });
    expect(job.status).toBe('failed');
    expect(job.error_code).toBe('IMAGERY_UNAVAILABLE');
    expect(job.area_sqkm).toBeNull();
    expect(await balance()).toBe(before);
  });

  it('scene_id job (analyze) through the provider: SAS-signed range reads, the same 16 vessels as the local SAFE; 429 answers ridden over', async () => {
    standIn.inject(/iw-vh\.tiff$/, [429], { 'retry-after': '0' });
    const job = await run('analyze', { satellite_id: 'sentinel-1', scene_id: NORTH_SEA_ID });
    expect(job.status).toBe('completed');
    const fc = await t.client.downloadResult(job.job_id);
    const local = await detectShipsInSafe(NORTH_SEA_SAFE);
    expect(fc.features.length).toBe(local.features.length);
    expect(fc.features.length).toBeGreaterThanOrEqual(16);
    expect(fc.features.map((f: any) => f.geometry)).toEqual(local.features.map((f) => f.geometry));
    // Search went to the STAC API with the subscription key; tokens came per collection.
    expect(standIn.requests.some((r) => r.path === '/api/stac/v1/search' && r.subscriptionKey === 'stand-in-key')).toBe(true);
    expect(standIn.requests.some((r) => r.path === '/api/sas/v1/token/sentinel-1-grd' && r.subscriptionKey === 'stand-in-key')).toBe(true);
    const tiffs = standIn.requests.filter((r) => r.path.endsWith('.tiff') && r.status === 206);
    expect(tiffs.every((r) => /sig=sentinel-1-grd-/.test(r.query) && r.range)).toBe(true);
  });

  it('a second job on the same scene downloads no asset byte again (on-disk byte cache)', async () => {
    const before = standIn.assetBytes();
    const job = await run('detect', { satellite_id: 'sentinel-1', scene_id: `${NORTH_SEA_ID}_EA25` });
    expect(job.status).toBe('completed');
    expect(standIn.assetBytes()).toBe(before);
  });

  it('polygon + date: the scene is found by search and the job completes clipped to the polygon', async () => {
    const job = await run('detect', { satellite_id: 'sentinel-1', polygon: CROP, date: '2022-06-13' });
    expect(job.status).toBe('completed');
    expect(job.coverage).toMatchObject({ method: 'estimated', ratio: 1 });
    expect(job.scene_selection).toEqual({ first_month: '2022-06', last_month: '2022-06' });
  });

  it('family rules through the provider: detect rejects an SLC id (400 INVALID_SCENE); analyze fails an unknown GRD with SCENE_NOT_FOUND', async () => {
    const slc = await t.http('POST', '/api/v1/detect/ship', { body: { satellite_id: 'sentinel-1', scene_id: 'S1A_IW_SLC__1SDV_20220612T173329_20220612T173356_043633_05359A_F1A2' } });
    expect(slc.status).toBe(400);
    expect(slc.json.error.code).toBe('INVALID_SCENE');
    const job = await run('analyze', { satellite_id: 'sentinel-1', scene_id: 'S1A_IW_GRDH_1SDV_20220613T173329_20220613T173354_043648_05359B_ABCD' });
    expect(job.status).toBe('failed');
    expect(job.error_code).toBe('SCENE_NOT_FOUND');
  });

  it('sentinel-1-rtc: an RTC COG asset is read with the sentinel-1-rtc collection\'s SAS token (stand-in)', async () => {
    const example = JSON.parse(readFileSync(path.join(STAC_EXAMPLES, 'rtc/sentinel1-rtc-aws/2020/S1A_20200103_17RMJ_ASC/S1A_20200103_17RMJ_ASC.json'), 'utf8'));
    const blob = '/blob/sentinel1-grd-rtc/2020/1/3/S1A_20200103_17RMJ_ASC/vv.tif';
    standIn.files.set(blob, SAN_FRANCISCO_VV);
    const item = { ...example, collection: 'sentinel-1-rtc', assets: { vv: { ...example.assets.gamma0_vv, href: `${standIn.url}${blob}` } }, links: [] };
    standIn.items.set('sentinel-1-rtc', [item]);
    const provider = openCatalogProvider(
      loadConfig({ CATALOG_PROVIDER: 'planetary-computer', CATALOG_URL: `${standIn.url}/api/stac/v1`, PC_SAS_TOKEN_URL: `${standIn.url}/api/sas/v1/token`, SARWATCH_BYTE_CACHE_DIR: '' }),
      { retry: { sleep: async () => {} } },
    );
    const [scene] = await provider.catalog!.search({ productTypes: ['RTC'] });
    expect(scene?.productType).toBe('RTC');
    expect(scene!.assets.vv!.href).not.toMatch(/sig=/); // records keep plain hrefs; reads are signed
    // The service in this process has its own access installed: put it back afterwards.
    const service = remoteAccess();
    setRemoteAccess(provider.access);
    try {
      const remote = await openRasterProduct(scene!.assets.vv!.href);
      const local = await openRasterProduct(SAN_FRANCISCO_VV);
      const w = { x0: 10, y0: 10, width: 40, height: 30 };
      expect(Array.from((await remote.readWindow(w)).data[0]!)).toEqual(Array.from((await local.readWindow(w)).data[0]!));
      await remote.close();
      await local.close();
    } finally {
      setRemoteAccess(service);
    }
    const reads = standIn.requests.filter((r) => r.path === blob);
    expect(reads.length).toBeGreaterThan(0);
    expect(reads.every((r) => r.status === 206 && /sig=sentinel-1-rtc-/.test(r.query))).toBe(true);
  });

  it('search failing past the retry budget: the job fails CATALOG_UNAVAILABLE (not charged), the preview omits coverage', async () => {
    const before = await balance();
    standIn.inject(/\/api\/stac\/v1\/search$/, [503, 503, 503, 503, 503, 503]);
    const preview = await t.client.preview('ship', { satellite_id: 'sentinel-1', polygon: CROP, date: '2022-06-12' } as never);
    expect(preview.coverage ?? null).toBeNull();
    expect(preview.credits.estimated).toBeGreaterThan(0);
    const job = await run('detect', { satellite_id: 'sentinel-1', polygon: CROP, date: '2022-06-12' });
    expect(job.status).toBe('failed');
    expect(job.error_code).toBe('CATALOG_UNAVAILABLE');
    expect(await balance()).toBe(before);
  });
});
