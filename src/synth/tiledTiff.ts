// A small writer of tiled GeoTIFFs like OPERA's COGs (512 × 512 tiles, Deflate), with the
// TIFF predictors (2: horizontal differencing, 3: floating point) that GDAL can write, for
// the Deflate decoder tests (test/imagery/deflate.test.ts) and the building-change benchmark
// (bench/change.ts, a 17,408 × 17,408 px pair written tile row by tile row).
//
// Classic little-endian TIFF (files < 4 GiB), one band, PlanarConfiguration 1, tiles in row-
// major order, then the IFD. Georeferencing: EPSG code + tie point + pixel scale, PixelIsArea.
// Tiles are compressed with node:zlib on the thread pool, several at once.

import { open, type FileHandle } from 'node:fs/promises';
import { deflate } from 'node:zlib';

export type TiledSampleType = 'float32' | 'float64' | 'int16' | 'uint16';
export type TiledArray = Float32Array | Float64Array | Int16Array | Uint16Array;

export interface TiledTiffOptions {
  width: number;
  height: number;
  sampleType: TiledSampleType;
  /** Default 512 (OPERA). */
  tileSize?: number;
  /** 1 none, 8 Deflate (GDAL's), 32946 old-style Deflate code. Default 8. */
  compression?: 1 | 8 | 32946;
  /** 1 none (OPERA), 2 horizontal differencing, 3 floating point. Default 1. */
  predictor?: 1 | 2 | 3;
  /** zlib level. Default 6 (GDAL's default ZLEVEL). */
  level?: number;
  georeference?: { epsg: number; originX: number; originY: number; pixelSize: number };
  /** GDAL_NODATA; NaN is written as "nan". */
  nodata?: number;
  /** GDAL_METADATA dataset items. */
  metadata?: Record<string, string>;
}

const BYTES: Record<TiledSampleType, number> = { float32: 4, float64: 8, int16: 2, uint16: 2 };
const FORMAT: Record<TiledSampleType, number> = { float32: 3, float64: 3, int16: 2, uint16: 1 };

function deflateAsync(data: Uint8Array, level: number): Promise<Buffer> {
  return new Promise((resolve, reject) => deflate(data, { level }, (e, out) => (e ? reject(e) : resolve(out))));
}

/** Predictor encoding of one tile (rows of `tileSize` samples), in place on its bytes. */
export function encodePredictor(bytes: Uint8Array, predictor: 2 | 3, tileSize: number, sampleBytes: number): Uint8Array {
  const rowBytes = tileSize * sampleBytes;
  const rows = bytes.length / rowBytes;
  if (predictor === 2) {
    for (let r = 0; r < rows; r++) {
      const base = r * rowBytes;
      // Differences of consecutive samples as unsigned integers of the sample's width (little endian).
      for (let i = tileSize - 1; i > 0; i--) {
        const at = base + i * sampleBytes;
        let borrow = 0;
        for (let b = 0; b < sampleBytes; b++) {
          const d = bytes[at + b]! - bytes[at - sampleBytes + b]! - borrow;
          bytes[at + b] = d & 0xff;
          borrow = d < 0 ? 1 : 0;
        }
      }
    }
    return bytes;
  }
  // Floating point (libtiff fpDiff): each row's bytes regrouped into planes, most significant
  // byte of every sample first, then byte-wise differences along the row.
  const row = new Uint8Array(rowBytes);
  for (let r = 0; r < rows; r++) {
    const base = r * rowBytes;
    for (let i = 0; i < tileSize; i++) {
      for (let p = 0; p < sampleBytes; p++) row[p * tileSize + i] = bytes[base + i * sampleBytes + (sampleBytes - 1 - p)]!;
    }
    for (let k = rowBytes - 1; k > 0; k--) row[k] = (row[k]! - row[k - 1]!) & 0xff;
    bytes.set(row, base);
  }
  return bytes;
}

export class TiledTiffWriter {
  private readonly tileSize: number;
  private readonly tilesAcross: number;
  private readonly tilesDown: number;
  private readonly offsets: number[] = [];
  private readonly counts: number[] = [];
  private position = 8;

