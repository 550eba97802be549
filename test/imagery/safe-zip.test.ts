import { mkdtempSync, readFileSync, readdirSync, rmSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isImageryError, openSafeProduct, parseAnnotation } from '../../src/imagery/index.js';
import { DATA, NORTH_SEA_SAFE, PYROSAR } from './fixtures.js';
import { zipFolder } from '../helpers/zip.ts';

const zips = readdirSync(PYROSAR)
  .filter((f) => f.endsWith('.zip'))
  .sort();

const scratch = mkdtempSync(join(tmpdir(), 'sarwatch-imagery-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('SAFE zips without measurement TIFFs (pyroSAR samples)', () => {
  it('finds the five samples', () => {
    expect(zips).toHaveLength(5);
  });

  it.each(zips)('%s: reads manifest, annotation, calibration and noise from the zip', async (zip) => {
    const product = await openSafeProduct(join(PYROSAR, zip));
    try {
      expect(product.productId).toBe(zip.replace(/\.zip$/, ''));
      expect(product.productType).toBe('GRD');
      expect(product.polarisations).toEqual(['VV', 'VH']);
      expect(product.width).toBeGreaterThan(25000);
      expect(product.height).toBeGreaterThan(16000);
      expect(product.validWindow).toBeNull();
      expect(product.validFootprint).toBeNull();
      for (const pol of product.polarisations) {
        const band = product.bands[pol]!;
        expect(band.hasMeasurement).toBe(false);
        expect(band.files.measurement).toBeNull();
        expect(band.calibration.vectors.length).toBeGreaterThan(20);
        await expect(band.readWindow({ x0: 0, y0: 0, width: 8, height: 8 }, { quantity: 'sigma0', denoise: true })).rejects.toSatisfy(
          (e: unknown) => isImageryError(e, 'MEASUREMENT_UNAVAILABLE'),
        );
      }
      // The manifest's four corners and the geolocation grid's corners describe the same scene.
      const manifest = product.manifestFootprint!.coordinates[0]!;
      const grid = product.footprint.coordinates[0]!;
      for (const [lon, lat] of manifest.slice(0, 4)) {
        expect(Math.min(...grid.map(([x, y]) => Math.hypot(x - lon, y - lat)))).toBeLessThan(0.02);
      }
    } finally {
      await product.close();
    }
  });

  it('tells the noise layouts apart: IPF 2.x single noise vectors, IPF 3.x range + azimuth vectors', async () => {
    const old = await openSafeProduct(join(PYROSAR, 'S1A_IW_GRDH_1SDV_20150203T043109_20150203T043134_004454_00574F_6D00.zip'));
    const recent = await openSafeProduct(join(PYROSAR, 'S1A_IW_GRDH_1SDV_20210119T031653_20210119T031718_036201_043ED0_8255.zip'));
    try {
      expect(old.manifest.ipfVersion).toBe('002.70');
      expect(old.bands.VV!.noise.layout).toBe('range');
      expect(old.bands.VV!.noise.azimuthVectors).toHaveLength(0);
      expect(old.bands.VV!.noise.rangeVectors[0]!.values[0]).toBeCloseTo(1694.175, 3);
      expect(recent.manifest.ipfVersion).toBe('003.31');
      expect(recent.bands.VV!.noise.layout).toBe('range-azimuth');
      expect(recent.bands.VV!.noise.azimuthVectors.length).toBeGreaterThanOrEqual(3);
      expect(recent.manifest.footprint!.coordinates[0]![0]).toEqual([34.613232, -19.203491]);
    } finally {
      await old.close();
      await recent.close();
    }
  });
});

describe('SAFE zip with a measurement TIFF', () => {
  it('reads a stored (uncompressed) measurement member in place, identical to the folder', async () => {
    const zip = join(scratch, 'stored.zip');
    const name = 'S1A_IW_GRDH_1SDV_20220612T173329_20220612T173354_043633_05359A_EA25_test.SAFE';
    writeFileSync(zip, zipFolder(NORTH_SEA_SAFE, name, (rel) => (rel.startsWith('measurement') ? 'store' : 'deflate')));
    const fromZip = await openSafeProduct(zip);
    const fromFolder = await openSafeProduct(NORTH_SEA_SAFE);
    try {
      expect(fromZip.productId).toBe(fromFolder.productId);
      expect(fromZip.validWindow).toEqual({ x0: 4000, y0: 4000, width: 1000, height: 1000 });
      const window = { x0: 4100, y0: 4050, width: 300, height: 200 };
      const options = { quantity: 'sigma0', denoise: true } as const;
      const a = await fromZip.bands.VH!.readWindow(window, options);
      const b = await fromFolder.bands.VH!.readWindow(window, options);
      expect(a.data).toEqual(b.data);
      expect(a.valid).toEqual(b.valid);
    } finally {
      await fromZip.close();
      await fromFolder.close();
    }
  });

  it('refuses a deflated measurement member with COMPRESSED_ZIP_MEMBER but keeps the metadata', async () => {
    const zip = join(scratch, 'deflated.zip');
    writeFileSync(zip, zipFolder(NORTH_SEA_SAFE, 'NS.SAFE', () => 'deflate'));
    const product = await openSafeProduct(zip);
    try {
      expect(product.productId).toBe('NS');
      expect(product.bands.VV!.hasMeasurement).toBe(false);
      expect(product.bands.VV!.files.measurement).toMatch(/\.tiff$/);
      const error = await product.bands.VV!.readWindow({ x0: 4000, y0: 4000, width: 4, height: 4 }, { quantity: 'dn', denoise: false }).catch((e: unknown) => e);
      expect(isImageryError(error, 'COMPRESSED_ZIP_MEMBER')).toBe(true);
      expect((error as Error).message).toMatch(/extract/);
    } finally {
      await product.close();
    }
  });
});

describe('non-GRD products', () => {
  it('rejects an SLC product with UNSUPPORTED_PRODUCT', async () => {
    const safe = join(scratch, 'S1A_IW_SLC__1SDV_TEST.SAFE');
    mkdirSync(safe);
    const manifest = readFileSync(join(NORTH_SEA_SAFE, 'manifest.safe'), 'utf8').replace(
      '<s1sarl1:productType>GRD</s1sarl1:productType>',
      '<s1sarl1:productType>SLC</s1sarl1:productType>',
    );
    writeFileSync(join(safe, 'manifest.safe'), manifest);
    const error = await openSafeProduct(safe).catch((e: unknown) => e);
    expect(isImageryError(error, 'UNSUPPORTED_PRODUCT')).toBe(true);
  });

  it('recognises the real SLC annotation as SLC', () => {
    const xml = readFileSync(join(DATA, 'slc-subset/test/testData/s1a-iw3-slc-vv-20220918t074921-20220918t074946-045056-056232-006.xml'), 'utf8');
    const annotation = parseAnnotation(xml);
    expect(annotation.productType).toBe('SLC');
    expect(annotation.swath).toBe('IW3');
  });

  it('says NOT_FOUND for a missing path', async () => {
    const error = await openSafeProduct(join(scratch, 'nope.SAFE')).catch((e: unknown) => e);
    expect(isImageryError(error, 'NOT_FOUND')).toBe(true);
  });
});
