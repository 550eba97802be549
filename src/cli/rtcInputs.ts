/**
 * RTC GeoTIFF inputs of `sarwatch analyze newbuilding|disappearbuilding|timeseries`: the
 * command-line arguments (folders holding *_VV.tif / *_VH.tif, or the files themselves)
 * turned into the catalog's scene records, read as the archive indexer reads them
 * (src/catalog/local/rtc.ts: OPERA RTC-S1 names or tags, pyroSAR names). The catalog's
 * selection then picks among them as it does for a job (selectNamedPair with two
 * arguments PRE POST, selectChangePair over the span of one argument's dates,
 * selectNamedSeries: docs/catalog.md). This file only handles arguments and files.
 *
 * Files the catalog cannot identify (no product name or tags: no track, no orbit), and
 * files dated by `--dates` (one date per argument: the user's dates override), are used as
 * given, with nothing to choose: the dates given, or two undated arguments PRE and POST in
 * that order. SAFE GRD products are src/cli/grdInputs.ts's;
 * one found inside a folder of GeoTIFFs is refused here.
 */
import fs from 'node:fs';
import path from 'node:path';
import { geodesicAreaSqkm, intersectAoi, type AoiGeometry, type Polygon } from '../geo/index.ts';
import type { ResolvedScene } from '../analysis/port.ts';
import { isImageryError, openRasterProduct, polarisationOfName } from '../imagery/index.ts';
import { mergeRtcContributions, readRtcGeoTiff, RtcFileError, type RtcContribution } from '../catalog/local/rtc.ts';
import { SCENE_SELECTORS, selectNamedPair, selectNamedSeries, type ChangePairSelection } from '../catalog/selection.ts';
import type { SceneRecord } from '../catalog/types.ts';
import { endpointOf, type EndpointName } from '../endpoints/index.ts';

/** The analyze family's product of an endpoint (its descriptor's `imagery`): what the job would select among. */
const analyzeImagery = (endpoint: EndpointName) => [endpointOf(endpoint).imagery.analyze];

export class RtcInputError extends Error {}

export interface RtcFile {
  path: string;
  pol: 'VV' | 'VH';
  /** YYYY-MM-DD, null when neither the catalog nor --dates gives it. */
  date: string | null;
  /** What the catalog reads from the file; null when it cannot identify it or --dates dates it. */
  contribution: RtcContribution | null;
  /** Index of the command-line argument the file came from. */
  arg: number;
}

/** The files of one acquisition (one date; one argument for undated PRE/POST). */
export interface RtcAcquisition {
  date: string | null;
  vv?: string;
  vh?: string;
}

const TIFF = /\.tiff?$/i;

/** A SAFE GRD product: a .SAFE folder, its manifest, a zip, or a folder holding a manifest. */
export function looksLikeSafe(input: string): boolean {
  const base = path.basename(input).toLowerCase();
  if (base.endsWith('.safe') || base === 'manifest.safe' || base.endsWith('.zip')) return true;
  try {
    return fs.statSync(input).isDirectory() && fs.existsSync(path.join(input, 'manifest.safe'));
  } catch {
    return false;
  }
}

function grdNotSupported(detector: string, input: string): RtcInputError {
  return new RtcInputError(
    `${input} is a SAFE GRD product inside a folder: for ${detector} give SAFE products as arguments of their own (all inputs SAFE), or RTC GeoTIFFs (e.g. OPERA RTC-S1 *_VV.tif / *_VH.tif)`,
  );
}

function parseDates(text: string | undefined, count: number): (string | null)[] {
  if (text === undefined) return new Array(count).fill(null);
  const dates = text.split(',').map((s) => s.trim());
  if (dates.length !== count) throw new RtcInputError(`--dates gives ${dates.length} dates for ${count} inputs; give one date per input, in order`);
  for (const d of dates) {
    const t = Date.parse(`${d}T00:00:00Z`);
    if (!/^\d{4}-\d{2}-\d{2}$/.test(d) || Number.isNaN(t) || new Date(t).toISOString().slice(0, 10) !== d) {
      throw new RtcInputError(`--dates: "${d}" is not a date (YYYY-MM-DD)`);
    }
  }
  return dates;
}

/** What the catalog reads from an RTC file (null: not a product it identifies). */
async function identify(file: string): Promise<RtcContribution | null> {
  try {
    return await readRtcGeoTiff(file);
  } catch (e) {
    if (e instanceof RtcFileError) throw new RtcInputError(e.message);
    throw new RtcInputError(`${file}: ${(e as Error).message}`);
  }
}

