import { basename } from 'node:path';
import type { GeoTIFF, GeoTIFFImage } from 'geotiff';
import { BlockReader, type BlockReaderOptions } from '../blockreader.js';
import { ImageryError } from '../errors.js';
import { traceFootprint, type RasterFootprint } from '../footprint.js';
import { isHttpUrl, openTiff } from '../remote/access.js';
import { assertWindow, closeCounterClockwise, intersectWindows, type LonLatPolygon, type PixelWindow } from '../window.js';
import { children, attr, parseXml, text } from '../xml.js';
import { operaMetadata, type OperaMetadata } from './opera.js';
import { lonLatTransform, proj4DefinitionForEpsg, type LonLatTransform } from './projection.js';

/** GDAL order: [originX, pixelWidth, rowRotation, originY, columnRotation, pixelHeight], corner-based. */
export type Geotransform = [number, number, number, number, number, number];

export interface RasterWindow {
  /** One row-major Float32Array per requested band; NaN where invalid. */
  data: Float32Array[];
  /** 1 where every requested band has data (finite and ≠ no-data). */
  valid: Uint8Array;
  window: PixelWindow;
}

export interface RasterProduct {
  readonly location: string;
  readonly width: number;
  readonly height: number;
  readonly bandCount: number;
  /** GDAL band descriptions (null where none). */
  readonly bandDescriptions: (string | null)[];
  readonly geotransform: Geotransform;
  /** From GeoKeys (ProjectedCSTypeGeoKey / GeographicTypeGeoKey); null if user-defined or absent. */
  readonly epsg: number | null;
  /** proj4 definition for UTM WGS84 zones, 4326 and 3857; null otherwise. */
  readonly proj4: string | null;
  /** GDAL no-data value (NaN for OPERA). NaN pixels of float rasters are always invalid. */
  readonly nodata: number | null;
  /** Dataset-level GDAL metadata items (TIFF tag 42112). */
  readonly metadata: Record<string, string>;
  readonly opera: OperaMetadata | null;
  /** Values of a pixel window (may extend past the image: those pixels are invalid). */
  readWindow(window: PixelWindow, options?: { bands?: number[] }): Promise<RasterWindow>;
  /** Map coordinates of a pixel centre (integer row/col = centre of that pixel). */
  pixelToMap(row: number, col: number): [number, number];
  mapToPixel(x: number, y: number): { row: number; col: number };
  pixelToLonLat(row: number, col: number): [number, number];
  lonLatToPixel(lon: number, lat: number): { row: number; col: number };
  /** Image outline in lon/lat (edges densified). */
  bounds(): LonLatPolygon;
  /** Valid-data outline and fraction, read tile by tile (bounded memory). */
  footprint(options?: { tileSize?: number }): Promise<RasterFootprint>;
  close(): Promise<void>;
}

export interface OpenRasterOptions {
  blockCache?: BlockReaderOptions;
}

function geotransformOf(image: GeoTIFFImage, what: string): Geotransform {
  const fd = image.getFileDirectory();
  const t = fd.getValue('ModelTransformation') as ArrayLike<number> | undefined;
  let gt: Geotransform;
  if (t && t.length >= 8) {
    gt = [t[3]!, t[0]!, t[1]!, t[7]!, t[4]!, t[5]!];
  } else {
    const tie = fd.getValue('ModelTiepoint') as ArrayLike<number> | undefined;
    const scale = fd.getValue('ModelPixelScale') as ArrayLike<number> | undefined;
    if (!tie || tie.length < 6 || !scale || scale.length < 2) {
      throw new ImageryError('INVALID_PRODUCT', `${what} has no affine georeferencing (tiepoint + pixel scale or transformation)`);
    }
    gt = [tie[3]! - tie[0]! * scale[0]!, scale[0]!, 0, tie[4]! + tie[1]! * scale[1]!, 0, -scale[1]!];
  }
  // PixelIsPoint: the tie point is a pixel centre; GDAL shifts to the corner, and so do we.
  if (image.getGeoKeys()?.GTRasterTypeGeoKey === 2) {
    gt = [gt[0] - 0.5 * gt[1] - 0.5 * gt[2], gt[1], gt[2], gt[3] - 0.5 * gt[4] - 0.5 * gt[5], gt[4], gt[5]];
  }
  return gt;
}

