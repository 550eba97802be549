// σ0 GeoTIFFs (src/imagery/sigma0): GDAL's GCP polynomial, CRS georeferencing, band naming,
// units, and the errors for files that cannot be read as σ0. The test files are made from
// the real North-Sea SAFE crop (sigma0Fixtures.ts); GDAL cross-checks run where installed.
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  GcpTransform,
  isImageryError,
  isSafeProduct,
  openSigma0GeoTiff,
  polarisationOfName,
  proj4ForEpsg,
  type Sigma0GeoTiff,
} from '../../src/imagery/index.ts';
import { writeTiff } from '../../src/synth/tiff.ts';
import { GDAL_TAG, HAS_GDAL, NORTH_SEA_SAFE, NORTH_SEA_VV_TIFF, PYROSAR_DB_TIF, gdal, gdalinfoJson } from './fixtures.ts';
import { distanceM, readSigma0, writeGcpSigma0, writeUtmSigma0, type Sigma0Bands, type UtmGrid } from './sigma0Fixtures.ts';

let dir: string;
let src: Sigma0Bands;
let gcpFile: string;
let utmDbFile: string;
let utm: UtmGrid;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'sarwatch-sigma0-'));
  src = await readSigma0(NORTH_SEA_SAFE);
  gcpFile = path.join(dir, 'northsea_sigma0_gcp.tif');
  utmDbFile = path.join(dir, 'northsea_sigma0_utm_db.tif');
  await writeGcpSigma0(src, gcpFile);
  utm = await writeUtmSigma0(src, utmDbFile, { units: 'db' });
});

