// Ship detection in one tile: pure, on typed arrays and plain objects, so it runs unchanged on
// a worker thread (src/analysis/engine runs `ship/tile.ts#detectShipsInTile`). It reads nothing:
// sceneTile.ts reads a tile into its input. Algorithm: docs/ship.md.

import type { PixelWindow } from '../../imagery/window.ts';
import { vesselAttributes, vesselShape, type VesselAttributes } from './attributes.ts';
import { calibrateDnInPlace, type TileCalibration } from './calibrate.ts';
import { CANDIDATE_FEATURES, candidateFeatures, candidateModel, candidateProbability, candidateThreshold } from './classifier.ts';
import { CfarScratch, cfarDetect, cfarWindows, type CfarOptions, type CfarResult } from './cfar.ts';
import { clusterDetections, measureCluster, mergeNearbyClusters, splitCluster, type Cluster } from './cluster.ts';
import { pixelClusters } from './pixelClassifier.ts';
import { resolveShipParams, type ShipParams, type ShipParamsInput } from './params.ts';
import { levelAt, markAboveSeaLevel, seaLevel, type SeaLevel } from './seaLevel.ts';
import { deferredSeaLandField, landMaskOfField, releaseSeaLandField, withLandDistance, type SeaLandField } from './seaLand.ts';
import { inNearShoreBand, nearShoreBand } from './nearShore.ts';
import { findSidelobeArms } from './sidelobes.ts';
import { defineThreadTasks } from '../../threads/task.ts';
import type { BlockGrid } from '../port.ts';
import { poolDn2, type PooledPart } from '../common/quicklookCopy.ts';

export type Channel = 'VH' | 'VV';

const LAND_DISTANCE = CANDIDATE_FEATURES.indexOf('landDistanceM');

// One set of CFAR buffers per channel and thread, reused tile after tile.
const scratch: Record<Channel, CfarScratch> = { VH: new CfarScratch(), VV: new CfarScratch() };
let targetScratch = new Uint8Array(0);
let maskScratch = new Uint8Array(0);
let levelMaskScratch = new Uint8Array(0);

export interface ShipTileInput {
  /** Calibrated σ0 (linear), row-major width × height. `vh` holds the cross-pol channel (VH or HV), `vv` the co-pol (VV or HH). */
  sigma0: { vh?: Float32Array; vv?: Float32Array };
  /** 1 where the pixel has data (in every channel given). */
  valid: Uint8Array;
  /** 1 on land (incl. the shore buffer): neither target nor background. */
  land?: Uint8Array;
  /**
   * `land` without the shore buffer (Natural Earth's land alone): the near-shore classifier
   * path's mask, the scene segmenter's land added to it. The trees were fitted on chips masked
   * by real land only: a hull the buffer's edge cuts is read as a quay's end. Default `land`.
   */
  landUnbuffered?: Uint8Array;
  width: number;
  height: number;
  /** Metres between columns (range) and between rows (azimuth). */
  pixelSpacing: { range: number; azimuth: number };
  /** The part of the tile this tile owns (tile-local): only detections whose centroid lies in it are returned. */
  core: PixelWindow;
  /** Full-image (row, col) of the tile's pixel (0, 0); detections are reported in full-image coordinates. Default (0, 0). */
  origin?: { row: number; col: number };
  /**
   * When given, the channels named here hold DN (read with quantity 'dn') and are calibrated
   * to σ0 in place first (calibrate.ts: the main thread only decodes); the arrays hold σ0
   * afterwards, so such an input is used once (the near-shore path may then also cut its window
   * into them: cropTile). Default: `sigma0` holds σ0.
   */
  calibrate?: { vh?: TileCalibration; vv?: TileCalibration };
  /**
   * The quicklook's blocks (quicklook/index.ts quicklookBlockGrid): when given and the primary channel holds DN
   * (`calibrate`), detectShipsInTileWithSources also returns the core's DN² sums per block.
   */
  quicklookBlocks?: BlockGrid;
}

