/**
 * `sarwatch analyze DETECTOR INPUT… [--polygon WKT] [--out FILE]`: the detectors without the
 * service, as SNAP's gpt runs an operator. The output is the same FeatureCollection a job
 * produces.
 *
 * - ship, oilslick: INPUT is a SAFE GRD product (folder or zip), the URL of a GRD STAC item
 *   (Planetary Computer, CDSE, any STAC API: assets read by range, docs/catalogs.md), or a GeoTIFF of calibrated
 *   σ0 (src/imagery/sigma0: one band per polarisation named by description or `--pol`,
 *   `--units linear|db`, georeferenced by a CRS or by GCPs).
 * - newbuilding, disappearbuilding: PRE POST, RTC GeoTIFFs (a folder per date holding
 *   *_VV.tif / *_VH.tif, or the files) or two SAFE GRD products of one track (geocoded onto
 *   one UTM grid over the polygon, src/cli/grdInputs.ts); `--polygon` required. Scenes are
 *   chosen among the inputs by the catalog's rules, as a job chooses (docs/catalog.md).
 * - timeseries: INPUT…, RTC GeoTIFFs or SAFE GRD products of several dates; `--polygon` required.
 * - idlefarm: FIELDS.geojson SCENES…, the field polygons (a GeoJSON FeatureCollection) and RTC
 *   GeoTIFFs or SAFE GRD products of one season; writes the job's result.zip (`--out`,
 *   default ./result.zip).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { AnalysisOutput, AnalysisRequest, GeoTiffEncoding, ResolvedInput, ResolvedScene, UploadFeatureCollection } from '../analysis/port.ts';
import type { UploadedCollection } from '../analysis/idlefarm/index.ts';
import { fieldsExtent } from '../analysis/modules/idlefarmSources.ts';
import { closeAnalysisPool } from '../analysis/engine/pool.ts';
import { GREY_DB_RANGE, type GreyDbMapping } from '../analysis/oilslick/greyImage.ts';
import { NEAR_SHORE_DETECTION_DEFAULT } from '../contract/bodies.ts';
import { JobFailure } from '../contract/errors.ts';
import type { Family } from '../contract/enums.ts';
import { geodesicAreaSqkm, intersectAoi, parseAoiWkt, GeometryError, type AoiGeometry } from '../geo/index.ts';
import { isImageryError, openSigma0GeoTiff, SIGMA0_UNITS, type Sigma0GeoTiff, type Sigma0Units } from '../imagery/index.ts';
import { loadConfig } from '../config.ts';
import { openCatalogProvider, PLANETARY_COMPUTER_STAC_URL } from '../catalog/providers/index.ts';
import { readSafeFolder, readSafeZip, SafeError } from '../catalog/local/safe.ts';
import { tryStacItemToScene, type StacItem } from '../catalog/stac/item.ts';
import { isRemoteHref, remoteAccess, setRemoteAccess } from '../imagery/remote/access.ts';
import { collectRtcFiles, looksLikeSafe, RtcInputError, selectChangePair, selectSeries } from './rtcInputs.ts';
import { ENDPOINTS, findEndpoint, type EndpointDescriptor, type EndpointName } from '../endpoints/index.ts';
import { readGrdInputs, grdChangePair, grdSeries, GrdInputError } from './grdInputs.ts';
// The detect family's common grid, named in the progress label (the module geocodes onto it).
import { detectFamilyGrid } from '../analysis/modules/rtcInput.ts';

export class AnalyzeUsageError extends Error {}

/** The detectors `analyze` runs: the endpoint registry's (src/endpoints). */
export const CLI_DETECTORS: readonly string[] = ENDPOINTS.map((e) => e.id);

