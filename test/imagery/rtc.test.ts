import { createReadStream, readdirSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isImageryError, openRasterProduct, proj4DefinitionForEpsg, type RasterProduct } from '../../src/imagery/index.js';
import {
  ENGA_DIR,
  ENGA_VH,
  GDAL_TAG,
  HAS_GDAL,
  PYROSAR_DB_TIF,
  SANTA_BARBARA_DIR,
  SANTA_BARBARA_VV,
  SAN_FRANCISCO_RGB,
  SAN_FRANCISCO_VV,
  epsgFromWkt,
  gdal,
  gdalinfoJson,
} from './fixtures.js';

async function withRaster<T>(path: string, fn: (r: RasterProduct) => Promise<T>): Promise<T> {
  const raster = await openRasterProduct(path);
  try {
    return await fn(raster);
  } finally {
    await raster.close();
  }
}

const ENGA_FILES = readdirSync(ENGA_DIR)
  .filter((f) => f.endsWith('.tif'))
  .map((f) => join(ENGA_DIR, f));
const SANTA_BARBARA_FILES = readdirSync(SANTA_BARBARA_DIR)
  .filter((f) => f.endsWith('.tif'))
  .sort()
  .map((f) => join(SANTA_BARBARA_DIR, f));

describe('proj4 definitions from EPSG codes', () => {
  it('builds UTM north/south and WGS84', () => {
    expect(proj4DefinitionForEpsg(32611)).toBe('+proj=utm +zone=11 +datum=WGS84 +units=m +no_defs');
    expect(proj4DefinitionForEpsg(32754)).toBe('+proj=utm +zone=54 +south +datum=WGS84 +units=m +no_defs');
    expect(proj4DefinitionForEpsg(4326)).toBe('+proj=longlat +datum=WGS84 +no_defs');
    expect(proj4DefinitionForEpsg(32661)).toBeNull();
    expect(proj4DefinitionForEpsg(2154)).toBeNull();
  });
});

describe('OPERA RTC Santa Barbara (EPSG:32611, 100 × 100 at 30 m)', () => {
  it('reads CRS, geotransform, no-data and OPERA identity from the file name', async () => {
    await withRaster(SANTA_BARBARA_VV, async (r) => {
      expect([r.width, r.height, r.bandCount]).toEqual([100, 100, 1]);
      expect(r.epsg).toBe(32611);
      expect(r.proj4).toBe('+proj=utm +zone=11 +datum=WGS84 +units=m +no_defs');
      expect(r.geotransform).toEqual([165660, 30, 0, 3779190, 0, -30]);
      expect(Number.isNaN(r.nodata)).toBe(true);
      expect(r.opera).toEqual({
        acquisitionTime: '2023-12-03T01:59:04Z',
        track: 137,
        burstId: 'T137-292318-IW1',
        polarization: 'VV',
        platform: 'S1A',
        orbitPassDirection: null,
        productVersion: '1.0',
        source: 'filename',
      });
    });
  });

  it('maps the upper-left corner to 120°37′25.67″W, 34°6′0.45″N as gdalinfo reports it', async () => {
    await withRaster(SANTA_BARBARA_VV, async (r) => {
      // Pixel (0, 0)'s centre is (0.5, 0.5) in corner terms; its upper-left corner is (−0.5, −0.5) here.
      const [lon, lat] = r.pixelToLonLat(-0.5, -0.5);
      expect(lon).toBeCloseTo(-(120 + 37 / 60 + 25.67 / 3600), 5);
      expect(lat).toBeCloseTo(34 + 6 / 60 + 0.45 / 3600, 5);
    });
  });

  it('round-trips lon/lat → pixel → lon/lat to < 1e-6°', async () => {
    await withRaster(SANTA_BARBARA_VV, async (r) => {
      for (const [lon, lat] of [
        [-120.6, 34.09],
        [-120.615, 34.075],
      ] as const) {
        const { row, col } = r.lonLatToPixel(lon, lat);
        const [lon2, lat2] = r.pixelToLonLat(row, col);
        expect(Math.abs(lon2 - lon)).toBeLessThan(1e-6);
        expect(Math.abs(lat2 - lat)).toBeLessThan(1e-6);
      }
    });
  });

  it('reads linear γ0 of plausible magnitude (sea and coast: 0.001 … 1)', async () => {
    await withRaster(SANTA_BARBARA_VV, async (r) => {
      const { data, valid } = await r.readWindow({ x0: 0, y0: 0, width: 100, height: 100 });
      let n = 0;
      for (let i = 0; i < valid.length; i++) {
        if (!valid[i]) continue;
        n++;
        expect(data[0]![i]).toBeGreaterThan(0.001);
        expect(data[0]![i]).toBeLessThan(1);
      }
      expect(n).toBeGreaterThan(0);
    });
  });
});

