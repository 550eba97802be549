/**
 * Geocoding a real GRD (the North-Sea crop) onto a 10 m UTM grid, cross-checked against
 * GDAL: `gdalwarp -tps -r near -t_srs EPSG:32631 -tr 10 10` of the measurement with the
 * annotation's geolocation grid as GCPs (the crop's TIFF has none: they are written with the
 * crop offset removed and the centre-of-pixel convention, pixel + 0.5).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  GEOCODE_LATTICE,
  GeocodedGrdRaster,
  GrdGeocoder,
  openRasterProduct,
  openRasterSource,
  openSafeProduct,
  utmEpsgFor,
  utmGridForAoi,
  type RasterProduct,
  type SafeProduct,
  type UtmGrid,
} from '../../src/imagery/index.ts';
import { writeTiff } from '../../src/synth/tiff.ts';
import { geodesicAreaSqm } from '../../src/geo/index.ts';
import { GDAL_TAG, HAS_GDAL, NORTH_SEA_SAFE, NORTH_SEA_TRUTH, NORTH_SEA_VV_TIFF, gdal } from './fixtures.ts';

const OFFSET = 4000;
let product: SafeProduct;
let grid: UtmGrid;
let raster: GeocodedGrdRaster;
let tmp: string;
let whole: { x0: number; y0: number; width: number; height: number };

beforeAll(async () => {
  product = await openSafeProduct(NORTH_SEA_SAFE);
  grid = utmGridForAoi({ type: 'Polygon', coordinates: product.validFootprint!.coordinates }, 10);
  raster = (await openRasterSource({ kind: 'grd', product: NORTH_SEA_SAFE, polarisation: 'VV', grid })) as GeocodedGrdRaster;
  whole = { x0: 0, y0: 0, width: grid.width, height: grid.height };
  tmp = mkdtempSync(path.join(os.tmpdir(), 'sarwatch-geocode-'));
}, 60_000);

afterAll(async () => {
  await raster?.close();
  await product?.close();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

/** The annotation grid as GDAL GCPs of the cropped TIFF (corner convention: centre = +0.5). */
function gcps() {
  return product.bands.VV!.annotation.geolocationGrid.map((g) => ({
    pixel: g.pixel - OFFSET + 0.5,
    line: g.line - OFFSET + 0.5,
    lon: g.longitude,
    lat: g.latitude,
    height: g.height,
  }));
}

function warp(input: string, output: string, nodata: string): void {
  const te = [grid.originX, grid.originY - grid.height * grid.pixelSizeM, grid.originX + grid.width * grid.pixelSizeM, grid.originY];
  gdal('gdalwarp', ['-overwrite', '-q', '-tps', '-r', 'near', '-t_srs', `EPSG:${grid.epsg}`, '-tr', '10', '10', '-te', ...te.map(String), '-dstnodata', nodata, input, output]);
}

describe('GRD geocoding: the grid', () => {
  it('puts the crop in UTM zone 31N on a 10 m grid snapped to multiples of 10 m that covers it', () => {
    expect(utmEpsgFor(2.6, 51.4)).toBe(32631);
    expect(utmEpsgFor(-0.5, -10)).toBe(32730);
    expect(grid.epsg).toBe(32631);
    expect(grid.pixelSizeM).toBe(10);
    expect(grid.originX % 10).toBe(0);
    expect(grid.originY % 10).toBe(0);
    // The 1000 × 1000 crop at 10 m, rotated by the −15° heading: ~1220 m wider each way.
    expect(grid.width).toBeGreaterThan(1100);
    expect(grid.width).toBeLessThan(1300);
    expect(grid.height).toBeGreaterThan(1100);
    expect(grid.height).toBeLessThan(1300);
    for (const [lon, lat] of product.validFootprint!.coordinates[0]!) {
      const { row, col } = raster.lonLatToPixel(lon, lat);
      expect(row).toBeGreaterThan(-0.5);
      expect(col).toBeGreaterThan(-0.5);
      expect(row).toBeLessThan(grid.height - 0.5);
      expect(col).toBeLessThan(grid.width - 0.5);
    }
    expect(raster.epsg).toBe(32631);
    expect(raster.geotransform).toEqual([grid.originX, 10, 0, grid.originY, 0, -10]);
    expect(raster.bandDescriptions).toEqual(['Sigma0_VV']);
  });
});

