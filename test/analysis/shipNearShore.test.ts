import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { detectShipsInProduct } from '../../src/analysis/ship/index.ts';
import { nearestShore } from '../../src/geo/shoreDistance.ts';
import { openSafeProduct } from '../../src/imagery/index.ts';
import { naturalEarthLand, Random, writeSafeGrd } from '../../src/synth/index.ts';
import { detectShipsInTile, type ShipDetection, type ShipTileInput } from '../../src/analysis/ship/detect.ts';
import { calibrateDnInPlace, type TileCalibration } from '../../src/analysis/ship/calibrate.ts';
import { CANDIDATE_FEATURES, candidateModel, candidateThreshold } from '../../src/analysis/ship/classifier.ts';
import { inNearShoreBand, nearShoreBand } from '../../src/analysis/ship/nearShore.ts';
import { DEFAULT_SHIP_PARAMS, NEAR_SHORE_TILE_SIZE, resolveShipParams } from '../../src/analysis/ship/params.ts';
import { chamferInPlace } from '../../src/raster/chamfer.ts';
import { mulberry32 } from '../../src/prng.ts';
import { gammaClutter } from './synthSea.ts';

// Generated coastal tiles at Sentinel-1's 10 m: 4.4-look sea at −20 dB, textured land
// (buildings, quays: single-look, texture ν 0.5, −3 dB mean) on the left, and the tile's land
// mask as a scene gives it (Natural Earth plus its shore buffer) — drawn by hand here.
const W = 800;
const H = 600;
const spacing = { range: 10, azimuth: 10 };

function scene(seed: number): Float32Array {
  const values = gammaClutter(W, H, { looks: 4.4, seed, mean: 0.01 });
  const land = gammaClutter(W, H, { looks: 1, seed: seed + 1, mean: 0.5, textureShape: 0.5 });
  for (let r = 0; r < H; r++) for (let c = 0; c < 150; c++) values[r * W + c] = land[r * W + c]!;
  return values;
}

function paint(values: Float32Array, r0: number, c0: number, h: number, w: number, level: number): void {
  for (let r = r0; r < r0 + h; r++) for (let c = c0; c < c0 + w; c++) values[r * W + c] = level;
}

/** The land mask: columns 0 … maskCols − 1. */
function landMask(maskCols: number): Uint8Array {
  const land = new Uint8Array(W * H);
  for (let r = 0; r < H; r++) land.fill(1, r * W, r * W + maskCols);
  return land;
}

/** `landUnbuffered`: the mask without the shore buffer, as a scene gives it (the near-shore classifier path's). */
function tile(values: Float32Array, land: Uint8Array, landUnbuffered?: Uint8Array): ShipTileInput {
  return { sigma0: { vh: values.slice() }, valid: new Uint8Array(W * H).fill(1), land, ...(landUnbuffered ? { landUnbuffered } : {}), width: W, height: H, pixelSpacing: spacing, core: { x0: 0, y0: 0, width: W, height: H } };
}

const near = (row: number, col: number) => (d: ShipDetection) => Math.hypot(d.centroidRow - row, d.centroidCol - col) <= 5;