/** The polarisation of a file the catalog does not identify: a VV/VH word in the name, or the band description. */
async function polarisationOf(file: string): Promise<'VV' | 'VH' | null> {
  const fromName = polarisationOfName(path.basename(file).replace(TIFF, ''));
  if (fromName === 'VV' || fromName === 'VH') return fromName;
  if (fromName) return null; // HH/HV: not used by these detectors
  try {
    const raster = await openRasterProduct(file);
    try {
      const pol = raster.opera?.polarization ?? polarisationOfName(raster.bandDescriptions[0]);
      return pol === 'VV' || pol === 'VH' ? pol : null;
    } finally {
      await raster.close();
    }
  } catch (e) {
    if (isImageryError(e)) throw new RtcInputError(`${file}: ${e.message}`);
    throw e;
  }
}

/**
 * Every RTC GeoTIFF of the arguments, with its polarisation, date and what the catalog
 * reads from it (its scene contribution). Usage errors
 * (RtcInputError): a missing path, a SAFE product, a folder without GeoTIFFs, a file named
 * explicitly whose polarisation cannot be told.
 */
export async function collectRtcFiles(detector: string, inputs: readonly string[], datesText?: string): Promise<{ files: RtcFile[]; skipped: string[] }> {
  if (inputs.length === 0) throw new RtcInputError(`analyze ${detector} needs RTC GeoTIFF inputs`);
  const dates = parseDates(datesText, inputs.length);
  const files: RtcFile[] = [];
  const skipped: string[] = [];
  for (let arg = 0; arg < inputs.length; arg++) {
    const input = inputs[arg]!;
    if (!fs.existsSync(input)) throw new RtcInputError(`${input} does not exist`);
    if (looksLikeSafe(input)) throw grdNotSupported(detector, input);
    const stat = fs.statSync(input);
    let candidates: string[];
    if (stat.isDirectory()) {
      const entries = fs.readdirSync(input).sort();
      candidates = entries.filter((e) => TIFF.test(e)).map((e) => path.join(input, e));
      if (candidates.length === 0) {
        const safe = entries.find((e) => looksLikeSafe(path.join(input, e)));
        if (safe) throw grdNotSupported(detector, path.join(input, safe));
        throw new RtcInputError(`${input} holds no GeoTIFF (*.tif)`);
      }
    } else {
      if (!TIFF.test(input)) throw new RtcInputError(`${input} is not a GeoTIFF (*.tif); ${detector} reads RTC GeoTIFFs`);
      candidates = [input];
    }
    for (const file of candidates) {
      const contribution = await identify(file);
      const pol = contribution ? (contribution.pol === 'VV' || contribution.pol === 'VH' ? contribution.pol : null) : await polarisationOf(file);
      if (!pol) {
        if (!stat.isDirectory()) throw new RtcInputError(`${file}: cannot tell its polarisation (VV or VH) from its name or band description`);
        skipped.push(file);
        continue;
      }
      // With --dates the user dates the files: they are used as given, not selected among.
      const identified = datesText === undefined ? contribution : null;
      files.push({ path: file, pol, date: dates[arg] ?? identified?.start.toISOString().slice(0, 10) ?? null, contribution: identified, arg });
    }
  }
  if (files.length === 0) throw new RtcInputError(`no VV or VH GeoTIFF among ${inputs.join(', ')}`);
  return { files, skipped };
}

/**
 * Files used as given → acquisitions keyed by `groupOf`. Two files of one polarisation in
 * one acquisition cannot be told apart without the catalog (bursts, tracks): refused.
 */
function groupAcquisitions(files: readonly RtcFile[], groupOf: (f: RtcFile) => string): Map<string, RtcAcquisition> {
  const out = new Map<string, RtcAcquisition>();
  for (const f of files) {
    const acq = out.get(groupOf(f)) ?? { date: f.date };
    const key = f.pol === 'VV' ? 'vv' : 'vh';
    if (acq[key]) {
      throw new RtcInputError(`${path.basename(acq[key])} and ${path.basename(f.path)} are both ${f.pol} of ${f.date ?? (f.arg === 0 ? 'PRE' : 'POST')}: files used as given (dated by --dates, or not identified by the catalog) must be one per polarisation and date`);
    }
    acq[key] = f.path;
    out.set(groupOf(f), acq);
  }
  return out;
}