/** A progress bar on a terminal (stderr), one line per 10 % otherwise. */
function progressReporter(label: string, stream: { isTTY?: boolean; write(text: string): unknown } = process.stderr): { update(percent: number): void; done(): void } {
  let last = -1;
  const started = Date.now();
  return {
    update(percent) {
      const p = Math.max(0, Math.min(100, Math.floor(percent)));
      if (stream.isTTY) {
        if (p === last) return;
        const width = 30;
        const filled = Math.round((p / 100) * width);
        stream.write(`\r${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${String(p).padStart(3)}%`);
      } else if (Math.floor(p / 10) > Math.floor(last / 10)) {
        stream.write(`${label} ${p}%\n`);
      }
      last = p;
    },
    done() {
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      stream.write(stream.isTTY ? `\r${label} done in ${seconds} s${' '.repeat(30)}\n` : `${label} done in ${seconds} s\n`);
    },
  };
}

export interface AnalyzeOptions {
  detector: string;
  /** Positional inputs after the detector. */
  inputs: string[];
  polygon?: string;
  out?: string;
  /** σ0 GeoTIFF: polarisations in band order, "VV,VH". */
  pol?: string;
  /**
   * σ0 GeoTIFF: linear (default) or db. oilslick also takes `grey8` (an 8-bit scaled image,
   * grey 0…255 linear in dB over −35…0 dB, grey 0 no data) or `grey8:MIN,MAX` (other dB ends).
   */
  units?: string;
  /** RTC inputs: one date per input, "2024-01-01,2024-02-01". */
  dates?: string;
  /** timeseries: cell edge in metres. */
  cellSize?: string;
  /** Request size limit the coverage polygon is simplified for (change, timeseries). */
  maxRequestBytes?: number;
  /** Where warnings go; default stderr. */
  warn?: (message: string) => void;
  /**
   * Where the result (without `out`), the progress lines, the summary and the warnings are
   * written; default the process's stdout and stderr (a progress bar on a terminal).
   */
  output?: { stdout(text: string): void; stderr(text: string): void };
}

export interface AnalyzeResult {
  features: number;
  out: string | null;
  warnings: string[];
}

function parsePolygon(text: string | undefined, required: string | null): AoiGeometry | undefined {
  if (!text) {
    if (required) throw new AnalyzeUsageError(`--polygon is required for ${required}`);
    return undefined;
  }
  try {
    return parseAoiWkt(text);
  } catch (e) {
    if (e instanceof GeometryError) throw new AnalyzeUsageError(`--polygon: ${e.message}`);
    throw e;
  }
}

/**
 * Imagery and input errors are the user's input, not our failure: exit code 2. A module's
 * job failure is too, unless it is server-class; its imagery cause is named (a job's message
 * never names files, the CLI's does).
 */
function asUsage(input: string, e: unknown): unknown {
  if (e instanceof RtcInputError || e instanceof GrdInputError || e instanceof SafeError) return new AnalyzeUsageError(e.message);
  const imagery = isImageryError(e) ? e : e instanceof JobFailure && isImageryError(e.cause) ? e.cause : null;
  if (imagery) return new AnalyzeUsageError(imagery.message.includes(path.basename(input)) ? imagery.message : `${input}: ${imagery.message}`);
  if (e instanceof JobFailure && ['VALIDATION_ERROR', 'NO_SCENE_FOUND', 'NO_VALID_DATA', 'IMAGERY_UNAVAILABLE'].includes(e.code)) return new AnalyzeUsageError(e.message);
  return e;
}

/**
 * Remote access for a STAC item URL given to the CLI: the configured provider's; an item of
 * Planetary Computer's API is signed as Planetary Computer requires even when no provider
 * is configured.
 */
function useProviderAccessFor(itemUrl: string): void {
  let config = loadConfig();
  if (config.catalogProvider === 'local' && itemUrl.startsWith(PLANETARY_COMPUTER_STAC_URL)) {
    config = { ...config, catalogProvider: 'planetary-computer', catalogUrl: PLANETARY_COMPUTER_STAC_URL };
  }
  setRemoteAccess(openCatalogProvider(config).access);
}

function isGeoTiffPath(input: string): boolean {
  return /\.tiff?$/i.test(input);
}

