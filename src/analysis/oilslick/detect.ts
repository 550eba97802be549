/**
 * The oil-slick engine: dark spots per tile, regions merged across tiles, look-alikes
 * rejected, slicks vectorised to lon/lat polygons with holes. See docs/oilslick.md.
 *
 * Tiles and halos. Every operator is local (darkSpotSupportPx + measureSupportPx working
 * pixels at most), and each tile's halo is at least that wide, so the dark mask inside a
 * tile's core is exactly the mask a single pass over the whole image would give. A tile
 * reports, for each region it sees, only the part inside its core (additive measurements,
 * row runs) plus the region labels along its core's four edges. `mergeTileRegions` joins
 * parts whose pixels touch across core edges (8-connectivity) with a union-find, so a slick
 * that crosses any number of tiles comes out once, whole, however long it is; the halo only
 * has to cover the filters, not the slick. Memory: one tile's rasters at a time, plus the
 * run-length parts of the regions that survive the size pre-filter.
 */
import { availableParallelism } from 'node:os';
import { AoiClipper } from '../../geo/aoiClipper.ts';
import { bboxOf } from '../../geo/clip.ts';
import type { LandPolygons } from '../../geo/landMask.ts';
import type { AoiGeometry, Polygon } from '../../geo/types.ts';
import { maskToPolygons } from '../../geo/vectorize.ts';
import { ImageryError, intersectWindows, openSafeProduct, planTiles, type PixelWindow, type Sigma0Product, type Tile } from '../../imagery/index.ts';
import { finalizeFeatureCollection, type FinalizedCollection, type PolygonInput } from '../common/result.ts';
import type { PixelSpacing } from './darkSpots.ts';
import {
  addStats,
  emptyStats,
  lookAlikeReasons,
  neighbourhoodContext,
  regionFeatures,
  type LookAlikeReason,
  type RegionPart,
  type RegionStats,
  type SlickFeatures,
} from './discriminate.ts';
import { DEFAULT_OIL_SLICK_PARAMS, resolveOilSlickParams, type OilSlickParams } from './params.ts';
import { mapTiles } from '../engine/mapTiles.ts';
import type { BlockGrid, PooledBlocks, TileRunner } from '../port.ts';
import { emptyPooled, mergePooled, type PooledPart } from '../common/quicklookCopy.ts';
import { aoiVertexBounds, aoiWindow, imagePixelOf } from '../engine/window.ts';
import { loadOilModel, oilProbability, type OilModelFile } from './model.ts';
import { detectSlicksInTile, requiredHaloPx, threadTasks as tileTasks, type SlickTileInput, type TileRegions } from './tile.ts';
import { readSlickTile, threadTasks as sceneTileTasks, windowLandMask, type SlickTileRead, type SlickTileReading } from './sceneTile.ts';
import { maskAxesM, outlineWindow, refinedPolygons, refineOutlineMask } from './refineOutline.ts';

// One tile (tile.ts): detectSlicksInTile runs on the worker threads.
export { detectSlicksInTile, minPixels, requiredHaloPx } from './tile.ts';
export type { SlickTileInput, TileRegions } from './tile.ts';

// ------------------------------------------------------------------------ merging
export interface PlacedTileRegions {
  /** Global working-grid position of the tile array's (0, 0): the halo window's origin / multilook. */
  originX: number;
  originY: number;
  regions: TileRegions;
}

/** A dark region of the whole image (global working-grid coordinates). */
export interface SlickRegion {
  stats: RegionStats;
  /** (y, x start, x end exclusive) row runs. */
  runs: Int32Array;
  box: { x0: number; y0: number; x1: number; y1: number };
}

