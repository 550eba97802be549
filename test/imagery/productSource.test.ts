/**
 * product.source: what another thread opens the same product from (the analysis pool's tasks
 * that read their own tiles, src/analysis/engine/products.ts). Real North-Sea GRD crop.
 */
import { describe, expect, it } from 'vitest';
import { openProductSource, openSafeProduct } from '../../src/imagery/index.ts';
import { NORTH_SEA_SAFE } from './fixtures.ts';

describe('product.source', () => {
  it('a local SAFE carries its opener and arguments as plain data, and opening that gives the same product and pixels', async () => {
    const product = await openSafeProduct(NORTH_SEA_SAFE, { firstOf: ['VH'] });
    try {
      expect(product.source).toEqual({ kind: 'safe', path: NORTH_SEA_SAFE, options: { firstOf: ['VH'] } });
      // Structured-cloneable: it is sent to a worker thread.
      const again = await openProductSource(structuredClone(product.source!));
      try {
        expect({ id: again.productId, width: again.width, height: again.height, pols: again.polarisations }).toEqual({
          id: product.productId,
          width: product.width,
          height: product.height,
          pols: ['VH'],
        });
        const valid = product.validWindow!;
        const window = { x0: valid.x0 + (valid.width >> 1), y0: valid.y0 + (valid.height >> 1), width: 64, height: 32 };
        const a = await product.bands.VH!.readWindow(window, { quantity: 'dn', denoise: false });
        const b = await again.bands.VH!.readWindow(window, { quantity: 'dn', denoise: false });
        expect(b.data).toEqual(a.data);
        expect(a.valid.some((v) => v === 1)).toBe(true);
      } finally {
        await again.close();
      }
    } finally {
      await product.close();
    }
  });
});
