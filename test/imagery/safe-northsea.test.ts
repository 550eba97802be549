import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  SIGMA_FLOOR_LINEAR,
  linearToDb,
  openSafeProduct,
  planTiles,
  readTiles,
  readWindow,
  type SafeProduct,
} from '../../src/imagery/index.js';
import { GDAL_TAG, HAS_GDAL, NORTH_SEA_SAFE, NORTH_SEA_TRUTH, NORTH_SEA_VV_TIFF, gdal, gdalinfoJson } from './fixtures.js';

// The sample is a 1000 × 1000 crop, rows/cols 4000–5000 of a 26316 × 16683 IW GRD:
// crop (row, col) ↔ full-image (line, pixel) = (row + 4000, col + 4000).
const OFFSET = 4000;

let product: SafeProduct;

beforeAll(async () => {
  product = await openSafeProduct(NORTH_SEA_SAFE);
});

afterAll(async () => {
  await product?.close();
});

describe('North-Sea GRD crop: product structure', () => {
  it('names the product after its folder and lists both polarisations in manifest order', () => {
    expect(product.productId).toBe('S1A_IW_GRDH_1SDV_20220612T173329_20220612T173354_043633_05359A_EA25_test');
    expect(product.missionId).toBe('S1A');
    expect(product.productType).toBe('GRD');
    expect(product.mode).toBe('IW');
    expect(product.polarisations).toEqual(['VV', 'VH']);
    expect(product.passDirection).toBe('ascending');
    expect(product.startTime).toBe('2022-06-12T17:33:29.384150Z');
    expect(product.manifest.ipfVersion).toBe('003.52');
    expect(product.manifest.relativeOrbit).toBe(161);
  });

  it('takes the full-image size from the annotation, not from the cropped TIFF', () => {
    expect(product.width).toBe(26316);
    expect(product.height).toBe(16683);
    const vv = product.bands.VV!;
    expect(vv.annotation.rangePixelSpacing).toBe(10);
    expect(vv.annotation.azimuthPixelSpacing).toBe(10);
    expect(vv.annotation.platformHeading).toBeCloseTo(-15.35724966259205, 12);
    expect(vv.annotation.firstLineTime).toBe('2022-06-12T17:33:29.384150Z');
    expect(vv.annotation.lastLineTime).toBe('2022-06-12T17:33:54.382483Z');
    expect(vv.annotation.geolocationGrid).toHaveLength(210);
  });

  it('matches the vv-002 measurement to the vv-001 annotation by swath + polarisation', () => {
    const vv = product.bands.VV!;
    expect(vv.files.annotation).toBe('annotation/s1a-iw-grd-vv-20220612t173329-20220612t173354-043633-05359a-001.xml');
    expect(vv.files.measurement).toBe('measurement/s1a-iw-grd-vv-20220612t173329-20220612t173354-043633-05359a-002.tiff');
    expect(vv.files.calibration).toMatch(/calibration-s1a-iw-grd-vv-.*-001\.xml$/);
    expect(vv.files.noise).toMatch(/noise-s1a-iw-grd-vv-.*-001\.xml$/);
    expect(product.bands.VH!.files.measurement).toMatch(/-vh-.*-002\.tiff$/);
  });

  it('places the 1000 × 1000 TIFF at line/pixel 4000 from its pixel geotransform', () => {
    const vv = product.bands.VV!;
    expect(vv.placement).toMatchObject({ lineOffset: 4000, pixelOffset: 4000, width: 1000, height: 1000, source: 'model-transformation' });
    expect(vv.validWindow).toEqual({ x0: 4000, y0: 4000, width: 1000, height: 1000 });
    expect(product.validWindow).toEqual({ x0: 4000, y0: 4000, width: 1000, height: 1000 });
    expect(vv.measurementToImage(0, 0)).toEqual({ line: 4000, pixel: 4000 });
    expect(vv.imageToMeasurement(4999, 4999)).toEqual({ row: 999, col: 999 });
  });

  it('parses 27 calibration vectors and the IPF ≥ 2.9 noise layout with 3 azimuth blocks', () => {
    const vv = product.bands.VV!;
    expect(vv.calibration.vectors).toHaveLength(27);
    expect(vv.calibration.vectors[0]!.pixels).toHaveLength(659);
    expect(vv.calibration.vectors[6]!.line).toBe(4004);
    expect(vv.noise.layout).toBe('range-azimuth');
    expect(vv.noise.rangeVectors).toHaveLength(27);
    expect(vv.noise.azimuthVectors.map((v) => [v.swath, v.firstRangeSample, v.lastRangeSample])).toEqual([
      ['IW1', 0, 9058],
      ['IW2', 9059, 17872],
      ['IW3', 17873, 26315],
    ]);
  });
});

