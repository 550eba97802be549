// The building-change quicklook from the pair tiles' own copy of the later scene
// (change/quicklookCopy.ts, quicklook/rasterCopy.ts) on a real OPERA RTC pair (Santa Barbara,
// burst T137-292320-IW1, 2023-12-03 → 2023-12-15, VV + VH, 100 × 100 px at 30 m): the tiles'
// partial block sums add up to the sums of one read of the later raster, block for block,
// whatever the tiling and whether the tiles run on the pool or on the calling thread; the
// picture from the copy is the strided read's; the module returns the copy only when asked,
// with the same result either way.
import { createHash } from 'node:crypto';
import { PNG } from 'pngjs';
import { afterAll, describe, expect, it } from 'vitest';
import path from 'node:path';
import { detectChangeInRtcPair } from '../../src/analysis/change/index.ts';
import { makeQuicklook } from '../../src/analysis/quicklook/index.ts';
import { quicklookRasterBlockGrid } from '../../src/analysis/quicklook/rasterCopy.ts';
import { closeAnalysisPool } from '../../src/analysis/engine/pool.ts';
import { newbuildingModule } from '../../src/analysis/modules/change.ts';
import { openRasterProduct } from '../../src/imagery/index.ts';
import { quicklookBlocksFor } from '../../src/worker/quicklook.ts';
import type { AnalysisContext, BlockGrid, PooledValues, ResolvedInput } from '../../src/analysis/port.ts';
import type { Polygon } from '../../src/geo/types.ts';
import { S1_DATA } from '../helpers/samples.ts';

afterAll(() => closeAnalysisPool());

const DIR = path.join(S1_DATA, 'rtc-stack-santabarbara/tests/test_data/cropped/10SGD/137');
const file = (date: string, stamp: string, pol: 'VV' | 'VH') => path.join(DIR, date, `OPERA_L2_RTC-S1_T137-292320-IW1_${stamp}_S1A_30_v1.0_${pol}.tif`);
const PRE = { vv: file('2023-12-03', '20231203T015910Z_20231203T124004Z', 'VV'), vh: file('2023-12-03', '20231203T015910Z_20231203T124004Z', 'VH') };
const POST = { vv: file('2023-12-15', '20231215T015909Z_20231215T143038Z', 'VV'), vh: file('2023-12-15', '20231215T015909Z_20231215T143038Z', 'VH') };

/** A pentagon inside the crop (its corners 8–92 % of the way across): the AOI of every job here. */
async function aoiInside(): Promise<Polygon> {
  const r = await openRasterProduct(POST.vv);
  try {
    const at = (fx: number, fy: number) => r.pixelToLonLat(fy * r.height, fx * r.width);
    const ring = [at(0.1, 0.1), at(0.08, 0.7), at(0.5, 0.92), at(0.92, 0.6), at(0.85, 0.12)].reverse();
    return { type: 'Polygon', coordinates: [[...ring, ring[0]!]] };
  } finally {
    await r.close();
  }
}

const pixels = (png: Uint8Array) => {
  const d = PNG.sync.read(Buffer.from(png));
  return `${d.width}x${d.height} ${createHash('sha256').update(d.data).digest('hex')}`;
};

const scene = (p: { vv: string; vh: string }) => ({ assets: { vv: { href: p.vv }, vh: { href: p.vh } } }) as never;