describe('OPERA RTC Enga, Papua New Guinea (EPSG:32754, about 65 % no-data)', () => {
  it('has about 35 % valid pixels on every date', async () => {
    expect(ENGA_FILES).toHaveLength(10);
    for (const file of ENGA_FILES) {
      await withRaster(file, async (r) => {
        expect(r.epsg).toBe(32754);
        expect(r.geotransform).toEqual([756750, 30, 0, 9409440, 0, -30]);
        const fp = await r.footprint({ tileSize: 128 });
        expect(fp.totalPixels).toBe(350 * 250);
        expect(fp.validFraction).toBeGreaterThan(0.3);
        expect(fp.validFraction).toBeLessThan(0.4);
      });
    }
  });

  it('outlines the valid data inside the image bounds', async () => {
    await withRaster(ENGA_VH, async (r) => {
      const fp = await r.footprint();
      // 30376 / 87500 = 34.72 %, the STATISTICS_VALID_PERCENT gdalinfo -stats reports.
      expect(fp.validPixels).toBe(30376);
      const ring = fp.polygon!.coordinates[0]!;
      const bounds = r.bounds().coordinates[0]!;
      const lons = bounds.map((p) => p[0]);
      const lats = bounds.map((p) => p[1]);
      for (const [lon, lat] of ring) {
        expect(lon).toBeGreaterThanOrEqual(Math.min(...lons) - 1e-9);
        expect(lon).toBeLessThanOrEqual(Math.max(...lons) + 1e-9);
        expect(lat).toBeGreaterThanOrEqual(Math.min(...lats) - 1e-9);
        expect(lat).toBeLessThanOrEqual(Math.max(...lats) + 1e-9);
      }
      // About 5.4° S, 143.3° E: Enga province, Papua New Guinea.
      expect(ring[0]![0]).toBeGreaterThan(143);
      expect(ring[0]![1]).toBeLessThan(-5);
    });
  });

  it('marks NaN and out-of-image pixels invalid', async () => {
    await withRaster(ENGA_VH, async (r) => {
      const { data, valid } = await r.readWindow({ x0: 340, y0: -5, width: 20, height: 10 });
      for (let y = 0; y < 10; y++) {
        for (let x = 0; x < 20; x++) {
          const i = y * 20 + x;
          if (x >= 10 || y < 5) expect(valid[i]).toBe(0);
          if (!valid[i]) expect(Number.isNaN(data[0]![i])).toBe(true);
          else expect(Number.isFinite(data[0]![i])).toBe(true);
        }
      }
    });
  });
});

