// WKT ⇄ AOI geometry. Parsing is lenient about spelling (keyword case, whitespace, an
// `SRID=4326;` prefix; see wkt-reader.ts) and strict about meaning: everything that would
// make area, clipping or scene selection ambiguous is rejected with a message naming the
// part and ring (rules in validate.ts).
//
// Z and M: an AOI is a surface region, so a third or fourth ordinate (`POLYGON Z`,
// `POLYGON M`, `POLYGON ZM`, or untagged 3D coordinates) carries nothing we could use.
// Such input is accepted and the extra ordinates are dropped — desktop GIS exports often
// write `POLYGON Z (... 0)` and rejecting those would only make users retype their AOI.
// Returned geometries and toWkt() output are always 2D.

import { GeometryError } from './errors.ts';
import type { AoiGeometry, Position, Ring } from './types.ts';
import { toAoiGeometry, type FlatPolygons } from './flat.ts';
import { findGeometryIssue, findGeometryIssueFlat } from './validate.ts';
import { NO_POLYGON_LIMITS, readPolygonWkt, type PolygonLimits } from './wkt-reader.ts';

export type { PolygonLimits } from './wkt-reader.ts';

/**
 * Parses an AOI given as WKT POLYGON or MULTIPOLYGON in EPSG:4326 (lon lat order).
 * Throws GeometryError with a user-facing message for anything else, anything invalid,
 * or anything over `limits` (parts, rings, vertices; none by default).
 */
export function parseAoiWkt(text: string, limits: PolygonLimits = NO_POLYGON_LIMITS): AoiGeometry {
  return toAoiGeometry(parseAoiWktFlat(text, limits));
}

/** parseAoiWkt as flat arrays (flat.ts), for callers that measure or ship it without nesting it. */
export function parseAoiWktFlat(text: string, limits: PolygonLimits = NO_POLYGON_LIMITS): FlatPolygons {
  if (typeof text !== 'string') throw new GeometryError('polygon must be a WKT string');
  if (/^\s*$/.test(text)) throw new GeometryError('polygon is empty; expected POLYGON ((lon lat, ...)) or MULTIPOLYGON');
  const flat = readPolygonWkt(text, limits);
  const issue = findGeometryIssueFlat(flat, flat.type === 'MultiPolygon');
  if (issue) throw new GeometryError(issue.message);
  return flat;
}

/** Throws GeometryError unless `geom` satisfies the same rules as parseAoiWkt. */
export function assertValidAoi(geom: AoiGeometry): void {
  const multi = geom.type === 'MultiPolygon';
  const polygons = multi ? geom.coordinates : geom.coordinates.length === 0 ? [] : [geom.coordinates];
  const issue = findGeometryIssue(polygons, multi);
  if (issue) throw new GeometryError(issue.message);
}

/** A coordinate as WKT writes it: at most `decimals` decimals, no trailing zeros, no "-0". */
export function formatCoordinate(value: number, decimals: number): string {
  let text = value.toFixed(decimals);
  if (text.includes('.')) text = text.replace(/\.?0+$/, '');
  return text === '-0' ? '0' : text;
}

/** The value a coordinate has after a round trip through toWkt(…, decimals) and parsing. */
export function roundCoordinate(value: number, decimals: number): number {
  // Same value as Number(formatCoordinate(…)) without the string clean-up; `|| 0` folds -0.
  return Number(value.toFixed(decimals)) || 0;
}

/** `(lon lat, lon lat, ...)` — one ring as toWkt writes it. */
export function ringWkt(ring: readonly Position[], decimals: number): string {
  return `(${ring.map(([lon, lat]) => `${formatCoordinate(lon, decimals)} ${formatCoordinate(lat, decimals)}`).join(', ')})`;
}

function polygonWkt(rings: readonly Ring[], decimals: number): string {
  return `(${rings.map((ring) => ringWkt(ring, decimals)).join(', ')})`;
}

/**
 * Canonical WKT: `POLYGON ((lon lat, ...), (...))` or `MULTIPOLYGON (((...)), ((...)))`,
 * coordinates rounded to `decimals` (6 ≈ 0.1 m). Parses back with parseAoiWkt whenever
 * the geometry stays valid at that precision — simplifyToWktBudget guarantees it.
 */
export function toWkt(geom: AoiGeometry, decimals = 6): string {
  if (!Number.isInteger(decimals) || decimals < 0 || decimals > 15) {
    throw new RangeError(`decimals must be an integer in [0, 15], got ${decimals}`);
  }
  if (geom.type === 'Polygon') {
    return geom.coordinates.length === 0 ? 'POLYGON EMPTY' : `POLYGON ${polygonWkt(geom.coordinates, decimals)}`;
  }
  if (geom.coordinates.length === 0) return 'MULTIPOLYGON EMPTY';
  return `MULTIPOLYGON (${geom.coordinates.map((rings) => polygonWkt(rings, decimals)).join(', ')})`;
}