afterAll(async () => {
  await src?.product.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function withSigma0<T>(file: string, options: Parameters<typeof openSigma0GeoTiff>[1], fn: (p: Sigma0GeoTiff) => Promise<T>): Promise<T> {
  const p = await openSigma0GeoTiff(file, options);
  try {
    return await fn(p);
  } finally {
    await p.close();
  }
}

async function openError(file: string, options: Parameters<typeof openSigma0GeoTiff>[1] = {}): Promise<{ code: string; message: string }> {
  try {
    const p = await openSigma0GeoTiff(file, options);
    await p.close();
  } catch (e) {
    if (isImageryError(e)) return { code: e.code, message: e.message };
    throw e;
  }
  throw new Error(`${file} opened`);
}

describe('GcpTransform: GDAL\'s polynomial fit', () => {
  it('recovers an affine mapping exactly, picks order 1 below 6 GCPs and order 2 from 6, and inverts to the starting pixel', () => {
    const affine = (p: number, l: number) => ({ pixel: p, line: l, x: 2.5 + 1e-4 * p - 2e-5 * l, y: 51.4 - 3e-5 * p - 9e-5 * l });
    const five = [affine(0, 0), affine(1000, 0), affine(0, 800), affine(1000, 800), affine(500, 400)];
    const t1 = GcpTransform.fit(five);
    expect(t1.order).toBe(1);
    expect(t1.info.maxResidualPx).toBeLessThan(1e-6);
    const [x, y] = t1.forward(250, 125);
    expect(x).toBeCloseTo(2.5 + 1e-4 * 250 - 2e-5 * 125, 12);
    expect(y).toBeCloseTo(51.4 - 3e-5 * 250 - 9e-5 * 125, 12);
    const t2 = GcpTransform.fit([...five, affine(200, 700)]);
    expect(t2.order).toBe(2);
    const [p, l] = t2.inverse(x, y);
    expect(p).toBeCloseTo(250, 6);
    expect(l).toBeCloseTo(125, 6);
  });

  it('refuses fewer than 3 or collinear GCPs', () => {
    expect(() => GcpTransform.fit([{ pixel: 0, line: 0, x: 0, y: 0 }, { pixel: 1, line: 1, x: 1, y: 1 }])).toThrow(/at least 3/);
    const line = [0, 1, 2, 3].map((k) => ({ pixel: k, line: k, x: k, y: 2 * k }));
    expect(() => GcpTransform.fit(line, 1)).toThrow(/degenerate/);
  });
});

describe('σ0 GeoTIFF georeferenced by GCPs (the North-Sea crop, 210 geolocation-grid tie points)', () => {
  it('fits GDAL\'s order-2 polynomial; pixel → lon/lat within 15 m of the SAFE geolocation grid over the whole crop', async () => {
    await withSigma0(gcpFile, {}, async (p) => {
      expect(p.georeference.kind).toBe('gcps');
      expect(p.georeference.epsg).toBe(4326);
      expect(p.georeference.gcp!.info.gcps).toBe(210);
      expect(p.georeference.gcp!.order).toBe(2);
      // One quadratic over the whole 250 km scene: residuals at the grid points of 1.8 px rms.
      expect(p.georeference.gcp!.info.rmsResidualPx).toBeLessThan(3);
      let worst = 0;
      for (let r = 0; r <= 1000; r += 50) {
        for (let c = 0; c <= 1000; c += 50) {
          const safe = src.product.geolocation.pixelToLonLat(src.y0 + r, src.x0 + c);
          worst = Math.max(worst, distanceM(p.geolocation.pixelToLonLat(r, c), safe));
          const back = p.geolocation.lonLatToPixel(...p.geolocation.pixelToLonLat(r, c));
          expect(back.line).toBeCloseTo(r, 4);
          expect(back.pixel).toBeCloseTo(c, 4);
        }
      }
      expect(worst).toBeLessThan(15); // measured 11.6 m
      expect(p.pixelSpacing.range).toBeCloseTo(10, 0);
      expect(p.pixelSpacing.azimuth).toBeGreaterThan(9.9);
      expect(p.pixelSpacing.azimuth).toBeLessThan(10.3);
      expect(p.validFootprint!.coordinates[0]!.length).toBe(33);
      expect(isSafeProduct(p)).toBe(false);
      expect(isSafeProduct(src.product)).toBe(true);
    });
  });

  it('bands by description: Sigma0_VV, Sigma0_VH; values are the SAFE reader\'s σ0', async () => {
    await withSigma0(gcpFile, {}, async (p) => {
      expect(p.namedBy).toBe('description');
      expect(p.polarisations).toEqual(['VV', 'VH']);
      expect(p.bandIndex).toEqual({ VV: 0, VH: 1 });
      const window = { x0: 300, y0: 400, width: 64, height: 32 };
      const mine = await p.bands.VH!.readWindow(window, { quantity: 'sigma0', denoise: false });
      const safe = await src.product.bands.VH!.readWindow({ ...window, x0: window.x0 + src.x0, y0: window.y0 + src.y0 }, { quantity: 'sigma0', denoise: false });
      expect(Array.from(mine.valid)).toEqual(Array.from(safe.valid));
      for (let i = 0; i < mine.data.length; i++) expect(mine.data[i]).toBeCloseTo(safe.data[i]!, 7);
      await expect(p.bands.VV!.readWindow(window, { quantity: 'beta0', denoise: false })).rejects.toThrow(/holds σ0/);
    });
  });

  it(`GDAL reads the same GCPs and its polynomial gives the same positions ${GDAL_TAG}`, async (ctx) => {
    if (!HAS_GDAL) ctx.skip();
    const points = [
      [0, 0],
      [500, 500],
      [1000, 1000],
      [137.5, 912.25],
    ];
    const out = gdal('gdaltransform', ['-output_xy', gcpFile], points.map((q) => q.join(' ')).join('\n') + '\n')
      .trim()
      .split('\n')
      .map((line) => line.trim().split(/\s+/).map(Number));
    await withSigma0(gcpFile, {}, async (p) => {
      points.forEach(([px, ln], k) => {
        const [lon, lat] = p.georeference.gcp!.forward(px!, ln!);
        expect(lon).toBeCloseTo(out[k]![0]!, 8);
        expect(lat).toBeCloseTo(out[k]![1]!, 8);
      });
    });
    // A copy GDAL writes (its own GCP encoding) reads the same.
    const copy = path.join(dir, 'gdal_copy.tif');
    gdal('gdal_translate', ['-q', gcpFile, copy]);
    const mine = await withSigma0(gcpFile, {}, async (p) => p.geolocation.pixelToLonLat(321, 654));
    await withSigma0(copy, {}, async (c) => {
      expect(c.georeference.kind).toBe('gcps');
      expect(c.georeference.gcp!.info.gcps).toBe(210);
      expect(c.polarisations).toEqual(['VV', 'VH']);
      expect(distanceM(c.geolocation.pixelToLonLat(321, 654), mine)).toBeLessThan(0.01);
    });
  });
});

describe('σ0 GeoTIFF in UTM (EPSG:32631), dB', () => {
  it('reads the CRS geotransform; dB values come out linear; positions agree with the SAFE geolocation', async () => {
    await withSigma0(utmDbFile, { units: 'db' }, async (p) => {
      expect(p.georeference.kind).toBe('geotransform');
      expect(p.georeference.epsg).toBe(32631);
      expect(p.georeference.geotransform).toEqual([utm.originX, 10, 0, utm.originY, 0, -10]);
      expect([p.width, p.height]).toEqual([utm.width, utm.height]);
      expect(p.pixelSpacing.range).toBeCloseTo(10, 1);
      expect(p.pixelSpacing.azimuth).toBeCloseTo(10, 1);
      expect(p.polarisations).toEqual(['VV', 'VH']);
      // A pixel near the middle: the file's dB value → linear equals the SAFE σ0 at the same place.
      const row = Math.floor(utm.height / 2);
      const col = Math.floor(utm.width / 2);
      const got = await p.bands.VH!.readWindow({ x0: col, y0: row, width: 1, height: 1 }, { quantity: 'sigma0', denoise: false });
      const [lon, lat] = p.geolocation.pixelToLonLat(row, col);
      const at = src.product.geolocation.lonLatToPixel(lon, lat);
      const safe = await src.product.bands.VH!.readWindow({ x0: Math.round(at.pixel), y0: Math.round(at.line), width: 1, height: 1 }, { quantity: 'sigma0', denoise: false });
      expect(got.valid[0]).toBe(1);
      expect(got.data[0]! / safe.data[0]!).toBeCloseTo(1, 5);
      const stats = await p.sampleStatistics();
      expect(stats!.median).toBeLessThan(-10); // sea in dB
      expect(stats!.median).toBeGreaterThan(-35);
    });
  });

  it(`GDAL places the image where we do ${GDAL_TAG}`, async (ctx) => {
    if (!HAS_GDAL) ctx.skip();
    const info = gdalinfoJson(utmDbFile) as unknown as { wgs84Extent: { coordinates: number[][][] }; bands: { description?: string }[] };
    expect(info.bands.map((b) => b.description)).toEqual(['Sigma0_VV_db', 'Sigma0_VH_db']);
    await withSigma0(utmDbFile, { units: 'db' }, async (p) => {
      const ring = info.wgs84Extent.coordinates[0]!;
      const corners = [
        p.geolocation.pixelToLonLat(-0.5, -0.5),
        p.geolocation.pixelToLonLat(p.height - 0.5, -0.5),
        p.geolocation.pixelToLonLat(p.height - 0.5, p.width - 0.5),
        p.geolocation.pixelToLonLat(-0.5, p.width - 0.5),
      ];
      for (const c of corners) expect(Math.min(...ring.map((q) => distanceM(q, c)))).toBeLessThan(0.01);
    });
  });

  it('the real pyroSAR geocoded σ0 (dB, EPSG:32631, VV in the file name) opens with units db', async () => {
    await withSigma0(PYROSAR_DB_TIF, { units: 'db' }, async (p) => {
      expect(p.namedBy).toBe('filename');
      expect(p.polarisations).toEqual(['VV']);
      expect(p.georeference.epsg).toBe(32631);
      expect(p.pixelSpacing.range).toBeCloseTo(20, 0);
      const { data, valid } = await p.bands.VV!.readWindow({ x0: 0, y0: 0, width: p.width, height: p.height }, { quantity: 'sigma0', denoise: false });
      let sum = 0;
      let n = 0;
      for (let i = 0; i < valid.length; i++) {
        if (!valid[i]) continue;
        sum += 10 * Math.log10(data[i]!);
        n++;
      }
      // gdalinfo -stats: mean −12.125 dB over the valid pixels (no-data −99 excluded).
      expect(sum / n).toBeCloseTo(-12.125, 2);
    });
  });
});

describe('band names, units and refusals', () => {
  it('polarisationOfName: VV/VH/HH/HV as a word; other quantities are not σ0', () => {
    expect(polarisationOfName('Sigma0_VV')).toBe('VV');
    expect(polarisationOfName('sigma0_vh_db')).toBe('VH');
    expect(polarisationOfName('VH')).toBe('VH');
    expect(polarisationOfName('Beta0_VV')).toBeNull();
    expect(polarisationOfName('Amplitude_VH')).toBeNull();
    expect(polarisationOfName('Intensity_VV')).toBeNull();
    expect(polarisationOfName('incidence_angle')).toBeNull();
    expect(polarisationOfName('VVVH')).toBeNull();
  });

  it('unnamed bands need --pol; with pols the bands are taken in order', async () => {
    const file = path.join(dir, 'unnamed.tif');
    await writeGcpSigma0(src, file, { descriptions: null, pols: ['VH', 'VV'] });
    const err = await openError(file);
    expect(err.code).toBe('INVALID_PRODUCT');
    expect(err.message).toMatch(/no band is σ0 of a polarisation \(bands 1: \(unnamed\), 2: \(unnamed\)\).*--pol VV,VH/);
    await withSigma0(file, { pols: ['vh', 'VV'] }, async (p) => {
      expect(p.namedBy).toBe('pols');
      expect(p.bandIndex).toEqual({ VH: 0, VV: 1 });
    });
    expect((await openError(file, { pols: ['VV', 'XX'] })).message).toMatch(/unknown polarisation XX/);
    expect((await openError(file, { pols: ['VV', 'VH', 'HH'] })).message).toMatch(/names 3 bands; unnamed.tif has 2/);
  });

  it('a band of another quantity is not σ0: Beta0_VV + Sigma0_VH gives VH only', async () => {
    const file = path.join(dir, 'beta.tif');
    await writeGcpSigma0(src, file, { descriptions: ['Beta0_VV', 'Sigma0_VH'] });
    await withSigma0(file, {}, async (p) => expect(p.polarisations).toEqual(['VH']));
  });

  it('SNAP\'s GeoTIFF header (DIMAP XML in tag 65000) names the bands', async () => {
    const file = path.join(dir, 'snap.tif');
    const dimap =
      '<?xml version="1.0" encoding="ISO-8859-1"?><Dimap_Document><Image_Interpretation>' +
      '<Spectral_Band_Info><BAND_INDEX>0</BAND_INDEX><BAND_NAME>Sigma0_VH</BAND_NAME></Spectral_Band_Info>' +
      '<Spectral_Band_Info><BAND_INDEX>1</BAND_INDEX><BAND_NAME>Sigma0_VV</BAND_NAME></Spectral_Band_Info>' +
      '</Image_Interpretation></Dimap_Document>';
    const w = 8;
    const h = 8;
    await writeTiff(
      file,
      {
        width: w,
        height: h,
        bands: 2,
        sampleType: 'float32',
        imageDescription: dimap,
        georeference: { type: 'epsg', epsg: 32631, originX: 500000, originY: 5700000, pixelWidth: 10, pixelHeight: 10 },
      },
      new Float32Array(w * h * 2).fill(0.01),
    );
    // Our writer has no private tags: retag ImageDescription (270) as SNAP's 65000 in the IFD.
    const bytes = readFileSync(file);
    const ifd = bytes.readUInt32LE(4);
    const count = bytes.readUInt16LE(ifd);
    let retagged = false;
    for (let k = 0; k < count; k++) {
      const at = ifd + 2 + 12 * k;
      if (bytes.readUInt16LE(at) === 270) {
        bytes.writeUInt16LE(65000, at);
        retagged = true;
      }
    }
    expect(retagged).toBe(true);
    writeFileSync(file, bytes);
    await withSigma0(file, {}, async (p) => {
      expect(p.namedBy).toBe('snap');
      expect(p.bandIndex).toEqual({ VH: 0, VV: 1 });
    });
  });

  it('linear 0 is SNAP\'s no-data; dB has no such value', async () => {
    const file = path.join(dir, 'zero.tif');
    await writeGcpSigma0(src, file, { zeroNodata: true });
    await withSigma0(file, {}, async (p) => {
      const r = await p.bands.VV!.readWindow({ x0: -2, y0: -2, width: 4, height: 4 }, { quantity: 'sigma0', denoise: false });
      // Outside the image and never 0 inside (the crop is all data).
      expect(Array.from(r.valid)).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 1, 1]);
    });
  });

  it('no georeferencing: the SAFE crop\'s measurement (a pixel offset, no CRS) and a TIFF without any', async () => {
    const measurement = path.join(dir, 'measurement.tif');
    copyFileSync(NORTH_SEA_VV_TIFF, measurement);
    const e1 = await openError(measurement, { pols: ['VV'] });
    expect(e1.code).toBe('INVALID_PRODUCT');
    expect(e1.message).toMatch(/no CRS.*not georeferenced/);
    const bare = path.join(dir, 'bare.tif');
    await writeTiff(bare, { width: 4, height: 4, sampleType: 'float32' }, new Float32Array(16).fill(0.1));
    expect((await openError(bare, { pols: ['VV'] })).message).toMatch(/has no georeferencing/);
    expect((await openError(path.join(dir, 'missing.tif'))).code).toBe('NOT_FOUND');
  });

  it('CRS definitions: proj4\'s own codes and UTM, plus ETRS89 and LAEA Europe; others unknown', () => {
    expect(proj4ForEpsg(4326)).toMatch(/longlat/);
    expect(proj4ForEpsg(32631)).toMatch(/utm \+zone=31/);
    expect(proj4ForEpsg(4269)).toBe('EPSG:4269'); // NAD83, known to proj4
    expect(proj4ForEpsg(25832)).toMatch(/utm \+zone=32 \+ellps=GRS80/);
    expect(proj4ForEpsg(3035)).toMatch(/laea/);
    expect(proj4ForEpsg(2154)).toBeNull();
  });
});