  private constructor(
    private readonly handle: FileHandle,
    private readonly options: TiledTiffOptions,
  ) {
    this.tileSize = options.tileSize ?? 512;
    this.tilesAcross = Math.ceil(options.width / this.tileSize);
    this.tilesDown = Math.ceil(options.height / this.tileSize);
  }

  static async create(path: string, options: TiledTiffOptions): Promise<TiledTiffWriter> {
    const handle = await open(path, 'w');
    const header = Buffer.alloc(8);
    header.write('II', 0, 'latin1');
    header.writeUInt16LE(42, 2);
    await handle.write(header, 0, 8, 0);
    return new TiledTiffWriter(handle, options);
  }

  get tileCount(): number {
    return this.tilesAcross * this.tilesDown;
  }

  /** Tiles written so far (the next tile's index in row-major order). */
  get written(): number {
    return this.offsets.length;
  }

  /** One tile (tileSize × tileSize samples) as stored: predictor applied, compressed. */
  async encodeTile(tile: TiledArray): Promise<Uint8Array> {
    const o = this.options;
    const n = this.tileSize * this.tileSize;
    if (tile.length !== n) throw new RangeError(`a tile has ${n} samples, got ${tile.length}`);
    let bytes = new Uint8Array(tile.buffer, tile.byteOffset, tile.byteLength);
    if ((o.predictor ?? 1) !== 1) bytes = encodePredictor(Uint8Array.from(bytes), o.predictor as 2 | 3, this.tileSize, BYTES[o.sampleType]);
    return (o.compression ?? 8) === 1 ? bytes : deflateAsync(bytes, o.level ?? 6);
  }

  /**
   * The next tiles in row-major order, each tileSize × tileSize samples (partial edge tiles
   * padded, as GDAL does). Compressed in parallel, written in order.
   */
  async writeTiles(tiles: readonly TiledArray[]): Promise<void> {
    if (this.offsets.length + tiles.length > this.tileCount) throw new RangeError('more tiles than the image holds');
    await this.writeEncodedTiles(await Promise.all(tiles.map((t) => this.encodeTile(t))));
  }

  /** The next tiles, already encoded by encodeTile (the same bytes may be written at several places). */
  async writeEncodedTiles(encoded: readonly Uint8Array[]): Promise<void> {
    if (this.offsets.length + encoded.length > this.tileCount) throw new RangeError('more tiles than the image holds');
    for (const data of encoded) {
      if (this.position + data.length >= 2 ** 32) throw new RangeError('classic TIFF: the file would exceed 4 GiB');
      await this.handle.write(data, 0, data.length, this.position);
      this.offsets.push(this.position);
      this.counts.push(data.length);
      this.position += data.length + (data.length & 1);
    }
  }

  /** Write a whole image (row-major, width × height) as tiles. */
  async writeImage(values: TiledArray): Promise<void> {
    const { width, height } = this.options;
    const t = this.tileSize;
    const Ctor = values.constructor as new (n: number) => TiledArray;
    for (let ty = 0; ty < this.tilesDown; ty++) {
      const row: TiledArray[] = [];
      for (let tx = 0; tx < this.tilesAcross; tx++) {
        const tile = new Ctor(t * t);
        for (let y = 0; y < t && ty * t + y < height; y++) {
          const src = (ty * t + y) * width + tx * t;
          tile.set(values.subarray(src, src + Math.min(t, width - tx * t)), y * t);
        }
        row.push(tile);
      }
      await this.writeTiles(row);
    }
  }

