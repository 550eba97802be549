/**
 * STAC Item → SceneRecord. Reads the `sar`, `sat` and `s1` extension properties that
 * Planetary Computer, Earth Search, CDSE and stactools write for Sentinel-1 GRD and RTC.
 */
import path from 'node:path';
import type { AoiGeometry } from '../../geo/types.ts';
import { alongTrackFrame, estimateAbsoluteOrbit, orbitDirectionFromLocalTime, relativeOrbitFromAbsolute } from '../orbit.ts';
import { tryParseProductName } from '../productName.ts';
import { normaliseTimeliness } from '../query.ts';
import type { Mission, OrbitDirection, Polarisation, SceneAsset, SceneProductType, SceneRecord } from '../types.ts';

export interface StacAsset {
  href: string;
  type?: string;
  roles?: string[];
  title?: string;
  'sar:polarizations'?: string[];
  'eo:bands'?: { name?: string }[];
  [k: string]: unknown;
}

export interface StacItem {
  type: 'Feature';
  stac_version?: string;
  id: string;
  collection?: string;
  geometry: AoiGeometry | null;
  bbox?: number[];
  properties: Record<string, unknown>;
  assets?: Record<string, StacAsset>;
  links?: { rel: string; href: string; [k: string]: unknown }[];
}

/** Asset keys of the data assets per product type and polarisation, in order of preference. */
export type AssetKeyConfig = Partial<Record<'GRD' | 'RTC' | 'SLC', Partial<Record<Polarisation, string[]>>>>;

/** Planetary Computer's naming (sentinel-1-grd, sentinel-1-rtc): one asset per polarisation. */
export const DEFAULT_ASSET_KEYS: AssetKeyConfig = {
  GRD: { VV: ['vv'], VH: ['vh'], HH: ['hh'], HV: ['hv'] },
  RTC: { VV: ['vv'], VH: ['vh'], HH: ['hh'], HV: ['hv'] },
};

export interface StacItemToSceneOptions {
  assetKeys?: AssetKeyConfig;
  /** Base for relative asset hrefs: a URL, or a local directory path. */
  baseHref?: string;
  source?: SceneRecord['source'];
}

export class StacItemError extends Error {
  constructor(readonly itemId: string, reason: string) {
    super(`STAC item "${itemId}" is not a usable Sentinel-1 scene: ${reason}`);
    this.name = 'StacItemError';
  }
}

const POLS: Polarisation[] = ['VV', 'VH', 'HH', 'HV'];
const PRODUCT_TYPES = new Set<string>(['GRD', 'SLC', 'OCN', 'RAW', 'RTC']);

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined;
}

function int(v: unknown): number | undefined {
  const n = typeof v === 'string' ? Number(v) : v;
  return typeof n === 'number' && Number.isInteger(n) ? n : undefined;
}

function missionOf(item: StacItem): Mission | undefined {
  const p = str(item.properties.platform)?.toLowerCase();
  const m = p ? /^sentinel-?1([abcd])$/.exec(p) : null;
  if (m) return `S1${m[1]!.toUpperCase()}` as Mission;
  const fromId = /^S1([ABCD])[_-]/.exec(item.id);
  return fromId ? (`S1${fromId[1]}` as Mission) : undefined;
}

function productTypeOf(item: StacItem): SceneProductType | undefined {
  const t = str(item.properties['sar:product_type'])?.toUpperCase();
  if (t && PRODUCT_TYPES.has(t)) return t as SceneProductType;
  if (/_rtc$/i.test(item.id) || /rtc/i.test(item.collection ?? '')) return 'RTC';
  const name = tryParseProductName(item.id);
  return name?.productType;
}

function orbitStateOf(v: unknown): OrbitDirection | undefined {
  const s = str(v)?.toLowerCase();
  return s === 'ascending' || s === 'descending' ? s : undefined;
}

function bboxPolygon(b: number[]): AoiGeometry {
  const [x0, y0, x1, y1] = b.length >= 6 ? [b[0]!, b[1]!, b[3]!, b[4]!] : [b[0]!, b[1]!, b[2]!, b[3]!];
  return { type: 'Polygon', coordinates: [[[x0, y0], [x1, y0], [x1, y1], [x0, y1], [x0, y0]]] };
}

function centroidLon(g: AoiGeometry): number {
  const ring = g.type === 'Polygon' ? g.coordinates[0]! : g.coordinates[0]![0]!;
  let s = 0;
  for (const p of ring) s += p[0]!;
  return s / ring.length;
}

export function resolveHref(href: string, base: string | undefined): string {
  if (/^[a-z][a-z0-9+.-]*:/i.test(href) || href.startsWith('/')) return href;
  if (!base) return href;
  if (/^https?:/i.test(base)) return new URL(href, base).toString();
  return path.resolve(base, href);
}

function assetPols(a: StacAsset): string[] {
  const pols = a['sar:polarizations'];
  if (Array.isArray(pols)) return pols.map((p) => String(p).toUpperCase());
  const bands = a['eo:bands'];
  if (Array.isArray(bands)) return bands.map((b) => String(b?.name ?? '').toUpperCase());
  return [];
}

function roleOf(a: StacAsset): string | undefined {
  const roles = a.roles ?? [];
  if (roles.includes('data')) return 'data';
  return roles[0];
}

