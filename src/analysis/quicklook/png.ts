/**
 * A quicklook's PNG writer: 8-bit pixels written as an indexed image (one byte a pixel and a
 * palette: the ship/oil/building pictures), RGB, grey + alpha or RGBA, no row filter, deflate
 * level 1 (run-length matches only for indexed pictures) — without pngjs's per-pixel
 * JavaScript passes, and compressed on libuv's pool (zlib's asynchronous deflate) so a
 * quicklook's two pictures compress at once. A caller may write its pixels straight into the
 * filtered rows (rawImage) and hand them over (encodeRaw).
 * zlib gives the deflate and the chunks' CRC-32; only the chunk framing is written here.
 */
import { constants as zlibConstants, crc32, createDeflate, type ZlibOptions } from 'node:zlib';

/**
 * zlib's deflate of `raw` on libuv's pool (as zlib.deflate), as the pieces zlib wrote: the PNG
 * frames them into its one IDAT chunk itself, instead of zlib.deflate joining them into a buffer
 * of their own first (one copy of the compressed picture, and its fresh memory, fewer).
 */
function deflatePieces(raw: Uint8Array, options: ZlibOptions): Promise<Buffer[]> {
  return new Promise((resolve, reject) => {
    const pieces: Buffer[] = [];
    const engine = createDeflate(options);
    engine.on('data', (piece: Buffer) => pieces.push(piece));
    engine.on('error', reject);
    engine.on('end', () => resolve(pieces));
    engine.end(raw);
  });
}

/** A chunk's bytes: its data's length, type, data and CRC-32 (of type and data). */
function chunkLength(data: readonly Uint8Array[]): number {
  return 12 + data.reduce((n, piece) => n + piece.length, 0);
}

/** Writes chunk `type` with `data` (its pieces, in order) at `out[at]`; returns where it ends. */
function writeChunk(out: Buffer, at: number, type: string, data: readonly Uint8Array[]): number {
  const length = chunkLength(data) - 12;
  out.writeUInt32BE(length, at);
  out.write(type, at + 4, 'latin1');
  let crc = crc32(out.subarray(at + 4, at + 8));
  let o = at + 8;
  for (const piece of data) {
    out.set(piece, o);
    crc = crc32(piece, crc);
    o += piece.length;
  }
  out.writeUInt32BE(crc, o);
  return o + 4;
}

const SIGNATURE = Uint8Array.of(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a);

/** PNG colour types written. */
const RGB = 2;
const INDEXED = 3;
const GREY_ALPHA = 4;
const RGBA = 6;

/** Bytes a pixel of each layout written (indexed: one palette entry). */
export const CHANNELS = { rgb: 3, greyAlpha: 2, rgba: 4, indexed: 1 } as const;
export type PngLayout = keyof typeof CHANNELS;

/**
 * The filtered image data of a width × height PNG in `layout`, zeroed: each row its filter
 * byte (0, none) and then its pixels — for a caller that writes the pixels straight in
 * (rawRowStart) and hands it to encodeRaw, with no RGBA copy in between.
 */
export function rawImage(layout: PngLayout, width: number, height: number): Buffer {
  return Buffer.alloc(rawLength(layout, width, height));
}

/** Bytes of a rawImage: each row's filter byte and pixels. */
export function rawLength(layout: PngLayout, width: number, height: number): number {
  return (width * CHANNELS[layout] + 1) * height;
}

/** Offset of row y's first pixel in a rawImage. */
export function rawRowStart(layout: PngLayout, width: number, y: number): number {
  return y * (width * CHANNELS[layout] + 1) + 1;
}

/** An indexed image's colours: `rgb` 3 bytes an entry (≤ 256 entries), `alpha` of the first entries (the others opaque). */
export interface Palette {
  rgb: Uint8Array;
  alpha: Uint8Array;
}

/** The PNG of a rawImage (its filter bytes 0); an `indexed` one with its palette. */
export async function encodeRaw(raw: Uint8Array, layout: PngLayout, width: number, height: number, palette?: Palette): Promise<Uint8Array> {
  if ((layout === 'indexed') !== !!palette) throw new Error('an indexed PNG, and only one, has a palette');
  // An indexed picture (one byte a pixel: speckle, and runs of transparency or one grey) with
  // run-length matches only (Z_RLE): on the 4,608² building pair's 2,048² picture 35 ms CPU
  // instead of 88 for 1 % more bytes, on the North-Sea crop 15 instead of 28 ms and no larger
  // (docs/quicklook.md, Cost). RGB (the deviation map: flat colours, 3 bytes a pixel) keeps
  // level 1's LZ77 matches, which RLE's distance 1 would miss.
  const compressed = await deflatePieces(raw, { level: 1, strategy: layout === 'indexed' ? zlibConstants.Z_RLE : zlibConstants.Z_DEFAULT_STRATEGY });
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bits per sample
  header[9] = { rgb: RGB, greyAlpha: GREY_ALPHA, rgba: RGBA, indexed: INDEXED }[layout];
  // compression, filter method, interlace: 0
  const chunks: Array<[string, Uint8Array[]]> = [['IHDR', [header]]];
  if (palette) chunks.push(['PLTE', [palette.rgb]], ...(palette.alpha.length ? [['tRNS', [palette.alpha]] as [string, Uint8Array[]]] : []));
  chunks.push(['IDAT', compressed], ['IEND', []]);
  // One buffer for the file, the compressed data copied into it once (one IDAT chunk).
  const out = Buffer.allocUnsafe(SIGNATURE.length + chunks.reduce((n, [, data]) => n + chunkLength(data), 0));
  out.set(SIGNATURE, 0);
  let at = SIGNATURE.length;
  for (const [type, data] of chunks) at = writeChunk(out, at, type, data);
  return out;
}

/** Rows of RGBA pixels into a rawImage of `layout` (rgb drops alpha, greyAlpha keeps r and alpha). */
function rawOf(rgba: Uint8Array, width: number, height: number, layout: Exclude<PngLayout, 'indexed'>): Buffer {
  const raw = Buffer.allocUnsafe((width * CHANNELS[layout] + 1) * height);
  for (let y = 0; y < height; y++) {
    const at = rawRowStart(layout, width, y);
    raw[at - 1] = 0;
    if (layout === 'rgba') {
      raw.set(rgba.subarray(4 * y * width, 4 * (y + 1) * width), at);
      continue;
    }
    if (layout === 'rgb') {
      for (let x = 0, i = 4 * y * width, o = at; x < width; x++, i += 4, o += 3) {
        raw[o] = rgba[i]!;
        raw[o + 1] = rgba[i + 1]!;
        raw[o + 2] = rgba[i + 2]!;
      }
      continue;
    }
    for (let x = 0, i = 4 * y * width, o = at; x < width; x++, i += 4, o += 2) {
      raw[o] = rgba[i]!;
      raw[o + 1] = rgba[i + 3]!;
    }
  }
  return raw;
}

/**
 * The PNG of width × height RGBA pixels (`rgba`, 4 bytes a pixel, row after row). `grey`:
 * every pixel has r = g = b, written as grey + alpha (decodes to the same RGBA); `opaque`:
 * every alpha is 255, written as RGB.
 */
export function encodePng(rgba: Uint8Array, width: number, height: number, options: { grey?: boolean; opaque?: boolean } = {}): Promise<Uint8Array> {
  const layout = options.grey ? 'greyAlpha' : options.opaque ? 'rgb' : 'rgba';
  return encodeRaw(rawOf(rgba, width, height, layout), layout, width, height);
}
