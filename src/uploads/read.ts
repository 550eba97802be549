/**
 * An uploaded polygon file → its features, validated: GeoJSON (a FeatureCollection), KML
 * (@tmcw/togeojson on an @xmldom/xmldom document) or a zipped Shapefile (shpjs, reprojected
 * to WGS84 by its .prj). Every feature goes through the request polygon's validation
 * (parseAoiWkt: limits, WKT rules, validity; then the geodesic area), so an upload is exactly as
 * strict as `polygon`. Pure and synchronous apart from the Shapefile reader; heavy on large
 * files, so it runs on the geometry thread (src/threads/geometryThread.ts; its `threadTasks`).
 *
 * Messages name the format, the feature's position and the rule broken — never text of
 * the file.
 */
import { DOMParser } from '@xmldom/xmldom';
import { kml } from '@tmcw/togeojson';
import { parseZip } from 'shpjs';
import yauzl from 'yauzl';
import { defineThreadTasks } from '../threads/task.ts';
import { GeometryError, geodesicAreaSqkm, parseAoiWkt, toWkt, unionAoi, type AoiGeometry, type PolygonLimits, type Position } from '../geo/index.ts';

export const UPLOAD_FORMATS = ['geojson', 'kml', 'shapefile'] as const;
export type UploadFormat = (typeof UPLOAD_FORMATS)[number];

/** Content-Type (without parameters) → format. */
export const UPLOAD_MEDIA_TYPES: Record<string, UploadFormat> = {
  'application/geo+json': 'geojson',
  'application/json': 'geojson',
  'application/vnd.google-earth.kml+xml': 'kml',
  'application/zip': 'shapefile',
};

export interface UploadLimits {
  maxFeatures: number;
  /** The unzipped members of a Shapefile zip together, bytes (a zip bomb stops here). */
  maxUnzippedBytes: number;
  polygon: PolygonLimits;
}

export interface RawFeature {
  geometry: { type: string; coordinates?: unknown; geometries?: unknown[] } | null;
  properties: Record<string, unknown> | null;
}

export type Parsed = { ok: true; features: RawFeature[] } | { ok: false; message: string };

export interface ValidFeature {
  type: 'Feature';
  geometry: AoiGeometry;
  properties: Record<string, unknown>;
}

export type Validated =
  | { ok: true; featureCount: number; areaSqkm: number; unionWkt: string; geojson: string }
  | { ok: false; message: string };

/** The file's features, or why it is not a file of its format (no geometry checks yet). */
export async function parseUpload(format: UploadFormat, bytes: Uint8Array, limits: UploadLimits): Promise<Parsed> {
  const parsed = format === 'geojson' ? parseGeoJson(bytes) : format === 'kml' ? parseKml(bytes) : await parseShapefileZip(bytes, limits);
  if (!parsed.ok) return parsed;
  if (parsed.features.length === 0) return { ok: false, message: `the ${label(format)} holds no feature` };
  if (parsed.features.length > limits.maxFeatures) {
    return { ok: false, message: `the ${label(format)} holds ${parsed.features.length} features; at most ${limits.maxFeatures} are accepted` };
  }
  return parsed;
}

/** Parse, then every feature validated as a request polygon; the union and its geodesic area. */
export async function validateUpload(format: UploadFormat, bytes: Uint8Array, limits: UploadLimits): Promise<Validated> {
  const parsed = await parseUpload(format, bytes, limits);
  if (!parsed.ok) return parsed;
  const features: ValidFeature[] = [];
  for (let i = 0; i < parsed.features.length; i++) {
    const f = parsed.features[i]!;
    const where = `feature ${i + 1} of ${parsed.features.length}`;
    const geometry = asAoi(f.geometry);
    if (typeof geometry === 'string') return { ok: false, message: `${where}: ${geometry}` };
    const checked = checkGeometry(geometry, limits.polygon);
    if (typeof checked === 'string') return { ok: false, message: `${where}: ${checked}` };
    features.push({ type: 'Feature', geometry: checked, properties: f.properties ?? {} });
  }
  const union = unionAoi(features.map((f) => f.geometry));
  const unionChecked = union ? checkGeometry(union, limits.polygon) : 'it is empty';
  if (typeof unionChecked === 'string') return { ok: false, message: `the union of the features: ${unionChecked}` };
  const unionWkt = toWkt(unionChecked, 15);
  return {
    ok: true,
    featureCount: features.length,
    areaSqkm: geodesicAreaSqkm(unionChecked),
    unionWkt,
    geojson: JSON.stringify({ type: 'FeatureCollection', features }),
  };
}

