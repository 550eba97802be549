/**
 * product.source: what another thread opens the same product from (the analysis pool's tasks
 * that read their own tiles, src/analysis/engine/products.ts). Real North-Sea GRD crop.
 */
import fs from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openProductSource, openSafeProduct } from '../../src/imagery/index.ts';
import { isSafeProduct } from '../../src/imagery/sigma0/index.ts';
import { NORTH_SEA_SAFE } from './fixtures.ts';

describe('product.source', () => {
  it('a local SAFE carries its opener and arguments as plain data, and opening that gives the same product and pixels', async () => {
    const product = await openSafeProduct(NORTH_SEA_SAFE, { firstOf: ['VH'] });
    try {
      expect(product.source).toMatchObject({ kind: 'safe', path: NORTH_SEA_SAFE, options: { firstOf: ['VH'] } });
      // The XML this thread parsed goes along, so the other thread need not parse it again.
      expect(product.source!.kind === 'safe' && product.source!.parsed!.bands.map((b) => b.polarisation)).toEqual(['VH']);
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

  it('a thread given the parsed XML reads no XML: the product opens from the manifest and the measurement TIFFs alone, with the same LUTs and values', async () => {
    const product = await openSafeProduct(NORTH_SEA_SAFE);
    // The same product without its annotation, calibration and noise XML.
    const bare = fs.mkdtempSync(join(os.tmpdir(), 'bare-'));
    const safe = join(bare, 'S1A_BARE.SAFE');
    try {
      fs.mkdirSync(join(safe, 'measurement'), { recursive: true });
      fs.symlinkSync(join(NORTH_SEA_SAFE, 'manifest.safe'), join(safe, 'manifest.safe'));
      for (const f of fs.readdirSync(join(NORTH_SEA_SAFE, 'measurement'))) fs.symlinkSync(join(NORTH_SEA_SAFE, 'measurement', f), join(safe, 'measurement', f));
      const source = structuredClone(product.source!);
      if (source.kind !== 'safe') throw new Error('expected a SAFE source');
      await expect(openProductSource({ ...source, path: safe, parsed: undefined })).rejects.toThrow(/no band annotations/);
      const again = await openProductSource({ ...source, path: safe });
      try {
        if (!isSafeProduct(again)) throw new Error('expected a SAFE product');
        expect(again.polarisations).toEqual(product.polarisations);
        for (const pol of product.polarisations) {
          const [a, b] = [product.bands[pol]!, again.bands[pol]!];
          expect(b.calibration).toEqual(a.calibration);
          expect(b.noise).toEqual(a.noise);
          const valid = product.validWindow!;
          const window = { x0: valid.x0 + 10, y0: valid.y0 + 20, width: 48, height: 40 };
          const x = await a.readWindow(window, { quantity: 'sigma0', denoise: true });
          const y = await b.readWindow(window, { quantity: 'sigma0', denoise: true });
          expect(y.data).toEqual(x.data);
          expect(y.valid).toEqual(x.valid);
        }
        expect(again.geolocation.pixelToLonLat(100, 200)).toEqual(product.geolocation.pixelToLonLat(100, 200));
      } finally {
        await again.close();
      }
    } finally {
      await product.close();
      fs.rmSync(bare, { recursive: true, force: true });
    }
  });
});
