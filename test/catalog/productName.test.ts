import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fromFile } from 'geotiff';
import { describe, expect, it } from 'vitest';
import {
  estimateAbsoluteOrbit,
  parseOperaRtcId,
  parseProductName,
  parseSwathFileName,
  ProductNameError,
  productKey,
  relativeOrbitFromAbsolute,
  sceneIdFromPath,
  tryParseOperaRtcId,
  tryParseProductName,
  tryParsePyrosarId,
} from '../../src/catalog/index.ts';
import { readZipListing } from '../../src/catalog/local/zip.ts';
import { S1_DATA, SAMPLES, STAC_EXAMPLES } from './fixtures.ts';

const LOOSE_NAME = /S1[A-D]_[A-Z0-9]{2}_[A-Z_]{4}_[0-9][A-Z]{3}_\d{8}T\d{6}_\d{8}T\d{6}_\d{6}_[0-9A-F]{6}(?:_[0-9A-F]{4}(?![0-9A-Za-z]))?/g;

async function allFiles(dir: string, withDirs = false): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...(withDirs ? [full] : []), ...(await allFiles(full, withDirs)));
    else out.push(full);
  }
  return out;
}

/** Every Sentinel-1 product name written anywhere in the samples: paths, text files, zipped manifests, GeoTIFF tags. */
async function productNamesInSamples(): Promise<Set<string>> {
  const names = new Set<string>();
  const add = (text: string) => {
    for (const m of text.matchAll(LOOSE_NAME)) names.add(m[0]);
  };
  for (const d of await allFiles(SAMPLES, true)) add(path.basename(d));
  for (const f of await allFiles(SAMPLES)) {
    if (/\.(safe|json|xml|kml|html|yml|md)$/i.test(f)) add(await readFile(f, 'utf8'));
    if (/\.zip$/i.test(f)) {
      const listing = await readZipListing(f, (n) => /manifest\.safe$/i.test(n));
      for (const t of listing.texts.values()) add(t);
    }
    if (/\.tiff?$/i.test(f) && /rtc-sanfrancisco/.test(f)) {
      const tiff = await fromFile(f);
      const md = await (await tiff.getImage()).getGDALMetadata();
      await tiff.close();
      if (md) add(Object.values(md).join(' '));
    }
  }
  return names;
}