describe('OPERA RTC San Francisco (full metadata tags)', () => {
  it('takes acquisition time, track, burst id and polarisation from GDAL metadata tag 42112', async () => {
    await withRaster(SAN_FRANCISCO_VV, async (r) => {
      expect(r.epsg).toBe(32610);
      expect(r.bandDescriptions).toEqual(['RTC-S1 VV Backscatter']);
      expect(r.metadata.PROCESSING_INFORMATION_OUTPUT_BACKSCATTER_NORMALIZATION_CONVENTION).toBe('gamma0');
      expect(r.opera).toEqual({
        acquisitionTime: '2024-01-13T02:08:16.790375Z',
        track: 35,
        burstId: 'T035-073251-IW2',
        polarization: 'VV',
        platform: 'S1A',
        orbitPassDirection: 'ascending',
        productVersion: '1.0',
        source: 'tags',
      });
    });
  });

  it('reads all four bands of the RGBA browse image, with no no-data value', async () => {
    await withRaster(SAN_FRANCISCO_RGB, async (r) => {
      expect(r.bandCount).toBe(4);
      expect(r.nodata).toBeNull();
      expect(r.opera).toBeNull();
      const { data, valid } = await r.readWindow({ x0: 10, y0: 10, width: 5, height: 5 }, { bands: [0, 3] });
      expect(data).toHaveLength(2);
      expect(valid.every((v) => v === 1)).toBe(true);
      await expect(r.readWindow({ x0: 0, y0: 0, width: 1, height: 1 }, { bands: [4] })).rejects.toSatisfy((e: unknown) =>
        isImageryError(e, 'INVALID_WINDOW'),
      );
    });
  });
});

describe('geocoded GRD σ0 in dB (GAMMA, EPSG:32631)', () => {
  it('reads no-data −99 and a fractional-metre origin', async () => {
    await withRaster(PYROSAR_DB_TIF, async (r) => {
      expect([r.width, r.height]).toEqual([268, 217]);
      expect(r.epsg).toBe(32631);
      expect(r.nodata).toBe(-99);
      expect(r.geotransform[0]).toBeCloseTo(620048.241204, 6);
      expect(r.geotransform[3]).toBeCloseTo(4830114.70107, 5);
      const { data, valid } = await r.readWindow({ x0: 0, y0: 0, width: 268, height: 217 });
      let sum = 0;
      let n = 0;
      for (let i = 0; i < valid.length; i++) {
        if (valid[i]) {
          sum += data[0]![i]!;
          n++;
        }
      }
      // gdalinfo -stats: mean −12.125 dB (Camargue wetlands and farmland).
      expect(sum / n).toBeCloseTo(-12.125, 2);
    });
  });
});

