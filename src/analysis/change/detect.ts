// newbuilding / disappearbuilding on an RTC pair: the driver around detectChangeInTile.
//
// - Reads only the AOI's pixel window, tile by tile, so memory depends on the tile size, not
//   on the area: a 30,000 km² AOI at 10 m is ~300 M pixels, never held at once. On the
//   analysis pool with local rasters each task opens the pair and reads its own tile
//   (pairTile.ts); else this thread reads the next tiles while the pool models earlier ones.
// - Both images are read on the pre image's grid (pairGrid.ts: identical / shifted window /
//   nearest-neighbour resampling).
// - Per tile: validity (both images, AOI), model probability, regions (tile.ts); each region
//   is traced to a pixel-exact polygon (geo/vectorize.ts) and, where it reaches the AOI
//   boundary, clipped to the AOI (regionPolygons.ts) — by the tile's task when it reads its
//   own tile (on a pool thread or, scaled out, any worker), which also writes each polygon as
//   the result does (rounded, oriented, its geodesic area), so this thread only appends them
//   and, at the end, orders them.
// - Measured: the analysed area counts pixels valid in both images with their centre in the
//   AOI, each with its geodesic ground area; the analysed extent is the valid mask
//   vectorised (on a coarser lattice for large AOIs), clipped to the AOI and simplified to
//   the request size budget.

import type { BlockGrid, PooledValues, TileRunner } from '../port.ts';
import type { AoiGeometry, Polygon, Position } from '../../geo/types.ts';
import { maskToPolygons } from '../../geo/vectorize.ts';
import type { RasterProduct } from '../../imagery/rtc/raster.ts';
import { isGrdSource, openRasterSources, type RasterSource } from '../../imagery/geocode/source.ts';
import { isRemoteHref } from '../../imagery/remote/access.ts';
import { planTiles, type Tile } from '../../imagery/tiles.ts';
import type { PixelWindow } from '../../imagery/window.ts';
import { ImageryError } from '../../imagery/errors.ts';
import { finalizePrepared, type FinalizedCollection } from '../common/result.ts';
import { mapTiles, type TileTimings } from '../engine/mapTiles.ts';
import { addAnalysisCpu, cpuSince, threadCpuSeconds } from '../engine/cpu.ts';
import { aoiPixelEdges } from './aoiMask.ts';
import { aoiWindow } from '../engine/window.ts';
import { combinePolygons, measuredCoverage, type MeasuredCoverage } from './coverage.ts';
import { DEFAULT_CHANGE_MODEL, type ChangeKind } from './model.ts';
import { gridRelation, type GridRelation } from './pairGrid.ts';
import { readChangeTile, threadTasks as pairTileTasks, type ChangeTileRead, type ChangeTileReading, type LatticeCounts } from './pairTile.ts';
import { tileDetections, type TileDetections } from './regionPolygons.ts';
import { threadTasks as tileTasks, type ChangeParams } from './tile.ts';
import { emptyPooledValues, mergePooledValues, type PooledValuesPart, type QuicklookPooling } from './quicklookCopy.ts';

export { detectChangeInTile, prepareFeatures, channelsOf } from './tile.ts';
export type { ChangeParams, ChangeRegion, ChangeTileInput, ChangeTileOptions, ChangeTileResult, BandPair, PixelRect } from './tile.ts';

/**
 * One date's rasters, at least one polarisation: local paths or http(s) URLs of RTC
 * GeoTIFFs, or SAFE GRD polarisations geocoded onto a UTM grid (src/imagery/geocode) —
 * both open as RasterProducts and go through the same pipeline.
 */
export type PairSources = { vv: RasterSource; vh?: RasterSource } | { vv?: RasterSource; vh: RasterSource };
/** The RTC case of PairSources (paths or URLs). */
export type RtcPaths = { vv: string; vh?: string } | { vv?: string; vh: string };

