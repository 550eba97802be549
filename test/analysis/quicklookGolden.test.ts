// The quicklook's pixels pinned (issue 22's share rule made it faster, not different): a ship
// job's quicklook and overlay of the real North-Sea GRD crop decode to the same RGBA as before
// the quicklook was read on the analysis pool and encoded by its own PNG writer (hashes taken
// from main at 41beac8), and the strided read on the pool gives the main thread's values bit for bit.
import { createHash } from 'node:crypto';
import { PNG } from 'pngjs';
import { afterAll, describe, expect, it } from 'vitest';
import { detectShipsInSafe } from '../../src/analysis/ship/index.ts';
import { makeQuicklook } from '../../src/analysis/quicklook/index.ts';
import { sampleSource } from '../../src/analysis/quicklook/sample.ts';
import { sigma0Source } from '../../src/analysis/quicklook/source.ts';
import { closeAnalysisPool } from '../../src/analysis/engine/pool.ts';
import { openSafeProduct } from '../../src/imagery/index.ts';
import { NORTH_SEA_SAFE } from '../imagery/fixtures.ts';

afterAll(() => closeAnalysisPool());

/** Size and SHA-256 of the decoded RGBA: the picture, whatever the PNG's colour type and compression. */
function pixels(png: Uint8Array): string {
  const decoded = PNG.sync.read(Buffer.from(png));
  return `${decoded.width}x${decoded.height} ${createHash('sha256').update(decoded.data).digest('hex')}`;
}

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
      expect(source.pooled?.polarisation).toBe('VH');
      const { pooled: _pooled, ...local } = source;
      const onPool = await sampleSource(source, null);
      const here = await sampleSource(local, null);
      expect(onPool.raster.rows).toBeGreaterThan(100);
      expect({ ...onPool.raster, data: null }).toEqual({ ...here.raster, data: null });
      let differing = 0;
      for (let k = 0; k < here.raster.data.length; k++) if (!Object.is(here.raster.data[k], onPool.raster.data[k])) differing++;
      expect(differing).toBe(0);
    } finally {
      await product.close();
    }
  }, 120_000);
});
