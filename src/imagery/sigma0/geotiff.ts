/**
 * A GeoTIFF of calibrated σ0 as a Sigma0Product: one band per polarisation, found by band
 * name or given in band order, linear or dB, georeferenced by a CRS or by GCPs
 * (./georef.ts). What the ship and oil-slick engines read of a SAFE product, from a file
 * SNAP, GDAL or another processor wrote.
 *
 * Band names, first match wins: `pols` given by the caller (band order); GDAL band
 * descriptions (GDAL_METADATA, what `gdal_translate`/rasterio write); SNAP's GeoTIFF header
 * (the DIMAP XML in private tag 65000: Sigma0_VV, …); for a single-band file, its file
 * name. A name gives its polarisation when it contains VV, VH, HH or HV as a word
 * ("Sigma0_VV", "sigma0_vh_db", "VV"); names of other quantities (beta0, gamma0,
 * amplitude, intensity, phase) are not taken for σ0. A band named like "incidence_angle"
 * gives the incidence angle (degrees), otherwise it is unknown (see DEFAULT_INCIDENCE_DEG).
 *
 * Pixel values: linear σ0 (0 and no-data invalid, values below the σ0 floor raised to it,
 * as the SAFE reader does) or dB (converted to linear; no-data invalid).
 */
import { basename, extname } from 'node:path';
import geodesic from 'geographiclib-geodesic';
import type { GeoTIFF, GeoTIFFImage } from 'geotiff';
import { BlockReader } from '../blockreader.js';
import { ImageryError } from '../errors.js';
import { isRemoteHref, openTiff } from '../remote/access.js';
import { SIGMA_FLOOR_LINEAR, windowArrays, type CalibratedWindow, type ReadWindowOptions } from '../safe/calibrate.js';
import { assertWindow, closeCounterClockwise, intersectWindows, type LonLatPolygon, type PixelWindow } from '../window.js';
import { attr, children, parseXml, text } from '../xml.js';
import { pixelGeocoding, type PixelGeocoding } from './georef.js';
import type { OpenSigma0Options, Sigma0Band, Sigma0Geolocation, Sigma0Product, Sigma0Units } from './types.js';

export const SIGMA0_UNITS: readonly Sigma0Units[] = ['linear', 'db'];

/**
 * Incidence angle assumed when the file carries none (degrees): the middle of the IW
 * swath (about 30–46°). The oil-slick look-alike test uses it for its low-wind threshold.
 */
export const DEFAULT_INCIDENCE_DEG = 38;

const POLARISATIONS = ['VV', 'VH', 'HH', 'HV'] as const;
const NOT_SIGMA0 = /beta|gamma|amplitude|intensity|phase|coherence|^[iq]_/i;
const INCIDENCE = /incid/i;

export interface Sigma0GeoTiff extends Sigma0Product {
  readonly units: Sigma0Units;
  /** Band index (0-based) of each polarisation. */
  readonly bandIndex: Readonly<Record<string, number>>;
  /** Every band's name as found (null where none). */
  readonly bandNames: (string | null)[];
  /** Where the polarisations came from. */
  readonly namedBy: 'pols' | 'description' | 'snap' | 'filename';
  readonly georeference: PixelGeocoding;
  /** Whether geolocation.incidenceAngle comes from an incidence-angle band (else DEFAULT_INCIDENCE_DEG). */
  readonly hasIncidence: boolean;
  /** Metres between columns and rows at the image centre. */
  readonly pixelSpacing: { range: number; azimuth: number };
  /**
   * Statistics of the first σ0 band's valid values in the file's units (before any
   * conversion) over a central window of up to 512 × 512 pixels; null when none is valid.
   * For telling dB from linear values.
   */
  sampleStatistics(): Promise<{ median: number; min: number; max: number; count: number } | null>;
}

/** The polarisation a band name gives, or null. */
export function polarisationOfName(name: string | null | undefined): string | null {
  if (!name || NOT_SIGMA0.test(name) || INCIDENCE.test(name)) return null;
  const m = /(?:^|[^A-Za-z])(VV|VH|HH|HV)(?:[^A-Za-z]|$)/i.exec(name);
  return m ? m[1]!.toUpperCase() : null;
}

async function gdalDescriptions(image: GeoTIFFImage, bandCount: number): Promise<(string | null)[]> {
  const out: (string | null)[] = new Array(bandCount).fill(null);
  const fd = image.getFileDirectory();
  if (!fd.hasTag('GDAL_METADATA')) return out;
  const xml = String(await fd.loadValue('GDAL_METADATA'));
  for (const item of children(parseXml(xml, 'GDAL metadata'), 'GDALMetadata', 'Item')) {
    const sample = attr(item, 'sample');
    if (sample === undefined || attr(item, 'role') !== 'description') continue;
    const i = Number(sample);
    if (Number.isInteger(i) && i >= 0 && i < bandCount) out[i] = text(item) ?? null;
  }
  return out;
}