/** What `analyze` hands the endpoint's module: the request a job would make, and what to call it on stderr. */
interface CliRequest {
  family: Family;
  input: ResolvedInput;
  upload?: AnalysisRequest['upload'];
  cellSizeM?: number;
  /** Progress label. */
  label: string;
  /** The inputs, for error messages. */
  given: string;
  /** Names a module warning's subject (the GeoTIFF's file name). */
  warningPrefix?: string;
}

/**
 * The request the endpoint's module gets: a job's, with the defaults a job's request has where
 * the CLI has no flag (a ship run takes the near-shore path as a ship job without
 * `near_shore_detection` does).
 */
export function moduleRequest(endpoint: EndpointDescriptor, request: Pick<CliRequest, 'family' | 'input' | 'upload' | 'cellSizeM'>, maxRequestBytes: number): AnalysisRequest {
  return {
    jobId: 'cli',
    endpointId: endpoint.id as AnalysisRequest['endpointId'],
    family: request.family,
    input: request.input,
    maxRequestBytes,
    ...(request.upload ? { upload: request.upload } : {}),
    ...(request.cellSizeM !== undefined ? { cellSizeM: request.cellSizeM } : {}),
    ...(endpoint.id === 'ship' ? { nearShore: NEAR_SHORE_DETECTION_DEFAULT } : {}),
  };
}

/**
 * Runs an endpoint on local files (or a STAC item URL): the inputs become the ResolvedInput a
 * job would get (scene records read by the catalog's local reader, chosen by the catalog's
 * selection rules), and the endpoint's analysis module — the one the worker calls — runs it.
 * What is written is what the module returns: a zip archive or a GeoJSON FeatureCollection.
 */
export async function runAnalyze(opts: AnalyzeOptions): Promise<AnalyzeResult> {
  const endpoint = findEndpoint(opts.detector);
  if (!endpoint) {
    throw new AnalyzeUsageError(`unknown detector "${opts.detector}": analyze runs ${CLI_DETECTORS.join(', ')}`);
  }
  const stdout = opts.output?.stdout ?? ((text: string) => void process.stdout.write(text));
  const stderr = opts.output?.stderr ?? ((text: string) => void process.stderr.write(text));
  const warnings: string[] = [];
  const warn = (message: string) => {
    warnings.push(message);
    (opts.warn ?? ((m: string) => stderr(`sarwatch: warning: ${m}\n`)))(message);
  };
  let output: AnalysisOutput;
  try {
    const request = await cliRequest(endpoint, opts, warn);
    const module = await endpoint.detector();
    const bar = progressReporter(request.label, opts.output ? { isTTY: false, write: opts.output.stderr } : process.stderr);
    try {
      output = await module.run(moduleRequest(endpoint, request, opts.maxRequestBytes ?? 1_048_576), {
        reportProgress: (p) => bar.update(p),
        signal: new AbortController().signal,
      });
    } catch (e) {
      throw asUsage(request.given, e);
    }
    bar.done();
    for (const w of output.warnings ?? []) warn(request.warningPrefix ? `${request.warningPrefix}: ${w.message}` : w.message);
    if (output.summary) stderr(`${output.summary}\n`);
  } finally {
    await closeAnalysisPool();
  }
  if (output.archive) {
    const out = path.resolve(opts.out ?? 'result.zip');
    fs.writeFileSync(out, output.archive);
    return { features: archiveFeatures(output), out, warnings };
  }
  const result = output.result!;
  const text = `${JSON.stringify(result)}\n`;
  if (opts.out) {
    fs.writeFileSync(opts.out, text);
    return { features: result.features.length, out: opts.out, warnings };
  }
  stdout(text);
  return { features: result.features.length, out: null, warnings };
}

/** Features of a zip result: its summary's count ("N fields: …"), else 0. */
function archiveFeatures(output: AnalysisOutput): number {
  return Number(/^(\d+) /.exec(output.summary ?? '')?.[1] ?? 0);
}