/** Regions of the whole image from its tiles' parts, joined across core edges (8-connectivity). */
export function mergeTileRegions(tiles: readonly PlacedTileRegions[]): SlickRegion[] {
  const parts: { tile: PlacedTileRegions; part: RegionPart }[] = [];
  const labelIndex: Map<number, number>[] = [];
  for (const tile of tiles) {
    const map = new Map<number, number>();
    for (const part of tile.regions.parts) {
      map.set(part.label, parts.length);
      parts.push({ tile, part });
    }
    labelIndex.push(map);
  }
  const parent = Int32Array.from(parts, (_, i) => i);
  const find = (i: number): number => {
    while (parent[i] !== i) {
      parent[i] = parent[parent[i]!]!;
      i = parent[i]!;
    }
    return i;
  };
  const union = (a: number, b: number): void => {
    const ra = find(a);
    const rb = find(b);
    if (ra !== rb) parent[Math.max(ra, rb)] = Math.min(ra, rb);
  };

  // Every labelled core-edge pixel, by global position; then join 8-neighbours.
  const KEY = 4_194_304; // 2^22 > any working-grid column
  const edgePixels = new Map<number, number>();
  tiles.forEach((tile, t) => {
    const { core, edges } = tile.regions;
    const gx0 = tile.originX + core.x0;
    const gy0 = tile.originY + core.y0;
    const put = (gx: number, gy: number, label: number): void => {
      if (label === 0) return;
      const index = labelIndex[t]!.get(label);
      if (index !== undefined) edgePixels.set(gy * KEY + gx, index);
    };
    for (let k = 0; k < core.width; k++) {
      put(gx0 + k, gy0, edges.top[k]!);
      put(gx0 + k, gy0 + core.height - 1, edges.bottom[k]!);
    }
    for (let k = 0; k < core.height; k++) {
      put(gx0, gy0 + k, edges.left[k]!);
      put(gx0 + core.width - 1, gy0 + k, edges.right[k]!);
    }
  });
  for (const [key, index] of edgePixels) {
    const gy = Math.floor(key / KEY);
    const gx = key - gy * KEY;
    for (let dy = -1; dy <= 1; dy++) {
      for (let dx = -1; dx <= 1; dx++) {
        if (dx === 0 && dy === 0) continue;
        const other = edgePixels.get((gy + dy) * KEY + gx + dx);
        if (other !== undefined && other !== index) union(index, other);
      }
    }
  }

  const groups = new Map<number, number[]>();
  for (let i = 0; i < parts.length; i++) {
    const root = find(i);
    const list = groups.get(root);
    if (list) list.push(i);
    else groups.set(root, [i]);
  }
  const out: SlickRegion[] = [];
  for (const members of groups.values()) {
    const stats = emptyStats();
    const box = { x0: Infinity, y0: Infinity, x1: -Infinity, y1: -Infinity };
    let runCount = 0;
    for (const i of members) runCount += parts[i]!.part.runs.length;
    const runs = new Int32Array(runCount);
    let r = 0;
    for (const i of members) {
      const { tile, part } = parts[i]!;
      const dx = tile.originX;
      const dy = tile.originY;
      addStats(stats, part.stats, dx, dy);
      for (let k = 0; k < part.runs.length; k += 3) {
        runs[r++] = part.runs[k]! + dy;
        runs[r++] = part.runs[k + 1]! + dx;
        runs[r++] = part.runs[k + 2]! + dx;
      }
      box.x0 = Math.min(box.x0, part.box.x0 + dx);
      box.y0 = Math.min(box.y0, part.box.y0 + dy);
      box.x1 = Math.max(box.x1, part.box.x1 + dx);
      box.y1 = Math.max(box.y1, part.box.y1 + dy);
    }
    out.push({ stats, runs, box });
  }
  // Deterministic order whatever the tile order: by top row, then left column.
  out.sort((a, b) => a.box.y0 - b.box.y0 || a.box.x0 - b.box.x0 || a.stats.pixelCount - b.stats.pixelCount);
  return out;
}

// ------------------------------------------------------------------ classification

export interface SlickCandidate {
  region: SlickRegion;
  features: SlickFeatures;
  /** The trained model's oil probability (0…1); NaN when no model is installed. */
  oilProbability: number;
  /**
   * Why it is not reported: `too_small`, `low_probability` (below the model's threshold), and
   * the hand-set look-alike rules that apply (informative unless params.applyRules).
   */
  reasons: LookAlikeReason[];
  isSlick: boolean;
  /**
   * A fragment of a spill (issue 24 §1): a candidate below the threshold that lies within
   * FRAGMENT_REACH_M of a slick the model accepted, has at least FRAGMENT_MIN_PROBABILITY and
   * no veto — reported with it (isSlick true) as a part of that spill. The index (into the
   * returned candidates) of that slick; null otherwise.
   */
  fragmentOf: number | null;
}

/** How close (m, pixel to pixel) a fragment must lie to a slick the model accepted. */
export const FRAGMENT_REACH_M = 500;
/** The least oil probability of a fragment (the model's threshold is for a chip's best candidate). */
export const FRAGMENT_MIN_PROBABILITY = 0.3;