describe('the pair tiles’ copy for the building-change quicklook (real OPERA RTC pair)', () => {
  it('sums each block of the later VV across tiles as one read of the raster does, on the pool and on this thread', async () => {
    const aoi = await aoiInside();
    let asked: BlockGrid | null = null;
    // Blocks of 3 lines × 4 px from an origin off the tile grid, 2 lines pooled, the last run cut short: blocks cut by tile edges get parts from up to four tiles.
    const blocks = (_r: unknown, polarisation: string, region: { x0: number; y0: number; width: number; height: number }) => {
      asked = { polarisation, y0: region.y0 + 1, x0: region.x0 + 2, rowStep: 3, runLength: 4, rows: Math.ceil((region.height - 1) / 3), runs: Math.ceil((region.width - 2) / 4), lines: 2, width: region.width - 3 };
      return asked;
    };
    const run = (threads: number) =>
      detectChangeInRtcPair(PRE, POST, { aoi, kind: 'newbuilding', maxRequestBytes: 1 << 20, params: { threads, tileSize: 24, regionHalo: 4 }, quicklookBlocks: blocks });
    const pooled = await run(2);
    expect(pooled.stats.tiles).toBeGreaterThan(8);
    const copy = pooled.quicklookCopy!;
    const grid = asked!;
    expect(copy.grid).toEqual(grid);
    const raster = await openRasterProduct(POST.vv);
    let sums: Float64Array;
    let counts: Uint32Array;
    try {
      const width = grid.width!;
      const height = grid.rows * grid.rowStep;
      const { data } = await raster.readWindow({ x0: grid.x0, y0: grid.y0, width, height }, { bands: [0] });
      sums = new Float64Array(grid.rows * grid.runs);
      counts = new Uint32Array(grid.rows * grid.runs);
      for (let r = 0; r < height; r++)
        for (let c = 0; c < width; c++) {
          const v = data[0]![r * width + c]!;
          if (!Number.isFinite(v) || r % grid.rowStep === 2) continue; // lines 0 and 1 of each 3 (centred on line 1)
          const k = Math.floor(r / grid.rowStep) * grid.runs + Math.floor(c / grid.runLength);
          sums[k] += v;
          counts[k]++;
        }
    } finally {
      await raster.close();
    }
    // The region's pixels (and the halo's past its edge) are pooled: whole blocks must match exactly.
    let compared = 0;
    let worst = 0;
    for (let k = 0; k < sums.length; k++) {
      if (copy.counts[k] !== 2 * grid.runLength) continue; // whole blocks inside the tiles' cores
      compared++;
      expect(copy.counts[k]).toBe(counts[k]);
      worst = Math.max(worst, Math.abs(copy.sum[k]! - sums[k]!) / Math.max(1e-30, Math.abs(sums[k]!)));
    }
    expect(compared).toBeGreaterThan(0.7 * sums.length);
    expect(worst).toBeLessThan(1e-12);
    // No block holds more than the raster has there.
    for (let k = 0; k < sums.length; k++) expect(copy.counts[k]).toBeLessThanOrEqual(counts[k]!);
    // The calling thread's tiles (no pool) pool the same, and the detections do not change with the copy.
    const inline = await run(0);
    expect(Array.from(inline.quicklookCopy!.counts)).toEqual(Array.from(copy.counts));
    for (let k = 0; k < sums.length; k++) expect(Math.abs(inline.quicklookCopy!.sum[k]! - copy.sum[k]!)).toBeLessThanOrEqual(1e-12 * Math.abs(copy.sum[k]!));
    const plain = await detectChangeInRtcPair(PRE, POST, { aoi, kind: 'newbuilding', maxRequestBytes: 1 << 20, params: { threads: 2, tileSize: 24, regionHalo: 4 } });
    expect(plain.quicklookCopy).toBeUndefined();
    expect(JSON.stringify(pooled.result)).toBe(JSON.stringify(plain.result));
  }, 120_000);

  it('gives the strided read’s picture, from the worker’s blocks (the later VV), whatever the tiling', async () => {
    const aoi = await aoiInside();
    const input: ResolvedInput = { kind: 'pair', earlier: scene(PRE), later: scene(POST), extent: aoi, aoi };
    const blocks = quicklookBlocksFor('newbuilding', input)!;
    expect(quicklookBlocksFor('newbuilding', { kind: 'image', image: 'safe', key: 'k', file: 'x', extent: null as never, aoi: null as never })).toBeUndefined();
    const strided = await makeQuicklook({ endpointId: 'newbuilding', family: 'analyze', input, result: { type: 'FeatureCollection', features: [] } });
    for (const tileSize of [24, 1024]) {
      const out = await detectChangeInRtcPair(PRE, POST, { aoi, kind: 'newbuilding', maxRequestBytes: 1 << 20, params: { threads: 2, tileSize, regionHalo: 4 }, quicklookBlocks: blocks });
      const copy = out.quicklookCopy!;
      const raster = await openRasterProduct(POST.vv);
      try {
        expect(copy.grid).toEqual(quicklookRasterBlockGrid(raster, 'VV', aoi));
      } finally {
        await raster.close();
      }
      expect(copy.grid.polarisation).toBe('VV');
      const result = out.result as never;
      const fromCopy = await makeQuicklook({ endpointId: 'newbuilding', family: 'analyze', input, result, pooled: copy });
      const again = await makeQuicklook({ endpointId: 'newbuilding', family: 'analyze', input, result });
      expect(pixels(fromCopy!.overlay!.png)).toBe(pixels(strided!.overlay!.png));
      expect(pixels(fromCopy!.quicklook)).toBe(pixels(again!.quicklook));
      expect(fromCopy!.overlay!.bounds).toEqual(strided!.overlay!.bounds);
      // The copy is what is drawn: its blocks emptied, the overlay is transparent throughout.
      const empty: PooledValues = { ...copy, counts: new Uint32Array(copy.counts.length) };
      const none = PNG.sync.read(Buffer.from((await makeQuicklook({ endpointId: 'newbuilding', family: 'analyze', input, result, pooled: empty }))!.overlay!.png));
      let opaque = 0;
      for (let i = 3; i < none.data.length; i += 4) opaque += none.data[i] ? 1 : 0;
      expect(opaque).toBe(0);
    }
  }, 120_000);

  it('the newbuilding module returns the copy when the worker asks, with the same result as without', async () => {
    const aoi = await aoiInside();
    const input: ResolvedInput = { kind: 'pair', earlier: scene(PRE), later: scene(POST), extent: aoi, aoi };
    const request = (family: 'analyze') => ({ jobId: 'j', endpointId: 'newbuilding' as const, family, input, maxRequestBytes: 1_048_576 });
    const ctx = (extra: Partial<AnalysisContext> = {}): AnalysisContext => ({ reportProgress: () => {}, signal: new AbortController().signal, ...extra });
    const asked = await newbuildingModule.run(request('analyze'), ctx({ quicklookBlocks: quicklookBlocksFor('newbuilding', input)! }));
    const plain = await newbuildingModule.run(request('analyze'), ctx());
    expect(plain.quicklookCopy).toBeUndefined();
    const copy = asked.quicklookCopy as PooledValues;
    expect(copy.grid).toMatchObject({ polarisation: 'VV', rowStep: 1, runLength: 1, lines: 1 });
    // Most blocks of the AOI's bounding window hold a value (a pentagon fills ~3/4 of its box).
    expect(copy.counts.filter((n) => n > 0).length).toBeGreaterThan(0.5 * copy.counts.length);
    expect(Math.max(...copy.counts)).toBe(1);
    expect(JSON.stringify(asked.result)).toBe(JSON.stringify(plain.result));
    expect(asked.measured).toEqual(plain.measured);
  }, 120_000);
});
