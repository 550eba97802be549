import { existsSync } from 'node:fs';
import { lstat, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { indexArchive, MemorySceneIndexStore, type IndexArchiveResult, type SceneRecord } from '../../src/catalog/index.ts';
import { isImageryError, openSafeProduct } from '../../src/imagery/index.ts';
import {
  DEMO_GRD_CITY_PICK,
  DEMO_MARKER,
  GrdGeometry,
  GrdScene,
  demoPortSpecs,
  generateDemoArchive,
  type DemoArchiveResult,
  type TruthCollection,
} from '../../src/synth/index.ts';

import { S1_DATA } from '../helpers/samples.ts';

const NORTH_SEA_SAMPLE = path.join(S1_DATA, 'grd-safe-northsea-ships');

let dir: string;
let first: DemoArchiveResult;
let index: IndexArchiveResult;
let scenes: SceneRecord[];

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'synth-demo-'));
  // A small GRD scale keeps the test fast; RTC stacks and dates are those of the real demo.
  first = await generateDemoArchive(dir, { seed: 1, scale: 0.1, samplesDir: NORTH_SEA_SAMPLE });
  const store = new MemorySceneIndexStore();
  index = await indexArchive(dir, store);
  scenes = await store.search({});
}, 120_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('synth demo archive', () => {
  it('holds the port GRDs, the city GRD series, the SLC and the two RTC stacks, with truth beside them', async () => {
    expect(first.generated).toBe(true);
    const safes = first.products.filter((p) => p.endsWith('.SAFE'));
    const kinds = safes.map((p) => path.basename(p).slice(0, 16));
    expect(kinds.filter((k) => k === 'S1A_IW_GRDH_1SDV')).toHaveLength(2 + DEMO_GRD_CITY_PICK.length);
    expect(kinds.filter((k) => k === 'S1A_IW_SLC__1SDV')).toHaveLength(1);
    expect(safes).toHaveLength(3 + DEMO_GRD_CITY_PICK.length);
    expect(first.products.filter((p) => p.endsWith('.tif'))).toHaveLength(2 * 61 + 2 * 15);
    // Port day 1, port day 2, RTC city, GRD city, farmland.
    expect(first.truth).toHaveLength(5);
    for (const t of first.truth) {
      const truth = JSON.parse(await readFile(t, 'utf8')) as TruthCollection;
      expect(truth.type).toBe('FeatureCollection');
      expect(truth.sarwatch.synthetic).toBe(true);
    }
    expect(existsSync(path.join(dir, DEMO_MARKER))).toBe(true);
    // Nothing of the temporary generation folder is left.
    expect(first.products.every((p) => !p.includes('.demo-tmp'))).toBe(true);
  });

  it('is indexed by the local catalog without errors: GRD, SLC and RTC scenes with their dates', () => {
    expect(index.errors).toEqual([]);
    const byType = (t: string) => scenes.filter((s) => s.productType === t && !s.sceneId.includes('_EA25'));
    const allGrd = byType('GRD');
    // The port pair (June 2024) and the city series on 12 of the RTC city's dates.
    const grd = allGrd.filter((s) => s.startTime.startsWith('2024-06'));
    expect(grd.map((s) => s.startTime.slice(0, 10))).toEqual(['2024-06-13', '2024-06-25']);
    const cityGrd = allGrd.filter((s) => !s.startTime.startsWith('2024-06'));
    expect(cityGrd).toHaveLength(DEMO_GRD_CITY_PICK.length);
    expect(cityGrd.map((s) => s.startTime.slice(0, 10))).toContain('2023-01-02');
    expect(cityGrd.map((s) => s.startTime.slice(0, 10))).toContain('2024-12-22');
    expect(new Set(cityGrd.map((s) => s.frame.startDeg.toFixed(4))).size).toBe(1);
    expect(byType('SLC').map((s) => s.startTime.slice(0, 10))).toEqual(['2024-06-13']);
    const rtc = byType('RTC');
    expect(rtc).toHaveLength(61 + 15);
    const days = rtc.map((s) => s.startTime.slice(0, 10));
    expect(days).toContain('2023-01-02');
    expect(days).toContain('2024-12-22');
    expect(days).toContain('2024-04-14');
    expect(days).toContain('2024-09-29');
    for (const s of [...allGrd, ...byType('SLC'), ...rtc]) {
      expect(s.relativeOrbit).toBe(161);
      expect(s.orbitDirection).toBe('ascending');
    }
    expect(rtc.every((s) => s.polarisations.join('+') === 'VV+VH')).toBe(true);
    // The GRD pair shares its path and frame (12 days apart on one track).
    expect(grd[0]!.frame.startDeg).toBeCloseTo(grd[1]!.frame.startDeg, 6);
  });

  it('links the real samples in as files (the indexer does not follow folder links)', async () => {
    expect(first.samplesLinked).toBeGreaterThan(10);
    const manifest = path.join(
      dir,
      'samples/notebooks/VesselDetection/data/S1A_IW_GRDH_1SDV_20220612T173329_20220612T173354_043633_05359A_EA25_test.SAFE/manifest.safe',
    );
    expect((await lstat(manifest)).isSymbolicLink()).toBe(true);
    expect(scenes.some((s) => s.sceneId.startsWith('S1A_IW_GRDH_1SDV_20220612T173329'))).toBe(true);
  });

  it('has an SLC product that the GRD reader refuses as UNSUPPORTED_PRODUCT', async () => {
    const slc = first.products.find((p) => path.basename(p).startsWith('S1A_IW_SLC__'))!;
    await expect(openSafeProduct(slc)).rejects.toSatisfy((e: unknown) => isImageryError(e, 'UNSUPPORTED_PRODUCT'));
  });

  it('generates once: a second call with the same seed returns the recorded products untouched', async () => {
    const before = (await stat(first.products[0]!)).mtimeMs;
    const second = await generateDemoArchive(dir, { seed: 1, scale: 0.1 });
    expect(second.generated).toBe(false);
    expect(second.products).toEqual(first.products);
    expect((await stat(first.products[0]!)).mtimeMs).toBe(before);
  });
});

describe('synth demo port scene (full size, truth only)', () => {
  it('has ships of 20 m and 300 m, an oil slick, a low-wind look-alike, land and port on day 1', () => {
    const [day1, day2] = demoPortSpecs(1);
    const truth = (spec: typeof day1) =>
      new GrdScene(
        spec,
        new GrdGeometry({ center: spec.center, width: spec.width!, height: spec.height!, passDirection: 'ascending', nearIncidenceDeg: spec.nearIncidenceDeg }),
      ).truthFeatures();
    const t1 = truth(day1);
    const ships = t1.filter((f) => f.properties.kind === 'ship');
    expect(ships.length).toBe(day1.ships!.length); // all inside the 40 × 40 km scene
    const lengths = ships.map((s) => s.properties.length_m as number);
    expect(Math.min(...lengths)).toBe(20);
    expect(Math.max(...lengths)).toBe(300);
    const kinds = new Set(t1.map((f) => f.properties.kind));
    for (const k of ['oilslick', 'lookalike', 'land', 'urban', 'port', 'water', 'forest', 'ambiguity']) expect(kinds).toContain(k);
    expect(new Date(day2.start).getTime() - new Date(day1.start).getTime()).toBe(12 * 86_400_000);
    const t2 = truth(day2);
    expect(t2.some((f) => f.properties.kind === 'oilslick' || f.properties.kind === 'lookalike')).toBe(false);
    expect(t2.filter((f) => f.properties.kind === 'ship').length).toBe(day2.ships!.length);
  });
});
