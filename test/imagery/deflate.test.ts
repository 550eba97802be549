// Deflate through node:zlib (src/imagery/geotiff-source.ts): registered for compression 8
// and 32946, bit-identical to geotiff.js's own JavaScript inflate (pako) on the real OPERA
// RTC files, predictors 2 and 3 applied, and cross-checked against GDAL.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BaseDecoder, fromFile, getDecoder, type GeoTIFFImage } from 'geotiff';
import { NodeZlibDeflateDecoder } from '../../src/imagery/geotiff-source.ts';
import { openRasterProduct } from '../../src/imagery/index.ts';
import { GDAL_TAG, HAS_GDAL, gdal, ENGA_DIR } from './fixtures.ts';
import { S1_DATA } from '../helpers/samples.ts';
import { writeTiledTiff, type TiledArray, type TiledSampleType } from '../../src/synth/tiledTiff.ts';

// geotiff.js's own Deflate decoder, as it ships: pako's inflate (pako is geotiff's dependency).
const pako = createRequire(import.meta.url)('pako') as { inflate(data: Uint8Array): Uint8Array };
class PakoDeflateDecoder extends BaseDecoder {
  override decodeBlock(buffer: ArrayBufferLike): ArrayBufferLike {
    return pako.inflate(new Uint8Array(buffer)).buffer;
  }
}

const SB_DIR = path.join(S1_DATA, 'rtc-stack-santabarbara/tests/test_data/cropped/10SGD/137');

function tifs(dir: string): string[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.tif'))
    .sort()
    .map((f) => path.join(dir, f));
}

async function decoderParameters(image: GeoTIFFImage) {
  const fd = image.getFileDirectory();
  return {
    tileWidth: image.getTileWidth(),
    tileHeight: image.getTileHeight(),
    planarConfiguration: Number(fd.getValue('PlanarConfiguration') ?? 1),
    bitsPerSample: Array.from((fd.getValue('BitsPerSample') as ArrayLike<number>) ?? [8]),
    predictor: Number((await fd.loadValue('Predictor')) ?? 1),
  };
}

/** Decode every block of a file with both decoders; the bytes must be identical. */
async function compareBlocks(file: string): Promise<{ blocks: number; bytes: number; compression: number }> {
  const tiff = await fromFile(file);
  try {
    const image = await tiff.getImage();
    const compression = Number(image.getFileDirectory().getValue('Compression'));
    const params = await decoderParameters(image);
    const ours = new NodeZlibDeflateDecoder(params);
    const reference = new PakoDeflateDecoder(params);
    let blocks = 0;
    let bytes = 0;
    for (let by = 0; by * image.getTileHeight() < image.getHeight(); by++) {
      for (let bx = 0; bx * image.getTileWidth() < image.getWidth(); bx++) {
        const a = new Uint8Array((await image.getTileOrStrip(bx, by, 0, ours)).data);
        const b = new Uint8Array((await image.getTileOrStrip(bx, by, 0, reference)).data);
        expect(a.length).toBe(b.length);
        expect(Buffer.compare(Buffer.from(a), Buffer.from(b))).toBe(0);
        blocks++;
        bytes += a.length;
      }
    }
    return { blocks, bytes, compression };
  } finally {
    tiff.close();
  }
}

/** All pixels of band 1 through src/imagery (BlockReader → the registered decoder). */
async function readAll(file: string): Promise<Float32Array> {
  const r = await openRasterProduct(file);
  try {
    return (await r.readWindow({ x0: 0, y0: 0, width: r.width, height: r.height })).data[0]!;
  } finally {
    await r.close();
  }
}