describe('GRD geocoding: values', () => {
  it('every valid output pixel is the calibrated σ0 of the one GRD pixel it maps to (nearest neighbour, no averaging)', async () => {
    const window = { x0: 300, y0: 300, width: 200, height: 200 };
    const read = await raster.readWindow(window);
    const src = raster.sourcePixels(window);
    let minL = Infinity;
    let minP = Infinity;
    let maxL = -Infinity;
    let maxP = -Infinity;
    for (let i = 0; i < src.lines.length; i++) {
      minL = Math.min(minL, src.lines[i]!);
      maxL = Math.max(maxL, src.lines[i]!);
      minP = Math.min(minP, src.pixels[i]!);
      maxP = Math.max(maxP, src.pixels[i]!);
    }
    const grd = await product.bands.VV!.readWindow({ x0: minP, y0: minL, width: maxP - minP + 1, height: maxL - minL + 1 }, { quantity: 'sigma0', denoise: true });
    let checked = 0;
    for (let i = 0; i < read.valid.length; i++) {
      expect(read.valid[i]).toBe(1); // the window lies inside the crop
      const k = (src.lines[i]! - minL) * (maxP - minP + 1) + (src.pixels[i]! - minP);
      expect(read.data[0]![i]).toBe(grd.data[k]);
      checked++;
    }
    expect(checked).toBe(40_000);
  });

  it('is no-data (NaN) outside the crop, and the valid pixels cover the crop\'s geodesic area to 0.5 %', async () => {
    const read = await raster.readWindow(whole);
    let valid = 0;
    for (let i = 0; i < read.valid.length; i++) {
      if (read.valid[i]) valid++;
      else expect(Number.isNaN(read.data[0]![i]!)).toBe(true);
    }
    // The analysed area is the crop's: valid output pixels × the ground area of one output
    // pixel (UTM scale factor 0.9996 here) against the geodesic area of the crop's outline
    // (101.3 km²: the azimuth spacing on the ground is 10.15 m, not the annotated 10 m).
    const c = grid.width / 2;
    const r = grid.height / 2;
    const corners = [[r - 0.5, c - 0.5], [r - 0.5, c + 0.5], [r + 0.5, c + 0.5], [r + 0.5, c - 0.5], [r - 0.5, c - 0.5]].map(([y, x]) => raster.pixelToLonLat(y!, x!));
    const pixelArea = geodesicAreaSqm({ type: 'Polygon', coordinates: [corners] });
    expect(pixelArea).toBeGreaterThan(100);
    expect(pixelArea).toBeLessThan(100.2);
    const cropArea = geodesicAreaSqm({ type: 'Polygon', coordinates: product.validFootprint!.coordinates });
    // Measured 1.0020: rounding admits up to half a pixel along the outline (~0.2 % of this crop).
    expect((valid * pixelArea) / cropArea).toBeGreaterThan(0.995);
    expect((valid * pixelArea) / cropArea).toBeLessThan(1.005);
    expect(read.valid[0]).toBe(0); // the grid corner is outside the rotated crop
  });
});

