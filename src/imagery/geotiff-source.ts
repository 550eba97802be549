import { readSync } from 'node:fs';
import { open, stat, type FileHandle } from 'node:fs/promises';
import { inflate, type ZlibOptions } from 'node:zlib';
import { addDecoder, BaseDecoder, GeoTIFF } from 'geotiff';
import { ZSTDDecoder } from 'zstddec';
import { ImageryError } from './errors.js';

// ------------------------------------------------------------------ Deflate through node:zlib

/** TIFF compression codes of Deflate: 8 (Adobe Deflate, what GDAL writes) and 32946 (old-style Deflate). */
export const DEFLATE_COMPRESSIONS = [8, 32946] as const;

type DecoderParameters = ConstructorParameters<typeof BaseDecoder>[0];

/** Bytes of one decoded block (a tile, or a full strip), from the decoder parameters. */
function blockBytes(p: DecoderParameters): number {
  const bits = typeof p.bitsPerSample === 'number' ? [p.bitsPerSample] : Array.from(p.bitsPerSample as ArrayLike<number>);
  const perPixel = p.planarConfiguration === 2 ? (bits[0] ?? 8) / 8 : bits.reduce((a, b) => a + b, 0) / 8;
  return Math.ceil(Number(p.tileWidth) * Number(p.tileHeight) * perPixel);
}

function inflateAsync(data: Uint8Array, options: ZlibOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => inflate(data, options, (error, out) => (error ? reject(error) : resolve(out))));
}

/**
 * Deflate (zlib stream) blocks inflated by node:zlib on the libuv thread pool instead of
 * geotiff.js's JavaScript inflate (pako): the native inflate is several times faster, and
 * the blocks of one window (BlockReader asks for them all at once) inflate in parallel off
 * the main thread. Predictors (2: horizontal differencing, 3: floating point) are applied
 * afterwards by BaseDecoder.decode, exactly as for geotiff.js's own decoder, so the decoded
 * bytes are identical (tested against pako and against GDAL, test/imagery/deflate.test.ts).
 */
export class NodeZlibDeflateDecoder extends BaseDecoder {
  private readonly expectedBytes: number;

  constructor(parameters: DecoderParameters) {
    super(parameters);
    this.expectedBytes = blockBytes(parameters);
  }

  override async decodeBlock(buffer: ArrayBufferLike): Promise<ArrayBuffer> {
    // One output chunk of the block's size: the result is then a single, unshared buffer.
    const chunkSize = Math.max(64, Number.isFinite(this.expectedBytes) && this.expectedBytes > 0 ? this.expectedBytes : 64 * 1024);
    const out = await inflateAsync(new Uint8Array(buffer), { chunkSize });
    // Callers view the result from byte 0 (Float32Array(data, 0, n)): hand over a buffer that
    // is exactly the output, copying only when zlib's buffer is larger or shared.
    if (out.byteOffset === 0 && out.byteLength === out.buffer.byteLength) return out.buffer as ArrayBuffer;
    return out.buffer.slice(out.byteOffset, out.byteOffset + out.byteLength) as ArrayBuffer;
  }
}

/**
 * Route geotiff.js's Deflate decoding (readRasters, getTileOrStrip, BlockReader) through
 * NodeZlibDeflateDecoder. Done once when this module loads — every GeoTIFF src/imagery opens
 * goes through here, in the main thread and in worker threads alike; calling it again only
 * re-registers the same decoder. `preferWorker` false: geotiff.js's own worker pool (which
 * has its own registry) is not used.
 */
export function registerNodeZlibDeflate(): void {
  addDecoder([...DEFLATE_COMPRESSIONS], async () => NodeZlibDeflateDecoder as unknown as typeof BaseDecoder, undefined, false);
}

registerNodeZlibDeflate();

// ------------------------------------------------------------------ ZSTD through zstddec

/** TIFF compression code of ZSTD (GDAL's, used by Copernicus Data Space's COG_SAFE products). */
export const ZSTD_COMPRESSION = 50000;

let zstd: Promise<ZSTDDecoder> | null = null;

/** zstddec's WebAssembly decoder, instantiated once from the bytes it ships (no download). */
function zstdDecoder(): Promise<ZSTDDecoder> {
  zstd ??= (async () => {
    const d = new ZSTDDecoder();
    await d.init();
    return d;
  })();
  return zstd;
}

/**
 * ZSTD blocks decoded by zstddec (pinned in package.json), told the block's size so it
 * allocates once; predictors are applied by BaseDecoder.decode as for Deflate.
 */
export class ZstdDecoder extends BaseDecoder {
  private readonly expectedBytes: number;

  constructor(parameters: DecoderParameters) {
    super(parameters);
    this.expectedBytes = blockBytes(parameters);
  }

  override async decodeBlock(buffer: ArrayBufferLike): Promise<ArrayBuffer> {
    const out = (await zstdDecoder()).decode(new Uint8Array(buffer), Number.isFinite(this.expectedBytes) && this.expectedBytes > 0 ? this.expectedBytes : undefined);
    return out.byteOffset === 0 && out.byteLength === out.buffer.byteLength ? (out.buffer as ArrayBuffer) : (out.slice().buffer as ArrayBuffer);
  }
}

export function registerZstd(): void {
  addDecoder(ZSTD_COMPRESSION, async () => ZstdDecoder as unknown as typeof BaseDecoder, undefined, false);
}

registerZstd();

/** The source type geotiff.js parses from (its BaseSource is not exported by name). */
export type TiffSource = Parameters<typeof GeoTIFF.fromSource>[0];

