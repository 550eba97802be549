import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, unlink, utimes, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { imageryProductFor } from '../../src/endpoints/index.ts';
import {
  indexArchive,
  LocalSceneCatalog,
  MemorySceneIndexStore,
  parseOperaRtcId,
  selectChangePair,
  selectNearestScene,
  selectSeries,
  type IndexArchiveResult,
  type SceneRecord,
} from '../../src/catalog/index.ts';
import { bboxOf } from '../../src/geo/index.ts';
import type { Polygon } from '../../src/geo/types.ts';
import { box, S1_DATA, SAMPLES } from './fixtures.ts';

const ROME = path.join(S1_DATA, 'grd-metadata-rome/tests/data/S1B_IW_GRDH_1SDV_20211223T051122_20211223T051147_030148_039993_5371.SAFE');
const NORTHSEA = path.join(
  S1_DATA,
  'grd-safe-northsea-ships/notebooks/VesselDetection/data/S1A_IW_GRDH_1SDV_20220612T173329_20220612T173354_043633_05359A_EA25_test.SAFE',
);
const PYROSAR = path.join(S1_DATA, 'grd-metadata-pyrosar/tests/data');

async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...(await filesUnder(full)));
    else out.push(full);
  }
  return out;
}

/** Shrinks a polygon's bbox around its centre: an AOI surely inside the footprint. */
function innerBox(g: SceneRecord['footprint'], f = 0.2): Polygon {
  const [x0, y0, x1, y1] = bboxOf(g);
  const cx = (x0 + x1) / 2;
  const cy = (y0 + y1) / 2;
  return box(cx - ((x1 - x0) * f) / 2, cy - ((y1 - y0) * f) / 2, cx + ((x1 - x0) * f) / 2, cy + ((y1 - y0) * f) / 2);
}

