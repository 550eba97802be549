import { isMainThread } from 'node:worker_threads';
import { getDecoder, type GeoTIFFImage, type TypedArray } from 'geotiff';
import { ImageryError } from './errors.js';
import type { PixelWindow } from './window.js';

export interface BlockReaderOptions {
  /**
   * Decoded strips/tiles kept in memory (bytes, LRU). A full-width band of strips for
   * one row of tiles should fit, so that reading tiles left to right decodes each strip
   * once: 26,000 px × 2 B × ~600 rows ≈ 31 MB for a GRD. Default 96 MiB.
   */
  cacheBytes?: number;
}

/** Writable numeric array the reader copies into. */
export type NumericArray = Float32Array | Float64Array | Uint16Array | Int16Array | Uint8Array | Int32Array | Uint32Array;

type Decoder = Awaited<ReturnType<typeof getDecoder>>;

/** A source that reads byte ranges into a given buffer (geotiff-source.ts FileRangeSource: local files). */
interface RangeIntoSource {
  readInto(slices: readonly { offset: number; length: number }[], into: Uint8Array, sync: boolean): Promise<void>;
}

const hasReadInto = (source: unknown): source is RangeIntoSource => typeof (source as Partial<RangeIntoSource>)?.readInto === 'function';

/** Bytes of window rows read at a time into the reader's staging buffer (readColumns). */
const STAGING_BYTES = 256 * 1024;

const HOST_LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
// JPEG and LERC need decoder parameters geotiff.js builds privately; read those through readRasters.
const DECODER_NEEDS_PRIVATE_PARAMETERS = new Set([6, 7, 34887]);

/**
 * Windowed reads of one GeoTIFF image with a bounded cache of decoded blocks.
 *
 * geotiff.js's own readRasters decodes every strip/tile a window touches and forgets it;
 * a GRD measurement is stored as full-width strips, so reading it as square tiles would
 * decode each strip once per tile column. Here decoded blocks stay in an LRU of fixed
 * byte size, and only the window's pixels are copied out.
 */
export class BlockReader {
  private readonly cacheBytes: number;
  /** Decoded blocks as byte views (an uncompressed strip is a view into the run it was fetched with). */
  private readonly cache = new Map<number, Promise<Uint8Array>>();
  private readonly sizes = new Map<number, number>();
  private cachedBytes = 0;
  private decoder: Promise<Decoder | null> | null = null;
  /** Stored without compression or predictor: a strip's bytes are its samples (set by getDecoder). */
  private raw = false;
  /** Strip offsets and byte counts, loaded once (stripped images whose strips can be fetched in runs). */
  private stripLayout: Promise<{ offsets: number[]; counts: number[] } | null> | null = null;
  /** readColumns' buffer for rows read in place (a source with readInto), and whether a read holds it. */
  private staging: Uint8Array | null = null;
  private stagingBusy = false;
  /**
   * Counters for benchmarks and tests: blocks decoded vs. served from the cache (a strip
   * prefetched in a run is decoded once and then served from the cache), file reads (one
   * source.fetch call, or one readInto call per staging chunk, each), and bytes read as window
   * columns of uncompressed strips.
   */
  readonly stats = { blocksDecoded: 0, cacheHits: 0, fetches: 0, bytesRead: 0 };

  constructor(
    readonly image: GeoTIFFImage,
    options: BlockReaderOptions = {},
  ) {
    this.cacheBytes = options.cacheBytes ?? 96 * 1024 * 1024;
  }

  get width(): number {
    return this.image.getWidth();
  }

  get height(): number {
    return this.image.getHeight();
  }