interface Slice {
  offset: number;
  length: number;
}

/**
 * Random access to a byte range of a file: a member stored (not compressed) inside a zip,
 * read in place so that a measurement TIFF is never extracted or loaded whole; or a whole
 * local TIFF (openLocalTiff). readInto serves BlockReader's column reads without a buffer per range.
 */
export class FileRangeSource {
  private handle: Promise<FileHandle> | null = null;

  constructor(
    private readonly path: string,
    private readonly start: number,
    private readonly size: number,
  ) {}

  private file(): Promise<FileHandle> {
    this.handle ??= open(this.path, 'r');
    return this.handle;
  }

  async fetch(slices: Slice[], signal?: AbortSignal): Promise<ArrayBuffer[]> {
    return Promise.all(slices.map(async (slice) => (await this.fetchSlice(slice, signal)).data));
  }

  async fetchSlice(slice: Slice, _signal?: AbortSignal): Promise<Slice & { data: ArrayBuffer }> {
    // geotiff.js asks for header-sized chunks that may run past the end: clamp like a file would.
    const length = Math.max(0, Math.min(slice.length, this.size - slice.offset));
    const data = new ArrayBuffer(length);
    if (length > 0) {
      const handle = await this.file();
      let done = 0;
      while (done < length) {
        const { bytesRead } = await handle.read(new Uint8Array(data, done), 0, length - done, this.start + slice.offset + done);
        if (bytesRead === 0) break;
        done += bytesRead;
      }
    }
    return { offset: slice.offset, length, data };
  }

  /**
   * The slices' bytes back to back into `into` from its start (slice k after slices 0 … k − 1),
   * each read in place: no buffer per slice, whose fresh memory costs more than the read on a
   * VM (BlockReader.readColumns reads one slice per image row). `sync`: with blocking reads
   * on this thread (≈ 7 µs CPU per small read against ≈ 12–24 µs through the libuv pool and a
   * promise each) — for worker threads, whose event loop serves no one else. A slice past the
   * end is an error, not zeros.
   */
  async readInto(slices: readonly Slice[], into: Uint8Array, sync: boolean): Promise<void> {
    const handle = await this.file();
    let at = 0;
    const reads: Promise<void>[] = [];
    for (const slice of slices) {
      if (slice.offset < 0 || slice.offset + slice.length > this.size) throw new RangeError(`FileRangeSource: bytes ${slice.offset} … ${slice.offset + slice.length} lie past the end (${this.size})`);
      const target = into.subarray(at, at + slice.length);
      const position = this.start + slice.offset;
      at += slice.length;
      if (sync) readWhole(target, (view, done) => readSync(handle.fd, view, 0, view.length, position + done));
      else reads.push(readWholeAsync(handle, target, position));
    }
    await Promise.all(reads);
  }

  get fileSize(): number {
    return this.size;
  }

  async close(): Promise<void> {
    const handle = this.handle;
    this.handle = null;
    if (handle) await (await handle).close();
  }
}

/** Fills `target` with `read(rest of target, bytes done)` calls (short reads continue; none at all is an error). */
function readWhole(target: Uint8Array, read: (view: Uint8Array, done: number) => number): void {
  for (let done = 0; done < target.length; ) {
    const n = read(target.subarray(done), done);
    if (n <= 0) throw new RangeError('FileRangeSource: the file ended before the bytes asked for');
    done += n;
  }
}

async function readWholeAsync(handle: FileHandle, target: Uint8Array, position: number): Promise<void> {
  for (let done = 0; done < target.length; ) {
    const { bytesRead } = await handle.read(target, done, target.length - done, position + done);
    if (bytesRead <= 0) throw new RangeError('FileRangeSource: the file ended before the bytes asked for');
    done += bytesRead;
  }
}

/**
 * geotiff.js's parse of the header behind a range source (a file, a zip member, a remote object
 * through the byte cache). A parse failure is INVALID_PRODUCT naming `what`; an ImageryError the
 * source raised (an unreachable archive) passes through as it is.
 */
export async function parseTiff(source: object, what: string): Promise<GeoTIFF> {
  try {
    return await GeoTIFF.fromSource(source as unknown as TiffSource);
  } catch (cause) {
    if (cause instanceof ImageryError) throw cause;
    throw new ImageryError('INVALID_PRODUCT', `cannot parse GeoTIFF ${what}: ${(cause as Error)?.message ?? cause}`, { cause });
  }
}

/** Open a local TIFF (remote/access.ts openTiff takes an http(s) / s3 URL as well). */
export async function openLocalTiff(path: string): Promise<GeoTIFF> {
  try {
    // The whole file as a FileRangeSource (geotiff.js's fromFile reads the same bytes, a fresh buffer per range).
    const source = new FileRangeSource(path, 0, (await stat(path)).size);
    try {
      return await GeoTIFF.fromSource(source as unknown as TiffSource);
    } catch (cause) {
      await source.close();
      throw cause;
    }
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException)?.code === 'ENOENT' ? 'NOT_FOUND' : 'INVALID_PRODUCT';
    throw new ImageryError(code, `cannot open GeoTIFF ${path}: ${(cause as Error)?.message ?? cause}`, { cause });
  }
}

/** A TIFF member of a local container (safe/container.ts); the source is closed when it does not parse. */
export async function openTiffFromSource(source: FileRangeSource, what: string): Promise<GeoTIFF> {
  try {
    return await parseTiff(source, what);
  } catch (cause) {
    await source.close();
    throw cause;
  }
}
