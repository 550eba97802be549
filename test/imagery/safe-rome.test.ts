import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BlockReader, openSafeProduct, planTiles, readTiles, type SafeProduct } from '../../src/imagery/index.js';
import { openLocalTiff } from '../../src/imagery/geotiff-source.js';
import { GDAL_TAG, HAS_GDAL, ROME_SAFE, gdal } from './fixtures.js';

// Real annotation, calibration and noise of a full IW scene; the measurement TIFF is an
// all-zero ZSTD placeholder of the full 26102 × 16705 size (872 MB as UInt16 if loaded whole).
const TIFF = join(ROME_SAFE, 'measurement/s1b-iw-grd-vv-20211223t051122-20211223t051147-030148-039993-001.tiff');
const WHOLE_IMAGE_BYTES = 26102 * 16705 * 2;

let product: SafeProduct;

beforeAll(async () => {
  product = await openSafeProduct(ROME_SAFE);
});

afterAll(async () => {
  await product?.close();
});

describe('Rome full-size GRD (placeholder measurement)', () => {
  it('opens the one polarisation present although the manifest lists VV and VH', () => {
    expect(product.manifest.polarisations).toEqual(['VV', 'VH']);
    expect(product.polarisations).toEqual(['VV']);
    expect(product.missionId).toBe('S1B');
    expect(product.passDirection).toBe('descending');
    expect(product.width).toBe(26102);
    expect(product.height).toBe(16705);
  });

  it('uses the full-size TIFF as is (no offset) and its GDAL no-data 65535', () => {
    const vv = product.bands.VV!;
    expect(vv.placement).toMatchObject({ lineOffset: 0, pixelOffset: 0, width: 26102, height: 16705, source: 'full-image' });
    expect(vv.validWindow).toEqual({ x0: 0, y0: 0, width: 26102, height: 16705 });
    expect(vv.nodata).toBe(65535);
  });

  it('reads windows anywhere in the scene without loading the image, and every pixel is invalid (DN 0)', async () => {
    const vv = product.bands.VV!;
    global.gc?.();
    const before = process.memoryUsage().arrayBuffers;
    for (const window of [
      { x0: 0, y0: 0, width: 512, height: 512 },
      { x0: 12800, y0: 8000, width: 512, height: 512 },
      { x0: 25800, y0: 16400, width: 512, height: 512 }, // runs off the bottom-right corner
    ]) {
      const { data, valid } = await vv.readWindow(window, { quantity: 'sigma0', denoise: true });
      expect(data).toHaveLength(512 * 512);
      expect(valid.every((v) => v === 0)).toBe(true);
      expect(data.every((v) => v === 0)).toBe(true);
    }
    const grown = process.memoryUsage().arrayBuffers - before;
    // Only the window and a bounded cache of decoded strips (≤ 96 MiB) may have been added.
    expect(grown).toBeLessThan(WHOLE_IMAGE_BYTES / 4);
  });

  it('decodes each full-width strip once when a row of tiles is read left to right', async () => {
    const tiff = await openLocalTiff(TIFF);
    try {
      const reader = new BlockReader(await tiff.getImage());
      const plan = planTiles(26102, 16705, 1024, 32, { x0: 0, y0: 4096, width: 26102, height: 1024 });
      expect(plan.cols).toBe(26);
      const out = new Uint16Array(1088 * 1088);
      for await (const _ of readTiles(plan, (w) => reader.read(w, 0, out, w.width))) {
        // tile consumed
      }
      // 1024 core rows + 2 × 32 halo rows = 1088 strips (RowsPerStrip = 1), not 26 × 1088.
      expect(reader.stats.blocksDecoded).toBe(1088);
      // The first tile fetches its strips in runs and every tile then takes them from the cache.
      expect(reader.stats.cacheHits).toBe(26 * 1088);
      // Back-to-back strips are read in runs of ≤ 16 MiB (1088 × 52 KB ≈ 57 MB: 4 runs), not 1088 reads.
      expect(reader.stats.fetches).toBeLessThanOrEqual(8);
    } finally {
      await tiff.close();
    }
  });

  it('carries a whole-scene calibration LUT consistent with σ0 = β0·sin θ from near to far range', () => {
    const vectors = product.bands.VV!.calibration.vectors;
    expect(vectors.length).toBeGreaterThan(20);
    const first = vectors[0]!;
    expect(first.pixels[0]).toBe(0);
    expect(first.pixels[first.pixels.length - 1]).toBe(26101);
    // β0 = DN²/A_β² with one constant A_β; σ0 = β0·sin θ, so (A_β / A_σ)² = sin θ, which
    // grows from near range (θ ≈ 30°) to far range (θ ≈ 46°).
    const last = first.pixels.length - 1;
    expect(new Set(first.betaNought).size).toBe(1);
    const grid = product.geolocation;
    for (const k of [0, last]) {
      const ratio = (first.betaNought[k]! / first.sigmaNought[k]!) ** 2;
      const theta = (grid.incidenceAngle(first.line, first.pixels[k]!) * Math.PI) / 180;
      expect(Math.abs(ratio - Math.sin(theta))).toBeLessThan(0.01);
    }
    expect(first.sigmaNought[last]!).toBeLessThan(first.sigmaNought[0]!);
    expect(product.bands.VV!.noise.layout).toBe('range-azimuth');
    expect(product.bands.VV!.noise.azimuthVectors.map((v) => v.swath)).toEqual(['IW1', 'IW2', 'IW3']);
  });

  it('geolocates over land and inverts to the same pixel', () => {
    const [lon, lat] = product.geolocation.pixelToLonLat(8352, 13051);
    // Scene centre between Rome and the Abruzzo mountains.
    expect(lon).toBeGreaterThan(13);
    expect(lon).toBeLessThan(14);
    expect(lat).toBeGreaterThan(41.5);
    expect(lat).toBeLessThan(42.2);
    const back = product.geolocation.lonLatToPixel(lon, lat);
    expect(back.line).toBeCloseTo(8352, 3);
    expect(back.pixel).toBeCloseTo(13051, 3);
  });
});