export interface RtcPairOptions {
  aoi: AoiGeometry;
  kind: ChangeKind;
  params?: ChangeParams & {
    /** Tile core size in pixels. Default 1024 (~0.15 GB of buffers per tile in flight, halo overhead ~19 %). */
    tileSize?: number;
    /** Extra context around each tile beyond the filter windows, pixels. Default 40 (400 m at 10 m). */
    regionHalo?: number;
    /** Longest side of the lattice the coverage extent is traced on. Default 1024 cells. */
    extentCells?: number;
    /**
     * Worker threads for the tile model (src/analysis/engine pool): at most this many tiles
     * are out at once while the main thread reads the next ones and traces polygons.
     * 0 (default) runs every tile inline.
     */
    threads?: number;
  };
  /** Request size limit; coverage.polygon fits within it minus 1024 bytes. */
  maxRequestBytes: number;
  /** 0–100, after every tile. */
  onProgress?: (percent: number) => void;
  signal?: AbortSignal;
  /** Where else the tiles may run (scaled out: any worker), when each task reads its own tile (engine/mapTiles.ts). */
  tiles?: TileRunner;
  /**
   * The quicklook's blocks (src/analysis/quicklook quicklookRasterBlockGrid) over `region` of
   * the later scene's `raster`, the band the quicklook shows (VV, else VH), in that raster's
   * pixels: the tiles pool the copy (RtcPairResult.quicklookCopy). Null or absent: no copy.
   */
  quicklookBlocks?: (raster: RasterProduct, polarisation: 'VV' | 'VH', region: PixelWindow) => BlockGrid | null;
}

export interface RtcPairResult {
  result: FinalizedCollection;
  /** Analysed area: pixels valid in both images with their centre in the AOI, km². */
  areaSqkm: number;
  coverage: MeasuredCoverage;
  /** Diagnostics for logs and benchmarks. */
  stats: {
    tiles: number;
    pixels: number;
    validPixels: number;
    regions: number;
    /** Regions cut by a tile window (wider than the halo): reported in pieces. */
    truncatedRegions: number;
    grid: GridRelation['kind'];
    channels: string;
    /** Wall-clock split, ms: waiting for reads, tiles (model + region polygons), coverage extent, result assembly. */
    timingsMs: { read: number; detect: number; polygons: number; extent: number };
  };
  /** The later scene's band pooled on the quicklook's blocks, when `quicklookBlocks` gave some (quicklookCopy.ts). */
  quicklookCopy?: PooledValues;
}

interface OpenPair {
  /** [VV, VH] of each date, each present only when both dates have it. */
  pre: RasterProduct[];
  post: RasterProduct[];
  /** Their sources, as openRasterSources opened them (another thread opens the same). */
  preSources: RasterSource[];
  postSources: RasterSource[];
  preVv: RasterProduct | undefined;
  preVh: RasterProduct | undefined;
  /** The later date's band a quicklook shows (its VV, else its VH: quicklook/index.ts), when the pair reads it (both dates have it). */
  shown: { polarisation: 'VV' | 'VH'; raster: RasterProduct } | null;
}

async function openPair(prePaths: PairSources, postPaths: PairSources): Promise<OpenPair> {
  // A polarisation is used only when both dates have it.
  const useVv = !!(prePaths.vv && postPaths.vv);
  const useVh = !!(prePaths.vh && postPaths.vh);
  if (!useVv && !useVh) throw new ImageryError('INVALID_PRODUCT', 'the pre and post scenes share no polarisation (VV or VH)');
  const wanted = [useVv ? prePaths.vv : undefined, useVh ? prePaths.vh : undefined, useVv ? postPaths.vv : undefined, useVh ? postPaths.vh : undefined];
  const sources = wanted.filter((s): s is RasterSource => s !== undefined);
  const rasters = await openRasterSources(sources);
  try {
    let k = 0;
    const [preVv, preVh, postVv, postVh] = wanted.map((s) => (s === undefined ? undefined : rasters[k++]!));
    const pre = [preVv, preVh].filter((p): p is RasterProduct => !!p);
    const post = [postVv, postVh].filter((p): p is RasterProduct => !!p);
    for (const group of [pre, post]) {
      if (group.length === 2 && gridRelation(group[0]!, group[1]!).kind !== 'identical') {
        throw new ImageryError('INVALID_PRODUCT', `VV and VH of one date are on different grids: ${group[0]!.location}, ${group[1]!.location}`);
      }
    }
    if (pre[0]!.epsg === null) throw new ImageryError('UNSUPPORTED_CRS', `${pre[0]!.location} names no EPSG code`);
    const shownPol = postPaths.vv ? 'VV' : 'VH';
    const shownRaster = shownPol === 'VV' ? postVv : postVh;
    const shown = shownRaster ? { polarisation: shownPol, raster: shownRaster } as const : null;
    return { pre, post, preSources: sources.slice(0, pre.length), postSources: sources.slice(pre.length), preVv, preVh, shown };
  } catch (error) {
    await Promise.all(rasters.map((p) => p.close()));
    throw error;
  }
}