describe('near-shore band (nearShore.ts)', () => {
  it('holds the blocks within the distance of land, and is absent without a coast', () => {
    const land = landMask(200); // the last land block holds columns 195–199 (50 m blocks)
    const valid = new Uint8Array(W * H).fill(1);
    const band = nearShoreBand(land, valid, W, H, spacing, 2000, { x0: 0, y0: 0, width: W, height: H })!;
    expect(band.block).toBe(5);
    // 40 blocks of 50 m from the last land block: columns 395–399 are at 2000 m, 400–404 at 2050 m.
    expect(inNearShoreBand(band, 300, 399)).toBe(true);
    expect(inNearShoreBand(band, 300, 400)).toBe(false);
    expect(inNearShoreBand(band, 10, 100)).toBe(true); // land blocks are in it (their pixels are masked anyway)
    expect(band.reachesCore).toBe(true);
    // Without a margin the window is the band's sea (columns 200–399), with 3 km 300 px more each side (clipped at 0).
    expect(band.window).toEqual({ x0: 200, y0: 0, width: 200, height: H });
    expect(nearShoreBand(land, valid, W, H, spacing, 2000, { x0: 0, y0: 0, width: W, height: H }, 3000)!.window).toEqual({ x0: 0, y0: 0, width: 700, height: H });
    expect(nearShoreBand(land, valid, W, H, spacing, 2000, { x0: 500, y0: 0, width: 300, height: H })!.reachesCore).toBe(false);
    expect(nearShoreBand(new Uint8Array(W * H), valid, W, H, spacing, 2000, { x0: 0, y0: 0, width: W, height: H })).toBeNull();
    expect(nearShoreBand(new Uint8Array(W * H).fill(1), valid, W, H, spacing, 2000, { x0: 0, y0: 0, width: W, height: H })).toBeNull();
    // Land beside the no-data border only (no valid sea pixel): no coast.
    const noSea = new Uint8Array(W * H);
    for (let r = 0; r < H; r++) noSea.fill(1, r * W, r * W + 200);
    expect(nearShoreBand(land, noSea, W, H, spacing, 2000, { x0: 0, y0: 0, width: W, height: H })).toBeNull();
  });

  it("is off in the detector's own defaults (the API's default is NEAR_SHORE_DETECTION_DEFAULT), one switch turns it on within 2 km, and its distance is checked", () => {
    expect(DEFAULT_SHIP_PARAMS.nearShore).toEqual({ enabled: false, distanceM: 2000 });
    expect(resolveShipParams({ nearShore: { enabled: true } }).nearShore).toEqual({ enabled: true, distanceM: 2000 });
    expect(() => resolveShipParams({ nearShore: { distanceM: 0 } })).toThrow(/nearShore.distanceM/);
  });

  it('runs on smaller tiles unless a tile size is given (issue 23 §5: memory of a coastal tile), only where the near-shore path runs', () => {
    expect(resolveShipParams({}).tileSize).toBe(3072);
    expect(resolveShipParams({ nearShore: { enabled: true } }).tileSize).toBe(NEAR_SHORE_TILE_SIZE);
    expect(NEAR_SHORE_TILE_SIZE).toBe(2048);
    expect(resolveShipParams({ nearShore: { enabled: true }, tileSize: 4096 }).tileSize).toBe(4096);
    // The classifier everywhere ignores nearShore: the default tiles.
    expect(resolveShipParams({ nearShore: { enabled: true }, classifier: { enabled: true } }).tileSize).toBe(3072);
    // Resolving resolved parameters keeps their tile size.
    expect(resolveShipParams(resolveShipParams({ nearShore: { enabled: true } })).tileSize).toBe(2048);
  });
});

