// The quicklook's pixels pinned (issue 22's share rule): a ship job's quicklook and overlay of
// the real North-Sea GRD crop decode to the pinned RGBA, and the strided read on the pool (a
// SAFE band, an RTC raster) gives the main thread's values bit for bit. Re-pinned once, when
// both pictures became indexed PNGs (render.ts GREY_LEVELS: 252 greys in the palette instead
// of 256): measured against main's render (756bc2a) on this crop and on the bench's full scene,
// every grey within one level of 255 of before, alpha, the stretch and the drawn pixels the same.
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PNG } from 'pngjs';
import { afterAll, describe, expect, it } from 'vitest';
import { detectShipsInSafe } from '../../src/analysis/ship/index.ts';
import { makeQuicklook } from '../../src/analysis/quicklook/index.ts';
import { GREY_LEVELS } from '../../src/analysis/quicklook/render.ts';
import { sampleSource } from '../../src/analysis/quicklook/sample.ts';
import { rasterSource, sigma0Source, type QuicklookSource } from '../../src/analysis/quicklook/source.ts';
import { closeAnalysisPool } from '../../src/analysis/engine/pool.ts';
import { openRasterProduct, openSafeProduct } from '../../src/imagery/index.ts';
import { writeRtcStack } from '../../src/synth/index.ts';
import type { AoiGeometry } from '../../src/geo/types.ts';
import { NORTH_SEA_SAFE } from '../imagery/fixtures.ts';

afterAll(() => closeAnalysisPool());

/** Size and SHA-256 of the decoded RGBA: the picture, whatever the PNG's colour type and compression. */
function pixels(png: Uint8Array): string {
  const decoded = PNG.sync.read(Buffer.from(png));
  return `${decoded.width}x${decoded.height} ${createHash('sha256').update(decoded.data).digest('hex')}`;
}

async function samePooledAndLocal(source: QuicklookSource, extent: AoiGeometry | null): Promise<number> {
  const { pooled: _pooled, ...local } = source;
  const onPool = await sampleSource(source, extent);
  const here = await sampleSource(local, extent);
  expect({ ...onPool.raster, data: null }).toEqual({ ...here.raster, data: null });
  let differing = 0;
  for (let k = 0; k < here.raster.data.length; k++) if (!Object.is(here.raster.data[k], onPool.raster.data[k])) differing++;
  expect(differing).toBe(0);
  return here.raster.rows;
}

describe('an RTC raster (a building-change job\'s later scene)', () => {
  it('is read on the analysis pool from its file, value for value as on the main thread', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'sarwatch-quicklook-golden-'));
    try {
      const stack = await writeRtcStack(path.join(dir, 'city'), { scene: 'city', seed: 11, center: [5.6, 52.4], start: '2023-02-01', count: 2, track: 88, compression: 'none', width: 300 });
      const raster = await openRasterProduct(stack.files[0]!);
      try {
        const source = rasterSource(raster, 0, stack.files[0]!);
        expect(source.pooled).toEqual({ kind: 'raster', path: stack.files[0]!, band: 0 });
        expect(await samePooledAndLocal(source, null)).toBeGreaterThan(100);
      } finally {
        await raster.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);
});

describe('ship quicklook of the real North-Sea GRD crop', () => {
  it('decodes to the pinned pixels, quicklook and overlay, with the same bounds', async () => {
    const result = await detectShipsInSafe(NORTH_SEA_SAFE, {});
    const images = await makeQuicklook({ endpointId: 'ship', family: 'analyze', input: { kind: 'scene', scene: { assets: { product: { href: NORTH_SEA_SAFE } } } as never }, result });
    expect(pixels(images!.quicklook)).toBe('1178x1190 2fdebc0b3d58478db9fc33791ab81bccb81ff51f0909d363fc8eec40135af63a');
    expect(pixels(images!.overlay!.png)).toBe('1178x1190 7fd33588463e6dca23d3aa52b100503e595737ae23cb8e63b0bb1cb6a09e2aef');
    expect(images!.overlay!.bounds).toEqual([2.4686417744811706, 51.37736589822587, 2.6378526569505474, 51.48393695818785]);
    // Indexed PNGs (colour type 3), whose greys are the palette's 252 levels spread over 0 … 255.
    const levels = new Set(Array.from({ length: GREY_LEVELS }, (_, q) => Math.round((q * 255) / (GREY_LEVELS - 1))));
    for (const png of [images!.quicklook, images!.overlay!.png]) {
      expect(png[25]).toBe(3);
      const { data } = PNG.sync.read(Buffer.from(png));
      const greys = new Set<number>();
      for (let i = 0; i < data.length; i += 4) if (data[i + 3] && data[i] === data[i + 1] && data[i] === data[i + 2]) greys.add(data[i]!);
      expect([...greys].filter((g) => !levels.has(g))).toEqual([]);
      expect(greys.size).toBeGreaterThan(240);
    }
  }, 120_000);

  it('the strided read on the analysis pool equals the main thread’s, value for value', async () => {
    const product = await openSafeProduct(NORTH_SEA_SAFE, { firstOf: ['VH'] });
    try {
      const source = sigma0Source(product, 'VH');
      expect(source.pooled).toMatchObject({ kind: 'sigma0', polarisation: 'VH' });
      expect(await samePooledAndLocal(source, null)).toBeGreaterThan(100);
    } finally {
      await product.close();
    }
  }, 120_000);
});
