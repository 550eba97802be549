/**
 * RTC GeoTIFF/COG files → per-file scene contributions. Recognised: OPERA RTC-S1 burst
 * products (by file name or by their GDAL metadata tags) and pyroSAR-named geocoded,
 * terrain-normalised products. The VV and VH files of one acquisition share a scene id and
 * are merged into one record by mergeRtcContributions.
 */
import path from 'node:path';
import { fromFile } from 'geotiff';
import proj4 from 'proj4';
import type { AoiGeometry, Polygon } from '../../geo/types.ts';
import { alongTrackFrame, estimateAbsoluteOrbit, orbitDirectionFromLocalTime, relativeOrbitFromAbsolute } from '../orbit.ts';
import { tryParseOperaRtcId, tryParsePyrosarId } from '../productName.ts';
import type { Mission, OrbitDirection, Polarisation, SceneRecord } from '../types.ts';

export interface RtcContribution {
  sceneId: string;
  path: string;
  pol: Polarisation;
  platform: Mission;
  start: Date;
  stop: Date;
  relativeOrbit: number;
  absoluteOrbit: number | null;
  orbitDirection: OrbitDirection;
  burstId?: string;
  footprint: Polygon;
}

export class RtcFileError extends Error {
  constructor(readonly file: string, reason: string) {
    super(`${file}: ${reason}`);
    this.name = 'RtcFileError';
  }
}

/** proj4 definition of an EPSG code we can transform from: WGS84 geographic and UTM zones. */
export function proj4DefForEpsg(epsg: number): string | null {
  if (epsg === 4326) return '+proj=longlat +datum=WGS84 +no_defs';
  if (epsg >= 32601 && epsg <= 32660) return `+proj=utm +zone=${epsg - 32600} +datum=WGS84 +units=m +no_defs`;
  if (epsg >= 32701 && epsg <= 32760) return `+proj=utm +zone=${epsg - 32700} +south +datum=WGS84 +units=m +no_defs`;
  if (epsg === 3857) return '+proj=merc +a=6378137 +b=6378137 +lat_ts=0 +lon_0=0 +x_0=0 +y_0=0 +k=1 +units=m +nadgrids=@null +no_defs';
  return null;
}

/**
 * The WGS84 footprint of a raster's extent: its bounding box in the native CRS, with each
 * edge densified so that the lon/lat polygon follows the projection's curvature.
 */
export function extentToLonLatPolygon(bbox: [number, number, number, number], epsg: number, pointsPerEdge = 8): Polygon {
  const def = proj4DefForEpsg(epsg);
  if (!def) throw new RangeError(`CRS EPSG:${epsg} is not supported (WGS84 and UTM only)`);
  const [x0, y0, x1, y1] = bbox;
  const pts: [number, number][] = [];
  const edge = (ax: number, ay: number, bx: number, by: number) => {
    for (let i = 0; i < pointsPerEdge; i++) pts.push([ax + ((bx - ax) * i) / pointsPerEdge, ay + ((by - ay) * i) / pointsPerEdge]);
  };
  // Counter-clockwise: along the bottom, up the right side, back along the top, down the left.
  edge(x0, y0, x1, y0);
  edge(x1, y0, x1, y1);
  edge(x1, y1, x0, y1);
  edge(x0, y1, x0, y0);
  const toLonLat = epsg === 4326 ? (p: [number, number]) => p : (p: [number, number]) => proj4(def, 'EPSG:4326', p) as [number, number];
  const ring = pts.map((p) => {
    const [lon, lat] = toLonLat(p);
    return [Math.round(lon * 1e8) / 1e8, Math.round(lat * 1e8) / 1e8] as [number, number];
  });
  ring.push([ring[0]![0], ring[0]![1]]);
  return { type: 'Polygon', coordinates: [ring] } as Polygon;
}

function tagDate(v: unknown): Date | null {
  if (typeof v !== 'string' || v.trim() === '') return null;
  const s = v.trim();
  const d = new Date(/[zZ]$|[+-]\d\d:?\d\d$/.test(s) ? s : `${s}Z`);
  return Number.isNaN(d.getTime()) ? null : d;
}

function compact(d: Date): string {
  return d.toISOString().replace(/[-:]/g, '').slice(0, 15);
}

