// Quicklooks: a finished job's picture (σ0 in dB of what was analysed with the detections drawn,
// or a time series' deviation map), a Web-Mercator overlay a web map places by its bounds, and
// a time series' map layer (its cells and their deviation as small GeoJSON).
// Imports imagery, geo, raster and the analysis modules' input helpers; never jobs/ or api/.
import type { EndpointId, Family } from '../../contract/enums.ts';
import type { AoiGeometry, BBox } from '../../geo/types.ts';
import { bboxOf } from '../../geo/index.ts';
import { openRasterProduct, openSafeProduct, type Sigma0Product } from '../../imagery/index.ts';
import { runTileTask } from '../engine/pool.ts';
import type { BlockGrid, PooledBlocks, PooledValues, ResolvedInput, ResultCollection } from '../port.ts';
import type { PixelWindow } from '../../imagery/index.ts';
import { CalibratedRunSampler } from '../../imagery/safe/overview.ts';
import { isSafeProduct } from '../../imagery/sigma0/types.ts';
import { rtcPaths } from '../modules/rtcInput.ts';
import { safeProductPath, sceneInput, withSigma0GeoTiff } from '../modules/sceneInput.ts';
import { deviationStyle } from '../timeseries/style.ts';
import { threadTasks as renderTasks, type DetectionStyle } from './render.ts';
import { mercatorGrid, type MercatorGrid } from './mercator.ts';
import { sampleSource, samplingSteps, MAX_SIDE, type SampledRaster } from './sample.ts';
import { rasterSource, sigma0Source, type QuicklookSource } from './source.ts';
import { flatBuffers, flattenFeatures, flattenGeometries } from './vectors.ts';
import { renderDeviationMap, type DeviationLegendClass } from './deviationMap.ts';
import { timeseriesMapLayer } from './mapLayer.ts';
import { isPooledValues, pooledValuesRaster } from './rasterCopy.ts';

export { MAX_SIDE } from './sample.ts';

export interface QuicklookRequest {
  endpointId: EndpointId;
  family: Family;
  input: ResolvedInput;
  /** The job's GeoJSON result: the detections drawn, or the time-series cells. */
  result: ResultCollection | undefined;
  signal?: AbortSignal;
  /** ship, oilslick, building change: the detector's pooled copy of the band (AnalysisOutput.quicklookCopy): no second read of the scene when it fits. */
  pooled?: PooledBlocks | PooledValues;
}

export interface QuicklookImages {
  /** PNG: the analysed imagery with the detections drawn, or a time series' deviation map. */
  quicklook: Uint8Array;
  /** PNG on a Web-Mercator grid (EPSG:3857), transparent where there is no data, and its corners [west, south, east, north] in WGS84. */
  overlay: { png: Uint8Array; bounds: BBox } | null;
}

/** How each endpoint's detections are drawn on its quicklook. */
export const DETECTION_STYLES: Partial<Record<EndpointId, DetectionStyle>> = {
  ship: { colour: [255, 40, 40], width: 2, marker: true },
  oilslick: { colour: [255, 200, 0], width: 2, marker: false },
  newbuilding: { colour: [255, 40, 40], width: 1, marker: false },
  disappearbuilding: { colour: [0, 200, 255], width: 1, marker: false },
};

/**
 * The quicklook of a completed job, or null for an endpoint without one (idlefarm draws its
 * own charts). Reads the imagery again, strided (about one pixel in rowStep × runLength) — a
 * ship or oil job's `pooled` copy from the detector instead, when it fits — and renders on the
 * analysis pool; the caller decides what a failure costs (the worker: nothing).
 */