describe(`Rome full-size GRD vs GDAL ${GDAL_TAG}`, () => {
  it.skipIf(!HAS_GDAL)('matches gdaltransform -tps to < 2e-4° over mountainous terrain', () => {
    const points = [
      [100, 100],
      [8352, 13051],
      [3000, 20000],
      [15000, 5000],
      [16600, 26000],
    ] as const;
    const input = points.map(([line, pixel]) => `${pixel} ${line}`).join('\n') + '\n';
    const out = gdal('gdaltransform', ['-tps', join(ROME_SAFE, 'manifest.safe')], input)
      .trim()
      .split('\n')
      .map((l) => l.trim().split(/\s+/).map(Number));
    points.forEach(([line, pixel], i) => {
      const [lon, lat] = product.geolocation.pixelToLonLat(line, pixel);
      // Terrain makes the grid non-smooth between points: bicubic and TPS differ by a few metres,
      // bilinear by up to ~100 m (1e-3°).
      expect(Math.abs(lon - out[i]![0]!)).toBeLessThan(2e-4);
      expect(Math.abs(lat - out[i]![1]!)).toBeLessThan(2e-4);
    });
  });

  it.skipIf(!HAS_GDAL)('reads the same (zero) DN as gdallocationinfo', async () => {
    const dn = Number(gdal('gdallocationinfo', ['-valonly', TIFF, '13051', '8352']).trim());
    const { data } = await product.bands.VV!.readWindow({ x0: 13051, y0: 8352, width: 1, height: 1 }, { quantity: 'dn', denoise: false });
    expect(data[0]).toBe(dn);
    expect(dn).toBe(0);
  });
});