function epsgOf(image: GeoTIFFImage): number | null {
  const keys = image.getGeoKeys();
  if (!keys) return null;
  for (const code of [keys.ProjectedCSTypeGeoKey, keys.GeographicTypeGeoKey]) {
    if (typeof code === 'number' && code > 0 && code !== 32767) return code;
  }
  return null;
}

function parseNodata(image: GeoTIFFImage): number | null {
  const fd = image.getFileDirectory();
  if (!fd.hasTag('GDAL_NODATA')) return null;
  const raw = String(fd.getValue('GDAL_NODATA') ?? '').replace(/\0/g, '').trim();
  if (raw === '') return null;
  if (/^[-+]?nan$/i.test(raw)) return Number.NaN;
  const value = Number(raw);
  return Number.isNaN(value) ? null : value;
}

async function gdalMetadata(image: GeoTIFFImage, bandCount: number): Promise<{ dataset: Record<string, string>; descriptions: (string | null)[] }> {
  const dataset: Record<string, string> = {};
  const descriptions: (string | null)[] = new Array(bandCount).fill(null);
  const fd = image.getFileDirectory();
  if (!fd.hasTag('GDAL_METADATA')) return { dataset, descriptions };
  const xml = String(await fd.loadValue('GDAL_METADATA'));
  for (const item of children(parseXml(xml, 'GDAL metadata'), 'GDALMetadata', 'Item')) {
    const name = attr(item, 'name');
    const sample = attr(item, 'sample');
    const role = attr(item, 'role');
    const value = text(item) ?? '';
    if (!name) continue;
    if (sample === undefined) dataset[name] = value;
    else if (role === 'description' && Number(sample) < bandCount) descriptions[Number(sample)] = value;
  }
  return { dataset, descriptions };
}

class GeoTiffRaster implements RasterProduct {
  private readonly reader: BlockReader;
  private transform: LonLatTransform | null = null;
  private readonly inverse: [number, number, number, number];

  constructor(
    readonly location: string,
    private readonly tiff: GeoTIFF,
    image: GeoTIFFImage,
    readonly geotransform: Geotransform,
    readonly epsg: number | null,
    readonly nodata: number | null,
    readonly metadata: Record<string, string>,
    readonly bandDescriptions: (string | null)[],
    readonly opera: OperaMetadata | null,
    options: OpenRasterOptions,
  ) {
    this.reader = new BlockReader(image, options.blockCache);
    const [, a, b, , d, e] = geotransform;
    const det = a * e - b * d;
    if (det === 0) throw new ImageryError('INVALID_PRODUCT', `${location}: singular geotransform`);
    this.inverse = [e / det, -b / det, -d / det, a / det];
  }

  get width(): number {
    return this.reader.width;
  }

  get height(): number {
    return this.reader.height;
  }

  get bandCount(): number {
    return this.reader.image.getSamplesPerPixel();
  }

  get proj4(): string | null {
    return this.epsg === null ? null : proj4DefinitionForEpsg(this.epsg);
  }

  private lonLat(): LonLatTransform {
    if (this.epsg === null) throw new ImageryError('UNSUPPORTED_CRS', `${this.location} names no EPSG code`);
    this.transform ??= lonLatTransform(this.epsg);
    return this.transform;
  }

  async readWindow(window: PixelWindow, options: { bands?: number[] } = {}): Promise<RasterWindow> {
    assertWindow(window);
    const bands = options.bands ?? Array.from({ length: this.bandCount }, (_, i) => i);
    for (const b of bands) {
      if (!Number.isInteger(b) || b < 0 || b >= this.bandCount) {
        throw new ImageryError('INVALID_WINDOW', `band ${b} does not exist (${this.bandCount} bands)`);
      }
    }
    const n = window.width * window.height;
    const data = bands.map(() => new Float32Array(n).fill(Number.NaN));
    const valid = new Uint8Array(n);
    const inside = intersectWindows(window, { x0: 0, y0: 0, width: this.width, height: this.height });
    if (!inside) return { data, valid, window };
    await Promise.all(bands.map((b, i) => this.reader.read(inside, b, data[i]!, window.width, window.x0, window.y0)));

    const nodata = this.nodata;
    for (let y = inside.y0 - window.y0; y < inside.y0 - window.y0 + inside.height; y++) {
      for (let x = inside.x0 - window.x0; x < inside.x0 - window.x0 + inside.width; x++) {
        const i = y * window.width + x;
        let ok = 1;
        for (const band of data) {
          const v = band[i]!;
          if (Number.isNaN(v) || v === nodata) ok = 0;
        }
        valid[i] = ok;
        if (!ok) for (const band of data) band[i] = Number.NaN;
      }
    }
    return { data, valid, window };
  }

