// Azimuth ambiguities on generated SAFE products: the generator (src/synth/scene.ts) places the
// ghosts of bright vessels at λ·R·PRF/(2·Vs) along azimuth, with Vs the speed of its own orbit,
// and writes that orbit, the per-swath PRFs and the swath-merge bounds into the annotation; the
// detector (src/analysis/ship/ambiguity.ts) reads them back and must look exactly there.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeAnalysisPool } from '../../src/analysis/engine/pool.ts';
import { ambiguityOffsetsRows, readAmbiguityGeometry } from '../../src/analysis/ship/ambiguity.ts';
import { detectShipsInProduct } from '../../src/analysis/ship/index.ts';
import { openSafeProduct } from '../../src/imagery/index.ts';
import { GrdGeometry, writeSafeGrd, type ShipSpec } from '../../src/synth/index.ts';
import { platformStateAt, subSwathAt } from '../../src/synth/scene.ts';

interface TruthFeature {
  properties: { kind: string; id: string; parent?: string; line: number; pixel: number; length_m: number; center_lon: number; center_lat: number };
}

const dir = mkdtempSync(path.join(os.tmpdir(), 'sarwatch-ship-ambiguity-'));

afterAll(async () => {
  await closeAnalysisPool();
  rmSync(dir, { recursive: true, force: true });
});

describe('rule: the detector looks for a ghost where the generator puts it (Δ = λ·R·PRF/(2·Vs), within 0.5 px in every sub-swath)', () => {
  // A full-width IW scene (25,000 px: IW1, IW2, IW3), 1600 lines; only a 64 × 64 corner is
  // written (the annotation describes the whole image), so this is cheap.
  const width = 25_000;
  const height = 1600;
  const center: [number, number] = [3.1, 55.4];
  const g = new GrdGeometry({ center, width, height, passDirection: 'descending' });
  // 250 m vessels (≈ 53 dBsm: ghosts) across range, one right at the IW1/IW2 boundary.
  const pixels = [1500, 6000, 9050, 12_000, 16_000, 19_500, 24_000];
  let truth: TruthFeature[] = [];
  let productPath = '';

  beforeAll(async () => {
    const ships: ShipSpec[] = pixels.map((pixel, i) => {
      const p = g.pixelToLonLat(700 + 20 * i, pixel);
      return { id: `v${i + 1}`, lon: p.lon, lat: p.lat, lengthM: 250, headingDeg: 30 };
    });
    const written = await writeSafeGrd(dir, {
      seed: 41,
      start: new Date(Date.UTC(2024, 3, 9, 5, 50)),
      center,
      width,
      height,
      passDirection: 'descending',
      wind: { speed: 6, directionDeg: 200 },
      ships,
      crop: { x0: 0, y0: 0, width: 64, height: 64 },
    });
    productPath = written.productPath;
    truth = (JSON.parse(readFileSync(written.groundTruthPath, 'utf8')) as { features: TruthFeature[] }).features;
  }, 120_000);

  it('the annotation carries the orbit, the three PRFs and the swath-merge bounds: no nominal fallback', async () => {
    const product = await openSafeProduct(productPath);
    try {
      const band = product.bands.VH!;
      const geometry = await readAmbiguityGeometry(product, band);
      expect(geometry.swaths.map((s) => s.swath)).toEqual(['IW1', 'IW2', 'IW3']);
      expect(geometry.swaths.map((s) => s.prf)).toEqual([1717.13, 1451.63, 1685.82]);
      // Bounds where the generator's incidence ranges switch sub-swath.
      for (const s of geometry.swaths) {
        expect(subSwathAt(g.incidenceAngle(s.firstSample))).toBe(s.swath);
        expect(subSwathAt(g.incidenceAngle(s.lastSample))).toBe(s.swath);
      }
      expect(geometry.swaths[0]!.firstSample).toBe(0);
      expect(geometry.swaths[2]!.lastSample).toBe(width - 1);
      // Earth-fixed platform speed: the generator's (≈ 7590 m/s, as real S-1 annotations), not the nominal fallback's exact 7590.
      const vs = platformStateAt(g, height / 2).speed;
      expect(vs).toBeGreaterThan(7550);
      expect(vs).toBeLessThan(7630);
      expect(Math.abs(geometry.platformSpeed - vs) / vs).toBeLessThan(2e-4);
      expect(geometry.platformSpeed).not.toBe(7590);
    } finally {
      await product.close();
    }
  });

  it('each ghost lies within 0.5 px of the detector\'s offset (tolerance used for suppression: ±6 %, ≈ 30 px)', async () => {
    const product = await openSafeProduct(productPath);
    try {
      const geometry = await readAmbiguityGeometry(product, product.bands.VH!);
      const vessels = truth.filter((f) => f.properties.kind === 'ship');
      const ghosts = truth.filter((f) => f.properties.kind === 'ambiguity');
      expect(vessels).toHaveLength(pixels.length);
      // Two per vessel (before and after), all inside the 1600 lines.
      expect(ghosts).toHaveLength(2 * pixels.length);
      let worst = 0;
      for (const ghost of ghosts) {
        const parent = vessels.find((v) => v.properties.id === ghost.properties.parent)!;
        expect(ghost.properties.pixel).toBeCloseTo(parent.properties.pixel, 1);
        const actual = Math.abs(ghost.properties.line - parent.properties.line);
        expect(actual).toBeGreaterThan(400); // ≈ 4.3–5.4 km
        expect(actual).toBeLessThan(600);
        const offsets = ambiguityOffsetsRows(geometry, parent.properties.line, parent.properties.pixel);
        const err = Math.min(...offsets.map((o) => Math.abs(o - actual)));
        worst = Math.max(worst, err);
        expect(err, `${ghost.properties.id}: ghost ${actual.toFixed(2)} rows, detector ${offsets.map((o) => o.toFixed(2)).join('/')}`).toBeLessThan(0.5);
      }
      // Line positions are rounded to 0.01 in the truth; the rest is the grid's linear slant range.
      expect(worst).toBeLessThan(0.5);
    } finally {
      await product.close();
    }
  });
});

