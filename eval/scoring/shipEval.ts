// Scoring of ship detections against point ground truth, shared by the tests and the
// measurements quoted in docs/ship.md.

import { readFileSync } from 'node:fs';
import geodesic from 'geographiclib-geodesic';

export interface TruthPoint {
  lon: number;
  lat: number;
  /** false: a possible target that counts neither as hit nor as false alarm when detected. */
  certain: boolean;
  id?: number;
}

/** A point ground truth file (GeoJSON Points with `id` and `certain`, e.g. the North-Sea crop's ships-ground-truth.geojson). */
export function readTruthPoints(file: string): TruthPoint[] {
  const fc = JSON.parse(readFileSync(file, 'utf8')) as { features: Array<{ geometry: { coordinates: [number, number] }; properties: { id: number; certain: boolean } }> };
  return fc.features.map((f) => ({ lon: f.geometry.coordinates[0], lat: f.geometry.coordinates[1], certain: f.properties.certain, id: f.properties.id }));
}

export interface Score {
  truePositives: number;
  falsePositives: number;
  falseNegatives: number;
  /** Detections matched to uncertain targets (ignored). */
  ignored: number;
  precision: number;
  recall: number;
  f1: number;
  /** Ids of certain targets that were missed, indices of false detections. */
  missed: Array<number | undefined>;
  falseAlarms: number[];
}

const WGS84 = geodesic.Geodesic.WGS84;

export function distanceM(a: [number, number], b: [number, number]): number {
  return WGS84.Inverse(a[1], a[0], b[1], b[0]).s12 ?? Infinity;
}

/**
 * Greedy one-to-one matching by distance (closest pairs first) within `maxDistanceM`;
 * certain targets are matched before uncertain ones, so a detection on a certain vessel is
 * never spent on a nearby uncertain one.
 */
export function scoreDetections(detections: Array<[number, number]>, truth: TruthPoint[], maxDistanceM = 100): Score {
  return scoreMatches(detections.length, truth, maxDistanceM, (det, t) => distanceM(detections[det]!, [t.lon, t.lat]));
}

/**
 * The same matching in any plane (e.g. image pixels of a chip without georeferencing):
 * `distance(det, truth)` in the unit of `maxDistance`.
 */
export function scoreMatches<T extends Pick<TruthPoint, 'certain' | 'id'>>(detectionCount: number, truth: T[], maxDistance: number, distance: (det: number, t: T) => number): Score {
  const pairs: Array<{ d: number; det: number; t: number; certain: boolean }> = [];
  for (let det = 0; det < detectionCount; det++)
    truth.forEach((t, ti) => {
      const d = distance(det, t);
      if (d <= maxDistance) pairs.push({ d, det, t: ti, certain: t.certain });
    });
  pairs.sort((a, b) => Number(b.certain) - Number(a.certain) || a.d - b.d);
  const detUsed = new Set<number>();
  const truthUsed = new Set<number>();
  let tp = 0;
  let ignored = 0;
  for (const p of pairs) {
    if (detUsed.has(p.det) || truthUsed.has(p.t)) continue;
    detUsed.add(p.det);
    truthUsed.add(p.t);
    if (p.certain) tp++;
    else ignored++;
  }
  const certain = truth.filter((t) => t.certain).length;
  const falseAlarms: number[] = [];
  for (let i = 0; i < detectionCount; i++) if (!detUsed.has(i)) falseAlarms.push(i);
  const fp = falseAlarms.length;
  const fn = certain - tp;
  const precision = tp + fp > 0 ? tp / (tp + fp) : 1;
  const recall = certain > 0 ? tp / certain : 1;
  const f1 = precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0;
  const missed = truth.filter((t, i) => t.certain && !truthUsed.has(i)).map((t) => t.id);
  return { truePositives: tp, falsePositives: fp, falseNegatives: fn, ignored, precision, recall, f1, missed, falseAlarms };
}
