/**
 * Sentinel-1 product names (ESA "Sentinel-1 Product Specification", naming convention
 *   MMM_BB_TTTR_LFPP_YYYYMMDDTHHMMSS_YYYYMMDDTHHMMSS_OOOOOO_DDDDDD_CCCC)
 * and OPERA RTC-S1 burst product ids
 *   OPERA_L2_RTC-S1_T137-292318-IW1_20231203T015904Z_20231203T124004Z_S1A_30_v1.0[_VV][_suffix].
 */
import path from 'node:path';
import type { Mission, Polarisation } from './types.ts';
import { relativeOrbitFromAbsolute } from './orbit.ts';

export type ProductMode = 'IW' | 'EW' | 'SM' | 'WV' | 'S1' | 'S2' | 'S3' | 'S4' | 'S5' | 'S6';
export type ProductType = 'GRD' | 'SLC' | 'OCN' | 'RAW';
export type ResolutionClass = 'F' | 'H' | 'M' | '_';
export type PolarisationCode = 'SV' | 'DV' | 'SH' | 'DH' | 'HH' | 'VV' | 'HV' | 'VH';

export interface ProductName {
  /** The name as parsed (no .SAFE/.zip). */
  id: string;
  mission: Mission;
  mode: ProductMode;
  productType: ProductType;
  resolution: ResolutionClass;
  /** 0 (RAW), 1 (SLC, GRD), 2 (OCN). */
  processingLevel: 0 | 1 | 2;
  /** S: standard, A: annotation-only. */
  productClass: 'S' | 'A';
  polarisationCode: PolarisationCode;
  polarisations: Polarisation[];
  start: Date;
  stop: Date;
  absoluteOrbit: number;
  relativeOrbit: number;
  /** Mission data-take id, 6 hex digits as written. */
  dataTakeId: string;
  /** Product unique identifier (4 hex digits); null when the name omits it (STAC item ids). */
  uniqueId: string | null;
}

export class ProductNameError extends Error {
  readonly code = 'INVALID_PRODUCT_NAME';
  constructor(
    readonly input: string,
    /** What is wrong, without the input itself (for messages shown to whoever sent it). */
    readonly reason: string,
  ) {
    super(`"${truncate(input)}" is not a Sentinel-1 product name: ${reason}`);
    this.name = 'ProductNameError';
  }
}

const POLARISATIONS: Record<PolarisationCode, Polarisation[]> = {
  SV: ['VV'],
  DV: ['VV', 'VH'],
  SH: ['HH'],
  DH: ['HH', 'HV'],
  HH: ['HH'],
  VV: ['VV'],
  HV: ['HV'],
  VH: ['VH'],
};

const PRODUCT_NAME =
  /^(S1[A-Z])_([A-Z0-9]{2})_([A-Z]{3})([A-Z_])_([0-9])([A-Z])([A-Z]{2})_(\d{8}T\d{6})_(\d{8}T\d{6})_(\d{6})_([0-9A-Fa-f]{6})(?:_([0-9A-Fa-f]{4}))?$/;

/** Loose pattern used to find a product name inside a file or folder name. */
const EMBEDDED_NAME =
  /S1[ABCD]_[A-Z0-9]{2}_(?:GRD|SLC|OCN|RAW)[FHM_]_[0-2][SA][A-Z]{2}_\d{8}T\d{6}_\d{8}T\d{6}_\d{6}_[0-9A-Fa-f]{6}(?:_[0-9A-Fa-f]{4}(?![0-9A-Za-z]))?/;

const MODES = new Set<string>(['IW', 'EW', 'SM', 'WV', 'S1', 'S2', 'S3', 'S4', 'S5', 'S6']);
const TYPES = new Set<string>(['GRD', 'SLC', 'OCN', 'RAW']);
const MISSIONS = new Set<string>(['S1A', 'S1B', 'S1C', 'S1D']);

