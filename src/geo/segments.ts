// Candidate pairs of segments whose bounding boxes meet, by a sweep along x. For rings
// drawn by people or traced from masks the active set stays small, so this is close to
// O(n log n); the adversarial worst case (thousands of long parallel edges) is O(n²) with
// a cheap bbox test per pair, still fast at the ~10k vertices the request size allows.

import type { Position } from './types.ts';

export interface Segment {
  a: Position;
  b: Position;
  /** Index of the ring the segment belongs to (caller-defined). */
  ring: number;
  /** Index of the segment within its ring. */
  index: number;
  minx: number;
  maxx: number;
  miny: number;
  maxy: number;
}

export function makeSegment(a: Position, b: Position, ring: number, index: number): Segment {
  return {
    a,
    b,
    ring,
    index,
    minx: Math.min(a[0], b[0]),
    maxx: Math.max(a[0], b[0]),
    miny: Math.min(a[1], b[1]),
    maxy: Math.max(a[1], b[1]),
  };
}

/**
 * Calls `visit` for every pair of segments whose closed bounding boxes intersect, until
 * `visit` returns true (found what it was looking for). Returns whether it was stopped.
 */
export function sweepSegmentPairs(segments: Segment[], visit: (s: Segment, t: Segment) => boolean): boolean {
  const sorted = segments.slice().sort((s, t) => s.minx - t.minx);
  const active: Segment[] = [];
  for (const s of sorted) {
    let kept = 0;
    for (let i = 0; i < active.length; i++) {
      const t = active[i]!;
      if (t.maxx < s.minx) continue; // leaves the sweep line for good
      active[kept++] = t;
      if (t.maxy >= s.miny && t.miny <= s.maxy && visit(t, s)) return true;
    }
    active.length = kept;
    active.push(s);
  }
  return false;
}
