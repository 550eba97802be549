/**
 * What the miss diagnoses of the SSDD development chips share (diagnoseInshore.ts: why inshore
 * ships never became candidates; diagnoseOffshore.ts: why the default detector misses offshore
 * ships): the chips with their out-of-fold land mask, the ships' outlines, a ship-free
 * background, the tile's clustering replayed, the eval's matching and the class table.
 * Development chips only: validation chips are never read.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { MATCH_DISTANCE_M, SSDD_DIR, SSDD_PIXEL_M, decodeLuma, greyAmplitudeToSigma0, loadSsddChips, type SsddChip } from '../../eval/shipChips.ts';
import { scoreMatches } from '../../eval/scoring/shipEval.ts';
import type { ShipDetection } from '../../src/analysis/ship/index.ts';
import { clusterDetections, mergeNearbyClusters, type Cluster } from '../../src/analysis/ship/cluster.ts';
import { landMaskOfField, seaLandModel, seaLandProbability, withLandDistance, type SeaLandField } from '../../src/analysis/ship/seaLand.ts';
import { fillRingSpans } from '../../src/raster/canvas.ts';
import { SPACING, chipCells, foldsByRun, runOf, ssddOutlines } from './seaLandData.ts';
import { outOfFoldLandModels } from './oofLand.ts';

export interface DevChip {
  chip: SsddChip;
  width: number;
  height: number;
  sigma0: Float32Array;
  /** The out-of-fold segmenter's field (its model never saw the chip's run) and its land cells as a pixel mask. */
  field: SeaLandField;
  land: Uint8Array;
  /** Ship k's outline pixels hold k, the rest −1. */
  shipId: Int32Array;
}

/**
 * The development chips of one kind, each read with the out-of-fold segmenter's land (the three
 * models cached in `cacheFile` when given: oofLand.ts), one at a time.
 */
export function* devChips(kind: 'inshore' | 'offshore', cacheFile?: string): Generator<DevChip> {
  const outlinesOf = ssddOutlines();
  const all = loadSsddChips().filter((c) => c.split === 'dev');
  const foldOf = foldsByRun(all);
  const landModels = outOfFoldLandModels(all, cacheFile);
  const threshold = seaLandModel().threshold;
  for (const chip of all.filter((c) => c.inshore === (kind === 'inshore'))) {
    const { width: w, height: h } = chip;
    const sigma0 = greyAmplitudeToSigma0(decodeLuma(readFileSync(path.join(SSDD_DIR, 'images', chip.file))).grey);
    const field = withLandDistance(seaLandProbability(chipCells(chip).features, { model: landModels[foldOf.get(runOf(chip))!]! }), SPACING, threshold);
    const shipId = new Int32Array(w * h).fill(-1);
    outlinesOf(chip.file).forEach((rings, k) => fillRingSpans(rings, w, h, (y, xa, xb) => shipId.fill(k, y * w + xa, y * w + xb)));
    yield { chip, width: w, height: h, sigma0, field, land: landMaskOfField(field, w, h, threshold), shipId };
  }
}

/** The eval's matching of `dets` to the chip's ships (eval/shipChips.ts scoreSsdd). */
export function matchChip(chip: SsddChip, dets: ShipDetection[]) {
  const truth = chip.ships.map((s, id) => ({ ...s, certain: true, id }));
  return scoreMatches(dets.length, truth, MATCH_DISTANCE_M / SSDD_PIXEL_M, (d, t) => Math.hypot(dets[d]!.centroidRow - t.row, dets[d]!.centroidCol - t.col));
}

/** `base` less the pixels `out` marks, grown by `grow` px (Chebyshev). */
export function without(base: Uint8Array, out: (i: number) => boolean, w: number, h: number, grow: number): Uint8Array {
  const res = Uint8Array.from(base);
  for (let i = 0; i < base.length; i++) {
    if (!out(i)) continue;
    const r = (i / w) | 0;
    const c = i - r * w;
    for (let rr = Math.max(0, r - grow); rr <= Math.min(h - 1, r + grow); rr++) res.fill(0, rr * w + Math.max(0, c - grow), rr * w + Math.min(w - 1, c + grow) + 1);
  }
  return res;
}

/** `base` less every ship's outline grown by `grow` px: a background no ship raises. */
export const withoutShips = (base: Uint8Array, shipId: Int32Array, w: number, h: number, grow = 2): Uint8Array => without(base, (i) => shipId[i]! >= 0, w, h, grow);

/** Ship `id`'s outline pixels and its brightest one on `target` (−1 when none lies there). */
export function shipPixels(d: DevChip, id: number, target: Uint8Array): { pixels: number[]; peak: number } {
  const pixels: number[] = [];
  for (let i = 0; i < d.shipId.length; i++) if (d.shipId[i] === id) pixels.push(i);
  let peak = -1;
  for (const p of pixels) if (target[p] && (peak < 0 || d.sigma0[p]! > d.sigma0[peak]!)) peak = p;
  return { pixels, peak };
}

/**
 * The tile's clusters of a CFAR (or sea-level) mask, merged within the merge gap as the tile
 * merges them, and the mask with the merge bridges the tile writes into it (a copy).
 */
export function replayClusters(mask: Uint8Array, seeds: ArrayLike<number>, values: Float32Array, w: number, h: number, mergeGapM: number): { clusters: Cluster[]; mask: Uint8Array } {
  const m = Uint8Array.from(mask);
  return { clusters: mergeNearbyClusters(clusterDetections(m, values, w, h, seeds), m, values, w, h, SPACING, mergeGapM), mask: m };
}

/** Detection index holding each pixel of the detections. */
export function pixelOwners(dets: ShipDetection[], w: number): Map<number, number> {
  const owner = new Map<number, number>();
  dets.forEach((d, k) => d.pixels.rows.forEach((r, j) => owner.set(r * w + d.pixels.cols[j]!, k)));
  return owner;
}

/** One missed ship (or false detection) and its class. */
export interface Classed {
  chip: number;
  ship: number;
  cls: string;
  sizePx: number;
  peakOverSeaDb: number;
}

/** Sorted, each class's count over `total`, then its median box and dB (`peakOverSeaDb`, named `dbName`). */
export function printClasses(title: string, rows: Classed[], total: number, cpuStart: NodeJS.CpuUsage, dbName = 'peak over clean sea'): void {
  const u = process.cpuUsage(cpuStart);
  console.log(`${title}; ${((u.user + u.system) / 1e6).toFixed(0)} CPU s`);
  const byClass = new Map<string, Classed[]>();
  for (const d of rows) byClass.set(d.cls, [...(byClass.get(d.cls) ?? []), d]);
  const sorted = [...byClass].sort((a, b) => b[1].length - a[1].length);
  for (const [c, list] of sorted) console.log(`  ${c}: ${list.length} (${(list.length / total).toFixed(3)})`);
  for (const [c, list] of sorted) {
    const sz = list.map((d) => d.sizePx).sort((a, b) => a - b);
    const db = list.map((d) => d.peakOverSeaDb).filter((v) => !Number.isNaN(v)).sort((a, b) => a - b);
    console.log(`  ${c}: median box ${sz[sz.length >> 1]} px, median ${dbName} ${db.length ? db[db.length >> 1]!.toFixed(1) : 'n/a'} dB`);
  }
  if (process.argv.includes('--list')) for (const d of rows) console.log(JSON.stringify(d));
}
