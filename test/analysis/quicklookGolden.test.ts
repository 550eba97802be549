// The quicklook's pixels pinned (issue 22's share rule made it faster, not different): a ship
// job's quicklook and overlay of the real North-Sea GRD crop decode to the same RGBA as before
// the quicklook was read on the analysis pool and encoded by its own PNG writer (hashes taken
// from main at 41beac8), and the strided read on the pool (a SAFE band, an RTC raster) gives the
// main thread's values bit for bit.
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PNG } from 'pngjs';
import { afterAll, describe, expect, it } from 'vitest';
import { detectShipsInSafe } from '../../src/analysis/ship/index.ts';
import { makeQuicklook } from '../../src/analysis/quicklook/index.ts';
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
    expect(pixels(images!.quicklook)).toBe('1178x1190 1ba674368da09e950bfbfd2af8b118a25e716762c8c74b86d408d5ec28319612');
    expect(pixels(images!.overlay!.png)).toBe('1178x1190 b6f625f1157c3b0b7a53c3c4757c64836ff6a4ccfeeb5fd45a79208813e7105f');
    expect(images!.overlay!.bounds).toEqual([2.4686417744811706, 51.37736589822587, 2.6378526569505474, 51.48393695818785]);
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
