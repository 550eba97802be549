// The oil-slick quicklook from the detector's own pooled copy (oilslick/sceneTile.ts: each tile
// sums its core's DN² as its σ0 is read, ReadWindowOptions.onDn; a tile of land throughout
// reads the copy's lines of its core as DN) on the real North-Sea GRD crop (VV): the tiles'
// parts add up to the sums of a full-resolution DN read block for block, land tiles included,
// on the pool and in the calling thread; the detection is the same with and without the copy;
// and where a block is one pixel (this 1000-px crop's quicklook) the picture is the strided
// read's, pixel for pixel — with tiles of land throughout too, and (the demo archive's slick
// scene) for a polygon job, whose blocks start at the window read around the polygon.
import { createHash } from 'node:crypto';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { PNG } from 'pngjs';
import { afterAll, describe, expect, it } from 'vitest';
import { detectInProduct } from '../../src/analysis/oilslick/detect.ts';
import { resolveOilSlickParams } from '../../src/analysis/oilslick/params.ts';
import { makeQuicklook, quicklookBlockGrid } from '../../src/analysis/quicklook/index.ts';
import { closeAnalysisPool } from '../../src/analysis/engine/pool.ts';
import { openSafeProduct, type Sigma0Product } from '../../src/imagery/index.ts';
import type { LandPolygons } from '../../src/geo/landMask.ts';
import { quicklookBlocksFor } from '../../src/worker/quicklook.ts';
import { oilslickModule } from '../../src/analysis/modules/oilslick.ts';
import type { AnalysisContext, BlockGrid, PooledBlocks, ResolvedInput } from '../../src/analysis/port.ts';
import { NORTH_SEA_SAFE } from '../imagery/fixtures.ts';
import { DEMO_CACHE_DIR, DEMO_SLICK_AREA } from '../helpers/demoArchive.ts';
import { parseAoiWkt } from '../../src/geo/index.ts';

afterAll(() => closeAnalysisPool());

const pixels = (png: Uint8Array) => {
  const d = PNG.sync.read(Buffer.from(png));
  return `${d.width}x${d.height} ${createHash('sha256').update(d.data).digest('hex')}`;
};

/**
 * Land over the crop's first `col` columns (and well beyond its other edges): a hand-made
 * LandPolygons of one ring, so tiles there are land throughout and never read for detection.
 */
function westLand(product: Sigma0Product, col: number): LandPolygons {
  // The crop is a 1000-px window of the full image's pixel grid.
  const crop = product.bands['VV']!.validWindow!;
  const at = (line: number, pixel: number) => product.geolocation.pixelToLonLat(crop.y0 + line, crop.x0 + pixel);
  const lines = crop.height - 1;
  const [a, b, c, d] = [at(0, col), at(lines, col), at(lines, 0), at(0, 0)];
  // The edge at `col` as it is; the others pushed out: along the lines by half the crop, across them by the crop's width.
  const along = [b[0] - a[0], b[1] - a[1]];
  const across = [d[0] - a[0], d[1] - a[1]];
  const ring = [
    [a[0] - 0.5 * along[0]!, a[1] - 0.5 * along[1]!],
    [b[0] + 0.5 * along[0]!, b[1] + 0.5 * along[1]!],
    [c[0] + 0.5 * along[0]! + (1000 / col) * across[0]!, c[1] + 0.5 * along[1]! + (1000 / col) * across[1]!],
    [d[0] - 0.5 * along[0]! + (1000 / col) * across[0]!, d[1] - 0.5 * along[1]! + (1000 / col) * across[1]!],
  ];
  const coords = Float64Array.from(ring.flat());
  const xs = ring.map((p) => p[0]!);
  const ys = ring.map((p) => p[1]!);
  const bbox: [number, number, number, number] = [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)];
  return { rings: [{ coords, chunkBoxes: Float64Array.from(bbox), bbox }], source: 'test: west of the crop' };
}

/** DN² sums and counts of a full-resolution DN read on `grid` (its `lines` middle lines of each block), within `region`. */
async function fullReadSums(product: Sigma0Product, grid: BlockGrid, region: { x0: number; y0: number; width: number; height: number }) {
  const band = product.bands[grid.polarisation]!;
  const height = Math.min(grid.rows * grid.rowStep, region.y0 + region.height - grid.y0);
  const width = Math.min(grid.runs * grid.runLength, region.x0 + region.width - grid.x0);
  const { data, valid } = await band.readWindow({ x0: grid.x0, y0: grid.y0, width, height }, { quantity: 'dn', denoise: false });
  const sums = new Float64Array(grid.rows * grid.runs);
  const counts = new Uint32Array(grid.rows * grid.runs);
  const first = (grid.rowStep >> 1) - (grid.lines >> 1);
  for (let r = 0; r < height; r++) {
    const inBlock = r % grid.rowStep;
    if (inBlock < first || inBlock >= first + grid.lines) continue;
    for (let c = 0; c < width; c++) {
      const i = r * width + c;
      if (!valid[i]) continue;
      const k = Math.floor(r / grid.rowStep) * grid.runs + Math.floor(c / grid.runLength);
      sums[k] += data[i]! * data[i]!;
      counts[k]++;
    }
  }
  return { sums, counts };
}

