// The result body every detector returns (interface spec, "Result: GeoJSON FeatureCollection"):
// - `type: 'FeatureCollection'`, no `crs` member (RFC 7946: WGS84 lon/lat, always);
// - `bbox` `[minx, miny, maxx, maxy]` over all detections, omitted when there are none;
// - `features[].id`: integers 1, 2, 3 … on the Feature itself;
// - `features[].geometry`: a Polygon;
// - `properties.area_sqm`: geodesic area on WGS84, holes subtracted;
// - `properties.confidence`: a number or null, present on every Feature.
//
// Decisions the spec leaves open:
// - Coordinates are rounded to 7 decimals (1e-7° ≈ 1 cm), which keeps files small and
//   byte-stable; area_sqm and bbox are computed from the rounded coordinates, so they agree
//   with what a client recomputes from the file. area_sqm is rounded to 0.01 m².
// - Every ring starts at its northernmost vertex (westernmost among equals), so a polygon is
//   written the same way however it was traced or clipped.
// - Order: by that first vertex of the exterior ring — latitude descending (north first), then
//   longitude ascending — then by area; the input order breaks remaining ties. So the same
//   detections give the same ids however tiles or workers were scheduled.
// - Rings are closed and oriented per RFC 7946 (exterior counter-clockwise, holes clockwise);
//   a ring that collapses to < 4 positions after rounding is dropped (a hole), or the feature is
//   dropped (an exterior).

import { geodesicAreaSqm } from '../../geo/area.ts';
import type { BBox, Polygon, Position, Ring } from '../../geo/types.ts';
import type { ResultCollection, ResultFeature } from '../port.ts';

export const COORDINATE_DECIMALS = 7;

export interface PolygonInput {
  geometry: Polygon;
  properties?: Record<string, unknown>;
}

export interface FinalizeOptions {
  /**
   * Confidence of the i-th polygon (index into the input array); null when the detector has
   * no probability (ship, oil slick). Default: null for every feature.
   */
  confidence?: (index: number) => number | null;
  /** Also write the Feature id into `properties.id` (oil slicks: "a stable id equal to the Feature id"). */
  addPropertyId?: boolean;
}

export interface FinalizedFeature extends ResultFeature {
  geometry: Polygon;
}

export interface FinalizedCollection extends ResultCollection {
  features: FinalizedFeature[];
}

const SCALE = 10 ** COORDINATE_DECIMALS;

function round(value: number): number {
  // `|| 0` folds -0, which JSON would print as 0 anyway but deep-equality would not.
  return Math.round(value * SCALE) / SCALE || 0;
}

function signedArea(ring: readonly Position[]): number {
  let a = 0;
  for (let i = 0; i + 1 < ring.length; i++) a += ring[i]![0] * ring[i + 1]![1] - ring[i + 1]![0] * ring[i]![1];
  return a / 2;
}

/** Round, drop repeated consecutive positions, close, orient. null when fewer than 3 corners remain. */
function normaliseRing(ring: readonly Position[], exterior: boolean): Ring | null {
  const out: Ring = [];
  for (const [lon, lat] of ring) {
    if (!Number.isFinite(lon) || !Number.isFinite(lat)) throw new RangeError('finalizeFeatureCollection: non-finite coordinate');
    const p: Position = [round(lon), round(lat)];
    const last = out[out.length - 1];
    if (!last || last[0] !== p[0] || last[1] !== p[1]) out.push(p);
  }
  while (out.length > 1 && out[0]![0] === out[out.length - 1]![0] && out[0]![1] === out[out.length - 1]![1]) out.pop();
  if (out.length < 3) return null;
  out.push([out[0]![0], out[0]![1]]);
  const ccw = signedArea(out) > 0;
  const oriented = ccw === exterior ? out : out.reverse();
  // Canonical start: the northernmost vertex (then the westernmost), so the same polygon is
  // written the same way however it was traced or clipped.
  oriented.pop();
  let start = 0;
  for (let i = 1; i < oriented.length; i++) {
    const p = oriented[i]!;
    const q = oriented[start]!;
    if (p[1] > q[1] || (p[1] === q[1] && p[0] < q[0])) start = i;
  }
  const rotated = [...oriented.slice(start), ...oriented.slice(0, start)];
  rotated.push([rotated[0]![0], rotated[0]![1]]);
  return rotated;
}

