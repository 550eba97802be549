// Rule: the ship detector's worker-side calibration (src/analysis/ship/calibrate.ts: DN read on
// the main thread, σ0 computed on the tile's worker) gives exactly — bit for bit — the σ0 that
// src/imagery's readWindow(…, { quantity: 'sigma0', denoise: false }) gives. If src/imagery
// changes its calibration, this fails.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { calibrateDnInPlace, prepareTileCalibration } from '../../src/analysis/ship/calibrate.ts';
import { openSafeProduct, SIGMA_FLOOR_LINEAR, type PixelWindow, type SafeBand } from '../../src/imagery/index.ts';
import { writeSafeGrd } from '../../src/synth/index.ts';
import { NORTH_SEA_SAFE } from '../imagery/fixtures.ts';

const dir = mkdtempSync(path.join(os.tmpdir(), 'sarwatch-ship-calibrate-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function compare(band: SafeBand, window: PixelWindow): Promise<{ valid: number; differ: number }> {
  const reference = await band.readWindow(window, { quantity: 'sigma0', denoise: false });
  const dn = await band.readWindow(window, { quantity: 'dn', denoise: false });
  calibrateDnInPlace(dn.data, dn.valid, window.width, window.height, window.y0, prepareTileCalibration(band.calibration.vectors, window, SIGMA_FLOOR_LINEAR));
  let valid = 0;
  let differ = 0;
  for (let i = 0; i < reference.data.length; i++) {
    if (dn.valid[i] !== reference.valid[i] || !Object.is(dn.data[i], reference.data[i])) differ++;
    valid += reference.valid[i]!;
  }
  return { valid, differ };
}

describe('rule: σ0 calibrated on the worker equals src/imagery\'s σ0 bit for bit', () => {
  it('one LUT vector: σ0 = DN² / A² of that vector along the columns, floored; invalid pixels stay 0', () => {
    const width = 5;
    const height = 3;
    const cal = prepareTileCalibration([{ line: 0, pixels: [0, 8], sigmaNought: [400, 480] }], { x0: 2, y0: 0, width, height }, SIGMA_FLOOR_LINEAR);
    expect(cal.rows).toHaveLength(1);
    const a = cal.rows[0]!;
    expect(Array.from(a)).toEqual([420, 430, 440, 450, 460]);
    const dn = Float32Array.from({ length: width * height }, (_, i) => (i % 4 === 3 ? 0.001 : 10 + i));
    const valid = Uint8Array.from({ length: width * height }, (_, i) => (i === 7 ? 0 : 1));
    const data = dn.slice();
    data[7] = 0;
    calibrateDnInPlace(data, valid, width, height, 0, cal);
    for (let i = 0; i < width * height; i++) {
      const ak = a[i % width]!;
      const want = i === 7 ? 0 : Math.fround(Math.max((dn[i]! * dn[i]!) / (ak * ak), SIGMA_FLOOR_LINEAR));
      expect(data[i]).toBe(want);
    }
    // The floor is reached where DN is tiny.
    expect(data[3]).toBe(Math.fround(SIGMA_FLOOR_LINEAR));
  });

  it('real North-Sea crop (S1A, IPF 3.52): windows inside, across the crop edge and across LUT vector lines', async () => {
    const product = await openSafeProduct(NORTH_SEA_SAFE);
    try {
      for (const band of [product.bands.VH!, product.bands.VV!]) {
        const lines = band.calibration.vectors.map((v) => v.line);
        // A window spanning a calibration vector line inside the crop (lines 4000–4999).
        const across = lines.find((l) => l > 4100 && l < 4900)!;
        expect(across).toBeDefined();
        for (const w of [
          { x0: 4100, y0: across - 250, width: 700, height: 500 },
          { x0: 3850, y0: 4800, width: 300, height: 260 }, // partly outside the measurement: invalid there
        ]) {
          const r = await compare(band, w);
          expect(r.valid).toBeGreaterThan(10_000);
          expect(r.differ).toBe(0);
        }
      }
    } finally {
      await product.close();
    }
  });

  it('generated product, its σ0 LUT made to vary along azimuth (vectors every 667 lines, 40 pixels): whole image and an odd window', async () => {
    const written = await writeSafeGrd(dir, {
      seed: 3,
      start: new Date(Date.UTC(2024, 1, 1, 6, 0)),
      center: [2.9, 54.8],
      width: 700,
      height: 1500,
      passDirection: 'ascending',
      wind: { speed: 8, directionDeg: 10 },
      ships: [{ id: 'a', lon: 2.9, lat: 54.8, lengthM: 120, headingDeg: 20 }],
    });
    // Synthetic LUTs depend on range only (as most real ones do): make σ0's vary along azimuth
    // too (+3.7 % per vector, ±1 % across range), so the interpolation between vectors counts.
    const calDir = path.join(written.productPath, 'annotation', 'calibration');
    for (const f of readdirSync(calDir).filter((n) => n.startsWith('calibration-'))) {
      let k = 0;
      const xml = readFileSync(path.join(calDir, f), 'utf8').replace(/<sigmaNought count="(\d+)">([^<]*)<\/sigmaNought>/g, (_, n: string, list: string) => {
        const values = list.trim().split(/\s+/).map((v, i) => (Number(v) * (1 + 0.037 * k + 0.01 * Math.sin(i))).toExponential(6));
        k++;
        return `<sigmaNought count="${n}">${values.join(' ')}</sigmaNought>`;
      });
      expect(k).toBeGreaterThanOrEqual(3);
      writeFileSync(path.join(calDir, f), xml);
    }
    const product = await openSafeProduct(written.productPath);
    try {
      const v = product.bands.VH!.calibration.vectors;
      expect(v[1]!.sigmaNought[0]).not.toBe(v[0]!.sigmaNought[0]);
      for (const w of [
        { x0: 0, y0: 0, width: 700, height: 1500 },
        { x0: 37, y0: 611, width: 411, height: 777 },
      ]) {
        const r = await compare(product.bands.VH!, w);
        expect(r.valid).toBe(w.width * w.height);
        expect(r.differ).toBe(0);
      }
    } finally {
      await product.close();
    }
  });
});