/** The request polygon's rules (src/geo/wkt.ts) on a geometry, through its WKT: the geometry or why not. */
function checkGeometry(geometry: AoiGeometry, limits: PolygonLimits): AoiGeometry | string {
  let aoi: AoiGeometry;
  try {
    aoi = parseAoiWkt(toWkt(geometry, 15), limits);
  } catch (e) {
    if (e instanceof GeometryError) return e.message;
    if (e instanceof RangeError || e instanceof TypeError) return 'its coordinates do not form polygon rings';
    throw e;
  }
  if (!(geodesicAreaSqkm(aoi) > 0)) return 'the polygon has zero area';
  return aoi;
}

function label(format: UploadFormat): string {
  return format === 'geojson' ? 'GeoJSON' : format === 'kml' ? 'KML document' : 'Shapefile';
}

function parseGeoJson(bytes: Uint8Array): Parsed {
  let doc: unknown;
  try {
    doc = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    return { ok: false, message: 'the body is not valid JSON (UTF-8)' };
  }
  const fc = doc as { type?: unknown; features?: unknown };
  if (typeof doc !== 'object' || doc === null || fc.type !== 'FeatureCollection' || !Array.isArray(fc.features)) {
    return { ok: false, message: 'the GeoJSON must be a FeatureCollection with a features array' };
  }
  const features: RawFeature[] = [];
  for (let i = 0; i < fc.features.length; i++) {
    const f = fc.features[i] as { type?: unknown; geometry?: unknown; properties?: unknown } | null;
    if (typeof f !== 'object' || f === null || f.type !== 'Feature') return { ok: false, message: `features[${i}] is not a GeoJSON Feature` };
    const props = f.properties;
    if (props !== undefined && props !== null && (typeof props !== 'object' || Array.isArray(props))) {
      return { ok: false, message: `features[${i}].properties must be an object or null` };
    }
    features.push({ geometry: (f.geometry ?? null) as RawFeature['geometry'], properties: (props ?? null) as RawFeature['properties'] });
  }
  return { ok: true, features };
}

function parseKml(bytes: Uint8Array): Parsed {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return { ok: false, message: 'the KML document is not UTF-8 text' };
  }
  let wellFormed = true;
  let doc;
  try {
    doc = new DOMParser({
      onError: (level) => {
        if (level !== 'warning') wellFormed = false;
      },
    }).parseFromString(text, 'application/xml');
  } catch {
    wellFormed = false;
  }
  const root = doc?.documentElement;
  if (!wellFormed || !doc || !root) return { ok: false, message: 'the body is not a well-formed XML document' };
  if (root.localName !== 'kml') return { ok: false, message: 'the XML document is not KML (its root element is not <kml>)' };
  let fc;
  try {
    fc = kml(doc as never);
  } catch {
    return { ok: false, message: 'the KML document could not be read as placemarks' };
  }
  return { ok: true, features: fc.features.map((f) => ({ geometry: f.geometry as RawFeature['geometry'], properties: (f.properties ?? null) as RawFeature['properties'] })) };
}

