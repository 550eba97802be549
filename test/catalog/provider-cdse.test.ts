/**
 * CATALOG_PROVIDER=cdse against stand-ins: Copernicus Data Space's STAC API and OIDC token
 * endpoint (test/imagery/standIn.ts) and its `eodata` S3 bucket (s3rver on 127.0.0.1).
 * The North-Sea product is laid out as a COG_SAFE: the measurements as tiled ZSTD COGs,
 * the XML as in the SAFE. Assets are `s3://eodata/…` with https alternates, as CDSE gives.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { openCatalogProvider, s3Client } from '../../src/catalog/providers/index.ts';
import { OidcTokenSource } from '../../src/catalog/providers/oidcToken.ts';
import { safeProductPath } from '../../src/analysis/modules/sceneInput.ts';
import { openSafeProduct, setRemoteAccess, type SafeProduct } from '../../src/imagery/index.ts';
import { NORTH_SEA_SAFE } from '../imagery/fixtures.ts';
import { NORTH_SEA_ID, northSeaBlobFiles, northSeaItem, startStandIn, type StandIn } from '../imagery/standIn.ts';
import { HAVE_ZSTD_CLI, writeZstdCog } from '../imagery/zstdCog.ts';

const KEY_PREFIX = `Sentinel-1/SAR/IW_GRDH_1S-COG/2022/06/12/${NORTH_SEA_ID}_EA25_COG.SAFE`;
let standIn: StandIn;
let s3: S3rver;
let s3Url = '';
let tmp = '';
let local: SafeProduct;

beforeAll(async () => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'sarwatch-cdse-'));
  standIn = await startStandIn();
  s3 = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: path.join(tmp, 's3'), configureBuckets: [{ name: 'eodata' }] });
  const { port } = await s3.run();
  s3Url = `http://127.0.0.1:${port}`;
  // The COG_SAFE: XML as in the SAFE, measurements re-encoded as ZSTD COGs.
  const files = northSeaBlobFiles(`/odata/${KEY_PREFIX}`);
  for (const pol of ['vv', 'vh']) {
    const cog = path.join(tmp, `${pol}.tiff`);
    await writeZstdCog(files[pol]!.file, cog);
    files[pol] = { path: `/odata/${KEY_PREFIX}/measurement/s1a-iw-grd-${pol}-cog.tiff`, file: cog };
  }
  const client = await s3Client({ endpoint: s3Url, accessKey: 'S3RVER', secretKey: 'S3RVER' });
  for (const f of Object.values(files)) {
    await client.send(new PutObjectCommand({ Bucket: 'eodata', Key: f.path.replace('/odata/', ''), Body: readFileSync(f.file) }));
  }
  client.destroy();
  const item = northSeaItem(standIn, { apiRoot: `${standIn.url}/cdse/stac`, assetFiles: files }) as { assets: Record<string, { href: string; alternate?: unknown }> };
  // CDSE's shape: href on S3, the https download as an alternate.
  for (const a of Object.values(item.assets)) {
    const https = a.href;
    a.href = `s3://eodata/${new URL(https).pathname.replace('/odata/', '')}`;
    a.alternate = { https: { href: https } };
  }
  standIn.items.set('sentinel-1-grd', [item as never]);
  local = await openSafeProduct(NORTH_SEA_SAFE);
}, 120_000);

afterAll(async () => {
  setRemoteAccess(null);
  await local?.close();
  await s3?.close();
  await standIn?.close();
  rmSync(tmp, { recursive: true, force: true });
});

function cdseConfig(extra: Record<string, string>) {
  return loadConfig({
    CATALOG_PROVIDER: 'cdse',
    CATALOG_URL: `${standIn.url}/cdse/stac`,
    CDSE_TOKEN_URL: `${standIn.url}/auth/realms/CDSE/protocol/openid-connect/token`,
    CDSE_S3_ENDPOINT: s3Url,
    SARWATCH_BYTE_CACHE_DIR: '',
    ...extra,
  });
}

async function expectSameSigma0(product: SafeProduct): Promise<void> {
  const window = { x0: 4000, y0: 4000, width: 1000, height: 1000 };
  for (const pol of ['VV', 'VH']) {
    const a = await product.bands[pol]!.readWindow(window, { quantity: 'sigma0', denoise: true });
    const b = await local.bands[pol]!.readWindow(window, { quantity: 'sigma0', denoise: true });
    expect(Buffer.from(a.data.buffer).equals(Buffer.from(b.data.buffer))).toBe(true);
    expect(Buffer.from(a.valid.buffer).equals(Buffer.from(b.valid.buffer))).toBe(true);
  }
}

describe('Copernicus Data Space provider on the stand-in STAC API, token endpoint and s3rver bucket', () => {
  it(`s3://eodata with the user's S3 keys: ZSTD COG_SAFE measurements decode to the local SAFE's σ0 (${HAVE_ZSTD_CLI ? 'zstd-compressed tiles' : 'raw-block ZSTD frames'})`, async () => {
    const provider = openCatalogProvider(cdseConfig({ CDSE_S3_ACCESS_KEY: 'S3RVER', CDSE_S3_SECRET_KEY: 'S3RVER' }), { retry: { sleep: async () => {} } });
    setRemoteAccess(provider.access);
    const scene = await provider.catalog!.get(`${NORTH_SEA_ID}_EA25`);
    expect(scene?.productType).toBe('GRD');
    expect(scene!.assets.vh!.href).toMatch(/^s3:\/\/eodata\/Sentinel-1\//);
    const product = await openSafeProduct(safeProductPath(scene!));
    try {
      await expectSameSigma0(product);
    } finally {
      await product.close();
    }
    // Nothing went over https: the assets came from the bucket.
    expect(standIn.requests.filter((r) => r.path.startsWith('/odata/'))).toHaveLength(0);
    expect(provider.access.cache.stats.bytesFetched).toBeGreaterThan(0);
  });

  it('https alternates with an OIDC client-credentials token: one token for every request, the same σ0', async () => {
    const provider = openCatalogProvider(cdseConfig({ CDSE_CLIENT_ID: 'sarwatch', CDSE_CLIENT_SECRET: 's3cret' }), { retry: { sleep: async () => {} } });
    setRemoteAccess(provider.access);
    const scene = await provider.catalog!.get(NORTH_SEA_ID);
    const issued = standIn.oidcIssued;
    const product = await openSafeProduct(safeProductPath(scene!));
    try {
      await expectSameSigma0(product);
    } finally {
      await product.close();
    }
    const odata = standIn.requests.filter((r) => r.path.startsWith('/odata/'));
    expect(odata.length).toBeGreaterThan(0);
    expect(odata.every((r) => r.status === 206 || r.status === 200)).toBe(true);
    expect(odata.every((r) => /^Bearer access-/.test(r.authorization ?? ''))).toBe(true);
    expect(standIn.oidcIssued - issued).toBe(1);
  });

  it('CATALOG_PROVIDER=stac: s3:// assets through the AWS SDK with the usual environment credentials (stand-in STAC API, s3rver)', async () => {
    const saved = { id: process.env.AWS_ACCESS_KEY_ID, secret: process.env.AWS_SECRET_ACCESS_KEY };
    process.env.AWS_ACCESS_KEY_ID = 'S3RVER';
    process.env.AWS_SECRET_ACCESS_KEY = 'S3RVER';
    try {
      const config = loadConfig({ CATALOG_PROVIDER: 'stac', CATALOG_URL: `${standIn.url}/stac`, CATALOG_S3_ENDPOINT: s3Url, CATALOG_S3_FORCE_PATH_STYLE: '1', SARWATCH_BYTE_CACHE_DIR: '' });
      const provider = openCatalogProvider(config, { retry: { sleep: async () => {} } });
      setRemoteAccess(provider.access);
      const [scene] = await provider.catalog!.search({ productTypes: ['GRD'], start: new Date('2022-06-12T00:00:00Z'), end: new Date('2022-06-12T23:59:59Z') });
      expect(scene?.sceneId).toBe(NORTH_SEA_ID);
      const odataBefore = standIn.requests.filter((r) => r.path.startsWith('/odata/')).length;
      const product = await openSafeProduct(safeProductPath(scene!));
      try {
        await expectSameSigma0(product);
      } finally {
        await product.close();
      }
      expect(standIn.requests.filter((r) => r.path.startsWith('/odata/')).length).toBe(odataBefore);
      expect(provider.access.cache.stats.bytesFetched).toBeGreaterThan(0);
    } finally {
      if (saved.id === undefined) delete process.env.AWS_ACCESS_KEY_ID;
      else process.env.AWS_ACCESS_KEY_ID = saved.id;
      if (saved.secret === undefined) delete process.env.AWS_SECRET_ACCESS_KEY;
      else process.env.AWS_SECRET_ACCESS_KEY = saved.secret;
    }
  });

  it('the OIDC token is renewed before it expires, with the refresh token the endpoint handed out', async () => {
    let now = Date.parse('2026-01-01T00:00:00Z');
    const oidc = new OidcTokenSource({ tokenUrl: `${standIn.url}/auth/realms/CDSE/protocol/openid-connect/token`, clientId: 'cdse-public', refreshToken: 'refresh-initial', now: () => now });
    standIn.tokenLifetimeS = 600;
    const first = await oidc.token();
    expect(await oidc.token()).toBe(first);
    expect(oidc.requests).toBe(1);
    now += 600_000 - 30_000; // inside the 60 s renewal margin
    const [a, b] = await Promise.all([oidc.token(), oidc.token()]);
    expect(a).toBe(b);
    expect(a).not.toBe(first);
    expect(oidc.requests).toBe(2);
    const grants = standIn.requests.filter((r) => r.path.endsWith('/openid-connect/token'));
    expect(grants.length).toBeGreaterThanOrEqual(2);
  });

  it('wrong credentials fail with a clear error, not a hang', async () => {
    const oidc = new OidcTokenSource({ tokenUrl: `${standIn.url}/auth/realms/CDSE/protocol/openid-connect/token`, clientId: 'sarwatch', clientSecret: 'wrong' });
    await expect(oidc.token()).rejects.toMatchObject({ code: 'CATALOG_UNAVAILABLE', status: 401 });
  });
});
