import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { fromFile } from 'geotiff';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { measurementPlacement, openRasterProduct } from '../../src/imagery/index.ts';
import { TiffWriter, writeTiff } from '../../src/synth/index.ts';
import { GDAL_TAG, HAS_GDAL, epsgFromWkt, gdal, gdalinfoJson } from '../imagery/fixtures.ts';

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'synth-tiff-'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('synth TIFF writer', () => {
  it('streams UInt16 rows in blocks that do not align with strips, and reads back exactly', async () => {
    const width = 37;
    const height = 23;
    const file = path.join(dir, 'u16.tif');
    const data = Uint16Array.from({ length: width * height }, (_, i) => (i * 7919) % 65536);
    const writer = await TiffWriter.create(file, { width, height, sampleType: 'uint16', rowsPerStrip: 5 });
    for (let y = 0; y < height; y += 3) await writer.writeRows(data.subarray(y * width), Math.min(3, height - y));
    const result = await writer.close();
    const bytes = await readFile(file);
    expect(result.bytes).toBe(bytes.length);
    expect(result.md5).toBe(createHash('md5').update(bytes).digest('hex'));

    const tiff = await fromFile(file);
    const image = await tiff.getImage();
    expect(image.getTileHeight()).toBe(5);
    const rasters = await image.readRasters({ interleave: true });
    expect(Array.from(rasters as Uint16Array)).toEqual(Array.from(data));
    await tiff.close();
  });

  it('writes UInt8 (8-bit scaled images, issue 11) Deflate rows that read back exactly as 8-bit unsigned samples', async () => {
    const width = 41;
    const height = 13;
    const file = path.join(dir, 'u8.tif');
    const data = Uint8Array.from({ length: width * height }, (_, i) => (i * 31) % 256);
    await writeTiff(file, { width, height, sampleType: 'uint8', compression: 'deflate' }, data);
    const tiff = await fromFile(file);
    const image = await tiff.getImage();
    expect(image.getBitsPerSample()).toBe(8);
    expect(image.getSampleFormat()).toBe(1);
    const rasters = await image.readRasters({ interleave: true });
    expect(rasters).toBeInstanceOf(Uint8Array);
    expect(Array.from(rasters as Uint8Array)).toEqual(Array.from(data));
    await tiff.close();
    await expect(writeTiff(path.join(dir, 'u8-wrong.tif'), { width, height, sampleType: 'uint8' }, new Uint16Array(width * height))).rejects.toThrow(/expected Uint8Array rows/);
  });

  it('refuses more rows than the height and closing before the last row', async () => {
    const writer = await TiffWriter.create(path.join(dir, 'short.tif'), { width: 4, height: 2, sampleType: 'uint16' });
    await expect(writer.writeRows(new Uint16Array(12), 3)).rejects.toThrow(/exceed/);
    await writer.writeRows(new Uint16Array(4), 1);
    await expect(writer.close()).rejects.toThrow(/1 of 2 rows/);
  });

  it('writes Float32 multi-band Deflate GeoTIFFs with EPSG, NaN no-data and GDAL metadata our RTC reader understands', async () => {
    const width = 30;
    const height = 20;
    const file = path.join(dir, 'f32.tif');
    const data = Float32Array.from({ length: width * height * 2 }, (_, i) => (i % 17 === 0 ? Number.NaN : i / 3));
    await writeTiff(
      file,
      {
        width,
        height,
        sampleType: 'float32',
        bands: 2,
        rowsPerStrip: 7,
        compression: 'deflate',
        nodata: Number.NaN,
        georeference: { type: 'epsg', epsg: 32631, originX: 600000, originY: 5_800_000, pixelWidth: 10, pixelHeight: 10 },
        gdalMetadata: { dataset: { PROJECT: 'OPERA', NOTE: 'a < b & c' }, bands: [{ description: 'VV' }, { description: 'VH' }] },
      },
      data,
    );
    const raster = await openRasterProduct(file);
    expect(raster.epsg).toBe(32631);
    expect(raster.geotransform).toEqual([600000, 10, 0, 5_800_000, 0, -10]);
    expect(Number.isNaN(raster.nodata)).toBe(true);
    expect(raster.metadata.PROJECT).toBe('OPERA');
    expect(raster.metadata.NOTE).toBe('a < b & c');
    expect(raster.bandDescriptions).toEqual(['VV', 'VH']);
    const w = await raster.readWindow({ x0: 0, y0: 0, width, height });
    for (let i = 0; i < width * height; i++) {
      const vv = data[2 * i]!;
      const vh = data[2 * i + 1]!;
      if (Number.isNaN(vv) || Number.isNaN(vh)) expect(w.valid[i]).toBe(0);
      else {
        expect(w.data[0]![i]).toBe(vv);
        expect(w.data[1]![i]).toBe(vh);
      }
    }
    await raster.close();
  });

  it('writes the pixel-only transformation of a GDAL crop, which the SAFE reader turns into an offset', async () => {
    const file = path.join(dir, 'crop.tif');
    await writeTiff(file, { width: 10, height: 8, sampleType: 'uint16', georeference: { type: 'pixel-offset', x0: 4000, y0: 3000 } }, new Uint16Array(80).fill(5));
    const tiff = await fromFile(file);
    const image = await tiff.getImage();
    expect(image.getGeoKeys()).toBeNull();
    expect(measurementPlacement(image, 26000, 16000, 'crop')).toMatchObject({ pixelOffset: 4000, lineOffset: 3000, source: 'model-transformation' });
    await tiff.close();
  });

  it.skipIf(!HAS_GDAL)(`opens in GDAL with the same georeferencing, no-data and metadata ${GDAL_TAG}`, async () => {
    const f32 = gdalinfoJson(path.join(dir, 'f32.tif'));
    expect(f32.size).toEqual([30, 20]);
    expect(f32.geoTransform).toEqual([600000, 10, 0, 5_800_000, 0, -10]);
    expect(epsgFromWkt(f32.coordinateSystem!.wkt)).toBe(32631);
    expect(String(f32.bands[0]!.noDataValue)).toBe('NaN');
    const crop = gdalinfoJson(path.join(dir, 'crop.tif'));
    expect(crop.geoTransform).toEqual([4000, 1, 0, 3000, 0, 1]);
    // Checksums over every pixel: GDAL decodes our strips to the same values.
    const u16 = gdal('gdalinfo', ['-checksum', path.join(dir, 'u16.tif')]);
    expect(u16).toMatch(/Block=37x5 Type=UInt16/);
  });

  it('writes EPSG:4326 ground control points like a Sentinel-1 measurement', async () => {
    const file = path.join(dir, 'gcps.tif');
    const gcps = [
      { pixel: 0.5, line: 0.5, lon: 4.1, lat: 52.1 },
      { pixel: 9.5, line: 0.5, lon: 4.2, lat: 52.12 },
      { pixel: 0.5, line: 7.5, lon: 4.08, lat: 52.2 },
      { pixel: 9.5, line: 7.5, lon: 4.18, lat: 52.22 },
    ];
    await writeTiff(file, { width: 10, height: 8, sampleType: 'uint16', rowsPerStrip: 1, georeference: { type: 'gcps', gcps } }, new Uint16Array(80).fill(9));
    const tiff = await fromFile(file);
    const image = await tiff.getImage();
    expect(image.getGeoKeys()?.GeographicTypeGeoKey).toBe(4326);
    // Full-size measurement with a CRS: the SAFE reader places it at offset 0.
    expect(measurementPlacement(image, 10, 8, 'gcps').source).toBe('full-image');
    await tiff.close();
    if (HAS_GDAL) {
      const info = gdal('gdalinfo', [file]);
      expect(info).toMatch(/GCP\[\s*3\]: Id=4/);
      expect(info).toMatch(/Block=10x1 Type=UInt16/);
    }
  });
});
