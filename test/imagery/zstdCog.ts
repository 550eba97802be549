/**
 * Writes a measurement as Copernicus Data Space's COG_SAFE products store it: a tiled
 * uint16 TIFF whose tiles are ZSTD-compressed (compression 50000), keeping the crop's pixel
 * geotransform (ModelTransformation) so it sits where the SAFE's TIFF sits. Tiles are
 * compressed by the `zstd` command when the machine has it (real ZSTD), otherwise as ZSTD
 * frames of raw blocks (valid ZSTD every decoder must read; no compression).
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { fromFile } from 'geotiff';

export const HAVE_ZSTD_CLI = spawnSync('zstd', ['--version']).status === 0;

/** A ZSTD frame of raw (stored) blocks: magic, descriptor with a 4-byte content size, blocks ≤ 128 KiB. */
export function zstdRawFrame(data: Uint8Array): Uint8Array {
  const parts: number[] = [0x28, 0xb5, 0x2f, 0xfd, 0xa0 /* FCS 4 bytes, single segment */];
  const n = data.byteLength;
  parts.push(n & 0xff, (n >>> 8) & 0xff, (n >>> 16) & 0xff, (n >>> 24) & 0xff);
  const out: Uint8Array[] = [Uint8Array.from(parts)];
  const MAX = 128 * 1024;
  for (let at = 0; at < n || (n === 0 && at === 0); at += MAX) {
    const size = Math.min(MAX, n - at);
    const last = at + size >= n ? 1 : 0;
    const h = (size << 3) | last; // block type 0: raw
    out.push(Uint8Array.from([h & 0xff, (h >>> 8) & 0xff, (h >>> 16) & 0xff]), data.subarray(at, at + size));
    if (n === 0) break;
  }
  return Buffer.concat(out);
}

function zstdCompress(data: Uint8Array): Uint8Array {
  if (!HAVE_ZSTD_CLI) return zstdRawFrame(data);
  const r = spawnSync('zstd', ['-q', '-c', '-3'], { input: data, maxBuffer: 64 * 1024 * 1024 });
  if (r.status !== 0) throw new Error(`zstd failed: ${r.stderr}`);
  return new Uint8Array(r.stdout);
}

/** Re-encode a (cropped) SAFE measurement TIFF as a tiled ZSTD GeoTIFF at `out`. */
export async function writeZstdCog(source: string, out: string, tile = 256): Promise<void> {
  const tiff = await fromFile(source);
  const image = await tiff.getImage();
  const width = image.getWidth();
  const height = image.getHeight();
  const [raster] = (await image.readRasters({ interleave: false })) as unknown as Uint16Array[];
  const transform = Array.from((image.getFileDirectory().getValue('ModelTransformation') as ArrayLike<number>) ?? []);
  await tiff.close();
  const across = Math.ceil(width / tile);
  const down = Math.ceil(height / tile);
  const tiles: Uint8Array[] = [];
  for (let ty = 0; ty < down; ty++) {
    for (let tx = 0; tx < across; tx++) {
      const block = new Uint16Array(tile * tile); // edge tiles padded with 0, as GDAL does
      for (let y = 0; y < tile && ty * tile + y < height; y++) {
        for (let x = 0; x < tile && tx * tile + x < width; x++) block[y * tile + x] = raster![(ty * tile + y) * width + tx * tile + x]!;
      }
      tiles.push(zstdCompress(new Uint8Array(block.buffer)));
    }
  }
  // Layout: header (8) | tile data | IFD | out-of-line values.

  const dataStart = 8;
  const offsets: number[] = [];
  let at = dataStart;
  for (const t of tiles) {
    offsets.push(at);
    at += t.byteLength;
  }
  if (at % 2) at++;
  const entries: { tag: number; type: number; values: number[] }[] = [
    { tag: 256, type: 4, values: [width] },
    { tag: 257, type: 4, values: [height] },
    { tag: 258, type: 3, values: [16] },
    { tag: 259, type: 3, values: [50000] },
    { tag: 262, type: 3, values: [1] },
    { tag: 277, type: 3, values: [1] },
    { tag: 284, type: 3, values: [1] },
    { tag: 322, type: 3, values: [tile] },
    { tag: 323, type: 3, values: [tile] },
    { tag: 324, type: 4, values: offsets },
    { tag: 325, type: 4, values: tiles.map((t) => t.byteLength) },
    { tag: 339, type: 3, values: [1] },
    ...(transform.length === 16 ? [{ tag: 34264, type: 12, values: transform }] : []),
  ];
  const ifdOffset = at;
  const ifdSize = 2 + entries.length * 12 + 4;
  let extra = ifdOffset + ifdSize;
  const size = (type: number) => (type === 3 ? 2 : type === 4 ? 4 : 8);
  const extras: { offset: number; e: (typeof entries)[number] }[] = [];
  for (const e of entries) {
    if (e.values.length * size(e.type) > 4) {
      extras.push({ offset: extra, e });
      extra += e.values.length * size(e.type);
    }
  }
  const buf = Buffer.alloc(extra);
  buf.write('II', 0, 'latin1');
  buf.writeUInt16LE(42, 2);
  buf.writeUInt32LE(ifdOffset, 4);
  tiles.forEach((t, i) => buf.set(t, offsets[i]!));
  buf.writeUInt16LE(entries.length, ifdOffset);
  const write = (type: number, v: number, pos: number) => (type === 3 ? buf.writeUInt16LE(v, pos) : type === 4 ? buf.writeUInt32LE(v, pos) : buf.writeDoubleLE(v, pos));
  entries.forEach((e, i) => {
    const p = ifdOffset + 2 + i * 12;
    buf.writeUInt16LE(e.tag, p);
    buf.writeUInt16LE(e.type, p + 2);
    buf.writeUInt32LE(e.values.length, p + 4);
    const ext = extras.find((x) => x.e === e);
    if (ext) {
      buf.writeUInt32LE(ext.offset, p + 8);
      e.values.forEach((v, k) => write(e.type, v, ext.offset + k * size(e.type)));
    } else e.values.forEach((v, k) => write(e.type, v, p + 8 + k * size(e.type)));
  });
  buf.writeUInt32LE(0, ifdOffset + 2 + entries.length * 12);
  writeFileSync(out, buf);

}