/** The data asset key for a polarisation: configured keys, then common spellings, then band metadata. */
function findDataAssetKey(
  assets: Record<string, StacAsset>,
  pol: Polarisation,
  configured: string[] | undefined,
): string | undefined {
  const p = pol.toLowerCase();
  const guesses = [...(configured ?? []), p, `gamma0_${p}`, `sigma0_${p}`, `beta0_${p}`, `${p}_gamma0`];
  for (const k of guesses) if (assets[k]) return k;
  for (const [k, a] of Object.entries(assets)) {
    const pols = assetPols(a);
    if (pols.length === 1 && pols[0] === pol && (a.roles ?? ['data']).includes('data')) return k;
  }
  return undefined;
}

export function stacItemToScene(item: StacItem, opts: StacItemToSceneOptions = {}): SceneRecord {
  if (!item || item.type !== 'Feature' || typeof item.id !== 'string') {
    throw new StacItemError(String(item?.id), 'not a STAC Item (type Feature with an id)');
  }
  const props = item.properties ?? {};
  const mission = missionOf(item);
  if (!mission) throw new StacItemError(item.id, 'platform is not sentinel-1a/b/c/d');
  const productType = productTypeOf(item);
  if (!productType) throw new StacItemError(item.id, 'unknown sar:product_type');
  const name = tryParseProductName(item.id) ?? tryParseProductName(str(props['s1:product_identifier']) ?? '');

  const startIso = str(props.start_datetime) ?? str(props.datetime);
  const stopIso = str(props.end_datetime) ?? str(props.datetime) ?? startIso;
  const start = startIso ? new Date(startIso) : name?.start;
  const stop = stopIso ? new Date(stopIso) : name?.stop ?? start;
  if (!start || Number.isNaN(start.getTime()) || !stop || Number.isNaN(stop.getTime())) {
    throw new StacItemError(item.id, 'no valid datetime');
  }

  let footprint: AoiGeometry | null = null;
  if (item.geometry && (item.geometry.type === 'Polygon' || item.geometry.type === 'MultiPolygon')) footprint = item.geometry;
  else if (Array.isArray(item.bbox) && item.bbox.length >= 4) footprint = bboxPolygon(item.bbox);
  if (!footprint) throw new StacItemError(item.id, 'no Polygon/MultiPolygon geometry or bbox');

  const absoluteOrbit = int(props['sat:absolute_orbit']) ?? name?.absoluteOrbit ?? estimateAbsoluteOrbit(mission, start);
  const relativeOrbit =
    int(props['sat:relative_orbit']) ??
    name?.relativeOrbit ??
    (absoluteOrbit !== null && absoluteOrbit !== undefined ? relativeOrbitFromAbsolute(mission, absoluteOrbit, start) : undefined);
  if (relativeOrbit === undefined || relativeOrbit < 1 || relativeOrbit > 175) {
    throw new StacItemError(item.id, 'no sat:relative_orbit and no absolute orbit to derive it from');
  }
  const orbitDirection =
    orbitStateOf(props['sat:orbit_state']) ??
    (/_ASC$/i.test(item.id) ? 'ascending' : /_DSC$|_DES$/i.test(item.id) ? 'descending' : undefined) ??
    orbitDirectionFromLocalTime(start, centroidLon(footprint));

  const declared = Array.isArray(props['sar:polarizations'])
    ? (props['sar:polarizations'] as unknown[]).map((p) => String(p).toUpperCase())
    : name?.polarisations ?? [];
  const polarisations = POLS.filter((p) => declared.includes(p));

  const assets: Record<string, SceneAsset> = {};
  const srcAssets = item.assets ?? {};
  const keyConfig = (opts.assetKeys ?? DEFAULT_ASSET_KEYS)[productType as 'GRD' | 'RTC' | 'SLC'];
  const used = new Set<string>();
  for (const pol of POLS) {
    const key = findDataAssetKey(srcAssets, pol, keyConfig?.[pol]);
    if (!key) continue;
    used.add(key);
    assets[pol.toLowerCase()] = { href: resolveHref(srcAssets[key]!.href, opts.baseHref), role: 'data', pol };
    if (!polarisations.includes(pol)) polarisations.push(pol);
  }
  for (const [k, a] of Object.entries(srcAssets)) {
    if (used.has(k) || typeof a?.href !== 'string') continue;
    const key = assets[k] ? `asset-${k}` : k;
    const role = roleOf(a);
    assets[key] = role ? { href: resolveHref(a.href, opts.baseHref), role } : { href: resolveHref(a.href, opts.baseHref) };
  }

  const timeliness = normaliseTimeliness(props['s1:product_timeliness']);
  const record: SceneRecord = {
    sceneId: item.id,
    productType,
    platform: mission,
    platformGroup: 'S1',
    startTime: start.toISOString(),
    stopTime: stop.toISOString(),
    relativeOrbit,
    absoluteOrbit: absoluteOrbit ?? null,
    orbitDirection,
    frame: alongTrackFrame(footprint, orbitDirection),
    polarisations: POLS.filter((p) => polarisations.includes(p)),
    footprint,
    assets,
    source: opts.source ?? 'stac',
  };
  if (timeliness) record.timeliness = timeliness;
  return record;
}

export function tryStacItemToScene(item: StacItem, opts: StacItemToSceneOptions = {}): SceneRecord | null {
  try {
    return stacItemToScene(item, opts);
  } catch (e) {
    if (e instanceof StacItemError) return null;
    throw e;
  }
}

/** Whether a parsed JSON value looks like a STAC Item. */
export function isStacItem(v: unknown): v is StacItem {
  if (!v || typeof v !== 'object') return false;
  const o = v as Record<string, unknown>;
  return o.type === 'Feature' && typeof o.stac_version === 'string' && typeof o.id === 'string';
}