export async function makeQuicklook(request: QuicklookRequest): Promise<QuicklookImages | null> {
  const { endpointId, input, result, signal } = request;
  const features = result?.features ?? [];
  switch (endpointId) {
    case 'ship':
    case 'oilslick': {
      const scene = sceneInput(input);
      const prefer = endpointId === 'ship' ? ['VH', 'HV', 'VV', 'HH'] : ['VV', 'HH', 'VH', 'HV'];
      const draw = (product: Sigma0Product) => {
        const pol = prefer.find((p) => product.bands[p]?.hasMeasurement);
        if (!pol) throw new Error('the product has no readable band');
        const pooled = request.pooled && !isPooledValues(request.pooled) && request.pooled.grid.polarisation === pol ? request.pooled : null;
        return quicklookOfSource(sigma0Source(product, pol), areaOf(input), features, DETECTION_STYLES[endpointId]!, signal, pooled ? (rowStep, runLength) => pooledRaster(product, pooled, rowStep, runLength) : undefined);
      };
      // A GeoTIFF is opened as the analysis opened it (its polarisations and units).
      if (scene.kind === 'geotiff') return await withSigma0GeoTiff(scene.path, scene.encoding, draw);
      const product = await openSafeProduct(scene.path, { firstOf: prefer });
      try {
        return await draw(product);
      } finally {
        await product.close();
      }
    }
    case 'newbuilding':
    case 'disappearbuilding': {
      if (input.kind !== 'pair') throw new Error(`a ${endpointId} quicklook needs a pair input, got ${input.kind}`);
      // The later scene: what the change is seen in (new buildings bright, demolished ones gone).
      if (request.family === 'detect') {
        const prefer = ['VV', 'HH', 'VH', 'HV'];
        const product = await openSafeProduct(safeProductPath(input.later), { firstOf: prefer });
        try {
          const pol = prefer.find((p) => product.bands[p]?.hasMeasurement);
          if (!pol) throw new Error('the product has no readable band');
          return await quicklookOfSource(sigma0Source(product, pol), areaOf(input), features, DETECTION_STYLES[endpointId]!, signal);
        } finally {
          await product.close();
        }
      }
      const paths = rtcPaths(input.later);
      const file = (paths.vv ?? paths.vh)!;
      // The pair tiles' copy of this band (change/quicklookCopy.ts), when the worker asked for one.
      const copy = isPooledValues(request.pooled) && request.pooled.grid.polarisation === (paths.vv ? 'VV' : 'VH') ? request.pooled : null;
      const raster = await openRasterProduct(file);
      try {
        const pooled = copy ? async (rowStep: number, runLength: number) => pooledValuesRaster(copy, rowStep, runLength) : undefined;
        return await quicklookOfSource(rasterSource(raster, 0, file), areaOf(input), features, DETECTION_STYLES[endpointId]!, signal, pooled);
      } finally {
        await raster.close();
      }
    }
    case 'timeseries':
      if (input.kind !== 'series') throw new Error(`a timeseries quicklook needs a series input, got ${input.kind}`);
      return { quicklook: await deviationMap(features, input.aoi, signal), overlay: null };
    default:
      return null;
  }
}

/**
 * The map layer of a completed job (mapLayer.ts: the cells' geometry and deviation, for a web
 * map to colour without the full result), UTF-8 GeoJSON; null for an endpoint without one
 * (only a time series' result is too large to draw from: every cell carries its chart).
 */
export async function makeMapLayer(request: Pick<QuicklookRequest, 'endpointId' | 'result' | 'signal'>): Promise<Uint8Array | null> {
  if (request.endpointId !== 'timeseries' || !request.result) return null;
  return timeseriesMapLayer(request.result.features, request.signal);
}

/**
 * What a job on a polygon analysed: the picture frames the polygon (`aoi`), and shows pixels
 * only within `extent` (the polygon ∩ the imagery). Null for a whole scene (scene_id).
 */
export interface AnalysedArea {
  aoi: AoiGeometry;
  extent: AoiGeometry;
}

function areaOf(input: ResolvedInput): AnalysedArea | null {
  return input.kind === 'scene' ? null : { aoi: input.aoi, extent: input.extent };
}

/** The overlay and the quicklook of one raster: over `area` (its AOI outlined), or the whole image when null. */
export async function quicklookOfSource(
  source: QuicklookSource,
  area: AnalysedArea | null,
  features: ResultCollection['features'],
  style: DetectionStyle,
  signal?: AbortSignal,
  pooled?: (rowStep: number, runLength: number) => Promise<SampledRaster | null>,
): Promise<QuicklookImages> {
  const { grid, lattice, raster } = await sampleSource(source, area?.aoi ?? null, { signal, ...(pooled ? { pooled } : {}) });
  const extent = area ? await flattenGeometries([area.extent]) : null;
  const outline = area ? await flattenGeometries([area.aoi]) : null;
  const detections = await flattenGeometries(features.map((f) => f.geometry));
  const rendered = await runTileTask(
    { task: renderTasks.renderQuicklook, input: { grid, lattice, raster, extent, outline, detections, style } },
    [
      raster.data.buffer as ArrayBuffer,
      lattice.rows.buffer as ArrayBuffer,
      lattice.cols.buffer as ArrayBuffer,
      ...[detections, extent, outline].flatMap((f) => (f ? flatBuffers(f) : [])),
    ],
    signal,
  );
  return { quicklook: rendered.quicklook, overlay: { png: rendered.overlay, bounds: grid.bounds } };
}

/** Blocks in a pooled copy, at most: a picture's worth (the full IW scene has ~2.1 M); a polygon near the source's resolution keeps the strided read. */
const MAX_POOLED_BLOCKS = MAX_SIDE * MAX_SIDE;
/**
 * Lines of each block the detector's tiles pool (BlockGrid.lines): 1, the line the strided
 * read would read, so the picture is the strided read's. Pooling every line of a block (a
 * block mean, less speckle) costs ~1.1 CPU s in the tiles on the full IW scene (microbenchmark
 * at load 3): more than the ~0.55 CPU s strided read it replaces (docs/quicklook.md).
 * SARWATCH_QUICKLOOK_POOLED_LINES sets it for such measurements.
 */
export const POOLED_LINES = Math.max(1, Math.floor(Number(process.env.SARWATCH_QUICKLOOK_POOLED_LINES ?? 1)) || 1);