/** Least pixel distance (working pixels) between two regions' row runs, or Infinity beyond `limit`. */
function runDistance(a: SlickRegion, b: SlickRegion, limit: number): number {
  const gapX = Math.max(0, a.box.x0 - b.box.x1, b.box.x0 - a.box.x1);
  const gapY = Math.max(0, a.box.y0 - b.box.y1, b.box.y0 - a.box.y1);
  if (Math.hypot(gapX, gapY) > limit) return Infinity;
  let best = Infinity;
  const ra = a.runs;
  const rb = b.runs;
  for (let i = 0; i < ra.length; i += 3) {
    for (let j = 0; j < rb.length; j += 3) {
      const dy = Math.abs(ra[i]! - rb[j]!);
      if (dy > limit) continue;
      const dx = Math.max(0, ra[i + 1]! - (rb[j + 2]! - 1), rb[j + 1]! - (ra[i + 2]! - 1));
      const d = Math.hypot(dx, dy);
      if (d < best) best = d;
    }
  }
  return best <= limit ? best : Infinity;
}

/** Mark the fragments of accepted slicks (see SlickCandidate.fragmentOf); in place. */
export function markFragments(candidates: SlickCandidate[], spacing: PixelSpacing, params: OilSlickParams): void {
  const limit = FRAGMENT_REACH_M / Math.min(spacing.range, spacing.azimuth);
  const accepted = candidates.map((c, k) => (c.isSlick ? k : -1)).filter((k) => k >= 0);
  if (accepted.length === 0) return;
  const vetoes = params.vetoRules as readonly string[];
  candidates.forEach((c, k) => {
    if (c.isSlick || !(c.oilProbability >= FRAGMENT_MIN_PROBABILITY)) return;
    if (c.reasons.some((r) => r === 'too_small' || vetoes.includes(r))) return;
    let best = Infinity;
    let parent = -1;
    for (const a of accepted) {
      const d = runDistance(c.region, candidates[a]!.region, limit);
      if (d < best) {
        best = d;
        parent = a;
      }
    }
    if (parent >= 0) {
      c.isSlick = true;
      c.fragmentOf = parent;
    }
  });
}

/** The probability threshold in force: the parameter, else the model's own for the input (8-bit scaled or calibrated σ0). */
export function oilProbabilityThreshold(params: OilSlickParams, model: OilModelFile | null = loadOilModel()): number {
  if (params.minOilProbability !== null) return params.minOilProbability;
  if (!model) return 0.5;
  return params.scaledInput ? model.threshold : (model.calibratedThreshold ?? model.threshold);
}

/**
 * Features and verdict of each region. `incidenceAt(line, pixel)` gives the incidence angle
 * (degrees) at a full-resolution image position (the region's centroid is passed).
 */
export function classifyRegions(
  regions: readonly SlickRegion[],
  spacing: PixelSpacing,
  multilook: number,
  incidenceAt: (line: number, pixel: number) => number,
  params: OilSlickParams,
  model: OilModelFile | null = loadOilModel(),
): SlickCandidate[] {
  const threshold = oilProbabilityThreshold(params, model);
  const centres = regions.map((r) => {
    const n = Math.max(1, r.stats.pixelCount);
    return [(r.stats.sumX / n) * spacing.range, (r.stats.sumY / n) * spacing.azimuth] as const;
  });
  const all = regions.map((region) => {
    const s = region.stats;
    const n = Math.max(1, s.pixelCount);
    const line = (s.sumY / n) * multilook + (multilook - 1) / 2;
    const pixel = (s.sumX / n) * multilook + (multilook - 1) / 2;
    return regionFeatures(s, spacing, incidenceAt(line, pixel), params);
  });
  const contexts = neighbourhoodContext(all, centres, all.map((f) => f.areaSqkm >= params.minAreaSqkm));
  const out: SlickCandidate[] = regions.map((region, k) => {
    const features = { ...all[k]!, context: contexts[k]! };
    const rules = lookAlikeReasons(features, params);
    const tooSmall = rules.includes('too_small');
    if (!model) return { region, features, oilProbability: Number.NaN, reasons: rules, isSlick: rules.length === 0, fragmentOf: null };
    const p = oilProbability(model, features);
    const reasons: LookAlikeReason[] = [...(tooSmall ? (['too_small'] as const) : []), ...(p < threshold ? (['low_probability'] as const) : []), ...rules.filter((r) => r !== 'too_small')];
    const isSlick = !tooSmall && p >= threshold && !rules.some((r) => (params.vetoRules as readonly string[]).includes(r));
    return { region, features, oilProbability: p, reasons, isSlick, fragmentOf: null };
  });
  if (model) markFragments(out, spacing, params);
  return out;
}