const POLS: Polarisation[] = ['VV', 'VH', 'HH', 'HV'];

function polFromText(s: string | undefined): Polarisation | null {
  if (!s) return null;
  const m = /(?:^|[^A-Z])(VV|VH|HH|HV)(?:[^A-Z]|$)/.exec(s.toUpperCase());
  return m ? (m[1] as Polarisation) : null;
}

function centroid(p: Polygon): [number, number] {
  const ring = p.coordinates[0]!;
  let x = 0;
  let y = 0;
  const n = ring.length - 1;
  for (let i = 0; i < n; i++) {
    x += ring[i]![0]!;
    y += ring[i]![1]!;
  }
  return [x / n, y / n];
}

/**
 * Reads one GeoTIFF's header and tags. Returns null when the file is not a recognised
 * Sentinel-1 RTC product (e.g. a browse image); throws RtcFileError when it claims to be
 * one but cannot be used.
 */
export async function readRtcGeoTiff(file: string): Promise<RtcContribution | null> {
  const abs = path.resolve(file);
  const base = path.basename(abs);
  const opera = tryParseOperaRtcId(base);
  const pyro = opera ? null : tryParsePyrosarId(base);
  const tiff = await fromFile(abs);
  try {
    const image = await tiff.getImage();
    const tags = ((await image.getGDALMetadata()) ?? {}) as Record<string, unknown>;
    const tagStr = (k: string) => (typeof tags[k] === 'string' ? (tags[k] as string).trim() : undefined);
    const isOperaTagged = tagStr('PROJECT') === 'OPERA' && (tagStr('PRODUCT_TYPE') ?? '').startsWith('RTC');
    if (!opera && !pyro && !isOperaTagged) return null;
    if (pyro && !/norm|rtc|gamma/i.test(pyro.processing ?? '')) return null; // geocoded only, not terrain-normalised

    const geoKeys = (image.getGeoKeys() ?? {}) as Record<string, unknown>;
    const epsg = Number(geoKeys.ProjectedCSTypeGeoKey ?? geoKeys.GeographicTypeGeoKey);
    if (!Number.isInteger(epsg)) throw new RtcFileError(abs, 'no EPSG code in the GeoTIFF keys');
    const bbox = image.getBoundingBox() as [number, number, number, number];
    let footprint: Polygon;
    try {
      footprint = extentToLonLatPolygon(bbox, epsg);
    } catch (e) {
      throw new RtcFileError(abs, (e as Error).message);
    }
    const [lon] = centroid(footprint);

    const pol =
      opera?.polarisation ?? pyro?.polarisation ?? polFromText(tagStr('LAYER_NAME')) ?? polFromText(base.replace(/\.[^.]+$/, ''));
    if (!pol) return null; // not a backscatter layer (mask, incidence angle, browse)

    if (pyro) {
      const absoluteOrbit = estimateAbsoluteOrbit(pyro.mission, pyro.start);
      if (absoluteOrbit === null) throw new RtcFileError(abs, `cannot derive the orbit of ${pyro.mission} from the name`);
      return {
        sceneId: pyro.id,
        path: abs,
        pol,
        platform: pyro.mission,
        start: pyro.start,
        stop: pyro.start,
        relativeOrbit: relativeOrbitFromAbsolute(pyro.mission, absoluteOrbit, pyro.start),
        absoluteOrbit,
        orbitDirection: pyro.orbitDirection,
        footprint,
      };
    }

    // OPERA: the name when there is one, the tags otherwise (and for what names lack).
    const platformTag = /sentinel-1([abcd])/i.exec(tagStr('PLATFORM') ?? '');
    const platform = opera?.mission ?? (platformTag ? (`S1${platformTag[1]!.toUpperCase()}` as Mission) : undefined);
    const burstTag = /^t(\d{3})[_-](\d{6})[_-](iw[123])$/i.exec(tagStr('BURST_ID') ?? '');
    const burstId = opera?.burstId ?? (burstTag ? `T${burstTag[1]}-${burstTag[2]}-${burstTag[3]!.toUpperCase()}` : undefined);
    const start = opera?.acquisitionTime ?? tagDate(tagStr('ZERO_DOPPLER_START_TIME'));
    const stopTag = tagDate(tagStr('ZERO_DOPPLER_END_TIME'));
    const processed = opera?.processingTime ?? tagDate(tagStr('PROCESSING_DATETIME'));
    if (!platform || !burstId || !start) throw new RtcFileError(abs, 'OPERA RTC file without platform, burst id or acquisition time');
    const absTag = Number(tagStr('ABSOLUTE_ORBIT_NUMBER'));
    const absoluteOrbit = Number.isInteger(absTag) && absTag > 0 ? absTag : null;
    const track = opera?.track ?? Number(burstId.slice(1, 4));
    const dirTag = tagStr('ORBIT_PASS_DIRECTION')?.toLowerCase();
    const orbitDirection: OrbitDirection =
      dirTag === 'ascending' || dirTag === 'descending' ? dirTag : orbitDirectionFromLocalTime(start, lon);
    const spacing = opera?.spacing ?? Math.round(Math.abs(image.getResolution()[0] ?? 30));
    const version = opera?.version ?? `v${tagStr('PRODUCT_VERSION') ?? '1.0'}`;
    const baseId =
      opera?.id ??
      `OPERA_L2_RTC-S1_${burstId}_${compact(start)}Z_${processed ? compact(processed) : compact(start)}Z_${platform}_${spacing}_${version}`;
    const stop = stopTag && stopTag.getTime() >= start.getTime() && Math.abs(stopTag.getTime() - start.getTime()) < 60_000 ? stopTag : start;
    return {
      sceneId: opera?.suffix ? `${baseId}_${opera.suffix}` : baseId,
      path: abs,
      pol,
      platform,
      start,
      stop,
      relativeOrbit: track,
      absoluteOrbit,
      orbitDirection,
      burstId,
      footprint,
    };
  } finally {
    await tiff.close();
  }
}

