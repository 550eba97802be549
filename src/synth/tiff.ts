/**
 * A small streaming writer of baseline (classic, little-endian) TIFF and GeoTIFF files:
 * strips of a configurable number of rows, UInt16 or Float32 samples, one or more bands
 * (pixel-interleaved, PlanarConfiguration 1), optional Deflate, and the tags our readers
 * and GDAL use: GeoTIFF georeferencing (EPSG code with tie point and pixel scale, EPSG:4326
 * ground control points like a Sentinel-1 measurement, or the pixel-only transformation of
 * a GDAL crop), GDAL_NODATA (42113) and GDAL_METADATA (42112).
 *
 * Rows are written as they are produced: the writer holds at most one strip, so a
 * 25,000 × 16,700 UInt16 image never exists in memory. Layout: the 8-byte header, the
 * strips in order, then the IFD and its arrays. For uncompressed data every strip's size
 * is known in advance, so the header is final from the start and the file's MD5 is
 * computed while writing (the SAFE manifest lists it); with Deflate the header's IFD offset
 * is patched at the end.
 *
 * Classic TIFF only: files must stay below 4 GiB (a full IW GRD polarisation is ~835 MB).
 */
import { createHash, type Hash } from 'node:crypto';
import { open, type FileHandle } from 'node:fs/promises';
import { deflateSync } from 'node:zlib';

export type TiffSampleType = 'uint8' | 'uint16' | 'float32';

/** North-up georeferencing by EPSG code: GDAL geotransform [originX, pixelWidth, 0, originY, 0, −pixelHeight]. */
export interface TiffEpsgGeoreference {
  type: 'epsg';
  /** 326xx / 327xx (WGS84 UTM) or 4326. */
  epsg: number;
  /** Upper-left corner of the upper-left pixel. */
  originX: number;
  originY: number;
  /** Positive sizes; rows go south. */
  pixelWidth: number;
  pixelHeight: number;
}

/**
 * The pixel-only transformation GDAL writes when it crops a georeference-free image:
 * ModelTransformation = [1 0 0 x0; 0 1 0 y0], no GeoKeys — what the North-Sea sample carries.
 */
export interface TiffPixelOffsetGeoreference {
  type: 'pixel-offset';
  x0: number;
  y0: number;
}

/** One tie point of a GCP-georeferenced image: raster (pixel, line), corner convention. */
export interface TiffGcp {
  pixel: number;
  line: number;
  lon: number;
  lat: number;
  height?: number;
}

/** EPSG:4326 ground control points, as in real Sentinel-1 measurement TIFFs. */
export interface TiffGcpGeoreference {
  type: 'gcps';
  gcps: TiffGcp[];
}

export type TiffGeoreference = TiffEpsgGeoreference | TiffPixelOffsetGeoreference | TiffGcpGeoreference;

export interface GdalMetadata {
  /** Dataset-level items. */
  dataset?: Record<string, string>;
  /** Per band (index = sample): description and items. */
  bands?: { description?: string; items?: Record<string, string> }[];
}

export interface TiffWriterOptions {
  width: number;
  height: number;
  sampleType: TiffSampleType;
  /** Samples per pixel, interleaved (PlanarConfiguration 1). Default 1. */
  bands?: number;
  /** Rows per strip. Default: about 64 KiB per strip. Sentinel-1 measurements use 1. */
  rowsPerStrip?: number;
  /** Default 'none'. */
  compression?: 'none' | 'deflate';
  georeference?: TiffGeoreference;
  /** GDAL_NODATA; NaN is written as "nan". */
  nodata?: number;
  gdalMetadata?: GdalMetadata;
  imageDescription?: string;
  software?: string;
  /** TIFF DateTime "YYYY:MM:DD HH:MM:SS"; a Date is formatted in UTC. */
  dateTime?: Date | string;
}

export interface TiffWriteResult {
  path: string;
  bytes: number;
  /** MD5 of the whole file (uncompressed files only; null with Deflate). */
  md5: string | null;
}

type Samples = Uint8Array | Uint16Array | Float32Array;

// TIFF field types
const SHORT = 3;
const LONG = 4;
const ASCII = 2;
const DOUBLE = 12;

interface Entry {
  tag: number;
  type: number;
  values: number[] | string;
}

const HOST_LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
const MAX_CLASSIC = 0xffffffff;

