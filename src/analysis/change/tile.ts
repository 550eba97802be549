// Building change in one tile: pure typed arrays in, regions out — no I/O, no geometry
// library, so a worker thread can run it on transferred buffers.
//
// Steps: valid = validPre ∧ validPost (∧ inside the AOI); speckle filter of every band over
// the valid pixels; the model's probability per pixel (model.ts); threshold; 8-connected
// regions; regions below the minimum area dropped; per region the median probability.
//
// Tiles overlap by a halo. A region belongs to the tile whose core holds the pixel of its
// centroid, so a region seen whole by two neighbouring tiles is reported once. A region
// wider than the halo is cut by the tile window (`touchesTileEdge`); with the default halo
// (docs/change.md) that needs change regions over half a kilometre across.

import {
  coefficientsFor,
  confidenceFromProbabilities,
  DEFAULT_CHANGE_MODEL,
  logit,
  logitMap,
  type ChangeKind,
  type ChangeModel,
  type Channels,
  type FeatureInputs,
} from './model.ts';
import { connectedComponents } from '../../raster/components.ts';
import { boxcarFilter, filterSpeckle, SpeckleScratch } from './speckle.ts';
import { defineThreadTasks } from '../../threads/task.ts';

export interface PixelRect {
  x0: number;
  y0: number;
  width: number;
  height: number;
}

export interface BandPair {
  vv?: Float32Array;
  vh?: Float32Array;
}

export interface ChangeTileInput {
  /** Linear intensities (γ0/σ0), row-major `width` × `height`; NaN or invalid where the masks say so. */
  pre: BandPair;
  post: BandPair;
  validPre: Uint8Array;
  validPost: Uint8Array;
  /** Optional: 1 where the pixel centre lies inside the area of interest. */
  inside?: Uint8Array;
  width: number;
  height: number;
  /** Ground pixel size in metres (square pixels), for the minimum area. */
  pixelSizeM: number;
  /** The part of this tile the caller owns (tile-local pixel coordinates). Default: the whole tile. */
  core?: PixelRect;
}

export interface ChangeParams {
  model?: ChangeModel;
  /** Overrides the model's detection threshold (also confidence's lower bound). */
  threshold?: number;
  /** Overrides the model's minimum region area, m². */
  minAreaSqm?: number;
  /** Overrides the model's region log-ratio test, dB. */
  minRegionLogRatioDb?: number;
}

export interface ChangeRegion {
  /** Tile-local pixel indices (row · width + col), ascending. */
  pixels: Int32Array;
  pixelCount: number;
  /** Inclusive pixel bounding box, tile-local. */
  box: { x0: number; y0: number; x1: number; y1: number };
  /** Mean row/column of the pixels (tile-local). */
  centroid: { row: number; col: number };
  /** Mean of 10·log10(after / before) over the region's unfiltered pixels, mean over polarisations (dB). */
  logRatioDb: number;
  /** Median of the probability over the region's pixels (null: none could be read). */
  medianProbability: number | null;
  /** The spec's confidence: the median bounded below by the threshold, null when unreadable. */
  confidence: number | null;
  /** The region reaches the tile window's border: it may continue outside this tile. */
  touchesTileEdge: boolean;
}

export interface ChangeTileResult {
  regions: ChangeRegion[];
  /** Pixels of the core valid in both images (and inside the AOI when given). */
  validCount: number;
  /** The threshold that was applied. */
  threshold: number;
  /** Which coefficient set ran. */
  channels: Channels;
}

export interface ChangeTileOptions {
  kind: ChangeKind;
  params?: ChangeParams;
  /** Reusable buffers (one per worker). */
  scratch?: SpeckleScratch;
}

/** One scratch per thread for tile tasks (worker threads run one task at a time). */
let taskScratch: SpeckleScratch | null = null;

/**
 * detectChangeInTile as a worker-pool task (src/analysis/engine): the same, with this
 * thread's reusable buffers.
 */
export function detectChangeTileTask(input: ChangeTileInput, options: Omit<ChangeTileOptions, 'scratch'>): ChangeTileResult {
  taskScratch ??= new SpeckleScratch();
  return detectChangeInTile(input, { ...options, scratch: taskScratch });
}

