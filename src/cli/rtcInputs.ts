/**
 * RTC GeoTIFF inputs of `sarwatch analyze newbuilding|disappearbuilding|timeseries`: the
 * command-line arguments (folders holding *_VV.tif / *_VH.tif, or the files themselves)
 * grouped into acquisitions — one date, one burst, VV and/or VH — and the acquisitions the
 * detectors get: for building change the pair of the burst that covers most of the polygon,
 * for a time series every date of the track that covers most of it.
 *
 * Dates come from OPERA file names (…_20231203T015910Z_…) or from `--dates`, one per
 * argument. Bursts come from OPERA names (T137-292320-IW1); files without one form a single
 * grid. SAFE GRD products are src/cli/grdInputs.ts's; one found inside a folder of GeoTIFFs
 * is refused here.
 */
import fs from 'node:fs';
import path from 'node:path';
import { geodesicAreaSqkm, intersectAoi, type AoiGeometry } from '../geo/index.ts';
import { isImageryError, openRasterProduct, operaMetadata, polarisationOfName } from '../imagery/index.ts';

export class RtcInputError extends Error {}

export interface RtcFile {
  path: string;
  pol: 'VV' | 'VH';
  /** YYYY-MM-DD, null when neither the name nor --dates gives it. */
  date: string | null;
  /** OPERA burst id, '' for files without one. */
  burst: string;
  /** Relative orbit from the burst id, null without. */
  track: number | null;
  /** Index of the command-line argument the file came from. */
  arg: number;
}

/** One burst on one date. */
export interface RtcAcquisition {
  date: string | null;
  burst: string;
  track: number | null;
  vv?: string;
  vh?: string;
  arg: number;
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

/** The polarisation of an RTC file: OPERA name, a VV/VH word in the name, or the band description. */
async function polarisationOf(file: string): Promise<'VV' | 'VH' | null> {
  const name = path.basename(file);
  const fromName = operaMetadata(name, {}, null)?.polarization ?? polarisationOfName(name.replace(TIFF, ''));
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
 * Every RTC GeoTIFF of the arguments, with its polarisation, date and burst. Usage errors
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
      const pol = await polarisationOf(file);
      if (!pol) {
        if (!stat.isDirectory()) throw new RtcInputError(`${file}: cannot tell its polarisation (VV or VH) from its name or band description`);
        skipped.push(file);
        continue;
      }
      const opera = operaMetadata(path.basename(file), {}, null);
      const burst = opera?.burstId ?? '';
      files.push({
        path: file,
        pol,
        date: dates[arg] ?? opera?.acquisitionTime?.slice(0, 10) ?? null,
        burst,
        track: opera?.track ?? null,
        arg,
      });
    }
  }
  if (files.length === 0) throw new RtcInputError(`no VV or VH GeoTIFF among ${inputs.join(', ')}`);
  return { files, skipped };
}

/**
 * Files → acquisitions keyed by (group, burst). `groupOf` gives the date key. Of several
 * files of one polarisation in an acquisition the last by name wins (OPERA names sort by
 * processing time: a reprocessed burst replaces the first).
 */
export function groupAcquisitions(files: readonly RtcFile[], groupOf: (f: RtcFile) => string): Map<string, RtcAcquisition> {
  const out = new Map<string, RtcAcquisition>();
  for (const f of [...files].sort((a, b) => path.basename(a.path).localeCompare(path.basename(b.path)))) {
    const key = `${groupOf(f)}|${f.burst}`;
    const acq = out.get(key) ?? { date: f.date, burst: f.burst, track: f.track, arg: f.arg };
    if (f.pol === 'VV') acq.vv = f.path;
    else acq.vh = f.path;
    out.set(key, acq);
  }
  return out;
}

