import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mergeRtcContributions, parseOperaRtcId, readRtcGeoTiff } from '../../src/catalog/index.ts';
import { openRasterProduct, type RasterProduct } from '../../src/imagery/index.ts';
import { writeRtcStack, type TruthCollection, type WriteRtcResult } from '../../src/synth/index.ts';
import { GDAL_TAG, HAS_GDAL, epsgFromWkt, gdalinfoJson } from '../imagery/fixtures.ts';
import { geodesicAreaSqm } from '../../src/geo/index.ts';
import { changedOverlappingOthers, type TruthBuilding } from '../analysis/changeEval.ts';

let dir: string;
let city: WriteRtcResult;
let farm: WriteRtcResult;
let cityTruth: TruthCollection;
let farmTruth: TruthCollection;

const db = (v: number) => 10 * Math.log10(v);

/** Mean γ0 (dB of the linear mean) of the pixels whose centres fall in a lon/lat polygon, per file. */
async function polygonMeans(files: string[], ring: number[][]): Promise<number[]> {
  const out: number[] = [];
  for (const file of files) {
    const r = await openRasterProduct(file);
    try {
      const pix = ring.map(([lon, lat]) => r.lonLatToPixel(lon!, lat!));
      const rows = pix.map((p) => p.row);
      const cols = pix.map((p) => p.col);
      const y0 = Math.max(0, Math.floor(Math.min(...rows)));
      const x0 = Math.max(0, Math.floor(Math.min(...cols)));
      const y1 = Math.min(r.height - 1, Math.ceil(Math.max(...rows)));
      const x1 = Math.min(r.width - 1, Math.ceil(Math.max(...cols)));
      const w = await r.readWindow({ x0, y0, width: x1 - x0 + 1, height: y1 - y0 + 1 });
      let s = 0;
      let n = 0;
      for (let y = y0; y <= y1; y++) {
        for (let x = x0; x <= x1; x++) {
          if (!inside(pix, x, y)) continue;
          s += w.data[0]![(y - y0) * (x1 - x0 + 1) + (x - x0)]!;
          n++;
        }
      }
      out.push(n > 0 ? db(s / n) : Number.NaN);
    } finally {
      await r.close();
    }
  }
  return out;
}