export function channelsOf(pre: BandPair, post: BandPair): Channels | null {
  const vv = !!(pre.vv && post.vv);
  const vh = !!(pre.vh && post.vh);
  return vv && vh ? 'dual' : vv ? 'vv' : vh ? 'vh' : null;
}

export function detectChangeInTile(input: ChangeTileInput, options: ChangeTileOptions): ChangeTileResult {
  const { width, height } = input;
  const n = width * height;
  for (const [name, arr] of [
    ['validPre', input.validPre],
    ['validPost', input.validPost],
    ['inside', input.inside],
    ['pre.vv', input.pre.vv],
    ['pre.vh', input.pre.vh],
    ['post.vv', input.post.vv],
    ['post.vh', input.post.vh],
  ] as const) {
    if (arr && arr.length !== n) throw new RangeError(`detectChangeInTile: ${name} has ${arr.length} values for ${width} × ${height}`);
  }
  const model = options.params?.model ?? DEFAULT_CHANGE_MODEL;
  const threshold = options.params?.threshold ?? model.threshold;
  const minAreaSqm = options.params?.minAreaSqm ?? model.minAreaSqm;
  const core = input.core ?? { x0: 0, y0: 0, width, height };
  const scratch = options.scratch ?? new SpeckleScratch();
  const { inputs, valid, channels } = prepareFeatures(input, options.kind, model, scratch);
  let validCount = 0;
  for (let y = core.y0; y < core.y0 + core.height; y++) {
    for (let x = core.x0; x < core.x0 + core.width; x++) validCount += valid[y * width + x]!;
  }
  // Thresholding p ≥ t is thresholding the linear predictor z ≥ logit(t): no exp per pixel.
  const z = logitMap(inputs, valid, coefficientsFor(model, channels), scratch.f32('logit', width * height));
  const minPixels = Math.max(1, model.minRegionPixels, Math.ceil(minAreaSqm / (input.pixelSizeM * input.pixelSizeM) - 1e-9));
  const minLogRatio = options.params?.minRegionLogRatioDb ?? model.minRegionLogRatioDb;
  const [before, after] = options.kind === 'disappearbuilding' ? [input.post, input.pre] : [input.pre, input.post];
  const bandPairs: Array<[Float32Array, Float32Array]> = [];
  if (channels !== 'vh') bandPairs.push([before.vv!, after.vv!]);
  if (channels !== 'vv') bandPairs.push([before.vh!, after.vh!]);
  // Mean over pixels of the unfiltered log-ratio (a geometric-mean ratio): a stable bright
  // pixel swept into the region counts as one pixel with ≈ 0 dB, where in a ratio of sums it
  // would dominate both sums.
  const pooled = (pixels: Int32Array): number => {
    let total = 0;
    for (const [b, a] of bandPairs) {
      let s = 0;
      let k = 0;
      for (let q = 0; q < pixels.length; q++) {
        const va = a[pixels[q]!]!;
        const vb = b[pixels[q]!]!;
        if (va > 0 && vb > 0 && va < Infinity && vb < Infinity) {
          s += Math.log(va / vb);
          k++;
        }
      }
      total += k ? (10 / Math.LN10) * (s / k) : Number.NaN;
    }
    return total / bandPairs.length;
  };
  const regions = labelRegions(z, width, height, threshold, minPixels, core, pooled, scratch).filter((r) => r.logRatioDb >= minLogRatio);
  return { regions, validCount, threshold, channels };
}

/**
 * The model's inputs for one tile: the joint validity mask, and the speckle-filtered bands
 * and local backgrounds in model order ("before"/"after": a vanished building is an
 * appeared one with time reversed). Shared with calibration, so both see the same features.
 */