/**
 * The quicklook's blocks over `region` (the detector's analysed window) for a ship or oil job on
 * `product`'s `polarisation` band: the steps the quicklook will sample with (its grid frames
 * `aoi`, or the whole scene when null), blocks from the region's origin. Null when the
 * quicklook would not use a pooled copy (not a SAFE band, or too many blocks).
 */
export function quicklookBlockGrid(product: Sigma0Product, polarisation: string, region: PixelWindow, aoi: AoiGeometry | null): BlockGrid | null {
  if (!isSafeProduct(product)) return null;
  const { rowStep, runLength } = samplingSteps(sigma0Source(product, polarisation), aoi);
  const rows = Math.ceil(region.height / rowStep);
  const runs = Math.ceil(region.width / runLength);
  if (rows * runs > MAX_POOLED_BLOCKS) return null;
  return { polarisation, y0: region.y0, x0: region.x0, rowStep, runLength, rows, runs, lines: Math.min(rowStep, POOLED_LINES) };
}

/**
 * The pooled copy as the sampled raster: block row k's means calibrated and denoised at its
 * sampled line (firstRow + k·rowStep, the line the strided read would read) and each block's
 * centre column, as the strided read calibrates a run (overview.ts). Null when the copy's
 * steps are not the quicklook's (the strided read then runs).
 */
async function pooledRaster(product: Sigma0Product, pooled: PooledBlocks, rowStep: number, runLength: number): Promise<SampledRaster | null> {
  const { grid } = pooled;
  if (!isSafeProduct(product) || grid.rowStep !== rowStep || grid.runLength !== runLength) return null;
  const band = product.bands[grid.polarisation];
  if (!band) return null;
  const width = Math.min(grid.runs * runLength, product.width - grid.x0);
  const sampler = new CalibratedRunSampler(band, grid.x0, width, runLength, { denoise: true });
  if (sampler.runs !== grid.runs) return null;
  const firstRow = grid.y0 + (rowStep >> 1);
  const data = new Float32Array(grid.rows * grid.runs);
  for (let k = 0; k < grid.rows; k++) {
    const at = k * grid.runs;
    data.set(sampler.fromSums(Math.min(firstRow + k * rowStep, product.height - 1), pooled.sumDn2.subarray(at, at + grid.runs), pooled.counts.subarray(at, at + grid.runs)), at);
    if ((k & 63) === 63) await new Promise<void>((r) => setImmediate(r));
  }
  return { data, rows: grid.rows, runs: grid.runs, firstRow, rowStep, x0: grid.x0, runLength };
}

function hexColour(hex: string): [number, number, number] {
  const n = Number.parseInt(hex.slice(1), 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}

/** The long side of a deviation map's map area (cells are vector art: drawn at this size whatever the AOI). */
export const DEVIATION_MAP_SIDE = 1024;

/** The deviation map's grid (its map area; the picture adds a margin and the legend). */
export function deviationMapGrid(aoi: AoiGeometry): MercatorGrid {
  return mercatorGrid(bboxOf(aoi), 0.01, DEVIATION_MAP_SIDE);
}

async function deviationMap(features: ResultCollection['features'], aoi: AoiGeometry, signal?: AbortSignal): Promise<Uint8Array> {
  const grid = deviationMapGrid(aoi);
  const cells = await flattenFeatures(features);
  const fills = new Uint8Array(3 * features.length);
  features.forEach((f, i) => fills.set(hexColour(deviationStyle(typeof f.properties.deviation === 'number' ? f.properties.deviation : null).fill), 3 * i));
  // One representative deviation per class of the style (≤ −3, −3…−2, …, ≥ 3) and the bounds between them.
  const classes: DeviationLegendClass[] = [-3.5, -2.5, -1.5, 0, 1.5, 2.5, 3.5].map((d, k) => ({
    colour: hexColour(deviationStyle(d).fill),
    upper: ['-3', '-2', '-1', '+1', '+2', '+3', ''][k]!,
  }));
  // A whole cell's side on the map (the widest of the first cells; those at the AOI's edge are clipped): outlines only when a cell is large enough to show one.
  const cellDeg = Math.max(0, ...features.slice(0, 100).map((f) => bboxOf(f.geometry)[2] - bboxOf(f.geometry)[0]));
  const cellPx = (cellDeg / (grid.bounds[2] - grid.bounds[0])) * grid.width;
  const dates = (features[0]?.properties.chart as { dates?: unknown } | undefined)?.dates;
  const lastDate = Array.isArray(dates) && typeof dates[dates.length - 1] === 'string' ? (dates[dates.length - 1] as string) : null;
  const notes = [`${features.length} CELLS${lastDate ? `, LAST DATE ${lastDate}` : ''}`];
  const aoiRings = await flattenGeometries([aoi]);
  // On this thread, between event-loop turns (deviationMap.ts: a pool thread's start would cost more than the drawing).
  return renderDeviationMap({ grid, cells, fills, outlines: cellPx >= 8, aoi: aoiRings, classes, noValue: hexColour(deviationStyle(null).fill), notes }, signal);
}