describe('local catalog: indexing the real samples folder', () => {
  const store = new MemorySceneIndexStore();
  const catalog = new LocalSceneCatalog(store, SAMPLES);
  let first: IndexArchiveResult;
  let all: SceneRecord[];

  beforeAll(async () => {
    first = await catalog.reindex();
    all = await store.search({});
  });

  it('indexes every product without errors: SAFE folders, SAFE zips, RTC GeoTIFFs, STAC items', async () => {
    expect(first.errors).toEqual([]);
    // RTC scenes expected from the file names alone: one per OPERA product id + variant suffix.
    const opera = new Set(
      (await filesUnder(S1_DATA))
        .filter((f) => path.basename(f).startsWith('OPERA_L2_RTC-S1_'))
        .map((f) => {
          const o = parseOperaRtcId(path.basename(f));
          return o.suffix ? `${o.id}_${o.suffix}` : o.id;
        }),
    );
    const byType = (t: string) => all.filter((s) => s.productType === t).length;
    // GRD: 2 SAFE folders + 5 SAFE zips + 2 STAC GRD items.
    expect(byType('GRD')).toBe(9);
    // RTC: the OPERA stacks, San Francisco (VV+VH grouped from tags), the pyroSAR product, 2 STAC RTC items.
    expect(byType('RTC')).toBe(opera.size + 1 + 1 + 2);
    expect(first.added).toBe(all.length);
    expect(first.updated).toBe(0);
    expect(first.removed).toBe(0);
    // Read but not products: test_rgb.tif (browse), 5 STAC catalog/collection JSONs. (The SLC
    // subset keeps only its annotation XML in samples/: its pixels are read by nothing.)
    expect(first.ignored).toBe(6);
  });

  it('a SAFE folder: footprint = manifest gml:coordinates, times, orbits, direction, polarisations, assets present', async () => {
    const manifest = await readFile(path.join(ROME, 'manifest.safe'), 'utf8');
    const coords = /<gml:coordinates>([^<]+)</.exec(manifest)![1]!.trim().split(/\s+/).map((p) => p.split(',').map(Number));
    const s = (await catalog.get('S1B_IW_GRDH_1SDV_20211223T051122_20211223T051147_030148_039993_5371'))!;
    expect(s).toMatchObject({
      productType: 'GRD',
      platform: 'S1B',
      platformGroup: 'S1',
      startTime: '2021-12-23T05:11:22.594Z',
      stopTime: '2021-12-23T05:11:47.593Z',
      relativeOrbit: 22,
      absoluteOrbit: 30148,
      orbitDirection: 'descending',
      polarisations: ['VV', 'VH'],
      timeliness: 'NRT',
      source: 'local',
    });
    const ring = (s.footprint as Polygon).coordinates[0]!;
    expect(ring).toHaveLength(5);
    for (const [lat, lon] of coords) {
      expect(ring.some(([x, y]) => Math.abs(x - lon!) < 1e-9 && Math.abs(y - lat!) < 1e-9), `${lat},${lon}`).toBe(true);
    }
    // Only the VV measurement file ships with this sample: the VH data asset is absent.
    expect(s.assets.vv).toEqual({ href: path.join(ROME, 'measurement/s1b-iw-grd-vv-20211223t051122-20211223t051147-030148-039993-001.tiff'), role: 'data', pol: 'VV' });
    expect(s.assets.vh).toBeUndefined();
    expect(s.assets['calibration-vv']!.href).toMatch(/calibration-s1b-iw-grd-vv-.*\.xml$/);
    expect(s.assets.product).toEqual({ href: ROME, role: 'product' });
    // Descending pass: along-track position between 90° and 270°.
    expect(s.frame.startDeg).toBeGreaterThan(90);
    expect(s.frame.endDeg).toBeLessThan(270);
  });

  it('a cropped SAFE whose manifest names another measurement file: the file present is the asset; id from the folder name', async () => {
    const s = (await catalog.get('S1A_IW_GRDH_1SDV_20220612T173329_20220612T173354_043633_05359A_EA25'))!;
    expect(s.relativeOrbit).toBe(161);
    expect(s.orbitDirection).toBe('ascending');
    expect(existsSync(s.assets.vv!.href)).toBe(true);
    expect(existsSync(s.assets.vh!.href)).toBe(true);
    expect(s.assets.product!.href).toBe(NORTHSEA);
  });

  it('SAFE zips: members addressed as /vsizip/…, no data assets when the zip holds no measurement tiffs', async () => {
    const s = (await catalog.get('S1A_IW_GRDH_1SDV_20210119T031653_20210119T031718_036201_043ED0_8255.zip'))!;
    const zip = path.join(PYROSAR, 'S1A_IW_GRDH_1SDV_20210119T031653_20210119T031718_036201_043ED0_8255.zip');
    expect(s.assets.product).toEqual({ href: zip, role: 'product' });
    expect(s.assets.manifest!.href).toBe(`/vsizip/${zip}/S1A_IW_GRDH_1SDV_20210119T031653_20210119T031718_036201_043ED0_8255.SAFE/manifest.safe`);
    expect(s.assets.vv).toBeUndefined();
    expect(s).toMatchObject({ relativeOrbit: 79, orbitDirection: 'descending', timeliness: 'Fast' });
  });

  it('the NRT and Fast versions of one pass are both indexed; search keeps the Fast one', async () => {
    const ids = all.map((s) => s.sceneId).filter((id) => id.includes('20150203T043109'));
    expect(ids.sort()).toEqual([
      'S1A_IW_GRDH_1SDV_20150203T043109_20150203T043134_004454_00574F_6D00',
      'S1A_IW_GRDH_1SDV_20150203T043109_20150203T043134_004454_00574F_FEC3',
    ]);
    const found = await catalog.search({ start: new Date('2015-02-03T00:00:00Z'), end: new Date('2015-02-04T00:00:00Z') });
    expect(found.map((s) => s.sceneId)).toEqual(['S1A_IW_GRDH_1SDV_20150203T043109_20150203T043134_004454_00574F_FEC3']);
    // Asked for without its unique id: the best version of that acquisition.
    expect((await catalog.get('S1A_IW_GRDH_1SDV_20150203T043109_20150203T043134_004454_00574F'))!.sceneId).toMatch(/_FEC3$/);
    expect((await catalog.get('S1A_IW_GRDH_1SDV_20150203T043109_20150203T043134_004454_00574F_6D00'))!.timeliness).toBe('NRT');
    expect(await catalog.get('S1A_IW_GRDH_1SDV_20150203T043109_20150203T043134_004454_00AAAA_6D00')).toBeNull();
  });

  it('OPERA RTC from tags only (test_VV.tif + test_VH.tif): one scene, burst, track, orbit, footprint from geotransform + EPSG', () => {
    const s = all.find((x) => x.sceneId.startsWith('OPERA_L2_RTC-S1_T035-073251-IW2'))!;
    expect(s).toMatchObject({
      sceneId: 'OPERA_L2_RTC-S1_T035-073251-IW2_20240113T020816Z_20240113T114058Z_S1A_30_v1.0',
      productType: 'RTC',
      platform: 'S1A',
      relativeOrbit: 35,
      absoluteOrbit: 52082,
      orbitDirection: 'ascending',
      polarisations: ['VV', 'VH'],
      frame: { burstId: 'T035-073251-IW2' },
    });
    expect(s.assets.vv!.href).toMatch(/test_VV\.tif$/);
    expect(s.assets.vh!.href).toMatch(/test_VH\.tif$/);
    // 100 × 100 px at 30 m in EPSG:32610 around San Francisco: about 3 km × 3 km.
    const [x0, y0, x1, y1] = bboxOf(s.footprint);
    expect(x0).toBeGreaterThan(-122.41);
    expect(x1).toBeLessThan(-122.36);
    expect(x1 - x0).toBeCloseTo(3000 / (111_320 * Math.cos((37.76 * Math.PI) / 180)), 3);
    expect(y0).toBeGreaterThan(37.7);
    expect(y1).toBeLessThan(37.8);
  });

  it('OPERA RTC from names: VV and VH files of one acquisition grouped; direction from local solar time', () => {
    const sb = all.filter((s) => s.sceneId.includes('_T137-'));
    expect(sb.every((s) => s.relativeOrbit === 137 && s.orbitDirection === 'ascending' && s.absoluteOrbit === null)).toBe(true);
    expect(sb.filter((s) => s.polarisations.length === 2).length).toBeGreaterThan(300);
  });

  it('pyroSAR product: orbit estimated from the acquisition time; it lies on the North Sea SAFE’s track 161', () => {
    const s = all.find((x) => x.sceneId === 'S1A__IW___A_20150309T173017_grd_mli_geo_norm_db')!;
    expect(s).toMatchObject({ productType: 'RTC', relativeOrbit: 161, orbitDirection: 'ascending', polarisations: ['VV'] });
  });

  it('STAC item JSON files: asset hrefs resolved against the item’s folder', () => {
    const s = all.find((x) => x.sceneId === 'S1A_IW_GRDH_1SDV_20210809T173953_20210809T174018_039156_049F13')!;
    expect(s).toMatchObject({ productType: 'GRD', relativeOrbit: 59, orbitDirection: 'ascending', timeliness: 'NRT' });
    expect(path.isAbsolute(s.assets.vv!.href)).toBe(true);
    expect(s.assets.vv!.href).toMatch(/measurement\/s1a-iw-grd-vv-.*\.tiff$/);
  });

  it('search: polygon, time range, product type and orbit direction', async () => {
    const rome = (await catalog.get('S1B_IW_GRDH_1SDV_20211223T051122_20211223T051147_030148_039993_5371'))!;
    const aoi = innerBox(rome.footprint);
    expect((await catalog.search({ intersects: aoi })).map((s) => s.sceneId)).toEqual([rome.sceneId]);
    expect(await catalog.search({ intersects: aoi, orbitDirection: 'ascending' })).toEqual([]);
    expect(await catalog.search({ intersects: aoi, productTypes: ['RTC'] })).toEqual([]);
    expect(await catalog.search({ intersects: aoi, end: new Date('2021-12-23T05:11:22Z') })).toEqual([]);
    const rtc2024 = await catalog.search({ productTypes: ['RTC'], start: new Date('2024-01-01Z'), end: new Date('2024-12-31Z'), limit: 5 });
    expect(rtc2024).toHaveLength(5);
  });

  it('re-indexing is incremental: nothing changed, every file skipped', async () => {
    const again = await catalog.reindex();
    expect(again).toMatchObject({ added: 0, updated: 0, removed: 0, ignored: 0, errors: [] });
    expect(again.skipped).toBe(first.files);
    expect(again.files).toBe(first.files);
    expect(store.size).toBe(all.length);
  });

  it('selection on real records: nearest GRD for a North Sea polygon; a time series over the Santa Barbara stack; a pair on Enga', async () => {
    const northsea = (await catalog.get('S1A_IW_GRDH_1SDV_20220612T173329_20220612T173354_043633_05359A_EA25'))!;
    const aoi = innerBox(northsea.footprint, 0.1);
    const near = selectNearestScene(await catalog.search({ intersects: aoi }), { aoi, date: '2022-06-20', direction: 'before' });
    expect(near).toMatchObject({ ok: true, scene: { sceneId: northsea.sceneId }, dayOffset: -8, coverage: { ratio: 1 } });

    const burst = all.find((s) => s.sceneId.startsWith('OPERA_L2_RTC-S1_T137-292318-IW1_'))!;
    const small = innerBox(burst.footprint, 0.5);
    const productTypes = [imageryProductFor('analyze', 'timeseries')];
    const candidates = await catalog.search({ intersects: small, productTypes });
    const series = selectSeries(candidates, { aoi: small, dateStart: '2021-11-01', dateEnd: '2025-01-31', productTypes });
    if (!series.ok) throw new Error(series.message);
    expect(series.pathFrame).toEqual({ platformGroup: 'S1', relativeOrbit: 137, orbitDirection: 'ascending' });
    expect(series.passCount).toBe(21);
    expect(series.scene_selection).toEqual({ first_month: '2021-11', last_month: '2025-01' });

    const enga = all.find((s) => s.sceneId.includes('T009-019294-IW2') && s.sceneId.endsWith('_tv_cropped'))!;
    const aoiEnga = innerBox(enga.footprint, 0.5);
    const pair = selectChangePair(await catalog.search({ intersects: aoiEnga, productTypes }), {
      aoi: aoiEnga,
      dateStart: '2024-01-20',
      dateEnd: '2024-05-31',
      productTypes,
    });
    expect(pair).toMatchObject({ ok: true, scene_selection: { first_month: '2024-01', last_month: '2024-05' }, coverage: { ratio: 1 } });
  });
});