describe('rule: ghosts of bright vessels are not reported as vessels, the vessels are', () => {
  it('a 1600 × 1400 px scene with four 200–300 m vessels: their ghosts are found by the CFAR and dropped by the ambiguity test', async () => {
    const width = 1600;
    const height = 1400;
    const center: [number, number] = [2.4, 55.9];
    const g = new GrdGeometry({ center, width, height, passDirection: 'ascending' });
    const places: Array<[number, number, number]> = [
      [650, 300, 300],
      [700, 800, 250],
      [620, 1300, 200],
      [760, 1000, 40],
    ];
    const ships: ShipSpec[] = places.map(([line, pixel, lengthM], i) => {
      const p = g.pixelToLonLat(line, pixel);
      return { id: `s${i + 1}`, lon: p.lon, lat: p.lat, lengthM, headingDeg: 60 + 40 * i };
    });
    const written = await writeSafeGrd(dir, {
      seed: 77,
      start: new Date(Date.UTC(2024, 4, 2, 17, 40)),
      center,
      width,
      height,
      passDirection: 'ascending',
      wind: { speed: 5, directionDeg: 120 },
      ships,
    });
    const truth = (JSON.parse(readFileSync(written.groundTruthPath, 'utf8')) as { features: TruthFeature[] }).features;
    const vessels = truth.filter((f) => f.properties.kind === 'ship');
    const ghosts = truth.filter((f) => f.properties.kind === 'ambiguity');
    expect(vessels).toHaveLength(4);
    expect(ghosts.length).toBeGreaterThanOrEqual(6);

    const product = await openSafeProduct(written.productPath);
    try {
      const near = (d: { centroidRow: number; centroidCol: number }, f: TruthFeature, m: number): boolean =>
        Math.hypot((d.centroidRow - f.properties.line) * 10, (d.centroidCol - f.properties.pixel) * 10) <= m;
      const without = await detectShipsInProduct(product, { params: { ambiguity: { enabled: false } } });
      const withTest = await detectShipsInProduct(product);
      // The ghosts are bright enough for the CFAR: without the ambiguity test they come out as vessels.
      const ghostHits = without.detections.filter((d) => ghosts.some((f) => near(d, f, 150)));
      expect(ghostHits.length).toBeGreaterThanOrEqual(3);
      // With it: none of them, every vessel kept, nothing else.
      expect(withTest.detections.filter((d) => ghosts.some((f) => near(d, f, 150)))).toHaveLength(0);
      expect(withTest.ambiguities).toBe(ghostHits.length);
      for (const v of vessels) expect(withTest.detections.some((d) => near(d, v, 100)), v.properties.id).toBe(true);
      expect(withTest.detections).toHaveLength(vessels.length);
    } finally {
      await product.close();
    }
  }, 120_000);
});
