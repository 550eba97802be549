// The ship quicklook from the detector's own pooled copy (common/quicklookCopy.ts poolDn2, mergePooled,
// quicklook/index.ts pooledRaster) on the real North-Sea GRD crop: the tiles'
// partial block sums add up to the sums of a full-resolution DN read, block for block; and
// where a block is one pixel (this 1000-px crop's quicklook: rowStep = runLength = 1) the
// picture is the strided read's, pixel for pixel.
import { createHash } from 'node:crypto';
import { PNG } from 'pngjs';
import { afterAll, describe, expect, it } from 'vitest';
import { detectShipsInProduct } from '../../src/analysis/ship/index.ts';
import { makeQuicklook, quicklookBlockGrid } from '../../src/analysis/quicklook/index.ts';
import { closeAnalysisPool } from '../../src/analysis/engine/pool.ts';
import { openSafeProduct } from '../../src/imagery/index.ts';
import { quicklookBlocksFor } from '../../src/worker/quicklook.ts';
import type { BlockGrid } from '../../src/analysis/port.ts';
import { NORTH_SEA_SAFE } from '../imagery/fixtures.ts';
import { shipModule } from '../../src/analysis/modules/ship.ts';
import type { AnalysisContext, ResolvedInput } from '../../src/analysis/port.ts';

afterAll(() => closeAnalysisPool());

const pixels = (png: Uint8Array) => {
  const d = PNG.sync.read(Buffer.from(png));
  return `${d.width}x${d.height} ${createHash('sha256').update(d.data).digest('hex')}`;
};