export function prepareFeatures(
  input: ChangeTileInput,
  kind: ChangeKind,
  model: ChangeModel = DEFAULT_CHANGE_MODEL,
  scratch: SpeckleScratch = new SpeckleScratch(),
): { inputs: FeatureInputs; valid: Uint8Array; channels: Channels } {
  const { width, height } = input;
  const n = width * height;
  const channels = channelsOf(input.pre, input.post);
  if (!channels) throw new RangeError('detectChangeInTile: VV or VH is needed in both images');
  // Buffers come from the scratch: a worker reuses them tile after tile.
  scratch.resetCounts();
  const valid = scratch.u8('valid', n);
  const inside = input.inside;
  for (let i = 0; i < n; i++) valid[i] = input.validPre[i]! & input.validPost[i]! & (inside ? inside[i]! : 1);

  const [before, after] = kind === 'disappearbuilding' ? [input.post, input.pre] : [input.pre, input.post];
  const useVv = channels !== 'vh';
  const useVh = channels !== 'vv';
  const filtered = (name: string, band: Float32Array | undefined, use: boolean): Float32Array | undefined =>
    use && band ? filterSpeckle(band, valid, width, height, model.filter, scratch.f32(name, n), scratch) : undefined;
  const background = (name: string, band: Float32Array | undefined, use: boolean): Float32Array | undefined =>
    use && band && model.backgroundRadius > 0
      ? boxcarFilter(band, valid, width, height, model.backgroundRadius, scratch.f32(name, n), scratch)
      : undefined;
  const inputs: FeatureInputs = {
    beforeVv: filtered('beforeVv', before.vv, useVv),
    afterVv: filtered('afterVv', after.vv, useVv),
    backgroundVv: background('backgroundVv', after.vv, useVv),
    beforeVh: filtered('beforeVh', before.vh, useVh),
    afterVh: filtered('afterVh', after.vh, useVh),
    backgroundVh: background('backgroundVh', after.vh, useVh),
  };
  return { inputs, valid, channels };
}

/** 8-connected regions of p ≥ threshold (z ≥ logit(threshold)) whose centroid pixel lies in `core`. */
function labelRegions(
  z: Float32Array,
  width: number,
  height: number,
  threshold: number,
  minPixels: number,
  core: PixelRect,
  pooledLogRatio: (pixels: Int32Array) => number,
  scratch: SpeckleScratch,
): ChangeRegion[] {
  const n = width * height;
  const zThreshold = logit(threshold);
  const above = scratch.u8('above', n);
  for (let i = 0; i < n; i++) above[i] = z[i]! >= zThreshold ? 1 : 0;
  const components = connectedComponents(above, width, height, { connectivity: 8, scratch: scratch.components });
  const regions: ChangeRegion[] = [];
  for (let k = 0; k < components.count; k++) {
    const members = components.pixels.subarray(components.offsets[k]!, components.offsets[k + 1]!);
    const count = members.length;
    let x0 = width;
    let y0 = height;
    let x1 = -1;
    let y1 = -1;
    let sumRow = 0;
    let sumCol = 0;
    for (const p of members) {
      const row = (p / width) | 0;
      const col = p - row * width;
      sumRow += row;
      sumCol += col;
      if (col < x0) x0 = col;
      if (col > x1) x1 = col;
      if (row < y0) y0 = row;
      if (row > y1) y1 = row;
    }
    if (count < minPixels) continue;
    const centroid = { row: sumRow / count, col: sumCol / count };
    const cr = Math.round(centroid.row);
    const cc = Math.round(centroid.col);
    if (cr < core.y0 || cr >= core.y0 + core.height || cc < core.x0 || cc >= core.x0 + core.width) continue;
    const pixels = members.slice().sort();
    const probs = new Float32Array(count);
    for (let j = 0; j < count; j++) probs[j] = 1 / (1 + Math.exp(-z[pixels[j]!]!));
    const confidence = confidenceFromProbabilities(probs, threshold);
    regions.push({
      pixels,
      pixelCount: count,
      box: { x0, y0, x1, y1 },
      centroid,
      logRatioDb: pooledLogRatio(pixels),
      medianProbability: confidence === null ? null : median(probs),
      confidence,
      touchesTileEdge: x0 === 0 || y0 === 0 || x1 === width - 1 || y1 === height - 1,
    });
  }
  return regions;
}

function median(values: Float32Array): number {
  const sorted = Float32Array.from(values).sort();
  const m = sorted.length >> 1;
  return sorted.length % 2 ? sorted[m]! : (sorted[m - 1]! + sorted[m]!) / 2;
}

/** What the analysis pool may run of this module (src/threads/task.ts). */
export const threadTasks = defineThreadTasks(import.meta.url, { detectChangeTileTask });
