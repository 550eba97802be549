import { describe, expect, it } from 'vitest';
import { AXIS_FEATURES_AT, AXIS_FEATURE_COUNT, CANDIDATE_FEATURES, PART_TEXTURE_AT, PART_TEXTURE_COUNT, axisFeatures, candidateFeatures } from '../../src/analysis/ship/classifier.ts';
import type { Cluster } from '../../src/analysis/ship/cluster.ts';
import type { SeaLandField } from '../../src/analysis/ship/seaLand.ts';

const W = 120;
const H = 120;
const SEA = 0.01;
const spacing = { range: 3, azimuth: 3 };
const named = (f: number[]) => Object.fromEntries(CANDIDATE_FEATURES.slice(AXIS_FEATURES_AT).map((k, i) => [k, f[i]!]));

/** A raster of sea with a bright rectangle (rows r0…r1, cols c0…c1) of σ0 `level`. */
function raster(rects: Array<[number, number, number, number, number]>): Float32Array {
  const a = new Float32Array(W * H).fill(SEA);
  for (const [r0, r1, c0, c1, level] of rects) for (let r = r0; r <= r1; r++) for (let c = c0; c <= c1; c++) a[r * W + c] = level;
  return a;
}

describe('ship candidate axis features (issue 23 §1: a quay piece against a hull)', () => {
  // The candidate: rows 58–62, cols 40–79 (40 × 5 px: 120 m along the columns, axis 90°; its width taken as 12 m).
  const hull: [number, number, number, number, number] = [58, 62, 40, 79, 1];
  const args = [60, 59.5, 90, 120, 12, spacing, SEA, 1] as const;

  it('a hull on open water: nothing continues beyond its ends, dark water on both sides', () => {
    const f = named(axisFeatures(raster([hull]), W, H, ...args, null));
    expect(f.endMaxDb).toBeCloseTo(0, 6); // the strips hold sea only: 0 dB over the background
    expect(f.endMinDb).toBeCloseTo(0, 6);
    expect(f.endBrightMax).toBe(0);
    expect(f.sideMaxDb).toBeCloseTo(0, 6);
    expect(f.sideMinDb).toBeCloseTo(0, 6);
    expect(f.crossMaxDb).toBeCloseTo(0, 6);
    expect(f.crossBrightMax).toBe(0);
    // No land field: the land probabilities are missing, not guessed.
    expect([f.landEndMax, f.landEndMin, f.landSideMax, f.landSideMin].every(Number.isNaN)).toBe(true);
  });

  it('a piece of a pier: the bright line leaves the box at one end, the other end and the sides stay dark', () => {
    // The same bright line continuing to the right edge of the raster (cols 80–119).
    const f = named(axisFeatures(raster([hull, [58, 62, 80, 119, 1]]), W, H, ...args, null));
    expect(f.endMaxDb).toBeCloseTo(20, 6); // the right strip lies wholly on the pier
    expect(f.endBrightMax).toBe(1);
    expect(f.endMinDb).toBeCloseTo(0, 6);
    expect(f.endBrightMin).toBe(0);
    expect(f.sideMaxDb).toBeCloseTo(0, 6);
  });

  it('a square chunk of a wide pier whose axis lies across it: dark beyond its ends, the pier across them', () => {
    // A pier 123 m wide (rows 40–80) along the columns; the chunk: rows 40–80, cols 50–61, its axis along the rows (0°).
    const f = named(axisFeatures(raster([[40, 80, 0, 119, 1]]), W, H, 60, 55.5, 0, 120, 36, spacing, SEA, 1, null));
    expect(f.endMaxDb).toBeCloseTo(0, 6); // looks like a hull on water along its axis…
    expect(f.crossMaxDb).toBeCloseTo(20, 6); // …but the bright structure continues across it
    expect(f.crossBrightMax).toBe(1);
  });

  it('a hull moored along a quay: one side bright, the other dark water', () => {
    // A quay of σ0 0.1 (+10 dB) along the hull's lower side (rows 63–80).
    const f = named(axisFeatures(raster([hull, [63, 80, 0, 119, 0.1]]), W, H, ...args, null));
    expect(f.sideMaxDb).toBeCloseTo(10, 6);
    expect(f.sideMinDb).toBeCloseTo(0, 6);
    expect(f.endBrightMax).toBe(0);
  });

  it('reads the land field at the far middle of each strip', () => {
    // Cells of 10 × 10 px; land probability 0.9 on the cells of columns ≥ 100, 0.1 elsewhere.
    const cells = { cellRows: 10, cellCols: 10, rows: 12, cols: 12, valid: new Uint8Array(144).fill(1) };
    const land = new Float32Array(144);
    for (let k = 0; k < 144; k++) land[k] = k % 12 >= 10 ? 0.9 : 0.1;
    const field: SeaLandField = { ...cells, land };
    const f = named(axisFeatures(raster([hull]), W, H, ...args, field));
    // The end strips reach 20 px (half the length) beyond the ends: col 99.5 (rounded to 100, cell 10) and 19.5 (cell 2).
    expect(f.landEndMax).toBeCloseTo(0.9, 6);
    expect(f.landEndMin).toBeCloseTo(0.1, 6);
    expect(f.landSideMax).toBeCloseTo(0.1, 6);
    expect(f.landSideMin).toBeCloseTo(0.1, 6);
  });

  it('follow the first seventeen features of candidateFeatures (the part texture last), computed from the candidate itself', () => {
    const values = raster([hull, [58, 62, 80, 119, 1]]);
    const pixels: number[] = [];
    const mask = new Uint8Array(W * H);
    for (let r = 58; r <= 62; r++)
      for (let c = 40; c <= 79; c++) {
        pixels.push(r * W + c);
        mask[r * W + c] = 2;
      }
    const cluster: Cluster = { pixels: Int32Array.from(pixels), detected: pixels.length, rowMin: 58, rowMax: 62, colMin: 40, colMax: 79, centroidRow: 60, centroidCol: 59.5, peak: 1, peakIndex: 58 * W + 40 };
    const shape = { lengthM: 120, widthM: 12, diagonalM: 120.6, orientationDeg: 90 };
    const f = candidateFeatures(cluster, shape, values, mask, W, H, spacing, SEA, Number.NaN, null);
    expect(f).toHaveLength(CANDIDATE_FEATURES.length);
    expect(AXIS_FEATURES_AT + AXIS_FEATURE_COUNT).toBe(PART_TEXTURE_AT);
    expect(PART_TEXTURE_AT + PART_TEXTURE_COUNT).toBe(CANDIDATE_FEATURES.length);
    expect(f.slice(AXIS_FEATURES_AT, PART_TEXTURE_AT)).toEqual(axisFeatures(values, W, H, 60, 59.5, 90, 120, 12, spacing, SEA, 1, null));
    expect(named(f.slice(AXIS_FEATURES_AT)).endMaxDb).toBeCloseTo(20, 6);
    // An even hull: no spread, every pixel in the core, its brightest tenth at the median.
    expect(f.slice(PART_TEXTURE_AT)).toEqual([0, 1, 0]);
  });
});
