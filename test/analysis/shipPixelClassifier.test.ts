import { describe, expect, it } from 'vitest';
import { detectShipsInTile, type ShipTileInput } from '../../src/analysis/ship/detect.ts';
import { resolveShipParams } from '../../src/analysis/ship/params.ts';
import { PIXEL_FEATURES, featuresAt, pixelFeatureField, pixelModel, pixelObjects } from '../../src/analysis/ship/pixelClassifier.ts';
import { gammaClutter } from './synthSea.ts';

const W = 400;
const H = 400;

function tile(values: Float32Array): ShipTileInput {
  return { sigma0: { vv: values }, valid: new Uint8Array(W * H).fill(1), width: W, height: H, pixelSpacing: { range: 3, azimuth: 3 }, core: { x0: 0, y0: 0, width: W, height: H } };
}

function paint(a: Float32Array, w: number, r0: number, c0: number, h: number, cw: number, level: number): void {
  for (let r = r0; r < r0 + h; r++) for (let c = c0; c < c0 + cw; c++) a[r * w + c] = level;
}

describe('ship per-pixel classifier (issue 23 §1)', () => {
  it('computes features relative to the sea level: flat sea is 0 dB, a bright block stands out at its scale', () => {
    const w = 128;
    const h = 128;
    const values = new Float32Array(w * h).fill(0.01);
    paint(values, w, 60, 60, 7, 7, 1); // 7 × 7 px at +20 dB
    const field = pixelFeatureField(values, new Uint8Array(w * h).fill(1), w, h);
    const f = (r: number, c: number) => Object.fromEntries(PIXEL_FEATURES.map((k, i) => [k, featuresAt(field, r * w + c)[i]!]));
    const sea = f(10, 10);
    expect(sea.pixelDb).toBeCloseTo(0, 5);
    expect(sea.mean31Db).toBeCloseTo(0, 5);
    // √(⟨x²⟩ − ⟨x⟩²) of float32 box means: 0 up to float32 rounding.
    expect(sea.cv7).toBeLessThan(1e-3);
    expect(sea.bright31).toBe(0);
    const centre = f(63, 63);
    expect(centre.pixelDb).toBeCloseTo(20, 4);
    expect(centre.mean3Db).toBeCloseTo(20, 4);
    expect(centre.mean7Db).toBeCloseTo(20, 4);
    // 49 bright pixels in the 15 × 15 window: mean = (49 · 1 + 176 · 0.01) / 225.
    expect(centre.mean15Db).toBeCloseTo(10 * Math.log10((49 + 176 * 0.01) / 225 / 0.01), 4);
    expect(centre.max7Db).toBeCloseTo(20, 4);
    expect(centre.bright31).toBeCloseTo(49 / 961, 6);
    expect(field.gate[63 * w + 63]).toBeCloseTo(100, 3);
    // Not a target pixel: no features.
    const field2 = pixelFeatureField(values, Uint8Array.from({ length: w * h }, (_, i) => (i === 5 ? 0 : 1)), w, h);
    expect(Number.isNaN(featuresAt(field2, 5)[0]!)).toBe(true);
  });

  it('makes objects of the components ≥ low that hold a pixel ≥ high and are large enough', () => {
    const w = 20;
    const h = 10;
    const p = new Float32Array(w * h);
    paint(p, w, 1, 1, 3, 3, 0.5); // 9 px, one at 0.9: an object
    p[2 * w + 2] = 0.9;
    paint(p, w, 1, 10, 3, 3, 0.5); // 9 px, none ≥ high: not one
    paint(p, w, 6, 1, 1, 2, 0.9); // 2 px: too small
    const objs = pixelObjects(p, w, h, { low: 0.4, high: 0.8, minPixels: 3 });
    expect(objs).toHaveLength(1);
    expect(objs[0]!.pixels.length).toBe(9);
    expect(objs[0]!.score).toBeCloseTo(0.9, 6);
    // Probability-weighted centroid: the 0.9 pixel is the centre already.
    expect(objs[0]!.centroidRow).toBeCloseTo(2, 9);
    expect(objs[0]!.centroidCol).toBeCloseTo(2, 9);
  });

  it('the committed model matches the features; the mode is opt-in', () => {
    const m = pixelModel();
    expect(m.model.featureNames).toEqual([...PIXEL_FEATURES]);
    expect(m.low).toBeLessThanOrEqual(m.high);
    expect(m.model.trees.length).toBeGreaterThan(10);
    expect(resolveShipParams().classifier.candidates).toBe('threshold');
    expect(() => resolveShipParams({ classifier: { candidates: 'x' as 'pixel' } })).toThrow(/candidates/);
  });

  it('finds a compact vessel on speckled sea and not a long bright quay-like strip', () => {
    const values = gammaClutter(W, H, { looks: 3, seed: 7, mean: 0.01 });
    paint(values, W, 100, 100, 8, 30, 1); // a 90 m × 24 m vessel at 3 m, +20 dB
    paint(values, W, 300, 0, 8, 400, 0.3); // a bright strip across the tile
    const dets = detectShipsInTile(tile(values), { classifier: { enabled: true, candidates: 'pixel' } });
    const vessel = dets.filter((d) => Math.abs(d.centroidRow - 103.5) < 3 && Math.abs(d.centroidCol - 114.5) < 3);
    expect(vessel).toHaveLength(1);
    expect(vessel[0]!.candidate!.probability).toBeGreaterThanOrEqual(pixelModel().high);
    expect(dets.filter((d) => d.centroidRow > 280 && d.centroidRow < 320)).toHaveLength(0);
  });
});