describe('local catalog: incremental re-indexing of a changing folder', () => {
  let dir: string;
  const store = new MemorySceneIndexStore();
  const sb = path.join(S1_DATA, 'rtc-stack-santabarbara/tests/test_data/cropped/10SGD/137/2023-12-03');
  const vv = 'OPERA_L2_RTC-S1_T137-292318-IW1_20231203T015904Z_20231203T124004Z_S1A_30_v1.0_VV.tif';
  const vh = 'OPERA_L2_RTC-S1_T137-292318-IW1_20231203T015904Z_20231203T124004Z_S1A_30_v1.0_VH.tif';
  const rtcId = 'OPERA_L2_RTC-S1_T137-292318-IW1_20231203T015904Z_20231203T124004Z_S1A_30_v1.0';
  const zipA = 'S1A_IW_GRDH_1SDV_20150222T170725_20150222T170750_004739_005DD8_CEAB.zip';
  const zipB = 'S1A_IW_GRDH_1SDV_20150222T170750_20150222T170815_004739_005DD8_3768.zip';

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'sarwatch-catalog-'));
    await mkdir(path.join(dir, 'rtc'));
    await copyFile(path.join(PYROSAR, zipA), path.join(dir, zipA));
    await copyFile(path.join(sb, vv), path.join(dir, 'rtc', vv));
    await writeFile(path.join(dir, 'notes.json'), '{"not": "a stac item"}');
  });
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('first run adds what is there', async () => {
    const r = await indexArchive(dir, store);
    expect(r).toMatchObject({ added: 2, updated: 0, removed: 0, skipped: 0, ignored: 1, errors: [], files: 3 });
    expect((await store.get(rtcId))!.polarisations).toEqual(['VV']);
  });

  it('a new VH file joins its VV partner’s scene (updated, not added); the zip is not re-read', async () => {
    await copyFile(path.join(sb, vh), path.join(dir, 'rtc', vh));
    const r = await indexArchive(dir, store);
    expect(r).toMatchObject({ added: 0, updated: 1, removed: 0, skipped: 2, errors: [] });
    const s = (await store.get(rtcId))!;
    expect(s.polarisations).toEqual(['VV', 'VH']);
    expect(Object.keys(s.assets).sort()).toEqual(['vh', 'vv']);
  });

  it('a touched file is re-read; a new zip is added', async () => {
    const t = new Date(Date.now() + 5000);
    await utimes(path.join(dir, zipA), t, t);
    await copyFile(path.join(PYROSAR, zipB), path.join(dir, zipB));
    const r = await indexArchive(dir, store);
    expect(r).toMatchObject({ added: 1, updated: 1, removed: 0, skipped: 3, errors: [] });
  });

  it('removing one member rebuilds the scene; removing the last removes it', async () => {
    await unlink(path.join(dir, 'rtc', vh));
    let r = await indexArchive(dir, store);
    expect(r).toMatchObject({ added: 0, updated: 1, removed: 0 });
    expect((await store.get(rtcId))!.polarisations).toEqual(['VV']);
    await unlink(path.join(dir, 'rtc', vv));
    r = await indexArchive(dir, store);
    expect(r).toMatchObject({ added: 0, updated: 0, removed: 1 });
    expect(await store.get(rtcId)).toBeNull();
  });

  it('a broken product is reported, its old scene dropped, and it is retried on the next run', async () => {
    await writeFile(path.join(dir, zipB), 'not a zip at all');
    let r = await indexArchive(dir, store);
    expect(r.errors.map((e) => path.basename(e.path))).toEqual([zipB]);
    expect(r.removed).toBe(1);
    r = await indexArchive(dir, store);
    expect(r.errors).toHaveLength(1); // not remembered as indexed: read again
    await copyFile(path.join(PYROSAR, zipB), path.join(dir, zipB));
    r = await indexArchive(dir, store);
    expect(r).toMatchObject({ added: 1, errors: [] });
  });

  it('a missing archive folder is an error, not an empty index', async () => {
    await expect(indexArchive(path.join(dir, 'nope'), store)).rejects.toThrow('does not exist');
  });
});