describe('the detector’s pooled copy for the ship quicklook (real North-Sea GRD crop)', () => {
  it('sums DN² per block across tiles exactly as a full-resolution read does', async () => {
    const product = await openSafeProduct(NORTH_SEA_SAFE);
    try {
      let asked: BlockGrid | null = null;
      // Blocks of 7 × 9 px from an origin off the tile grid: blocks cut by tile edges get parts from two or four tiles.
      const report = await detectShipsInProduct(product, {
        threads: 2,
        params: { tileSize: 256 },
        quicklookBlocks: (_p, polarisation, region) => {
          const rowStep = 7;
          const runLength = 9;
          asked = { polarisation, y0: region.y0 + 3, x0: region.x0 + 5, rowStep, runLength, rows: Math.ceil((region.height - 3) / rowStep), runs: Math.ceil((region.width - 5) / runLength), lines: 3 };
          return asked;
        },
      });
      expect(report.tiles).toBeGreaterThan(4);
      const copy = report.quicklookCopy!;
      const grid = asked!;
      expect(copy.grid).toEqual(grid);
      const band = product.bands[grid.polarisation]!;
      const height = Math.min(grid.rows * grid.rowStep, product.height - grid.y0, report.region!.y0 + report.region!.height - grid.y0);
      const width = Math.min(grid.runs * grid.runLength, product.width - grid.x0, report.region!.x0 + report.region!.width - grid.x0);
      const { data, valid } = await band.readWindow({ x0: grid.x0, y0: grid.y0, width, height }, { quantity: 'dn', denoise: false });
      const sums = new Float64Array(grid.rows * grid.runs);
      const counts = new Uint32Array(grid.rows * grid.runs);
      for (let r = 0; r < height; r++)
        for (let c = 0; c < width; c++) {
          const i = r * width + c;
          if (!valid[i] || data[i] === 0 || Math.abs((r % grid.rowStep) - 3) > 1) continue;
          const k = Math.floor(r / grid.rowStep) * grid.runs + Math.floor(c / grid.runLength);
          sums[k] += data[i]! * data[i]!;
          counts[k]++;
        }
      expect(Array.from(copy.counts)).toEqual(Array.from(counts));
      let worst = 0;
      for (let k = 0; k < sums.length; k++) worst = Math.max(worst, Math.abs(copy.sumDn2[k]! - sums[k]!) / Math.max(1, sums[k]!));
      expect(worst).toBeLessThan(1e-12);
      expect(counts.filter((n) => n === grid.lines * grid.runLength).length).toBeGreaterThan(0.9 * counts.length);
    } finally {
      await product.close();
    }
  }, 180_000);

  it('gives the strided read’s picture where a block is one pixel, and none for an uploaded image', async () => {
    const scene = { assets: { product: { href: NORTH_SEA_SAFE } } } as never;
    const input = { kind: 'scene' as const, scene };
    expect(quicklookBlocksFor('ship', { kind: 'image', image: 'safe', key: 'k', file: NORTH_SEA_SAFE, extent: null as never, aoi: null as never })).toBeUndefined();
    expect(quicklookBlocksFor('idlefarm', input)).toBeUndefined();
    const product = await openSafeProduct(NORTH_SEA_SAFE);
    try {
      const report = await detectShipsInProduct(product, { threads: 2, quicklookBlocks: quicklookBlocksFor('ship', input)! });
      const copy = report.quicklookCopy!;
      expect(copy.grid).toEqual(quicklookBlockGrid(product, 'VH', report.region!, null));
      expect([copy.grid.rowStep, copy.grid.runLength]).toEqual([1, 1]);
      const strided = await makeQuicklook({ endpointId: 'ship', family: 'analyze', input, result: report.result });
      const pooled = await makeQuicklook({ endpointId: 'ship', family: 'analyze', input, result: report.result, pooled: copy });
      expect(pixels(pooled!.quicklook)).toBe(pixels(strided!.quicklook));
      expect(pixels(pooled!.overlay!.png)).toBe(pixels(strided!.overlay!.png));
      expect(pooled!.overlay!.bounds).toEqual(strided!.overlay!.bounds);
      // The copy is what is drawn: its top half emptied, the overlay's top is transparent.
      const half = { ...copy, counts: copy.counts.slice() };
      half.counts.fill(0, 0, Math.floor(copy.grid.rows / 2) * copy.grid.runs);
      const cut = await makeQuicklook({ endpointId: 'ship', family: 'analyze', input, result: report.result, pooled: half });
      const alpha = (png: Uint8Array) => {
        const d = PNG.sync.read(Buffer.from(png));
        let n = 0;
        for (let i = 3; i < d.data.length; i += 4) if (d.data[i]) n++;
        return n;
      };
      const full = alpha(strided!.overlay!.png);
      expect(alpha(cut!.overlay!.png)).toBeLessThan(0.6 * full);
      expect(alpha(cut!.overlay!.png)).toBeGreaterThan(0.3 * full);
    } finally {
      await product.close();
    }
  }, 180_000);

  it('the ship module returns the copy when the worker asks for it, with the same result as without', async () => {
    const input: ResolvedInput = { kind: 'scene', scene: { assets: { product: { href: NORTH_SEA_SAFE } } } as never };
    const request = { jobId: 'j', endpointId: 'ship' as const, family: 'analyze' as const, input, maxRequestBytes: 1_048_576 };
    const ctx = (extra: Partial<AnalysisContext> = {}): AnalysisContext => ({ reportProgress: () => {}, signal: new AbortController().signal, ...extra });
    const asked = await shipModule.run(request, ctx({ quicklookBlocks: quicklookBlocksFor('ship', input)! }));
    const plain = await shipModule.run(request, ctx());
    expect(plain.quicklookCopy).toBeUndefined();
    expect(asked.quicklookCopy!.grid).toMatchObject({ polarisation: 'VH', rowStep: 1, runLength: 1, lines: 1 });
    expect(asked.quicklookCopy!.counts.filter((n) => n > 0).length).toBeGreaterThan(0.9 * asked.quicklookCopy!.counts.length);
    expect(JSON.stringify(asked.result)).toBe(JSON.stringify(plain.result));
    expect(asked.result!.features.length).toBeGreaterThan(10);
  }, 180_000);
});