/**
 * Building change between two acquisitions of one path/frame over `aoi`: RTC rasters, or
 * GRD products geocoded onto one UTM grid (the same pipeline; see docs/change.md, Grids).
 * `kind` 'newbuilding': buildings present in post and not in pre; 'disappearbuilding': the reverse.
 */
export async function detectChangeInRtcPair(prePaths: PairSources, postPaths: PairSources, options: RtcPairOptions): Promise<RtcPairResult> {
  const pair = await openPair(prePaths, postPaths);
  let pass: TilePass;
  try {
    pass = await runTiles(pair, options);
  } finally {
    await Promise.all([...pair.pre, ...pair.post].map((p) => p.close()));
  }
  // The rasters' block caches and the tile buffers are released before the result is built:
  // with hundreds of thousands of detections the result is the largest thing in memory.
  const started = performance.now();
  const cpu = threadCpuSeconds();
  const store = pass.detections;
  // The tiles wrote each polygon as the result does and measured its area (regionPolygons.ts):
  // left here are their order, ids and the bbox.
  const result = finalizePrepared(
    Array.from({ length: store.count }, (_, i) => ({ index: i, geometry: store.geometry(i), area: store.area(i) })),
    { confidence: (i) => store.confidence(i) },
  );
  pass.stats.timingsMs.polygons += performance.now() - started;
  addAnalysisCpu('merge', cpuSince(cpu));
  return { result, areaSqkm: pass.areaSqkm, coverage: pass.coverage, stats: pass.stats, ...(pass.quicklookCopy ? { quicklookCopy: pass.quicklookCopy } : {}) };
}

/**
 * Detections between the tile pass and the result, packed into large Float64Array chunks:
 * per detection [ring count, ring lengths…, lon, lat, lon, lat, …], its confidence and area. A
 * country-sized AOI can yield ~10⁶ building outlines; as JS arrays of [lon, lat] pairs they
 * would cost ~2 KB each before the result is even built, packed ~0.5 KB.
 */
class DetectionStore {
  private static readonly CHUNK = 1 << 20;
  private readonly chunks: Float64Array[] = [];
  private used = DetectionStore.CHUNK;
  private where = new Int32Array(1024);
  private conf = new Float64Array(512);
  private areas = new Float64Array(512);
  count = 0;

  /** A tile's packed detections (regionPolygons.ts: the same layout per polygon), in order. */
  addTile(d: TileDetections): void {
    let k = 0;
    for (let i = 0; i < d.count; i++) {
      const n = d.coords[k]!;
      let size = 1 + n;
      for (let r = 0; r < n; r++) size += 2 * d.coords[k + 1 + r]!;
      this.addPacked(d.coords.subarray(k, k + size), Number.isNaN(d.confidence[i]!) ? null : d.confidence[i]!, d.area[i]!);
      k += size;
    }
  }

  private addPacked(packed: Float64Array, confidence: number | null, area: number): void {
    const size = packed.length;
    if (this.used + size > DetectionStore.CHUNK) {
      this.chunks.push(new Float64Array(Math.max(DetectionStore.CHUNK, size)));
      this.used = 0;
    }
    const chunk = this.chunks[this.chunks.length - 1]!;
    const start = this.used;
    chunk.set(packed, start);
    this.used = start + size;
    if (2 * this.count + 2 > this.where.length) {
      const w = new Int32Array(this.where.length * 2);
      w.set(this.where);
      this.where = w;
      const c = new Float64Array(this.conf.length * 2);
      c.set(this.conf);
      this.conf = c;
      const a = new Float64Array(this.areas.length * 2);
      a.set(this.areas);
      this.areas = a;
    }
    this.where[2 * this.count] = this.chunks.length - 1;
    this.where[2 * this.count + 1] = start;
    this.conf[this.count] = confidence === null ? Number.NaN : confidence;
    this.areas[this.count] = area;
    this.count++;
  }

  geometry(i: number): Polygon {
    const chunk = this.chunks[this.where[2 * i]!]!;
    let k = this.where[2 * i + 1]!;
    const n = chunk[k++]!;
    const lengths: number[] = [];
    for (let r = 0; r < n; r++) lengths.push(chunk[k++]!);
    const coordinates: Position[][] = lengths.map((len) => {
      const ring: Position[] = new Array(len);
      for (let j = 0; j < len; j++, k += 2) ring[j] = [chunk[k]!, chunk[k + 1]!];
      return ring;
    });
    return { type: 'Polygon', coordinates };
  }

  /** Geodesic area, m² (resultPolygon). */
  area(i: number): number {
    return this.areas[i]!;
  }

  confidence(i: number): number | null {
    const c = this.conf[i]!;
    return Number.isNaN(c) ? null : c;
  }
}

