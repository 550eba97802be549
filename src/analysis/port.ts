/**
 * The detectors' port: the types an analysis module takes and returns (ResolvedInput,
 * AnalysisRequest, AnalysisOutput, ResultCollection…), shared by every detector, the engine,
 * the worker and the CLI. Types only; it imports nothing of the wiring (no endpoint table,
 * no registry: that is src/endpoints/analysisRegistry.ts).
 */
import type { EndpointId, Family } from '../contract/enums.ts';
import type { Coverage, Warning } from '../contract/schemas.ts';
import type { SceneRecord } from '../catalog/types.ts';
import type { AoiGeometry, Polygon } from '../geo/types.ts';

export interface ResultFeature {
  type: 'Feature';
  id: number;
  geometry: Polygon;
  properties: { area_sqm: number; confidence: number | null } & Record<string, unknown>;
}

export interface ResultCollection {
  type: 'FeatureCollection';
  bbox?: [number, number, number, number];
  features: ResultFeature[];
}

/**
 * What the detectors read of a scene: its id (messages), product type, date, footprint and
 * assets (the files or URLs of its product and bands). A catalog's SceneRecord is one; the
 * CLI makes one for a local file the catalog cannot identify.
 */
export type ResolvedScene = Pick<SceneRecord, 'sceneId' | 'productType' | 'startTime' | 'footprint' | 'assets'>;

/**
 * How a σ0 GeoTIFF's values are read (src/imagery/sigma0): its polarisations in band order
 * (default: from the band descriptions), linear (default) or dB, or an 8-bit image of grey
 * levels linear in dB between two ends (oilslick only; the CLI's --units grey8).
 */
export interface GeoTiffEncoding {
  pols?: string[];
  units?: 'linear' | 'db';
  grey?: { minDb: number; maxDb: number };
}

/**
 * The imagery a job analyses, chosen before the analysis runs: a whole scene (scene_id), or
 * the selection for a polygon, with `extent` = polygon ∩ imagery (what to analyse and clip to).
 */
export type ResolvedInput =
  | { kind: 'scene'; scene: ResolvedScene }
  | { kind: 'nearest'; scene: ResolvedScene; extent: AoiGeometry; aoi: AoiGeometry }
  | { kind: 'pair'; earlier: ResolvedScene; later: ResolvedScene; extent: AoiGeometry; aoi: AoiGeometry }
  | { kind: 'series'; scenes: ResolvedScene[]; extent: AoiGeometry; aoi: AoiGeometry }
  /**
   * An image upload (`tif_id`): `file` is its local copy, fetched by the worker before the
   * analysis; `encoding` (a σ0 GeoTIFF's, the CLI's --pol/--units) defaults to linear σ0.
   */
  | { kind: 'image'; image: 'geotiff' | 'safe'; key: string; file: string | null; extent: AoiGeometry; aoi: AoiGeometry; encoding?: GeoTiffEncoding };

export interface AnalysisRequest {
  jobId: string;
  endpointId: EndpointId;
  family: Family;
  input: ResolvedInput;
  /** Request size limit: a measured coverage.polygon is simplified to fit it. */
  maxRequestBytes: number;
  /**
   * The polygon upload the job names by `polygon_id` (its union is `input.aoi`); a detector
   * that works per feature (per field) reads them here, in upload order, properties kept.
   */
  upload?: { polygonId: string; features(): Promise<UploadFeatureCollection> };
  /** timeseries: the cell edge in metres (the CLI's --cell-size); jobs use the detector's default. */
  cellSizeM?: number;
  /**
   * ship (issue 23 §3): the same track's acquisitions before the analysed scene (same relative
   * orbit and direction, overlapping frame), newest first, at most `limit`, at most `days`
   * back. Absent when nothing can be known (an uploaded image, the CLI): none are used.
   */
  earlierAcquisitions?: (limit: number, days: number) => Promise<ResolvedScene[]>;
  /** ship: keep the detections flagged `fixed_structure: true` (request `include_fixed_structures`). Default false: left out. */
  includeFixedStructures?: boolean;
  /**
   * ship: the near-shore path (ShipParams.nearShore.enabled; request `near_shore_detection`).
   * Absent: the detector's default (DEFAULT_SHIP_PARAMS).
   */
  nearShore?: boolean;
}

export interface UploadFeatureCollection {
  type: 'FeatureCollection';
  features: { type: 'Feature'; geometry: AoiGeometry; properties: Record<string, unknown> }[];
}