describe('GeoTIFF over HTTP range requests', () => {
  let server: Server;
  let base = '';
  const requests: { range: string | undefined }[] = [];

  beforeAll(async () => {
    const root = join(SAN_FRANCISCO_VV, '..');
    server = createServer((req, res) => {
      const file = join(root, basename(decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname)));
      requests.push({ range: req.headers.range });
      let size: number;
      try {
        size = statSync(file).size;
      } catch {
        res.writeHead(404).end();
        return;
      }
      const m = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '');
      if (!m) {
        res.writeHead(200, { 'Content-Length': size, 'Accept-Ranges': 'bytes' });
        createReadStream(file).pipe(res);
        return;
      }
      const start = Number(m[1]);
      const end = Math.min(size - 1, m[2] ? Number(m[2]) : size - 1);
      res.writeHead(206, { 'Content-Range': `bytes ${start}-${end}/${size}`, 'Content-Length': end - start + 1, 'Accept-Ranges': 'bytes' });
      createReadStream(file, { start, end }).pipe(res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  it('opens an http URL and reads the same pixels as from disk, every request a Range request', async () => {
    const remote = await openRasterProduct(`${base}/test_VV.tif`);
    const local = await openRasterProduct(SAN_FRANCISCO_VV);
    try {
      expect(remote.epsg).toBe(local.epsg);
      expect(remote.geotransform).toEqual(local.geotransform);
      expect(remote.opera?.burstId).toBe('T035-073251-IW2');
      const window = { x0: 20, y0: 30, width: 50, height: 40 };
      const a = await remote.readWindow(window);
      const b = await local.readWindow(window);
      expect(a.data[0]).toEqual(b.data[0]);
      expect(a.valid).toEqual(b.valid);
      expect(requests.length).toBeGreaterThan(0);
      expect(requests.every((r) => r.range?.startsWith('bytes='))).toBe(true);
    } finally {
      await remote.close();
      await local.close();
    }
  });
});

describe(`RTC rasters vs GDAL ${GDAL_TAG}`, () => {
  it.skipIf(!HAS_GDAL)('EPSG, geotransform, no-data and valid percentage of every Santa Barbara file match gdalinfo -stats', async () => {
    expect(SANTA_BARBARA_FILES.length).toBeGreaterThan(20);
    for (const file of SANTA_BARBARA_FILES) {
      const info = gdalinfoJson(file, true);
      await withRaster(file, async (r) => {
        expect(r.epsg).toBe(info.stac?.['proj:epsg'] ?? epsgFromWkt(info.coordinateSystem!.wkt));
        expect(r.geotransform).toEqual(info.geoTransform);
        expect(String(r.nodata)).toBe(String(info.bands[0]!.noDataValue));
        const percent = Number(info.bands[0]!.metadata?.['']?.STATISTICS_VALID_PERCENT ?? 100);
        const fp = await r.footprint();
        expect(fp.validFraction * 100).toBeCloseTo(percent, 1);
      });
    }
  });

  it.skipIf(!HAS_GDAL)('Enga no-data fraction matches gdalinfo -stats (≈ 65 % no-data)', async () => {
    for (const file of ENGA_FILES) {
      const info = gdalinfoJson(file, true);
      const percent = Number(info.bands[0]!.metadata![''].STATISTICS_VALID_PERCENT);
      await withRaster(file, async (r) => {
        const fp = await r.footprint();
        expect(fp.validFraction * 100).toBeCloseTo(percent, 1);
        expect(100 - percent).toBeGreaterThan(60);
      });
    }
  });

  it.skipIf(!HAS_GDAL)('lonLatToPixel lands in the pixel gdallocationinfo -wgs84 reports, with the same value', async () => {
    await withRaster(SAN_FRANCISCO_VV, async (r) => {
      for (const [lon, lat] of [
        [-122.4, 37.76],
        [-122.385, 37.752],
        [-122.4041, 37.7744],
      ] as const) {
        const xml = gdal('gdallocationinfo', ['-xml', '-wgs84', SAN_FRANCISCO_VV, String(lon), String(lat)]);
        const pixel = Number(/pixel="(\d+)"/.exec(xml)![1]);
        const line = Number(/line="(\d+)"/.exec(xml)![1]);
        const value = Number(/<Value>([^<]+)<\/Value>/.exec(xml)![1]);
        const { row, col } = r.lonLatToPixel(lon, lat);
        // Integer row/col are pixel centres here; GDAL's are corners: floor(gdal) = round(ours).
        expect([Math.round(col), Math.round(row)]).toEqual([pixel, line]);
        const { data } = await r.readWindow({ x0: pixel, y0: line, width: 1, height: 1 });
        expect(data[0]![0]).toBeCloseTo(value, 6);
      }
    });
  });

  it.skipIf(!HAS_GDAL)('corner coordinates match gdalinfo to < 1e-7°', async () => {
    await withRaster(ENGA_VH, async (r) => {
      const info = JSON.parse(gdal('gdalinfo', ['-json', ENGA_VH]).replace(/:\s*(-?)NaN\b/g, ':"$1NaN"')) as {
        wgs84Extent: { coordinates: [number, number][][] };
      };
      // wgs84Extent: upper-left, lower-left, lower-right, upper-right (pixel corners).
      const [ul, ll, lr, ur] = info.wgs84Extent.coordinates[0]!;
      const corner = (px: number, py: number): [number, number] => r.pixelToLonLat(py - 0.5, px - 0.5);
      for (const [ours, theirs] of [
        [corner(0, 0), ul],
        [corner(0, 250), ll],
        [corner(350, 250), lr],
        [corner(350, 0), ur],
      ] as const) {
        expect(Math.abs(ours[0] - theirs![0])).toBeLessThan(1e-7);
        expect(Math.abs(ours[1] - theirs![1])).toBeLessThan(1e-7);
      }
    });
  });
});
