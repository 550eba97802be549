import { describe, expect, it } from 'vitest';
import { fromFile } from 'geotiff';

import { BlockReader } from '../../src/imagery/index.js';
import { FileRangeSource, openLocalTiff } from '../../src/imagery/geotiff-source.js';
import { NORTH_SEA_VV_TIFF } from './fixtures.js';

/** geotiff.js's own readRasters is the reference: the reader must give the same pixels. */
async function reference(window: { x0: number; y0: number; width: number; height: number }): Promise<Uint16Array> {
  const tiff = await fromFile(NORTH_SEA_VV_TIFF);
  const image = await tiff.getImage();
  const x0 = Math.max(0, window.x0);
  const y0 = Math.max(0, window.y0);
  const x1 = Math.min(image.getWidth(), window.x0 + window.width);
  const y1 = Math.min(image.getHeight(), window.y0 + window.height);
  const [values] = await image.readRasters({ window: [x0, y0, x1, y1], samples: [0], interleave: false });
  // Placed in a window-sized array like BlockReader.read does, outside the image left at 7.
  const out = new Uint16Array(window.width * window.height).fill(7);
  for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) out[(y - window.y0) * window.width + x - window.x0] = (values as Uint16Array)[(y - y0) * (x1 - x0) + x - x0]!;
  return out;
}

describe('BlockReader on uncompressed strips (North Sea GRD crop: 1000 × 1000, 4-row strips, uint16)', () => {
  it('reads only the window columns, one range per row, caching nothing, with the same pixels as readRasters', async () => {
    const tiff = await fromFile(NORTH_SEA_VV_TIFF);
    const reader = new BlockReader(await tiff.getImage());
    const windows = [
      { x0: 0, y0: 0, width: 256, height: 256 },
      { x0: 301, y0: 417, width: 333, height: 129 }, // odd origin, rows that start mid-strip
      { x0: 900, y0: 950, width: 200, height: 100 }, // runs off the bottom-right corner
      { x0: -30, y0: -3, width: 64, height: 10 }, // starts before the image
    ];
    let bytes = 0;
    for (const w of windows) {
      const out = new Uint16Array(w.width * w.height).fill(7);
      await reader.read(w, 0, out, w.width);
      expect(Array.from(out)).toEqual(Array.from(await reference(w)));
      const cols = Math.min(1000, w.x0 + w.width) - Math.max(0, w.x0);
      const rows = Math.min(1000, w.y0 + w.height) - Math.max(0, w.y0);
      bytes += cols * rows * 2;
    }
    expect(reader.stats.bytesRead).toBe(bytes);
    expect(reader.stats.fetches).toBe(windows.length);
    expect(reader.stats.blocksDecoded).toBe(0);
    expect(reader.stats.cacheHits).toBe(0);
  });

  it('writes into a larger output at an offset origin and stride', async () => {
    const tiff = await fromFile(NORTH_SEA_VV_TIFF);
    const reader = new BlockReader(await tiff.getImage());
    const w = { x0: 120, y0: 40, width: 50, height: 30 };
    const out = new Float32Array(80 * 40).fill(-1);
    await reader.read(w, 0, out, 80, 100, 35); // out (0,0) is image (100,35)
    const ref = await reference(w);
    for (let y = 0; y < 40; y++) {
      for (let x = 0; x < 80; x++) {
        const ix = x + 100 - w.x0;
        const iy = y + 35 - w.y0;
        const inside = ix >= 0 && ix < w.width && iy >= 0 && iy < w.height;
        expect(out[y * 80 + x]).toBe(inside ? ref[iy * w.width + ix]! : -1);
      }
    }
  });

  it('reads a full-width window through strips fetched in runs (as before)', async () => {
    const tiff = await fromFile(NORTH_SEA_VV_TIFF);
    const reader = new BlockReader(await tiff.getImage());
    const w = { x0: 0, y0: 10, width: 1000, height: 30 };
    const out = new Uint16Array(w.width * w.height);
    await reader.read(w, 0, out, w.width);
    expect(Array.from(out)).toEqual(Array.from(await reference(w)));
    expect(reader.stats.bytesRead).toBe(0);
    // Rows 10–39 lie in strips 2–9 (4 rows each): 8 strips from one run.
    expect(reader.stats.blocksDecoded).toBe(8);
    expect(reader.stats.fetches).toBe(1);
  });
});