/** Parses a compact UTC timestamp `YYYYMMDDTHHMMSS` strictly (no rollover of 31 Feb etc.). */
export function parseCompactUtc(s: string): Date | null {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})$/.exec(s);
  if (!m) return null;
  const [y, mo, d, h, mi, se] = m.slice(1).map(Number) as [number, number, number, number, number, number];
  const date = new Date(Date.UTC(y, mo - 1, d, h, mi, se));
  if (
    date.getUTCFullYear() !== y ||
    date.getUTCMonth() !== mo - 1 ||
    date.getUTCDate() !== d ||
    date.getUTCHours() !== h ||
    date.getUTCMinutes() !== mi ||
    date.getUTCSeconds() !== se
  ) {
    return null;
  }
  return date;
}

export function parseProductName(id: string): ProductName {
  if (typeof id !== 'string' || id.length === 0) throw new ProductNameError(String(id), 'empty');
  const m = PRODUCT_NAME.exec(id);
  if (!m) {
    throw new ProductNameError(
      id,
      'expected MMM_BB_TTTR_LFPP_YYYYMMDDTHHMMSS_YYYYMMDDTHHMMSS_OOOOOO_DDDDDD[_CCCC], e.g. S1A_IW_GRDH_1SDV_20210809T173953_20210809T174018_039156_049F13_6FF8',
    );
  }
  const [, mission, mode, type, res, level, cls, pol, startS, stopS, orbitS, dataTake, unique] = m as unknown as string[];
  if (!MISSIONS.has(mission!)) throw new ProductNameError(id, `unknown mission "${mission}" (S1A, S1B, S1C or S1D)`);
  if (!MODES.has(mode!)) throw new ProductNameError(id, `unknown acquisition mode "${mode}" (IW, EW, SM, WV, S1–S6)`);
  if (!TYPES.has(type!)) throw new ProductNameError(id, `unknown product type "${type}" (GRD, SLC, OCN or RAW)`);
  if (type === 'GRD' && !['F', 'H', 'M'].includes(res!)) {
    throw new ProductNameError(id, `a GRD product has resolution class F, H or M, not "${res}"`);
  }
  if (type !== 'GRD' && res !== '_') throw new ProductNameError(id, `a ${type} product has no resolution class ("_"), not "${res}"`);
  const expectedLevel = type === 'RAW' ? '0' : type === 'OCN' ? '2' : '1';
  if (level !== expectedLevel) throw new ProductNameError(id, `a ${type} product is level ${expectedLevel}, not ${level}`);
  if (cls !== 'S' && cls !== 'A') throw new ProductNameError(id, `product class is S or A, not "${cls}"`);
  if (!(pol! in POLARISATIONS)) {
    throw new ProductNameError(id, `unknown polarisation code "${pol}" (SV, DV, SH, DH, HH, VV, HV or VH)`);
  }
  const start = parseCompactUtc(startS!);
  const stop = parseCompactUtc(stopS!);
  if (!start) throw new ProductNameError(id, `invalid start time "${startS}"`);
  if (!stop) throw new ProductNameError(id, `invalid stop time "${stopS}"`);
  if (stop.getTime() < start.getTime()) throw new ProductNameError(id, 'stop time is before start time');
  if (stop.getTime() - start.getTime() > 86_400_000) throw new ProductNameError(id, 'acquisition longer than a day');
  const absoluteOrbit = Number(orbitS);
  if (absoluteOrbit < 1) throw new ProductNameError(id, 'absolute orbit must be at least 1');
  const missionId = mission as Mission;
  return {
    id,
    mission: missionId,
    mode: mode as ProductMode,
    productType: type as ProductType,
    resolution: res as ResolutionClass,
    processingLevel: Number(level) as 0 | 1 | 2,
    productClass: cls as 'S' | 'A',
    polarisationCode: pol as PolarisationCode,
    polarisations: [...POLARISATIONS[pol as PolarisationCode]],
    start,
    stop,
    absoluteOrbit,
    relativeOrbit: relativeOrbitFromAbsolute(missionId, absoluteOrbit, start),
    dataTakeId: dataTake!.toUpperCase(),
    uniqueId: unique ? unique.toUpperCase() : null,
  };
}

export function tryParseProductName(id: string): ProductName | null {
  try {
    return parseProductName(id);
  } catch (e) {
    if (e instanceof ProductNameError) return null;
    throw e;
  }
}

