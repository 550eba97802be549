/**
 * One-to-one pairing of detections with AIS vessels (Hungarian assignment, the `munkres`
 * package): a pair is allowed only within `gateM` metres and, when both lengths are known,
 * with lengths within `maxLengthRatio` of each other; among the allowed pairs the assignment
 * minimises the sum of distance / gate plus a length term (|ln ratio| / ln maxLengthRatio,
 * weighted by `lengthWeight`), so a close ship of the wrong size loses to one a little
 * further of the right size.
 */
import geodesic from 'geographiclib-geodesic';
import { munkres } from 'munkres';

const WGS84 = geodesic.Geodesic.WGS84;

/** Detections further than this from every AIS position are dark (m). */
export const DEFAULT_GATE_M = 1500;
/** Longer / shorter of the two lengths, at most. The detector's length error is ~20 m (docs/ship.md). */
export const DEFAULT_MAX_LENGTH_RATIO = 2.5;

export interface AssignOptions {
  gateM?: number;
  maxLengthRatio?: number;
  lengthWeight?: number;
}

export interface Located {
  lon: number;
  lat: number;
  length: number | null;
}

export interface Assignment {
  detection: number;
  vessel: number;
  distanceM: number;
}

/** Pairs, sorted by detection index; every index appears at most once on each side. */
export function assignDetections(detections: readonly Located[], vessels: readonly Located[], opts: AssignOptions = {}): Assignment[] {
  const gate = opts.gateM ?? DEFAULT_GATE_M;
  const maxRatio = opts.maxLengthRatio ?? DEFAULT_MAX_LENGTH_RATIO;
  const lengthWeight = opts.lengthWeight ?? 0.5;
  if (detections.length === 0 || vessels.length === 0) return [];
  // A disallowed pair costs more than any allowed assignment can (each allowed cost ≤ 1 + lengthWeight).
  const forbidden = (1 + lengthWeight) * (Math.min(detections.length, vessels.length) + 1) + 1;
  const distances: number[][] = [];
  const cost: number[][] = [];
  for (const d of detections) {
    const dRow: number[] = [];
    const cRow: number[] = [];
    for (const v of vessels) {
      const m = WGS84.Inverse(d.lat, d.lon, v.lat, v.lon).s12 ?? Infinity;
      dRow.push(m);
      let c = m <= gate ? m / gate : forbidden;
      if (c !== forbidden && d.length !== null && v.length !== null && d.length > 0 && v.length > 0) {
        const ratio = Math.max(d.length, v.length) / Math.min(d.length, v.length);
        c = ratio <= maxRatio ? c + (lengthWeight * Math.log(ratio)) / Math.log(maxRatio) : forbidden;
      }
      cRow.push(c);
    }
    distances.push(dRow);
    cost.push(cRow);
  }
  return munkres(cost)
    .filter(([i, j]) => cost[i]![j]! < forbidden)
    .map(([i, j]) => ({ detection: i, vessel: j, distanceM: distances[i]![j]! }))
    .sort((a, b) => a.detection - b.detection);
}
