/**
 * A ship result with AIS: each ship feature gains `mmsi` and `ais_distance_m` (matched) or
 * `dark: true` (no AIS vessel within the gate), and each AIS vessel placed inside the
 * analysed area that no detection took becomes a Point feature of its own with
 * `detected: false` (its mmsi, length and how it was placed). The contract's result features
 * are Polygons with area_sqm and confidence: an undetected vessel's is a north-up square with
 * the side of its reported length (20 m when unknown) around its position, which is also given
 * exactly as `ais_lon` / `ais_lat`. Features keep their order; the undetected follow, by mmsi,
 * with the next ids. A ship feature's position is the vertex mean of its outer ring.
 */
import geodesic from 'geographiclib-geodesic';
import { geodesicAreaSqm } from '../../geo/index.ts';
import type { Polygon } from '../../geo/index.ts';
import type { AisVessel } from './interpolate.ts';
import { assignDetections, type AssignOptions } from './assign.ts';

interface ShipFeature {
  type: 'Feature';
  id?: string | number;
  geometry: { type: string; coordinates: unknown };
  properties: Record<string, unknown>;
}

/** What an undetected vessel's feature is. */
export interface UndetectedFeature {
  type: 'Feature';
  id: number;
  geometry: Polygon;
  properties: { area_sqm: number; confidence: null } & Record<string, unknown>;
}

export interface AnnotateOptions extends AssignOptions {
  /** Whether a lon/lat is inside the analysed area (where an undetected vessel is listed). */
  inside: (lon: number, lat: number) => boolean;
}

export interface AisSummary {
  matched: number;
  dark: number;
  undetected: number;
}

export function annotateShips<F extends ShipFeature>(features: readonly F[], vessels: readonly AisVessel[], opts: AnnotateOptions): { features: Array<F | UndetectedFeature>; summary: AisSummary } {
  const located = features.map((f) => {
    const [lon, lat] = centroidOf(f.geometry);
    const length = typeof f.properties.length_m === 'number' ? f.properties.length_m : null;
    return { lon, lat, length };
  });
  const pairs = assignDetections(located, vessels, opts);
  const byDetection = new Map(pairs.map((p) => [p.detection, p]));
  const taken = new Set(pairs.map((p) => p.vessel));
  const out: Array<F | UndetectedFeature> = features.map((f, i) => {
    const pair = byDetection.get(i);
    const ais = pair ? { mmsi: vessels[pair.vessel]!.mmsi, ais_distance_m: Math.round(pair.distanceM) } : { dark: true };
    return { ...f, properties: { ...f.properties, ...ais } };
  });
  let nextId = features.reduce((m, f) => (typeof f.id === 'number' && f.id > m ? f.id : m), 0) + 1;
  let undetected = 0;
  vessels.forEach((v, j) => {
    if (taken.has(j) || !opts.inside(v.lon, v.lat)) return;
    undetected++;
    const square = squareAround(v.lon, v.lat, v.length ?? UNKNOWN_LENGTH_M);
    out.push({
      type: 'Feature',
      id: nextId++,
      geometry: square,
      properties: { area_sqm: Math.round(geodesicAreaSqm(square)), confidence: null, detected: false, mmsi: v.mmsi, length_m: v.length, ais_lon: round6(v.lon), ais_lat: round6(v.lat), ais_position: v.method, ais_fix_age_s: Math.round(v.fixAgeS) },
    });
  });
  return { features: out, summary: { matched: pairs.length, dark: features.length - pairs.length, undetected } };
}

function centroidOf(g: { type: string; coordinates: unknown }): [number, number] {
  if (g.type === 'Point') return g.coordinates as [number, number];
  const ring = g.type === 'Polygon' ? (g.coordinates as number[][][])[0]! : g.type === 'MultiPolygon' ? (g.coordinates as number[][][][])[0]![0]! : [];
  // The closing vertex repeats the first.
  const pts = ring.length > 1 ? ring.slice(0, -1) : ring;
  let x = 0;
  let y = 0;
  for (const p of pts) {
    x += p[0]!;
    y += p[1]!;
  }
  return [x / pts.length, y / pts.length];
}

/** Side of an undetected vessel's square when AIS gives no length (m). */
const UNKNOWN_LENGTH_M = 20;
const WGS84 = geodesic.Geodesic.WGS84;

function squareAround(lon: number, lat: number, sideM: number): Polygon {
  const h = sideM / 2;
  const north = WGS84.Direct(lat, lon, 0, h).lat2!;
  const south = WGS84.Direct(lat, lon, 180, h).lat2!;
  const dLon = Math.abs(WGS84.Direct(lat, lon, 90, h).lon2! - lon);
  const w = round6(lon - dLon);
  const e = round6(lon + dLon);
  const n = round6(north);
  const s = round6(south);
  return { type: 'Polygon', coordinates: [[[w, s], [e, s], [e, n], [w, n], [w, s]]] };
}

const round6 = (v: number) => Math.round(v * 1e6) / 1e6;
