// ReadWindowOptions.into: a window read into given arrays is the fresh read, bit for bit, in
// those arrays — whatever they held before (the oil pool task reuses one pair per thread).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSafeProduct, type SafeProduct } from '../../src/imagery/index.js';
import { NORTH_SEA_SAFE } from './fixtures.js';

// The crop's measurement starts at full-image (4000, 4000) and is 1000 × 1000.
const INSIDE = { x0: 4100, y0: 4200, width: 300, height: 200 };
// Over the crop's edge: pixels outside it must come back 0 and invalid.
const ACROSS = { x0: 4900, y0: 4950, width: 300, height: 200 };

let product: SafeProduct;
beforeAll(async () => {
  product = await openSafeProduct(NORTH_SEA_SAFE);
});
afterAll(async () => {
  await product?.close();
});

describe('readWindow into given arrays', () => {
  for (const [name, window] of [['inside the measurement', INSIDE], ['across its edge', ACROSS]] as const) {
    for (const options of [{ quantity: 'sigma0' as const, denoise: true }, { quantity: 'dn' as const, denoise: false }]) {
      it(`${options.quantity}, ${name}: the fresh read's values, in the arrays given`, async () => {
        const band = product.bands['VV']!;
        const fresh = await band.readWindow(window, options);
        const n = window.width * window.height;
        // Stale content everywhere: a reused pair holds the previous tile.
        const into = { data: new Float32Array(n).fill(123.5), valid: new Uint8Array(n).fill(1) };
        const read = await band.readWindow(window, { ...options, into });
        expect(read.data).toBe(into.data);
        expect(read.valid).toBe(into.valid);
        expect(Buffer.from(read.data.buffer).equals(Buffer.from(fresh.data.buffer))).toBe(true);
        expect(Buffer.from(read.valid.buffer).equals(Buffer.from(fresh.valid.buffer))).toBe(true);
        expect(fresh.valid.includes(0)).toBe(window === ACROSS);
      });
    }
  }

  it('refuses arrays of another size', async () => {
    const band = product.bands['VV']!;
    const into = { data: new Float32Array(10), valid: new Uint8Array(10) };
    await expect(band.readWindow(INSIDE, { quantity: 'sigma0', denoise: true, into })).rejects.toThrow(RangeError);
  });
});