/** The product name without its unique id: what STAC APIs such as Planetary Computer use as item id. */
export function productKey(name: ProductName): string {
  return name.uniqueId ? name.id.slice(0, -5) : name.id;
}

/**
 * The product name in a path: strips folders and `.zip`, `.SAFE`, `.SAFE.zip`, `_COG`
 * suffixes and, when the name is embedded in a longer one (`…_EA25_test.SAFE`), extracts
 * it. Falls back to the stripped base name when no product name is found.
 */
export function sceneIdFromPath(p: string): string {
  let base = path.basename(p.replace(/[\\/]+$/, ''));
  base = base.replace(/\.zip$/i, '').replace(/\.SAFE$/i, '').replace(/_COG$/i, '');
  const found = EMBEDDED_NAME.exec(base);
  return found ? found[0] : base;
}

// ---------------------------------------------------------------------------------------
// File names inside a SAFE (measurement, annotation, calibration, noise):
//   s1a-iw3-slc-vv-20220918t074921-20220918t074946-045056-056232-006.xml

export interface SwathFileName {
  mission: Mission;
  /** Swath identifier as written, upper-case: IW, IW1..IW3, EW, EW1..EW5, S1..S6, WV1, WV2. */
  swath: string;
  mode: ProductMode;
  productType: ProductType;
  polarisation: Polarisation;
  start: Date;
  stop: Date;
  absoluteOrbit: number;
  relativeOrbit: number;
  dataTakeId: string;
  imageNumber: number;
}

const SWATH_FILE =
  /^(?:(?:calibration|noise|rfi)-)?(s1[abcd])-([a-z]{2}[0-9]?)-(grd|slc|ocn|raw)-(vv|vh|hh|hv)-(\d{8}t\d{6})-(\d{8}t\d{6})-(\d{6})-([0-9a-f]{6})-(\d{3})/i;

export function parseSwathFileName(name: string): SwathFileName {
  const base = path.basename(name);
  const m = SWATH_FILE.exec(base);
  if (!m) throw new ProductNameError(name, 'expected s1x-<swath>-<type>-<pol>-<start>-<stop>-<orbit>-<datatake>-<nnn>');
  const [, mission, swath, type, pol, startS, stopS, orbitS, dataTake, image] = m as unknown as string[];
  const start = parseCompactUtc(startS!.toUpperCase());
  const stop = parseCompactUtc(stopS!.toUpperCase());
  if (!start || !stop) throw new ProductNameError(name, 'invalid start or stop time');
  const missionId = mission!.toUpperCase() as Mission;
  const swathId = swath!.toUpperCase();
  const modePrefix = swathId.slice(0, 2);
  const mode = (/^S[1-6]$/.test(swathId) ? swathId : modePrefix === 'WV' ? 'WV' : modePrefix) as ProductMode;
  if (!MODES.has(mode)) throw new ProductNameError(name, `unknown swath "${swath}"`);
  const absoluteOrbit = Number(orbitS);
  return {
    mission: missionId,
    swath: swathId,
    mode,
    productType: type!.toUpperCase() as ProductType,
    polarisation: pol!.toUpperCase() as Polarisation,
    start,
    stop,
    absoluteOrbit,
    relativeOrbit: relativeOrbitFromAbsolute(missionId, absoluteOrbit, start),
    dataTakeId: dataTake!.toUpperCase(),
    imageNumber: Number(image),
  };
}

// ---------------------------------------------------------------------------------------
// OPERA RTC-S1

export interface OperaRtcId {
  /** The product id without polarisation and suffix. */
  id: string;
  /** Burst id as OPERA writes it, upper-case: `T137-292318-IW1`. */
  burstId: string;
  /** Track = relative orbit. */
  track: number;
  /** ESA burst id within the track cycle (6 digits). */
  burstNumber: number;
  subswath: 'IW1' | 'IW2' | 'IW3';
  acquisitionTime: Date;
  processingTime: Date;
  mission: Mission;
  /** Pixel spacing in metres. */
  spacing: number;
  version: string;
  /** Polarisation of the file, when the name carries one. */
  polarisation: Polarisation | null;
  /** Anything after the polarisation (e.g. `cropped`, `tv_cropped`), without extension. */
  suffix: string | null;
}