  async close(): Promise<void> {
    if (this.offsets.length !== this.tileCount) {
      await this.handle.close();
      throw new Error(`${this.offsets.length} of ${this.tileCount} tiles written`);
    }
    const o = this.options;
    const SHORT = 3;
    const LONG = 4;
    const DOUBLE = 12;
    const ASCII = 2;
    type Entry = { tag: number; type: number; values: number[] | string };
    const entries: Entry[] = [
      { tag: 256, type: LONG, values: [o.width] },
      { tag: 257, type: LONG, values: [o.height] },
      { tag: 258, type: SHORT, values: [8 * BYTES[o.sampleType]] },
      { tag: 259, type: SHORT, values: [o.compression ?? 8] },
      { tag: 262, type: SHORT, values: [1] },
      { tag: 277, type: SHORT, values: [1] },
      { tag: 284, type: SHORT, values: [1] },
    ];
    if ((o.predictor ?? 1) !== 1) entries.push({ tag: 317, type: SHORT, values: [o.predictor!] });
    entries.push(
      { tag: 322, type: LONG, values: [this.tileSize] },
      { tag: 323, type: LONG, values: [this.tileSize] },
      { tag: 324, type: LONG, values: this.offsets },
      { tag: 325, type: LONG, values: this.counts },
      { tag: 339, type: SHORT, values: [FORMAT[o.sampleType]] },
    );
    if (o.georeference) {
      const g = o.georeference;
      entries.push(
        { tag: 33550, type: DOUBLE, values: [g.pixelSize, g.pixelSize, 0] },
        { tag: 33922, type: DOUBLE, values: [0, 0, 0, g.originX, g.originY, 0] },
        // GTModelType projected (or geographic for 4326), GTRasterType PixelIsArea, the CRS code.
        { tag: 34735, type: SHORT, values: [1, 1, 0, 3, 1024, 0, 1, g.epsg === 4326 ? 2 : 1, 1025, 0, 1, 1, g.epsg === 4326 ? 2048 : 3072, 0, 1, g.epsg] },
      );
    }
    if (o.metadata) {
      const items = Object.entries(o.metadata)
        .map(([k, v]) => `  <Item name="${k}">${v.replace(/&/g, '&amp;').replace(/</g, '&lt;')}</Item>`)
        .join('\n');
      entries.push({ tag: 42112, type: ASCII, values: `<GDALMetadata>\n${items}\n</GDALMetadata>` });
    }
    if (o.nodata !== undefined) entries.push({ tag: 42113, type: ASCII, values: Number.isNaN(o.nodata) ? 'nan' : String(o.nodata) });

    const size = (e: Entry) => (typeof e.values === 'string' ? e.values.length + 1 : e.values.length * (e.type === DOUBLE ? 8 : e.type === LONG ? 4 : 2));
    const ifdOffset = this.position + (this.position & 1);
    const ifdBytes = 2 + 12 * entries.length + 4;
    let extra = ifdOffset + ifdBytes;
    const ifd = Buffer.alloc(ifdBytes);
    const blobs: Buffer[] = [];
    ifd.writeUInt16LE(entries.length, 0);
    entries.forEach((e, i) => {
      const at = 2 + 12 * i;
      const count = typeof e.values === 'string' ? e.values.length + 1 : e.values.length;
      ifd.writeUInt16LE(e.tag, at);
      ifd.writeUInt16LE(e.type, at + 2);
      ifd.writeUInt32LE(count, at + 4);
      const bytes = size(e);
      const blob = Buffer.alloc(bytes);
      if (typeof e.values === 'string') blob.write(e.values, 0, 'latin1');
      else e.values.forEach((v, k) => (e.type === DOUBLE ? blob.writeDoubleLE(v, 8 * k) : e.type === LONG ? blob.writeUInt32LE(v, 4 * k) : blob.writeUInt16LE(v, 2 * k)));
      if (bytes <= 4) blob.copy(ifd, at + 8);
      else {
        ifd.writeUInt32LE(extra, at + 8);
        blobs.push(blob);
        extra += bytes + (bytes & 1);
        if (bytes & 1) blobs.push(Buffer.alloc(1));
      }
    });
    ifd.writeUInt32LE(0, ifdBytes - 4);
    const tail = Buffer.concat([ifd, ...blobs]);
    await this.handle.write(tail, 0, tail.length, ifdOffset);
    const head = Buffer.alloc(4);
    head.writeUInt32LE(ifdOffset, 0);
    await this.handle.write(head, 0, 4, 4);
    await this.handle.close();
  }
}

/** Write a whole image to `path` as a tiled GeoTIFF. */
export async function writeTiledTiff(path: string, options: TiledTiffOptions, values: TiledArray): Promise<void> {
  const w = await TiledTiffWriter.create(path, options);
  await w.writeImage(values);
  await w.close();
}