  private getDecoder(): Promise<Decoder | null> {
    this.decoder ??= (async () => {
      const fd = this.image.getFileDirectory();
      const compression = Number(fd.getValue('Compression') ?? 1);
      if (DECODER_NEEDS_PRIVATE_PARAMETERS.has(compression)) return null;
      const bitsPerSample = fd.getValue('BitsPerSample') as number[] | TypedArray | undefined;
      const predictor = Number((await fd.loadValue('Predictor')) ?? 1);
      this.raw = compression === 1 && predictor === 1;
      try {
        return await getDecoder(compression, {
          tileWidth: this.image.getTileWidth(),
          tileHeight: this.image.getTileHeight(),
          planarConfiguration: Number(fd.getValue('PlanarConfiguration') ?? 1),
          bitsPerSample: bitsPerSample ?? [8],
          predictor,
          samplesPerPixel: this.image.getSamplesPerPixel(),
        });
      } catch (cause) {
        throw new ImageryError('UNSUPPORTED_RASTER', `cannot decode TIFF compression ${compression}`, { cause });
      }
    })();
    return this.decoder;
  }

  private block(decoder: Decoder, bx: number, by: number, sample: number): Promise<Uint8Array> {
    const image = this.image;
    const perRow = Math.ceil(image.getWidth() / image.getTileWidth());
    const perCol = Math.ceil(image.getHeight() / image.getTileHeight());
    const key = (image.planarConfiguration === 2 ? sample * perRow * perCol : 0) + by * perRow + bx;
    const hit = this.cache.get(key);
    if (hit) {
      this.stats.cacheHits++;
      // Refresh recency: Map iteration order is insertion order.
      this.cache.delete(key);
      this.cache.set(key, hit);
      return hit;
    }
    this.stats.blocksDecoded++;
    this.stats.fetches++;
    const request = image.getTileOrStrip(bx, by, sample, decoder).then((b) => new Uint8Array(b.data));
    this.track(key, request);
    return request;
  }

  /** Puts a block being decoded into the LRU; its size counts once it is there. */
  private track(key: number, request: Promise<Uint8Array>): void {
    this.cache.set(key, request);
    request.then(
      (data) => {
        if (this.cache.get(key) !== request) return;
        if (data.byteLength > this.cacheBytes) {
          this.cache.delete(key);
          return;
        }
        this.sizes.set(key, data.byteLength);
        this.cachedBytes += data.byteLength;
        this.evict(key);
      },
      () => {
        if (this.cache.get(key) === request) this.cache.delete(key);
      },
    );
  }

  private evict(keep: number): void {
    for (const key of this.cache.keys()) {
      if (this.cachedBytes <= this.cacheBytes) break;
      const size = this.sizes.get(key);
      if (key === keep || size === undefined) continue; // in flight or just added
      this.cache.delete(key);
      this.sizes.delete(key);
      this.cachedBytes -= size;
    }
  }

  /**
   * Offsets and byte counts of the strips, when strips may be fetched several at a time:
   * a stripped, chunky image whose samples need no bit-level normalisation. Null otherwise.
   */
  private getStripLayout(): Promise<{ offsets: number[]; counts: number[] } | null> {
    this.stripLayout ??= (async () => {
      const image = this.image;
      if (image.isTiled || image.planarConfiguration === 2) return null;
      const format = image.getSampleFormat(0);
      const bits = image.getBitsPerSample(0);
      const plainBytes = (format === 1 || format === 2) ? bits % 8 === 0 && bits <= 32 : format === 3 && (bits === 32 || bits === 64);
      if (!plainBytes) return null;
      const fd = image.getFileDirectory();
      const offsets = Array.from((await fd.loadValue('StripOffsets')) as ArrayLike<number | bigint>, Number);
      const counts = Array.from((await fd.loadValue('StripByteCounts')) as ArrayLike<number | bigint>, Number);
      return offsets.length === counts.length ? { offsets, counts } : null;
    })().catch(() => null);
    return this.stripLayout;
  }