function worstRelative(copy: PooledBlocks, sums: Float64Array): number {
  let worst = 0;
  for (let k = 0; k < sums.length; k++) worst = Math.max(worst, Math.abs(copy.sumDn2[k]! - sums[k]!) / Math.max(1, sums[k]!));
  return worst;
}

describe('the detector’s pooled copy for the oil-slick quicklook (real North-Sea GRD crop, VV)', () => {
  it('sums DN² per block across tiles — land tiles included — exactly as a full-resolution read, on the pool and in this thread', async () => {
    const product = await openSafeProduct(NORTH_SEA_SAFE);
    try {
      const params = resolveOilSlickParams({ tileSize: 256 });
      const land = westLand(product, 650);
      let asked: BlockGrid | null = null;
      let askedWindow: { x0: number; y0: number; width: number; height: number } | null = null;
      // Blocks of 7 × 9 px from an origin off the tile grid, 3 lines each: blocks cut by tile edges get parts from two or four tiles.
      const quicklookBlocks = (_p: Sigma0Product, polarisation: string, region: { x0: number; y0: number; width: number; height: number }): BlockGrid => {
        askedWindow = region;
        asked = { polarisation, y0: region.y0 + 3, x0: region.x0 + 5, rowStep: 7, runLength: 9, rows: Math.ceil((region.height - 3) / 7), runs: Math.ceil((region.width - 5) / 9), lines: 3 };
        return asked;
      };
      const pooled = await detectInProduct(product, params, { workers: 2, land, quicklookBlocks });
      const inThread = await detectInProduct(product, params, { workers: 0, land, quicklookBlocks });
      const plain = await detectInProduct(product, params, { workers: 2, land });
      expect(pooled.tiles).toBe(16);
      expect(pooled.workers).toBe(2);
      expect(pooled.landTiles).toBeGreaterThanOrEqual(2);
      expect(pooled.landTiles).toBeLessThan(pooled.tiles);
      // The grid is asked for the VV band's analysed window before its alignment to the multilook grid.
      expect(askedWindow).toEqual(product.bands['VV']!.validWindow);
      expect(plain.quicklookCopy).toBeUndefined();
      // The copy changes nothing of the detection.
      expect(pooled.collection).toEqual(plain.collection);
      expect(pooled.candidates).toEqual(plain.candidates);
      expect(inThread.candidates).toEqual(plain.candidates);

      const grid = asked!;
      const { sums, counts } = await fullReadSums(product, grid, askedWindow!);
      for (const copy of [pooled.quicklookCopy!, inThread.quicklookCopy!]) {
        expect(copy.grid).toEqual(grid);
        expect(Array.from(copy.counts)).toEqual(Array.from(counts));
        expect(worstRelative(copy, sums)).toBeLessThan(1e-12);
      }
      expect(counts.filter((n) => n === grid.lines * grid.runLength).length).toBeGreaterThan(0.9 * counts.length);
      // Blocks in the land tiles' cores (the crop's first columns) are in the copy: a full row of them.
      expect(Array.from(pooled.quicklookCopy!.counts.subarray(0, 20)).every((n) => n === 27)).toBe(true);
    } finally {
      await product.close();
    }
  }, 300_000);

  it('the oil module returns the copy only when the worker asks for it, with the same result; the picture is the strided read’s', async () => {
    const input: ResolvedInput = { kind: 'scene', scene: { assets: { product: { href: NORTH_SEA_SAFE } } } as never };
    const request = { jobId: 'j', endpointId: 'oilslick' as const, family: 'analyze' as const, input, maxRequestBytes: 1_048_576 };
    const ctx = (extra: Partial<AnalysisContext> = {}): AnalysisContext => ({ reportProgress: () => {}, signal: new AbortController().signal, ...extra });
    expect(quicklookBlocksFor('oilslick', { kind: 'image', image: 'safe', key: 'k', file: NORTH_SEA_SAFE, extent: null as never, aoi: null as never })).toBeUndefined();
    const asked = await oilslickModule.run(request, ctx({ quicklookBlocks: quicklookBlocksFor('oilslick', input)! }));
    const plain = await oilslickModule.run(request, ctx());
    expect(plain.quicklookCopy).toBeUndefined();
    expect(JSON.stringify(asked.result)).toBe(JSON.stringify(plain.result));
    const copy = asked.quicklookCopy!;
    expect(copy.grid).toMatchObject({ polarisation: 'VV', rowStep: 1, runLength: 1, lines: 1 });
    expect(copy.counts.filter((n) => n > 0).length).toBeGreaterThan(0.9 * copy.counts.length);
    const strided = await makeQuicklook({ endpointId: 'oilslick', family: 'analyze', input, result: asked.result });
    const fromCopy = await makeQuicklook({ endpointId: 'oilslick', family: 'analyze', input, result: asked.result, pooled: copy });
    expect(pixels(fromCopy!.quicklook)).toBe(pixels(strided!.quicklook));
    expect(pixels(fromCopy!.overlay!.png)).toBe(pixels(strided!.overlay!.png));
    expect(fromCopy!.overlay!.bounds).toEqual(strided!.overlay!.bounds);
  }, 300_000);

  it('with tiles of land throughout (not read for detection) the picture from the copy is still the strided read’s', async () => {
    const input: ResolvedInput = { kind: 'scene', scene: { assets: { product: { href: NORTH_SEA_SAFE } } } as never };
    const product = await openSafeProduct(NORTH_SEA_SAFE);
    try {
      const report = await detectInProduct(product, resolveOilSlickParams({ tileSize: 256 }), {
        workers: 2,
        land: westLand(product, 650),
        quicklookBlocks: quicklookBlocksFor('oilslick', input)!,
      });
      expect(report.landTiles).toBeGreaterThanOrEqual(2);
      const copy = report.quicklookCopy!;
      expect(copy.grid).toEqual(quicklookBlockGrid(product, 'VV', product.bands['VV']!.validWindow!, null));
      // The land tiles' blocks (the crop's first columns) hold their pixels.
      for (let r = 0; r < copy.grid.rows; r++) expect(Math.min(...copy.counts.subarray(r * copy.grid.runs, r * copy.grid.runs + 200))).toBe(1);
      const strided = await makeQuicklook({ endpointId: 'oilslick', family: 'analyze', input, result: report.collection });
      const fromCopy = await makeQuicklook({ endpointId: 'oilslick', family: 'analyze', input, result: report.collection, pooled: copy });
      expect(pixels(fromCopy!.quicklook)).toBe(pixels(strided!.quicklook));
      expect(pixels(fromCopy!.overlay!.png)).toBe(pixels(strided!.overlay!.png));
      // Without the land tiles' parts the picture would differ: their blocks emptied, the overlay loses their pixels.
      const holed = { ...copy, counts: copy.counts.slice() };
      for (let r = 0; r < copy.grid.rows; r++) holed.counts.fill(0, r * copy.grid.runs, r * copy.grid.runs + 200);
      const cut = await makeQuicklook({ endpointId: 'oilslick', family: 'analyze', input, result: report.collection, pooled: holed });
      expect(pixels(cut!.overlay!.png)).not.toBe(pixels(strided!.overlay!.png));
    } finally {
      await product.close();
    }
  }, 300_000);

  it('on the demo archive’s slick scene, a polygon job: blocks from the analysed window’s origin, the picture is the strided read’s', async () => {
    const grd = path.join(DEMO_CACHE_DIR, 'grd');
    const safe = path.join(grd, readdirSync(grd).find((n) => n.includes('20240613') && n.endsWith('.SAFE'))!);
    const aoi = parseAoiWkt(DEMO_SLICK_AREA);
    const input: ResolvedInput = { kind: 'nearest', scene: { assets: { product: { href: safe } } } as never, aoi, extent: aoi };
    const ctx: AnalysisContext = { reportProgress: () => {}, signal: new AbortController().signal, quicklookBlocks: quicklookBlocksFor('oilslick', input)! };
    const out = await oilslickModule.run({ jobId: 'j', endpointId: 'oilslick', family: 'analyze', input, maxRequestBytes: 1_048_576 }, ctx);
    expect(out.result!.features.length).toBeGreaterThan(0);
    const copy = out.quicklookCopy!;
    // The window read around the polygon (3 km of context), not the scene's origin.
    expect(copy.grid.y0).toBeGreaterThan(0);
    expect(copy.grid.x0).toBeGreaterThan(0);
    const strided = await makeQuicklook({ endpointId: 'oilslick', family: 'analyze', input, result: out.result });
    const fromCopy = await makeQuicklook({ endpointId: 'oilslick', family: 'analyze', input, result: out.result, pooled: copy });
    expect(pixels(fromCopy!.quicklook)).toBe(pixels(strided!.quicklook));
    expect(pixels(fromCopy!.overlay!.png)).toBe(pixels(strided!.overlay!.png));
  }, 300_000);
});