async function parseShapefileZip(bytes: Uint8Array, limits: UploadLimits): Promise<Parsed> {
  const unzipped = await unzippedSize(bytes);
  if (unzipped === null) return { ok: false, message: 'the body is not a readable zip archive' };
  if (unzipped > limits.maxUnzippedBytes) {
    return { ok: false, message: `the zip unpacks to ${unzipped} bytes; at most ${limits.maxUnzippedBytes} are accepted` };
  }
  let layers;
  try {
    const out = await parseZip(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    layers = Array.isArray(out) ? out : [out];
  } catch {
    return { ok: false, message: 'the zip holds no readable Shapefile (a .shp with its .dbf, and a .prj unless in WGS84)' };
  }
  layers.sort((a, b) => String(a.fileName ?? '').localeCompare(String(b.fileName ?? '')));
  const features = layers.flatMap((l) => (Array.isArray(l?.features) ? l.features : []));
  return { ok: true, features: features.map((f) => ({ geometry: f.geometry as RawFeature['geometry'], properties: (f.properties ?? null) as RawFeature['properties'] })) };
}

/** Sum of the declared uncompressed sizes of the zip's members; null when it is not a zip. */
function unzippedSize(bytes: Uint8Array): Promise<number | null> {
  return new Promise((resolve) => {
    yauzl.fromBuffer(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), { lazyEntries: true }, (err, zip) => {
      if (err || !zip) return resolve(null);
      let total = 0;
      zip.on('entry', (entry: yauzl.Entry) => {
        total += entry.uncompressedSize;
        zip.readEntry();
      });
      zip.on('end', () => resolve(total));
      zip.on('error', () => resolve(null));
      zip.readEntry();
    });
  });
}

/** A feature's geometry as a Polygon/MultiPolygon, or why it is not one. */
function asAoi(geometry: RawFeature['geometry']): AoiGeometry | string {
  if (!geometry || typeof geometry !== 'object') return 'it has no geometry';
  if (geometry.type === 'Polygon' || geometry.type === 'MultiPolygon') {
    if (!Array.isArray(geometry.coordinates)) return `its ${geometry.type} has no coordinates array`;
    if (!positionsOnly(geometry.coordinates, geometry.type === 'Polygon' ? 2 : 3)) return `its ${geometry.type} coordinates are not arrays of [lon, lat] numbers`;
    return { type: geometry.type, coordinates: stripZ(geometry.coordinates, geometry.type === 'Polygon' ? 2 : 3) } as AoiGeometry;
  }
  if (geometry.type === 'GeometryCollection' && Array.isArray(geometry.geometries)) {
    // KML MultiGeometry: polygons only, as one MultiPolygon.
    const parts: Position[][][] = [];
    for (const g of geometry.geometries) {
      const aoi = asAoi(g as RawFeature['geometry']);
      if (typeof aoi === 'string') return `a part of its geometry collection: ${aoi}`;
      if (aoi.type === 'Polygon') parts.push(aoi.coordinates);
      else parts.push(...aoi.coordinates);
    }
    if (parts.length === 0) return 'its geometry collection is empty';
    return parts.length === 1 ? { type: 'Polygon', coordinates: parts[0]! } : { type: 'MultiPolygon', coordinates: parts };
  }
  const known = ['Point', 'MultiPoint', 'LineString', 'MultiLineString'];
  return known.includes(String(geometry.type)) ? `it is a ${geometry.type}; only Polygon and MultiPolygon are accepted` : 'its geometry type is not Polygon or MultiPolygon';
}

/** Nested arrays of depth `depth` above positions of 2 or 3 finite numbers. */
function positionsOnly(value: unknown, depth: number): boolean {
  if (!Array.isArray(value)) return false;
  if (depth === 0) return (value.length === 2 || value.length === 3) && value.every((n) => typeof n === 'number' && Number.isFinite(n));
  return value.every((v) => positionsOnly(v, depth - 1));
}

function stripZ(value: unknown, depth: number): unknown {
  if (depth === 0) return (value as number[]).slice(0, 2);
  return (value as unknown[]).map((v) => stripZ(v, depth - 1));
}

/** What the geometry thread is given of an uploaded polygon file. */
export interface UploadFile {
  format: UploadFormat;
  bytes: Uint8Array;
  limits: UploadLimits;
}

export type UploadCount = { ok: true; featureCount: number } | { ok: false; message: string };

/** The parse alone: how many features, not the features themselves (they stay on the thread that parsed them). */
async function countUploadFeatures({ format, bytes, limits }: UploadFile): Promise<UploadCount> {
  const parsed = await parseUpload(format, bytes, limits);
  return parsed.ok ? { ok: true, featureCount: parsed.features.length } : parsed;
}

/** What the geometry thread runs of this module (src/threads/task.ts): an upload's feature count, or the upload validated. */
export const threadTasks = defineThreadTasks(import.meta.url, {
  countUploadFeatures,
  validateUpload: ({ format, bytes, limits }: UploadFile) => validateUpload(format, bytes, limits),
});