/** A raster's extent in lon/lat (its footprint). */
async function footprintOf(file: string): Promise<Polygon> {
  let raster;
  try {
    raster = await openRasterProduct(file);
  } catch (e) {
    if (isImageryError(e)) throw new RtcInputError(`${file}: ${e.message}`);
    throw e;
  }
  try {
    return { type: 'Polygon', coordinates: raster.bounds().coordinates };
  } catch (e) {
    if (isImageryError(e)) throw new RtcInputError(`${file}: ${e.message}`);
    throw e;
  } finally {
    await raster.close();
  }
}

/**
 * The scene of files the catalog cannot identify, made of the files themselves (used as
 * given: the detectors read its bands' files; an undated PRE or POST has no date).
 */
async function sceneOfFiles(a: RtcAcquisition, aoi: AoiGeometry): Promise<ResolvedScene> {
  const first = (a.vv ?? a.vh)!;
  const footprint = await footprintOf(first);
  const inside = intersectAoi(aoi, footprint);
  if (!inside || geodesicAreaSqkm(inside) === 0) throw new RtcInputError(`--polygon does not overlap ${path.basename(first)}`);
  return { sceneId: path.basename(first).replace(TIFF, ''), productType: 'RTC', startTime: a.date ? `${a.date}T00:00:00.000Z` : '', footprint, assets: bandAssets(a) };
}

/** The band files of an acquisition as scene assets (what the detectors read). */
function bandAssets(a: RtcAcquisition): SceneRecord['assets'] {
  return {
    ...(a.vv ? { vv: { href: a.vv, role: 'data', pol: 'VV' } } : {}),
    ...(a.vh ? { vh: { href: a.vh, role: 'data', pol: 'VH' } } : {}),
  };
}

const acquisitionOf = (r: SceneRecord): RtcAcquisition => ({ date: r.startTime.slice(0, 10), vv: r.assets.vv?.href, vh: r.assets.vh?.href });

/** The catalog's scene records of identified files, and the argument each came from. */
function recordsOf(files: readonly RtcFile[]): { record: SceneRecord; arg: number }[] {
  const bySceneId = new Map<string, RtcFile[]>();
  for (const f of files) bySceneId.set(f.contribution!.sceneId, [...(bySceneId.get(f.contribution!.sceneId) ?? []), f]);
  return [...bySceneId.values()].map((list) => ({ record: mergeRtcContributions(list.map((f) => f.contribution!)), arg: list[0]!.arg }));
}

const burstOf = (r: SceneRecord): string => r.frame.burstId ?? r.sceneId;

export interface ChangePair {
  /** The two scenes, each with only the polarisations both have. */
  earlier: ResolvedScene;
  later: ResolvedScene;
  /** Progress label: burst (or file) and dates. */
  label: string;
  warnings: string[];
}

/** Only polarisations both dates have are used (detectChangeInRtcPair's rule). */
function commonPolarisations(pre: RtcAcquisition, post: RtcAcquisition): [RtcAcquisition, RtcAcquisition] {
  const strip = (a: RtcAcquisition, other: RtcAcquisition): RtcAcquisition => ({ ...a, vv: other.vv ? a.vv : undefined, vh: other.vh ? a.vh : undefined });
  const p = strip(pre, post);
  const q = strip(post, pre);
  if (!p.vv && !p.vh) throw new RtcInputError(`PRE and POST share no polarisation (VV or VH)`);
  return [p, q];
}

/**
 * The pre and post acquisitions of a change detection. Files the catalog identifies: two
 * arguments are PRE and POST (selectNamedPair); otherwise the job's selectChangePair over
 * the days the inputs span. Files it cannot identify: used as given (below).
 */
export async function selectChangePair(detector: string, files: readonly RtcFile[], inputCount: number, aoi: AoiGeometry): Promise<ChangePair> {
  if (!files.every((f) => f.contribution)) return changePairAsGiven(detector, files, inputCount, aoi);
  const named = recordsOf(files);
  const productTypes = analyzeImagery(detector as EndpointName);
  const warnings: string[] = [];
  let pair: ChangePairSelection;
  if (inputCount === 2) {
    const side = (arg: number) => named.filter((n) => n.arg === arg).map((n) => n.record);
    const selected = selectNamedPair(side(0), side(1), { aoi, productTypes });
    if (!selected.ok) throw new RtcInputError(selected.message);
    if (selected.swapped) {
      warnings.push(`PRE (${side(0)[0]!.startTime.slice(0, 10)}) is later than POST (${side(1)[0]!.startTime.slice(0, 10)}); ${selected.earlier.startTime.slice(0, 10)} is used as the earlier date`);
    }
    pair = selected;
  } else {
    const records = named.map((n) => n.record);
    const days = records.map((r) => r.startTime.slice(0, 10)).sort();
    const selected = SCENE_SELECTORS.pair(records, { aoi, productTypes, dateStart: days[0]!, dateEnd: days[days.length - 1]! });
    if (!selected.ok) throw new RtcInputError(`${detector}: ${selected.message}`);
    pair = selected;
  }
  warnings.push(...pair.warnings.map((w) => w.message));
  const [pre, post] = commonPolarisations(acquisitionOf(pair.earlier), acquisitionOf(pair.later));
  return {
    earlier: { ...pair.earlier, assets: bandAssets(pre) },
    later: { ...pair.later, assets: bandAssets(post) },
    label: `${burstOf(pair.earlier)} ${pre.date} → ${post.date}`,
    warnings,
  };
}