/** nearShoreBand as it was before its run-wise scan (pixel by pixel), for the comparison below. */
function referenceBand(land: Uint8Array, valid: Uint8Array, width: number, height: number, spacing: { range: number; azimuth: number }, distanceM: number, core: { x0: number; y0: number; width: number; height: number }, marginM: number) {
  if (!land.includes(1)) return null;
  const block = Math.max(1, Math.round(50 / Math.min(spacing.range, spacing.azimuth)));
  const rows = Math.ceil(height / block);
  const cols = Math.ceil(width / block);
  const landBlock = new Uint8Array(rows * cols);
  const seaBlock = new Uint8Array(rows * cols);
  for (let r = 0; r < height; r++)
    for (let c = 0; c < width; c++) {
      const k = ((r / block) | 0) * cols + ((c / block) | 0);
      if (land[r * width + c]) landBlock[k] = 1;
      else if (valid[r * width + c]) seaBlock[k] = 1;
    }
  if (!landBlock.includes(1) || !seaBlock.includes(1)) return null;
  const d = new Float32Array(rows * cols);
  for (let k = 0; k < d.length; k++) d[k] = landBlock[k] ? 0 : Infinity;
  chamferInPlace(d, rows, cols, block * spacing.azimuth, block * spacing.range);
  const near = new Uint8Array(rows * cols);
  let [r0, r1, c0, c1] = [rows, -1, cols, -1];
  for (let k = 0; k < near.length; k++) {
    near[k] = d[k]! <= distanceM ? 1 : 0;
    if (near[k] && seaBlock[k]) [r0, r1, c0, c1] = [Math.min(r0, (k / cols) | 0), Math.max(r1, (k / cols) | 0), Math.min(c0, k % cols), Math.max(c1, k % cols)];
  }
  if (r1 < 0) return null;
  const my = Math.ceil(marginM / spacing.azimuth);
  const mx = Math.ceil(marginM / spacing.range);
  const y0 = Math.max(0, r0 * block - my);
  const x0 = Math.max(0, c0 * block - mx);
  let reachesCore = false;
  const [br1, bc1] = [Math.floor((core.y0 + core.height - 1) / block), Math.floor((core.x0 + core.width - 1) / block)];
  for (let r = Math.floor(core.y0 / block); r <= br1; r++) for (let c = Math.floor(core.x0 / block); c <= bc1; c++) if (near[r * cols + c]) reachesCore = true;
  return { block, rows, cols, near, reachesCore, window: { y0, x0, height: Math.min(height, (r1 + 1) * block + my) - y0, width: Math.min(width, (c1 + 1) * block + mx) - x0 } };
}

describe('near-shore band blocks (nearShore.ts, issue 23 §5)', () => {
  it('is the band the pixel-by-pixel scan gave, on ragged masks of any width', () => {
    const random = mulberry32(5);
    let bands = 0;
    for (let trial = 0; trial < 300; trial++) {
      const w = 37 + Math.floor(random() * 90);
      const h = 3 + Math.floor(random() * 40);
      const land = new Uint8Array(w * h);
      const valid = new Uint8Array(w * h);
      // Runs of random lengths (single pixels to several rows): coasts, islets, the no-data border.
      const runs = (a: Uint8Array, p: number) => {
        for (let i = 0; i < a.length; ) {
          const len = 1 + Math.floor(random() * (random() < 0.5 ? 4 : 150));
          a.fill(random() < p ? 1 : 0, i, i + len);
          i += len;
        }
      };
      runs(land, [0, 0.05, 0.4, 0.97][trial % 4]!);
      runs(valid, trial % 5 === 0 ? 0.02 : 0.8);
      const spacing = trial % 2 ? { range: 10, azimuth: 10 } : { range: 12, azimuth: 7 }; // 5- and 7-pixel blocks
      const core = { x0: 3, y0: 1, width: w - 10, height: h - 2 };
      // Distance 0: the band is the land blocks, and its window spans those that hold sea too.
      const distance = trial % 3 === 0 ? 150 : 0;
      const band = nearShoreBand(land, valid, w, h, spacing, distance, core, 30);
      expect(band).toEqual(referenceBand(land, valid, w, h, spacing, distance, core, 30));
      if (band) bands++;
    }
    expect(bands).toBeGreaterThan(20);
  });
});