/** Calibrate the DN channels of `input` in place (see ShipTileInput.calibrate); returns the input as σ0. */
function calibrated(input: ShipTileInput): ShipTileInput {
  const cal = input.calibrate;
  if (!cal) return input;
  const y0 = input.origin?.row ?? 0;
  if (cal.vh && input.sigma0.vh) calibrateDnInPlace(input.sigma0.vh, input.valid, input.width, input.height, y0, cal.vh);
  if (cal.vv && input.sigma0.vv) calibrateDnInPlace(input.sigma0.vv, input.valid, input.width, input.height, y0, cal.vv);
  const { calibrate: _, ...rest } = input;
  return rest;
}

export interface ShipDetection {
  /** The vessel's pixels (full-image row/col): detected pixels and the extent pixels connected to them. */
  pixels: { rows: Int32Array; cols: Int32Array };
  centroidRow: number;
  centroidCol: number;
  peakRow: number;
  peakCol: number;
  /** Peak σ0 (linear) in the detection channel. */
  peak: number;
  /** Mean σ0 of the censored background ring around the peak. */
  background: number;
  /** 10·log10(peak / background). */
  contrastDb: number;
  lengthM: number;
  widthM: number;
  diagonalM: number;
  /** Principal axis, degrees from the azimuth (row) axis towards range, [0, 180). */
  orientationDeg: number;
  /** Channels in which the vessel has detected pixels. */
  channels: Channel[];
  /** Estimated hull length, width and axis (attributes.ts), fitted to AIS: the result's length_m, width_m, heading_deg. */
  attributes: VesselAttributes;
  /** With the candidate classifier on (params.classifier): its features and probability (NaN with threshold 0, when no model is read). */
  candidate?: { features: number[]; probability: number };
  /**
   * With the candidate classifier ('threshold' candidates): distance (m) from the peak's 20 m
   * cell to the nearest land cell of the scene's own sea/land segmentation (seaLand.ts), capped
   * at LAND_DISTANCE_CAP_M (3 km: "at least"). vesselProperties.ts takes it as the distance to
   * shore when it is nearer than the coastline's.
   */
  sceneLandDistanceM?: number;
}

/** Halo (pixels) a tile needs so that every detection it owns is decided exactly as on the whole image. */
export function requiredHalo(params: ShipParams, spacing: { range: number; azimuth: number }): number {
  const w = cfarWindows(params, spacing);
  const minSpacing = Math.min(spacing.range, spacing.azimuth);
  const maxExtent = Math.ceil((Math.max(params.maxDiagonalM, params.maxLengthM) + params.mergeGapM) / minSpacing);
  const arm = params.sidelobes.enabled ? Math.ceil(params.sidelobes.armLengthM / minSpacing) : 0;
  const background = Math.max(w.background.rows, w.background.cols);
  // A pixel's decision depends on its ring (background) and on the first-pass detections in it,
  // which depend on their rings in turn: two background half-widths, plus the censor growth.
  // +4: rings are snapped to 2-pixel blocks (up to a pixel wider) and clusters are 8-connected.
  // Pass 2 also censors first-pass objects as large as the smallest vessel (cfar.ts
  // censoredObjects), a size that depends on a whole component: one that reaches a core pixel's
  // ring and is cut by the tile's edge spans the exact part of the halo, maxExtent pixels and more,
  // which is above minDiagonalM (maxDiagonalM > minDiagonalM) — it is censored in the tile as in
  // the whole image, so no more halo is needed.
  return maxExtent + arm + 2 * background + params.censorDilationPx + 4;
}

/** The CFAR's object censoring sizes (cfar.ts CfarOptions.censorObjectPx): the smallest and the largest vessel, in pixels per axis. */
export function censorObjectPx(params: ShipParams, spacing: { range: number; azimuth: number }): NonNullable<CfarOptions['censorObjectPx']> {
  const px = (m: number) => ({ rows: m / spacing.azimuth, cols: m / spacing.range });
  return { min: px(params.minDiagonalM), max: px(Math.max(params.maxDiagonalM, params.maxLengthM)) };
}