describe('product names of the real samples', () => {
  it('every product name found in the samples parses, and the relative orbit follows the platform formula', async () => {
    const names = await productNamesInSamples();
    // The scan must have found the products we know are there (else it proves nothing).
    for (const known of [
      'S1B_IW_GRDH_1SDV_20211223T051122_20211223T051147_030148_039993_5371',
      'S1A_IW_GRDH_1SDV_20220612T173329_20220612T173354_043633_05359A_EA25',
      'S1A_IW_GRDH_1SDV_20150203T043109_20150203T043134_004454_00574F_6D00',
      'S1A_IW_GRDH_1SDV_20210119T031653_20210119T031718_036201_043ED0_8255',
      'S1A_EW_GRDM_1SDH_20221130T014342_20221130T014446_046117_058549_BB15',
      'S1B_IW_GRDH_1SDV_20161121T010910_20161121T010939_003050_0052FC_EC22',
      'S1A_IW_SLC__1SDV_20240113T020816_20240113T020843_052082_064B71_4818',
      'S1A_IW_RAW__0SDV_20220612T173325_20220612T173358_043633_05359A_BB3A',
    ]) {
      expect(names, known).toContain(known);
    }
    expect(names.size).toBeGreaterThanOrEqual(15);
    for (const n of names) {
      const p = parseProductName(n);
      expect(p.id).toBe(n);
      expect(p.relativeOrbit).toBeGreaterThanOrEqual(1);
      expect(p.relativeOrbit).toBeLessThanOrEqual(175);
      expect(p.stop.getTime()).toBeGreaterThanOrEqual(p.start.getTime());
    }
  });

  it('the SLC granule named in the OPERA tags parses as productType SLC (non-GRD)', () => {
    const p = parseProductName('S1A_IW_SLC__1SDV_20240113T020816_20240113T020843_052082_064B71_4818');
    expect(p).toMatchObject({ mission: 'S1A', mode: 'IW', productType: 'SLC', resolution: '_', processingLevel: 1 });
    expect(p.relativeOrbit).toBe(35); // the OPERA file's TRACK_NUMBER tag
  });

  it('the SLC subset (slc-subset) is recognised as an SLC product from its annotation file name', async () => {
    const files = await readdir(path.join(S1_DATA, 'slc-subset', 'test', 'testData'));
    const xml = files.find((f) => f.endsWith('.xml'))!;
    const s = parseSwathFileName(xml);
    expect(s).toMatchObject({ mission: 'S1A', swath: 'IW3', mode: 'IW', productType: 'SLC', polarisation: 'VV', absoluteOrbit: 45056 });
    expect(s.relativeOrbit).toBe(relativeOrbitFromAbsolute('S1A', 45056, s.start));
  });

  it('RAW products referenced by the manifests parse as level-0 RAW', () => {
    const p = parseProductName('S1B_IW_RAW__0SDV_20211223T051118_20211223T051151_030148_039993_3FBC');
    expect(p).toMatchObject({ productType: 'RAW', processingLevel: 0, resolution: '_', polarisationCode: 'DV', relativeOrbit: 22 });
  });

  it('relative orbits derived from absolute orbits equal the STAC examples’ sat:relative_orbit', async () => {
    const items = (await allFiles(STAC_EXAMPLES)).filter((f) => f.endsWith('.json'));
    let checked = 0;
    for (const f of items) {
      const item = JSON.parse(await readFile(f, 'utf8'));
      if (item.type !== 'Feature') continue;
      const p = item.properties;
      const mission = `S1${String(p.platform).slice(-1).toUpperCase()}` as 'S1A';
      const at = new Date(p.start_datetime ?? p.datetime);
      expect(relativeOrbitFromAbsolute(mission, p['sat:absolute_orbit'], at), item.id).toBe(p['sat:relative_orbit']);
      const named = tryParseProductName(p['s1:product_identifier'] ?? item.id);
      if (named) expect(named.relativeOrbit).toBe(p['sat:relative_orbit']);
      for (const src of p['sentinel:product_ids'] ?? []) expect(parseProductName(src).relativeOrbit).toBe(p['sat:relative_orbit']);
      checked++;
    }
    expect(checked).toBe(4); // 2 GRD (S1A IW, S1A EW) + 2 RTC (S1A, S1B)
  });

  it('relative orbits derived from product names equal the manifests’ relativeOrbitNumber', async () => {
    const manifests: string[] = [];
    for (const f of await allFiles(S1_DATA)) {
      if (f.endsWith('manifest.safe')) manifests.push(await readFile(f, 'utf8'));
      if (f.endsWith('.zip')) {
        const l = await readZipListing(f, (n) => n.endsWith('manifest.safe'));
        manifests.push(...l.texts.values());
      }
    }
    expect(manifests.length).toBe(7);
    for (const xml of manifests) {
      const abs = Number(/orbitNumber type="start">(\d+)</.exec(xml)![1]);
      const rel = Number(/relativeOrbitNumber type="start">(\d+)</.exec(xml)![1]);
      const number = /<safe:number>([A-D])</.exec(xml)![1];
      const start = new Date(`${/<safe:startTime>([^<]+)</.exec(xml)![1]}Z`);
      expect(relativeOrbitFromAbsolute(`S1${number}` as 'S1A', abs, start)).toBe(rel);
    }
  });

  it('OPERA RTC ids of the real GeoTIFFs parse: track = relative orbit, burst id, polarisation, suffix', async () => {
    const files = (await allFiles(S1_DATA)).filter((f) => path.basename(f).startsWith('OPERA_L2_RTC-S1_'));
    expect(files.length).toBe(630 + 30); // Santa Barbara stack + Enga stack
    for (const f of files) {
      const o = parseOperaRtcId(path.basename(f));
      expect(o.burstId).toMatch(/^T\d{3}-\d{6}-IW[123]$/);
      expect(o.track).toBe(Number(o.burstId.slice(1, 4)));
      expect(['VV', 'VH']).toContain(o.polarisation);
    }
    const o = parseOperaRtcId('OPERA_L2_RTC-S1_T009-019294-IW2_20240311T084747Z_20240312T014217Z_S1A_30_v1.0_VH_tv_cropped.tif');
    expect(o).toMatchObject({
      id: 'OPERA_L2_RTC-S1_T009-019294-IW2_20240311T084747Z_20240312T014217Z_S1A_30_v1.0',
      burstId: 'T009-019294-IW2',
      track: 9,
      burstNumber: 19294,
      subswath: 'IW2',
      mission: 'S1A',
      spacing: 30,
      version: 'v1.0',
      polarisation: 'VH',
      suffix: 'tv_cropped',
    });
    expect(o.acquisitionTime.toISOString()).toBe('2024-03-11T08:47:47.000Z');
  });
});