  pixelToMap(row: number, col: number): [number, number] {
    const [x0, a, b, y0, d, e] = this.geotransform;
    const px = col + 0.5;
    const py = row + 0.5;
    return [x0 + px * a + py * b, y0 + px * d + py * e];
  }

  mapToPixel(x: number, y: number): { row: number; col: number } {
    const [x0, , , y0] = this.geotransform;
    const [ia, ib, id, ie] = this.inverse;
    const dx = x - x0;
    const dy = y - y0;
    return { col: ia * dx + ib * dy - 0.5, row: id * dx + ie * dy - 0.5 };
  }

  pixelToLonLat(row: number, col: number): [number, number] {
    const [x, y] = this.pixelToMap(row, col);
    return this.lonLat().toLonLat(x, y);
  }

  lonLatToPixel(lon: number, lat: number): { row: number; col: number } {
    const [x, y] = this.lonLat().fromLonLat(lon, lat);
    return this.mapToPixel(x, y);
  }

  /** Corner-convention pixel coordinates → lon/lat. */
  private cornerToLonLat(px: number, py: number): [number, number] {
    return this.pixelToLonLat(py - 0.5, px - 0.5);
  }

  bounds(): LonLatPolygon {
    const steps = 8;
    const ring: [number, number][] = [];
    const w = this.width;
    const h = this.height;
    for (let i = 0; i < steps; i++) ring.push(this.cornerToLonLat((w * i) / steps, 0));
    for (let i = 0; i < steps; i++) ring.push(this.cornerToLonLat(w, (h * i) / steps));
    for (let i = 0; i < steps; i++) ring.push(this.cornerToLonLat(w - (w * i) / steps, h));
    for (let i = 0; i < steps; i++) ring.push(this.cornerToLonLat(0, h - (h * i) / steps));
    return { type: 'Polygon', coordinates: [closeCounterClockwise(ring)] };
  }

  async footprint(options: { tileSize?: number } = {}): Promise<RasterFootprint> {
    return traceFootprint(
      { width: this.width, height: this.height, readWindow: (w) => this.readWindow(w, { bands: [0] }), cornerToLonLat: (x, y) => this.cornerToLonLat(x, y) },
      options.tileSize,
    );
  }

  private closing: Promise<void> | null = null;

  close(): Promise<void> {
    this.reader.clear();
    this.closing ??= Promise.resolve(this.tiff.close()).then(() => undefined);
    return this.closing;
  }
}

/** Open a GeoTIFF/COG from a local path or an http(s) URL (read by HTTP range requests). */
export async function openRasterProduct(pathOrUrl: string, options: OpenRasterOptions = {}): Promise<RasterProduct> {
  const tiff = await openTiff(pathOrUrl);
  try {
    const image = await tiff.getImage();
    const bandCount = image.getSamplesPerPixel();
    const { dataset, descriptions } = await gdalMetadata(image, bandCount);
    const name = isHttpUrl(pathOrUrl) ? decodeURIComponent(new URL(pathOrUrl).pathname.split('/').pop() ?? '') : basename(pathOrUrl);
    return new GeoTiffRaster(
      pathOrUrl,
      tiff,
      image,
      geotransformOf(image, pathOrUrl),
      epsgOf(image),
      parseNodata(image),
      dataset,
      descriptions,
      operaMetadata(name, dataset, descriptions[0] ?? null),
      options,
    );
  } catch (error) {
    await tiff.close();
    throw error;
  }
}
