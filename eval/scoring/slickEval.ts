/** Scoring of oil-slick detections against ground-truth outlines, shared by the generated evaluations. */
import { geodesicAreaSqm } from '../../src/geo/area.ts';
import { intersectAoi, unionAoi } from '../../src/geo/clip.ts';
import type { Polygon } from '../../src/geo/types.ts';

/** Issue 11's targets for the generated oil-slick evaluations: mean IoU (misses as 0), look-alikes flagged. */
export const GENERATED_SLICK_TARGETS = { meanIou: 0.7, lookAlikesFlagged: 0 } as const;

/** Geodesic IoU of a truth outline with the detections that touch it (0 when none do). */
export function iou(a: Polygon, hits: Polygon[]): number {
  if (hits.length === 0) return 0;
  let inter = 0;
  for (const g of hits) {
    const x = intersectAoi(a, g);
    if (x) inter += geodesicAreaSqm(x);
  }
  const union = unionAoi([a, ...hits]);
  return union ? inter / geodesicAreaSqm(union) : 0;
}

/** Whether a detection touches a truth outline. */
export const overlaps = (a: Polygon, b: Polygon): boolean => intersectAoi(a, b) !== null;