// ------------------------------------------------------------- in-memory rasters

/** A whole in-memory raster: a tile's input without a core (the runner cuts the tiles). */
export type SlickRasterInput = Omit<SlickTileInput, 'core'>;

export interface RasterRunOptions {
  /** Tile core size (full-resolution pixels); default: params.tileSize. */
  tileSize?: number;
  /** Halo; default and minimum: requiredHaloPx. */
  haloPx?: number;
  /** Incidence angle (degrees): one value, or a function of (line, pixel). Default 35°. */
  incidenceDeg?: number | ((line: number, pixel: number) => number);
  /** Oil-probability model (default: the committed one; null: none). */
  model?: OilModelFile | null;
}

/**
 * The whole engine on an image held in memory, tile by tile exactly as on a product (used by
 * tests and evaluations; products go through detectSlicksInSafe). Returns every candidate,
 * slicks and look-alikes.
 */
export function detectSlicksInRaster(input: SlickRasterInput, params: OilSlickParams = { ...DEFAULT_OIL_SLICK_PARAMS }, options: RasterRunOptions = {}): SlickCandidate[] {
  const m = params.multilook;
  const tileSize = roundUp(options.tileSize ?? params.tileSize, m);
  const halo = roundUp(Math.max(options.haloPx ?? 0, requiredHaloPx(params, input.pixelSpacing)), m);
  const plan = planTiles(input.width, input.height, tileSize, halo);
  const placed: PlacedTileRegions[] = [];
  let spacing: PixelSpacing = { range: input.pixelSpacing.range * m, azimuth: input.pixelSpacing.azimuth * m };
  for (const tile of plan.tiles) {
    const { halo: hw, coreInHalo } = tile;
    const cut = <A extends Float32Array | Uint8Array>(src: A, make: (n: number) => A): A => {
      const out = make(hw.width * hw.height);
      for (let y = 0; y < hw.height; y++) {
        const from = (hw.y0 + y) * input.width + hw.x0;
        out.set(src.subarray(from, from + hw.width) as never, y * hw.width);
      }
      return out;
    };
    const regions = detectSlicksInTile(
      {
        sigma0VV: cut(input.sigma0VV, (n) => new Float32Array(n)),
        valid: cut(input.valid, (n) => new Uint8Array(n)),
        land: input.land ? cut(input.land, (n) => new Uint8Array(n)) : undefined,
        width: hw.width,
        height: hw.height,
        pixelSpacing: input.pixelSpacing,
        core: coreInHalo,
      },
      params,
    );
    spacing = regions.spacing;
    placed.push({ originX: hw.x0 / m, originY: hw.y0 / m, regions });
  }
  const incidence = options.incidenceDeg ?? 35;
  const incidenceAt = typeof incidence === 'number' ? () => incidence : incidence;
  return classifyRegions(mergeTileRegions(placed), spacing, m, incidenceAt, params, options.model === undefined ? loadOilModel() : options.model);
}

/**
 * The reported outline of every accepted slick of an in-memory raster, as one full-resolution
 * mask (1 inside any slick): the refined outline (refineOutline.ts) where it can be drawn, else
 * the working-grid region — what detectSlicksInSafe outlines, on a raster held in memory (chips,
 * evaluations).
 */
export function slickMaskOfRaster(input: SlickRasterInput, candidates: readonly SlickCandidate[], params: OilSlickParams): Uint8Array {
  const { width, height } = input;
  const m = params.multilook;
  const out = new Uint8Array(width * height);
  const bounds = { x0: 0, y0: 0, width, height };
  for (const c of candidates) {
    if (!c.isSlick) continue;
    const win = outlineWindow(c.region, m, input.pixelSpacing, bounds);
    let mask: Uint8Array | null = null;
    if (win) {
      const sigma0 = new Float32Array(win.width * win.height);
      const valid = new Uint8Array(win.width * win.height);
      const land = input.land ? new Uint8Array(win.width * win.height) : undefined;
      for (let y = 0; y < win.height; y++) {
        const from = (win.y0 + y) * width + win.x0;
        sigma0.set(input.sigma0VV.subarray(from, from + win.width), y * win.width);
        valid.set(input.valid.subarray(from, from + win.width), y * win.width);
        if (land) land.set(input.land!.subarray(from, from + win.width), y * win.width);
      }
      mask = refineOutlineMask(c.region, c.features.backgroundDb, m, input.pixelSpacing, { ...win, sigma0, valid, land }, params.thresholdShiftDb);
      if (mask) {
        for (let y = 0; y < win.height; y++) {
          for (let x = 0; x < win.width; x++) if (mask[y * win.width + x]) out[(win.y0 + y) * width + win.x0 + x] = 1;
        }
      }
    }
    if (!mask) regionMask(c.region, m, width, height, out);
  }
  return out;
}