function channelsFor(input: ShipTileInput, params: ShipParams): Channel[] {
  const has = { VH: !!input.sigma0.vh, VV: !!input.sigma0.vv };
  if (!has.VH && !has.VV) throw new RangeError('detectShipsInTile: no σ0 channel given');
  switch (params.polarisation) {
    case 'VH':
      if (!has.VH) throw new RangeError('detectShipsInTile: polarisation VH requested but not given');
      return ['VH'];
    case 'VV':
      if (!has.VV) throw new RangeError('detectShipsInTile: polarisation VV requested but not given');
      return ['VV'];
    case 'both':
      return has.VH && has.VV ? ['VH', 'VV'] : has.VH ? ['VH'] : ['VV'];
    default:
      return has.VH ? ['VH'] : ['VV'];
  }
}

/**
 * target = valid and not land (0/1 bytes; `out` may be `valid` itself when there is no land);
 * returns the number of target pixels. Four pixels at a time where the arrays are 4-byte
 * aligned.
 */
function targetMask(valid: Uint8Array, land: Uint8Array | undefined, out: Uint8Array): number {
  const n = valid.length;
  let count = 0;
  let i = 0;
  if (valid.byteOffset % 4 === 0 && out.byteOffset % 4 === 0 && (!land || land.byteOffset % 4 === 0)) {
    const words = n >>> 2;
    const v32 = new Uint32Array(valid.buffer, valid.byteOffset, words);
    if (land) {
      const l32 = new Uint32Array(land.buffer, land.byteOffset, words);
      const o32 = new Uint32Array(out.buffer, out.byteOffset, words);
      for (let k = 0; k < words; k++) {
        const t = v32[k]! & (l32[k]! ^ 0x01010101);
        o32[k] = t;
        count += Math.imul(t, 0x01010101) >>> 24; // the sum of its four 0/1 bytes
      }
    } else {
      for (let k = 0; k < words; k++) count += Math.imul(v32[k]!, 0x01010101) >>> 24;
    }
    i = words * 4;
  }
  for (; i < n; i++) {
    const t = land ? valid[i]! & (land[i]! ^ 1) : valid[i]!;
    if (land) out[i] = t;
    count += t;
  }
  return count;
}

/**
 * Detect vessels in one tile. Pure: typed arrays and plain objects in and out (transferable to
 * and from a worker thread). Returns only the detections this tile owns (centroid in `core`).
 *
 * Near shore (params.nearShore — off in the detector's defaults, on in ship jobs by default — with the classifier not enabled everywhere): when
 * the tile's land mask has a coast, the candidates whose peak lies within nearShore.distanceM of
 * it (nearShore.ts; or within that distance of the scene segmenter's land) are judged by the
 * candidate classifier — CFAR at the candidate PFA, sea-level candidates, splitLarge, the
 * segmenter's land cells added to the tile's land mask, the trees; everything else by the
 * default detector, unchanged. A ship found by both across the band's edge is reported once
 * (the default detector's, whose peak lies outside the band). Tiles without a coast near their
 * core run the default detector alone.
 */
export function detectShipsInTile(tileInput: ShipTileInput, paramsInput: ShipParamsInput | ShipParams = {}): ShipDetection[] {
  return detectInCalibratedTile(calibrated(tileInput), paramsInput, ownChannels(tileInput));
}

/**
 * The channels a call calibrated itself (ShipTileInput.calibrate): its own, used once, so the
 * near-shore path may cut its window into them (cropTile).
 */
const ownChannels = (tileInput: ShipTileInput) => ({ vh: !!tileInput.calibrate?.vh, vv: !!tileInput.calibrate?.vv });

