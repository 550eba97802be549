/**
 * Scene records from SAFE products (folders and zips): everything comes from
 * manifest.safe, the asset list from the files actually present.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import type { Polygon } from '../../geo/types.ts';
import { alongTrackFrame, relativeOrbitFromAbsolute } from '../orbit.ts';
import { sceneIdFromPath, tryParseProductName } from '../productName.ts';
import { normaliseTimeliness } from '../query.ts';
import type { Mission, OrbitDirection, Polarisation, SceneAsset, SceneProductType, SceneRecord, Timeliness } from '../types.ts';
import { readZipListing } from './zip.ts';

export interface SafeManifest {
  mission: Mission;
  mode: string;
  productType: SceneProductType;
  start: Date;
  stop: Date;
  absoluteOrbit: number;
  relativeOrbit: number;
  orbitDirection: OrbitDirection;
  polarisations: Polarisation[];
  timeliness?: Timeliness;
  /** Footprint from `gml:coordinates` (lat,lon pairs in the manifest), closed, counter-clockwise. */
  footprint: Polygon;
  /** Milliseconds since the ascending node at start/stop (`s1:startTimeANX`), when present. */
  startTimeAnxMs: number | null;
  stopTimeAnxMs: number | null;
}

export class SafeError extends Error {
  constructor(readonly location: string, reason: string) {
    super(`${location}: ${reason}`);
    this.name = 'SafeError';
  }
}

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  removeNSPrefix: true,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
});

type Node = unknown;

/** Every value stored under `key` anywhere below `node`, arrays flattened, document order. */
function collect(node: Node, key: string, out: Node[] = []): Node[] {
  if (Array.isArray(node)) {
    for (const n of node) collect(n, key, out);
  } else if (node && typeof node === 'object') {
    for (const [k, v] of Object.entries(node as Record<string, Node>)) {
      if (k === key) {
        if (Array.isArray(v)) out.push(...v);
        else out.push(v);
      }
      collect(v, key, out);
    }
  }
  return out;
}

function text(v: Node): string | undefined {
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return String(v);
  if (v && typeof v === 'object' && '#text' in (v as Record<string, unknown>)) return String((v as Record<string, unknown>)['#text']);
  return undefined;
}

function attr(v: Node, name: string): string | undefined {
  return v && typeof v === 'object' ? ((v as Record<string, unknown>)[`@_${name}`] as string | undefined) : undefined;
}

function first(node: Node, key: string, type?: string): string | undefined {
  for (const v of collect(node, key)) {
    if (type !== undefined && attr(v, 'type') !== type) continue;
    const t = text(v);
    if (t !== undefined && t !== '') return t;
  }
  return undefined;
}

/** Manifest times carry no zone designator; they are UTC. */
function utc(s: string | undefined): Date | null {
  if (!s) return null;
  const d = new Date(/[zZ]|[+-]\d\d:?\d\d$/.test(s) ? s : `${s}Z`);
  return Number.isNaN(d.getTime()) ? null : d;
}

function ringArea(ring: number[][]): number {
  let a = 0;
  for (let i = 0; i < ring.length - 1; i++) a += ring[i]![0]! * ring[i + 1]![1]! - ring[i + 1]![0]! * ring[i]![1]!;
  return a / 2;
}

/** `lat,lon lat,lon …` → a closed counter-clockwise GeoJSON ring of [lon, lat]. */
export function gmlCoordinatesToPolygon(coords: string): Polygon | null {
  const ring: number[][] = [];
  for (const pair of coords.trim().split(/\s+/)) {
    const [lat, lon] = pair.split(',').map(Number);
    if (!Number.isFinite(lat) || !Number.isFinite(lon)) return null;
    ring.push([lon!, lat!]);
  }
  if (ring.length < 3) return null;
  const f = ring[0]!;
  const l = ring[ring.length - 1]!;
  if (f[0] !== l[0] || f[1] !== l[1]) ring.push([f[0]!, f[1]!]);
  if (ringArea(ring) < 0) ring.reverse();
  return { type: 'Polygon', coordinates: [ring as [number, number][]] } as Polygon;
}

