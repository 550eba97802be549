import { describe, expect, it } from 'vitest';
import { extractCore, isImageryError, planTiles, readTiles, type PixelWindow } from '../../src/imagery/index.js';

describe('planTiles', () => {
  it('covers the image exactly once with cores, row-major, last row/column smaller', () => {
    const plan = planTiles(1000, 700, 256, 16);
    expect([plan.rows, plan.cols]).toEqual([3, 4]);
    const hits = new Uint8Array(1000 * 700);
    for (const t of plan.tiles) {
      for (let y = t.core.y0; y < t.core.y0 + t.core.height; y++) {
        for (let x = t.core.x0; x < t.core.x0 + t.core.width; x++) hits[y * 1000 + x]!++;
      }
    }
    expect(hits.every((h) => h === 1)).toBe(true);
    expect(plan.tiles.map((t) => [t.row, t.col])).toEqual([
      [0, 0], [0, 1], [0, 2], [0, 3],
      [1, 0], [1, 1], [1, 2], [1, 3],
      [2, 0], [2, 1], [2, 2], [2, 3],
    ]);
    expect(plan.tiles[3]!.core).toEqual({ x0: 768, y0: 0, width: 232, height: 256 });
    expect(plan.tiles[11]!.core).toEqual({ x0: 768, y0: 512, width: 232, height: 188 });
  });

  it('grows halos by the halo width and clips them to the image', () => {
    const plan = planTiles(1000, 700, 256, 16);
    const inner = plan.tiles[5]!; // row 1, col 1
    expect(inner.halo).toEqual({ x0: 240, y0: 240, width: 288, height: 288 });
    expect(inner.coreInHalo).toEqual({ x0: 16, y0: 16, width: 256, height: 256 });
    const corner = plan.tiles[0]!;
    expect(corner.halo).toEqual({ x0: 0, y0: 0, width: 272, height: 272 });
    expect(corner.coreInHalo).toEqual({ x0: 0, y0: 0, width: 256, height: 256 });
    const last = plan.tiles[11]!;
    expect(last.halo).toEqual({ x0: 752, y0: 496, width: 248, height: 204 });
  });

  it('plans over a region of a larger image (a cropped GRD inside its full-size grid)', () => {
    const plan = planTiles(26316, 16683, 512, 32, { x0: 4000, y0: 4000, width: 1000, height: 1000 });
    expect([plan.rows, plan.cols]).toEqual([2, 2]);
    expect(plan.tiles[0]!.core).toEqual({ x0: 4000, y0: 4000, width: 512, height: 512 });
    // Halos may reach outside the region (there the reader reports invalid pixels).
    expect(plan.tiles[0]!.halo).toEqual({ x0: 3968, y0: 3968, width: 576, height: 576 });
    expect(plan.tiles[3]!.core).toEqual({ x0: 4512, y0: 4512, width: 488, height: 488 });
  });

  it('plans a full IW scene in a few hundred tiles', () => {
    const plan = planTiles(25_000, 16_700, 1024, 64);
    expect(plan.tiles).toHaveLength(25 * 17);
  });

  it('rejects nonsense sizes with INVALID_WINDOW', () => {
    expect(() => planTiles(0, 10, 4, 0)).toThrow();
    try {
      planTiles(10, 10, 0, 0);
    } catch (e) {
      expect(isImageryError(e, 'INVALID_WINDOW')).toBe(true);
    }
  });
});

describe('readTiles', () => {
  it('yields tiles in plan order and keeps at most 1 + prefetch reads alive', async () => {
    const plan = planTiles(100, 100, 10, 2);
    let inFlight = 0;
    let maxInFlight = 0;
    let held = 0;
    let maxAlive = 0;
    const read = async (w: PixelWindow) => {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      maxAlive = Math.max(maxAlive, inFlight + held);
      await new Promise((r) => setTimeout(r, 1));
      inFlight--;
      return w;
    };
    const seen: number[] = [];
    for await (const { tile, data } of readTiles(plan, read, { prefetch: 2 })) {
      held = 1;
      expect(data).toEqual(tile.halo);
      seen.push(tile.index);
      await new Promise((r) => setTimeout(r, 2));
      held = 0;
    }
    expect(seen).toEqual(plan.tiles.map((t) => t.index));
    expect(maxInFlight).toBeLessThanOrEqual(3);
    expect(maxAlive).toBeLessThanOrEqual(3);
  });

  it('works without prefetch and propagates read errors', async () => {
    const plan = planTiles(20, 20, 10, 0);
    const order: number[] = [];
    for await (const { tile } of readTiles(plan, async (w) => w, { prefetch: 0 })) order.push(tile.index);
    expect(order).toEqual([0, 1, 2, 3]);
    const failing = readTiles(plan, async (_w, t) => {
      if (t.index === 2) throw new Error('boom');
      return t.index;
    });
    const got: number[] = [];
    await expect(
      (async () => {
        for await (const { data } of failing) got.push(data);
      })(),
    ).rejects.toThrow('boom');
    expect(got).toEqual([0, 1]);
  });

  it('extractCore slices the core out of a halo-sized array', () => {
    const plan = planTiles(6, 6, 3, 1);
    const tile = plan.tiles[3]!; // core x 3..5, y 3..5, halo x 2..5, y 2..5
    const haloData = new Float32Array(tile.halo.width * tile.halo.height);
    for (let y = 0; y < tile.halo.height; y++) {
      for (let x = 0; x < tile.halo.width; x++) haloData[y * tile.halo.width + x] = (tile.halo.y0 + y) * 10 + tile.halo.x0 + x;
    }
    const core = extractCore(tile, haloData, (n) => new Float32Array(n));
    expect(Array.from(core)).toEqual([33, 34, 35, 43, 44, 45, 53, 54, 55]);
  });
});
