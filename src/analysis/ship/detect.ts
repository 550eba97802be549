// Ship detection over a whole SAFE GRD product: tiles streamed from src/imagery, land mask,
// detectShipsInTile (tile.ts) in this thread or on the analysis worker pool, azimuth-ambiguity
// suppression, vectorisation, the result FeatureCollection. Algorithm and measurements:
// docs/ship.md.

import { geodesicAreaSqm } from '../../geo/area.ts';
import { AoiClipper, convexHull } from '../../geo/aoiClipper.ts';
import { rasterizeLandMask } from '../../geo/landMask.ts';
import { vesselProperties } from './vesselProperties.ts';
import type { AoiGeometry, Polygon } from '../../geo/types.ts';
import { maskToPolygons } from '../../geo/vectorize.ts';
import { intersectWindows, isSafeProduct, openSafeProduct, planTiles, SIGMA_FLOOR_LINEAR, type PixelWindow, type Sigma0Band, type Sigma0Product, type Tile } from '../../imagery/index.ts';
import { finalizeFeatureCollection, type FinalizedCollection } from '../common/result.ts';
import { mapTiles } from '../engine/mapTiles.ts';
import { aoiVertexBounds, aoiWindow, imagePixelOf } from '../engine/window.ts';
import { BrightSourceMap, findAzimuthAmbiguities, readAmbiguityGeometry } from './ambiguity.ts';
import { prepareTileCalibration } from './calibrate.ts';
import { resolveShipParams, type ShipParams, type ShipParamsInput } from './params.ts';
import { detectShipsInTile, detectShipsInTileWithSources, requiredHalo, type Channel, type PooledSources, type ShipDetection, type ShipTileInput } from './tile.ts';

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
  /** Wall-clock milliseconds per stage: waiting for reads, tile inputs on this thread (valid and land masks, calibration vectors), detectShipsInTile (run or awaited) and merging, the ambiguity step, polygons. */
  timings: { read: number; input: number; detect: number; ambiguity: number; vectorize: number; total: number };
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
  // SAFE without noise removal: the main thread reads DN only and the tile's worker calibrates
  // it (calibrate.ts, bit-identical σ0), since reading is the critical path of a scene.
  const calibration = safe && !params.denoise ? { vh: bands.vh && safe.bands[bands.vh.polarisation]!.calibration, vv: bands.vv && safe.bands[bands.vv.polarisation]!.calibration } : null;
  const readOptions = calibration ? { quantity: 'dn' as const, denoise: false } : { quantity: 'sigma0' as const, denoise: params.denoise };

  const detections: ShipDetection[] = [];
  const readTile = async (window: PixelWindow) => {
    const [vh, vv] = await Promise.all([bands.vh?.readWindow(window, readOptions), bands.vv?.readWindow(window, readOptions)]);
    return { vh, vv };
  };
  type TileData = Awaited<ReturnType<typeof readTile>>;
  const tileInput = (tile: Tile, data: TileData): ShipTileInput => {
    const win = tile.halo;
    const n = win.width * win.height;
    let valid = (data.vh ?? data.vv)!.valid;
    if (data.vh && data.vv) {
      valid = valid.slice();
      const other = data.vv.valid;
      for (let i = 0; i < n; i++) valid[i] = valid[i]! & other[i]!;
    }
    let land: Uint8Array | undefined;
    if (params.landMask) {
      land = rasterizeLandMask({
        width: win.width,
        height: win.height,
        pixelToLonLat: (r, c) => geolocation.pixelToLonLat(win.y0 + r, win.x0 + c),
        lonLatToPixel: (lon, lat) => {
          const p = geolocation.lonLatToPixel(lon, lat);
          return [p.line - win.y0, p.pixel - win.x0];
        },
        bufferMeters: params.landBufferM,
        pixelSpacing: spacing,
      });
    }
    const origin = { row: win.y0, col: win.x0 };
    return {
      sigma0: { ...(data.vh ? { vh: data.vh.data } : {}), ...(data.vv ? { vv: data.vv.data } : {}) },
      valid,
      ...(land ? { land } : {}),
      width: win.width,
      height: win.height,
      pixelSpacing: spacing,
      core: tile.coreInHalo,
      origin,
      ...(calibration
        ? {
            calibrate: {
              ...(data.vh && calibration.vh ? { vh: prepareTileCalibration(calibration.vh.vectors, win, SIGMA_FLOOR_LINEAR) } : {}),
              ...(data.vv && calibration.vv ? { vv: prepareTileCalibration(calibration.vv.vectors, win, SIGMA_FLOOR_LINEAR) } : {}),
            },
          }
        : {}),
    };
  };
  // The tile's arrays move to the worker (not copied).
  const prepare = (tile: Tile, data: TileData) => {
    const input = tileInput(tile, data);
    const transfer = [...new Set([input.sigma0.vh, input.sigma0.vv, input.valid, input.land].filter((a) => a !== undefined).map((a) => a!.buffer as ArrayBuffer))];
    return { input, transfer, keep: undefined };
  };
  const engine = {
    signal: options.signal,
    threads: options.threads,
    onProgress: (done: number, total: number) => options.onProgress?.(Math.floor((100 * done) / total)),
  };
  // With ambiguity suppression the tile also pools its core for the source map (on the worker).
  const tileTimings = sources
    ? await mapTiles(plan, readTile, { name: 'detectShipsInTileWithSources', run: detectShipsInTileWithSources, params, input: prepare }, (_tile, out) => {
        sources.merge(out.sources);
        detections.push(...out.detections);
      }, engine)
    : await mapTiles(plan, readTile, { name: 'detectShipsInTile', run: detectShipsInTile, params, input: prepare }, (_tile, found) => {
        detections.push(...found);
      }, engine);
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
  return { result, detections: keptDetections, tiles: plan.tiles.length, channels, ambiguities, ambiguitySkipped, region, timings };
}