export interface AnalysisContext {
  /** 0–100; shown as the job's `progress`. */
  reportProgress(percent: number): void;
  signal: AbortSignal;
  /**
   * Where this job's tile tasks may run besides the process's own pool (scaled out: any
   * worker, through the queue; docs/analysis-engine.md). Absent: the pool.
   */
  tiles?: TileRunner;
  /**
   * ship, oilslick and building change, in the worker: the quicklook's blocks over the analysed
   * region of the band the detector reads (src/analysis/quicklook quicklookBlockGrid,
   * quicklookRasterBlockGrid), so its tile tasks pool the picture's copy
   * (AnalysisOutput.quicklookCopy). Absent (the CLI, an uploaded image): none. `product` is the
   * detector's opened Sigma0Product (ship, oilslick) or the later scene's RasterProduct (building
   * change); not named here: the port imports no imagery.
   */
  quicklookBlocks?: (product: unknown, polarisation: string, region: { x0: number; y0: number; width: number; height: number }) => BlockGrid | null;
}

/** One call of a tile task, as data (src/threads/task.ts ThreadCall): the module under src/ that exports it in its `threadTasks`, its name there, its input and parameters (structured-cloneable). */
export interface TileCall {
  module: string;
  name: string;
  input: unknown;
  params?: unknown;
}

/**
 * Runs a job's tile tasks elsewhere than the calling process's pool (the engine's mapTiles
 * takes it for plans of at least `minTiles` tiles whose tasks read their own tile).
 */
export interface TileRunner {
  /** Tasks out at once. */
  readonly concurrency: number;
  /** Plans smaller than this stay on the process's pool (one task's overhead is not worth it). */
  readonly minTiles: number;
  /** The task's result; rejects when it failed for good or `signal` aborts. */
  run(call: TileCall, signal?: AbortSignal): Promise<unknown>;
}

export interface AnalysisOutput {
  /** The GeoJSON result (endpoints whose descriptor's result kind is `geojson`). */
  result?: ResultCollection;
  /** The zip result (result kind `zip`, served at result.zip). */
  archive?: Uint8Array;
  /**
   * What the analysis measured itself (building change, time series: the analysed area
   * without no-data, and `measured` coverage). Absent: the selection's estimate stands.
   */
  measured?: { areaSqkm: number; coverage: Coverage | null };
  /** Warnings found while analysing, added to the selection's. */
  warnings?: Warning[];
  /** One line on what was analysed (area, channels, cells, fields), for logs and the CLI. */
  summary?: string;
  /**
   * ship and oilslick: the detector's own copy of the analysed band pooled on the quicklook's blocks (DN² sums
   * of each block's middle line: src/analysis/common/quicklookCopy.ts poolDn2, quicklook/index.ts), so the worker's quicklook needs no second read of the
   * scene. Absent where the tiles could not make it (scaled out, no DN: σ0 read instead, a σ0 GeoTIFF).
   * Building change: the later scene's linear γ0/σ0 pooled the same way by the pair's tiles
   * (src/analysis/change/quicklookCopy.ts), a PooledValues.
   */
  quicklookCopy?: PooledBlocks | PooledValues;
}

/**
 * Blocks of rowStep × runLength full-image pixels, block (0, 0) starting at (y0, x0): the
 * quicklook's sampling grid (src/analysis/quicklook/sample.ts) as the detector's tiles pool it.
 */
export interface BlockGrid {
  /** The band pooled (e.g. 'VH'). */
  polarisation: string;
  y0: number;
  x0: number;
  rowStep: number;
  runLength: number;
  rows: number;
  runs: number;
  /**
   * Lines of each block pooled, centred on the block's middle line (row y0 + k·rowStep +
   * ⌊rowStep/2⌋, the line the strided read samples): 1 pools that line only, rowStep the whole block.
   */
  lines: number;
  /** Columns from x0 the blocks cover (the last block may be cut short, as the strided read's last run is). Absent: runs × runLength. */
  width?: number;
}

/** Per-block sums of DN² over the valid pixels and their counts (row-major, grid.rows × grid.runs). */
export interface PooledBlocks {
  grid: BlockGrid;
  sumDn2: Float64Array;
  counts: Uint32Array;
}

/** Per-block sums of a linear quantity (γ0/σ0) over its finite values and their counts (row-major, grid.rows × grid.runs): building change's copy. */
export interface PooledValues {
  grid: BlockGrid;
  sum: Float64Array;
  counts: Uint32Array;
}

export interface AnalysisModule {
  endpointId: EndpointId;
  run(request: AnalysisRequest, ctx: AnalysisContext): Promise<AnalysisOutput>;
}
