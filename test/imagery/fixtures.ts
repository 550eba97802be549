import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { S1_DATA } from '../helpers/samples.ts';
export const DATA = S1_DATA;

export const NORTH_SEA_SAFE = join(
  DATA,
  'grd-safe-northsea-ships/notebooks/VesselDetection/data/S1A_IW_GRDH_1SDV_20220612T173329_20220612T173354_043633_05359A_EA25_test.SAFE',
);
export const NORTH_SEA_TRUTH = join(DATA, 'grd-safe-northsea-ships/ships-ground-truth.geojson');
export const NORTH_SEA_VV_TIFF = join(NORTH_SEA_SAFE, 'measurement/s1a-iw-grd-vv-20220612t173329-20220612t173354-043633-05359a-002.tiff');
export const ROME_SAFE = join(DATA, 'grd-metadata-rome/tests/data/S1B_IW_GRDH_1SDV_20211223T051122_20211223T051147_030148_039993_5371.SAFE');
export const PYROSAR = join(DATA, 'grd-metadata-pyrosar/tests/data');
export const PYROSAR_DB_TIF = join(PYROSAR, 'S1A__IW___A_20150309T173017_VV_grd_mli_geo_norm_db.tif');
export const ENGA_DIR = join(DATA, 'rtc-stack-png-enga/tests/test_data/T009_019294_IW2_cropped');
export const ENGA_VH = join(ENGA_DIR, 'OPERA_L2_RTC-S1_T009-019294-IW2_20240311T084747Z_20240312T014217Z_S1A_30_v1.0_VH_cropped.tif');
export const SANTA_BARBARA_DIR = join(DATA, 'rtc-stack-santabarbara/tests/test_data/cropped/10SGD/137/2023-12-03');
export const SANTA_BARBARA_VV = join(
  SANTA_BARBARA_DIR,
  'OPERA_L2_RTC-S1_T137-292318-IW1_20231203T015904Z_20231203T124004Z_S1A_30_v1.0_VV.tif',
);
export const SAN_FRANCISCO_VV = join(DATA, 'rtc-sanfrancisco/tests/data/test_VV.tif');
export const SAN_FRANCISCO_RGB = join(DATA, 'rtc-sanfrancisco/tests/data/test_rgb.tif');

// ---------------------------------------------------------------- GDAL cross-checks

/** True when gdal-bin is installed; GDAL checks are skipped (visibly, by name) otherwise. */
export const HAS_GDAL = spawnSync('gdalinfo', ['--version'], { encoding: 'utf8' }).status === 0;
export const GDAL_TAG = HAS_GDAL ? '(GDAL cross-check)' : '(GDAL cross-check SKIPPED: gdalinfo not installed)';

/**
 * Run a GDAL tool. GDAL_PAM_ENABLED=NO: `gdalinfo -stats` would otherwise write
 * .aux.xml files beside the committed sample data.
 */
export function gdal(tool: string, args: string[], input?: string): string {
  const result = spawnSync(tool, args, {
    encoding: 'utf8',
    input,
    env: { ...process.env, GDAL_PAM_ENABLED: 'NO' },
  });
  if (result.status !== 0) throw new Error(`${tool} ${args.join(' ')} failed: ${result.stderr}`);
  return result.stdout;
}

export function gdalinfoJson(path: string, stats = false): GdalInfo {
  // gdalinfo writes NaN no-data as a bare NaN, which is not JSON.
  const out = gdal('gdalinfo', ['-json', ...(stats ? ['-stats'] : []), path]).replace(/:\s*(-?)(NaN|Infinity)\b/g, ':"$1$2"');
  return JSON.parse(out) as GdalInfo;
}

export interface GdalInfo {
  size: [number, number];
  geoTransform?: number[];
  coordinateSystem?: { wkt: string };
  stac?: { 'proj:epsg'?: number };
  bands: { noDataValue?: number | string; metadata?: Record<string, Record<string, string>> }[];
}

/** EPSG from the WKT's last ID["EPSG",n] (the CRS's own). */
export function epsgFromWkt(wkt: string): number | null {
  const ids = [...wkt.matchAll(/ID\["EPSG",(\d+)\]/g)];
  return ids.length ? Number(ids[ids.length - 1]![1]) : null;
}
