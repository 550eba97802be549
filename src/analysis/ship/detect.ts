// Ship detection over a whole SAFE GRD product: tiles read with their land mask (sceneTile.ts)
// and detectShipsInTile (tile.ts) in this thread or on the analysis worker pool (which then
// reads each tile itself), azimuth-ambiguity
// suppression, vectorisation, the result FeatureCollection. Algorithm and measurements:
// docs/ship.md.

import { geodesicAreaSqm } from '../../geo/area.ts';
import { AoiClipper, convexHull } from '../../geo/aoiClipper.ts';
import { rasterizeLandMask } from '../../geo/landMask.ts';
import { vesselProperties } from './vesselProperties.ts';
import type { AoiGeometry, Polygon } from '../../geo/types.ts';
import type { BlockGrid, PooledBlocks, TileRunner } from '../port.ts';
import { maskToPolygons } from '../../geo/vectorize.ts';
import { intersectWindows, isSafeProduct, openSafeProduct, planTiles, SIGMA_FLOOR_LINEAR, type PixelWindow, type Sigma0Band, type Sigma0Product, type Tile } from '../../imagery/index.ts';
import { finalizeFeatureCollection, type FinalizedCollection } from '../common/result.ts';
import { mapTiles } from '../engine/mapTiles.ts';
import { aoiVertexBounds, aoiWindow, imagePixelOf } from '../engine/window.ts';
import { BrightSourceMap, findAzimuthAmbiguities, readAmbiguityGeometry } from './ambiguity.ts';
import { resolveShipParams, type ShipParams, type ShipParamsInput } from './params.ts';
import { readShipTile, threadTasks as sceneTileTasks, type ShipTileReading } from './sceneTile.ts';
import { emptyPooled, mergePooled, type PooledPart } from '../common/quicklookCopy.ts';
import { detectShipsInTile, requiredHalo, threadTasks as tileTasks, type Channel, type PooledSources, type ShipDetection, type ShipTileInput } from './tile.ts';

export { detectShipsInTile, requiredHalo };
export type { Channel, ShipDetection, ShipTileInput };

export interface DetectShipsOptions {
  /** Area of interest (lon/lat); detections are clipped to it. Default: the whole product. */
  polygon?: AoiGeometry;
  params?: ShipParamsInput;
  /** 0–100 as tiles complete. */
  onProgress?: (percent: number) => void;
  signal?: AbortSignal;
  /** Add the peak contrast (contrast_db) to each feature's properties. Default false. (length_m, width_m, heading_deg, heading_ambiguous, distance_to_shore_m and near_shore are always there: vesselProperties.ts.) */
  includeMeasurements?: boolean;
  /**
   * Run detectShipsInTile on this many worker threads of the shared analysis pool
   * (src/analysis/engine), tiles moved there as transferables. 0 (default): in this thread.
   */
  threads?: number;
  /** Where else the tiles may run (scaled out: any worker), when each task reads its own tile (engine/mapTiles.ts). */
  tiles?: TileRunner;
  /**
   * The quicklook's blocks for the analysed band (src/analysis/quicklook: quicklookBlockGrid),
   * or null: the tile tasks then also pool the band's DN² on them (report.quicklookCopy), so
   * the quicklook needs no second read. Used only where the tasks read DN and merge here
   * (not scaled out through `tiles`, ambiguity suppression on a SAFE product).
   */
  quicklookBlocks?: (product: Sigma0Product, polarisation: string, region: PixelWindow) => BlockGrid | null;
}