describe('product name parsing', () => {
  it('parses every field of a GRD name', () => {
    const p = parseProductName('S1A_IW_GRDH_1SDV_20210809T173953_20210809T174018_039156_049F13_6FF8');
    expect(p).toEqual({
      id: 'S1A_IW_GRDH_1SDV_20210809T173953_20210809T174018_039156_049F13_6FF8',
      mission: 'S1A',
      mode: 'IW',
      productType: 'GRD',
      resolution: 'H',
      processingLevel: 1,
      productClass: 'S',
      polarisationCode: 'DV',
      polarisations: ['VV', 'VH'],
      start: new Date('2021-08-09T17:39:53Z'),
      stop: new Date('2021-08-09T17:40:18Z'),
      absoluteOrbit: 39156,
      relativeOrbit: 59,
      dataTakeId: '049F13',
      uniqueId: '6FF8',
    });
  });

  it.each([
    ['SV', ['VV']],
    ['DV', ['VV', 'VH']],
    ['SH', ['HH']],
    ['DH', ['HH', 'HV']],
    ['HH', ['HH']],
    ['VV', ['VV']],
    ['HV', ['HV']],
    ['VH', ['VH']],
  ])('polarisation code %s → %j', (code, pols) => {
    expect(parseProductName(`S1A_EW_GRDM_1S${code}_20221130T014342_20221130T014446_046117_058549`).polarisations).toEqual(pols);
  });

  it('accepts names without the unique id (STAC item ids) and gives their product key', () => {
    const p = parseProductName('S1A_EW_GRDM_1SDH_20221130T014342_20221130T014446_046117_058549');
    expect(p.uniqueId).toBeNull();
    expect(productKey(parseProductName('S1A_EW_GRDM_1SDH_20221130T014342_20221130T014446_046117_058549_BB15'))).toBe(p.id);
  });

  it.each([
    ['', 'empty'],
    ['S1E_IW_GRDH_1SDV_20210809T173953_20210809T174018_039156_049F13_6FF8', 'unknown mission'],
    ['S1A_XX_GRDH_1SDV_20210809T173953_20210809T174018_039156_049F13_6FF8', 'unknown acquisition mode'],
    ['S1A_IW_GRD__1SDV_20210809T173953_20210809T174018_039156_049F13_6FF8', 'resolution class F, H or M'],
    ['S1A_IW_SLCH_1SDV_20210809T173953_20210809T174018_039156_049F13_6FF8', 'no resolution class'],
    ['S1A_IW_GRDH_2SDV_20210809T173953_20210809T174018_039156_049F13_6FF8', 'level 1'],
    ['S1A_IW_GRDH_1XDV_20210809T173953_20210809T174018_039156_049F13_6FF8', 'product class'],
    ['S1A_IW_GRDH_1SXX_20210809T173953_20210809T174018_039156_049F13_6FF8', 'polarisation code'],
    ['S1A_IW_GRDH_1SDV_20210230T173953_20210230T174018_039156_049F13_6FF8', 'invalid start time'],
    ['S1A_IW_GRDH_1SDV_20210809T174018_20210809T173953_039156_049F13_6FF8', 'stop time is before'],
    ['S1A_IW_GRDH_1SDV_20210809T173953_20210809T174018_000000_049F13_6FF8', 'absolute orbit'],
    ['S1A_IW_GRDH_1SDV_20210809T173953_20210809T174018_039156_049F13_6FF8.SAFE', 'expected MMM_BB'],
    ['LC08_L1TP_044034_20200101_20200113_01_T1', 'expected MMM_BB'],
  ])('rejects %j with a clear message (%s)', (input, reason) => {
    expect(() => parseProductName(input)).toThrow(ProductNameError);
    expect(() => parseProductName(input)).toThrow(reason);
    expect(tryParseProductName(input)).toBeNull();
  });

  it.each([
    ['/a/b/S1A_IW_GRDH_1SDV_20150203T043109_20150203T043134_004454_00574F_6D00.zip', 'S1A_IW_GRDH_1SDV_20150203T043109_20150203T043134_004454_00574F_6D00'],
    ['S1B_IW_GRDH_1SDV_20211223T051122_20211223T051147_030148_039993_5371.SAFE/', 'S1B_IW_GRDH_1SDV_20211223T051122_20211223T051147_030148_039993_5371'],
    ['S1A_IW_GRDH_1SDV_20220612T173329_20220612T173354_043633_05359A_EA25_test.SAFE', 'S1A_IW_GRDH_1SDV_20220612T173329_20220612T173354_043633_05359A_EA25'],
    ['S1C_IW_GRDH_1SDV_20260727T212332_20260727T212357_008734_0114F4_9B8B_COG.SAFE.zip', 'S1C_IW_GRDH_1SDV_20260727T212332_20260727T212357_008734_0114F4_9B8B'],
    ['something-else.tif', 'something-else.tif'],
  ])('sceneIdFromPath(%j) = %j', (input, id) => {
    expect(sceneIdFromPath(input)).toBe(id);
  });

  it('OPERA ids without polarisation, and non-OPERA names', () => {
    expect(parseOperaRtcId('OPERA_L2_RTC-S1_T137-292318-IW1_20211119T015904Z_20211120T124004Z_S1B_30_v1.0').polarisation).toBeNull();
    expect(tryParseOperaRtcId('test_VV.tif')).toBeNull();
    expect(() => parseOperaRtcId('OPERA_L2_RTC-S1_T999-292318-IW1_20211119T015904Z_20211120T124004Z_S1B_30_v1.0')).toThrow('outside 1..175');
  });

  it('pyroSAR names of geocoded products', () => {
    expect(tryParsePyrosarId('S1A__IW___A_20150309T173017_VV_grd_mli_geo_norm_db.tif')).toMatchObject({
      id: 'S1A__IW___A_20150309T173017_grd_mli_geo_norm_db',
      mission: 'S1A',
      orbitDirection: 'ascending',
      polarisation: 'VV',
      processing: 'grd_mli_geo_norm_db',
    });
  });
});