function inside(poly: { row: number; col: number }[], x: number, y: number): boolean {
  let c = false;
  for (let i = 0, j = poly.length - 1; i < poly.length; j = i++) {
    const a = poly[i]!;
    const b = poly[j]!;
    if (a.row > y !== b.row > y && x < ((b.col - a.col) * (y - a.row)) / (b.row - a.row) + a.col) c = !c;
  }
  return c;
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'synth-rtc-'));
  city = await writeRtcStack(path.join(dir, 'city'), {
    scene: 'city',
    seed: 5,
    center: [4.995, 52.356],
    width: 120,
    height: 120,
    start: '2023-01-01',
    count: 12,
    track: 161,
  });
  farm = await writeRtcStack(path.join(dir, 'farm'), { scene: 'farmland', seed: 6, center: [5.45, 52.52], start: '2024-04-10', count: 15, track: 161, width: 100, height: 100 });
  cityTruth = JSON.parse(await readFile(city.groundTruthPath, 'utf8')) as TruthCollection;
  farmTruth = JSON.parse(await readFile(farm.groundTruthPath, 'utf8')) as TruthCollection;
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('synth RTC stacks: format', () => {
  it('names files like OPERA RTC-S1, one per date and polarisation, 12 days apart on one track', () => {
    expect(city.files).toHaveLength(24);
    expect(city.dates[0]).toBe('2023-01-02');
    for (let k = 1; k < city.dates.length; k++) {
      expect(Date.parse(city.dates[k]!) - Date.parse(city.dates[k - 1]!)).toBe(12 * 86_400_000);
    }
    const first = parseOperaRtcId(path.basename(city.files[0]!));
    expect(first).toMatchObject({ track: 161, subswath: 'IW2', mission: 'S1A', spacing: 10, version: 'v1.0', polarisation: 'VV' });
    expect(first.burstId).toBe(city.burstId);
    expect(first.acquisitionTime.toISOString().slice(0, 10)).toBe('2023-01-02');
    expect(parseOperaRtcId(path.basename(city.files[1]!)).polarisation).toBe('VH');
    // VV and VH of a date share the processing time, hence the product id.
    expect(parseOperaRtcId(path.basename(city.files[1]!)).id).toBe(first.id);
    expect(parseOperaRtcId(path.basename(farm.files[0]!)).spacing).toBe(30);
  });

  it('opens with openRasterProduct: UTM EPSG, snapped geotransform, NaN no-data, OPERA identity from tags', async () => {
    let r: RasterProduct | null = null;
    try {
      r = await openRasterProduct(city.files[0]!);
      expect(r.epsg).toBe(32631);
      expect(r.width).toBe(120);
      const [x0, sx, rx, y0, ry, sy] = r.geotransform;
      expect([sx, rx, ry, sy]).toEqual([10, 0, 0, -10]);
      expect(x0 % 10).toBe(0);
      expect(y0 % 10).toBe(0);
      expect(Number.isNaN(r.nodata)).toBe(true);
      expect(r.bandDescriptions).toEqual(['RTC-S1 VV Backscatter']);
      expect(r.opera).toMatchObject({ track: 161, burstId: city.burstId, polarization: 'VV', platform: 'S1A', orbitPassDirection: 'ascending', source: 'tags+filename' });
      expect(r.opera!.acquisitionTime!.slice(0, 10)).toBe('2023-01-02');
      expect(r.metadata.PROCESSING_INFORMATION_OUTPUT_BACKSCATTER_NORMALIZATION_CONVENTION).toBe('gamma0');
      const [lon, lat] = r.pixelToLonLat(59.5, 59.5);
      expect(lon).toBeCloseTo(4.995, 2);
      expect(lat).toBeCloseTo(52.356, 2);
      const w = await r.readWindow({ x0: 0, y0: 0, width: 120, height: 120 });
      expect(w.valid.every((v) => v === 1)).toBe(true);
      expect(w.data[0]!.every((v) => v > 0 && v < 100)).toBe(true);
    } finally {
      await r?.close();
    }
  });

  it('is indexed as RTC: the VV and VH files of a date merge into one scene with the right date and orbit', async () => {
    const vv = await readRtcGeoTiff(city.files[0]!);
    const vh = await readRtcGeoTiff(city.files[1]!);
    expect(vv!.sceneId).toBe(vh!.sceneId);
    const record = mergeRtcContributions([vv!, vh!]);
    expect(record).toMatchObject({ productType: 'RTC', relativeOrbit: 161, orbitDirection: 'ascending', polarisations: ['VV', 'VH'] });
    expect(record.startTime.slice(0, 10)).toBe('2023-01-02');
    expect(record.absoluteOrbit).toBeGreaterThan(46000);
  });

  it.skipIf(!HAS_GDAL)(`opens in GDAL with the same CRS, geotransform and no-data ${GDAL_TAG}`, async () => {
    const info = gdalinfoJson(farm.files[0]!);
    expect(info.size).toEqual([100, 100]);
    expect(epsgFromWkt(info.coordinateSystem!.wkt)).toBe(32631);
    expect(info.geoTransform![1]).toBe(30);
    expect(String(info.bands[0]!.noDataValue)).toBe('NaN');
    const r = await openRasterProduct(farm.files[0]!);
    expect(info.geoTransform).toEqual(r.geotransform);
    await r.close();
  });

  it('is deterministic: the same spec writes the same bytes', async () => {
    const again = await writeRtcStack(path.join(dir, 'again'), { scene: 'farmland', seed: 6, center: [5.45, 52.52], start: '2024-04-10', count: 2, track: 161, width: 100, height: 100 });
    const hash = async (f: string) => createHash('md5').update(await readFile(f)).digest('hex');
    expect(await hash(again.files[0]!)).toBe(await hash(farm.files[0]!));
    expect(path.basename(again.files[3]!)).toBe(path.basename(farm.files[3]!));
    expect(await hash(again.files[3]!)).toBe(await hash(farm.files[3]!));
  });
});