/** Band names from SNAP's DIMAP header (TIFF tag 65000), in band order. */
async function snapBandNames(image: GeoTIFFImage, bandCount: number): Promise<(string | null)[]> {
  const out: (string | null)[] = new Array(bandCount).fill(null);
  const fd = image.getFileDirectory();
  if (!fd.hasTag(65000)) return out;
  const raw = await fd.loadValue(65000);
  const xml = typeof raw === 'string' ? raw : Buffer.from(raw as ArrayLike<number> as Uint8Array).toString('utf8');
  for (const block of xml.match(/<Spectral_Band_Info>[\s\S]*?<\/Spectral_Band_Info>/g) ?? []) {
    const index = Number(/<BAND_INDEX>\s*(\d+)\s*<\/BAND_INDEX>/.exec(block)?.[1]);
    const name = /<BAND_NAME>\s*([^<]*?)\s*<\/BAND_NAME>/.exec(block)?.[1];
    if (Number.isInteger(index) && index >= 0 && index < bandCount && name) out[index] = name;
  }
  return out;
}

function parseNodata(image: GeoTIFFImage): number | null {
  const fd = image.getFileDirectory();
  if (!fd.hasTag('GDAL_NODATA')) return null;
  const raw = String(fd.getValue('GDAL_NODATA') ?? '').replace(/\0/g, '').trim();
  if (raw === '' || /^[-+]?nan$/i.test(raw)) return null; // NaN is invalid anyway
  const v = Number(raw);
  return Number.isFinite(v) ? v : null;
}

/** Geodesic distance (m) between two lon/lat points. */
function distanceM(a: [number, number], b: [number, number]): number {
  return geodesic.Geodesic.WGS84.Inverse(a[1], a[0], b[1], b[0]).s12 ?? Number.NaN;
}

class GeoTiffSigma0Band implements Sigma0Band {
  constructor(
    readonly polarisation: string,
    private readonly sample: number,
    private readonly reader: BlockReader,
    private readonly units: Sigma0Units,
    private readonly nodata: number | null,
    readonly validWindow: PixelWindow,
    readonly annotation: { rangePixelSpacing: number; azimuthPixelSpacing: number },
    private readonly location: string,
  ) {}

  get hasMeasurement(): boolean {
    return true;
  }

  async readWindow(window: PixelWindow, options: ReadWindowOptions): Promise<CalibratedWindow> {
    assertWindow(window);
    if (options.quantity !== 'sigma0') {
      throw new ImageryError('MEASUREMENT_UNAVAILABLE', `${this.location} holds σ0; ${options.quantity} cannot be derived from it`);
    }
    const n = window.width * window.height;
    const raw = new Float32Array(n).fill(Number.NaN);
    const inside = intersectWindows(window, this.validWindow);
    if (inside) await this.reader.read(inside, this.sample, raw, window.width, window.x0, window.y0);
    const { data, valid } = windowArrays(window, options.into);
    const floor = options.floor ?? SIGMA_FLOOR_LINEAR;
    const nodata = this.nodata;
    const db = this.units === 'db';
    for (let i = 0; i < n; i++) {
      const v = raw[i]!;
      if (!Number.isFinite(v) || v === nodata || (!db && v === 0)) continue;
      const linear = db ? 10 ** (v / 10) : v;
      data[i] = linear < floor ? floor : linear;
      valid[i] = 1;
    }
    return { data, valid, window };
  }
}

/** Bilinear interpolation on a coarse sample grid of a smooth band (incidence angle). */
class CoarseGrid {
  constructor(
    private readonly rows: Float64Array,
    private readonly cols: Float64Array,
    private readonly values: Float64Array,
  ) {}

  at(line: number, pixel: number): number {
    const { rows, cols, values } = this;
    const find = (xs: Float64Array, x: number): number => {
      let i = 0;
      while (i < xs.length - 2 && x > xs[i + 1]!) i++;
      return i;
    };
    const i = find(rows, line);
    const j = find(cols, pixel);
    const u = Math.min(1, Math.max(0, (line - rows[i]!) / (rows[i + 1]! - rows[i]! || 1)));
    const v = Math.min(1, Math.max(0, (pixel - cols[j]!) / (cols[j + 1]! - cols[j]! || 1)));
    const nc = cols.length;
    const a = values[i * nc + j]!;
    const b = values[i * nc + j + 1]!;
    const c = values[(i + 1) * nc + j]!;
    const d = values[(i + 1) * nc + j + 1]!;
    return (1 - u) * ((1 - v) * a + v * b) + u * ((1 - v) * c + v * d);
  }
}