/** Bit-exact equality of two float arrays (NaN payloads included). */
function sameBits(a: Float32Array, b: Float32Array): boolean {
  return a.length === b.length && Buffer.compare(Buffer.from(a.buffer, a.byteOffset, a.byteLength), Buffer.from(b.buffer, b.byteOffset, b.byteLength)) === 0;
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'sarwatch-deflate-'));
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('Deflate through node:zlib', () => {
  it('is the decoder geotiff.js uses for compression 8 and 32946 once src/imagery is loaded', async () => {
    const params = { tileWidth: 512, tileHeight: 512, planarConfiguration: 1, bitsPerSample: [32], predictor: 1 };
    expect(await getDecoder(8, params)).toBeInstanceOf(NodeZlibDeflateDecoder);
    expect(await getDecoder(32946, params)).toBeInstanceOf(NodeZlibDeflateDecoder);
    // Other codecs keep geotiff.js's decoders.
    expect(await getDecoder(5, params)).not.toBeInstanceOf(NodeZlibDeflateDecoder);
  });

  it('decodes every block of the real OPERA RTC files (Enga, Santa Barbara) exactly as pako does', { timeout: 180_000 }, async () => {
    // All of them: Enga (10 + 20 files, ~65 % no-data) and Santa Barbara (21 dates × 30 files).
    const files = [...tifs(ENGA_DIR), ...tifs(`${ENGA_DIR}_tv`), ...readdirSync(SB_DIR).sort().flatMap((d) => tifs(path.join(SB_DIR, d)))];
    expect(files.length).toBe(660);
    let blocks = 0;
    for (const f of files) {
      const r = await compareBlocks(f);
      expect(r.compression).toBe(8); // OPERA writes Deflate, predictor 1, 512 × 512 tiles
      blocks += r.blocks;
    }
    expect(blocks).toBe(files.length);
  });

  it('returns a buffer that is exactly the decoded block (views from byte 0 are safe)', async () => {
    const tiff = await fromFile(tifs(ENGA_DIR)[0]!);
    const image = await tiff.getImage();
    const params = await decoderParameters(image);
    const { data } = await image.getTileOrStrip(0, 0, 0, new NodeZlibDeflateDecoder(params));
    expect(data.byteLength).toBe(512 * 512 * 4);
    tiff.close();
  });

  const cases: Array<{ type: TiledSampleType; predictor: 1 | 2 | 3; compression: 8 | 32946; tile: number }> = [
    { type: 'float32', predictor: 1, compression: 8, tile: 64 },
    { type: 'float32', predictor: 2, compression: 8, tile: 48 },
    { type: 'float32', predictor: 3, compression: 8, tile: 64 },
    { type: 'float32', predictor: 3, compression: 32946, tile: 32 },
    { type: 'float64', predictor: 3, compression: 8, tile: 32 },
    { type: 'int16', predictor: 2, compression: 8, tile: 48 },
    { type: 'uint16', predictor: 2, compression: 32946, tile: 64 },
  ];

  it.each(cases)('applies predictor $predictor to $type tiles (compression $compression, $tile px tiles): the written values come back', async ({ type, predictor, compression, tile }) => {
    const width = 150;
    const height = 101; // partial tiles on the right and at the bottom
    const n = width * height;
    const values: TiledArray =
      type === 'float32' ? new Float32Array(n) : type === 'float64' ? new Float64Array(n) : type === 'int16' ? new Int16Array(n) : new Uint16Array(n);
    let seed = 12345;
    const next = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
    for (let i = 0; i < n; i++) {
      const x = i % width;
      const smooth = Math.sin(x / 9) * 1000 + (i / width) * 3;
      values[i] = type.startsWith('float') ? (i % 97 === 0 ? Number.NaN : (smooth + next()) * 1e-4) : type === 'int16' ? Math.round(smooth - 500 + 40 * next()) : Math.round(smooth + 2000 + 40 * next());
    }
    const file = path.join(dir, `p${predictor}-${type}-${compression}.tif`);
    await writeTiledTiff(file, { width, height, sampleType: type, tileSize: tile, predictor, compression, georeference: { epsg: 32631, originX: 600_000, originY: 5_800_000, pixelSize: 10 } }, values);
    const read = await readAll(file);
    for (let i = 0; i < n; i++) {
      const expected = type === 'float32' ? values[i]! : Math.fround(values[i]!);
      if (Number.isNaN(expected)) expect(read[i]).toBeNaN();
      else if (read[i] !== expected) expect(read[i]).toBe(expected); // (assert only on a mismatch: 15,000 pixels)
    }
    // …and every block decodes to pako's bytes.
    const r = await compareBlocks(file);
    expect(r.compression).toBe(compression);
    expect(r.blocks).toBe(Math.ceil(width / tile) * Math.ceil(height / tile));
  });

  it('reports a corrupt Deflate block as an error', async () => {
    const file = path.join(dir, 'corrupt.tif');
    let seed = 7;
    const noise = Float32Array.from({ length: 64 * 64 }, () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
    await writeTiledTiff(file, { width: 64, height: 64, sampleType: 'float32', tileSize: 64 }, noise);
    const bytes = await readFile(file);
    bytes.fill(0x55, 8 + 2, 8 + 40); // inside the only tile's zlib stream (it starts at byte 8)
    await writeFile(file, bytes);
    await expect(readAll(file)).rejects.toThrow();
  });
});

describe.skipIf(!HAS_GDAL)(`Deflate with predictors written by GDAL ${GDAL_TAG}`, () => {
  const source = tifs(ENGA_DIR)[3]!;

  it('reads GDAL predictor 2 / 3, tiled and stripped, Float32 and Float64, bit-identical to the original OPERA file', async () => {
    const original = await readAll(source);
    const variants: Array<[string, string[]]> = [
      ['p2-tiled', ['-co', 'TILED=YES', '-co', 'BLOCKXSIZE=128', '-co', 'BLOCKYSIZE=128', '-co', 'PREDICTOR=2']],
      ['p3-tiled', ['-co', 'TILED=YES', '-co', 'BLOCKXSIZE=128', '-co', 'BLOCKYSIZE=128', '-co', 'PREDICTOR=3']],
      ['p3-strips', ['-co', 'BLOCKYSIZE=7', '-co', 'PREDICTOR=3']],
      ['p3-float64', ['-ot', 'Float64', '-co', 'TILED=YES', '-co', 'PREDICTOR=3']],
      ['p1-zlevel9', ['-co', 'TILED=YES', '-co', 'ZLEVEL=9']],
    ];
    for (const [name, args] of variants) {
      const out = path.join(dir, `gdal-${name}.tif`);
      gdal('gdal_translate', ['-q', '-co', 'COMPRESS=DEFLATE', ...args, source, out]);
      expect(gdal('gdalinfo', [out])).toContain('COMPRESSION=DEFLATE');
      const read = await readAll(out);
      expect(sameBits(read, original), name).toBe(true);
    }
  });

  it('reads integer predictor 2 (UInt16 strips, Int16 tiles) as GDAL decodes them', async () => {
    for (const [name, args] of [
      ['u16-strips', ['-ot', 'UInt16', '-scale', '0', '0.5', '0', '60000', '-a_nodata', 'none', '-co', 'BLOCKYSIZE=5']],
      ['i16-tiles', ['-ot', 'Int16', '-scale', '0', '0.5', '-1000', '30000', '-a_nodata', 'none', '-co', 'TILED=YES', '-co', 'BLOCKXSIZE=64', '-co', 'BLOCKYSIZE=64']],
    ] as const) {
      const compressed = path.join(dir, `gdal-${name}.tif`);
      const raw = path.join(dir, `gdal-${name}-raw.tif`);
      gdal('gdal_translate', ['-q', ...args, '-co', 'COMPRESS=DEFLATE', '-co', 'PREDICTOR=2', source, compressed]);
      gdal('gdal_translate', ['-q', '-co', 'COMPRESS=NONE', compressed, raw]);
      expect(sameBits(await readAll(compressed), await readAll(raw)), name).toBe(true);
    }
  });

  it('agrees with gdallocationinfo on pixels of a predictor-3 file written by our test writer', async () => {
    const width = 90;
    const height = 70;
    const values = Float32Array.from({ length: width * height }, (_, i) => Math.cos(i / 7) * 0.05 + 0.1 + i * 1e-6);
    const file = path.join(dir, 'ours-p3.tif');
    await writeTiledTiff(file, { width, height, sampleType: 'float32', tileSize: 32, predictor: 3, georeference: { epsg: 32631, originX: 600_000, originY: 5_800_000, pixelSize: 10 } }, values);
    for (const [x, y] of [
      [0, 0],
      [33, 5],
      [89, 69],
      [45, 40],
    ] as const) {
      const v = Number(gdal('gdallocationinfo', ['-valonly', file, String(x), String(y)]).trim());
      expect(Math.fround(v)).toBe(values[y * width + x]);
    }
    expect(sameBits(await readAll(file), values)).toBe(true);
  });
});