/** A region as a full-resolution mask (1 inside) of a width × height image. */
export function regionMask(region: SlickRegion, multilook: number, width: number, height: number, out = new Uint8Array(width * height)): Uint8Array {
  const { runs } = region;
  for (let k = 0; k < runs.length; k += 3) {
    const y0 = runs[k]! * multilook;
    const xa = runs[k + 1]! * multilook;
    const xb = Math.min(width, runs[k + 2]! * multilook);
    for (let y = y0; y < Math.min(height, y0 + multilook); y++) out.fill(1, y * width + xa, y * width + xb);
  }
  return out;
}

/**
 * Outline(s) of a region in lon/lat, holes included: the region's pixels are traced along
 * pixel edges and each corner is mapped by `toLonLat(line, pixel)` (full-resolution image
 * coordinates; integers are pixel centres).
 */
export function regionPolygons(
  region: SlickRegion,
  multilook: number,
  toLonLat: (line: number, pixel: number) => [number, number],
  simplifyTolerancePx = 0,
): Polygon[] {
  const { box, runs } = region;
  const bw = box.x1 - box.x0 + 1;
  const bh = box.y1 - box.y0 + 1;
  const mask = new Uint8Array(bw * bh);
  for (let k = 0; k < runs.length; k += 3) {
    const row = (runs[k]! - box.y0) * bw;
    mask.fill(1, row + runs[k + 1]! - box.x0, row + runs[k + 2]! - box.x0);
  }
  const m = multilook;
  const c = (m - 1) / 2;
  return maskToPolygons(mask, bw, bh, (row, col) => toLonLat((box.y0 + row) * m + c, (box.x0 + col) * m + c), {
    connectivity: 8,
    simplifyTolerance: simplifyTolerancePx,
  }).map((p) => p.geometry);
}

function roundUp(v: number, m: number): number {
  return Math.ceil(v / m) * m;
}

// ---------------------------------------------------------------- SAFE products

export interface SafeSlickOptions {
  /** Area of interest (lon/lat); slicks are clipped to it and only its neighbourhood is read. */
  polygon?: AoiGeometry;
  params?: Partial<OilSlickParams>;
  /** Called with the fraction done (0 … 1). */
  onProgress?: (fraction: number) => void;
  signal?: AbortSignal;
  /** Land polygons (default: Natural Earth 10 m); `false` disables the land mask. */
  land?: LandPolygons | false;
  /**
   * Worker threads that run detectSlicksInTile: each reads its own tile when another thread
   * can open the product (product.source: a local SAFE or σ0 GeoTIFF), else this thread reads
   * the next tile meanwhile. Default: one fewer than the cores, at most 2 (1 on a 2-core
   * machine); 0 runs every tile in this thread. Products of fewer than 3 tiles always run in
   * this thread.
   */
  workers?: number;
  /** Where else the tiles may run (scaled out: any worker), when each task reads its own tile (engine/mapTiles.ts). */
  tiles?: TileRunner;
  /**
   * The quicklook's blocks over the analysed window of the VV band (src/analysis/quicklook:
   * quicklookBlockGrid), or null: the tiles then also pool the band's DN² on them (details'
   * quicklookCopy), so the quicklook needs no second read. Not asked when the tiles are scaled
   * out (`tiles`: their results come back as data).
   */
  quicklookBlocks?: (product: Sigma0Product, polarisation: string, region: PixelWindow) => BlockGrid | null;
}

export interface SafeSlickDetails {
  collection: FinalizedCollection;
  /** Every region found, slicks and look-alikes, before clipping. */
  candidates: SlickCandidate[];
  tiles: number;
  /** Tiles that were land throughout, and so not read. */
  landTiles: number;
  /** Worker threads that ran tiles (0: all ran in the calling thread). */
  workers: number;
  /** Full-image window that was analysed. */
  window: PixelWindow | null;
  /** The VV band's DN² pooled on the quicklook's blocks (SafeSlickOptions.quicklookBlocks), when made. */
  quicklookCopy?: PooledBlocks;
}

