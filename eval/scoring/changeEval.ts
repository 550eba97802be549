// Scoring of building-change detections against the ground truth of a generated city stack
// (src/synth writeRtcStack, scene 'city'): per-object precision / recall / F1 and pixel IoU.
// Shared by the tests (test/analysis/change-rtc.test.ts) and `npm run eval` (eval/change.ts).
//
// Rules (docs/change.md, "Measured accuracy"):
// - The changed buildings of a pair (pre date index, post date index) are those that stand
//   on one date and not on the other: appeared (newbuilding) or vanished (disappearbuilding).
// - Targets: changed buildings of at least `minAreaSqm` (default 400 m², geodesic) with at
//   least half their footprint inside the AOI.
// - A target is found (true positive) when a detection overlaps it; a detection overlapping
//   no changed building at all (of any size) is a false alarm; a detection on a changed
//   building smaller than the minimum is neither (as smaller buildings are not required).
// - Pixel IoU on the raster grid: pixels (by centre) of the detections against pixels of the
//   targets; pixels of changed buildings that are not targets are left out of both.

import { readFile } from 'node:fs/promises';
import { aoiPixelEdges, rasterizeAoi } from '../../src/analysis/change/aoiMask.ts';
import { bboxOf, geodesicAreaSqm, intersectAoi, type AoiGeometry } from '../../src/geo/index.ts';

export type ChangeKind = 'newbuilding' | 'disappearbuilding';

export interface TruthBuilding {
  geometry: AoiGeometry;
  properties: { kind: 'building'; id: string; status: string; appear_date: string | null; vanish_date: string | null };
}

export interface BuildingChangeScore {
  /** Changed buildings ≥ the minimum area (and mostly inside the AOI). */
  targets: number;
  truePositives: number;
  falsePositives: number;
  falseNegatives: number;
  precision: number;
  recall: number;
  f1: number;
  /** Detections on changed buildings below the minimum area: neither hit nor false alarm. */
  ignored: number;
}

/** The buildings of a city stack's ground truth file. */
export async function readBuildings(groundTruthPath: string): Promise<TruthBuilding[]> {
  const truth = JSON.parse(await readFile(groundTruthPath, 'utf8')) as { features: Array<{ properties: { kind: string } }> };
  return truth.features.filter((f) => f.properties.kind === 'building') as unknown as TruthBuilding[];
}

export function overlaps(a: AoiGeometry, b: AoiGeometry): boolean {
  const p = bboxOf(a);
  const q = bboxOf(b);
  if (p[2] < q[0] || q[2] < p[0] || p[3] < q[1] || q[3] < p[1]) return false;
  return intersectAoi(a, b) !== null;
}

/** Whether building `b` stands on date index `k` of `dates`. */
export function standsOn(b: TruthBuilding, k: number, dates: readonly string[]): boolean {
  const index = (d: string | null) => (d === null ? null : dates.indexOf(d));
  const a = index(b.properties.appear_date);
  const v = index(b.properties.vanish_date);
  return (a === null || k >= a) && (v === null || k < v);
}

/** Buildings that appeared (newbuilding) or vanished (disappearbuilding) between date indices pre and post. */
export function changedBuildings(buildings: readonly TruthBuilding[], dates: readonly string[], kind: ChangeKind, pre: number, post: number): TruthBuilding[] {
  return buildings.filter((b) =>
    kind === 'newbuilding' ? standsOn(b, post, dates) && !standsOn(b, pre, dates) : standsOn(b, pre, dates) && !standsOn(b, post, dates),
  );
}

/** Changed buildings of at least `minAreaSqm` with at least half their area inside `aoi`. */
export function targetBuildings(changed: readonly TruthBuilding[], aoi: AoiGeometry, minAreaSqm = 400): TruthBuilding[] {
  return changed.filter((b) => {
    const area = geodesicAreaSqm(b.geometry);
    if (area < minAreaSqm) return false;
    const inside = intersectAoi(b.geometry, aoi);
    return !!inside && geodesicAreaSqm(inside) >= 0.5 * area;
  });
}

const r3 = (v: number): number => Math.round(v * 1000) / 1000;

export function prf(tp: number, fp: number, fn: number): { precision: number; recall: number; f1: number } {
  const precision = tp + fp > 0 ? tp / (tp + fp) : 1;
  const recall = tp + fn > 0 ? tp / (tp + fn) : 1;
  const f1 = 2 * tp + fp + fn > 0 ? (2 * tp) / (2 * tp + fp + fn) : 1;
  return { precision: r3(precision), recall: r3(recall), f1: r3(f1) };
}