export interface ShipSceneReport {
  result: FinalizedCollection;
  detections: ShipDetection[];
  tiles: number;
  channels: Channel[];
  /** Detections dropped as azimuth ghosts. */
  ambiguities: number;
  /** Ambiguity suppression is on but could not run: the product has no SAFE annotation (a σ0 GeoTIFF). */
  ambiguitySkipped: boolean;
  /** Full-image window that was analysed. */
  region: PixelWindow | null;
  /**
   * Wall-clock milliseconds per stage on this thread: waiting for tile reads (with their valid and land masks and
   * calibration vectors; 0 when the pool's tasks read their own tiles), task inputs, detectShipsInTile (run or
   * awaited, with its read on the pool) and merging, the ambiguity step, polygons.
   */
  timings: { read: number; input: number; detect: number; ambiguity: number; vectorize: number; total: number };
  /** The primary band's DN² pooled on the quicklook's blocks (DetectShipsOptions.quicklookBlocks), when made. */
  quicklookCopy?: PooledBlocks;
}

/** Detect ships in a GRD SAFE product (folder, manifest.safe or zip). */
export async function detectShipsInSafe(productPath: string, options: DetectShipsOptions = {}): Promise<FinalizedCollection> {
  const product = await openSafeProduct(productPath);
  try {
    return (await detectShipsInProduct(product, options)).result;
  } finally {
    await product.close();
  }
}

function pickBands(product: Sigma0Product, params: ShipParams): { vh?: Sigma0Band; vv?: Sigma0Band } {
  const usable = (p: string): Sigma0Band | undefined => (product.bands[p]?.hasMeasurement ? product.bands[p] : undefined);
  const cross = usable('VH') ?? usable('HV');
  const co = usable('VV') ?? usable('HH');
  switch (params.polarisation) {
    case 'VH':
      if (!cross) throw new RangeError(`${product.productId} has no readable cross-pol (VH/HV) band`);
      return { vh: cross };
    case 'VV':
      if (!co) throw new RangeError(`${product.productId} has no readable co-pol (VV/HH) band`);
      return { vv: co };
    case 'both':
      if (!cross && !co) break;
      return { ...(cross ? { vh: cross } : {}), ...(co ? { vv: co } : {}) };
    default:
      if (cross) return { vh: cross };
      if (co) return { vv: co };
  }
  throw new RangeError(`${product.productId} has no readable measurement band`);
}

/** The detection's pixel outline as a lon/lat Polygon (one per vessel: clusters are 8-connected). */
export function detectionPolygon(detection: ShipDetection, pixelToLonLat: (line: number, pixel: number) => [number, number]): Polygon | null {
  const { rows, cols } = detection.pixels;
  let r0 = Infinity;
  let r1 = -Infinity;
  let c0 = Infinity;
  let c1 = -Infinity;
  for (let k = 0; k < rows.length; k++) {
    r0 = Math.min(r0, rows[k]!);
    r1 = Math.max(r1, rows[k]!);
    c0 = Math.min(c0, cols[k]!);
    c1 = Math.max(c1, cols[k]!);
  }
  const w = c1 - c0 + 1;
  const h = r1 - r0 + 1;
  const mask = new Uint8Array(w * h);
  for (let k = 0; k < rows.length; k++) mask[(rows[k]! - r0) * w + (cols[k]! - c0)] = 1;
  const polygons = maskToPolygons(mask, w, h, (row, col) => pixelToLonLat(r0 + row, c0 + col), { connectivity: 8 });
  if (polygons.length === 0) return null;
  // One 8-connected cluster gives one polygon; keep the largest should that ever not hold.
  polygons.sort((a, b) => b.pixelCount - a.pixelCount);
  return polygons[0]!.geometry;
}

/**
 * The engine on an opened product (the caller closes it): a SAFE GRD product, or a σ0
 * GeoTIFF (src/imagery/sigma0), which has no annotation and so no azimuth-ambiguity step.
 */