/** Area (km²) of the polygon inside a raster's extent; 0 when they do not meet. */
export async function overlapSqkm(file: string, aoi: AoiGeometry): Promise<number> {
  let raster;
  try {
    raster = await openRasterProduct(file);
  } catch (e) {
    if (isImageryError(e)) throw new RtcInputError(`${file}: ${e.message}`);
    throw e;
  }
  try {
    let bounds;
    try {
      bounds = raster.bounds();
    } catch (e) {
      if (isImageryError(e)) throw new RtcInputError(`${file}: ${e.message}`);
      throw e;
    }
    const inside = intersectAoi(aoi, { type: 'Polygon', coordinates: bounds.coordinates });
    return inside ? geodesicAreaSqkm(inside) : 0;
  } finally {
    await raster.close();
  }
}

const pathsOf = (a: RtcAcquisition): { vv: string; vh?: string } | { vv?: string; vh: string } =>
  a.vv ? (a.vh ? { vv: a.vv, vh: a.vh } : { vv: a.vv }) : { vh: a.vh! };

export interface ChangePair {
  pre: RtcAcquisition;
  post: RtcAcquisition;
  prePaths: ReturnType<typeof pathsOf>;
  postPaths: ReturnType<typeof pathsOf>;
  /** Share of the polygon inside the pair's burst (0–1). */
  polygonShare: number;
  warnings: string[];
}

/**
 * The pre and post acquisitions of a change detection. Dates group the files (OPERA names
 * or --dates); without dates, two arguments are PRE and POST in that order. Exactly two
 * dates are needed; the earlier is pre. Of the bursts both dates have, the one covering
 * most of the polygon is used.
 */
export async function selectChangePair(detector: string, files: readonly RtcFile[], inputCount: number, aoi: AoiGeometry): Promise<ChangePair> {
  const warnings: string[] = [];
  const dated = files.every((f) => f.date !== null);
  if (!dated && inputCount !== 2) {
    const f = files.find((x) => x.date === null)!;
    throw new RtcInputError(`cannot tell the date of ${f.path}: use OPERA file names, --dates, or give exactly two inputs, PRE and POST`);
  }
  const groupOf = dated ? (f: RtcFile) => f.date! : (f: RtcFile) => (f.arg === 0 ? 'PRE' : 'POST');
  const keys = [...new Set(files.map(groupOf))].sort();
  if (keys.length !== 2) {
    throw new RtcInputError(
      `${detector} compares two dates; the inputs hold ${keys.length} (${keys.join(', ')}): give PRE and POST (a folder or the files of one date each)`,
    );
  }
  const [preKey, postKey] = dated ? keys : ['PRE', 'POST'];
  if (dated && inputCount === 2) {
    const firstArgDates = new Set(files.filter((f) => f.arg === 0).map((f) => f.date));
    if (firstArgDates.has(postKey!) && !firstArgDates.has(preKey!)) warnings.push(`PRE (${postKey}) is later than POST (${preKey}); ${preKey} is used as the earlier date`);
  }
  const acquisitions = groupAcquisitions(files, groupOf);
  const bursts = [...new Set(files.map((f) => f.burst))].filter((b) => acquisitions.has(`${preKey}|${b}`) && acquisitions.has(`${postKey}|${b}`));
  if (bursts.length === 0) throw new RtcInputError(`the ${preKey} and ${postKey} inputs share no burst (the same OPERA burst id on both dates)`);
  const candidates: { burst: string; share: number; pre: RtcAcquisition; post: RtcAcquisition }[] = [];
  const total = geodesicAreaSqkm(aoi);
  for (const burst of bursts) {
    const pre = acquisitions.get(`${preKey}|${burst}`)!;
    const post = acquisitions.get(`${postKey}|${burst}`)!;
    const common = (pre.vv && post.vv) || (pre.vh && post.vh);
    if (!common) continue;
    const share = total > 0 ? (await overlapSqkm((pre.vv ?? pre.vh)!, aoi)) / total : 0;
    if (share > 0) candidates.push({ burst, share, pre, post });
  }
  if (candidates.length === 0) throw new RtcInputError(`--polygon does not overlap any burst the ${preKey} and ${postKey} inputs share in VV or VH`);
  candidates.sort((a, b) => b.share - a.share || a.burst.localeCompare(b.burst));
  const best = candidates[0]!;
  if (candidates.length > 1) {
    warnings.push(`the polygon overlaps ${candidates.length} bursts; ${best.burst || 'the raster'} is analysed (${Math.round(best.share * 100)} % of the polygon)`);
  } else if (best.share < 0.99) {
    warnings.push(`${best.burst || 'the raster'} covers ${Math.round(best.share * 100)} % of the polygon; the rest is not analysed`);
  }
  // Only polarisations both dates have are used (detectChangeInRtcPair's rule); say so.
  const strip = (a: RtcAcquisition, other: RtcAcquisition): RtcAcquisition => ({
    ...a,
    vv: other.vv ? a.vv : undefined,
    vh: other.vh ? a.vh : undefined,
  });
  const pre = strip(best.pre, best.post);
  const post = strip(best.post, best.pre);
  return { pre, post, prePaths: pathsOf(pre), postPaths: pathsOf(post), polygonShare: best.share, warnings };
}

