/**
 * A GRD product assembled from STAC assets (src/imagery/stac) against the stand-in archive
 * (test/imagery/standIn.ts): the real North-Sea crop's SAFE files served as the assets of a
 * Planetary-Computer-shaped `sentinel-1-grd` item, behind SAS tokens, read by range. The
 * values must equal the local SAFE folder's, and the ship detector must find the same vessels.
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeAnalysisPool } from '../../src/analysis/engine/pool.ts';
import { detectShipsInProduct, detectShipsInSafe } from '../../src/analysis/ship/index.ts';
import { detectSlicksInSafe } from '../../src/analysis/oilslick/index.ts';
import { PlanetaryComputerSigner } from '../../src/catalog/providers/planetaryComputerSas.ts';
import { openSafeProduct, RemoteAccess, setRemoteAccess, type SafeProduct } from '../../src/imagery/index.ts';
import { scoreDetections, type TruthPoint } from '../analysis/shipEval.ts';
import { NORTH_SEA_SAFE, NORTH_SEA_TRUTH } from './fixtures.ts';
import { NORTH_SEA_ID, northSeaItem, startStandIn, type StandIn } from './standIn.ts';

let standIn: StandIn;
let itemUrl = '';
let cacheDir = '';
let access: RemoteAccess;
let remote: SafeProduct;
let local: SafeProduct;

function accessFor(dir: string): RemoteAccess {
  const signer = new PlanetaryComputerSigner({ tokenUrl: `${standIn.url}/api/sas/v1/token`, unsignedPrefixes: [`${standIn.url}/api/stac/v1`] });
  return new RemoteAccess({ auth: { sign: (h, c) => signer.sign(h, c) }, cache: { dir, maxBytes: 64 * 1024 * 1024 } });
}

beforeAll(async () => {
  standIn = await startStandIn();
  standIn.items.set('sentinel-1-grd', [northSeaItem(standIn)]);
  itemUrl = `${standIn.url}/api/stac/v1/collections/sentinel-1-grd/items/${NORTH_SEA_ID}`;
  cacheDir = mkdtempSync(path.join(os.tmpdir(), 'sarwatch-bytes-'));
  access = accessFor(cacheDir);
  setRemoteAccess(access);
  remote = await openSafeProduct(itemUrl);
  local = await openSafeProduct(NORTH_SEA_SAFE);
});

afterAll(async () => {
  await remote?.close();
  await local?.close();
  setRemoteAccess(null);
  await closeAnalysisPool();
  await standIn?.close();
  rmSync(cacheDir, { recursive: true, force: true });
});

describe('GRD assembled from a Planetary-Computer-shaped STAC item on the stand-in archive (North-Sea crop)', () => {
  it('has the SAFE folder metadata: product, bands, sizes, crop placement, footprints', () => {
    expect(remote.productType).toBe('GRD');
    expect(remote.polarisations).toEqual(local.polarisations);
    expect(remote.polarisations).toEqual(['VV', 'VH']);
    expect([remote.width, remote.height]).toEqual([local.width, local.height]);
    expect(remote.validWindow).toEqual({ x0: 4000, y0: 4000, width: 1000, height: 1000 });
    expect(remote.footprint).toEqual(local.footprint);
    expect(remote.validFootprint).toEqual(local.validFootprint);
    expect(remote.startTime).toBe(local.startTime);
    expect(remote.bands.VH!.calibration).toEqual(local.bands.VH!.calibration);
    expect(remote.bands.VV!.noise).toEqual(local.bands.VV!.noise);
  });

  it('σ0 with noise removal, β0 and raw DN equal the local folder bit for bit (VV and VH, whole crop)', async () => {
    const window = { x0: 4000, y0: 4000, width: 1000, height: 1000 };
    for (const pol of ['VV', 'VH']) {
      for (const options of [{ quantity: 'sigma0' as const, denoise: true }, { quantity: 'beta0' as const, denoise: false }, { quantity: 'dn' as const, denoise: false }]) {
        const a = await remote.bands[pol]!.readWindow(window, options);
        const b = await local.bands[pol]!.readWindow(window, options);
        expect(Buffer.from(a.data.buffer).equals(Buffer.from(b.data.buffer))).toBe(true);
        expect(Buffer.from(a.valid.buffer).equals(Buffer.from(b.valid.buffer))).toBe(true);
        expect(a.data.length).toBe(1_000_000);
      }
    }
  });

  it('geolocation is the same both ways (forward and inverse)', () => {
    for (const [line, pixel] of [[4000, 4000], [4500, 4731.5], [4999, 4999]] as const) {
      expect(remote.geolocation.pixelToLonLat(line, pixel)).toEqual(local.geolocation.pixelToLonLat(line, pixel));
    }
    expect(remote.geolocation.lonLatToPixel(3.0, 51.5)).toEqual(local.geolocation.lonLatToPixel(3.0, 51.5));
  });

  it('every measurement request is a signed range request; the COGs are never fetched whole', () => {
    const tiffs = standIn.requests.filter((r) => r.path.endsWith('.tiff'));
    expect(tiffs.length).toBeGreaterThan(0);
    expect(tiffs.every((r) => r.range?.startsWith('bytes=') && r.status === 206 && /sig=sentinel-1-grd-/.test(r.query))).toBe(true);
    const size = statSync(path.join(NORTH_SEA_SAFE, 'measurement/s1a-iw-grd-vv-20220612t173329-20220612t173354-043633-05359a-002.tiff')).size;
    const vv = tiffs.filter((r) => r.path.endsWith('iw-vv.tiff')).reduce((s, r) => s + r.bytes, 0);
    // Every byte of the crop was read once (the window above is the whole crop), none twice;
    // one more byte is the size probe (bytes=0-0, whose Content-Range gives the total).
    expect(vv).toBeLessThanOrEqual(size + 1);
    expect(standIn.tokensIssued).toBe(1);
  });

  it('the ship detector finds the same 16 vessels through the stand-in as from the local SAFE', async () => {
    const truth: TruthPoint[] = (JSON.parse(readFileSync(NORTH_SEA_TRUTH, 'utf8')) as { features: { geometry: { coordinates: [number, number] }; properties: { id: number; certain: boolean } }[] }).features.map((f) => ({
      lon: f.geometry.coordinates[0],
      lat: f.geometry.coordinates[1],
      certain: f.properties.certain,
      id: f.properties.id,
    }));
    const a = await detectShipsInProduct(remote);
    const b = await detectShipsInProduct(local);
    const points = a.detections.map((d) => remote.geolocation.pixelToLonLat(d.centroidRow, d.centroidCol));
    const s = scoreDetections(points, truth, 100);
    expect(s.truePositives).toBe(16);
    expect(s.falsePositives).toBe(0);
    expect(a.ambiguities).toBe(b.ambiguities);
    expect(a.result).toEqual(b.result);
    // The whole path a job takes (open by item URL, detect, close) gives the same collection.
    expect(await detectShipsInSafe(itemUrl)).toEqual(await detectShipsInSafe(NORTH_SEA_SAFE));
  });

  it('the oil-slick detector gives the same collection from the item URL as from the SAFE', async () => {
    expect(await detectSlicksInSafe(itemUrl)).toEqual(await detectSlicksInSafe(NORTH_SEA_SAFE));
  });

  it('a second reader on the same cache folder (a new process) downloads no asset byte again', async () => {
    const before = standIn.assetBytes();
    const again = accessFor(cacheDir);
    setRemoteAccess(again);
    const p = await openSafeProduct(itemUrl);
    try {
      const w = await p.bands.VH!.readWindow({ x0: 4000, y0: 4000, width: 1000, height: 1000 }, { quantity: 'sigma0', denoise: true });
      expect(w.data.length).toBe(1_000_000);
      expect(standIn.assetBytes()).toBe(before);
      expect(again.cache.stats.bytesFetched).toBe(0);
      expect(again.cache.stats.blockHits).toBeGreaterThan(0);
    } finally {
      await p.close();
      setRemoteAccess(access);
    }
  });
});
