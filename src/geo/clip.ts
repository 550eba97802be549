// Boolean operations on AOIs (planar in lon/lat, edges straight in EPSG:4326), via
// polygon-clipping. Its output is already valid in our sense: rings closed, no repeated
// points, holes inside shells, parts not overlapping (they may touch at points).

import polygonClipping from 'polygon-clipping';
import type { Geom, MultiPolygon as ClipMultiPolygon } from 'polygon-clipping';
import { GeometryError } from './errors.ts';
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