/** detectShipsInTile on σ0 (calibrated), `own` the channels it may overwrite. */
function detectInCalibratedTile(input: ShipTileInput, paramsInput: ShipParamsInput | ShipParams, own: { vh: boolean; vv: boolean }): ShipDetection[] {
  const params = resolveShipParams(paramsInput);
  const { land, width: w, height: h } = input;
  const near = params.nearShore.enabled && !params.classifier.enabled && land && land.length === w * h;
  const band = near ? nearShoreBand(land, input.valid, w, h, input.pixelSpacing, params.nearShore.distanceM, input.core, NEAR_SHORE_MARGIN_M) : null;
  const found = detectInTile(input, params);
  if (!band?.reachesCore) return found;
  const origin = input.origin ?? { row: 0, col: 0 };
  // Full-image pixel → in the band. A classifier candidate peaked there is judged at the model's
  // near-shore threshold whatever the segmenter's distance reads (classifier.ts candidateThreshold).
  const bandAt = (row: number, col: number) => inNearShoreBand(band, row - origin.row, col - origin.col);
  const inBand = (d: ShipDetection) => bandAt(d.peakRow, d.peakCol);
  const open = found.filter((d) => !inBand(d));
  // The classifier path looks only at the band's sea and a margin around it (the segmenter's
  // field is most of its cost: docs/ship.md "Near shore").
  // A channel the call calibrated is its own (used once, ShipTileInput.calibrate): cut in place.
  // Its land is the mask without the shore buffer (ShipTileInput.landUnbuffered).
  const part = cropTile(input.landUnbuffered ? { ...input, land: input.landUnbuffered } : input, band.window, own);
  const coastal = (part ? detectInTile(part, { ...params, classifier: { ...params.classifier, enabled: true, candidates: 'threshold', sceneLandMask: true } }, bandAt) : []).filter((d) => inBand(d) || (d.sceneLandDistanceM ?? Infinity) <= params.nearShore.distanceM);
  if (coastal.length === 0) return open;
  // The seam: a classifier detection sharing a pixel with a default one kept outside the band
  // is the same ship (its peak fell inside, or by the segmenter's land), reported once.
  const taken = new Set<number>();
  for (const d of open) for (let k = 0; k < d.pixels.rows.length; k++) taken.add(d.pixels.rows[k]! * SEAM_KEY + d.pixels.cols[k]!);
  const fresh = coastal.filter((d) => {
    for (let k = 0; k < d.pixels.rows.length; k++) if (taken.has(d.pixels.rows[k]! * SEAM_KEY + d.pixels.cols[k]!)) return false;
    return true;
  });
  return [...open, ...fresh];
}

/**
 * Margin (m) of the classifier path's window around the band's sea: the segmenter's land
 * distance reaches 3 km (seaLand.ts LAND_DISTANCE_CAP_M), its windows and the CFAR ring less.
 */
const NEAR_SHORE_MARGIN_M = 3000;

/**
 * `input` cut to `win` (tile-local; arrays copied, but the channels `inPlace` names cut into the
 * start of their own array, which then holds the window: no second copy of the window's σ0 —
 * ≈ 35–47 MB per coastal window of a scene), its core cut to the window and shifted, its
 * origin moved; null when the window holds none of the core. A side where the window cuts the
 * core counts as an image edge in detectInTile; what lies there is ≥ the margin from the band.
 */
function cropTile(input: ShipTileInput, win: { x0: number; y0: number; width: number; height: number }, inPlace: { vh?: boolean; vv?: boolean } = {}): ShipTileInput | null {
  const { core, width: w } = input;
  const x0 = Math.max(core.x0, win.x0);
  const y0 = Math.max(core.y0, win.y0);
  const x1 = Math.min(core.x0 + core.width, win.x0 + win.width);
  const y1 = Math.min(core.y0 + core.height, win.y0 + win.height);
  if (x1 <= x0 || y1 <= y0) return null;
  if (win.x0 === 0 && win.y0 === 0 && win.width === w && win.height === input.height) return input;
  const cut = <T extends Float32Array | Uint8Array>(a: T): T => {
    const out = new (a.constructor as new (n: number) => T)(win.width * win.height);
    for (let r = 0; r < win.height; r++) out.set(a.subarray((win.y0 + r) * w + win.x0, (win.y0 + r) * w + win.x0 + win.width), r * win.width);
    return out;
  };
  // Row r moves from (win.y0 + r) · w + win.x0 to r · win.width, never later in the array: in row order nothing is overwritten before it is read.
  const cutInPlace = (a: Float32Array): Float32Array => {
    for (let r = 0; r < win.height; r++) a.copyWithin(r * win.width, (win.y0 + r) * w + win.x0, (win.y0 + r) * w + win.x0 + win.width);
    return a.subarray(0, win.width * win.height);
  };
  const channel = (a: Float32Array, own?: boolean) => (own ? cutInPlace(a) : cut(a));
  const origin = input.origin ?? { row: 0, col: 0 };
  return {
    sigma0: { ...(input.sigma0.vh ? { vh: channel(input.sigma0.vh, inPlace.vh) } : {}), ...(input.sigma0.vv ? { vv: channel(input.sigma0.vv, inPlace.vv) } : {}) },
    valid: cut(input.valid),
    ...(input.land ? { land: cut(input.land) } : {}),
    width: win.width,
    height: win.height,
    pixelSpacing: input.pixelSpacing,
    core: { x0: x0 - win.x0, y0: y0 - win.y0, width: x1 - x0, height: y1 - y0 },
    origin: { row: origin.row + win.y0, col: origin.col + win.x0 },
  };
}