  /**
   * Strips first … last (inclusive) that are not cached yet and lie back to back in the file
   * are fetched with one read per run and decoded one by one into the cache, where block()
   * then finds them. A GRD measurement has one-row strips: a 1024-row tile would otherwise
   * cost 1024 separate file reads.
   */
  private async prefetchStrips(decoder: Decoder, first: number, last: number): Promise<void> {
    const layout = await this.getStripLayout();
    if (!layout || last <= first) return;
    const { offsets, counts } = layout;
    const MAX_RUN_BYTES = 16 * 1024 * 1024;
    let runStart = -1;
    const flush = (end: number): void => {
      if (runStart < 0) return;
      const start = runStart;
      runStart = -1;
      if (end - start < 1) return; // a single strip: block() fetches it as usual
      const offset = offsets[start]!;
      const length = offsets[end]! + counts[end]! - offset;
      this.stats.fetches++;
      const fetched = this.image.source.fetch([{ offset, length }]).then((buffers) => buffers[0]!);
      for (let i = start; i <= end; i++) {
        const key = i;
        this.stats.blocksDecoded++;
        const at = offsets[key]! - offset;
        // Uncompressed: the strip is its bytes in the run, viewed, not copied (a copy per strip
        // was most of a cold read's cost: fresh memory for every strip of every tile row).
        const request = this.raw
          ? fetched.then((buffer) => new Uint8Array(buffer, at, counts[key]!))
          : fetched.then(async (buffer) => new Uint8Array(await decoder.decode(buffer.slice(at, at + counts[key]!))));
        this.track(key, request);
      }
    };
    for (let i = first; i <= last; i++) {
      const usable = !this.cache.has(i) && counts[i]! > 0;
      const contiguous = runStart >= 0 && offsets[i]! === offsets[i - 1]! + counts[i - 1]! && offsets[i]! + counts[i]! - offsets[runStart]! <= MAX_RUN_BYTES;
      if (!usable || !contiguous) flush(i - 1);
      if (usable && runStart < 0) runStart = i;
    }
    flush(last);
  }

  /**
   * A window narrower than the image, from uncompressed strips: a strip's bytes are its samples,
   * so only the window's columns are read — one byte range per image row — and nothing is
   * cached. Reading a GRD as tiles then reads each pixel once, where full-width strips cost a
   * whole tile row of strips per tile (or a cache that holds them). False when the strips do
   * not allow it (short or missing strips, a layout getStripLayout refuses): read blocks then.
   */
  private async readColumns(
    sample: number,
    x0: number,
    x1: number,
    y0: number,
    y1: number,
    out: NumericArray,
    outStride: number,
    outOriginX: number,
    outOriginY: number,
    onRows?: (y0: number, y1: number) => void,
  ): Promise<boolean> {
    const layout = await this.getStripLayout();
    if (!layout) return false;
    const image = this.image;
    const rowsPerStrip = image.getTileHeight();
    const pixelBytes = image.getBytesPerPixel();
    const rowBytes = image.getWidth() * pixelBytes;
    const length = (x1 - x0) * pixelBytes;
    const slices: { offset: number; length: number }[] = [];
    for (let y = y0; y < y1; y++) {
      const strip = Math.floor(y / rowsPerStrip);
      const row = y - strip * rowsPerStrip;
      if (strip >= layout.counts.length || (row + 1) * rowBytes > layout.counts[strip]!) return false;
      slices.push({ offset: layout.offsets[strip]! + row * rowBytes + x0 * pixelBytes, length });
    }
    this.stats.bytesRead += length * slices.length;
    const copy = this.copier(sample);
    const source: unknown = image.source;
    if (!hasReadInto(source)) {
      this.stats.fetches++;
      const rows = await image.source.fetch(slices);
      // Each row is a block one row high whose first pixel is (x0, y).
      for (let y = y0; y < y1; y++) copy(new Uint8Array(rows[y - y0]!, 0, length), x0, y, x0, x1, y, y + 1, out, outStride, outOriginX, outOriginY);
      onRows?.(y0, y1);
      return true;
    }
    // A local file: rows read in place into one staging buffer of ~256 KiB, reused chunk after
    // chunk and read after read — a fresh buffer per row cost more in allocation and page faults
    // than reading it. Blocking reads off the main thread (FileRangeSource.readInto).
    const chunk = Math.max(1, Math.floor(STAGING_BYTES / length));
    const own = !this.stagingBusy;
    let staging = own ? this.staging : null;
    if (!staging || staging.length < chunk * length) {
      staging = new Uint8Array(chunk * length);
      if (own) this.staging = staging;
    }
    if (own) this.stagingBusy = true;
    try {
      for (let c0 = y0; c0 < y1; c0 += chunk) {
        const c1 = Math.min(y1, c0 + chunk);
        this.stats.fetches++;
        await source.readInto(slices.slice(c0 - y0, c1 - y0), staging, !isMainThread);
        for (let y = c0; y < c1; y++) copy(staging.subarray((y - c0) * length, (y - c0 + 1) * length), x0, y, x0, x1, y, y + 1, out, outStride, outOriginX, outOriginY);
        onRows?.(c0, c1);
      }
    } finally {
      if (own) this.stagingBusy = false;
    }
    return true;
  }