function bytesPerSample(type: TiffSampleType): number {
  return type === 'uint8' ? 1 : type === 'uint16' ? 2 : 4;
}

function formatDateTime(d: Date | string): string {
  if (typeof d === 'string') return d;
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${p(d.getUTCFullYear(), 4)}:${p(d.getUTCMonth() + 1)}:${p(d.getUTCDate())} ${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())}`;
}

function escapeXml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** The GDAL_METADATA XML GDAL itself writes (tag 42112). */
export function gdalMetadataXml(metadata: GdalMetadata): string {
  const lines = ['<GDALMetadata>'];
  for (const [name, value] of Object.entries(metadata.dataset ?? {})) {
    lines.push(`  <Item name="${escapeXml(name)}">${escapeXml(value)}</Item>`);
  }
  (metadata.bands ?? []).forEach((band, sample) => {
    for (const [name, value] of Object.entries(band.items ?? {})) {
      lines.push(`  <Item name="${escapeXml(name)}" sample="${sample}">${escapeXml(value)}</Item>`);
    }
    if (band.description !== undefined) {
      lines.push(`  <Item name="DESCRIPTION" sample="${sample}" role="description">${escapeXml(band.description)}</Item>`);
    }
  });
  lines.push('</GDALMetadata>');
  return lines.join('\n');
}

function utmCitation(epsg: number): string | null {
  const zone = epsg % 100;
  if (epsg - zone === 32600 && zone >= 1 && zone <= 60) return `WGS 84 / UTM zone ${zone}N`;
  if (epsg - zone === 32700 && zone >= 1 && zone <= 60) return `WGS 84 / UTM zone ${zone}S`;
  return null;
}

/** GeoKeyDirectory (34735) + GeoAsciiParams (34737) entries for a CRS. */
function geoKeyEntries(epsg: number): Entry[] {
  // GeoKey ids: GTModelType 1024, GTRasterType 1025, GTCitation 1026, GeographicType 2048,
  // GeogCitation 2049, GeogAngularUnits 2054, ProjectedCSType 3072, ProjLinearUnits 3076.
  let ascii = '';
  const keys: [number, number, number, number][] = [];
  const asciiKey = (id: number, value: string) => {
    const text = `${value}|`;
    keys.push([id, 34737, text.length, ascii.length]);
    ascii += text;
  };
  if (epsg === 4326) {
    keys.push([1024, 0, 1, 2]); // geographic
    keys.push([1025, 0, 1, 1]); // PixelIsArea
    keys.push([2048, 0, 1, 4326]);
    asciiKey(2049, 'WGS 84');
    keys.push([2054, 0, 1, 9102]);
  } else {
    const citation = utmCitation(epsg);
    if (!citation) throw new RangeError(`EPSG:${epsg} is not WGS84 UTM or 4326`);
    keys.push([1024, 0, 1, 1]); // projected
    keys.push([1025, 0, 1, 1]);
    asciiKey(1026, citation);
    asciiKey(2049, 'WGS 84');
    keys.push([2054, 0, 1, 9102]);
    keys.push([3072, 0, 1, epsg]);
    keys.push([3076, 0, 1, 9001]);
  }
  keys.sort((a, b) => a[0] - b[0]);
  const directory = [1, 1, 0, keys.length, ...keys.flat()];
  return [
    { tag: 34735, type: SHORT, values: directory },
    { tag: 34737, type: ASCII, values: ascii },
  ];
}

function georeferenceEntries(geo: TiffGeoreference): Entry[] {
  switch (geo.type) {
    case 'epsg':
      return [
        { tag: 33550, type: DOUBLE, values: [geo.pixelWidth, geo.pixelHeight, 0] },
        { tag: 33922, type: DOUBLE, values: [0, 0, 0, geo.originX, geo.originY, 0] },
        ...geoKeyEntries(geo.epsg),
      ];
    case 'pixel-offset':
      return [{ tag: 34264, type: DOUBLE, values: [1, 0, 0, geo.x0, 0, 1, 0, geo.y0, 0, 0, 0, 0, 0, 0, 0, 1] }];
    case 'gcps':
      return [
        { tag: 33922, type: DOUBLE, values: geo.gcps.flatMap((g) => [g.pixel, g.line, 0, g.lon, g.lat, g.height ?? 0]) },
        ...geoKeyEntries(4326),
      ];
  }
}

function entryByteLength(e: Entry): number {
  if (typeof e.values === 'string') return e.values.length + 1;
  const size = e.type === SHORT ? 2 : e.type === LONG ? 4 : 8;
  return e.values.length * size;
}

function entryCount(e: Entry): number {
  return typeof e.values === 'string' ? e.values.length + 1 : e.values.length;
}

/** The IFD and its out-of-line values, to be written at `ifdOffset`. */
function encodeIfd(entries: Entry[], ifdOffset: number): Buffer {
  entries.sort((a, b) => a.tag - b.tag);
  const ifdSize = 2 + entries.length * 12 + 4;
  let extra = ifdOffset + ifdSize;
  const outOfLine: { entry: Entry; offset: number }[] = [];
  for (const e of entries) {
    const len = entryByteLength(e);
    if (len > 4) {
      if (extra % 2) extra++; // word alignment
      outOfLine.push({ entry: e, offset: extra });
      extra += len;
    }
  }
  const buf = Buffer.alloc(extra - ifdOffset);
  buf.writeUInt16LE(entries.length, 0);
  let p = 2;
  const writeValues = (e: Entry, at: number) => {
    if (typeof e.values === 'string') {
      buf.write(e.values, at, 'latin1');
      buf.writeUInt8(0, at + e.values.length);
      return;
    }
    let q = at;
    for (const v of e.values) {
      if (e.type === SHORT) {
        buf.writeUInt16LE(v, q);
        q += 2;
      } else if (e.type === LONG) {
        buf.writeUInt32LE(v, q);
        q += 4;
      } else {
        buf.writeDoubleLE(v, q);
        q += 8;
      }
    }
  };
  for (const e of entries) {
    buf.writeUInt16LE(e.tag, p);
    buf.writeUInt16LE(e.type, p + 2);
    buf.writeUInt32LE(entryCount(e), p + 4);
    const ool = outOfLine.find((o) => o.entry === e);
    if (ool) buf.writeUInt32LE(ool.offset, p + 8);
    else writeValues(e, p + 8);
    p += 12;
  }
  buf.writeUInt32LE(0, p); // no next IFD
  for (const { entry, offset } of outOfLine) writeValues(entry, offset - ifdOffset);
  return buf;
}

/**
 * Streaming TIFF writer. `writeRows` accepts any number of rows at a time (row-major,
 * `bands` interleaved samples per pixel); `close` writes the IFD and returns the size and
 * MD5.
 */
export class TiffWriter {
  private readonly bands: number;
  private readonly rowsPerStrip: number;
  private readonly stripCount: number;
  private readonly rowBytes: number;
  private readonly stripOffsets: number[] = [];
  private readonly stripByteCounts: number[] = [];
  private readonly hash: Hash | null;
  /** Partial strip being filled (bytes). */
  private pending: Buffer;
  private pendingRows = 0;
  private rowsWritten = 0;
  private position = 8;
  private closed = false;

  private constructor(
    readonly path: string,
    private readonly file: FileHandle,
    private readonly options: TiffWriterOptions,
  ) {
    const { width, height } = options;
    if (!Number.isInteger(width) || !Number.isInteger(height) || width < 1 || height < 1) {
      throw new RangeError(`TIFF size must be positive integers, got ${width} × ${height}`);
    }
    this.bands = options.bands ?? 1;
    this.rowBytes = width * this.bands * bytesPerSample(options.sampleType);
    this.rowsPerStrip = Math.min(height, Math.max(1, options.rowsPerStrip ?? Math.max(1, Math.floor(65536 / this.rowBytes))));
    this.stripCount = Math.ceil(height / this.rowsPerStrip);
    const compressed = options.compression === 'deflate';
    if (!compressed && 8 + this.rowBytes * height > MAX_CLASSIC - 1_000_000) {
      throw new RangeError(`${width} × ${height} × ${this.bands} ${options.sampleType} does not fit a classic TIFF (4 GiB)`);
    }
    this.hash = compressed ? null : createHash('md5');
    this.pending = Buffer.alloc(this.rowsPerStrip * this.rowBytes);
  }

  static async create(path: string, options: TiffWriterOptions): Promise<TiffWriter> {
    const file = await open(path, 'w');
    const writer = new TiffWriter(path, file, options);
    try {
      await writer.writeHeader();
    } catch (error) {
      await file.close();
      throw error;
    }
    return writer;
  }

  get width(): number {
    return this.options.width;
  }

  get height(): number {
    return this.options.height;
  }

  private dataBytes(): number {
    return this.rowBytes * this.options.height;
  }

  private async writeHeader(): Promise<void> {
    const header = Buffer.alloc(8);
    header.write('II', 0, 'latin1');
    header.writeUInt16LE(42, 2);
    // Uncompressed: the IFD goes right after the (known) data, so the header is final now.
    const ifdOffset = this.options.compression === 'deflate' ? 0 : this.alignedIfdOffset(8 + this.dataBytes());
    header.writeUInt32LE(ifdOffset, 4);
    await this.file.write(header, 0, 8, 0);
    this.hash?.update(header);
  }

  private alignedIfdOffset(end: number): number {
    return end % 2 ? end + 1 : end;
  }

  /**
   * Append `rows` rows. `data` holds rows × width × bands samples of the writer's type
   * (extra elements are ignored).
   */
  async writeRows(data: Samples, rows: number): Promise<void> {
    if (this.closed) throw new Error(`${this.path}: writer is closed`);
    const expected = { uint8: Uint8Array, uint16: Uint16Array, float32: Float32Array }[this.options.sampleType];
    if (!(data instanceof expected)) throw new TypeError(`${this.path}: expected ${expected.name} rows`);
    if (this.rowsWritten + rows > this.options.height) {
      throw new RangeError(`${this.path}: ${this.rowsWritten + rows} rows exceed the height ${this.options.height}`);
    }
    const samplesPerRow = this.options.width * this.bands;
    if (data.length < rows * samplesPerRow) throw new RangeError(`${this.path}: ${rows} rows need ${rows * samplesPerRow} samples`);
    let bytes = Buffer.from(data.buffer, data.byteOffset, rows * this.rowBytes);
    if (!HOST_LITTLE_ENDIAN) {
      bytes = Buffer.from(bytes);
      if (this.options.sampleType === 'uint16') bytes.swap16();
      else if (this.options.sampleType === 'float32') bytes.swap32();
    }
    let row = 0;
    // Fill a pending partial strip first.
    if (this.pendingRows > 0) {
      const take = Math.min(rows, this.rowsPerStrip - this.pendingRows);
      bytes.copy(this.pending, this.pendingRows * this.rowBytes, 0, take * this.rowBytes);
      this.pendingRows += take;
      row = take;
      if (this.pendingRows === this.stripRows(this.stripOffsets.length)) {
        await this.flushStrips(this.pending.subarray(0, this.pendingRows * this.rowBytes), 1);
        this.pendingRows = 0;
      }
    }
    // Whole strips straight from the caller's buffer, in one write when uncompressed.
    const stripIndex = this.stripOffsets.length;
    let whole = 0;
    let wholeRows = 0;
    while (row + wholeRows < rows) {
      const need = this.stripRows(stripIndex + whole);
      if (need === 0 || row + wholeRows + need > rows) break;
      wholeRows += need;
      whole++;
    }
    if (whole > 0) {
      await this.flushStrips(bytes.subarray(row * this.rowBytes, (row + wholeRows) * this.rowBytes), whole);
      row += wholeRows;
    }
    // Keep the rest for the next call.
    if (row < rows) {
      bytes.copy(this.pending, 0, row * this.rowBytes, rows * this.rowBytes);
      this.pendingRows = rows - row;
      if (this.pendingRows === this.stripRows(this.stripOffsets.length)) {
        await this.flushStrips(this.pending.subarray(0, this.pendingRows * this.rowBytes), 1);
        this.pendingRows = 0;
      }
    }
    this.rowsWritten += rows;
  }

  /** Rows in strip k (the last one may be short); 0 past the end. */
  private stripRows(k: number): number {
    if (k >= this.stripCount) return 0;
    return Math.min(this.rowsPerStrip, this.options.height - k * this.rowsPerStrip);
  }

  /** Write `count` consecutive whole strips held in `bytes`. */
  private async flushStrips(bytes: Buffer, count: number): Promise<void> {
    if (this.options.compression === 'deflate') {
      let offset = 0;
      for (let i = 0; i < count; i++) {
        const rows = this.stripRows(this.stripOffsets.length);
        const raw = bytes.subarray(offset, offset + rows * this.rowBytes);
        offset += rows * this.rowBytes;
        const packed = deflateSync(raw, { level: 6 });
        this.stripOffsets.push(this.position);
        this.stripByteCounts.push(packed.length);
        await this.writeAt(packed);
      }
      return;
    }
    let offset = 0;
    for (let i = 0; i < count; i++) {
      const size = this.stripRows(this.stripOffsets.length) * this.rowBytes;
      this.stripOffsets.push(this.position + offset);
      this.stripByteCounts.push(size);
      offset += size;
    }
    await this.writeAt(bytes);
  }

  private async writeAt(bytes: Buffer): Promise<void> {
    let done = 0;
    while (done < bytes.length) {
      const { bytesWritten } = await this.file.write(bytes, done, bytes.length - done, this.position + done);
      done += bytesWritten;
    }
    this.hash?.update(bytes);
    this.position += bytes.length;
  }

  private entries(): Entry[] {
    const o = this.options;
    const bands = this.bands;
    const entries: Entry[] = [
      { tag: 256, type: LONG, values: [o.width] },
      { tag: 257, type: LONG, values: [o.height] },
      { tag: 258, type: SHORT, values: new Array(bands).fill(bytesPerSample(o.sampleType) * 8) },
      { tag: 259, type: SHORT, values: [o.compression === 'deflate' ? 8 : 1] },
      { tag: 262, type: SHORT, values: [1] }, // BlackIsZero
      { tag: 273, type: LONG, values: this.stripOffsets },
      { tag: 277, type: SHORT, values: [bands] },
      { tag: 278, type: LONG, values: [this.rowsPerStrip] },
      { tag: 279, type: LONG, values: this.stripByteCounts },
      { tag: 284, type: SHORT, values: [1] },
      { tag: 339, type: SHORT, values: new Array(bands).fill(o.sampleType === 'float32' ? 3 : 1) },
    ];
    if (bands > 1) entries.push({ tag: 338, type: SHORT, values: new Array(bands - 1).fill(0) });
    if (o.imageDescription) entries.push({ tag: 270, type: ASCII, values: o.imageDescription });
    if (o.software) entries.push({ tag: 305, type: ASCII, values: o.software });
    if (o.dateTime) entries.push({ tag: 306, type: ASCII, values: formatDateTime(o.dateTime) });
    if (o.georeference) entries.push(...georeferenceEntries(o.georeference));
    if (o.gdalMetadata) entries.push({ tag: 42112, type: ASCII, values: gdalMetadataXml(o.gdalMetadata) });
    if (o.nodata !== undefined) {
      entries.push({ tag: 42113, type: ASCII, values: Number.isNaN(o.nodata) ? 'nan' : String(o.nodata) });
    }
    return entries;
  }

  /** Write the IFD (and patch the header when compressed). Returns size and MD5. */
  async close(): Promise<TiffWriteResult> {
    if (this.closed) throw new Error(`${this.path}: writer is closed`);
    try {
      if (this.rowsWritten !== this.options.height || this.pendingRows !== 0) {
        throw new Error(`${this.path}: ${this.rowsWritten} of ${this.options.height} rows written`);
      }
      if (this.position % 2) await this.writeAt(Buffer.alloc(1));
      const ifdOffset = this.position;
      const ifd = encodeIfd(this.entries(), ifdOffset);
      if (ifdOffset + ifd.length > MAX_CLASSIC) throw new RangeError(`${this.path} exceeds 4 GiB: use BigTIFF`);
      await this.writeAt(ifd);
      if (this.options.compression === 'deflate') {
        const patch = Buffer.alloc(4);
        patch.writeUInt32LE(ifdOffset, 0);
        await this.file.write(patch, 0, 4, 4);
      }
      return { path: this.path, bytes: this.position, md5: this.hash ? this.hash.digest('hex') : null };
    } finally {
      this.closed = true;
      await this.file.close();
    }
  }

  /** Close the file without finishing it (after an error). */
  async abort(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.file.close();
  }
}

/** Write a whole in-memory image (small rasters, tests). */
export async function writeTiff(path: string, options: TiffWriterOptions, data: Samples): Promise<TiffWriteResult> {
  const writer = await TiffWriter.create(path, options);
  try {
    await writer.writeRows(data, options.height);
  } catch (error) {
    await writer.abort();
    throw error;
  }
  return writer.close();
}
