// CalibratedRunSampler (src/imagery/safe/overview.ts), the quicklooks' strided read: run means
// of σ0 from one decoded line, calibrated (and denoised) once per run, against the mean of the
// per-pixel σ0 that readWindow calibrates, on the real North-Sea GRD crop (both polarisations).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CalibratedRunSampler, SIGMA_FLOOR_LINEAR, openSafeProduct, type SafeProduct } from '../../src/imagery/index.ts';
import { NORTH_SEA_SAFE } from './fixtures.js';

let product: SafeProduct;
beforeAll(async () => {
  product = await openSafeProduct(NORTH_SEA_SAFE);
});
afterAll(() => product?.close());

describe('CalibratedRunSampler on the North-Sea crop', () => {
  it.each([
    ['VV', false],
    ['VH', false],
    ['VV', true],
    ['VH', true],
  ] as const)('%s, noise removed %s: run means of σ0 within 0.5 % of the per-pixel mean (runs of 1, 7 and 16 px), NaN only where a run has no data', async (pol, denoise) => {
    const band = product.bands[pol]!;
    const w = band.validWindow!;
    // A window wider than the crop: runs past its edge have no valid pixel.
    const x0 = w.x0 - 20;
    const width = w.width + 40;
    for (const runLength of [1, 7, 16]) {
      const sampler = new CalibratedRunSampler(band, x0, width, runLength, { denoise });
      expect(sampler.runs).toBe(Math.ceil(width / runLength));
      let compared = 0;
      let checked = 0;
      for (const line of [w.y0, w.y0 + 333, w.y0 + w.height - 1]) {
        const means = await sampler.line(line);
        const exact = await band.readWindow({ x0, y0: line, width, height: 1 }, { quantity: 'sigma0', denoise });
        for (let r = 0; r < sampler.runs; r++) {
          let sum = 0;
          let n = 0;
          let floored = false;
          for (let x = r * runLength; x < Math.min(width, (r + 1) * runLength); x++) {
            if (!exact.valid[x]) continue;
            sum += exact.data[x]!;
            floored ||= exact.data[x]! <= SIGMA_FLOOR_LINEAR;
            n++;
          }
          if (n === 0) {
            expect(means[r]).toBeNaN();
            continue;
          }
          // The per-pixel path floors each pixel, the run its mean: where a pixel was raised to the
          // floor, the run's mean is lower than the per-pixel mean (or the floor itself).
          checked++;
          if (floored && runLength > 1) {
            expect(means[r]!).toBeGreaterThanOrEqual(Math.fround(SIGMA_FLOOR_LINEAR));
            expect(means[r]!).toBeLessThanOrEqual((sum / n) * (1 + 5e-3));
            continue;
          }
          expect(Math.abs(means[r]! - sum / n) / (sum / n)).toBeLessThan(runLength === 1 ? 1e-6 : 5e-3);
          compared++;
        }
      }
      expect(checked).toBeGreaterThan(2 * (w.width / runLength));
      // Noise removal floors many of this sea's pixels (both polarisations are near the noise there): fewer runs compare exactly.
      expect(compared).toBeGreaterThan(denoise ? 0 : 2 * (w.width / runLength));
    }
  });
});

describe('openSafeProduct({ firstOf }): one band for a picture', () => {
  it('opens only the first listed polarisation the product has, and refuses a product with none of them', async () => {
    const vh = await openSafeProduct(NORTH_SEA_SAFE, { firstOf: ['VH', 'VV'] });
    expect(vh.polarisations).toEqual(['VH']);
    expect(vh.validWindow).toEqual(product.validWindow);
    await vh.close();
    const vv = await openSafeProduct(NORTH_SEA_SAFE, { firstOf: ['HH', 'VV'] });
    expect(vv.polarisations).toEqual(['VV']);
    await vv.close();
    await expect(openSafeProduct(NORTH_SEA_SAFE, { firstOf: ['HH', 'HV'] })).rejects.toMatchObject({ code: 'MEASUREMENT_UNAVAILABLE' });
  });
});
