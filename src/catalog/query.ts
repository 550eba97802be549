/**
 * Query matching, ordering and pass de-duplication shared by every catalog adapter and store.
 */
import { bboxOf, intersectAoi } from '../geo/index.ts';
import type { AoiGeometry } from '../geo/types.ts';
import type { SceneQuery, SceneRecord, Timeliness } from './types.ts';

type BBox = [number, number, number, number];

function bbox(g: AoiGeometry): BBox {
  const b = bboxOf(g) as readonly number[];
  return [b[0]!, b[1]!, b[2]!, b[3]!];
}

export function bboxesIntersect(a: AoiGeometry, b: AoiGeometry): boolean {
  const [ax0, ay0, ax1, ay1] = bbox(a);
  const [bx0, by0, bx1, by1] = bbox(b);
  return ax0 <= bx1 && bx0 <= ax1 && ay0 <= by1 && by0 <= ay1;
}

/** Whether two geometries share area (bounding boxes first, then the exact intersection). */
export function geometriesIntersect(a: AoiGeometry, b: AoiGeometry): boolean {
  if (!bboxesIntersect(a, b)) return false;
  return intersectAoi(a, b) !== null;
}

/**
 * Whether a record matches a query. `exact` checks footprint ∩ AOI exactly; otherwise the
 * bounding boxes (what a store may do).
 */
export function matchesQuery(r: SceneRecord, q: SceneQuery, exact = true): boolean {
  const t = Date.parse(r.startTime);
  if (q.start && t < q.start.getTime()) return false;
  if (q.end && t > q.end.getTime()) return false;
  if (q.productTypes && q.productTypes.length > 0 && !q.productTypes.includes(r.productType)) return false;
  if (q.orbitDirection && r.orbitDirection !== q.orbitDirection) return false;
  if (q.intersects) {
    return exact ? geometriesIntersect(r.footprint, q.intersects) : bboxesIntersect(r.footprint, q.intersects);
  }
  return true;
}

export function compareScenes(a: SceneRecord, b: SceneRecord): number {
  const d = Date.parse(a.startTime) - Date.parse(b.startTime);
  if (d !== 0) return d;
  return a.sceneId < b.sceneId ? -1 : a.sceneId > b.sceneId ? 1 : 0;
}

const TIMELINESS_RANK: Record<Timeliness, number> = { NRT: 0, Fast: 1, Standard: 2 };

/** `s1:product_timeliness` / `productTimelinessCategory` → our three classes. */
export function normaliseTimeliness(value: unknown): Timeliness | undefined {
  if (typeof value !== 'string' || value.trim() === '') return undefined;
  const v = value.trim().toLowerCase();
  if (v.startsWith('nrt')) return 'NRT';
  if (v.startsWith('fast')) return 'Fast';
  // Off-line, Reprocessing, Archive, Standard: the final consolidated product.
  return 'Standard';
}

function acquisitionsCoincide(a: SceneRecord, b: SceneRecord): boolean {
  const a0 = Date.parse(a.startTime);
  const a1 = Date.parse(a.stopTime);
  const b0 = Date.parse(b.startTime);
  const b1 = Date.parse(b.stopTime);
  const shorter = Math.min(a1 - a0, b1 - b0);
  const overlap = Math.min(a1, b1) - Math.max(a0, b0);
  // Re-processed versions of one slice start a fraction of a second apart.
  if (shorter <= 2000) return Math.abs(a0 - b0) <= 2000;
  return overlap >= 0.5 * shorter;
}

/**
 * Two records are versions of one pass when platform, product type and orbit agree and
 * their acquisition intervals overlap by at least half of the shorter one (or, for
 * intervals under 2 s, start within 2 s of each other).
 */
export function isSamePass(a: SceneRecord, b: SceneRecord): boolean {
  if (a.platform !== b.platform || a.productType !== b.productType) return false;
  if (a.absoluteOrbit !== null && b.absoluteOrbit !== null) {
    if (a.absoluteOrbit !== b.absoluteOrbit) return false;
  } else if (a.relativeOrbit !== b.relativeOrbit || a.orbitDirection !== b.orbitDirection) {
    return false;
  }
  if (a.frame.burstId && b.frame.burstId && a.frame.burstId !== b.frame.burstId) return false;
  return acquisitionsCoincide(a, b);
}

/**
 * Which of two versions of one pass to keep: best timeliness (Standard > Fast > NRT,
 * unknown counts as Standard: an archive rarely keeps NRT products unlabelled), then more
 * polarisations, then the shorter then smaller scene id (deterministic).
 */
export function preferredVersion(a: SceneRecord, b: SceneRecord): SceneRecord {
  const ta = TIMELINESS_RANK[a.timeliness ?? 'Standard'];
  const tb = TIMELINESS_RANK[b.timeliness ?? 'Standard'];
  if (ta !== tb) return ta > tb ? a : b;
  if (a.polarisations.length !== b.polarisations.length) return a.polarisations.length > b.polarisations.length ? a : b;
  if (a.sceneId.length !== b.sceneId.length) return a.sceneId.length < b.sceneId.length ? a : b;
  return a.sceneId <= b.sceneId ? a : b;
}

/** Reduces NRT / Fast / standard versions of one pass to the preferred one; keeps order. */
export function dedupePasses(records: SceneRecord[]): SceneRecord[] {
  const sorted = [...records].sort(compareScenes);
  const kept: SceneRecord[] = [];
  for (const r of sorted) {
    // Versions of a pass start within seconds of each other: look back only that far.
    let merged = false;
    for (let i = kept.length - 1; i >= 0; i--) {
      const k = kept[i]!;
      if (Date.parse(r.startTime) - Date.parse(k.startTime) > 120_000) break;
      if (isSamePass(k, r)) {
        kept[i] = preferredVersion(k, r);
        merged = true;
        break;
      }
    }
    if (!merged) kept.push(r);
  }
  return kept.sort(compareScenes);
}
