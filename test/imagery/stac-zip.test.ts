/**
 * A GRD delivered as one SAFE zip asset (Copernicus Data Space's `PRODUCT`), read in place
 * on the stand-in archive (test/imagery/standIn.ts): the real North-Sea crop zipped here
 * (XML deflated, measurements stored, as ESA's SAFE zips are), served behind an OIDC bearer
 * token with range support. σ0 must equal the local SAFE folder's, every read must be a
 * range request, and a new process on the same byte cache must download nothing.
 */
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { openCatalogProvider } from '../../src/catalog/providers/index.ts';
import { safeProductPath } from '../../src/analysis/modules/sceneInput.ts';
import { openSafeContainer } from '../../src/imagery/safe/container.ts';
import { openSafeProduct, setRemoteAccess, type SafeProduct } from '../../src/imagery/index.ts';
import { NORTH_SEA_SAFE } from './fixtures.ts';
import { zipFolder } from '../helpers/zip.ts';
import { NORTH_SEA_ID, northSeaItem, startStandIn, type StandIn } from './standIn.ts';

const PRODUCT = `${NORTH_SEA_ID}_EA25`;
const ZIP_PATH = `/odata/Sentinel-1/SAR/IW_GRDH_1S/2022/06/12/${PRODUCT}.SAFE.zip`;
const DEFLATED_PATH = `/odata/Sentinel-1/SAR/IW_GRDH_1S/2022/06/12/${PRODUCT}-deflated.SAFE.zip`;
const WINDOW = { x0: 4200, y0: 4300, width: 400, height: 300 };

let standIn: StandIn;
let tmp = '';
let zipFile = '';
let local: SafeProduct;

function cdseProvider(cacheDir: string) {
  const config = loadConfig({
    CATALOG_PROVIDER: 'cdse',
    CATALOG_URL: `${standIn.url}/cdse/stac`,
    CDSE_TOKEN_URL: `${standIn.url}/auth/realms/CDSE/protocol/openid-connect/token`,
    CDSE_CLIENT_ID: 'sarwatch',
    CDSE_CLIENT_SECRET: 's3cret',
    SARWATCH_BYTE_CACHE_DIR: cacheDir,
  });
  return openCatalogProvider(config, { retry: { sleep: async () => {} } });
}

/** A CDSE-shaped item whose only product asset is the zip: s3://eodata href, https alternate. */
function zipItem(id: string, zipPath: string): Record<string, unknown> {
  const item = northSeaItem(standIn, { apiRoot: `${standIn.url}/cdse/stac`, assetFiles: {} }) as Record<string, any>;
  item.id = id;
  item.properties['s1:product_identifier'] = id;
  item.assets = {
    PRODUCT: {
      href: `s3://eodata${zipPath.replace('/odata', '')}`,
      title: 'Product',
      type: 'application/zip',
      roles: ['data', 'metadata', 'archive'],
      alternate: { https: { href: `${standIn.url}${zipPath}` } },
    },
  };
  item.links = item.links.map((l: { rel: string; href: string }) => (l.rel === 'self' ? { ...l, href: `${standIn.url}/cdse/stac/collections/sentinel-1-grd/items/${id}` } : l));
  return item;
}

beforeAll(async () => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'sarwatch-cdsezip-'));
  standIn = await startStandIn();
  zipFile = path.join(tmp, 'product.zip');
  writeFileSync(zipFile, zipFolder(NORTH_SEA_SAFE, `${PRODUCT}.SAFE`, (rel) => (rel.startsWith('measurement') ? 'store' : 'deflate')));
  const deflated = path.join(tmp, 'deflated.zip');
  writeFileSync(deflated, zipFolder(NORTH_SEA_SAFE, `${PRODUCT}.SAFE`, () => 'deflate'));
  standIn.files.set(ZIP_PATH, zipFile);
  standIn.files.set(DEFLATED_PATH, deflated);
  standIn.items.set('sentinel-1-grd', [zipItem(PRODUCT, ZIP_PATH), zipItem(`${NORTH_SEA_ID}_DEFL`, DEFLATED_PATH)]);
  local = await openSafeProduct(NORTH_SEA_SAFE);
});

