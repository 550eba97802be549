// The per-vessel properties of a ship feature (issue 23): length_m, width_m, heading_deg with
// heading_ambiguous, distance_to_shore_m and near_shore — from the detection's attributes
// (attributes.ts, image axis) turned into a bearing on the ground through the geolocation,
// and the Natural Earth coastline (src/geo/shoreDistance.ts), or the scene's own land where the
// detector segmented it and found it nearer (shoreDistanceM). Main thread only.

import geodesic from 'geographiclib-geodesic';
import { nearestShore } from '../../geo/shoreDistance.ts';
import { LAND_DISTANCE_CAP_M } from './seaLand.ts';
import type { ShipDetection } from './tile.ts';

const WGS84 = geodesic.Geodesic.WGS84;
/** A vessel this close to the coastline is near shore (m). */
export const NEAR_SHORE_M = 2000;

/**
 * Ground bearing (degrees clockwise from north) of an image axis through (row, col): the
 * axis's two ends 10 px either side, mapped to lon/lat, the geodesic azimuth between them.
 */
export function axisBearingDeg(row: number, col: number, axisDeg: number, pixelToLonLat: (line: number, pixel: number) => [number, number]): number {
  const a = (axisDeg * Math.PI) / 180;
  const dr = 10 * Math.cos(a);
  const dc = 10 * Math.sin(a);
  const p = pixelToLonLat(row - dr, col - dc);
  const q = pixelToLonLat(row + dr, col + dc);
  const azi = WGS84.Inverse(p[1], p[0], q[1], q[0]).azi1 ?? 0;
  return ((azi % 360) + 360) % 360;
}

/**
 * Distance to shore (m): the Natural Earth coastline's, or — when the detector segmented the
 * scene's own land (the candidate classifier: `sceneLandDistanceM`, capped at 3 km) and found
 * land nearer — that one: NE 1:10m is generalised, and a quay inside a harbour is often far
 * from its outline. null when neither is known.
 */
export function shoreDistanceM(coastlineM: number | null, sceneLandDistanceM: number | undefined): number | null {
  const scene = sceneLandDistanceM !== undefined && sceneLandDistanceM >= 0 && sceneLandDistanceM < LAND_DISTANCE_CAP_M ? sceneLandDistanceM : null;
  if (scene === null) return coastlineM;
  return coastlineM === null ? scene : Math.min(coastlineM, scene);
}

export function vesselProperties(d: ShipDetection, pixelToLonLat: (line: number, pixel: number) => [number, number]): Record<string, number | boolean> {
  const [lon, lat] = pixelToLonLat(d.centroidRow, d.centroidCol);
  const shore = nearestShore(lon, lat);
  const nearest = shoreDistanceM(shore ? shore.distanceM : null, d.sceneLandDistanceM);
  const distance = nearest !== null ? Math.round(nearest) : null;
  // The hull's shape gives its axis, not which end is the bow: 0–180 and ambiguous.
  const heading = axisBearingDeg(d.centroidRow, d.centroidCol, d.attributes.axisDeg, pixelToLonLat) % 180;
  return {
    length_m: Math.round(d.attributes.lengthM),
    width_m: Math.round(d.attributes.widthM),
    heading_deg: (Math.round(heading * 10) / 10) % 180,
    heading_ambiguous: true,
    ...(distance !== null ? { distance_to_shore_m: distance, near_shore: distance <= NEAR_SHORE_M } : {}),
  };
}