/** BlockReader's default cache (96 MiB). */
const DEFAULT_BLOCK_CACHE_BYTES = 96 * 1024 * 1024;

/** Context (m) read around an AOI, so slicks crossing its edge are measured whole. */
const AOI_CONTEXT_M = 3000;

/** Oil slicks of a Sentinel-1 GRD product (VV) as the result FeatureCollection. */
export async function detectSlicksInSafe(productPath: string, options: SafeSlickOptions = {}): Promise<FinalizedCollection> {
  return (await detectSlicksInSafeDetailed(productPath, options)).collection;
}

/** detectSlicksInSafe with the look-alikes and run figures (evaluation, diagnostics). */
export async function detectSlicksInSafeDetailed(productPath: string, options: SafeSlickOptions = {}): Promise<SafeSlickDetails> {
  const params = resolveOilSlickParams(options.params);
  let product = await openSafeProduct(productPath);
  // GRD measurements are full-width strips: the block cache must hold one row of tiles (with
  // halos) so each strip is decoded once per tile row, not once per tile. 26,000 px × 2 B ×
  // 2,560 rows is ~130 MB, over the reader's 96 MiB default; reopen with the size needed.
  const ann = (product.bands['VV'] ?? Object.values(product.bands)[0]!).annotation;
  const spacing = { range: ann.rangePixelSpacing, azimuth: ann.azimuthPixelSpacing };
  const rows = roundUp(params.tileSize, params.multilook) + 2 * roundUp(Math.max(params.haloPx, requiredHaloPx(params, spacing)), params.multilook);
  // Strips are as wide as the measurement TIFF (a crop's width, not the annotated image's).
  const cacheBytes = Math.ceil(1.1 * rows * (product.validWindow?.width ?? product.width) * 2);
  if (cacheBytes > DEFAULT_BLOCK_CACHE_BYTES) {
    await product.close();
    product = await openSafeProduct(productPath, { blockCache: { cacheBytes } });
  }
  try {
    return await detectInProduct(product, params, options);
  } finally {
    await product.close();
  }
}

/**
 * The engine on an opened product (the caller closes it): a SAFE GRD product, or a σ0
 * GeoTIFF (src/imagery/sigma0), whose incidence angle may be a constant.
 */
