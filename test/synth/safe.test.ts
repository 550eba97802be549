import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseProductName, readSafeFolder } from '../../src/catalog/index.ts';
import { openSafeProduct, type SafeProduct } from '../../src/imagery/index.ts';
import {
  GrdGeometry,
  GrdScene,
  IW_GRDH_ENL,
  neszDb,
  writeSafeGrd,
  type SafeGrdSpec,
  type TruthCollection,
} from '../../src/synth/index.ts';
import { GDAL_TAG, HAS_GDAL, gdal } from '../imagery/fixtures.ts';

const W = 1200;
const H = 1000;
const geometry = new GrdGeometry({ center: [3.9, 52.3], width: W, height: H, passDirection: 'ascending', nearIncidenceDeg: 33 });
const at = (line: number, pixel: number): [number, number] => {
  const p = geometry.pixelToLonLat(line, pixel);
  return [p.lon, p.lat];
};

/** A scene laid out in pixel coordinates: two ships, a slick, a calm patch, a strip of land. */
const spec: SafeGrdSpec = {
  seed: 11,
  start: '2024-06-13T17:33:40Z',
  center: [3.9, 52.3],
  width: W,
  height: H,
  nearIncidenceDeg: 33,
  wind: { speed: 8, directionDeg: 220 },
  ships: [
    { id: 'big', lon: at(300, 300)[0], lat: at(300, 300)[1], lengthM: 200, headingDeg: 30 },
    { id: 'small', lon: at(300, 900)[0], lat: at(300, 900)[1], lengthM: 20, headingDeg: 100 },
  ],
  slicks: [{ id: 'slick', path: [at(700, 150), at(705, 400), at(700, 600)], widthM: [250, 400], dampingDb: 8 }],
  lowWind: [{ id: 'calm', center: at(820, 950), lengthM: 3000, widthM: 1600, orientationDeg: 0, minSpeed: 1 }],
  surfaces: [{ kind: 'land', polygon: [[at(-50, 1120), at(-50, 1300), at(1100, 1300), at(1100, 1120), at(-50, 1120)]] }],
};

let dir: string;
let productPath: string;
let truthPath: string;
let product: SafeProduct;
let truth: TruthCollection;
const scene = new GrdScene(spec, geometry);

function model(window: { x0: number; y0: number; width: number; height: number }, pol: 'VV' | 'VH'): Float32Array {
  const out = new Float32Array(window.width * window.height);
  scene.renderRows(window.y0, window.height, window.x0, window.width, pol === 'VV' ? out : null, pol === 'VH' ? out : null);
  return out;
}

function mean(values: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < values.length; i++) s += values[i]!;
  return s / values.length;
}

const db = (v: number) => 10 * Math.log10(v);

async function md5s(root: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const walk = async (d: string) => {
    for (const e of await readdir(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) await walk(p);
      else out.set(path.relative(root, p), createHash('md5').update(await readFile(p)).digest('hex'));
    }
  };
  await walk(root);
  return out;
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'synth-safe-'));
  ({ productPath, groundTruthPath: truthPath } = await writeSafeGrd(dir, spec));
  product = await openSafeProduct(productPath);
  truth = JSON.parse(await readFile(truthPath, 'utf8')) as TruthCollection;
});