export interface SeriesInput {
  scenes: { date: string; vv?: string; vh?: string }[];
  track: number | null;
  bursts: string[];
  dates: string[];
  warnings: string[];
}

/**
 * The scenes of a time series: every acquisition of the bursts that overlap the polygon,
 * on one track (the one with the most dates there when the inputs mix tracks).
 */
export async function selectSeries(files: readonly RtcFile[], aoi: AoiGeometry): Promise<SeriesInput> {
  const undated = files.find((f) => f.date === null);
  if (undated) throw new RtcInputError(`cannot tell the date of ${undated.path}: use OPERA file names or --dates (one per input)`);
  const warnings: string[] = [];
  const acquisitions = [...groupAcquisitions(files, (f) => f.date!).values()];
  const overlapping = new Map<string, number>();
  for (const burst of new Set(acquisitions.map((a) => a.burst))) {
    const sample = acquisitions.find((a) => a.burst === burst)!;
    const area = await overlapSqkm((sample.vv ?? sample.vh)!, aoi);
    if (area > 0) overlapping.set(burst, area);
  }
  if (overlapping.size === 0) throw new RtcInputError('--polygon does not overlap any of the inputs');
  const byTrack = new Map<string, RtcAcquisition[]>();
  for (const a of acquisitions) {
    if (!overlapping.has(a.burst)) continue;
    const key = String(a.track ?? '');
    byTrack.set(key, [...(byTrack.get(key) ?? []), a]);
  }
  const tracks = [...byTrack.entries()]
    .map(([key, list]) => ({ key, list, dates: new Set(list.map((a) => a.date!)).size, area: [...new Set(list.map((a) => a.burst))].reduce((s, b) => s + overlapping.get(b)!, 0) }))
    .sort((a, b) => b.dates - a.dates || b.area - a.area);
  const chosen = tracks[0]!;
  if (tracks.length > 1) warnings.push(`the inputs over the polygon come from ${tracks.length} tracks; track ${chosen.key} (${chosen.dates} dates) is used`);
  const dates = [...new Set(chosen.list.map((a) => a.date!))].sort();
  if (dates.length < 2) throw new RtcInputError(`a time series needs at least two dates; the inputs over the polygon hold ${dates.length} (${dates.join(', ')})`);
  return {
    scenes: chosen.list.sort((a, b) => a.date!.localeCompare(b.date!) || a.burst.localeCompare(b.burst)).map((a) => ({ date: a.date!, ...pathsOf(a) })),
    track: chosen.list[0]!.track,
    bursts: [...new Set(chosen.list.map((a) => a.burst))].sort(),
    dates,
    warnings,
  };
}