describe('North-Sea GRD crop: geolocation', () => {
  it('returns the annotation grid point itself at a grid node (line 4004, pixel 3948)', () => {
    const node = product.bands.VV!.annotation.geolocationGrid.find((p) => p.line === 4004 && p.pixel === 3948)!;
    const [lon, lat] = product.geolocation.pixelToLonLat(4004, 3948);
    expect(lon).toBeCloseTo(node.longitude, 10);
    expect(lat).toBeCloseTo(node.latitude, 10);
    expect(product.geolocation.incidenceAngle(4004, 3948)).toBeCloseTo(node.incidenceAngle, 10);
  });

  it('geolocates crop pixel (row 4, col 0) = grid line 4004, pixel 4000 between grid points 3948 and 5264', () => {
    const grid = product.bands.VV!.annotation.geolocationGrid;
    const a = grid.find((p) => p.line === 4004 && p.pixel === 3948)!;
    const b = grid.find((p) => p.line === 4004 && p.pixel === 5264)!;
    // On a grid line, bilinear interpolation is linear in pixel: t = (4000 − 3948) / (5264 − 3948) = 52 / 1316.
    const t = 52 / 1316;
    const expected = [a.longitude + t * (b.longitude - a.longitude), a.latitude + t * (b.latitude - a.latitude)];
    const band = product.bands.VV!;
    const { line, pixel } = band.measurementToImage(4, 0);
    expect([line, pixel]).toEqual([4004, 4000]);
    const bilinear = band.geolocation.withInterpolation('bilinear').pixelToLonLat(line, pixel);
    expect(bilinear[0]).toBeCloseTo(expected[0]!, 9);
    expect(bilinear[1]).toBeCloseTo(expected[1]!, 9);
    // The default bicubic model bends with the grid's curvature: within a metre of the chord here.
    const bicubic = band.geolocation.pixelToLonLat(line, pixel);
    expect(Math.abs(bicubic[0] - expected[0]!)).toBeLessThan(1e-5);
    expect(Math.abs(bicubic[1] - expected[1]!)).toBeLessThan(1e-5);
  });

  it('puts the crop around 51.4° N, 2.6° E, about 30 km off the Belgian–French coast', () => {
    const [lon, lat] = product.geolocation.pixelToLonLat(4500, 4500);
    expect(lat).toBeGreaterThan(51.3);
    expect(lat).toBeLessThan(51.5);
    expect(lon).toBeGreaterThan(2.4);
    expect(lon).toBeLessThan(2.7);
  });

  it('agrees with the ground-truth labels (row/col + 4000 on the annotation grid) to label precision', () => {
    const truth = JSON.parse(readFileSync(NORTH_SEA_TRUTH, 'utf8')) as {
      features: { geometry: { coordinates: [number, number] }; properties: { row: number; col: number } }[];
    };
    expect(truth.features.length).toBe(20);
    for (const f of truth.features) {
      const [lon, lat] = product.geolocation.pixelToLonLat(f.properties.row + OFFSET, f.properties.col + OFFSET);
      // The labels were made with a coarser interpolation: they agree to ~10 m (1.5e-4° of longitude).
      expect(Math.abs(lon - f.geometry.coordinates[0])).toBeLessThan(2e-4);
      expect(Math.abs(lat - f.geometry.coordinates[1])).toBeLessThan(1e-4);
    }
  });

  it('inverts pixel → lon/lat → pixel to < 0.05 px and lon/lat → pixel → lon/lat to < 1e-6°', () => {
    for (const [row, col] of [
      [0, 0],
      [125.3, 889.6],
      [500, 500],
      [999, 999],
      [731.25, 12.5],
    ] as const) {
      const line = row + OFFSET;
      const pixel = col + OFFSET;
      const [lon, lat] = product.geolocation.pixelToLonLat(line, pixel);
      const back = product.geolocation.lonLatToPixel(lon, lat);
      expect(Math.abs(back.line - line)).toBeLessThan(0.05);
      expect(Math.abs(back.pixel - pixel)).toBeLessThan(0.05);
      const [lon2, lat2] = product.geolocation.pixelToLonLat(back.line, back.pixel);
      expect(Math.abs(lon2 - lon)).toBeLessThan(1e-6);
      expect(Math.abs(lat2 - lat)).toBeLessThan(1e-6);
    }
    // And from a lon/lat that is not on any pixel centre.
    const target = { lon: 2.58, lat: 51.43 };
    const p = product.geolocation.lonLatToPixel(target.lon, target.lat);
    const [lon, lat] = product.geolocation.pixelToLonLat(p.line, p.pixel);
    expect(Math.abs(lon - target.lon)).toBeLessThan(1e-6);
    expect(Math.abs(lat - target.lat)).toBeLessThan(1e-6);
    expect(p.line).toBeGreaterThan(4000);
    expect(p.line).toBeLessThan(5000);
  });

  it('builds the scene footprint from the grid border and keeps the manifest one', () => {
    const ring = product.footprint.coordinates[0]!;
    // 21 × 10 grid: 2·21 + 2·10 − 4 border points, plus the closing point.
    expect(ring).toHaveLength(59);
    expect(ring[0]).toEqual(ring[ring.length - 1]);
    const manifest = product.manifestFootprint!.coordinates[0]!;
    expect(manifest).toHaveLength(5);
    // The manifest corners are the grid corners rounded to 1e-6° (and sometimes moved a little).
    for (const [lon, lat] of manifest.slice(0, 4)) {
      const nearest = Math.min(...ring.map(([x, y]) => Math.hypot(x - lon, y - lat)));
      expect(nearest).toBeLessThan(0.01);
    }
    const valid = product.validFootprint!.coordinates[0]!;
    const [lon0, lat0] = product.geolocation.pixelToLonLat(4000, 4000);
    expect(valid.some(([x, y]) => x === lon0 && y === lat0)).toBe(true);
  });
});