/** The endpoint's descriptor says what its inputs are: one scene, a pair or a series, and whether the area is a fields file. */
async function cliRequest(endpoint: EndpointDescriptor, opts: AnalyzeOptions, warn: (m: string) => void): Promise<CliRequest> {
  if (endpoint.aoi === 'upload') return fieldsRequest(endpoint, opts, warn);
  if (endpoint.selector === 'nearest') return sceneRequest(endpoint, opts, warn);
  if (endpoint.selector === 'series') return seriesRequest(endpoint, opts, warn);
  return pairRequest(endpoint, opts, warn);
}

// ----------------------------------------------------------------- one scene: ship, oilslick

/** The part of the polygon over the imagery (a job's `extent`); a polygon off the imagery is a usage error. */
function extentOver(polygon: AoiGeometry, footprint: AoiGeometry, given: string): AoiGeometry {
  const extent = intersectAoi(polygon, footprint);
  if (!extent || geodesicAreaSqkm(extent) === 0) throw new AnalyzeUsageError(`--polygon does not overlap ${given}`);
  return extent;
}

/** The scene record of a STAC item URL (fetched with the provider's access), read remotely by its URL. */
async function stacItemScene(url: string): Promise<ResolvedScene> {
  let item: StacItem;
  try {
    item = JSON.parse(await remoteAccess().readText(url)) as StacItem;
  } catch (e) {
    throw asUsage(url, e);
  }
  const scene = tryStacItemToScene(item, { baseHref: url, source: 'stac' });
  if (!scene) throw new AnalyzeUsageError(`${url} is not a Sentinel-1 STAC item`);
  return { ...scene, assets: { ...scene.assets, product: { href: url, role: 'stac-item' } } };
}

/** The scene record of a local SAFE product, as the archive indexer reads it. */
async function safeScene(input: string): Promise<ResolvedScene> {
  const record = /\.zip$/i.test(input) ? await readSafeZip(input) : await readSafeFolder(path.basename(input).toLowerCase() === 'manifest.safe' ? path.dirname(input) : input);
  if (!record) throw new AnalyzeUsageError(`${input} holds no manifest.safe: not a SAFE product`);
  return record;
}

async function sceneRequest(endpoint: EndpointDescriptor, opts: AnalyzeOptions, warn: (m: string) => void): Promise<CliRequest> {
  const detector = endpoint.id;
  if (opts.inputs.length !== 1) throw new AnalyzeUsageError(`analyze ${detector} takes one INPUT (a SAFE GRD product or a σ0 GeoTIFF), got ${opts.inputs.length}`);
  if (opts.dates !== undefined || opts.cellSize !== undefined) throw new AnalyzeUsageError(`--dates and --cell-size apply to building change and time series, not ${detector}`);
  const grey = parseGreyUnits(opts.units);
  if (opts.units !== undefined && !grey && !(SIGMA0_UNITS as readonly string[]).includes(opts.units.toLowerCase())) {
    throw new AnalyzeUsageError(`unknown --units "${opts.units}": linear or db, or grey8[:MIN,MAX] for an 8-bit scaled image`);
  }
  const given = opts.inputs[0]!;
  const remote = isRemoteHref(given);
  const input = remote ? given : path.resolve(given);
  if (!remote && !fs.existsSync(input)) throw new AnalyzeUsageError(`${given} does not exist`);
  const polygon = parsePolygon(opts.polygon, null);
  const label = `${detector} ${remote ? given.replace(/[?#].*$/, '').split('/').pop() : path.basename(input)}`;

  if (remote || !isGeoTiffPath(input)) {
    if (opts.pol !== undefined || opts.units !== undefined) throw new AnalyzeUsageError('--pol and --units describe a σ0 GeoTIFF; a SAFE product is calibrated from its own annotation');
    // A STAC item URL: its assets are read as the configured provider requires (signed, with a
    // token), through the byte cache.
    if (remote) useProviderAccessFor(given);
    const scene = remote ? await stacItemScene(given) : await safeScene(input).catch((e) => Promise.reject(asUsage(given, e)));
    const sceneInput: ResolvedInput = polygon ? { kind: 'nearest', scene, extent: extentOver(polygon, scene.footprint, given), aoi: polygon } : { kind: 'scene', scene };
    return { family: 'detect', input: sceneInput, label, given };
  }

  if (/\.safe[\\/]measurement[\\/]/i.test(input)) {
    throw new AnalyzeUsageError(`${given} is a SAFE measurement (digital numbers, not σ0): give the .SAFE folder, or a calibrated σ0 GeoTIFF`);
  }
  const encoding: GeoTiffEncoding = {
    ...(opts.pol !== undefined ? { pols: opts.pol.split(',').filter((p) => p.trim() !== '') } : {}),
    // An 8-bit image is read as raw values, mapped grey → dB → σ0 by the module.
    ...(grey ? { grey } : opts.units !== undefined ? { units: opts.units.toLowerCase() as Sigma0Units } : {}),
  };
  // The file is checked as an upload is: it opens as σ0 with these options, and its values are σ0.
  let product: Sigma0GeoTiff;
  try {
    product = await openSigma0GeoTiff(input, { pols: encoding.pols, units: grey ? 'linear' : encoding.units });
  } catch (e) {
    throw asUsage(given, e);
  }
  let footprint: AoiGeometry;
  try {
    if (grey) {
      warn(`${path.basename(given)}: 8-bit image read as grey ${grey.minDb}…${grey.maxDb} dB (linear in dB; an assumption, the real scaling is unknown): the model alone decides, without the low-wind and shape vetoes of calibrated σ0`);
    } else {
      await checkUnits(product, given, warn);
    }
    if (!product.validFootprint) throw new AnalyzeUsageError(`${given} has no valid pixels`);
    footprint = product.validFootprint;
  } finally {
    await product.close();
  }
  const extent = polygon ? extentOver(polygon, footprint, given) : footprint;
  return {
    family: 'detect',
    input: { kind: 'image', image: 'geotiff', key: input, file: input, extent, aoi: polygon ?? footprint, encoding },
    label,
    given,
    warningPrefix: path.basename(given),
  };
}