const OPERA_ID =
  /^OPERA_L2_RTC-S1_(T(\d{3})-(\d{6})-(IW[123]))_(\d{8}T\d{6})Z_(\d{8}T\d{6})Z_(S1[ABCD])_(\d+)_(v[\d.]+?)(?:_(VV|VH|HH|HV))?(?:_([A-Za-z0-9_]+?))?(?:\.tiff?|\.h5)?$/i;

export function parseOperaRtcId(name: string): OperaRtcId {
  const base = path.basename(name);
  const m = OPERA_ID.exec(base);
  if (!m) {
    throw new ProductNameError(name, 'expected OPERA_L2_RTC-S1_T<track>-<burst>-IW<n>_<start>Z_<processed>Z_<S1X>_<spacing>_v<version>');
  }
  const [, burst, track, burstNo, sub, acq, proc, mission, spacing, version, pol, suffix] = m as unknown as (string | undefined)[];
  const acquisitionTime = parseCompactUtc(acq!);
  const processingTime = parseCompactUtc(proc!);
  if (!acquisitionTime) throw new ProductNameError(name, `invalid acquisition time "${acq}"`);
  if (!processingTime) throw new ProductNameError(name, `invalid processing time "${proc}"`);
  const trackNo = Number(track);
  if (trackNo < 1 || trackNo > 175) throw new ProductNameError(name, `track ${trackNo} is outside 1..175`);
  const id = `OPERA_L2_RTC-S1_${burst!.toUpperCase()}_${acq}Z_${proc}Z_${mission!.toUpperCase()}_${spacing}_${version}`;
  return {
    id,
    burstId: burst!.toUpperCase(),
    track: trackNo,
    burstNumber: Number(burstNo),
    subswath: sub!.toUpperCase() as OperaRtcId['subswath'],
    acquisitionTime,
    processingTime,
    mission: mission!.toUpperCase() as Mission,
    spacing: Number(spacing),
    version: version!,
    polarisation: pol ? (pol.toUpperCase() as Polarisation) : null,
    suffix: suffix ?? null,
  };
}

export function tryParseOperaRtcId(name: string): OperaRtcId | null {
  try {
    return parseOperaRtcId(name);
  } catch (e) {
    if (e instanceof ProductNameError) return null;
    throw e;
  }
}

// ---------------------------------------------------------------------------------------
// pyroSAR-style names of GAMMA/SNAP-processed geocoded products:
//   S1A__IW___A_20150309T173017_VV_grd_mli_geo_norm_db.tif

export interface PyrosarProductId {
  id: string;
  mission: Mission;
  mode: string;
  orbitDirection: 'ascending' | 'descending';
  start: Date;
  polarisation: Polarisation | null;
  /** Processing steps, e.g. `grd_mli_geo_norm_db`. */
  processing: string | null;
}

const PYROSAR_ID = /^(S1[ABCD])__([A-Z0-9]{2})___([AD])_(\d{8}T\d{6})(?:_(VV|VH|HH|HV))?(?:_([A-Za-z0-9_]+?))?(?:\.tiff?)?$/;

export function tryParsePyrosarId(name: string): PyrosarProductId | null {
  const m = PYROSAR_ID.exec(path.basename(name));
  if (!m) return null;
  const [, mission, mode, dir, startS, pol, processing] = m as unknown as (string | undefined)[];
  const start = parseCompactUtc(startS!);
  if (!start) return null;
  const id = `${mission}__${mode}___${dir}_${startS}${processing ? `_${processing}` : ''}`;
  return {
    id,
    mission: mission as Mission,
    mode: mode!,
    orbitDirection: dir === 'A' ? 'ascending' : 'descending',
    start,
    polarisation: (pol as Polarisation | undefined) ?? null,
    processing: processing ?? null,
  };
}

function truncate(s: string): string {
  return s.length > 120 ? `${s.slice(0, 117)}...` : s;
}
