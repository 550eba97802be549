// Boolean operations on AOIs (planar in lon/lat, edges straight in EPSG:4326), via
// polygon-clipping. Its output is already valid in our sense: rings closed, no repeated
// points, holes inside shells, parts not overlapping (they may touch at points).

import polygonClipping from 'polygon-clipping';
import type { Geom, MultiPolygon as ClipMultiPolygon } from 'polygon-clipping';
import { GeometryError } from './errors.ts';
import { flattenPolygons } from './flat.ts';
import { partsTouch } from './validate.ts';
import type { AoiGeometry, BBox, Position } from './types.ts';

function toClip(geom: AoiGeometry): Geom {
  return geom.coordinates;
}

/** Polygon for one part, MultiPolygon for several, null for the empty set. */
function fromClip(result: ClipMultiPolygon): AoiGeometry | null {
  if (result.length === 0) return null;
  if (result.length === 1) return { type: 'Polygon', coordinates: result[0]! };
  return { type: 'MultiPolygon', coordinates: result };
}

export function intersectAoi(a: AoiGeometry, b: AoiGeometry): AoiGeometry | null {
  return fromClip(polygonClipping.intersection(toClip(a), toClip(b)));
}

/**
 * `aoi ∩ other`, the same geometry `intersectAoi` gives, clipped part by part (issue 19
 * item 2). One polygon-clipping run over a MULTIPOLYGON of many thin parts whose bounding
 * boxes all overlap (1,200 strips: seconds) keeps every part's edges on its sweep line at
 * once; here each part is clipped alone against the parts of `other` whose bounding boxes
 * meet its own, and parts that meet none are dropped unclipped. The pieces come back in
 * polygon-clipping's order (by each shell's lowest-leftmost vertex, the sweep's). When two
 * parts of `aoi` touch, polygon-clipping would merge their pieces, so that input takes the
 * one-run path. `aoi` must be valid (validate.ts); `other` is any AOI (a scene footprint).
 */
export function intersectByParts(aoi: AoiGeometry, other: AoiGeometry): AoiGeometry | null {
  if (aoi.type === 'Polygon' || aoi.coordinates.length < 2) return intersectAoi(aoi, other);
  if (partsOfTouch(aoi)) return intersectAoi(aoi, other);
  const others = other.type === 'Polygon' ? [other.coordinates] : other.coordinates;
  const otherBoxes = others.map((rings) => bboxOf(rings[0]!));
  const pieces: ClipMultiPolygon = [];
  for (const part of aoi.coordinates) {
    const [x0, y0, x1, y1] = bboxOf(part[0]!);
    const near = others.filter((_, i) => {
      const b = otherBoxes[i]!;
      return b[0] <= x1 && x0 <= b[2] && b[1] <= y1 && y0 <= b[3];
    });
    if (near.length > 0) pieces.push(...polygonClipping.intersection(part, near));
  }
  const first = pieces.map((p) => lowestLeftmost(p[0]!));
  const order = pieces.map((_, i) => i).sort((a, b) => first[a]![0] - first[b]![0] || first[a]![1] - first[b]![1]);
  return fromClip(order.map((i) => pieces[i]!));
}

/** Whether parts of `aoi` touch, found once per geometry: a selection clips one AOI against every candidate scene. */
const touching = new WeakMap<AoiGeometry, boolean>();
function partsOfTouch(aoi: Extract<AoiGeometry, { type: 'MultiPolygon' }>): boolean {
  let known = touching.get(aoi);
  if (known === undefined) touching.set(aoi, (known = partsTouch(flattenPolygons(aoi.coordinates, 'MultiPolygon'))));
  return known;
}

function lowestLeftmost(ring: readonly Position[]): Position {
  let best = ring[0]!;
  for (const p of ring) if (p[0] < best[0] || (p[0] === best[0] && p[1] < best[1])) best = p;
  return best;
}

/** Union of any number of AOIs; null for an empty list. */
export function unionAoi(list: readonly AoiGeometry[]): AoiGeometry | null {
  if (list.length === 0) return null;
  const [first, ...rest] = list.map(toClip);
  return fromClip(polygonClipping.union(first!, ...rest));
}

/** The part of `a` outside `b`; null when nothing is left. */
export function differenceAoi(a: AoiGeometry, b: AoiGeometry): AoiGeometry | null {
  return fromClip(polygonClipping.difference(toClip(a), toClip(b)));
}

/** `[minLon, minLat, maxLon, maxLat]` of a geometry or of a list of positions. */
export function bboxOf(geom: AoiGeometry | readonly Position[]): BBox {
  let minx = Infinity;
  let miny = Infinity;
  let maxx = -Infinity;
  let maxy = -Infinity;
  const add = (positions: readonly Position[]): void => {
    for (const [x, y] of positions) {
      if (x < minx) minx = x;
      if (y < miny) miny = y;
      if (x > maxx) maxx = x;
      if (y > maxy) maxy = y;
    }
  };
  if (!('type' in geom)) add(geom);
  else if (geom.type === 'Polygon') geom.coordinates.forEach(add);
  else for (const rings of geom.coordinates) rings.forEach(add);
  if (minx > maxx) throw new GeometryError('cannot compute the bounding box of an empty geometry');
  return [minx, miny, maxx, maxy];
}