export async function detectShipsInProduct(product: Sigma0Product, options: DetectShipsOptions = {}): Promise<ShipSceneReport> {
  const params = resolveShipParams(options.params);
  const bands = pickBands(product, params);
  const primaryBand = (bands.vh ?? bands.vv)!;
  const channels: Channel[] = [...(bands.vh ? (['VH'] as const) : []), ...(bands.vv ? (['VV'] as const) : [])];
  const spacing = { range: primaryBand.annotation.rangePixelSpacing, azimuth: primaryBand.annotation.azimuthPixelSpacing };
  const halo = requiredHalo(params, spacing);
  const started = performance.now();
  const timings = { read: 0, input: 0, detect: 0, ambiguity: 0, vectorize: 0, total: 0 };
  const safe = isSafeProduct(product) ? product : null;
  const ambiguitySkipped = params.ambiguity.enabled && !safe;
  const geolocation = product.geolocation;
  const empty = (): ShipSceneReport => ({ result: finalizeFeatureCollection([]), detections: [], tiles: 0, channels, ambiguities: 0, ambiguitySkipped, region: null, timings });

  let region = product.validWindow;
  if (!region) return empty();
  // Built once: clipping each detection to a large AOI then costs it only near the AOI's
  // boundary, not the AOI's every vertex (issue 10.1: embedded mode runs this in the API process).
  const clipper = options.polygon ? new AoiClipper(options.polygon) : null;
  if (options.polygon && clipper) {
    // Only the part of the AOI over the scene is mapped to pixels: its vertices then lie where
    // the geolocation grid is defined (points far off the scene need not invert). The AOI is
    // cut to the footprint's convex hull, a superset of the footprint: a window at least as
    // large, in time linear in the AOI's vertices.
    const footprint = product.validFootprint;
    const over = footprint ? clipper.clipToConvex(convexHull(footprint.coordinates[0]!)) : options.polygon;
    const w = over ? aoiWindow(aoiVertexBounds(over, imagePixelOf(product)), product, { x: 2, y: 2 }) : null;
    region = w ? intersectWindows(region, w) : null;
    if (!region) return empty();
  }

  const plan = planTiles(product.width, product.height, params.tileSize, halo, region);
  const sources = params.ambiguity.enabled && safe ? new BrightSourceMap(product.width, product.height, 8) : null;
  // SAFE without noise removal: DN is read and the tile's task calibrates it (calibrate.ts,
  // bit-identical σ0).
  const reading: ShipTileReading = {
    ...(bands.vh ? { vh: bands.vh.polarisation } : {}),
    ...(bands.vv ? { vv: bands.vv.polarisation } : {}),
    calibrateOnTask: !!safe && !params.denoise,
    floor: SIGMA_FLOOR_LINEAR,
    denoise: params.denoise,
    landMask: params.landMask,
    landBufferM: params.landBufferM,
    pixelSpacing: spacing,
  };
  const blocks = sources && reading.calibrateOnTask && !options.tiles ? (options.quicklookBlocks?.(product, primaryBand.polarisation, region) ?? null) : null;
  const quicklookCopy = blocks ? emptyPooled(blocks) : undefined;
  if (blocks) reading.quicklookBlocks = blocks;
  const detections: ShipDetection[] = [];
  const engine = {
    signal: options.signal,
    threads: options.threads,
    runner: options.tiles,
    onProgress: (done: number, total: number) => options.onProgress?.(Math.floor((100 * done) / total)),
  };
  const mergeWithSources = (_tile: Tile, out: { detections: ShipDetection[]; sources: PooledSources; quicklook?: PooledPart }) => {
    sources!.merge(out.sources);
    if (quicklookCopy && out.quicklook) mergePooled(quicklookCopy, out.quicklook);
    detections.push(...out.detections);
  };
  const mergeFound = (_tile: Tile, found: ShipDetection[]) => {
    detections.push(...found);
  };
  let tileTimings;
  const source = product.source;
  if (source && (options.threads ?? 0) > 0) {
    // On the pool, each task reads its own tile from the product's source: this thread only
    // plans, dispatches and merges, so its event loop stays free (a cancel is seen at once).
    const input = (tile: Tile) => ({ input: { source, reading, tile }, keep: undefined });
    tileTimings = sources
      ? await mapTiles(plan, null, { run: sceneTileTasks.detectShipsInSceneTileWithSources, params, input }, mergeWithSources, engine)
      : await mapTiles(plan, null, { run: sceneTileTasks.detectShipsInSceneTile, params, input }, mergeFound, engine);
  } else {
    // In this thread (or a product only this thread can read): tiles read here, their arrays moved to the pool.
    const readTile = (_window: PixelWindow, tile: Tile) => readShipTile(product, reading, tile);
    const prepare = (_tile: Tile, input: ShipTileInput) => {
      const transfer = [...new Set([input.sigma0.vh, input.sigma0.vv, input.valid, input.land, input.landUnbuffered].filter((a) => a !== undefined).map((a) => a!.buffer as ArrayBuffer))];
      return { input, transfer, keep: undefined };
    };
    tileTimings = sources
      ? await mapTiles(plan, readTile, { run: tileTasks.detectShipsInTileWithSources, params, input: prepare }, mergeWithSources, engine)
      : await mapTiles(plan, readTile, { run: tileTasks.detectShipsInTile, params, input: prepare }, mergeFound, engine);
  }
  timings.read = tileTimings.read;
  timings.input = tileTimings.input;
  timings.detect = tileTimings.tasks + tileTimings.merge;

  // Safety net: tiles decide a vessel identically, so none should ever be reported twice;
  // should rounding ever make two tiles disagree at a core edge, overlapping pixels reveal it.
  const owner = new Map<number, number>();
  const unique: ShipDetection[] = [];
  for (const d of detections) {
    let duplicate = false;
    for (let k = 0; k < d.pixels.rows.length && !duplicate; k++) duplicate = owner.has(d.pixels.rows[k]! * product.width + d.pixels.cols[k]!);
    if (duplicate) continue;
    for (let k = 0; k < d.pixels.rows.length; k++) owner.set(d.pixels.rows[k]! * product.width + d.pixels.cols[k]!, unique.length);
    unique.push(d);
  }

  let mark = performance.now();
  let kept = unique;
  let ambiguities = 0;
  if (sources && safe && unique.length > 0) {
    const geometry = await readAmbiguityGeometry(safe, safe.bands[primaryBand.polarisation]!);
    const ghosts = findAzimuthAmbiguities(unique, sources, geometry, {
      minSourceContrastDb: params.ambiguity.minSourceContrastDb,
      toleranceFraction: params.ambiguity.toleranceFraction,
      toleranceRangeM: params.ambiguity.toleranceRangeM,
      rangeSpacing: spacing.range,
    });
    ambiguities = ghosts.size;
    kept = unique.filter((_, i) => !ghosts.has(i));
  }

  timings.ambiguity = performance.now() - mark;
  mark = performance.now();
  const polygons: Array<{ geometry: Polygon; properties: Record<string, unknown> }> = [];
  const keptDetections: ShipDetection[] = [];
  for (const d of kept) {
    let geometry = detectionPolygon(d, (line, pixel) => geolocation.pixelToLonLat(line, pixel));
    if (!geometry) continue;
    if (clipper) {
      const clipped = clipper.intersect(geometry);
      if (!clipped) continue;
      if (clipped.type === 'MultiPolygon') {
        // The AOI cuts the vessel in parts: keep the largest.
        const parts = clipped.coordinates.map((rings): Polygon => ({ type: 'Polygon', coordinates: rings }));
        parts.sort((a, b) => geodesicAreaSqm(b) - geodesicAreaSqm(a));
        geometry = parts[0]!;
      } else {
        geometry = clipped;
      }
    }
    keptDetections.push(d);
    polygons.push({
      geometry,
      properties: {
        ...vesselProperties(d, (line, pixel) => geolocation.pixelToLonLat(line, pixel)),
        ...(options.includeMeasurements ? { contrast_db: Math.round(d.contrastDb * 10) / 10 } : {}),
      },
    });
  }
  const result = finalizeFeatureCollection(polygons);
  timings.vectorize = performance.now() - mark;
  timings.total = performance.now() - started;
  return { result, detections: keptDetections, tiles: plan.tiles.length, channels, ambiguities, ambiguitySkipped, region, timings, ...(quicklookCopy ? { quicklookCopy } : {}) };
}
