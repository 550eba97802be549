// readShipTile into a thread's scratch (sceneTile.ts) against fresh arrays: the same bytes, tile after tile.
import { describe, expect, it } from 'vitest';
import { readShipTile, type ShipTileReading } from '../../src/analysis/ship/sceneTile.ts';
import { openSafeProduct, planTiles, SIGMA_FLOOR_LINEAR } from '../../src/imagery/index.ts';
import { Scratch } from '../../src/raster/scratch.ts';
import { NORTH_SEA_SAFE } from '../imagery/fixtures.ts';

const bytes = (a: ArrayBufferView) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);

describe('readShipTile with a reused scratch', () => {
  it('real North-Sea crop, VH + VV, DN and σ0 readings: every tile equals the fresh read, whatever the scratch held', async () => {
    const product = await openSafeProduct(NORTH_SEA_SAFE);
    try {
      const band = product.bands.VH!;
      const spacing = { range: band.annotation.rangePixelSpacing, azimuth: band.annotation.azimuthPixelSpacing };
      // Tiles of several sizes (edges clip their halo), some reaching past the measurement.
      const plan = planTiles(product.width, product.height, 700, 60, { x0: product.validWindow!.x0 - 200, y0: product.validWindow!.y0 - 100, width: 2300, height: 1300 });
      expect(plan.tiles.length).toBeGreaterThan(4);
      const sizes = new Set(plan.tiles.map((t) => t.halo.width * t.halo.height));
      expect(sizes.size).toBeGreaterThan(1);
      const base = { vh: 'VH', vv: 'VV', floor: SIGMA_FLOOR_LINEAR, landMask: true, landBufferM: 500, pixelSpacing: spacing };
      for (const reading of [
        { ...base, calibrateOnTask: true, denoise: false },
        { ...base, calibrateOnTask: false, denoise: true },
      ] satisfies ShipTileReading[]) {
        const scratch = new Scratch();
        let valid = 0;
        for (const tile of plan.tiles) {
          const fresh = await readShipTile(product, reading, tile);
          const reused = await readShipTile(product, reading, tile, scratch);
          // The scratch's arrays, not fresh ones.
          expect(reused.sigma0.vh!.buffer).toBe(scratch.array('shipTile.vh', Float32Array, 1).buffer);
          expect(reused.valid.buffer).toBe(scratch.array('shipTile.vhValid', Uint8Array, 1).buffer);
          expect(reused.land!.buffer).toBe(scratch.array('landMask', Uint8Array, 1).buffer);
          for (const k of ['vh', 'vv'] as const) expect(Buffer.compare(bytes(reused.sigma0[k]!), bytes(fresh.sigma0[k]!))).toBe(0);
          expect(Buffer.compare(bytes(reused.valid), bytes(fresh.valid))).toBe(0);
          expect(Buffer.compare(bytes(reused.land!), bytes(fresh.land!))).toBe(0);
          expect(reused.calibrate).toEqual(fresh.calibrate);
          for (let i = 0; i < fresh.valid.length; i++) valid += fresh.valid[i]!;
          // What the next tile finds in the scratch: garbage everywhere.
          reused.sigma0.vh!.fill(Number.NaN);
          reused.sigma0.vv!.fill(-1);
          reused.valid.fill(7);
          reused.land!.fill(3);
        }
        expect(valid).toBeGreaterThan(500_000);
      }
    } finally {
      await product.close();
    }
  });
});