describe('ship detection near shore (issue 23 §1)', () => {
  const ON = { nearShore: { enabled: true } };
  it('finds a ship moored beside a generated quay, reports neither the quay nor the land, and keeps the open-sea vessel', () => {
    const values = scene(21);
    // A pier 1.5 km long and 100 m wide at +15 dB over the sea, 1 km of it outside the land mask.
    const quay = gammaClutter(W, H, { looks: 4.4, seed: 23, mean: 0.3 });
    for (let r = 300; r < 310; r++) for (let c = 150; c < 300; c++) values[r * W + c] = quay[r * W + c]!;
    paint(values, 310, 260, 3, 15, 1); // a 150 m × 30 m vessel alongside it, +20 dB
    paint(values, 150, 600, 3, 12, 1); // a 120 m vessel 4 km off the mask: open sea
    const land = landMask(200);

    const found = detectShipsInTile(tile(values, land), ON);
    const moored = found.filter(near(311, 267));
    expect(moored).toHaveLength(1);
    // The classifier path's mask without the buffer (columns 0–149, as a scene gives it): the
    // pier's landward 500 m enters the moored ship's surroundings, and nothing changes.
    expect(detectShipsInTile(tile(values, land, landMask(150)), ON)).toEqual(found);
    // Judged by the classifier (near-shore path): it carries its probability and the distance
    // to the scene's own land.
    expect(moored[0]!.candidate!.probability).toBeGreaterThan(0);
    expect(moored[0]!.sceneLandDistanceM).toBeGreaterThan(1000);
    expect(moored[0]!.sceneLandDistanceM).toBeLessThan(1300);
    const open = found.filter(near(151, 606));
    expect(open).toHaveLength(1);
    expect(open[0]!.candidate).toBeUndefined(); // the default detector's
    // Nothing else: no piece of the pier, nothing on land.
    expect(found).toHaveLength(2);

    // The default detector alone loses the moored vessel (joined to the pier, too large as one).
    const before = detectShipsInTile(tile(values, land), { nearShore: { enabled: false } });
    expect(before.filter(near(311, 267))).toHaveLength(0);
    expect(before.filter(near(151, 606))).toHaveLength(1);
  });

  it('a ship found by both detectors across the band edge is reported once, as the default detector found it', () => {
    const values = scene(31);
    paint(values, 300, 300, 3, 15, 1); // 150 m vessel 1.5 km off the textured land
    // The coastline given (Natural Earth at its coarsest) lies 1 km inland of the real shore:
    // the band ends 2 km from it, before the vessel, but the scene's own land is within 2 km.
    const land = landMask(50);
    const classifier = detectShipsInTile(tile(values, land), { nearShore: { enabled: false }, classifier: { enabled: true, sceneLandMask: true } }).filter(near(301, 307));
    expect(classifier).toHaveLength(1);
    expect(classifier[0]!.sceneLandDistanceM).toBeLessThanOrEqual(2000);
    const plain = detectShipsInTile(tile(values, land), { nearShore: { enabled: false } }).filter(near(301, 307));
    expect(plain).toHaveLength(1);
    const found = detectShipsInTile(tile(values, land), ON);
    const vessel = found.filter(near(301, 307));
    expect(vessel).toHaveLength(1);
    expect(vessel[0]!.candidate).toBeUndefined();
    expect(Array.from(vessel[0]!.pixels.cols)).toEqual(Array.from(plain[0]!.pixels.cols));
    expect(found).toHaveLength(1);
  });

  it('judges a vessel in the band at the near-shore threshold though the segmenter\'s land is farther than the distance (issue 23 §1)', () => {
    // Textured land in columns 0–49, the land mask (Natural Earth plus its 500 m shore buffer)
    // columns 0–99: a small vessel 40 m × 20 m at +9 dB, 1.65 km off the mask — in the band —
    // and 2.15 km off the land the segmenter sees.
    const values = gammaClutter(W, H, { looks: 4.4, seed: 21, mean: 0.01 });
    const texture = gammaClutter(W, H, { looks: 1, seed: 22, mean: 0.5, textureShape: 0.5 });
    for (let r = 0; r < H; r++) for (let c = 0; c < 50; c++) values[r * W + c] = texture[r * W + c]!;
    paint(values, 300, 265, 2, 4, 0.08);
    const land = landMask(100);
    const band = nearShoreBand(land, new Uint8Array(W * H).fill(1), W, H, spacing, 2000, { x0: 0, y0: 0, width: W, height: H })!;
    const m = candidateModel();
    const vessel = near(300.5, 266.5);
    // Every candidate kept (threshold 1e-9): the trees' probability of the vessel and its features.
    const all = detectShipsInTile(tile(values, land), { ...ON, classifier: { threshold: 1e-9 } }).filter(vessel);
    expect(all).toHaveLength(1);
    const { probability, features } = all[0]!.candidate!;
    expect(inNearShoreBand(band, all[0]!.peakRow, all[0]!.peakCol)).toBe(true);
    expect(features[CANDIDATE_FEATURES.indexOf('landDistanceM')]).toBeGreaterThan(m.nearShore!.distanceM);
    // Between the two thresholds: the feature alone would judge it at the open-sea one and drop it.
    expect(probability).toBeGreaterThanOrEqual(m.nearShore!.threshold);
    expect(probability).toBeLessThan(m.threshold);
    expect(candidateThreshold(m, features)).toBe(m.threshold);
    expect(candidateThreshold(m, features, true)).toBe(m.nearShore!.threshold);
    // nearShore on keeps it, as the default detector does.
    const on = detectShipsInTile(tile(values, land), ON);
    expect(on.filter(vessel)).toHaveLength(1);
    expect(on.filter(vessel)[0]!.candidate!.probability).toBe(probability);
    expect(on).toHaveLength(1);
    expect(detectShipsInTile(tile(values, land), { nearShore: { enabled: false } }).filter(vessel)).toHaveLength(1);
  });

  it('changes nothing on open sea: no land, or land too far from the core', () => {
    const values = gammaClutter(W, H, { looks: 4.4, seed: 41, mean: 0.01 });
    paint(values, 200, 300, 3, 15, 1);
    paint(values, 450, 650, 3, 10, 1);
    const none = new Uint8Array(W * H);
    const on = detectShipsInTile(tile(values, none), ON);
    expect(on).toHaveLength(2);
    expect(on).toEqual(detectShipsInTile(tile(values, none), { nearShore: { enabled: false } }));
    // Land in the halo only, more than 2 km from the core: the default detector alone.
    const far = landMask(20);
    const core = { x0: 250, y0: 0, width: W - 250, height: H };
    const farOn = detectShipsInTile({ ...tile(values, far), core }, ON);
    expect(farOn).toEqual(detectShipsInTile({ ...tile(values, far), core }, { nearShore: { enabled: false } }));
    expect(farOn.every((d) => d.candidate === undefined)).toBe(true);
  });

  it('cuts the classifier path\'s window into the array of a channel it calibrated (used once), with the detections of the σ0 input', () => {
    const values = scene(21);
    const quay = gammaClutter(W, H, { looks: 4.4, seed: 23, mean: 0.3 });
    for (let r = 300; r < 310; r++) for (let c = 150; c < 300; c++) values[r * W + c] = quay[r * W + c]!;
    paint(values, 310, 260, 3, 15, 1);
    paint(values, 150, 600, 3, 12, 1);
    const land = landMask(200);
    // DN and a calibration varying along both axes; the σ0 input is that calibration's own output.
    const cal: TileCalibration = {
      lines: Float64Array.of(0, H - 1),
      firstVector: 0,
      rows: [Float32Array.from({ length: W }, (_, i) => 500 + 0.1 * i), Float32Array.from({ length: W }, (_, i) => 520 + 0.05 * i)],
      floor: 1e-5,
    };
    const dn = Float32Array.from(values, (v) => Math.sqrt(v) * 510);
    const sigma = dn.slice();
    calibrateDnInPlace(sigma, new Uint8Array(W * H).fill(1), W, H, 0, cal);
    const fromSigma = detectShipsInTile(tile(sigma, land), ON);
    expect(fromSigma.filter((d) => d.candidate !== undefined)).toHaveLength(1); // the moored vessel, on the classifier path
    const fromDn = detectShipsInTile({ ...tile(dn, land), sigma0: { vh: dn }, calibrate: { vh: cal } }, ON);
    expect(fromDn).toEqual(fromSigma);
    // The window (columns 0–699 with the 3 km margin) was cut into dn itself: row r at r · 700.
    for (const r of [1, 300, H - 1]) expect(Array.from(dn.subarray(r * 700, (r + 1) * 700))).toEqual(Array.from(sigma.subarray(r * W, r * W + 700)));
  });
});

