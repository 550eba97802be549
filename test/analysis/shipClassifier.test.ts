import { describe, expect, it } from 'vitest';
import { CANDIDATE_FEATURES, candidateFeatures, candidateModel, candidateThreshold, partTextureFeatures } from '../../src/analysis/ship/classifier.ts';
import { splitCluster, type Cluster } from '../../src/analysis/ship/cluster.ts';
import { detectShipsInTile, type ShipTileInput } from '../../src/analysis/ship/detect.ts';
import { resolveShipParams } from '../../src/analysis/ship/params.ts';
import { levelAt, markAboveSeaLevel, seaLevel } from '../../src/analysis/ship/seaLevel.ts';
import { partLandFeatures, withLandDistance, type SeaLandField } from '../../src/analysis/ship/seaLand.ts';
import { shoreDistanceM } from '../../src/analysis/ship/vesselProperties.ts';
import { gammaClutter } from './synthSea.ts';

const W = 400;
const H = 400;
const spacing = { range: 3, azimuth: 3 };

function tile(values: Float32Array): ShipTileInput {
  return { sigma0: { vv: values }, valid: new Uint8Array(W * H).fill(1), width: W, height: H, pixelSpacing: spacing, core: { x0: 0, y0: 0, width: W, height: H } };
}

/** Adds a rectangle of σ0 `level` (rows r0…r0+h−1, cols c0…c0+w−1). */
function paint(a: Float32Array, r0: number, c0: number, h: number, w: number, level: number): void {
  for (let r = r0; r < r0 + h; r++) for (let c = c0; c < c0 + w; c++) a[r * W + c] = level;
}