export async function detectInProduct(product: Sigma0Product, params: OilSlickParams, options: SafeSlickOptions): Promise<SafeSlickDetails> {
  const band = product.bands['VV'];
  if (!band) {
    throw new ImageryError('MEASUREMENT_UNAVAILABLE', `${product.productId} has no VV band (has ${product.polarisations.join(', ')}); oil slicks need VV`);
  }
  const empty = (window: PixelWindow | null): SafeSlickDetails => ({ collection: finalizeFeatureCollection([], { addPropertyId: true }), candidates: [], tiles: 0, landTiles: 0, workers: 0, window });
  const m = params.multilook;
  const pixelSpacing = { range: band.annotation.rangePixelSpacing, azimuth: band.annotation.azimuthPixelSpacing };
  const geo = product.geolocation;
  let window = band.validWindow;
  if (!window) throw new ImageryError('MEASUREMENT_UNAVAILABLE', `${product.productId}: the VV band has no measurement raster`);
  if (options.polygon) {
    // A vertex the geolocation model cannot invert (far off the scene) makes it the whole image.
    const bounds = aoiVertexBounds(options.polygon, imagePixelOf(product));
    const context = { x: Math.ceil(AOI_CONTEXT_M / pixelSpacing.range), y: Math.ceil(AOI_CONTEXT_M / pixelSpacing.azimuth) };
    const image = { x0: 0, y0: 0, width: product.width, height: product.height };
    const aoi = bounds.unmapped > 0 ? image : aoiWindow(bounds, product, context);
    window = aoi ? intersectWindows(window, aoi) : null;
    if (!window) return empty(null);
  }
  // Align the analysed window to the multilook grid (tiles must start on it).
  const ax0 = Math.floor(window.x0 / m) * m;
  const ay0 = Math.floor(window.y0 / m) * m;
  const region = { x0: ax0, y0: ay0, width: window.x0 + window.width - ax0, height: window.y0 + window.height - ay0 };
  const tileSize = roundUp(params.tileSize, m);
  const halo = roundUp(Math.max(params.haloPx, requiredHaloPx(params, pixelSpacing)), m);
  const plan = planTiles(product.width, product.height, tileSize, halo, region);
  const land = options.land === false ? null : (options.land ?? undefined);

  const placed: PlacedTileRegions[] = [];
  let spacing: PixelSpacing = { range: pixelSpacing.range * m, azimuth: pixelSpacing.azimuth * m };
  const reading: SlickTileReading = { multilook: m, pixelSpacing, shoreBufferM: params.shoreBufferM, denoise: params.denoise, land };
  // The quicklook's copy, pooled by the tiles on blocks from the window's own origin (not the
  // multilook-aligned region's: the strided read's lines start there); SAFE bands only (DN).
  const blocks = options.quicklookBlocks && !options.tiles ? options.quicklookBlocks(product, 'VV', window) : null;
  const quicklookCopy = blocks ? emptyPooled(blocks) : undefined;
  if (blocks) reading.quicklookBlocks = blocks;
  // Tiles go to the shared analysis pool (src/analysis/engine): `workers` threads find the dark
  // spots of tiles while one more tile waits in the pool's queue, so a worker never waits.
  const workers = plan.tiles.length >= 3 ? (options.workers ?? Math.max(0, Math.min(2, availableParallelism() - 1))) : 0;
  let skipped = 0;
  // A tile of land throughout is not read and has no regions.
  const landTile = (tile: Tile): TileRegions => {
    skipped++;
    return emptyTileRegions(tile, params, pixelSpacing);
  };
  // A pool task gives null for a land tile.
  const merge = (tile: Tile, found: TileRegions | null, quicklook?: PooledPart) => {
    const regions = found ?? landTile(tile);
    spacing = regions.spacing;
    placed.push({ originX: tile.halo.x0 / m, originY: tile.halo.y0 / m, regions });
    if (quicklookCopy && quicklook) mergePooled(quicklookCopy, quicklook);
  };
  const engine = {
    signal: options.signal,
    threads: workers === 0 ? 0 : workers + 1,
    runner: options.tiles,
    onProgress: (done: number, total: number) => options.onProgress?.((0.9 * done) / total),
  };
  const source = product.source;
  if (source && workers > 0) {
    // On the pool, each task reads its own tile (land mask first) from the product's source:
    // this thread only plans, dispatches and merges, so its event loop stays free.
    const input = (tile: Tile) => ({ input: { source, reading, tile }, keep: undefined });
    if (quicklookCopy) {
      const withCopy = (tile: Tile, out: { regions: TileRegions | null; quicklook?: PooledPart }) => merge(tile, out.regions, out.quicklook);
      await mapTiles(plan, null, { run: sceneTileTasks.detectSlicksInSceneTileWithCopy, params, input }, withCopy, engine);
    } else {
      await mapTiles(plan, null, { run: sceneTileTasks.detectSlicksInSceneTile, params, input }, (tile, found) => merge(tile, found), engine);
    }
  } else {
    // In this thread (or a product only this thread can read): this thread reads and masks
    // tile n+1 while the pool works on earlier ones; a tile's arrays move to the pool. The
    // tile's part of the quicklook's copy was pooled here as it was read: kept for the merge.
    const read = (_window: PixelWindow, tile: Tile) => readSlickTile(product, reading, tile);
    const input = (tile: Tile, { input: data, quicklook }: SlickTileRead) => {
      if (!data) return { result: landTile(tile), keep: quicklook };
      const transfer = [...new Set([data.sigma0VV.buffer, data.valid.buffer, ...(data.land ? [data.land.buffer] : [])])] as ArrayBuffer[];
      return { input: data, transfer, keep: quicklook };
    };
    await mapTiles(plan, read, { run: tileTasks.detectSlicksInTile, params, input }, merge, engine);
  }
  const candidates = classifyRegions(mergeTileRegions(placed), spacing, m, (line, pixel) => geo.incidenceAngle(line, pixel), params);
  const polygons: PolygonInput[] = [];
  const aoiBox = options.polygon ? bboxOf(options.polygon) : null;
  // Built once: each slick is then clipped against the AOI near it only (issue 10.1).
  const clipper = options.polygon ? new AoiClipper(options.polygon) : null;
  for (const c of candidates) {
    if (!c.isSlick) continue;
    options.signal?.throwIfAborted();
    const outline = await slickOutline(c, product, band, region, params, pixelSpacing, land);
    // Length and width describe the outline reported: the refined mask's when there is one,
    // else the region's (second-moment length; width = area / length, as maskAxesM).
    const axes = outline.axes ?? { lengthM: c.features.lengthM, widthM: (c.features.areaSqkm * 1e6) / c.features.lengthM };
    const properties = {
      oil_probability: Number.isFinite(c.oilProbability) ? Math.round(c.oilProbability * 1000) / 1000 : null,
      length_m: Math.round(axes.lengthM),
      width_m: Math.round(axes.widthM),
      contrast_db: Math.round(c.features.contrastDb * 10) / 10,
    };
    for (const geometry of outline.polygons) {
      if (!clipper || !aoiBox) {
        polygons.push({ geometry, properties });
        continue;
      }
      const [minx, miny, maxx, maxy] = bboxOf(geometry);
      if (maxx < aoiBox[0] || minx > aoiBox[2] || maxy < aoiBox[1] || miny > aoiBox[3]) continue;
      const clipped = clipper.intersect(geometry);
      if (!clipped) continue;
      if (clipped.type === 'Polygon') polygons.push({ geometry: clipped, properties });
      else for (const rings of clipped.coordinates) polygons.push({ geometry: { type: 'Polygon', coordinates: rings }, properties });
    }
  }
  const collection = finalizeFeatureCollection(polygons, { addPropertyId: true });
  options.onProgress?.(1);
  return { collection, candidates, tiles: plan.tiles.length, landTiles: skipped, workers, window: region, ...(quicklookCopy ? { quicklookCopy } : {}) };
}