describe.skipIf(!HAS_GDAL)(`GRD geocoding vs gdalwarp -tps -r near ${GDAL_TAG}`, () => {
  it('picks the same GRD pixel as GDAL for ≥ 95 % of the output pixels, and never one more than a pixel away', async () => {
    // An index image: value = crop row × 1000 + col, georeferenced by the grid's GCPs.
    const index = new Float32Array(1000 * 1000);
    for (let i = 0; i < index.length; i++) index[i] = i;
    const indexTif = path.join(tmp, 'index.tif');
    await writeTiff(indexTif, { width: 1000, height: 1000, sampleType: 'float32', georeference: { type: 'gcps', gcps: gcps() } }, index);
    const warped = path.join(tmp, 'index_utm.tif');
    warp(indexTif, warped, '-1');
    const g = await openRasterProduct(warped);
    try {
      expect(g.width).toBe(grid.width);
      expect(g.height).toBe(grid.height);
      const gw = await g.readWindow(whole);
      const ours = raster.sourcePixels(whole);
      let both = 0;
      let same = 0;
      let disagreeOnValidity = 0;
      for (let i = 0; i < gw.valid.length; i++) {
        const v = gw.data[0]![i]!;
        const inGdal = gw.valid[i] === 1 && v >= 0;
        const row = ours.lines[i]! - OFFSET;
        const col = ours.pixels[i]! - OFFSET;
        const inOurs = row >= 0 && row < 1000 && col >= 0 && col < 1000;
        if (inGdal !== inOurs) {
          disagreeOnValidity++;
          continue;
        }
        if (!inGdal) continue;
        both++;
        const dr = row - Math.floor(v / 1000);
        const dc = col - (v % 1000);
        if (dr === 0 && dc === 0) same++;
        expect(Math.max(Math.abs(dr), Math.abs(dc))).toBeLessThanOrEqual(1);
      }
      // Measured: 96.2 % identical; the rest are rounding ties one pixel apart (TPS vs bicubic differ by < 0.05 px).
      expect(both).toBeGreaterThan(1_000_000);
      expect(same / both).toBeGreaterThan(0.95);
      // Only along the crop's edge, where a rounding tie decides whether a pixel is in.
      expect(disagreeOnValidity).toBeLessThan(200);
    } finally {
      await g.close();
    }
  }, 120_000);

  it('maps lon/lat to GRD (line, pixel) within 0.1 px of gdaltransform -tps (sub-pixel)', async () => {
    const indexTif = path.join(tmp, 'gcp.tif');
    await writeTiff(indexTif, { width: 1000, height: 1000, sampleType: 'uint16', georeference: { type: 'gcps', gcps: gcps() } }, new Uint16Array(1000 * 1000));
    const geocoder = new GrdGeocoder(product.geolocation, grid);
    const points: string[] = [];
    const ours: [number, number][] = [];
    for (let row = 0; row < grid.height; row += 97) {
      for (let col = 0; col < grid.width; col += 89) {
        const [lon, lat] = raster.pixelToLonLat(row, col);
        points.push(`${lon} ${lat}`);
        const m = geocoder.map({ x0: col, y0: row, width: 1, height: 1 });
        ours.push([m.pixels[0]! - OFFSET + 0.5, m.lines[0]! - OFFSET + 0.5]);
      }
    }
    const out = gdal('gdaltransform', ['-tps', '-i', indexTif], points.join('\n')).trim().split('\n');
    expect(out).toHaveLength(points.length);
    let worst = 0;
    out.forEach((line, i) => {
      const [x, y] = line.trim().split(/\s+/).map(Number);
      worst = Math.max(worst, Math.hypot(ours[i]![0] - x!, ours[i]![1] - y!));
    });
    // Measured 0.045 px: bicubic Hermite (ours) against a thin-plate spline through the same 210 points.
    expect(worst).toBeLessThan(0.1);
  });

  it('puts every ship of the ground truth at the same place as GDAL: bright-target location error ≤ 1 pixel', async () => {
    const measurement = path.join(tmp, 'vv_gcps.tif');
    // The DN measurement with the GCPs attached (gdal_translate -gcp), then warped like the index.
    const gcpArgs = gcps().flatMap((g) => ['-gcp', String(g.pixel), String(g.line), String(g.lon), String(g.lat)]);
    gdal('gdal_translate', ['-q', '-a_srs', 'EPSG:4326', ...gcpArgs, NORTH_SEA_VV_TIFF, measurement]);
    const warped = path.join(tmp, 'vv_utm.tif');
    warp(measurement, warped, '0');
    const g: RasterProduct = await openRasterProduct(warped);
    try {
      const gdalDn = (await g.readWindow(whole)).data[0]!;
      const ours = (await raster.readWindow(whole)).data[0]!;
      const truth = JSON.parse(readFileSync(NORTH_SEA_TRUTH, 'utf8')) as {
        features: { geometry: { coordinates: [number, number] }; properties: { certain: boolean } }[];
      };
      const ships = truth.features.filter((f) => f.properties.certain);
      expect(ships).toHaveLength(16);
      const errors: number[] = [];
      const truthErrors: number[] = [];
      for (const ship of ships) {
        const [lon, lat] = ship.geometry.coordinates;
        const at = raster.lonLatToPixel(lon, lat);
        const r0 = Math.round(at.row);
        const c0 = Math.round(at.col);
        // Intensity-weighted centroid of the brightest pixels (≥ half the peak) within ±25 px.
        const centroid = (img: Float32Array, square: boolean): [number, number] => {
          let peak = 0;
          for (let r = r0 - 25; r <= r0 + 25; r++) for (let c = c0 - 25; c <= c0 + 25; c++) {
            const v = img[r * grid.width + c]!;
            const p = square ? v * v : v;
            if (p > peak) peak = p;
          }
          let sr = 0;
          let sc = 0;
          let sw = 0;
          for (let r = r0 - 25; r <= r0 + 25; r++) for (let c = c0 - 25; c <= c0 + 25; c++) {
            const v = img[r * grid.width + c]!;
            const p = square ? v * v : v;
            if (p >= peak / 2) {
              sr += p * r;
              sc += p * c;
              sw += p;
            }
          }
          return [sr / sw, sc / sw];
        };
        const a = centroid(ours, false); // σ0 ∝ DN² (the LUT is smooth over a ship)
        const b = centroid(gdalDn, true);
        errors.push(Math.hypot(a[0] - b[0], a[1] - b[1]));
        truthErrors.push(Math.hypot(a[0] - at.row, a[1] - at.col));
      }
      // Measured: 11 of 16 within 0.01 px of GDAL's, the worst 0.80 px, mean 0.10 px.
      expect(Math.max(...errors)).toBeLessThanOrEqual(1);
      expect(errors.reduce((a, b) => a + b, 0) / errors.length).toBeLessThan(0.2);
      // The labels mark a point on the ship (ships are 20–40 px long), not its bright centroid:
      // measured 0.8–6.0 px from it.
      expect(Math.max(...truthErrors)).toBeLessThan(8);
    } finally {
      await g.close();
    }
  }, 120_000);
});

describe('GRD geocoding: the lattice', () => {
  it(`interpolating the exact map between lattice points ${GEOCODE_LATTICE} pixels apart adds < 0.001 GRD pixels`, () => {
    const window = { x0: 200, y0: 500, width: 129, height: 129 };
    const coarse = new GrdGeocoder(product.geolocation, grid).map(window);
    const exact = new GrdGeocoder(product.geolocation, grid, 1).map(window);
    let worst = 0;
    for (let i = 0; i < exact.lines.length; i++) {
      worst = Math.max(worst, Math.abs(coarse.lines[i]! - exact.lines[i]!), Math.abs(coarse.pixels[i]! - exact.pixels[i]!));
    }
    expect(worst).toBeLessThan(1e-3);
  }, 60_000);
});