/** Full-image pixel (row, col) → row · SEAM_KEY + col: columns of an S-1 GRD stay far below it. */
const SEAM_KEY = 1 << 20;

/**
 * detectShipsInTile on a calibrated input with resolved parameters, one detector configuration.
 * `inBand` (the near-shore path): whether a full-image pixel lies in the near-shore band, so a
 * candidate peaked there gets the model's near-shore threshold.
 */
function detectInTile(input: ShipTileInput, params: ShipParams, inBand?: (row: number, col: number) => boolean): ShipDetection[] {
  const { width: w, height: h, valid, pixelSpacing: spacing, core } = input;
  let land = input.land;
  const n = w * h;
  if (valid.length !== n || (land && land.length !== n)) throw new RangeError('detectShipsInTile: mask sizes do not match width × height');
  const origin = input.origin ?? { row: 0, col: 0 };
  const channels = channelsFor(input, params);
  // The scene's own sea/land segmentation (seaLand.ts) on the valid pixels: the candidate
  // classifier's land features, and with sceneLandMask (opt-in) its land cells are land too.
  let landField: SeaLandField | null = null;
  if (params.classifier.enabled && params.classifier.candidates === 'threshold' && params.classifier.sceneLandMask) {
    const values = (channels[0] === 'VH' ? input.sigma0.vh : input.sigma0.vv)!;
    if (values.length === n) {
      // Cells the sea screen proves sea skip the trees until a candidate reads them (seaLand.ts),
      // and so do the cells beyond the distance cap (and a margin) from every valid pixel off
      // the tile's land mask: candidates lie on those pixels, so nothing they read changes.
      let anchor = valid;
      if (land) {
        if (targetScratch.length < n) targetScratch = new Uint8Array(n);
        anchor = targetScratch.subarray(0, n);
        targetMask(valid, land, anchor);
      }
      landField = withLandDistance(deferredSeaLandField(values, valid, w, h, spacing, undefined, anchor), spacing);
      land = landMaskOfField(landField, w, h, undefined, land);
    }
  }

  let target = valid;
  if (land) {
    if (targetScratch.length < n) targetScratch = new Uint8Array(n);
    target = targetScratch.subarray(0, n);
  }
  const targets = targetMask(valid, land, target);
  // All land or no data (inland tiles, the no-data border of a scene): nothing to look at.
  if (targets === 0) {
    if (landField) releaseSeaLandField(landField);
    return [];
  }

  const windows = cfarWindows(params, spacing);
  const classify = params.classifier.enabled;
  // Threshold 0 keeps every candidate with its features (fitting, training/ship/): no model read.
  const model = classify && params.classifier.candidates === 'threshold' && params.classifier.threshold !== 0 ? candidateModel() : null;
  const pfa = classify ? params.classifier.candidatePfa : params.pfa;
  const extentPfa = Math.max(params.extentPfa, pfa);
  // With two channels each runs at half the PFA, so the union keeps the per-pixel rate.
  const split = channels.length;
  const results: Array<{ channel: Channel; values: Float32Array; cfar: CfarResult }> = channels.map((channel) => {
    const values = (channel === 'VH' ? input.sigma0.vh : input.sigma0.vv)!;
    if (values.length !== n) throw new RangeError(`detectShipsInTile: ${channel} has ${values.length} values, expected ${n}`);
    const cfar = cfarDetect(
      { values, target, width: w, height: h, origin },
      {
        model: params.model,
        pfa: pfa / split,
        extentPfa: extentPfa / split,
        looks: params.looks,
        windows,
        minBackgroundFraction: params.minBackgroundFraction,
        censorDilationPx: params.censorDilationPx,
        // Groups of ships: what is as large as the smallest vessel is censored too, detected or not.
        censorObjectPx: censorObjectPx(params, spacing),
      },
      scratch[channel],
    );
    return { channel, values, cfar };
  });
  const primary = results[0]!;
  // The union of the channels' decisions (one channel: its own mask, which lives in that
  // channel's scratch). Merge bridges are written into it.
  let mask = primary.cfar.mask;
  let seeds: ArrayLike<number> = primary.cfar.detected;
  if (results.length > 1) {
    if (maskScratch.length < n) maskScratch = new Uint8Array(n);
    mask = maskScratch.subarray(0, n);
    mask.set(primary.cfar.mask);
    for (const r of results.slice(1)) {
      const m = r.cfar.mask;
      for (let i = 0; i < n; i++) if (m[i]! > mask[i]!) mask[i] = m[i]!;
    }
    seeds = Int32Array.from(results.flatMap((r) => Array.from(r.cfar.detected)));
  }
  // Learnt candidates (pixelClassifier.ts): the per-pixel model's objects are the vessels; the
  // CFAR above still gives each its background.
  const pixelMode = classify && params.classifier.candidates === 'pixel';
  // With the candidate classifier, a cluster too large for a vessel (a ship joined to its quay
  // or to the ships moored beside it) is split along its brightness (cluster.ts splitCluster)
  // instead of being dropped whole; the parts are candidates.
  const splitOn = classify && !pixelMode && params.classifier.splitLarge;
  const fits = (c: Cluster): boolean => {
    const s = measureCluster(c, w, spacing);
    return s.diagonalM <= params.maxDiagonalM && s.lengthM <= params.maxLengthM;
  };
  const splitLarge = (list: Cluster[], m: Uint8Array): Cluster[] => (splitOn ? list.flatMap((c) => (fits(c) ? [c] : splitCluster(c, m, primary.values, w, h, fits))) : list);
  const clusters: Array<Cluster & { score?: number }> = pixelMode
    ? pixelClusters(primary.values, target, w, h)
    : splitLarge(mergeNearbyClusters(clusterDetections(mask, primary.values, w, h, seeds), mask, primary.values, w, h, spacing, params.mergeGapM), mask);
  // Candidate stage: pixels far above the robust sea level (seaLevel.ts), clustered on their
  // own mask so they do not merge into the CFAR's clusters; those whose peak the CFAR's mask
  // already holds are the CFAR's (with splitLarge: whose peak a CFAR candidate holds — the
  // CFAR's extent alone, or a cluster dropped whole, does not take a sea-level candidate away).
  let level: SeaLevel | null = null;
  if (classify && !pixelMode && params.classifier.seaLevelFactor > 0) {
    level = seaLevel(primary.values, target, w, h, Math.max(16, Math.max(windows.background.rows, windows.background.cols)));
    if (levelMaskScratch.length < n) levelMaskScratch = new Uint8Array(n);
    const levelMask = levelMaskScratch.subarray(0, n);
    levelMask.fill(0);
    const f = params.classifier.seaLevelFactor;
    const extra = markAboveSeaLevel(primary.values, target, w, h, level, f, f / 2, levelMask);
    if (extra.length > 0) {
      let taken: Uint8Array | null = null;
      if (splitOn) {
        taken = new Uint8Array(n);
        for (const c of clusters) for (const p of c.pixels) taken[p] = 1;
      }
      for (const c of splitLarge(mergeNearbyClusters(clusterDetections(levelMask, primary.values, w, h, extra), levelMask, primary.values, w, h, spacing, params.mergeGapM), levelMask))
        if ((taken ?? mask)[c.peakIndex] === 0) clusters.push(c);
    }
  }
  // Without sceneLandMask the land features' field is computed on the target pixels for the
  // first candidate that needs it.
  const minSpacing = Math.min(spacing.range, spacing.azimuth);
  // Image edges: a tile side where the core reaches the array's edge (the halo was clipped there).
  const edges = {
    top: core.y0 === 0,
    left: core.x0 === 0,
    bottom: core.y0 + core.height === h,
    right: core.x0 + core.width === w,
  };

  type Candidate = { cluster: (typeof clusters)[number]; shape: ReturnType<typeof measureCluster>; background: number; contrastDb: number };
  const candidates: Candidate[] = [];
  for (const cluster of clusters) {
    const cutOff =
      (cluster.rowMin === 0 && !edges.top) ||
      (cluster.colMin === 0 && !edges.left) ||
      (cluster.rowMax === h - 1 && !edges.bottom) ||
      (cluster.colMax === w - 1 && !edges.right);
    if (cutOff) continue; // extends past the halo: larger than any vessel (see requiredHalo)
    const shape = measureCluster(cluster, w, spacing);
    // With the classifier, small and thin candidates are its to judge.
    if ((!classify && shape.diagonalM < params.minDiagonalM) || shape.diagonalM > params.maxDiagonalM) continue;
    if (shape.lengthM < params.minLengthM || shape.lengthM > params.maxLengthM) continue;
    if (!classify && shape.lengthM / Math.max(shape.widthM, minSpacing) > params.maxAspectRatio) continue;
    const pr = (cluster.peakIndex / w) | 0;
    const pc = cluster.peakIndex - pr * w;
    const background = primary.cfar.backgroundMean(pr, pc);
    const contrastDb = background > 0 ? 10 * Math.log10(cluster.peak / background) : Number.NaN;
    candidates.push({ cluster, shape, background, contrastDb });
  }

  const arms = params.sidelobes.enabled
    ? findSidelobeArms(
        candidates.map((c) => ({ cluster: c.cluster, contrastDb: c.contrastDb })),
        w,
        {
          minPeakContrastDb: params.sidelobes.minPeakContrastDb,
          maxArmLevelDb: params.sidelobes.maxArmLevelDb,
          armLengthRows: Math.ceil(params.sidelobes.armLengthM / spacing.azimuth),
          armLengthCols: Math.ceil(params.sidelobes.armLengthM / spacing.range),
        },
      )
    : new Set<number>();

  const out: ShipDetection[] = [];
  candidates.forEach((c, k) => {
    if (arms.has(k)) return;
    const { cluster, shape } = c;
    const cr = Math.round(cluster.centroidRow);
    const cc = Math.round(cluster.centroidCol);
    if (cr < core.y0 || cr >= core.y0 + core.height || cc < core.x0 || cc >= core.x0 + core.width) return;
    let candidate: ShipDetection['candidate'];
    if (pixelMode) candidate = { features: [], probability: cluster.score ?? Number.NaN };
    else if (classify) {
      const features = candidateFeatures(cluster, shape, primary.values, mask, w, h, spacing, c.background, level ? levelAt(level, (cluster.peakIndex / w) | 0, cluster.peakIndex % w) : Number.NaN, (landField ??= withLandDistance(deferredSeaLandField(primary.values, target, w, h, spacing), spacing)));
      const probability = model ? candidateProbability(model, features) : Number.NaN;
      const peakInBand = inBand !== undefined && inBand(((cluster.peakIndex / w) | 0) + origin.row, (cluster.peakIndex % w) + origin.col);
      if (model && probability < (params.classifier.threshold ?? candidateThreshold(model, features, peakInBand))) return;
      candidate = { features, probability };
    }
    const rows = new Int32Array(cluster.pixels.length);
    const cols = new Int32Array(cluster.pixels.length);
    const used = new Set<Channel>();
    cluster.pixels.forEach((p, j) => {
      const row = (p / w) | 0;
      rows[j] = row + origin.row;
      cols[j] = p - row * w + origin.col;
      if (pixelMode) used.add(primary.channel);
      else for (const r of results) if (r.cfar.mask[p] === 2) used.add(r.channel);
    });
    const pr = (cluster.peakIndex / w) | 0;
    out.push({
      pixels: { rows, cols },
      centroidRow: cluster.centroidRow + origin.row,
      centroidCol: cluster.centroidCol + origin.col,
      peakRow: pr + origin.row,
      peakCol: cluster.peakIndex - pr * w + origin.col,
      peak: cluster.peak,
      background: c.background,
      contrastDb: c.contrastDb,
      lengthM: shape.lengthM,
      widthM: shape.widthM,
      diagonalM: shape.diagonalM,
      orientationDeg: shape.orientationDeg,
      channels: channels.filter((ch) => used.has(ch)),
      attributes: vesselAttributes(shape.lengthM, vesselShape(cluster.pixels, primary.values, w, spacing, c.background)),
      ...(candidate ? { candidate } : {}),
      ...(candidate && !pixelMode && Number.isFinite(candidate.features[LAND_DISTANCE]) ? { sceneLandDistanceM: candidate.features[LAND_DISTANCE]! } : {}),
    });
  });
  // The field's feature planes serve the thread's next tile (seaLand.ts: no fresh memory to fault in).
  if (landField) releaseSeaLandField(landField);
  return out;
}

