/**
 * Ground truth written beside each synthetic product: a GeoJSON FeatureCollection
 * (RFC 7946, WGS84 lon/lat) whose features carry a `kind` and per-kind properties, plus a
 * foreign member `sarwatch` describing the product and generator. docs/synth.md lists
 * every kind and property.
 */
import { writeFile } from 'node:fs/promises';
import type { Position } from '../geo/types.ts';

export type TruthKind =
  | 'ship'
  | 'fixed_structure'
  | 'ambiguity'
  | 'oilslick'
  | 'lookalike'
  | 'land'
  | 'forest'
  | 'urban'
  | 'port'
  | 'water'
  | 'building'
  | 'field'
  | 'changepoint';

export type TruthGeometry =
  | { type: 'Point'; coordinates: Position }
  | { type: 'Polygon'; coordinates: Position[][] }
  | { type: 'MultiPolygon'; coordinates: Position[][][] };

export interface TruthFeature {
  type: 'Feature';
  id?: string;
  geometry: TruthGeometry;
  properties: { kind: TruthKind; id: string; [key: string]: unknown };
}

export interface TruthCollection {
  type: 'FeatureCollection';
  features: TruthFeature[];
  /** Foreign member: which product this describes and how it was made. */
  sarwatch: {
    truthVersion: 1;
    generator: 'sarwatch synth';
    synthetic: true;
    [key: string]: unknown;
  };
}

const ROUND = 1e7;

export function roundPosition([lon, lat]: Position): Position {
  return [Math.round(lon * ROUND) / ROUND, Math.round(lat * ROUND) / ROUND];
}

function signedArea(ring: Position[]): number {
  let a = 0;
  for (let i = 0; i + 1 < ring.length; i++) a += ring[i]![0] * ring[i + 1]![1] - ring[i + 1]![0] * ring[i]![1];
  return a / 2;
}

/** Closed, rounded, de-duplicated ring; counter-clockwise when `outer`, clockwise for holes (RFC 7946). */
export function normaliseRing(points: Position[], outer = true): Position[] {
  const ring: Position[] = [];
  for (const p of points) {
    const q = roundPosition(p);
    const last = ring[ring.length - 1];
    if (!last || last[0] !== q[0] || last[1] !== q[1]) ring.push(q);
  }
  const first = ring[0]!;
  const last = ring[ring.length - 1]!;
  if (first[0] !== last[0] || first[1] !== last[1]) ring.push([first[0], first[1]]);
  const ccw = signedArea(ring) > 0;
  if (ccw !== outer) ring.reverse();
  return ring;
}

export function polygonGeometry(rings: Position[][]): TruthGeometry {
  return { type: 'Polygon', coordinates: rings.map((r, i) => normaliseRing(r, i === 0)) };
}

export function pointGeometry(p: Position): TruthGeometry {
  return { type: 'Point', coordinates: roundPosition(p) };
}

export function feature(kind: TruthKind, id: string, geometry: TruthGeometry, properties: Record<string, unknown> = {}): TruthFeature {
  return { type: 'Feature', id, geometry, properties: { kind, id, ...properties } };
}

export async function writeTruth(path: string, features: TruthFeature[], about: Record<string, unknown>): Promise<void> {
  const collection: TruthCollection = {
    type: 'FeatureCollection',
    features,
    sarwatch: { truthVersion: 1, generator: 'sarwatch synth', synthetic: true, ...about },
  };
  await writeFile(path, `${JSON.stringify(collection, null, 1)}\n`);
}