describe('synth RTC stacks: ground truth', () => {
  it('makes new buildings bright in VV from their appearance date on', async () => {
    const built = cityTruth.features.filter((f) => f.properties.kind === 'building' && f.properties.status === 'new' && (f.properties.length_m as number) >= 30);
    expect(built.length).toBeGreaterThan(0);
    const vvFiles = city.files.filter((f) => f.endsWith('_VV.tif'));
    for (const b of built.slice(0, 4)) {
      const k = city.dates.indexOf(b.properties.appear_date as string);
      expect(k).toBeGreaterThan(0);
      const series = await polygonMeans(vvFiles, b.geometry.coordinates[0] as number[][]);
      const before = series.slice(0, k);
      const after = series.slice(k);
      const mean = (a: number[]) => a.reduce((s, v) => s + v, 0) / a.length;
      expect(mean(after) - mean(before)).toBeGreaterThan(5);
    }
  });

  it('keeps new and demolished buildings clear of every other building, so their change is visible', async () => {
    const buildings = cityTruth.features.filter((f) => f.properties.kind === 'building') as unknown as TruthBuilding[];
    expect(changedOverlappingOthers(buildings)).toEqual([]);
    // Old-town buildings that stand throughout may overlap each other.
    const demolished = buildings.filter((b) => b.properties.vanish_date !== null && geodesicAreaSqm(b.geometry) >= 400);
    expect(demolished.length).toBeGreaterThan(2);
    const vvFiles = city.files.filter((f) => f.endsWith('_VV.tif'));
    for (const b of demolished) {
      const k = city.dates.indexOf(b.properties.vanish_date!);
      const series = await polygonMeans(vvFiles, b.geometry.coordinates[0] as number[][]);
      const mean = (a: number[]) => a.reduce((s, v) => s + v, 0) / a.length;
      // Building (+1 … +8 dB) → cleared bare soil (≈ −12 dB).
      expect(mean(series.slice(0, k)) - mean(series.slice(k))).toBeGreaterThan(6);
    }
  });

  it('records demolished buildings and change points with their dates', () => {
    const kinds = new Set(cityTruth.features.map((f) => f.properties.kind));
    expect(kinds).toEqual(new Set(['building', 'changepoint']));
    const changes = cityTruth.features.filter((f) => f.properties.kind === 'changepoint');
    expect(changes.map((c) => c.properties.change_type).sort()).toEqual(['clearing', 'flood']);
    for (const c of changes) for (const d of c.properties.change_dates as string[]) expect(city.dates).toContain(d);
    expect(cityTruth.sarwatch).toMatchObject({ productType: 'RTC', scene: 'city', burstId: city.burstId, epsg: 32631, dates: city.dates });
  });

  it('drops VH where the forest is cleared, from the change date on', async () => {
    const clearing = cityTruth.features.find((f) => f.properties.change_type === 'clearing')!;
    const k = city.dates.indexOf((clearing.properties.change_dates as string[])[0]!);
    const series = await polygonMeans(
      city.files.filter((f) => f.endsWith('_VH.tif')),
      clearing.geometry.coordinates[0] as number[][],
    );
    const mean = (a: number[]) => a.reduce((s, v) => s + v, 0) / a.length;
    expect(mean(series.slice(0, k)) - mean(series.slice(k))).toBeGreaterThan(4);
  });

  it('gives cropped fields a VH growth cycle of 5–8 dB and idle fields none', async () => {
    const fields = farmTruth.features.filter((f) => f.properties.kind === 'field');
    const idle = fields.filter((f) => f.properties.idle === true);
    const crops = fields.filter((f) => f.properties.growth_cycle === true && (f.properties.width_m as number) > 200);
    expect(idle.length).toBeGreaterThanOrEqual(2);
    expect(crops.length).toBeGreaterThan(2);
    const vhFiles = farm.files.filter((f) => f.endsWith('_VH.tif'));
    const range = async (f: (typeof fields)[number]) => {
      const s = (await polygonMeans(vhFiles, f.geometry.coordinates[0] as number[][])).filter(Number.isFinite);
      return Math.max(...s) - Math.min(...s);
    };
    for (const f of idle.slice(0, 3)) expect(await range(f)).toBeLessThan(2.5);
    for (const f of crops.slice(0, 4)) {
      const r = await range(f);
      expect(r).toBeGreaterThan(4);
      expect(r).toBeLessThan(10);
    }
  });
});