/**
 * The outline of an accepted slick: redrawn from the full-resolution σ0 of a window around it
 * (refineOutline.ts; one bounded read per slick) with that mask's length and width, or its
 * working-grid outline (axes null: the features' stand) when it cannot be (no background,
 * too large a window).
 */
async function slickOutline(
  c: SlickCandidate,
  product: Sigma0Product,
  band: Sigma0Product['bands'][string],
  bounds: PixelWindow,
  params: OilSlickParams,
  pixelSpacing: PixelSpacing,
  land: LandPolygons | null | undefined,
): Promise<{ polygons: Polygon[]; axes: { lengthM: number; widthM: number } | null }> {
  const m = params.multilook;
  const toLonLat = (line: number, pixel: number) => product.geolocation.pixelToLonLat(line, pixel);
  const window = outlineWindow(c.region, m, pixelSpacing, bounds);
  if (window && band) {
    const data = await band.readWindow(window, { quantity: 'sigma0', denoise: params.denoise });
    const landMask = land === null ? undefined : windowLandMask(product, window, m, pixelSpacing, params.shoreBufferM, land);
    const pixels = { ...window, sigma0: data.data, valid: data.valid, land: landMask };
    const mask = refineOutlineMask(c.region, c.features.backgroundDb, m, pixelSpacing, pixels, params.thresholdShiftDb);
    // Simplified as the working-grid outline is: simplifyTolerancePx of the grid traced.
    if (mask) {
      return {
        polygons: refinedPolygons(mask, window, toLonLat, params.simplifyTolerancePx),
        axes: maskAxesM(mask, window.width, window.height, pixelSpacing),
      };
    }
  }
  return { polygons: regionPolygons(c.region, m, toLonLat, params.simplifyTolerancePx), axes: null };
}

/** What detectSlicksInTile returns for a tile without sea. */
function emptyTileRegions(tile: Tile, params: OilSlickParams, pixelSpacing: PixelSpacing): TileRegions {
  const m = params.multilook;
  const core = tile.coreInHalo;
  const wcore = {
    x0: core.x0 / m,
    y0: core.y0 / m,
    width: Math.ceil((core.x0 + core.width) / m) - core.x0 / m,
    height: Math.ceil((core.y0 + core.height) / m) - core.y0 / m,
  };
  return {
    multilook: m,
    width: Math.ceil(tile.halo.width / m),
    height: Math.ceil(tile.halo.height / m),
    spacing: { range: pixelSpacing.range * m, azimuth: pixelSpacing.azimuth * m },
    core: wcore,
    parts: [],
    edges: { top: new Int32Array(wcore.width), bottom: new Int32Array(wcore.width), left: new Int32Array(wcore.height), right: new Int32Array(wcore.height) },
  };
}