/** `grey8` or `grey8:MIN,MAX` → the grey → dB mapping; null for other units. */
export function parseGreyUnits(units: string | undefined): GreyDbMapping | null {
  if (units === undefined) return null;
  const m = /^grey8(?::(-?\d+(?:\.\d+)?),(-?\d+(?:\.\d+)?))?$/i.exec(units.trim());
  if (!m) return null;
  if (m[1] === undefined) return { ...GREY_DB_RANGE };
  const minDb = Number(m[1]);
  const maxDb = Number(m[2]);
  if (!(maxDb > minDb)) throw new AnalyzeUsageError(`--units ${units}: MAX must be above MIN (dB of grey 255 and grey 0)`);
  return { minDb, maxDb };
}
/**
 * The values must be what --units says. σ0 cannot be negative, so linear values with a
 * negative median are dB; dB values of real backscatter include negative ones (sea, fields
 * are −30 to −5 dB), so "dB" values none of which is negative, with a median below 1, are
 * linear σ0. Both are usage errors.
 * A linear median above 10 suggests digital numbers or amplitudes: a warning.
 */
async function checkUnits(product: Sigma0GeoTiff, given: string, warn: (m: string) => void): Promise<void> {
  const stats = await product.sampleStatistics();
  if (stats === null) return;
  const p = (v: number) => v.toPrecision(3);
  if (product.units === 'linear' && stats.median < 0) {
    throw new AnalyzeUsageError(`${given}: the values are negative (median ${p(stats.median)}), so they are not linear σ0; if they are dB, pass --units db`);
  }
  if (product.units === 'db' && stats.min >= 0 && stats.median < 1) {
    throw new AnalyzeUsageError(`${given}: no value is negative and the median is ${p(stats.median)}, which is linear σ0, not dB; drop --units db (linear is the default)`);
  }
  if (product.units === 'linear' && stats.median > 10) {
    warn(`${path.basename(given)}: median value ${p(stats.median)} is far above σ0 (linear σ0 is mostly below 1): are these digital numbers or amplitudes?`);
  }
}

// ----------------------------------------------------------------- RTC: change, timeseries