function normalisePolygon(geometry: Polygon): Polygon | null {
  if (geometry.type !== 'Polygon') throw new TypeError(`finalizeFeatureCollection: expected a Polygon, got ${String((geometry as { type?: unknown }).type)}`);
  const [shell, ...holes] = geometry.coordinates;
  if (!shell) return null;
  const exterior = normaliseRing(shell, true);
  if (!exterior) return null;
  const rings: Ring[] = [exterior];
  for (const hole of holes) {
    const h = normaliseRing(hole, false);
    if (h) rings.push(h);
  }
  return { type: 'Polygon', coordinates: rings };
}

/**
 * A polygon as the result writes it — rounded, closed, oriented, starting at its canonical
 * vertex — and its geodesic area; null when the result drops it (collapsed by rounding, or no
 * area). A pure function of the polygon: made where the polygon is (a tile task, on any thread
 * or worker), it gives what finalizeFeatureCollection would, so the caller can hand the work to
 * its tiles and finish with finalizePrepared.
 */
export function resultPolygon(geometry: Polygon): { geometry: Polygon; area: number } | null {
  const normalised = normalisePolygon(geometry);
  if (!normalised) return null;
  const area = geodesicAreaSqm(normalised);
  if (!(area > 0)) return null;
  return { geometry: normalised, area };
}

/** A polygon resultPolygon made, with its place among the detector's polygons (`index`: ties in the order, and the confidence asked for). */
export interface PreparedPolygon {
  index: number;
  geometry: Polygon;
  area: number;
  properties?: Record<string, unknown>;
}

/**
 * The result FeatureCollection for a list of polygons, with every rule of the spec's Result
 * section applied (see the comment at the top of this file for the open decisions).
 */
export function finalizeFeatureCollection(polygons: ReadonlyArray<PolygonInput>, opts: FinalizeOptions = {}): FinalizedCollection {
  const prepared: PreparedPolygon[] = [];
  polygons.forEach((input, index) => {
    const made = resultPolygon(input.geometry);
    if (made) prepared.push({ index, geometry: made.geometry, properties: input.properties ?? {}, area: made.area });
  });
  return finalizePrepared(prepared, opts);
}

/**
 * finalizeFeatureCollection for polygons already made by resultPolygon (sorts `prepared` in
 * place): the order, ids, properties and bbox. `opts.confidence` is asked by each polygon's `index`.
 */
export function finalizePrepared(prepared: PreparedPolygon[], opts: FinalizeOptions = {}): FinalizedCollection {
  prepared.sort((a, b) => {
    const pa = a.geometry.coordinates[0]![0]!;
    const pb = b.geometry.coordinates[0]![0]!;
    return pb[1] - pa[1] || pa[0] - pb[0] || a.area - b.area || a.index - b.index;
  });

  let minx = Infinity;
  let miny = Infinity;
  let maxx = -Infinity;
  let maxy = -Infinity;
  const features: FinalizedFeature[] = prepared.map((p, i) => {
    for (const [x, y] of p.geometry.coordinates[0]!) {
      if (x < minx) minx = x;
      if (y < miny) miny = y;
      if (x > maxx) maxx = x;
      if (y > maxy) maxy = y;
    }
    const id = i + 1;
    const confidence = opts.confidence ? opts.confidence(p.index) : null;
    if (confidence !== null && !Number.isFinite(confidence)) {
      throw new RangeError(`finalizeFeatureCollection: confidence of polygon ${p.index} is ${confidence}`);
    }
    // Detector-specific properties first; the spec's members cannot be overridden by them.
    const { area_sqm: _a, confidence: _c, id: _i, ...rest } = p.properties ?? {};
    const properties: ResultFeature['properties'] = {
      ...rest,
      ...(opts.addPropertyId ? { id } : {}),
      area_sqm: Math.round(p.area * 100) / 100,
      confidence,
    };
    return { type: 'Feature', id, geometry: p.geometry, properties };
  });

  const collection: FinalizedCollection = { type: 'FeatureCollection', features };
  if (features.length > 0) {
    const bbox: BBox = [minx, miny, maxx, maxy];
    return { type: 'FeatureCollection', bbox, features };
  }
  return collection;
}