export function parseManifest(xml: string, location: string): SafeManifest {
  let doc: Node;
  try {
    doc = parser.parse(xml);
  } catch (e) {
    throw new SafeError(location, `manifest.safe is not XML: ${(e as Error).message}`);
  }
  const family = collect(doc, 'familyName').map(text).find((t) => t?.toUpperCase().startsWith('SENTINEL-1'));
  const number = first(doc, 'number');
  if (!family || !number || !/^[ABCD]$/.test(number)) throw new SafeError(location, 'not a Sentinel-1 manifest (platform familyName/number)');
  const mission = `S1${number}` as Mission;
  const productType = first(doc, 'productType')?.toUpperCase();
  if (!productType || !['GRD', 'SLC', 'OCN', 'RAW'].includes(productType)) throw new SafeError(location, `unknown productType "${productType}"`);
  const start = utc(first(doc, 'startTime'));
  const stop = utc(first(doc, 'stopTime'));
  if (!start || !stop) throw new SafeError(location, 'missing startTime/stopTime');
  const absoluteOrbit = Number(first(doc, 'orbitNumber', 'start') ?? first(doc, 'orbitNumber'));
  if (!Number.isInteger(absoluteOrbit) || absoluteOrbit < 1) throw new SafeError(location, 'missing orbitNumber');
  const relText = first(doc, 'relativeOrbitNumber', 'start') ?? first(doc, 'relativeOrbitNumber');
  const relativeOrbit = relText ? Number(relText) : relativeOrbitFromAbsolute(mission, absoluteOrbit, start);
  const pass = first(doc, 'pass')?.toUpperCase();
  if (pass !== 'ASCENDING' && pass !== 'DESCENDING') throw new SafeError(location, `missing or unknown pass "${pass}"`);
  const pols = collect(doc, 'transmitterReceiverPolarisation')
    .map((v) => text(v)?.toUpperCase())
    .filter((p): p is Polarisation => p === 'VV' || p === 'VH' || p === 'HH' || p === 'HV');
  const coords = first(doc, 'coordinates');
  const footprint = coords ? gmlCoordinatesToPolygon(coords) : null;
  if (!footprint) throw new SafeError(location, 'missing or invalid footprint (gml:coordinates)');
  const anx = (k: string) => {
    const t = first(doc, k);
    const n = t === undefined ? NaN : Number(t);
    return Number.isFinite(n) ? n : null;
  };
  const manifest: SafeManifest = {
    mission,
    mode: first(doc, 'mode') ?? '',
    productType: productType as SceneProductType,
    start,
    stop,
    absoluteOrbit,
    relativeOrbit,
    orbitDirection: pass === 'ASCENDING' ? 'ascending' : 'descending',
    polarisations: (['VV', 'VH', 'HH', 'HV'] as Polarisation[]).filter((p) => pols.includes(p)),
    footprint,
    startTimeAnxMs: anx('startTimeANX'),
    stopTimeAnxMs: anx('stopTimeANX'),
  };
  const timeliness = normaliseTimeliness(first(doc, 'productTimelinessCategory'));
  if (timeliness) manifest.timeliness = timeliness;
  return manifest;
}

const POL_TOKEN = /-(vv|vh|hh|hv)-/i;

/**
 * Assets from the SAFE's relative file list: one data asset per polarisation (the
 * measurement file present for it — the manifest's name may differ from the file's, as in
 * cropped test products), annotation/calibration/noise XML per polarisation, the manifest,
 * and the product itself. `hrefOf` maps a SAFE-relative path to an href.
 */
function safeAssets(files: string[], productHref: string, hrefOf: (rel: string) => string): Record<string, SceneAsset> {
  const assets: Record<string, SceneAsset> = { product: { href: productHref, role: 'product' } };
  const sorted = [...files].sort();
  for (const rel of sorted) {
    const lower = rel.toLowerCase();
    const pol = POL_TOKEN.exec(path.posix.basename(lower))?.[1]?.toUpperCase();
    if (lower === 'manifest.safe') assets.manifest = { href: hrefOf(rel), role: 'metadata' };
    else if (!pol) continue;
    else if (lower.startsWith('measurement/') && /\.tiff?$/.test(lower)) {
      const k = pol.toLowerCase();
      if (!assets[k]) assets[k] = { href: hrefOf(rel), role: 'data', pol };
    } else if (lower.startsWith('annotation/calibration/calibration-')) assets[`calibration-${pol.toLowerCase()}`] = { href: hrefOf(rel), role: 'metadata', pol };
    else if (lower.startsWith('annotation/calibration/noise-')) assets[`noise-${pol.toLowerCase()}`] = { href: hrefOf(rel), role: 'metadata', pol };
    else if (/^annotation\/s1[a-d]-[^/]+\.xml$/.test(lower)) assets[`annotation-${pol.toLowerCase()}`] = { href: hrefOf(rel), role: 'metadata', pol };
  }
  return assets;
}

