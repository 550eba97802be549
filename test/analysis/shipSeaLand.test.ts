import { describe, expect, it } from 'vitest';
import { CELL_M, LAND_DISTANCE_CAP_M, SEA_LAND_FEATURES, candidateLandFeatures, cellGrid, landAt, landMaskOfField, sceneLandMask, seaLandFeatures, seaLandField, seaLandModel, withLandDistance, type SeaLandField } from '../../src/analysis/ship/seaLand.ts';
import { gammaClutter } from './synthSea.ts';

describe('ship sea/land segmenter (issue 23 §1)', () => {
  it('cuts the image into cells of CELL_M metres whatever the pixel size', () => {
    expect(cellGrid(300, 200, { range: 3, azimuth: 3 })).toEqual({ cellRows: 7, cellCols: 7, rows: 29, cols: 43 });
    expect(cellGrid(300, 200, { range: 10, azimuth: 10 })).toEqual({ cellRows: 2, cellCols: 2, rows: 100, cols: 150 });
    // Anisotropic pixels: the cell stays ~CELL_M on the ground along each axis.
    const g = cellGrid(100, 100, { range: 2.5, azimuth: 14 });
    expect(g.cellCols * 2.5).toBeCloseTo(CELL_M, 0);
    expect(g.cellRows).toBe(1);
  });

  it('computes cell levels over the tile dark level and box shares of bright and dark cells', () => {
    const W = 210;
    const H = 140;
    const values = gammaClutter(W, H, { looks: 4, seed: 3, mean: 0.01 });
    // Right third: uniform bright "land" 20 dB over the sea.
    for (let r = 0; r < H; r++) for (let c = 140; c < W; c++) values[r * W + c] = 1;
    const f = seaLandFeatures(values, new Uint8Array(W * H).fill(1), W, H, { range: 3, azimuth: 3 });
    const m = f.rows * f.cols;
    const plane = (name: (typeof SEA_LAND_FEATURES)[number]) => f.planes.subarray(SEA_LAND_FEATURES.indexOf(name) * m, (SEA_LAND_FEATURES.indexOf(name) + 1) * m);
    const sea = 10 * f.cols + 2; // cell row 10, col 2 (pixels 70–76, 14–20): sea, far from land
    const land = 10 * f.cols + 27; // cell col 27: pixels 189–195, land
    expect(plane('cellDb')[land]! - plane('cellDb')[sea]!).toBeGreaterThan(18);
    expect(plane('cellCv')[land]).toBeCloseTo(0, 6);
    expect(plane('cellCv')[sea]).toBeGreaterThan(0.15); // 4-look speckle over 49 px: CV ≈ 0.5 / 7
    expect(plane('bright140')[land]).toBe(1);
    expect(plane('bright140')[sea]).toBe(0);
    expect(plane('dark140')[sea]).toBe(1);
    expect(plane('dark140')[land]).toBe(0);
  });

  it('reads land features of a candidate from the cells of its grown box', () => {
    const field: SeaLandField = { cellRows: 2, cellCols: 2, rows: 3, cols: 3, valid: new Uint8Array(9).fill(1), land: Float32Array.from([0, 0, 0.9, 0, 0.2, 0.9, 0, 0, Number.NaN]) };
    expect(landAt(field, 3, 3)).toBeCloseTo(0.2, 6);
    // Box rows 2–3, cols 2–3 (cell 1,1) grown by 2 px: cells 0–2 × 0–2, the NaN cell left out.
    const [peak, mean, max] = candidateLandFeatures(field, 2, 2, { rowMin: 2, rowMax: 3, colMin: 2, colMax: 3 }, 2);
    expect(peak).toBeCloseTo(0.2, 6);
    expect(mean).toBeCloseTo(2 / 8, 6);
    expect(max).toBeCloseTo(0.9, 6);
    // No distances computed: the fourth feature is missing, not guessed.
    expect(Number.isNaN(candidateLandFeatures(field, 2, 2, { rowMin: 2, rowMax: 3, colMin: 2, colMax: 3 }, 2)[3])).toBe(true);
  });

  it('measures each cell\'s distance to the nearest land cell in metres, capped', () => {
    // 1 × 6 cells of 2 × 2 px at 5 m (10 m cells); land (≥ 0.5) in the first cell only.
    const field: SeaLandField = { cellRows: 2, cellCols: 2, rows: 1, cols: 6, valid: new Uint8Array(6).fill(1), land: Float32Array.from([0.9, 0.1, 0.2, 0.49, 0, Number.NaN]) };
    const d = withLandDistance(field, { range: 5, azimuth: 5 }, 0.5).distanceM!;
    expect(Array.from(d)).toEqual([0, 10, 20, 30, 40, 50]);
    expect(candidateLandFeatures(withLandDistance(field, { range: 5, azimuth: 5 }, 0.5), 1, 7, { rowMin: 0, rowMax: 1, colMin: 6, colMax: 7 }, 0)[3]).toBe(30);
    // Diagonal steps cost the cell diagonal; no land at all: the cap everywhere.
    const square: SeaLandField = { cellRows: 1, cellCols: 1, rows: 3, cols: 3, valid: new Uint8Array(9).fill(1), land: Float32Array.from([1, 0, 0, 0, 0, 0, 0, 0, 0]) };
    expect(withLandDistance(square, { range: 20, azimuth: 20 }, 0.5).distanceM![8]).toBeCloseTo(2 * Math.hypot(20, 20), 4);
    const sea: SeaLandField = { ...square, land: new Float32Array(9) };
    expect(Array.from(withLandDistance(sea, { range: 20, azimuth: 20 }, 0.5).distanceM!).every((v) => v === LAND_DISTANCE_CAP_M)).toBe(true);
    // The same cells as a pixel mask, or-ed with a given one.
    const given = new Uint8Array(2 * 12);
    given[11] = 1;
    const mask = landMaskOfField(field, 12, 2, 0.5, given);
    expect(Array.from(mask.subarray(0, 12))).toEqual([1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]);
    expect(Array.from(mask.subarray(12))).toEqual([1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
  });

  it('the committed model calls bright textured land land and speckled sea with a moored vessel sea', () => {
    const W = 300;
    const H = 300;
    const values = gammaClutter(W, H, { looks: 4, seed: 11, mean: 0.01 });
    // Left half: land, 15–25 dB over the sea with strong texture (buildings, quays).
    const land = gammaClutter(W, H, { looks: 1, seed: 12, mean: 0.5, textureShape: 0.5 });
    for (let r = 0; r < H; r++) for (let c = 0; c < 150; c++) values[r * W + c] = land[r * W + c]!;
    // A 90 m × 24 m vessel on the sea side, 150 m from the shore.
    for (let r = 140; r < 148; r++) for (let c = 200; c < 230; c++) values[r * W + c] = 1;
    const f = seaLandField(values, new Uint8Array(W * H).fill(1), W, H, { range: 3, azimuth: 3 });
    const t = seaLandModel().threshold;
    expect(t).toBeGreaterThan(0);
    expect(t).toBeLessThan(1);
    expect(landAt(f, 60, 40)).toBeGreaterThanOrEqual(t);
    expect(landAt(f, 250, 40)).toBeGreaterThanOrEqual(t);
    expect(landAt(f, 60, 260)).toBeLessThan(t);
    expect(landAt(f, 143, 214)).toBeLessThan(t);
    // As a land mask: the land side's pixels, not the vessel's; an existing mask is kept.
    const given = new Uint8Array(W * H);
    given[299 * W + 299] = 1;
    const mask = sceneLandMask(values, new Uint8Array(W * H).fill(1), W, H, { range: 3, azimuth: 3 }, given);
    expect(mask[60 * W + 40]).toBe(1);
    expect(mask[143 * W + 214]).toBe(0);
    expect(mask[60 * W + 260]).toBe(0);
    expect(mask[299 * W + 299]).toBe(1);
    expect(given.reduce((a, b) => a + b, 0)).toBe(1); // not written into
  });
});