describe(`North-Sea GRD crop: geolocation vs GDAL ${GDAL_TAG}`, () => {
  it.skipIf(!HAS_GDAL)('has the size GDAL gives the SAFE and the 4000/4000 geotransform of the crop', () => {
    expect(gdalinfoJson(join(NORTH_SEA_SAFE, 'manifest.safe')).size).toEqual([26316, 16683]);
    const tiff = gdalinfoJson(NORTH_SEA_VV_TIFF);
    expect(tiff.size).toEqual([1000, 1000]);
    expect(tiff.geoTransform).toEqual([4000, 1, 0, 4000, 0, 1]);
  });

  it.skipIf(!HAS_GDAL)('matches gdaltransform (thin-plate spline through the annotation GCPs) to < 2e-5°', () => {
    const points: [number, number][] = [
      [4000, 4000],
      [4004, 4000],
      [4125.3, 4889.6],
      [4500, 4500],
      [4999, 4999],
      [4000, 4999],
      [4999, 4000],
    ];
    const input = points.map(([line, pixel]) => `${pixel} ${line}`).join('\n') + '\n';
    const out = gdal('gdaltransform', ['-tps', join(NORTH_SEA_SAFE, 'manifest.safe')], input)
      .trim()
      .split('\n')
      .map((l) => l.trim().split(/\s+/).map(Number));
    expect(out).toHaveLength(points.length);
    points.forEach(([line, pixel], i) => {
      const [lon, lat] = product.geolocation.pixelToLonLat(line, pixel);
      expect(Math.abs(lon - out[i]![0]!)).toBeLessThan(2e-5);
      expect(Math.abs(lat - out[i]![1]!)).toBeLessThan(2e-5);
    });
  });

  it.skipIf(!HAS_GDAL)('reads the same DN as gdallocationinfo at full-image coordinates through the crop geotransform', async () => {
    const win = await product.bands.VV!.readWindow({ x0: 4880, y0: 4120, width: 20, height: 10 }, { quantity: 'dn', denoise: false });
    for (const [line, pixel] of [
      [4125, 4888],
      [4125, 4889],
      [4124, 4889],
      [4129, 4899],
      [4120, 4880],
    ] as const) {
      // -geoloc: georeferenced coordinates, i.e. full-image pixel/line via the 4000/4000 transform.
      const dn = Number(gdal('gdallocationinfo', ['-valonly', '-geoloc', NORTH_SEA_VV_TIFF, `${pixel + 0.5}`, `${line + 0.5}`]).trim());
      expect(win.data[(line - 4120) * 20 + (pixel - 4880)]).toBe(dn);
    }
  });
});