function refuseSceneOptions(opts: AnalyzeOptions): void {
  if (opts.pol !== undefined || opts.units !== undefined) throw new AnalyzeUsageError(`--pol and --units describe a σ0 GeoTIFF for ship and oilslick; ${opts.detector} reads RTC GeoTIFFs (linear γ0, VV/VH by file name) or SAFE GRD products`);
}

/**
 * True when every input is a SAFE GRD product (geocoded onto one UTM grid, as the service's
 * detect family does); false when none is (RTC GeoTIFFs). A mix is a usage error: the two
 * are different quantities (σ0 on the ellipsoid, γ0 terrain-flattened) and cannot be compared.
 */
function safeInputs(opts: AnalyzeOptions): boolean {
  const safe = opts.inputs.filter((i) => fs.existsSync(i) && looksLikeSafe(i));
  if (safe.length === 0) return false;
  if (safe.length < opts.inputs.length) {
    throw new AnalyzeUsageError(`give either SAFE GRD products or RTC GeoTIFFs, not both: ${opts.detector} compares like with like (GRD σ0 vs RTC γ0)`);
  }
  return true;
}

/** The pair a change run compares, with its progress label: SAFE GRD products (detect family) or RTC GeoTIFFs (analyze family). */
async function pairRequest(endpoint: EndpointDescriptor, opts: AnalyzeOptions, warn: (m: string) => void): Promise<CliRequest> {
  refuseSceneOptions(opts);
  if (opts.cellSize !== undefined) throw new AnalyzeUsageError('--cell-size applies to timeseries');
  const aoi = parsePolygon(opts.polygon, endpoint.id)!;
  const given = opts.inputs.join(' ');
  try {
    if (safeInputs(opts)) {
      if (opts.dates !== undefined) throw new AnalyzeUsageError('--dates names the dates of RTC GeoTIFFs; SAFE products carry their own');
      const pair = grdChangePair(endpoint.id as EndpointName, await readGrdInputs(opts.inputs), aoi);
      for (const w of pair.warnings) warn(w);
      const grid = detectFamilyGrid(aoi);
      const label = `${endpoint.id} GRD ${pair.dates[0]} → ${pair.dates[1]} (EPSG:${grid.epsg}, ${grid.pixelSizeM} m)`;
      return { family: 'detect', input: { kind: 'pair', earlier: pair.earlier, later: pair.later, extent: aoi, aoi }, label, given };
    }
    const { files, skipped } = await collectRtcFiles(endpoint.id, opts.inputs, opts.dates);
    if (skipped.length) warn(`skipped ${skipped.length} GeoTIFF(s) without a VV/VH polarisation: ${skipped.map((s) => path.basename(s)).join(', ')}`);
    const pair = await selectChangePair(endpoint.id, files, opts.inputs.length, aoi);
    for (const w of pair.warnings) warn(w);
    return { family: 'analyze', input: { kind: 'pair', earlier: pair.earlier, later: pair.later, extent: aoi, aoi }, label: `${endpoint.id} ${pair.label}`, given };
  } catch (e) {
    throw asUsage(given, e);
  }
}

/** The dated scenes of a series, with its progress label: SAFE GRD products (detect family) or RTC GeoTIFFs (analyze family). */
async function seriesScenes(endpoint: EndpointDescriptor, opts: AnalyzeOptions, aoi: AoiGeometry, warn: (m: string) => void): Promise<{ family: Family; scenes: ResolvedScene[]; label: string }> {
  let series: { scenes: ResolvedScene[]; dates: string[]; warnings: string[] };
  let family: Family = 'analyze';
  try {
    if (safeInputs(opts)) {
      if (opts.dates !== undefined) throw new AnalyzeUsageError('--dates names the dates of RTC GeoTIFFs; SAFE products carry their own');
      series = grdSeries(endpoint.id as EndpointName, await readGrdInputs(opts.inputs), aoi);
      family = 'detect';
    } else {
      const { files, skipped } = await collectRtcFiles(endpoint.id, opts.inputs, opts.dates);
      if (skipped.length) warn(`skipped ${skipped.length} GeoTIFF(s) without a VV/VH polarisation: ${skipped.map((s) => path.basename(s)).join(', ')}`);
      series = await selectSeries(files, aoi);
    }
  } catch (e) {
    throw asUsage(opts.inputs.join(' '), e);
  }
  for (const w of series.warnings) warn(w);
  const label = `${endpoint.id} ${family === 'detect' ? 'GRD ' : ''}${series.dates.length} dates ${series.dates[0]} … ${series.dates[series.dates.length - 1]}`;
  return { family, scenes: series.scenes, label };
}

