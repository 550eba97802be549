/**
 * Issue 20 §1: on the analysis pool the tiled detectors' tasks read their own tiles, so the
 * calling thread reads no tile's pixels (it only plans, dispatches and merges), and the result
 * is the one of a run that reads every tile on the calling thread.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { closeAnalysisPool } from '../../src/analysis/engine/pool.ts';
import { detectInProduct } from '../../src/analysis/oilslick/detect.ts';
import { resolveOilSlickParams } from '../../src/analysis/oilslick/params.ts';
import { openSafeProduct } from '../../src/imagery/index.ts';
import type { PixelWindow } from '../../src/imagery/window.ts';
import { NORTH_SEA_SAFE } from '../imagery/fixtures.ts';

afterAll(() => closeAnalysisPool());

describe('issue 20: pool tasks read their own tiles', () => {
  it('oilslick: with workers the calling thread reads no tile, and the result is the in-thread one', async () => {
    const params = resolveOilSlickParams({ tileSize: 256 });
    const run = async (workers: number) => {
      const product = await openSafeProduct(NORTH_SEA_SAFE);
      try {
        const band = product.bands['VV']!;
        const readWindow = band.readWindow.bind(band);
        let tilesDone = false;
        const tileReads: PixelWindow[] = [];
        // Reads before the tile loop's last progress report are tile reads (outlines are read after it).
        Object.assign(band, { readWindow: (w: PixelWindow, o: Parameters<typeof readWindow>[1]) => (tilesDone || tileReads.push(w), readWindow(w, o)) });
        const out = await detectInProduct(product, params, { workers, onProgress: (f) => (tilesDone = f >= 0.9) });
        return { out, tileReads };
      } finally {
        await product.close();
      }
    };
    const pooled = await run(2);
    const inThread = await run(0);
    expect(pooled.out.tiles).toBe(16);
    expect(pooled.out.workers).toBe(2);
    expect(pooled.tileReads).toEqual([]);
    // The counter sees tile reads when there are any: the in-thread run reads every tile but those of land.
    expect(inThread.tileReads).toHaveLength(inThread.out.tiles - inThread.out.landTiles);
    expect(pooled.out.landTiles).toBe(inThread.out.landTiles);
    expect(pooled.out.collection).toEqual(inThread.out.collection);
    expect(pooled.out.candidates).toEqual(inThread.out.candidates);
  }, 180_000);
});