describe('ship candidate classifier (issue 23 §1)', () => {
  it('computes the features of a candidate from its pixels and surroundings', () => {
    const w = 20;
    const h = 20;
    const values = new Float32Array(w * h).fill(0.1);
    const mask = new Uint8Array(w * h);
    const pixels: number[] = [];
    for (let r = 8; r < 11; r++) for (let c = 8; c < 11; c++) {
      values[r * w + c] = 10;
      mask[r * w + c] = 2;
      pixels.push(r * w + c);
    }
    values[5 * w + 5] = 1; // one bright pixel in the surroundings (3 px around the 3 × 3 box)
    mask[5 * w + 5] = 1;
    const cluster: Cluster = { pixels: Int32Array.from(pixels), detected: 9, rowMin: 8, rowMax: 10, colMin: 8, colMax: 10, centroidRow: 9, centroidCol: 9, peak: 10, peakIndex: 8 * w + 8 };
    const f = candidateFeatures(cluster, { lengthM: 30, widthM: 30, diagonalM: 42.4, orientationDeg: 0 }, values, mask, w, h, { range: 10, azimuth: 10 }, 0.1, 0.05, null);
    const named = Object.fromEntries(CANDIDATE_FEATURES.map((k, i) => [k, f[i]!]));
    expect(named.peakContrastDb).toBeCloseTo(20, 6);
    expect(named.meanContrastDb).toBeCloseTo(20, 6);
    expect(named.log10AreaM2).toBeCloseTo(Math.log10(900), 6);
    expect(named.aspect).toBe(1);
    expect(named.fill).toBe(1);
    expect(named.detectedFraction).toBe(1);
    // Surroundings: the 9 × 9 box less the 9 ship pixels = 72 pixels, one of them at σ0 1.
    expect(named.surroundBrightFraction).toBeCloseTo(1 / 72, 9);
    expect(named.surroundContrastDb).toBeCloseTo(10 * Math.log10((71 * 0.1 + 1) / 72 / 0.1), 5);
    expect(named.surroundMaxDb).toBeCloseTo(10, 5);
    // Without a land field the land features are missing (NaN), not guessed.
    expect([named.landAtPeak, named.landMeanSurround, named.landMaxSurround, named.landDistanceM].every(Number.isNaN)).toBe(true);
  });

  it('gives a part with a bright core its texture: spread, core share, brightest tenth over the median', () => {
    // 100 pixels: 10 at σ0 10 (the core) among 90 at 1, in a larger raster whose other pixels it must not read.
    const values = new Float32Array(400).fill(50);
    const pixels = Array.from({ length: 100 }, (_, k) => 150 + k);
    pixels.forEach((p, k) => (values[p] = k % 10 === 3 ? 10 : 1));
    const mean = 1.9;
    const [cv, core, topDb] = partTextureFeatures(values, pixels, mean);
    expect(cv).toBeCloseTo(Math.sqrt((10 * 100 + 90) / 100 - mean * mean) / mean, 6);
    expect(core).toBe(0.1);
    expect(topDb).toBeCloseTo(10, 6);
    // One pixel: no spread, all core; its brightest tenth is itself.
    expect(partTextureFeatures(values, [150], 1)).toEqual([0, 1, 0]);
  });

  it('says how a part lies against the land: on it, near it, and its contact with it', () => {
    // 10 × 10 px raster of 10 m pixels, cells of 2 × 2 px; land = the cells of columns 0–1.
    const w = 10;
    const h = 10;
    const cells = { cellRows: 2, cellCols: 2, rows: 5, cols: 5, valid: new Uint8Array(25).fill(1) };
    const landProb = new Float32Array(25);
    for (let r = 0; r < 5; r++) landProb[r * 5] = 0.9;
    const f: SeaLandField = withLandDistance({ ...cells, land: landProb }, { range: 10, azimuth: 10 }, 0.5);
    const named = (pixels: number[], lengthM: number) => partLandFeatures(f, pixels, w, h, 10, lengthM, 0.5);
    // A hull 2 px wide, rows 2–7, columns 2–3, moored along the land: every pixel is off land;
    // column 2 (6 px) is in cells 20 m from land, column 3 too (same cells); all 12 pixels are
    // boundary pixels; the 6 of column 2 touch land (their left neighbour, column 1).
    const hull: number[] = [];
    for (let r = 2; r < 8; r++) hull.push(r * w + 2, r * w + 3);
    const [onLand, near, contact, contactOverLength] = named(hull, 60);
    expect(onLand).toBe(0);
    expect(near).toBe(1); // 20 m ≤ 60 m
    expect(contact).toBeCloseTo(6 / 12, 12);
    expect(contactOverLength).toBeCloseTo(60 / 60, 12);
    // A piece of the land itself (columns 0–1, rows 2–7): all on land. Its boundary: column 1
    // (6 px, sea to the right) and the two column-0 ends (rows 2, 7); of those 8 the 4 of rows 2
    // and 7 touch land (above / below), the others only sea.
    const quay: number[] = [];
    for (let r = 2; r < 8; r++) quay.push(r * w, r * w + 1);
    const q = named(quay, 60);
    expect(q[0]).toBe(1);
    expect(q[2]).toBeCloseTo(4 / 8, 12);
    // Far out (columns 8–9): no land, no contact; an empty part has no features.
    expect(named([5 * w + 8, 5 * w + 9], 20)).toEqual([0, 0, 0, 0]);
    expect(named([], 0).every(Number.isNaN)).toBe(true);
  });

  it('is off by default; the committed model matches the features and names its threshold', () => {
    expect(resolveShipParams().classifier.enabled).toBe(false);
    const m = candidateModel();
    expect(m.model.featureNames).toEqual([...CANDIDATE_FEATURES]);
    expect(m.threshold).toBeGreaterThan(0);
    expect(m.threshold).toBeLessThan(1);
    expect(m.model.trees.length).toBeGreaterThan(10);
    // Near shore (land within its distance of the peak) a candidate has the near-shore threshold.
    const near = m.nearShore!;
    expect(near.threshold).toBeGreaterThan(0);
    expect(near.threshold).toBeLessThan(1);
    const at = (d: number) => CANDIDATE_FEATURES.map((k) => (k === 'landDistanceM' ? d : 0));
    expect(candidateThreshold(m, at(near.distanceM))).toBe(near.threshold);
    expect(candidateThreshold(m, at(near.distanceM + 1))).toBe(m.threshold);
    expect(candidateThreshold(m, at(Number.NaN))).toBe(m.threshold);
    // In the near-shore band of the coastline mask (tile.ts): near shore whatever the feature reads.
    expect(candidateThreshold(m, at(near.distanceM + 1), true)).toBe(near.threshold);
    expect(candidateThreshold(m, at(Number.NaN), true)).toBe(near.threshold);
    expect(candidateThreshold(m, at(near.distanceM + 1), false)).toBe(m.threshold);
    // The defaults are the settings the model was fitted with.
    expect(resolveShipParams().classifier.candidatePfa).toBe(m.candidatePfa);
    expect(resolveShipParams().classifier.seaLevelFactor).toBe(m.seaLevelFactor);
  });

  it('keeps a compact vessel on speckled sea and drops speckle and a bright quay-like strip', () => {
    const values = gammaClutter(W, H, { looks: 3, seed: 7, mean: 0.01 });
    paint(values, 100, 100, 8, 30, 1); // a 90 m × 24 m vessel, +20 dB
    paint(values, 300, 0, 8, 400, 0.3); // a long bright strip across the tile (a quay edge)
    const params = { classifier: { enabled: true } };
    const dets = detectShipsInTile(tile(values), params);
    const vessel = dets.filter((d) => Math.abs(d.centroidRow - 103.5) < 3 && Math.abs(d.centroidCol - 114.5) < 3);
    expect(vessel).toHaveLength(1);
    expect(vessel[0]!.candidate!.probability).toBeGreaterThanOrEqual(candidateModel().threshold);
    expect(dets.filter((d) => d.centroidRow > 280 && d.centroidRow < 320)).toHaveLength(0);
    // The same tile without the classifier: candidates at its PFA, every one kept (threshold 0).
    const all = detectShipsInTile(tile(values), { classifier: { enabled: true, threshold: 0 } });
    expect(all.length).toBeGreaterThanOrEqual(dets.length);
    expect(all.every((d) => d.candidate!.features.length === CANDIDATE_FEATURES.length)).toBe(true);
  });

  it('with the scene land mask: no candidate on textured land, a vessel 150 m off it kept at the near-shore threshold', () => {
    const values = gammaClutter(W, H, { looks: 4, seed: 11, mean: 0.01 });
    // Left half: land 15–25 dB over the sea with strong texture (buildings, quays).
    const land = gammaClutter(W, H, { looks: 1, seed: 12, mean: 0.5, textureShape: 0.5 });
    for (let r = 0; r < H; r++) for (let c = 0; c < 200; c++) values[r * W + c] = land[r * W + c]!;
    paint(values, 200, 250, 8, 30, 1); // a 90 m × 24 m vessel, its bow 150 m from the shore
    const params = { classifier: { enabled: true, sceneLandMask: true } };
    const dets = detectShipsInTile(tile(values), params);
    expect(dets.filter((d) => d.centroidCol < 200)).toHaveLength(0);
    const vessel = dets.filter((d) => Math.abs(d.centroidRow - 203.5) < 3 && Math.abs(d.centroidCol - 264.5) < 3);
    expect(vessel).toHaveLength(1);
    const f = vessel[0]!.candidate!.features;
    const distance = f[CANDIDATE_FEATURES.indexOf('landDistanceM')]!;
    expect(distance).toBeGreaterThan(100);
    expect(distance).toBeLessThan(300);
    // The detection carries it for the feature's distance_to_shore_m (vesselProperties.ts).
    expect(vessel[0]!.sceneLandDistanceM).toBe(distance);
    const m = candidateModel();
    expect(candidateThreshold(m, f)).toBe(m.nearShore!.threshold);
    expect(vessel[0]!.candidate!.probability).toBeGreaterThanOrEqual(m.nearShore!.threshold);
    // Without the mask every land pixel may seed a candidate: the classifier alone must judge them.
    const unmasked = detectShipsInTile(tile(values), { classifier: { enabled: true, threshold: 0 } });
    expect(unmasked.filter((d) => d.centroidCol < 200).length).toBeGreaterThan(0);
  });

  it('takes the sea level as a median, not raised by bright vessels covering less than half of it', () => {
    const w = 64;
    const h = 64;
    const values = new Float32Array(w * h).fill(0.01);
    for (let r = 0; r < 64; r++) for (let c = 0; c < 24; c++) values[r * w + c] = 5; // 37 % of the area very bright
    const target = new Uint8Array(w * h).fill(1);
    const s = seaLevel(values, target, w, h, 16);
    expect(s.rows).toBe(4);
    expect(s.cols).toBe(4);
    expect(levelAt(s, 40, 60)).toBeCloseTo(0.01, 6);
    const mask = new Uint8Array(w * h);
    values[10 * w + 50] = 0.2; // 20 × the level: detected at factor 16
    values[12 * w + 50] = 0.1; // 10 ×: extent only (≥ 8 ×)
    const seeds = markAboveSeaLevel(values, target, w, h, s, 16, 8, mask);
    expect(seeds).toContain(10 * w + 50);
    expect(mask[10 * w + 50]).toBe(2);
    expect(mask[12 * w + 50]).toBe(1);
    expect(mask[40 * w + 60]).toBe(0);
  });
  it('splits a cluster too large for a vessel along its brightness: two hulls joined by a dimmer quay come apart', () => {
    const w = 300;
    const h = 40;
    const values = new Float32Array(w * h).fill(0.001);
    const mask = new Uint8Array(w * h);
    const pixels: number[] = [];
    const put = (r0: number, c0: number, hh: number, ww: number, v: number) => {
      for (let r = r0; r < r0 + hh; r++) for (let c = c0; c < c0 + ww; c++) values[r * w + c] = v;
    };
    put(10, 0, 4, 300, 0.2); // a quay 900 m long (3 m pixels), 10 dB under the hulls
    put(14, 40, 8, 30, 2); // hull A moored against it, 90 m
    put(14, 200, 8, 40, 2.5); // hull B, 120 m
    for (let i = 0; i < w * h; i++) if (values[i]! > 0.01) {
      pixels.push(i);
      mask[i] = values[i]! >= 2 ? 2 : 1;
    }
    const whole: Cluster = { pixels: Int32Array.from(pixels), detected: 240 + 320, rowMin: 10, rowMax: 21, colMin: 0, colMax: 299, centroidRow: 0, centroidCol: 0, peak: 2.5, peakIndex: 14 * w + 200 };
    const fits = (c: Cluster) => (c.colMax - c.colMin + 1) * 3 <= 600;
    const parts = splitCluster(whole, mask, values, w, h, fits).sort((a, b) => a.colMin - b.colMin);
    expect(parts.map((p) => [p.pixels.length, p.detected, p.rowMin, p.rowMax, p.colMin, p.colMax])).toEqual([
      [240, 240, 14, 21, 40, 69],
      [320, 320, 14, 21, 200, 239],
    ]);
    expect(parts[1]!.peak).toBe(2.5);
    expect(parts[0]!.centroidCol).toBeCloseTo(54.5, 9);
    // Parts that never fit give nothing.
    expect(splitCluster(whole, mask, values, w, h, () => false)).toEqual([]);
  });

  it('with splitLarge (default) a vessel moored against a long quay becomes a candidate; without it the joined cluster is dropped', () => {
    const values = gammaClutter(W, H, { looks: 4, seed: 5, mean: 0.01 });
    const quay = gammaClutter(W, H, { looks: 4, seed: 6, mean: 0.1 });
    for (let r = 150; r < 158; r++) for (let c = 0; c < W; c++) values[r * W + c] = quay[r * W + c]!; // 1.2 km quay, +10 dB
    paint(values, 158, 180, 10, 40, 1); // a 120 m × 30 m vessel alongside, +20 dB
    const near = (d: { centroidRow: number; centroidCol: number }) => Math.abs(d.centroidRow - 162.5) < 6 && Math.abs(d.centroidCol - 199.5) < 6;
    const split = detectShipsInTile(tile(values), { classifier: { enabled: true, threshold: 0 } });
    expect(split.filter(near)).toHaveLength(1);
    const whole = detectShipsInTile(tile(values), { classifier: { enabled: true, threshold: 0, splitLarge: false } });
    expect(whole.filter(near)).toHaveLength(0);
  });

  it('takes the scene land distance as the distance to shore when it is nearer than the coastline', () => {
    expect(shoreDistanceM(1000, 200)).toBe(200);
    expect(shoreDistanceM(100, 200)).toBe(100);
    expect(shoreDistanceM(1000, 3000)).toBe(1000); // at the cap: land at least 3 km away, says nothing
    expect(shoreDistanceM(1000, undefined)).toBe(1000);
    expect(shoreDistanceM(null, 500)).toBe(500);
    expect(shoreDistanceM(null, undefined)).toBeNull();
  });
});