describe('relative orbit formulae per platform', () => {
  it.each([
    // [mission, absolute, acquisition, relative, evidence]
    ['S1A', 39156, '2021-08-09T17:39:53Z', 59, 'STAC example sat:relative_orbit'],
    ['S1A', 46117, '2022-11-30T01:43:42Z', 20, 'STAC example sat:relative_orbit'],
    ['S1A', 30643, '2020-01-03T23:35:56Z', 121, 'STAC example sat:relative_orbit'],
    ['S1B', 3050, '2016-11-21T01:09:10Z', 49, 'STAC example sat:relative_orbit'],
    ['S1B', 30148, '2021-12-23T05:11:22Z', 22, 'manifest relativeOrbitNumber'],
    ['S1A', 43633, '2022-06-12T17:33:29Z', 161, 'manifest relativeOrbitNumber'],
    ['S1A', 52082, '2024-01-13T02:08:16Z', 35, 'OPERA TRACK_NUMBER tag'],
    ['S1C', 7368, '2026-04-25T05:09:14Z', 22, 'ASF search result (before the S1C reconfiguration)'],
    ['S1D', 4851, '2026-10-03T12:19:33Z', 85, 'Planetary Computer sat:relative_orbit'],
    ['S1D', 3697, '2026-07-16T10:02:35Z', 156, 'derived: same place and time of day as the next row'],
    ['S1C', 8479, '2026-07-10T10:02:42Z', 156, 'after the reconfiguration: S1C and S1D share tracks 6 days apart'],
  ] as const)('%s absolute orbit %i at %s → relative orbit %i (%s)', (mission, abs, at, rel, _evidence) => {
    expect(relativeOrbitFromAbsolute(mission, abs, new Date(at))).toBe(rel);
  });

  it('wraps into 1..175 at the offsets and rejects non-positive orbits', () => {
    expect(relativeOrbitFromAbsolute('S1A', 73, new Date('2015-01-01Z'))).toBe(1);
    expect(relativeOrbitFromAbsolute('S1A', 72, new Date('2015-01-01Z'))).toBe(175);
    expect(relativeOrbitFromAbsolute('S1A', 1, new Date('2014-04-03Z'))).toBe(104);
    expect(() => relativeOrbitFromAbsolute('S1A', 0, new Date())).toThrow(RangeError);
  });

  it('estimates the absolute orbit from the reference ascending-node crossings (all real manifests)', () => {
    const manifests: [string, number, string][] = [
      ['S1A', 4454, '2015-02-03T04:31:09.448Z'],
      ['S1A', 4739, '2015-02-22T17:07:25.054Z'],
      ['S1A', 36201, '2021-01-19T03:16:53.799Z'],
      ['S1A', 43633, '2022-06-12T17:33:29.384Z'],
      ['S1A', 39156, '2021-08-09T17:39:53.153Z'],
      ['S1A', 46117, '2022-11-30T01:43:42.546Z'],
      ['S1A', 30643, '2020-01-03T23:35:56Z'],
      ['S1A', 52082, '2024-01-13T02:08:16.790Z'],
      ['S1B', 30148, '2021-12-23T05:11:22.594Z'],
      ['S1B', 3050, '2016-11-21T01:09:10Z'],
    ];
    for (const [m, abs, at] of manifests) expect(estimateAbsoluteOrbit(m as 'S1A', new Date(at)), `${m} ${at}`).toBe(abs);
    expect(estimateAbsoluteOrbit('S1D', new Date())).toBeNull();
  });
});
