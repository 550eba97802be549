import { describe, expect, it } from 'vitest';
import { fromFile } from 'geotiff';

import { BlockReader } from '../../src/imagery/index.js';
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