afterAll(async () => {
  await product?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('synth SAFE GRD: product identity', () => {
  it('has a valid Sentinel-1 name whose relative orbit follows from the absolute orbit', () => {
    const id = path.basename(productPath, '.SAFE');
    expect(id).toMatch(/^S1A_IW_GRDH_1SDV_20240613T173340_20240613T173341_054308_[0-9A-F]{6}_[0-9A-F]{4}$/);
    const name = parseProductName(id);
    expect(name.relativeOrbit).toBe(161); // ((54308 − 73) mod 175) + 1
    expect(path.basename(truthPath)).toBe(`${id}.truth.geojson`);
  });

  it('opens with openSafeProduct: size, polarisations, pass, times, LUTs, noise layout', () => {
    expect(product.productType).toBe('GRD');
    expect(product.width).toBe(W);
    expect(product.height).toBe(H);
    expect(product.polarisations).toEqual(['VV', 'VH']);
    expect(product.passDirection).toBe('ascending');
    expect(product.startTime).toBe('2024-06-13T17:33:40.000000Z');
    expect(product.manifest.relativeOrbit).toBe(161);
    expect(product.manifest.absoluteOrbit).toBe(54308);
    expect(product.manifest.ipfVersion).toBe('003.71');
    expect(product.validWindow).toEqual({ x0: 0, y0: 0, width: W, height: H });
    const vv = product.bands.VV!;
    expect(vv.files.measurement).toMatch(/^measurement\/s1a-iw-grd-vv-.*-001\.tiff$/);
    expect(product.bands.VH!.files.measurement).toMatch(/^measurement\/s1a-iw-grd-vh-.*-002\.tiff$/);
    expect(vv.noise.layout).toBe('range-azimuth');
    expect(vv.annotation.geolocationGrid).toHaveLength(21 * 11);
    expect(vv.geolocation.incidenceAngle(0, 0)).toBeCloseTo(33, 3);
    expect(vv.annotation.platformHeading).toBeGreaterThan(-17);
    expect(vv.annotation.platformHeading).toBeLessThan(-13);
  });

  it('is indexed by the local catalog from its manifest', async () => {
    const record = await readSafeFolder(productPath);
    expect(record.productType).toBe('GRD');
    expect(record.relativeOrbit).toBe(161);
    expect(record.orbitDirection).toBe('ascending');
    expect(record.startTime).toBe('2024-06-13T17:33:40.000Z');
    expect(record.polarisations).toEqual(['VV', 'VH']);
    expect(Object.keys(record.assets)).toEqual(expect.arrayContaining(['vv', 'vh', 'manifest', 'product']));
  });
});

describe('synth SAFE GRD: radiometry read back through the calibration and noise LUTs', () => {
  const sea = { x0: 500, y0: 420, width: 200, height: 150 };

  it('denoised VV σ0 of open sea matches the model within 0.5 dB', async () => {
    const read = await product.bands.VV!.readWindow(sea, { quantity: 'sigma0', denoise: true });
    expect(read.valid.every((v) => v === 1)).toBe(true);
    const diff = db(mean(read.data)) - db(mean(model(sea, 'VV')));
    expect(Math.abs(diff)).toBeLessThan(0.5);
    // CMOD5.N at 8 m/s and ~33.5°: between −16 and −10 dB.
    expect(db(mean(read.data))).toBeGreaterThan(-16);
    expect(db(mean(read.data))).toBeLessThan(-10);
  });

  it('VH without noise removal is σ0 + NESZ (the sea is below the noise floor)', async () => {
    const read = await product.bands.VH!.readWindow(sea, { quantity: 'sigma0', denoise: false });
    const m = model(sea, 'VH');
    const expected = mean(m.map((v, i) => v + 10 ** (neszDb(geometry.incidenceAngle(sea.x0 + (i % sea.width))) / 10)));
    expect(Math.abs(db(mean(read.data)) - db(expected))).toBeLessThan(0.5);
    expect(db(mean(m))).toBeLessThan(db(expected) - 3);
  });

  it(`speckle of a homogeneous patch has ENL ≈ ${IW_GRDH_ENL} (±15 %)`, async () => {
    const read = await product.bands.VV!.readWindow(sea, { quantity: 'sigma0', denoise: false });
    const m = model(sea, 'VV');
    // Normalise by the local model (σ0 + noise) so slow wind and incidence trends cancel.
    const normalised = read.data.map((v, i) => v / (m[i]! + 10 ** (neszDb(geometry.incidenceAngle(sea.x0 + (i % sea.width))) / 10)));
    const mu = mean(normalised);
    const variance = mean(normalised.map((v) => (v - mu) ** 2));
    const enl = (mu * mu) / variance;
    expect(enl).toBeGreaterThan(IW_GRDH_ENL * 0.85);
    expect(enl).toBeLessThan(IW_GRDH_ENL * 1.15);
  });

  it('puts the land strip at its land level and the calm patch and slick below the sea around them', async () => {
    const land = await product.bands.VV!.readWindow({ x0: 1150, y0: 100, width: 40, height: 400 }, { quantity: 'sigma0', denoise: true });
    expect(db(mean(land.data))).toBeGreaterThan(-11);
    expect(db(mean(land.data))).toBeLessThan(-6);

    const calm = await product.bands.VV!.readWindow({ x0: 930, y0: 800, width: 40, height: 40 }, { quantity: 'sigma0', denoise: true });
    const open = await product.bands.VV!.readWindow({ x0: 930, y0: 560, width: 40, height: 40 }, { quantity: 'sigma0', denoise: true });
    expect(db(mean(open.data)) - db(mean(calm.data))).toBeGreaterThan(8);

    const slick = await product.bands.VV!.readWindow({ x0: 320, y0: 698, width: 120, height: 10 }, { quantity: 'sigma0', denoise: true });
    const beside = await product.bands.VV!.readWindow({ x0: 320, y0: 760, width: 120, height: 10 }, { quantity: 'sigma0', denoise: true });
    expect(db(mean(beside.data)) - db(mean(slick.data))).toBeGreaterThan(4.5);
  });
});

describe('synth SAFE GRD: ground truth and geolocation', () => {
  it('writes ships, the slick, the look-alike and the land to the truth file', () => {
    const kinds = truth.features.map((f) => f.properties.kind);
    expect(kinds.filter((k) => k === 'ship')).toHaveLength(2);
    expect(kinds).toContain('oilslick');
    expect(kinds).toContain('lookalike');
    expect(kinds).toContain('land');
    // The 200 m ship is bright enough (> 40 dBsm) to leave azimuth ambiguities.
    expect(truth.features.filter((f) => f.properties.kind === 'ambiguity').length).toBeGreaterThan(0);
    const big = truth.features.find((f) => f.properties.id === 'big')!;
    expect(big.geometry.type).toBe('Polygon');
    expect(big.properties).toMatchObject({ length_m: 200, heading_deg: 30 });
    expect(truth.sarwatch).toMatchObject({ synthetic: true, productType: 'GRD', relativeOrbit: 161, looks: IW_GRDH_ENL });
  });

  it("maps each truth ship's lon/lat through the annotation grid onto its bright target", async () => {
    for (const f of truth.features.filter((x) => x.properties.kind === 'ship')) {
      const p = f.properties as unknown as { center_lon: number; center_lat: number; line: number; pixel: number; length_m: number };
      const at2 = product.geolocation.lonLatToPixel(p.center_lon, p.center_lat);
      expect(Math.abs(at2.line - p.line)).toBeLessThan(0.05);
      expect(Math.abs(at2.pixel - p.pixel)).toBeLessThan(0.05);
      const r = 6;
      const window = { x0: Math.round(at2.pixel) - r, y0: Math.round(at2.line) - r, width: 2 * r + 1, height: 2 * r + 1 };
      const vh = await product.bands.VH!.readWindow(window, { quantity: 'sigma0', denoise: false });
      const clutter = await product.bands.VH!.readWindow({ ...window, x0: window.x0 + 60 }, { quantity: 'sigma0', denoise: false });
      const peak = Math.max(...vh.data);
      // Bright against the VH noise floor: the 20 m boat by > 8 dB, the 200 m ship by > 20 dB.
      expect(db(peak) - db(mean(clutter.data))).toBeGreaterThan(p.length_m >= 100 ? 20 : 8);
      // And the brightest pixel lies on the hull (within half a length of the centre).
      const k = vh.data.indexOf(peak);
      const dist = Math.hypot((k % window.width) - r, Math.floor(k / window.width) - r) * 10;
      expect(dist).toBeLessThanOrEqual(p.length_m / 2 + 15);
    }
  });

  it.skipIf(!HAS_GDAL)(`opens in GDAL: the measurement TIFF (GCPs, 1-row strips) and the SAFE driver ${GDAL_TAG}`, () => {
    const tiff = path.join(productPath, product.bands.VV!.files.measurement!);
    const info = gdal('gdalinfo', [tiff]);
    expect(info).toMatch(/Size is 1200, 1000/);
    expect(info).toMatch(/Block=1200x1 Type=UInt16/);
    expect(info).toMatch(/GCP\[230\]/);
    const safe = gdal('gdalinfo', [path.join(productPath, 'manifest.safe')]);
    expect(safe).toMatch(/Driver: SAFE\/Sentinel-1 SAR SAFE Product/);
    expect(safe).toMatch(/PRODUCT_TYPE=GRD/);
    expect(safe).toMatch(/ORBIT_NUMBER=54308/);
    expect(safe).toMatch(/Band 2 Block=1200x1 Type=UInt16/);
  });
});

describe('synth SAFE GRD: determinism and crops', () => {
  const small: SafeGrdSpec = { ...spec, width: 300, height: 200, ships: [], slicks: [], lowWind: [], surfaces: [] };

  it('writes byte-identical products for the same seed and different pixels for another seed', async () => {
    const a = await writeSafeGrd(path.join(dir, 'a'), small);
    const b = await writeSafeGrd(path.join(dir, 'b'), small);
    const c = await writeSafeGrd(path.join(dir, 'c'), { ...small, seed: 12 });
    const ma = await md5s(a.productPath);
    expect(ma.size).toBe(9); // manifest + 2 × (annotation, calibration, noise, measurement)
    expect(await md5s(b.productPath)).toEqual(ma);
    expect(await readFile(b.groundTruthPath, 'utf8')).toBe(await readFile(a.groundTruthPath, 'utf8'));
    const mc = await md5s(c.productPath);
    const tiffs = [...ma.keys()].filter((k) => k.endsWith('.tiff'));
    // Another seed: another product id (uid) and other pixels.
    expect(path.basename(c.productPath)).not.toBe(path.basename(a.productPath));
    const cTiffs = [...mc.keys()].filter((k) => k.endsWith('.tiff'));
    expect(cTiffs.map((k) => mc.get(k))).not.toEqual(tiffs.map((k) => ma.get(k)));
  });

  it('writes a window of a full-size scene with a pixel geotransform, like the North-Sea crop', async () => {
    const full = new GrdGeometry({ center: [3.9, 52.3], width: 4000, height: 3000, passDirection: 'ascending' });
    const ship = full.pixelToLonLat(1100, 1650);
    const cropSpec: SafeGrdSpec = {
      ...small,
      width: 4000,
      height: 3000,
      nearIncidenceDeg: undefined,
      crop: { x0: 1500, y0: 1000, width: 300, height: 200 },
      ships: [{ id: 'c', lon: ship.lon, lat: ship.lat, lengthM: 150, headingDeg: 0 }],
    };
    const { productPath: cropPath } = await writeSafeGrd(path.join(dir, 'crop'), cropSpec);
    const p = await openSafeProduct(cropPath);
    try {
      expect(p.width).toBe(4000);
      expect(p.validWindow).toEqual({ x0: 1500, y0: 1000, width: 300, height: 200 });
      expect(p.bands.VV!.placement?.source).toBe('model-transformation');
      const pix = p.geolocation.lonLatToPixel(ship.lon, ship.lat);
      expect(pix.line).toBeCloseTo(1100, 2);
      const w = await p.bands.VV!.readWindow({ x0: 1640, y0: 1090, width: 21, height: 21 }, { quantity: 'sigma0', denoise: true });
      expect(db(Math.max(...w.data))).toBeGreaterThan(0);
      const outside = await p.bands.VV!.readWindow({ x0: 0, y0: 0, width: 10, height: 10 }, { quantity: 'sigma0', denoise: true });
      expect(outside.valid.every((v) => v === 0)).toBe(true);
    } finally {
      await p.close();
    }
    expect((await stat(path.join(cropPath, 'manifest.safe'))).isFile()).toBe(true);
  });
});