/** Per-object score of `detections` (the result's polygons) for one pair of dates. */
export function scoreBuildingChange(
  detections: readonly AoiGeometry[],
  buildings: readonly TruthBuilding[],
  pair: { kind: ChangeKind; dates: readonly string[]; pre: number; post: number; aoi: AoiGeometry; minAreaSqm?: number },
): BuildingChangeScore {
  const changed = changedBuildings(buildings, pair.dates, pair.kind, pair.pre, pair.post);
  const targets = targetBuildings(changed, pair.aoi, pair.minAreaSqm);
  const tp = targets.filter((t) => detections.some((d) => overlaps(d, t.geometry))).length;
  let fp = 0;
  let ignored = 0;
  for (const d of detections) {
    if (targets.some((t) => overlaps(d, t.geometry))) continue;
    if (changed.some((t) => overlaps(d, t.geometry))) ignored++;
    else fp++;
  }
  const fn = targets.length - tp;
  return { targets: targets.length, truePositives: tp, falsePositives: fp, falseNegatives: fn, ...prf(tp, fp, fn), ignored };
}

/** The pixel grid the IoU is counted on: the raster's size and its lon/lat → pixel map. */
export interface PixelGrid {
  width: number;
  height: number;
  lonLatToPixel(lon: number, lat: number): { row: number; col: number };
}

/** 1 for the pixels of `grid` whose centre lies in any of `geometries`. */
export function rasterizeGeometries(geometries: readonly AoiGeometry[], grid: PixelGrid): Uint8Array {
  const mask = new Uint8Array(grid.width * grid.height);
  for (const g of geometries) {
    const edges = aoiPixelEdges(g, (lon, lat) => grid.lonLatToPixel(lon, lat));
    const x0 = Math.max(0, Math.floor(edges.minX));
    const y0 = Math.max(0, Math.floor(edges.minY));
    const x1 = Math.min(grid.width - 1, Math.ceil(edges.maxX));
    const y1 = Math.min(grid.height - 1, Math.ceil(edges.maxY));
    if (x1 < x0 || y1 < y0) continue;
    const window = { x0, y0, width: x1 - x0 + 1, height: y1 - y0 + 1 };
    const part = rasterizeAoi(edges, window);
    for (let y = 0; y < window.height; y++) {
      for (let x = 0; x < window.width; x++) if (part[y * window.width + x]) mask[(y + y0) * grid.width + x + x0] = 1;
    }
  }
  return mask;
}

/**
 * Pixel IoU of the detections against the targets of one pair of dates; pixels of changed
 * buildings that are not targets (too small, mostly outside the AOI) count for neither side.
 */
export function pixelIou(
  detections: readonly AoiGeometry[],
  buildings: readonly TruthBuilding[],
  grid: PixelGrid,
  pair: { kind: ChangeKind; dates: readonly string[]; pre: number; post: number; aoi: AoiGeometry; minAreaSqm?: number },
): { iou: number; intersection: number; union: number; truth: number; detected: number } {
  const changed = changedBuildings(buildings, pair.dates, pair.kind, pair.pre, pair.post);
  const targets = targetBuildings(changed, pair.aoi, pair.minAreaSqm);
  const targetIds = new Set(targets.map((t) => t.properties.id));
  const truth = rasterizeGeometries(targets.map((t) => t.geometry), grid);
  const ignore = rasterizeGeometries(changed.filter((b) => !targetIds.has(b.properties.id)).map((b) => b.geometry), grid);
  const found = rasterizeGeometries(detections, grid);
  let intersection = 0;
  let union = 0;
  let truthCount = 0;
  let detected = 0;
  for (let i = 0; i < truth.length; i++) {
    if (ignore[i] && !truth[i]) continue;
    if (truth[i] && found[i]) intersection++;
    if (truth[i] || found[i]) union++;
    if (truth[i]) truthCount++;
    if (found[i]) detected++;
  }
  return { iou: union > 0 ? r3(intersection / union) : 1, intersection, union, truth: truthCount, detected };
}

/** Pairs of changed buildings whose footprints overlap another building (generation check). */
export function changedOverlappingOthers(buildings: readonly TruthBuilding[]): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  const changes = (b: TruthBuilding) => b.properties.appear_date !== null || b.properties.vanish_date !== null;
  for (let i = 0; i < buildings.length; i++) {
    for (let j = i + 1; j < buildings.length; j++) {
      const a = buildings[i]!;
      const b = buildings[j]!;
      if (!changes(a) && !changes(b)) continue;
      if (overlaps(a.geometry, b.geometry)) out.push([a.properties.id, b.properties.id]);
    }
  }
  return out;
}