describe('BlockReader through a local FileRangeSource (openLocalTiff): rows read in place into a reused staging buffer', () => {
  it('the same pixels as readRasters, windows of one and of several staging chunks, read after read', async () => {
    const tiff = await openLocalTiff(NORTH_SEA_VV_TIFF);
    try {
      const image = await tiff.getImage();
      expect(image.source).toBeInstanceOf(FileRangeSource);
      const reader = new BlockReader(image);
      const windows = [
        { x0: 1, y0: 0, width: 999, height: 1000 }, // 1998 B per row: eight 256 KiB chunks
        { x0: 301, y0: 417, width: 333, height: 129 },
        { x0: 900, y0: 950, width: 200, height: 100 },
        { x0: -30, y0: -3, width: 64, height: 10 },
        { x0: 0, y0: 3, width: 998, height: 997 },
      ];
      let bytes = 0;
      let chunks = 0;
      for (const w of windows) {
        const out = new Float32Array(w.width * w.height).fill(7);
        const ref = await reference(w);
        // onRows: each chunk's rows, in order, once, already in `out` when announced.
        const announced: number[] = [];
        await reader.read(w, 0, out, w.width, w.x0, w.y0, (r0, r1) => {
          for (let y = r0; y < r1; y++) {
            announced.push(y);
            const row = (y - w.y0) * w.width;
            expect(Array.from(out.subarray(row, row + w.width))).toEqual(Array.from(ref.subarray(row, row + w.width)));
          }
        });
        expect(Array.from(out)).toEqual(Array.from(ref));
        const cols = Math.min(1000, w.x0 + w.width) - Math.max(0, w.x0);
        const rows = Math.min(1000, w.y0 + w.height) - Math.max(0, w.y0);
        expect(announced).toEqual(Array.from({ length: rows }, (_, k) => Math.max(0, w.y0) + k));
        bytes += cols * rows * 2;
        chunks += Math.ceil(rows / Math.floor((256 * 1024) / (cols * 2)));
      }
      expect(reader.stats.bytesRead).toBe(bytes);
      // One read per chunk of rows: the two ~1000-row windows take eight each.
      expect(chunks).toBe(windows.length + 14);
      expect(reader.stats.fetches).toBe(chunks);
      // Two windows read at once on one reader: the second gets a buffer of its own.
      const [a, b] = [windows[0]!, windows[4]!];
      const outA = new Float32Array(a.width * a.height);
      const outB = new Float32Array(b.width * b.height);
      await Promise.all([reader.read(a, 0, outA, a.width), reader.read(b, 0, outB, b.width)]);
      expect(Array.from(outA)).toEqual(Array.from(await reference(a)));
      expect(Array.from(outB)).toEqual(Array.from(await reference(b)));
    } finally {
      await tiff.close();
    }
  });

  it('FileRangeSource.readInto: the bytes fetch gives, back to back, blocking or not; past the end is an error', async () => {
    const { size } = await import('node:fs').then((fs) => fs.statSync(NORTH_SEA_VV_TIFF));
    // A range of the file as the source, as a zip member is read.
    const source = new FileRangeSource(NORTH_SEA_VV_TIFF, 1000, size - 1000);
    try {
      const slices = [
        { offset: 0, length: 17 },
        { offset: 50_000, length: 2000 },
        { offset: 7, length: 1 },
        { offset: size - 1000 - 300, length: 300 },
      ];
      const expected = Buffer.concat((await source.fetch(slices)).map((b) => Buffer.from(b)));
      expect(expected.length).toBe(2318);
      for (const sync of [false, true]) {
        const into = new Uint8Array(2400).fill(0xa5);
        await source.readInto(slices, into, sync);
        expect(Buffer.compare(Buffer.from(into.subarray(0, 2318)), expected)).toBe(0);
        expect(into.subarray(2318).every((v) => v === 0xa5)).toBe(true);
        await expect(source.readInto([{ offset: size - 1000 - 10, length: 11 }], into, sync)).rejects.toThrow(RangeError);
      }
    } finally {
      await source.close();
    }
  });
});