describe('North-Sea GRD crop: calibration', () => {
  it('reads raw DN with the crop offset applied (ship pixel crop 125/888 = line 4125, pixel 4888 has DN 885)', async () => {
    const win = await readWindow(product.bands.VV!, { x0: 4888, y0: 4125, width: 1, height: 1 }, { quantity: 'dn', denoise: false });
    expect(win.data[0]).toBe(885);
    expect(win.valid[0]).toBe(1);
  });

  it('computes σ0 = (DN² − η)/A² for the ship pixel exactly as by hand from the LUTs', async () => {
    // Calibration vectors at lines 4004 and 4671 hold the same sigmaNought near pixel 4888:
    //   pixel 4880 → 634.7084, pixel 4920 → 634.4899; t = (4888 − 4880)/40 = 0.2
    const A = 634.7084 + 0.2 * (634.4899 - 634.7084);
    // Noise range vectors (lines 4002 and 4669) at pixels 4880/4920, same t = 0.2:
    const eta4002 = 1240.788 + 0.2 * (1236.971 - 1240.788);
    const eta4669 = 1212.248 + 0.2 * (1208.531 - 1212.248);
    const etaRange = eta4002 + ((4125 - 4002) / (4669 - 4002)) * (eta4669 - eta4002);
    // Azimuth noise block IW1 (pixels 0…9058), lines 4120/4130: 1.000355/1.000560, t = 0.5:
    const etaAzimuth = 1.000355 + 0.5 * (1.00056 - 1.000355);
    const eta = etaRange * etaAzimuth;
    const dn = 885;
    const sigma0 = (dn * dn - eta) / (A * A); // (783225 − 1235.33) / 402799.3 ≈ 1.9414 (+2.88 dB: a ship)
    const sigma0Raw = (dn * dn) / (A * A);

    const band = product.bands.VV!;
    const win = { x0: 4888, y0: 4125, width: 1, height: 1 };
    const denoised = await band.readWindow(win, { quantity: 'sigma0', denoise: true });
    const raw = await band.readWindow(win, { quantity: 'sigma0', denoise: false });
    expect(denoised.data[0]! / sigma0).toBeCloseTo(1, 5);
    expect(raw.data[0]! / sigma0Raw).toBeCloseTo(1, 5);
    expect(linearToDb(denoised.data[0]!)).toBeCloseTo(2.88, 2);
  });

  it('gives a sea pixel a plausible σ0 and clamps noise-dominated pixels to the floor', async () => {
    // Line 4500, pixel 4500 (crop 500/500): DN 32. A = (636.9166 + 636.6940)/2 (t = 0.5, same on
    // lines 4004 and 4671), so σ0 without noise removal = 32² / 636.8053² = 0.0025251 (−25.98 dB).
    const A = (636.9166 + 636.694) / 2;
    const band = product.bands.VV!;
    const win = { x0: 4500, y0: 4500, width: 1, height: 1 };
    const raw = await band.readWindow(win, { quantity: 'sigma0', denoise: false });
    expect(raw.data[0]! / ((32 * 32) / (A * A))).toBeCloseTo(1, 5);
    expect(linearToDb(raw.data[0]!)).toBeCloseTo(-25.98, 2);
    // η there ≈ 1252.47 × 1.027105 ≈ 1286.4 > DN² = 1024: the pixel is under the noise floor.
    const denoised = await band.readWindow(win, { quantity: 'sigma0', denoise: true });
    expect(denoised.data[0]).toBeCloseTo(SIGMA_FLOOR_LINEAR, 12);
    expect(denoised.valid[0]).toBe(1);
  });

  it('has a sea-clutter mean σ0 between −32 and −20 dB over open water (crop rows 400–600)', async () => {
    const { data, valid } = await product.bands.VV!.readWindow({ x0: 4400, y0: 4400, width: 200, height: 200 }, { quantity: 'sigma0', denoise: true });
    let sum = 0;
    let n = 0;
    for (let i = 0; i < data.length; i++) {
      if (valid[i]) {
        sum += data[i]!;
        n++;
      }
    }
    expect(n).toBe(40000);
    const meanDb = linearToDb(sum / n);
    expect(meanDb).toBeGreaterThan(-32);
    expect(meanDb).toBeLessThan(-20);
  });

  it('relates σ0, β0 and γ0 through the incidence angle (σ0 = β0·sin θ, γ0 = σ0 / cos θ)', async () => {
    const band = product.bands.VV!;
    const win = { x0: 4888, y0: 4125, width: 1, height: 1 };
    const [s, b, g] = await Promise.all(
      (['sigma0', 'beta0', 'gamma0'] as const).map((quantity) => band.readWindow(win, { quantity, denoise: false })),
    );
    // θ ≈ 33.5° at pixel 4888 on the grid; the LUTs use the ellipsoid incidence, a few tenths
    // of a degree off the grid's terrain-height angle, hence 0.01 (≈ 0.4°) of slack.
    const theta = (band.geolocation.incidenceAngle(4125, 4888) * Math.PI) / 180;
    expect(Math.abs(s.data[0]! / b.data[0]! - Math.sin(theta))).toBeLessThan(0.01);
    expect(Math.abs(g.data[0]! / s.data[0]! - 1 / Math.cos(theta))).toBeLessThan(0.01);
    expect(b.data[0]!).toBeGreaterThan(s.data[0]!);
    expect(g.data[0]!).toBeGreaterThan(s.data[0]!);
  });

  it('marks pixels outside the crop invalid, and everything inside valid (DN > 0)', async () => {
    const band = product.bands.VV!;
    const { data, valid } = await band.readWindow({ x0: 3990, y0: 4995, width: 20, height: 10 }, { quantity: 'sigma0', denoise: true });
    for (let y = 0; y < 10; y++) {
      for (let x = 0; x < 20; x++) {
        const inside = 3990 + x >= 4000 && 4995 + y < 5000;
        expect(valid[y * 20 + x]).toBe(inside ? 1 : 0);
        if (!inside) expect(data[y * 20 + x]).toBe(0);
      }
    }
    const all = await band.readWindow(band.validWindow!, { quantity: 'dn', denoise: false });
    expect(all.valid.reduce((a, v) => a + v, 0)).toBe(1_000_000);
  });

  it('reads the crop tile by tile with halos, and the cores add up to the whole crop', async () => {
    const band = product.bands.VH!;
    const plan = planTiles(band.width, band.height, 256, 16, band.validWindow!);
    expect(plan.rows * plan.cols).toBe(16);
    let validPixels = 0;
    let tiles = 0;
    for await (const { tile, data } of readTiles(plan, (w) => band.readWindow(w, { quantity: 'sigma0', denoise: true }))) {
      tiles++;
      const { coreInHalo, halo } = tile;
      for (let y = 0; y < coreInHalo.height; y++) {
        for (let x = 0; x < coreInHalo.width; x++) validPixels += data.valid[(y + coreInHalo.y0) * halo.width + x + coreInHalo.x0]!;
      }
    }
    expect(tiles).toBe(16);
    expect(validPixels).toBe(1_000_000);
  });
});
