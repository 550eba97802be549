// Measured coverage (interface spec, "Coverage object"): what the building-change and
// time-series analyses report about the part of the polygon they actually analysed.
// - method 'measured';
// - requested_area_sqkm: geodesic area of the submitted polygon;
// - ratio: analysed / requested, rounded DOWN to two decimals, within [0, 1];
// - polygon: WKT of the analysed extent (a MULTIPOLYGON when no-data splits it), simplified
//   to fit the request size limit minus an envelope for the JSON around it, so it can be
//   resubmitted; null when nothing was analysed.

import { geodesicAreaSqkm } from '../../geo/area.ts';
import { intersectAoi } from '../../geo/clip.ts';
import { simplifyToWktBudget } from '../../geo/simplify.ts';
import type { AoiGeometry, Polygon } from '../../geo/types.ts';

export interface MeasuredCoverage {
  method: 'measured';
  requested_area_sqkm: number;
  ratio: number;
  polygon: string | null;
}

/** Bytes kept free in a request for the JSON around a resubmitted polygon (as src/jobs/selection.ts). */
export const REQUEST_ENVELOPE_BYTES = 1024;

/** Rounds a ratio down to two decimals, robust to binary noise (0.29 must not become 0.28). */
export function floorRatio(x: number): number {
  if (!Number.isFinite(x) || x <= 0) return 0;
  if (x >= 1) return 1;
  return Math.floor(x * 100 + 1e-9) / 100;
}

/** One geometry from disjoint polygons: Polygon for one, MultiPolygon for several, null for none. */
export function combinePolygons(polygons: readonly Polygon[]): AoiGeometry | null {
  if (polygons.length === 0) return null;
  if (polygons.length === 1) return polygons[0]!;
  return { type: 'MultiPolygon', coordinates: polygons.map((p) => p.coordinates) };
}

/**
 * The coverage object for an analysed extent. `extent` may reach past the AOI (pixel
 * outlines); it is clipped to it. `analysedAreaSqkm` is measured by the caller (pixels or
 * cells), not from the simplified polygon.
 */
export function measuredCoverage(opts: {
  aoi: AoiGeometry;
  analysedAreaSqkm: number;
  extent: AoiGeometry | null;
  maxRequestBytes: number;
}): MeasuredCoverage {
  const requested = geodesicAreaSqkm(opts.aoi);
  const clipped = opts.extent ? intersectAoi(opts.extent, opts.aoi) : null;
  return {
    method: 'measured',
    requested_area_sqkm: Math.round(requested * 1e6) / 1e6,
    ratio: requested > 0 ? floorRatio(opts.analysedAreaSqkm / requested) : 0,
    polygon: clipped ? simplifyToWktBudget(clipped, opts.maxRequestBytes - REQUEST_ENVELOPE_BYTES) : null,
  };
}