afterAll(async () => {
  setRemoteAccess(null);
  await local?.close();
  await standIn?.close();
  rmSync(tmp, { recursive: true, force: true });
});

async function expectSameSigma0(product: SafeProduct): Promise<void> {
  for (const pol of ['VV', 'VH']) {
    const a = await product.bands[pol]!.readWindow(WINDOW, { quantity: 'sigma0', denoise: true });
    const b = await local.bands[pol]!.readWindow(WINDOW, { quantity: 'sigma0', denoise: true });
    expect(a.data.length).toBe(WINDOW.width * WINDOW.height);
    expect(Buffer.from(a.data.buffer).equals(Buffer.from(b.data.buffer))).toBe(true);
    expect(Buffer.from(a.valid.buffer).equals(Buffer.from(b.valid.buffer))).toBe(true);
  }
}

describe('a CDSE SAFE zip asset read in place on the stand-in archive (North-Sea crop)', () => {
  const cacheDir = () => path.join(tmp, 'cache');

  it('σ0 equals the local SAFE folder on a window, by range requests with the bearer token only', async () => {
    const provider = cdseProvider(cacheDir());
    setRemoteAccess(provider.access);
    const scene = await provider.catalog!.get(PRODUCT);
    expect(scene?.assets.product?.role).toBe('stac-item');
    const product = await openSafeProduct(safeProductPath(scene!));
    try {
      expect(product.polarisations).toEqual(['VV', 'VH']);
      expect(product.validWindow).toEqual(local.validWindow);
      expect(product.footprint).toEqual(local.footprint);
      expect(product.bands.VV!.calibration).toEqual(local.bands.VV!.calibration);
      expect(product.bands.VH!.noise).toEqual(local.bands.VH!.noise);
      await expectSameSigma0(product);
    } finally {
      await product.close();
    }
    const zipRequests = standIn.requests.filter((r) => r.path === ZIP_PATH);
    expect(zipRequests.length).toBeGreaterThan(0);
    expect(zipRequests.every((r) => r.status === 206 && /^bytes=\d+-\d+$/.test(r.range ?? ''))).toBe(true);
    expect(zipRequests.every((r) => /^Bearer access-/.test(r.authorization ?? ''))).toBe(true);
    // Only the central directory, the headers, the XML and the window's rows: never the zip.
    const size = statSync(zipFile).size;
    expect(zipRequests.every((r) => r.bytes < size)).toBe(true);
    expect(zipRequests.reduce((s, r) => s + r.bytes, 0)).toBeLessThan(size);
  });

  it('a second process on the same byte cache downloads nothing from the zip', async () => {
    const before = standIn.requests.filter((r) => r.path === ZIP_PATH).length;
    const provider = cdseProvider(cacheDir());
    setRemoteAccess(provider.access);
    const scene = await provider.catalog!.get(PRODUCT);
    const product = await openSafeProduct(safeProductPath(scene!));
    try {
      await expectSameSigma0(product);
    } finally {
      await product.close();
    }
    expect(standIn.requests.filter((r) => r.path === ZIP_PATH).length).toBe(before);
    expect(provider.access.cache.stats.bytesFetched).toBe(0);
  });

  it('the XML is read from deflated members; a deflated measurement is refused with COMPRESSED_ZIP_MEMBER', async () => {
    const provider = cdseProvider(path.join(tmp, 'cache-deflated'));
    setRemoteAccess(provider.access);
    const container = await openSafeContainer(`${standIn.url}/cdse/stac/collections/sentinel-1-grd/items/${NORTH_SEA_ID}_DEFL`);
    try {
      expect(container.productName).toBe(PRODUCT);
      expect(container.files()).toContain('manifest.safe');
      expect(await container.readText('manifest.safe')).toContain('<xfdu:XFDU');
      const tiff = container.files().find((f) => f.startsWith('measurement/'))!;
      await expect(container.openTiff(tiff)).rejects.toMatchObject({ code: 'COMPRESSED_ZIP_MEMBER' });
    } finally {
      await container.close();
    }
    const requests = standIn.requests.filter((r) => r.path === DEFLATED_PATH);
    expect(requests.every((r) => r.status === 206)).toBe(true);
  });
});