describe('ship detection near a generated coast (issue 23 §1: no worse than the default)', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sarwatch-ship-bufferedge-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("finds the hulls at the shore buffer's edge the default detector finds: the classifier path masks Natural Earth's land without the buffer", async () => {
    // 1200² px at 10 m on the Dutch coast north of IJmuiden (Natural Earth land, 5 m/s wind),
    // 12 vessels of 60–190 m placed 500–650 m off the coastline, ≥ 400 m apart: just past the
    // 500 m shore buffer, so the buffered mask cuts a hull lying across its edge.
    const center: [number, number] = [4.56, 52.56];
    const half = 6000 / 111_000;
    const halfLon = half / Math.cos((center[1] * Math.PI) / 180);
    const land = naturalEarthLand([center[0] - 1.5 * halfLon, center[1] - 1.5 * half, center[0] + 1.5 * halfLon, center[1] + 1.5 * half]);
    const rng = new Random(2324, 'bufferedge');
    const ships: Array<{ id: string; lon: number; lat: number; lengthM: number; headingDeg: number }> = [];
    while (ships.length < 12) {
      const lon = center[0] + rng.range(-0.8, 0.8) * halfLon;
      const lat = center[1] + rng.range(-0.8, 0.8) * half;
      const shore = nearestShore(lon, lat);
      // Natural Earth's coast here runs north–south, the sea to the west: at sea is west of the nearest coast point.
      if (!shore || shore.distanceM < 500 || shore.distanceM > 650 || lon > shore.coast[0] || ships.some((s) => Math.hypot((s.lon - lon) * 67_500, (s.lat - lat) * 111_000) < 400)) continue;
      ships.push({ id: `v${ships.length + 1}`, lon, lat, lengthM: Math.round(rng.range(60, 190)), headingDeg: Math.round(rng.range(0, 360)) });
    }
    const { productPath } = await writeSafeGrd(dir, {
      seed: 2324,
      start: new Date(Date.UTC(2024, 5, 25, 17, 33, 0)),
      center,
      width: 1200,
      height: 1200,
      passDirection: 'ascending',
      surfaces: land.map((polygon, i) => ({ kind: 'land' as const, id: `land-${i + 1}`, name: 'Natural Earth 1:10m land', polygon })),
      wind: { speed: 5, directionDeg: 260 },
      ships,
    });
    const product = await openSafeProduct(productPath);
    try {
      const run = async (on: boolean) => {
        const points = (await detectShipsInProduct(product, { params: { nearShore: { enabled: on } } })).detections.map((d) => product.geolocation.pixelToLonLat(d.centroidRow, d.centroidCol));
        const near = (p: [number, number], s: { lon: number; lat: number }) => Math.hypot((p[0] - s.lon) * 67_500, (p[1] - s.lat) * 111_000) <= 100;
        return { found: ships.filter((s) => points.some((p) => near(p, s))).map((s) => s.id), falseAlarms: points.filter((p) => !ships.some((s) => near(p, s))).length };
      };
      const plain = await run(false);
      const path = await run(true);
      expect(plain).toEqual({ found: ships.map((s) => s.id), falseAlarms: 0 });
      // With the buffered mask the path lost one of them (v7: its hull cut by the buffer's edge, read as a quay's end).
      expect(path).toEqual(plain);
    } finally {
      await product.close();
    }
  });
});