async function incidenceGrid(reader: BlockReader, sample: number, width: number, height: number): Promise<CoarseGrid | null> {
  const steps = 16;
  const rows = Float64Array.from({ length: steps + 1 }, (_, k) => Math.round(((height - 1) * k) / steps));
  const cols = Float64Array.from({ length: steps + 1 }, (_, k) => Math.round(((width - 1) * k) / steps));
  const values = new Float64Array(rows.length * cols.length);
  const one = new Float32Array(1);
  for (let i = 0; i < rows.length; i++) {
    for (let j = 0; j < cols.length; j++) {
      one[0] = Number.NaN;
      await reader.read({ x0: cols[j]!, y0: rows[i]!, width: 1, height: 1 }, sample, one, 1);
      values[i * cols.length + j] = one[0]!;
    }
  }
  // A usable incidence band: finite, plausible angles everywhere it was sampled.
  if (!values.every((v) => Number.isFinite(v) && v > 0 && v < 90)) return null;
  return new CoarseGrid(rows, cols, values);
}

/**
 * Open a σ0 GeoTIFF. ImageryError: 'NOT_FOUND' (no file), 'INVALID_PRODUCT' (no
 * georeferencing, no σ0 band, `pols` not matching the band count), 'UNSUPPORTED_CRS'.
 */
