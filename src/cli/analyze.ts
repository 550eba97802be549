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
import { detectShipsInProduct, detectShipsInSafe } from '../analysis/ship/index.ts';
import { detectSlicksInSafe, resolveOilSlickParams } from '../analysis/oilslick/index.ts';
import { detectInProduct as detectSlicksInProduct } from '../analysis/oilslick/detect.ts';
import { detectChangeInPair } from '../analysis/change/index.ts';
import { detectTimeseries, type SeriesScene } from '../analysis/timeseries/index.ts';
import { fieldsExtent, runIdlefarm, type UploadedCollection } from '../analysis/idlefarm/index.ts';
import { analysisThreads, closeAnalysisPool } from '../analysis/engine/pool.ts';
import type { FinalizedCollection } from '../analysis/common/result.ts';
import { parseAoiWkt, GeometryError, type AoiGeometry } from '../geo/index.ts';
import { DEFAULT_INCIDENCE_DEG, isImageryError, openSigma0GeoTiff, SIGMA0_UNITS, type Sigma0GeoTiff, type Sigma0Units } from '../imagery/index.ts';
import type { Sigma0Band, Sigma0Product } from '../imagery/sigma0/types.ts';
import { GREY_DB_RANGE, greyToDb, type GreyDbMapping } from '../analysis/oilslick/greyImage.ts';
import { loadConfig } from '../config.ts';
import { openCatalogProvider, PLANETARY_COMPUTER_STAC_URL } from '../catalog/providers/index.ts';
import { isRemoteHref, setRemoteAccess } from '../imagery/remote/access.ts';
import { collectRtcFiles, looksLikeSafe, RtcInputError, selectChangePair, selectSeries } from './rtcInputs.ts';
import { ENDPOINTS, findEndpoint } from '../endpoints/index.ts';
import { readGrdInputs, grdChangePair, grdSeries, GrdInputError } from './grdInputs.ts';
// The detect family's common grid, so the CLI and a job geocode GRD onto the same pixels.
import { detectFamilyGrid } from '../analysis/modules/rtcInput.ts';

export class AnalyzeUsageError extends Error {}

/** The detectors `analyze` runs: the endpoint registry's (src/endpoints). */
export const CLI_DETECTORS: readonly string[] = ENDPOINTS.map((e) => e.id);