interface TilePass {
  detections: DetectionStore;
  areaSqkm: number;
  coverage: MeasuredCoverage;
  stats: RtcPairResult['stats'];
  quicklookCopy?: PooledValues;
}

/**
 * Where the tiles pool the quicklook's copy: the blocks the caller asks for over the region
 * (in the later raster's pixels), when the later band shown is read as it is — the same grid
 * as the reference or shifted by whole pixels; a resampled later date is not the raster the
 * quicklook reads, so it keeps its strided read.
 */
function quicklookPooling(pair: OpenPair, relation: GridRelation, region: PixelWindow, options: RtcPairOptions): QuicklookPooling | null {
  if (!options.quicklookBlocks || !pair.shown || relation.kind === 'resample') return null;
  const [dx, dy] = relation.kind === 'offset' ? [relation.dx, relation.dy] : [0, 0];
  const grid = options.quicklookBlocks(pair.shown.raster, pair.shown.polarisation, { ...region, x0: region.x0 + dx, y0: region.y0 + dy });
  return grid ? { grid, band: pair.shown.polarisation === 'VV' ? 'vv' : 'vh', dx, dy } : null;
}

async function runTiles(pair: OpenPair, options: RtcPairOptions): Promise<TilePass> {
  const { aoi, kind } = options;
  const params = options.params ?? {};
  const model = params.model ?? DEFAULT_CHANGE_MODEL;
  const reference = pair.pre[0]!;
  const relation = gridRelation(reference, pair.post[0]!);
  const edges = aoiPixelEdges(aoi, (lon, lat) => reference.lonLatToPixel(lon, lat));
  const region = aoiWindow(edges, reference, 'centres');
  const stats: RtcPairResult['stats'] = {
    tiles: 0,
    pixels: 0,
    validPixels: 0,
    regions: 0,
    truncatedRegions: 0,
    grid: relation.kind,
    channels: pair.preVv && pair.preVh ? 'dual' : pair.preVv ? 'vv' : 'vh',
    timingsMs: { read: 0, detect: 0, polygons: 0, extent: 0 },
  };
  const t = stats.timingsMs;
  if (!region) {
    options.onProgress?.(100);
    return {
      detections: new DetectionStore(),
      areaSqkm: 0,
      coverage: measuredCoverage({ aoi, analysedAreaSqkm: 0, extent: null, maxRequestBytes: options.maxRequestBytes }),
      stats,
    };
  }

  const tileSize = params.tileSize ?? 1024;
  const halo = Math.max(model.filter.radius, model.backgroundRadius) + (params.regionHalo ?? 40);
  const plan = planTiles(reference.width, reference.height, tileSize, halo, region);
  stats.tiles = plan.tiles.length;

  // Coarse lattice for the analysed extent: f × f pixels per cell.
  const extentCells = params.extentCells ?? 1024;
  const f = Math.max(1, Math.ceil(Math.max(region.width, region.height) / extentCells));
  const cw = Math.ceil(region.width / f);
  const ch = Math.ceil(region.height / f);
  const cellInside = new Int32Array(cw * ch);
  const cellValid = new Int32Array(cw * ch);

  const detections = new DetectionStore();
  let areaSqm = 0;
  const [, gtA, , , , gtE] = reference.geotransform;
  // Both dates carry the same polarisations (openPair), in the order VV, VH.
  const reading: ChangeTileReading = {
    relation,
    vvIndex: pair.preVv ? 0 : -1,
    vhIndex: pair.preVh ? (pair.preVv ? 1 : 0) : -1,
    edges,
    region,
    cell: f,
    nominalPixelM: Math.sqrt(Math.abs(gtA * gtE)),
  };
  const pooling = quicklookPooling(pair, relation, region, options);
  if (pooling) reading.quicklook = pooling;
  const quicklookCopy = pooling ? emptyPooledValues(pooling.grid) : undefined;
  const addQuicklook = (part: PooledValuesPart | undefined) => {
    if (quicklookCopy && part) mergePooledValues(quicklookCopy, part);
  };
  const addLattice = (l: LatticeCounts) => {
    for (let y = 0; y < l.height; y++) {
      for (let x = 0; x < l.width; x++) {
        const k = y * l.width + x;
        const cell = (l.y0 + y) * cw + l.x0 + x;
        cellInside[cell]! += l.inside[k]!;
        cellValid[cell]! += l.valid[k]!;
      }
    }
  };
  const mergeTile = (tile: Tile, found: TileDetections, validCount: number, pixelSizeM: number) => {
    stats.pixels += tile.core.width * tile.core.height;
    stats.validPixels += validCount;
    areaSqm += validCount * pixelSizeM * pixelSizeM;
    stats.regions += found.regions;
    stats.truncatedRegions += found.truncatedRegions;
    detections.addTile(found);
  };

  const { threads: _threads, tileSize: _tileSize, regionHalo: _regionHalo, extentCells: _extentCells, ...tileParams } = params;
  const threads = Math.max(0, Math.floor(params.threads ?? 0));
  const taskParams = { kind, params: tileParams };
  // With worker threads at most `threads` tiles are out at once.
  const engine = { signal: options.signal, threads, prefetch: Math.max(1, threads), onProgress: (done: number, total: number) => options.onProgress?.(Math.floor((100 * done) / total)) };
  let tileTimings: TileTimings;
  if (threads > 0 && [...pair.preSources, ...pair.postSources].every(isLocalSource)) {
    // On the pool, each task opens the pair on its thread, reads its own tile and traces its
    // regions: this thread only plans, dispatches and appends, so its event loop stays free.
    const input = (tile: Tile) => ({ input: { pre: pair.preSources, post: pair.postSources, reading, tile, aoi }, keep: undefined });
    tileTimings = await mapTiles(plan, null, { run: pairTileTasks.detectChangeInPairTile, params: taskParams, input }, (tile, out) => {
      addLattice(out.lattice);
      addQuicklook(out.quicklook);
      mergeTile(tile, out.detections, out.validCount, out.pixelSizeM);
    }, { ...engine, runner: options.tiles });
  } else {
    // In this thread (or remote rasters): tiles read here, the next ones while `threads` tiles are being modelled.
    const read = (_window: PixelWindow, tile: Tile) => readChangeTile(pair.pre, pair.post, reading, tile);
    const input = (_tile: Tile, data: ChangeTileRead) => {
      addLattice(data.lattice);
      addQuicklook(data.quicklook);
      const { input, inside, pixelSizeM } = data;
      // The tile's arrays move to the worker; the AOI mask is kept for clipping polygons.
      const transfer = [
        ...new Set(
          [input.pre.vv, input.pre.vh, input.post.vv, input.post.vh, input.validPre, input.validPost, input.inside]
            .filter((a) => a !== undefined)
            .map((a) => a!.buffer as ArrayBuffer),
        ),
      ];
      return { input, transfer: threads > 0 ? transfer : [], keep: { inside: threads > 0 ? inside.slice() : inside, pixelSizeM } };
    };
    tileTimings = await mapTiles(plan, read, { run: tileTasks.detectChangeTileTask, params: taskParams, input }, (tile, out, keep) =>
      mergeTile(tile, tileDetections(out, tile.halo, keep.inside, reference, aoi), out.validCount, keep.pixelSizeM),
    engine);
  }
  t.read += tileTimings.read;
  t.detect += tileTimings.input + tileTimings.tasks + tileTimings.merge;
  let clock = performance.now();

  const extentPolygons = maskToPolygons(
    Uint8Array.from(cellValid, (v, i) => (v > 0 && 2 * v >= cellInside[i]! ? 1 : 0)),
    cw,
    ch,
    (r, c) => {
      // (r, c) are cell corners − 0.5 in cell units; back to pixel-centre convention.
      const col = Math.min(region.x0 + (c + 0.5) * f, region.x0 + region.width) - 0.5;
      const row = Math.min(region.y0 + (r + 0.5) * f, region.y0 + region.height) - 0.5;
      return reference.pixelToLonLat(row, col);
    },
    { simplifyTolerance: f > 1 ? 0.5 : 0 },
  ).map((p) => p.geometry);

  const areaSqkm = Math.round(areaSqm) / 1e6;
  const coverage = measuredCoverage({ aoi, analysedAreaSqkm: areaSqkm, extent: combinePolygons(extentPolygons), maxRequestBytes: options.maxRequestBytes });
  t.extent += performance.now() - clock;
  return { detections, areaSqkm, coverage, stats, ...(quicklookCopy ? { quicklookCopy } : {}) };
}

/** A local file (an RTC GeoTIFF or a SAFE product): another thread opens it as this one did. */
function isLocalSource(source: RasterSource): boolean {
  return !isRemoteHref(isGrdSource(source) ? source.product : source);
}

/** detectChangeInRtcPair under the name that says it takes any pair of sources (RTC or geocoded GRD). */
export const detectChangeInPair = detectChangeInRtcPair;