function recordFrom(manifest: SafeManifest, sceneId: string, assets: Record<string, SceneAsset>): SceneRecord {
  const rec: SceneRecord = {
    sceneId,
    productType: manifest.productType,
    platform: manifest.mission,
    platformGroup: 'S1',
    startTime: manifest.start.toISOString(),
    stopTime: manifest.stop.toISOString(),
    relativeOrbit: manifest.relativeOrbit,
    absoluteOrbit: manifest.absoluteOrbit,
    orbitDirection: manifest.orbitDirection,
    frame: alongTrackFrame(manifest.footprint, manifest.orbitDirection),
    polarisations: manifest.polarisations,
    footprint: manifest.footprint,
    assets,
    source: 'local',
  };
  if (manifest.timeliness) rec.timeliness = manifest.timeliness;
  return rec;
}

function checkName(sceneId: string, manifest: SafeManifest, location: string): void {
  const name = tryParseProductName(sceneId);
  if (!name) return; // an unconventional folder name keeps its stem as id
  if (name.mission !== manifest.mission || name.absoluteOrbit !== manifest.absoluteOrbit || name.productType !== manifest.productType) {
    throw new SafeError(location, `product name ${sceneId} disagrees with its manifest (mission/orbit/product type)`);
  }
}

async function listRelative(root: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (dir: string, prefix: string) => {
    for (const e of await readdir(dir, { withFileTypes: true })) {
      const rel = prefix ? `${prefix}/${e.name}` : e.name;
      if (e.isDirectory()) await walk(path.join(dir, e.name), rel);
      else out.push(rel);
    }
  };
  await walk(root, '');
  return out;
}

/** A SAFE folder → its scene record. */
export async function readSafeFolder(dir: string): Promise<SceneRecord> {
  const abs = path.resolve(dir);
  let xml: string;
  try {
    xml = await readFile(path.join(abs, 'manifest.safe'), 'utf8');
  } catch {
    throw new SafeError(abs, 'no manifest.safe');
  }
  const manifest = parseManifest(xml, abs);
  const sceneId = sceneIdFromPath(abs);
  checkName(sceneId, manifest, abs);
  const files = await listRelative(abs);
  return recordFrom(manifest, sceneId, safeAssets(files, abs, (rel) => path.join(abs, ...rel.split('/'))));
}

/**
 * A SAFE zip → its scene record, or null when the zip holds no `manifest.safe`.
 * Members are addressed as `/vsizip/<absolute zip path>/<member>` (GDAL's convention).
 */
export async function readSafeZip(zipPath: string): Promise<SceneRecord | null> {
  const abs = path.resolve(zipPath);
  const isManifest = (n: string) => /^([^/]+\/)?manifest\.safe$/i.test(n);
  const listing = await readZipListing(abs, isManifest);
  const manifestEntry = [...listing.texts.keys()][0];
  if (!manifestEntry) return null;
  const manifest = parseManifest(listing.texts.get(manifestEntry)!, `${abs}!/${manifestEntry}`);
  const rootPrefix = manifestEntry.slice(0, manifestEntry.length - 'manifest.safe'.length);
  const rootName = rootPrefix.replace(/\/$/, '');
  const sceneId = sceneIdFromPath(rootName || abs);
  checkName(sceneId, manifest, abs);
  const files = listing.entries.filter((n) => n.startsWith(rootPrefix)).map((n) => n.slice(rootPrefix.length));
  return recordFrom(manifest, sceneId, safeAssets(files, abs, (rel) => `/vsizip/${abs}/${rootPrefix}${rel}`));
}