  /** Drop all decoded blocks. */
  clear(): void {
    this.cache.clear();
    this.sizes.clear();
    this.cachedBytes = 0;
  }

  /**
   * Copy sample `sample` of the image pixels in `window` (clipped to the image) into `out`,
   * whose pixel (0,0) corresponds to image pixel (outOriginX, outOriginY) and whose rows
   * are `outStride` long. Pixels of `out` outside the image are left untouched. `onRows(y0, y1)`:
   * image rows y0 … y1 − 1 (of the window, clipped) are in `out` — called chunk by chunk as
   * rows arrive where the window is read by rows (readColumns), else once for the window, so
   * a caller can work on rows still in the CPU's cache.
   */
  async read(
    window: PixelWindow,
    sample: number,
    out: NumericArray,
    outStride: number,
    outOriginX = window.x0,
    outOriginY = window.y0,
    onRows?: (y0: number, y1: number) => void,
  ): Promise<void> {
    const image = this.image;
    const x0 = Math.max(0, window.x0);
    const y0 = Math.max(0, window.y0);
    const x1 = Math.min(image.getWidth(), window.x0 + window.width);
    const y1 = Math.min(image.getHeight(), window.y0 + window.height);
    if (x1 <= x0 || y1 <= y0) return;

    await this.readClipped(x0, y0, x1, y1, sample, out, outStride, outOriginX, outOriginY, onRows);
  }

  private async readClipped(
    x0: number,
    y0: number,
    x1: number,
    y1: number,
    sample: number,
    out: NumericArray,
    outStride: number,
    outOriginX: number,
    outOriginY: number,
    onRows: ((y0: number, y1: number) => void) | undefined,
  ): Promise<void> {
    const image = this.image;
    const decoder = await this.getDecoder();
    if (!decoder) {
      const [values] = await image.readRasters({ window: [x0, y0, x1, y1], samples: [sample], interleave: false });
      const w = x1 - x0;
      for (let y = y0; y < y1; y++) {
        const src = (y - y0) * w;
        const dst = (y - outOriginY) * outStride - outOriginX;
        for (let x = x0; x < x1; x++) out[dst + x] = (values as TypedArray)[src + x - x0]!;
      }
      onRows?.(y0, y1);
      return;
    }

    if (!image.isTiled && this.raw && x1 - x0 < image.getWidth() && (await this.readColumns(sample, x0, x1, y0, y1, out, outStride, outOriginX, outOriginY, onRows))) return;

    const tw = image.getTileWidth();
    const th = image.getTileHeight();
    if (!image.isTiled) await this.prefetchStrips(decoder, Math.floor(y0 / th), Math.ceil(y1 / th) - 1);
    const copy = this.copier(sample);
    const jobs: Promise<void>[] = [];
    for (let by = Math.floor(y0 / th); by * th < y1; by++) {
      for (let bx = Math.floor(x0 / tw); bx * tw < x1; bx++) {
        jobs.push(
          this.block(decoder, bx, by, sample).then((data) => {
            const bx0 = Math.max(x0, bx * tw);
            const bx1 = Math.min(x1, (bx + 1) * tw);
            const by0 = Math.max(y0, by * th);
            const by1 = Math.min(y1, (by + 1) * th, by * th + image.getBlockHeight(by));
            copy(data, bx * tw, by * th, bx0, bx1, by0, by1, out, outStride, outOriginX, outOriginY);
          }),
        );
      }
    }
    await Promise.all(jobs);
    onRows?.(y0, y1);
  }