export async function openSigma0GeoTiff(path: string, options: OpenSigma0Options = {}): Promise<Sigma0GeoTiff> {
  const units = options.units ?? 'linear';
  if (!SIGMA0_UNITS.includes(units)) throw new ImageryError('INVALID_PRODUCT', `unknown σ0 units "${String(units)}" (linear or db)`);
  const tiff: GeoTIFF = await openTiff(path);
  try {
    const image = await tiff.getImage();
    const width = image.getWidth();
    const height = image.getHeight();
    const bandCount = image.getSamplesPerPixel();
    const what = basename(path);
    const georeference = pixelGeocoding(image, what);

    // Band names and polarisations.
    const descriptions = await gdalDescriptions(image, bandCount);
    const snap = await snapBandNames(image, bandCount);
    let namedBy: Sigma0GeoTiff['namedBy'];
    let names: (string | null)[];
    let pols: (string | null)[];
    if (options.pols && options.pols.length > 0) {
      const given = options.pols.map((p) => p.trim().toUpperCase());
      const unknown = given.filter((p) => !(POLARISATIONS as readonly string[]).includes(p));
      if (unknown.length) throw new ImageryError('INVALID_PRODUCT', `--pol: unknown polarisation ${unknown.join(', ')} (VV, VH, HH or HV)`);
      if (given.length > bandCount) throw new ImageryError('INVALID_PRODUCT', `--pol names ${given.length} bands; ${what} has ${bandCount}`);
      if (new Set(given).size !== given.length) throw new ImageryError('INVALID_PRODUCT', `--pol names a polarisation twice: ${given.join(',')}`);
      namedBy = 'pols';
      names = descriptions.map((d, i) => d ?? snap[i] ?? null);
      pols = Array.from({ length: bandCount }, (_, i) => given[i] ?? null);
    } else if (descriptions.some((d) => polarisationOfName(d))) {
      namedBy = 'description';
      names = descriptions;
      pols = descriptions.map(polarisationOfName);
    } else if (snap.some((d) => polarisationOfName(d))) {
      namedBy = 'snap';
      names = snap;
      pols = snap.map(polarisationOfName);
    } else {
      namedBy = 'filename';
      names = descriptions.map((d, i) => d ?? snap[i] ?? null);
      const fromName = bandCount === 1 ? polarisationOfName(basename(path, extname(path))) : null;
      pols = [fromName, ...new Array(bandCount - 1).fill(null)];
    }
    const bandIndex: Record<string, number> = {};
    pols.forEach((p, i) => {
      if (!p) return;
      // Two bands of one polarisation: keep the one that says σ0.
      if (bandIndex[p] === undefined || (/sigma/i.test(names[i] ?? '') && !/sigma/i.test(names[bandIndex[p]!] ?? ''))) bandIndex[p] = i;
    });
    const polarisations = (POLARISATIONS as readonly string[]).filter((p) => bandIndex[p] !== undefined);
    if (polarisations.length === 0) {
      const listed = names.map((n, i) => `${i + 1}: ${n ?? '(unnamed)'}`).join(', ');
      throw new ImageryError(
        'INVALID_PRODUCT',
        `${what}: no band is σ0 of a polarisation (bands ${listed}); name the bands (e.g. "Sigma0_VV") or give their polarisations in band order with --pol VV,VH`,
      );
    }

    const geolocation0 = georeference;
    const center: [number, number] = [(height - 1) / 2, (width - 1) / 2];
    const c = geolocation0.pixelToLonLat(center[0], center[1]);
    const range = distanceM(c, geolocation0.pixelToLonLat(center[0], center[1] + 1));
    const azimuth = distanceM(c, geolocation0.pixelToLonLat(center[0] + 1, center[1]));
    if (!(range > 0 && azimuth > 0 && Number.isFinite(range) && Number.isFinite(azimuth))) {
      throw new ImageryError('INVALID_PRODUCT', `${what}: the georeferencing gives no usable pixel spacing`);
    }

    // Stripped files are read as square tiles: cache a tile row of strips (ship tiles are
    // 3072 px + halo), so each strip is decoded once per tile row, not once per tile.
    const stripped = image.getTileWidth() === width;
    const rowBytes = width * image.getBytesPerPixel();
    const cacheBytes = options.blockCache?.cacheBytes ?? (stripped ? Math.min(1 << 30, Math.max(96 << 20, Math.ceil(1.1 * 3600 * rowBytes))) : undefined);
    const reader = new BlockReader(image, { ...options.blockCache, ...(cacheBytes ? { cacheBytes } : {}) });

    const incidenceBand = names.findIndex((n) => !!n && INCIDENCE.test(n));
    const incidence = incidenceBand >= 0 ? await incidenceGrid(reader, incidenceBand, width, height) : null;
    const nodata = parseNodata(image);
    const whole: PixelWindow = { x0: 0, y0: 0, width, height };
    const spacing = { rangePixelSpacing: range, azimuthPixelSpacing: azimuth };
    const bands: Record<string, Sigma0Band> = {};
    for (const p of polarisations) bands[p] = new GeoTiffSigma0Band(p, bandIndex[p]!, reader, units, nodata, whole, spacing, what);

    const geolocation: Sigma0Geolocation = {
      pixelToLonLat: (line, pixel) => georeference.pixelToLonLat(line, pixel),
      lonLatToPixel: (lon, lat) => georeference.lonLatToPixel(lon, lat),
      incidenceAngle: incidence ? (line, pixel) => incidence.at(line, pixel) : () => DEFAULT_INCIDENCE_DEG,
    };
    const steps = 8;
    const ring: [number, number][] = [];
    const corner = (px: number, py: number) => georeference.pixelToLonLat(py - 0.5, px - 0.5);
    for (let i = 0; i < steps; i++) ring.push(corner((width * i) / steps, 0));
    for (let i = 0; i < steps; i++) ring.push(corner(width, (height * i) / steps));
    for (let i = 0; i < steps; i++) ring.push(corner(width - (width * i) / steps, height));
    for (let i = 0; i < steps; i++) ring.push(corner(0, height - (height * i) / steps));
    const footprint: LonLatPolygon = { type: 'Polygon', coordinates: [closeCounterClockwise(ring)] };

    const sampleStatistics = async (): Promise<{ median: number; min: number; max: number; count: number } | null> => {
      const w = Math.min(512, width);
      const h = Math.min(512, height);
      const win = { x0: Math.floor((width - w) / 2), y0: Math.floor((height - h) / 2), width: w, height: h };
      const raw = new Float32Array(w * h).fill(Number.NaN);
      await reader.read(win, bandIndex[polarisations[0]!]!, raw, w);
      const values = Array.from(raw).filter((v) => Number.isFinite(v) && v !== nodata && !(units === 'linear' && v === 0));
      if (values.length === 0) return null;
      values.sort((a, b) => a - b);
      return { median: values[Math.floor(values.length / 2)]!, min: values[0]!, max: values[values.length - 1]!, count: values.length };
    };

    let closing: Promise<void> | null = null;
    return {
      location: path,
      // A local file can be opened again by path on another thread (a remote one needs this thread's access settings).
      ...(isRemoteHref(path) ? {} : { source: { kind: 'sigma0-geotiff' as const, path, options } }),
      productId: basename(path, extname(path)),
      polarisations,
      width,
      height,
      bands,
      geolocation,
      validWindow: whole,
      validFootprint: footprint,
      units,
      bandIndex,
      bandNames: names,
      namedBy,
      georeference,
      hasIncidence: incidence !== null,
      pixelSpacing: { range, azimuth },
      sampleStatistics,
      close: () => {
        closing ??= (async () => {
          reader.clear();
          await tiff.close();
        })();
        return closing;
      },
    };
  } catch (error) {
    await tiff.close();
    throw error;
  }
}