/** Max-pooled σ0 over cells of `cell` × `cell` full-image pixels (the azimuth-ambiguity source map's part of one tile). */
export interface PooledSources {
  cell: number;
  /** Full-image cell row and column of max[0]. */
  row0: number;
  col0: number;
  rows: number;
  cols: number;
  max: Float32Array;
}

/**
 * Pool the valid pixels of `window` (tile-local; the tile's pixel (0, 0) is full-image `origin`)
 * into cells aligned to full-image coordinates. Cells cut by the window edge hold the part
 * inside; merging tiles by max gives the whole-image pooling.
 */
export function poolSources(
  values: Float32Array,
  valid: Uint8Array,
  width: number,
  window: PixelWindow,
  origin: { row: number; col: number },
  cell: number,
): PooledSources {
  const row0 = Math.floor((origin.row + window.y0) / cell);
  const col0 = Math.floor((origin.col + window.x0) / cell);
  const rows = window.height > 0 ? Math.floor((origin.row + window.y0 + window.height - 1) / cell) - row0 + 1 : 0;
  const cols = window.width > 0 ? Math.floor((origin.col + window.x0 + window.width - 1) / cell) - col0 + 1 : 0;
  const max = new Float32Array(rows * cols);
  const xEnd = window.x0 + window.width;
  for (let y = window.y0; y < window.y0 + window.height; y++) {
    const base = (Math.floor((origin.row + y) / cell) - row0) * cols - col0;
    const row = y * width;
    // Cell by cell along the row: the pixels of one cell share one running maximum.
    for (let x = window.x0; x < xEnd; ) {
      const col = origin.col + x;
      const k = base + Math.floor(col / cell);
      const spanEnd = Math.min(xEnd, x + cell - (col % cell));
      let m = max[k]!;
      for (; x < spanEnd; x++) {
        const v = values[row + x]!;
        if (valid[row + x] !== 0 && v > m) m = v;
      }
      max[k] = m;
    }
  }
  return { cell, row0, col0, rows, cols, max };
}

