/**
 * A quicklook's PNG writer: 8-bit RGBA pixels written as RGBA or, when every pixel is grey,
 * as grey + alpha (half the bytes to compress), no row filter, deflate level 1 — what
 * render.ts asked of pngjs, without its per-pixel JavaScript passes, and compressed on
 * libuv's pool (zlib's asynchronous deflate) so a quicklook's two pictures compress at once.
 * zlib gives the deflate and the chunks' CRC-32; only the chunk framing is written here.
 */
import { promisify } from 'node:util';
import { crc32, deflate as deflateCb } from 'node:zlib';

const deflate = promisify(deflateCb);

function chunk(type: string, data: Uint8Array): Buffer {
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, 'latin1');
  out.set(data, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
  return out;
}

const SIGNATURE = Uint8Array.of(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a);

/** PNG colour types written. */
const GREY_ALPHA = 4;
const RGBA = 6;

/**
 * The PNG of width × height RGBA pixels (`rgba`, 4 bytes a pixel, row after row). `grey`:
 * every pixel has r = g = b, written as grey + alpha (decodes to the same RGBA).
 */
export async function encodePng(rgba: Uint8Array, width: number, height: number, options: { grey?: boolean } = {}): Promise<Uint8Array> {
  const channels = options.grey ? 2 : 4;
  const stride = width * channels + 1;
  // Each row: its filter byte (0, none), then the pixels.
  const raw = Buffer.allocUnsafe(stride * height);
  for (let y = 0; y < height; y++) {
    const at = y * stride;
    raw[at] = 0;
    if (!options.grey) {
      raw.set(rgba.subarray(4 * y * width, 4 * (y + 1) * width), at + 1);
      continue;
    }
    for (let x = 0, i = 4 * y * width, o = at + 1; x < width; x++, i += 4, o += 2) {
      raw[o] = rgba[i]!;
      raw[o + 1] = rgba[i + 3]!;
    }
  }
  const compressed = await deflate(raw, { level: 1, strategy: 0 });
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bits per sample
  header[9] = options.grey ? GREY_ALPHA : RGBA;
  // compression, filter method, interlace: 0
  return Buffer.concat([SIGNATURE, chunk('IHDR', header), chunk('IDAT', compressed), chunk('IEND', new Uint8Array(0))]);
}