  /** A copy routine for one sample: typed-array views when byte order allows, DataView otherwise. */
  private copier(sample: number) {
    const image = this.image;
    const tw = image.getTileWidth();
    const spp = image.getSamplesPerPixel();
    const planar = image.planarConfiguration === 2;
    const bits = image.getBitsPerSample(sample);
    const format = image.getSampleFormat(sample);
    const bitsAll = Array.from((image.getFileDirectory().getValue('BitsPerSample') as ArrayLike<number>) ?? [bits]);
    const uniform = bitsAll.every((b) => b === bits);
    const bytes = bits / 8;
    const stride = planar ? 1 : spp;
    const offset = planar ? 0 : sample;
    const fast = Number.isInteger(bytes) && (planar || uniform) && (bytes === 1 || image.littleEndian === HOST_LITTLE_ENDIAN);

    const view = (bytesView: Uint8Array): Float32Array | Float64Array | Int8Array | Int16Array | Int32Array | Uint8Array | Uint16Array | Uint32Array => {
      const n = Math.floor(bytesView.byteLength / bytes);
      // A typed view must start on a multiple of its element size (a strip at an odd file offset is copied).
      const aligned = bytesView.byteOffset % Math.max(1, bytes) === 0 ? bytesView : bytesView.slice();
      const data = aligned.buffer;
      const o = aligned.byteOffset;
      if (format === 3 && bits === 32) return new Float32Array(data, o, n);
      if (format === 3 && bits === 64) return new Float64Array(data, o, n);
      if (format === 2 && bits === 8) return new Int8Array(data, o, n);
      if (format === 2 && bits === 16) return new Int16Array(data, o, n);
      if (format === 2 && bits === 32) return new Int32Array(data, o, n);
      if (bits === 8) return new Uint8Array(data, o, n);
      if (bits === 16) return new Uint16Array(data, o, n);
      if (bits === 32) return new Uint32Array(data, o, n);
      throw new ImageryError('UNSUPPORTED_RASTER', `unsupported sample layout: format ${format}, ${bits} bits`);
    };
    const reader = image.getReaderForSample(sample);
    const pixelBytes = planar ? image.getSampleByteSize(sample) : image.getBytesPerPixel();
    let sampleByteOffset = 0;
    for (let s = 0; s < sample && !planar; s++) sampleByteOffset += image.getSampleByteSize(s);

    return (
      data: Uint8Array,
      blockX: number,
      blockY: number,
      x0: number,
      x1: number,
      y0: number,
      y1: number,
      out: NumericArray,
      outStride: number,
      ox: number,
      oy: number,
    ): void => {
      if (fast) {
        const values = view(data);
        if (stride === 1) {
          // One sample per pixel: each row is a typed-array copy (the same conversion as
          // assigning element by element, done natively; ~3 ns per pixel less on a GRD window).
          for (let y = y0; y < y1; y++) {
            const src = (y - blockY) * tw - blockX;
            out.set(values.subarray(src + x0, src + x1), (y - oy) * outStride - ox + x0);
          }
          return;
        }
        for (let y = y0; y < y1; y++) {
          const src = ((y - blockY) * tw - blockX) * stride + offset;
          const dst = (y - oy) * outStride - ox;
          for (let x = x0; x < x1; x++) out[dst + x] = values[src + x * stride]!;
        }
        return;
      }
      const dv = new DataView(data.buffer, data.byteOffset, data.byteLength);
      for (let y = y0; y < y1; y++) {
        const dst = (y - oy) * outStride - ox;
        for (let x = x0; x < x1; x++) {
          const at = ((y - blockY) * tw + (x - blockX)) * pixelBytes + sampleByteOffset;
          out[dst + x] = reader.call(dv, at, image.littleEndian);
        }
      }
    };
  }
}