/**
 * detectShipsInTile plus the tile core's pooled σ0 (primary channel: VH when given, else VV)
 * for the azimuth-ambiguity source map, so the pooling runs on the worker with the detection.
 */
export function detectShipsInTileWithSources(
  tileInput: ShipTileInput,
  paramsInput: ShipParamsInput | ShipParams = {},
  cell = 8,
): { detections: ShipDetection[]; sources: PooledSources; quicklook?: PooledPart } {
  // The quicklook's copy from the DN, before they are calibrated in place.
  const blocks = tileInput.quicklookBlocks;
  const dn = tileInput.sigma0.vh ? (tileInput.calibrate?.vh ? tileInput.sigma0.vh : undefined) : tileInput.calibrate?.vv ? tileInput.sigma0.vv : undefined;
  const quicklook = blocks && dn ? poolDn2(dn, tileInput.width, tileInput.core, tileInput.origin ?? { row: 0, col: 0 }, blocks) : undefined;
  const input = calibrated(tileInput);
  const primary = (input.sigma0.vh ?? input.sigma0.vv)!;
  const sources = poolSources(primary, input.valid, input.width, input.core, input.origin ?? { row: 0, col: 0 }, cell);
  // The sources and the quicklook's copy are taken: the calibrated channels are the detector's to cut.
  return { detections: detectInCalibratedTile(input, paramsInput, ownChannels(tileInput)), sources, ...(quicklook ? { quicklook } : {}) };
}

/** What the analysis pool may run of this module (src/threads/task.ts). */
export const threadTasks = defineThreadTasks(import.meta.url, { detectShipsInTile, detectShipsInTileWithSources });