async function seriesRequest(endpoint: EndpointDescriptor, opts: AnalyzeOptions, warn: (m: string) => void): Promise<CliRequest> {
  refuseSceneOptions(opts);
  if (opts.inputs.length === 0) throw new AnalyzeUsageError(`analyze ${endpoint.id} needs INPUT… (RTC GeoTIFF folders or files, or SAFE GRD products, of several dates)`);
  const aoi = parsePolygon(opts.polygon, endpoint.id)!;
  let cellSizeM: number | undefined;
  if (opts.cellSize !== undefined) {
    cellSizeM = Number(opts.cellSize);
    if (!Number.isFinite(cellSizeM) || cellSizeM <= 0) throw new AnalyzeUsageError(`--cell-size must be a positive number of metres, got "${opts.cellSize}"`);
  }
  const { family, scenes, label } = await seriesScenes(endpoint, opts, aoi, warn);
  return { family, input: { kind: 'series', scenes, extent: aoi, aoi }, label, given: opts.inputs.join(' '), ...(cellSizeM !== undefined ? { cellSizeM } : {}) };
}

// ----------------------------------------------------------------- a fields file: idlefarm

function readFields(file: string): UploadedCollection {
  if (!fs.existsSync(file)) throw new AnalyzeUsageError(`${file} does not exist`);
  let fields: UploadedCollection;
  try {
    fields = JSON.parse(fs.readFileSync(file, 'utf8')) as UploadedCollection;
  } catch {
    throw new AnalyzeUsageError(`${path.basename(file)} is not JSON: analyze ${'idlefarm'} takes the fields as a GeoJSON FeatureCollection`);
  }
  if (fields?.type !== 'FeatureCollection' || !Array.isArray(fields.features)) {
    throw new AnalyzeUsageError(`${path.basename(file)} is not a GeoJSON FeatureCollection`);
  }
  return fields;
}

/** An endpoint whose area is an upload of fields: FIELDS.geojson (the upload) then the season's scenes. */
async function fieldsRequest(endpoint: EndpointDescriptor, opts: AnalyzeOptions, warn: (m: string) => void): Promise<CliRequest> {
  refuseSceneOptions(opts);
  if (opts.polygon !== undefined || opts.cellSize !== undefined) throw new AnalyzeUsageError(`--polygon and --cell-size do not apply to ${endpoint.id}: the fields file is the area`);
  const [fieldsFile, ...scenes] = opts.inputs;
  if (!fieldsFile || scenes.length === 0) throw new AnalyzeUsageError(`analyze ${endpoint.id} needs FIELDS.geojson and SCENES… (RTC GeoTIFF folders or files, or SAFE GRD products, of one season)`);
  const fields = readFields(fieldsFile);
  const extent = fieldsExtent(fields);
  if (!extent) throw new AnalyzeUsageError(`${path.basename(fieldsFile)} holds no polygon field`);
  const series = await seriesScenes(endpoint, { ...opts, inputs: scenes }, extent, warn);
  return {
    family: series.family,
    input: { kind: 'series', scenes: series.scenes, extent, aoi: extent },
    // The fields as given (a job's upload holds validated polygons only): the module reports a
    // field it cannot read as undetermined, as it always did for the CLI.
    upload: { polygonId: path.basename(fieldsFile), features: async () => fields as UploadFeatureCollection },
    label: series.label,
    given: scenes.join(' '),
  };
}