function unionBbox(polys: Polygon[]): Polygon {
  if (polys.length === 1) return polys[0]!;
  // Files of one acquisition share one grid; when they differ slightly, keep their hull's bbox.
  let x0 = Infinity;
  let y0 = Infinity;
  let x1 = -Infinity;
  let y1 = -Infinity;
  for (const p of polys) {
    for (const [x, y] of p.coordinates[0]! as number[][]) {
      x0 = Math.min(x0, x!);
      y0 = Math.min(y0, y!);
      x1 = Math.max(x1, x!);
      y1 = Math.max(y1, y!);
    }
  }
  return { type: 'Polygon', coordinates: [[[x0, y0], [x1, y0], [x1, y1], [x0, y1], [x0, y0]]] } as Polygon;
}

function sameRing(a: Polygon, b: Polygon): boolean {
  return JSON.stringify(a.coordinates) === JSON.stringify(b.coordinates);
}

/** Contributions of one scene id (VV, VH… files) → one RTC scene record. */
export function mergeRtcContributions(parts: RtcContribution[]): SceneRecord {
  if (parts.length === 0) throw new RangeError('no contributions');
  const sorted = [...parts].sort((a, b) => POLS.indexOf(a.pol) - POLS.indexOf(b.pol) || (a.path < b.path ? -1 : 1));
  const head = sorted[0]!;
  const footprints = sorted.map((p) => p.footprint);
  const footprint: AoiGeometry = footprints.every((f) => sameRing(f, footprints[0]!)) ? footprints[0]! : unionBbox(footprints);
  const assets: SceneRecord['assets'] = {};
  for (const p of sorted) {
    const key = p.pol.toLowerCase();
    if (!assets[key]) assets[key] = { href: p.path, role: 'data', pol: p.pol };
  }
  return {
    sceneId: head.sceneId,
    productType: 'RTC',
    platform: head.platform,
    platformGroup: 'S1',
    startTime: head.start.toISOString(),
    stopTime: head.stop.toISOString(),
    relativeOrbit: head.relativeOrbit,
    absoluteOrbit: head.absoluteOrbit ?? sorted.find((p) => p.absoluteOrbit !== null)?.absoluteOrbit ?? null,
    orbitDirection: head.orbitDirection,
    frame: alongTrackFrame(footprint, head.orbitDirection, head.burstId),
    polarisations: POLS.filter((p) => sorted.some((s) => s.pol === p)),
    footprint,
    assets,
    source: 'local',
  };
}