/**
 * Files the catalog cannot identify: nothing to choose. Dated by --dates, the two dates;
 * undated, two arguments PRE and POST in that order. Both must meet the polygon.
 */
async function changePairAsGiven(detector: string, files: readonly RtcFile[], inputCount: number, aoi: AoiGeometry): Promise<ChangePair> {
  const dated = files.every((f) => f.date !== null);
  if (!dated && inputCount !== 2) {
    const f = files.find((x) => x.date === null)!;
    throw new RtcInputError(`cannot tell the date of ${f.path}: use OPERA file names, --dates, or give exactly two inputs, PRE and POST`);
  }
  const groupOf = dated ? (f: RtcFile) => f.date! : (f: RtcFile) => (f.arg === 0 ? 'PRE' : 'POST');
  const acquisitions = groupAcquisitions(files, groupOf);
  const keys = dated ? [...acquisitions.keys()].sort() : ['PRE', 'POST'];
  if (acquisitions.size !== 2) {
    throw new RtcInputError(`${detector} compares two dates; the inputs hold ${acquisitions.size} (${keys.join(', ')}): give PRE and POST (a folder or the files of one date each)`);
  }
  const [given0, given1] = keys.map((k) => acquisitions.get(k)!) as [RtcAcquisition, RtcAcquisition];
  const earlier = await sceneOfFiles(given0, aoi);
  const later = await sceneOfFiles(given1, aoi);
  const [pre, post] = commonPolarisations(given0, given1);
  return {
    earlier: { ...earlier, assets: bandAssets(pre) },
    later: { ...later, assets: bandAssets(post) },
    label: `${path.basename((pre.vv ?? pre.vh)!)} ${pre.date ?? 'PRE'} → ${post.date ?? 'POST'}`,
    warnings: [],
  };
}

export interface SeriesInput {
  /** By date. */
  scenes: ResolvedScene[];
  dates: string[];
  warnings: string[];
}

/**
 * The scenes of a time series. Files the catalog identifies: the job's series rule
 * (selectNamedSeries: the best path/frame over the polygon). Files it cannot identify:
 * every date given, each meeting the polygon.
 */
export async function selectSeries(files: readonly RtcFile[], aoi: AoiGeometry): Promise<SeriesInput> {
  const undated = files.find((f) => f.date === null);
  if (undated) throw new RtcInputError(`cannot tell the date of ${undated.path}: use OPERA file names or --dates (one per input)`);
  let scenes: ResolvedScene[];
  const warnings: string[] = [];
  if (files.every((f) => f.contribution)) {
    const records = recordsOf(files).map((n) => n.record);
    const selected = selectNamedSeries(records, { aoi, productTypes: analyzeImagery('timeseries') });
    if (!selected.ok) throw new RtcInputError(selected.message);
    warnings.push(...selected.warnings.map((w) => w.message));
    const left = records.length - selected.scenes.length;
    if (left > 0) {
      const { relativeOrbit, orbitDirection } = selected.pathFrame;
      warnings.push(`using the ${selected.scenes.length} scenes of track ${relativeOrbit} ${orbitDirection} over the polygon; ${left} other(s) left out (another path/frame, or outside the polygon)`);
    }
    scenes = selected.scenes;
  } else {
    const acquisitions = [...groupAcquisitions(files, (f) => f.date!).values()].sort((a, b) => a.date!.localeCompare(b.date!));
    scenes = [];
    for (const a of acquisitions) scenes.push(await sceneOfFiles(a, aoi));
  }
  const dates = [...new Set(scenes.map((s) => s.startTime.slice(0, 10)))];
  if (dates.length < 2) throw new RtcInputError(`a time series needs at least two dates; the inputs over the polygon hold ${dates.length} (${dates.join(', ')})`);
  return { scenes, dates, warnings };
}