/** A progress bar on a terminal (stderr), one line per 10 % otherwise. */
function progressReporter(label: string, stream: NodeJS.WriteStream = process.stderr): { update(percent: number): void; done(): void } {
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

/** Imagery and input errors are the user's input, not our failure: exit code 2. */
function asUsage(input: string, e: unknown): unknown {
  if (e instanceof RtcInputError || e instanceof GrdInputError) return new AnalyzeUsageError(e.message);
  if (isImageryError(e)) return new AnalyzeUsageError(e.message.includes(path.basename(input)) ? e.message : `${input}: ${e.message}`);
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

export async function runAnalyze(opts: AnalyzeOptions): Promise<AnalyzeResult> {
  const endpoint = findEndpoint(opts.detector);
  if (!endpoint) {
    throw new AnalyzeUsageError(`unknown detector "${opts.detector}": analyze runs ${CLI_DETECTORS.join(', ')}`);
  }
  const warnings: string[] = [];
  const warn = (message: string) => {
    warnings.push(message);
    (opts.warn ?? ((m: string) => process.stderr.write(`sarwatch: warning: ${m}\n`)))(message);
  };
  if (endpoint.result === 'zip') {
    try {
      return await runIdlefarmCli(opts, warn, warnings);
    } finally {
      await closeAnalysisPool();
    }
  }
  let result: FinalizedCollection;
  try {
    // The endpoint's selection rule says what its inputs are: one scene, a pair, a series.
    if (endpoint.selector === 'nearest') result = await runSceneDetector(opts, warn);
    else if (endpoint.selector === 'series') result = await runTimeseries(opts, warn);
    else result = await runChange(opts, opts.detector as 'newbuilding' | 'disappearbuilding', warn);
  } finally {
    await closeAnalysisPool();
  }
  const text = `${JSON.stringify(result)}\n`;
  if (opts.out) {
    fs.writeFileSync(opts.out, text);
    return { features: result.features.length, out: opts.out, warnings };
  }
  process.stdout.write(text);
  return { features: result.features.length, out: null, warnings };
}

// ----------------------------------------------------------------- ship, oilslick

async function runSceneDetector(opts: AnalyzeOptions, warn: (m: string) => void): Promise<FinalizedCollection> {
  const detector = opts.detector as 'ship' | 'oilslick';
  if (opts.inputs.length !== 1) throw new AnalyzeUsageError(`analyze ${detector} takes one INPUT (a SAFE GRD product or a σ0 GeoTIFF), got ${opts.inputs.length}`);
  if (opts.dates !== undefined || opts.cellSize !== undefined) throw new AnalyzeUsageError(`--dates and --cell-size apply to building change and time series, not ${detector}`);
  const grey = detector === 'oilslick' ? parseGreyUnits(opts.units) : null;
  if (opts.units !== undefined && !grey && !(SIGMA0_UNITS as readonly string[]).includes(opts.units.toLowerCase())) {
    throw new AnalyzeUsageError(`unknown --units "${opts.units}": linear or db${detector === 'oilslick' ? ', or grey8[:MIN,MAX] for an 8-bit scaled image' : ''}`);
  }
  const given = opts.inputs[0]!;
  const remote = isRemoteHref(given);
  const input = remote ? given : path.resolve(given);
  if (!remote && !fs.existsSync(input)) throw new AnalyzeUsageError(`${given} does not exist`);
  const polygon = parsePolygon(opts.polygon, null);
  const bar = progressReporter(`${detector} ${remote ? given.replace(/[?#].*$/, '').split('/').pop() : path.basename(input)}`);
  // A STAC item URL: its assets are read as the configured provider requires (signed, with a
  // token), through the byte cache.
  if (remote) useProviderAccessFor(given);

  if (remote || !isGeoTiffPath(input)) {
    if (opts.pol !== undefined || opts.units !== undefined) throw new AnalyzeUsageError('--pol and --units describe a σ0 GeoTIFF; a SAFE product is calibrated from its own annotation');
    let result: FinalizedCollection;
    try {
      result =
        detector === 'ship'
          ? await detectShipsInSafe(input, { polygon, threads: analysisThreads(), onProgress: (p) => bar.update(p) })
          : await detectSlicksInSafe(input, { polygon, onProgress: (f) => bar.update(100 * f) });
    } catch (e) {
      throw asUsage(given, e);
    }
    bar.done();
    return result;
  }

  if (/\.safe[\\/]measurement[\\/]/i.test(input)) {
    throw new AnalyzeUsageError(`${given} is a SAFE measurement (digital numbers, not σ0): give the .SAFE folder, or a calibrated σ0 GeoTIFF`);
  }
  let product: Sigma0GeoTiff;
  try {
    product = await openSigma0GeoTiff(input, {
      pols: opts.pol !== undefined ? opts.pol.split(',').filter((p) => p.trim() !== '') : undefined,
      // An 8-bit image is read as raw values ("linear"), then mapped grey → dB → σ0 below.
      units: grey ? 'linear' : ((opts.units?.toLowerCase() ?? 'linear') as Sigma0Units),
    });
  } catch (e) {
    throw asUsage(given, e);
  }
  try {
    if (grey) {
      if (!product.bands.VV) throw new AnalyzeUsageError(`${given}: oil slicks need VV; the file has ${product.polarisations.join(', ')}`);
      warn(`${path.basename(given)}: 8-bit image read as grey ${grey.minDb}…${grey.maxDb} dB (linear in dB; an assumption, the real scaling is unknown): the model alone decides, without the low-wind and shape vetoes of calibrated σ0`);
      const details = await detectSlicksInProduct(greyProduct(product, grey), resolveOilSlickParams({ vetoRules: [] }), { polygon, onProgress: (f) => bar.update(100 * f) }).catch((e) => {
        throw asUsage(given, e);
      });
      bar.done();
      return details.collection;
    }
    await checkUnits(product, given, warn);
    if (detector === 'ship') {
      const report = await detectShipsInProduct(product, { polygon, threads: analysisThreads(), onProgress: (p) => bar.update(p) }).catch((e) => {
        throw asUsage(given, e);
      });
      bar.done();
      if (report.ambiguitySkipped) {
        warn(`${path.basename(given)} has no SAFE annotation (orbit, PRF): azimuth-ambiguity suppression is skipped, so bright targets' ghosts may be reported as vessels`);
      }
      return report.result;
    }
    if (!product.bands.VV) {
      throw new AnalyzeUsageError(`${given}: oil slicks need VV σ0; the file has ${product.polarisations.join(', ')}`);
    }
    if (!product.hasIncidence) {
      warn(`${path.basename(given)} has no incidence-angle band: the low-wind look-alike test assumes ${DEFAULT_INCIDENCE_DEG}° everywhere`);
    }
    const details = await detectSlicksInProduct(product, resolveOilSlickParams(), { polygon, onProgress: (f) => bar.update(100 * f) }).catch((e) => {
      throw asUsage(given, e);
    });
    bar.done();
    return details.collection;
  } finally {
    await product.close();
  }
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

/** The product with its VV band's raw grey values mapped to linear σ0 (grey 0 stays no data). */
function greyProduct(product: Sigma0GeoTiff, mapping: GreyDbMapping): Sigma0Product {
  const band = product.bands.VV!;
  const lut = new Float32Array(256);
  for (let g = 0; g < 256; g++) lut[g] = 10 ** (greyToDb(g, mapping) / 10);
  const vv: Sigma0Band = {
    polarisation: band.polarisation,
    hasMeasurement: band.hasMeasurement,
    validWindow: band.validWindow,
    annotation: band.annotation,
    async readWindow(window, options) {
      const out = await band.readWindow(window, options);
      for (let i = 0; i < out.data.length; i++) {
        if (out.valid[i] === 0) continue;
        const g = Math.round(out.data[i]!);
        if (g < 1 || g > 255) out.valid[i] = 0;
        out.data[i] = out.valid[i] ? lut[g]! : 0;
      }
      return out;
    },
  };
  return {
    location: product.location,
    productId: product.productId,
    polarisations: ['VV'],
    width: product.width,
    height: product.height,
    bands: { VV: vv },
    geolocation: product.geolocation,
    validWindow: product.validWindow,
    validFootprint: product.validFootprint,
    close: () => product.close(),
  };
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

function maxRequestBytes(opts: AnalyzeOptions): number {
  return opts.maxRequestBytes ?? 1_048_576;
}

/** The pair a change run compares, with its progress label: SAFE GRD products geocoded onto one grid, or RTC GeoTIFFs. */
async function changeInputs(opts: AnalyzeOptions, kind: 'newbuilding' | 'disappearbuilding', aoi: AoiGeometry, warn: (m: string) => void) {
  if (safeInputs(opts)) {
    if (opts.dates !== undefined) throw new AnalyzeUsageError('--dates names the dates of RTC GeoTIFFs; SAFE products carry their own');
    const grid = detectFamilyGrid(aoi);
    const pair = grdChangePair(kind, await readGrdInputs(opts.inputs), aoi, grid);
    for (const w of pair.warnings) warn(w);
    const label = `${kind} GRD ${pair.dates[0]} → ${pair.dates[1]} (EPSG:${grid.epsg}, ${grid.pixelSizeM} m)`;
    return { pre: pair.pre, post: pair.post, label };
  }
  const { files, skipped } = await collectRtcFiles(kind, opts.inputs, opts.dates);
  if (skipped.length) warn(`skipped ${skipped.length} GeoTIFF(s) without a VV/VH polarisation: ${skipped.map((s) => path.basename(s)).join(', ')}`);
  const pair = await selectChangePair(kind, files, opts.inputs.length, aoi);
  for (const w of pair.warnings) warn(w);
  const label = `${kind} ${pair.label}`;
  return { pre: pair.prePaths, post: pair.postPaths, label };
}

async function runChange(opts: AnalyzeOptions, kind: 'newbuilding' | 'disappearbuilding', warn: (m: string) => void): Promise<FinalizedCollection> {
  refuseSceneOptions(opts);
  if (opts.cellSize !== undefined) throw new AnalyzeUsageError('--cell-size applies to timeseries');
  const aoi = parsePolygon(opts.polygon, kind)!;
  try {
    const { pre, post, label } = await changeInputs(opts, kind, aoi, warn);
    const bar = progressReporter(label);
    const out = await detectChangeInPair(pre, post, {
      aoi,
      kind,
      params: { threads: analysisThreads() },
      maxRequestBytes: maxRequestBytes(opts),
      onProgress: (p) => bar.update(p),
    });
    bar.done();
    process.stderr.write(`analysed ${out.areaSqkm} km² (coverage ratio ${out.coverage.ratio}), channels ${out.stats.channels}\n`);
    return out.result;
  } catch (e) {
    throw asUsage(opts.inputs.join(' '), e);
  }
}

/** The dated scenes of a series, with its progress label: SAFE GRD products geocoded onto one grid, or RTC GeoTIFFs. */
async function seriesInputs(opts: AnalyzeOptions, aoi: AoiGeometry, warn: (m: string) => void, detector = 'timeseries') {
  let series: { scenes: SeriesScene[]; dates: string[]; warnings: string[] };
  let family = '';
  if (safeInputs(opts)) {
    if (opts.dates !== undefined) throw new AnalyzeUsageError('--dates names the dates of RTC GeoTIFFs; SAFE products carry their own');
    series = grdSeries(await readGrdInputs(opts.inputs), aoi, detectFamilyGrid(aoi));
    family = 'GRD ';
  } else {
    const { files, skipped } = await collectRtcFiles(detector, opts.inputs, opts.dates);
    if (skipped.length) warn(`skipped ${skipped.length} GeoTIFF(s) without a VV/VH polarisation: ${skipped.map((s) => path.basename(s)).join(', ')}`);
    series = await selectSeries(files, aoi);
  }
  for (const w of series.warnings) warn(w);
  const label = `${detector} ${family}${series.dates.length} dates ${series.dates[0]} … ${series.dates[series.dates.length - 1]}`;
  return { scenes: series.scenes, label };
}

async function runTimeseries(opts: AnalyzeOptions, warn: (m: string) => void): Promise<FinalizedCollection> {
  refuseSceneOptions(opts);
  if (opts.inputs.length === 0) throw new AnalyzeUsageError('analyze timeseries needs INPUT… (RTC GeoTIFF folders or files, or SAFE GRD products, of several dates)');
  const aoi = parsePolygon(opts.polygon, 'timeseries')!;
  let cellSizeM: number | undefined;
  if (opts.cellSize !== undefined) {
    cellSizeM = Number(opts.cellSize);
    if (!Number.isFinite(cellSizeM) || cellSizeM <= 0) throw new AnalyzeUsageError(`--cell-size must be a positive number of metres, got "${opts.cellSize}"`);
  }
  try {
    const { scenes, label } = await seriesInputs(opts, aoi, warn);
    const bar = progressReporter(label);
    const out = await detectTimeseries(scenes, { aoi, cellSizeM, maxRequestBytes: maxRequestBytes(opts), onProgress: (p) => bar.update(p) });
    bar.done();
    process.stderr.write(`${out.stats.cellsWithData} of ${out.stats.cells} cells have data; analysed ${out.areaSqkm} km² (coverage ratio ${out.coverage.ratio})\n`);
    return out.result;
  } catch (e) {
    throw asUsage(opts.inputs.join(' '), e);
  }
}

// ----------------------------------------------------------------- idlefarm

function readFields(file: string): UploadedCollection {
  if (!fs.existsSync(file)) throw new AnalyzeUsageError(`${file} does not exist`);
  let fields: UploadedCollection;
  try {
    fields = JSON.parse(fs.readFileSync(file, 'utf8')) as UploadedCollection;
  } catch {
    throw new AnalyzeUsageError(`${path.basename(file)} is not JSON: analyze idlefarm takes the fields as a GeoJSON FeatureCollection`);
  }
  if (fields?.type !== 'FeatureCollection' || !Array.isArray(fields.features)) {
    throw new AnalyzeUsageError(`${path.basename(file)} is not a GeoJSON FeatureCollection`);
  }
  return fields;
}

/** idlefarm: FIELDS.geojson then the season's scenes (RTC GeoTIFFs, or SAFE GRD products geocoded onto one grid); writes result.zip. */
async function runIdlefarmCli(opts: AnalyzeOptions, warn: (m: string) => void, warnings: string[]): Promise<AnalyzeResult> {
  refuseSceneOptions(opts);
  if (opts.polygon !== undefined || opts.cellSize !== undefined) throw new AnalyzeUsageError('--polygon and --cell-size do not apply to idlefarm: the fields file is the area');
  const [fieldsFile, ...scenes] = opts.inputs;
  if (!fieldsFile || scenes.length === 0) throw new AnalyzeUsageError('analyze idlefarm needs FIELDS.geojson and SCENES… (RTC GeoTIFF folders or files, or SAFE GRD products, of one season)');
  const fields = readFields(fieldsFile);
  const extent = fieldsExtent(fields);
  if (!extent) throw new AnalyzeUsageError(`${path.basename(fieldsFile)} holds no polygon field`);
  const sceneOpts = { ...opts, inputs: scenes };
  const out = path.resolve(opts.out ?? 'result.zip');
  try {
    const { scenes: series, label } = await seriesInputs(sceneOpts, extent, warn, 'idlefarm');
    const bar = progressReporter(label);
    const family = safeInputs(sceneOpts) ? 'detect' : 'analyze';
    const done = await runIdlefarm({ fields, scenes: series, family, outPath: out, onProgress: (p) => bar.update(p) });
    bar.done();
    const s = done.summary;
    process.stderr.write(`${s.fields} fields: ${s.idle} idle, ${s.cropped} cropped, ${s.undetermined} undetermined over ${s.dates} dates\n`);
    return { features: s.fields, out, warnings };
  } catch (e) {
    throw asUsage(scenes.join(' '), e);
  }
}
