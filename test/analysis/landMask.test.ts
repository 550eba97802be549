import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadLandPolygons, rasterizeLandMask, rasterizeLandMasks, type LandPolygons } from '../../src/geo/landMask.ts';
import { openSafeProduct, type SafeProduct } from '../../src/imagery/index.ts';
import { Scratch } from '../../src/raster/scratch.ts';
import { NORTH_SEA_SAFE } from '../imagery/fixtures.ts';

/** Independent check: even–odd over every Natural Earth ring, no indexing, no clipping. */
function onLand(land: LandPolygons, lon: number, lat: number): boolean {
  let inside = false;
  for (const ring of land.rings) {
    const b = ring.bbox;
    if (lon < b[0] || lon > b[2] || lat < b[1] || lat > b[3]) continue;
    const k = ring.coords;
    const n = k.length / 2;
    for (let i = 0, j = n - 1; i < n; j = i++) {
      const xi = k[2 * i]!;
      const yi = k[2 * i + 1]!;
      const xj = k[2 * j]!;
      const yj = k[2 * j + 1]!;
      if (yi > lat !== yj > lat && lon < ((xj - xi) * (lat - yi)) / (yj - yi) + xi) inside = !inside;
    }
  }
  return inside;
}

// The Belgian coast, north-up, 100 m pixels: Ostend is near the middle.
const LON0 = 2.4;
const LAT0 = 51.45;
const PX = 100;
const DLAT = PX / 111_250;
const DLON = PX / (111_320 * Math.cos((51.2 * Math.PI) / 180));
const coast = {
  width: 700,
  height: 500,
  pixelToLonLat: (r: number, c: number): [number, number] => [LON0 + c * DLON, LAT0 - r * DLAT],
  lonLatToPixel: (lon: number, lat: number): [number, number] => [(LAT0 - lat) / DLAT, (lon - LON0) / DLON],
  pixelSpacing: { range: PX, azimuth: PX },
};
const at = (mask: Uint8Array, lon: number, lat: number): number => {
  const [r, c] = coast.lonLatToPixel(lon, lat);
  return mask[Math.round(r) * coast.width + Math.round(c)]!;
};

let land: LandPolygons;
let product: SafeProduct;

beforeAll(async () => {
  land = loadLandPolygons();
  product = await openSafeProduct(NORTH_SEA_SAFE);
});

afterAll(async () => {
  await product?.close();
});

describe('land mask from Natural Earth 10 m (world-atlas)', () => {
  it('loads the 10 m land polygons once (cached)', () => {
    expect(land.rings.length).toBeGreaterThan(4000);
    expect(loadLandPolygons()).toBe(land);
  });

  it('the North-Sea crop (≈ 30 km offshore) is all sea, even with a 2 km shore buffer', () => {
    const w = product.validWindow!;
    const g = product.geolocation;
    const mask = rasterizeLandMask({
      width: w.width,
      height: w.height,
      pixelToLonLat: (r, c) => g.pixelToLonLat(w.y0 + r, w.x0 + c),
      lonLatToPixel: (lon, lat) => {
        const p = g.lonLatToPixel(lon, lat);
        return [p.line - w.y0, p.pixel - w.x0];
      },
      bufferMeters: 2000,
      pixelSpacing: { range: 10, azimuth: 10 },
    });
    expect(mask.length).toBe(1_000_000);
    expect(mask.every((v) => v === 0)).toBe(true);
  });

  it('over the Belgian coast, land is where Natural Earth says (pixel-exact against a brute-force test)', () => {
    const mask = rasterizeLandMask({ ...coast, bufferMeters: 0 });
    // Known places: Ostend and Bruges inland, the open sea north of the coast.
    expect(at(mask, 2.925, 51.215)).toBe(1); // Ostend
    expect(at(mask, 3.2247, 51.2093)).toBe(1); // Bruges
    expect(at(mask, 2.7, 51.4)).toBe(0); // North Sea
    let land1 = 0;
    for (const v of mask) land1 += v;
    expect(land1 / mask.length).toBeGreaterThan(0.3);
    expect(land1 / mask.length).toBeLessThan(0.7);
    let mismatches = 0;
    let tested = 0;
    for (let r = 0; r < coast.height; r += 10) {
      for (let c = 0; c < coast.width; c += 10) {
        const [lon, lat] = coast.pixelToLonLat(r, c);
        tested++;
        if (Number(onLand(land, lon, lat)) !== mask[r * coast.width + c]) mismatches++;
      }
    }
    expect(tested).toBe(3500);
    expect(mismatches).toBe(0);
  });

  it('works from pixelToLonLat alone (Newton inverse) on a rotated, mirrored SAR-like grid', () => {
    // Ascending-pass-like geometry: lines run north-north-west, pixels east-north-east, mirrored.
    const theta = (-15 * Math.PI) / 180;
    const toLonLat = (r: number, c: number): [number, number] => {
      const north = -r * Math.cos(theta) + c * Math.sin(theta);
      const east = r * Math.sin(theta) + c * Math.cos(theta);
      return [2.6 + east * DLON, 51.3 + north * DLAT];
    };
    const mask = rasterizeLandMask({ width: 300, height: 300, pixelToLonLat: toLonLat, pixelSpacing: { range: PX, azimuth: PX } });
    let mismatches = 0;
    let landCount = 0;
    for (let r = 0; r < 300; r += 6) {
      for (let c = 0; c < 300; c += 6) {
        const [lon, lat] = toLonLat(r, c);
        const truth = onLand(land, lon, lat);
        landCount += Number(truth);
        if (Number(truth) !== mask[r * 300 + c]) mismatches++;
      }
    }
    expect(landCount).toBeGreaterThan(250);
    expect(landCount).toBeLessThan(2250);
    // Newton converges to < 1e-4 px; a vertex exactly on a pixel centre could still flip one.
    expect(mismatches).toBeLessThanOrEqual(2);
  });

  it('the shore buffer adds exactly the pixels within the buffer distance of land (to one 100 m cell)', () => {
    // 16 km × 16 km around Ostend.
    const r0 = 190;
    const c0 = 250;
    const small = {
      width: 160,
      height: 160,
      pixelToLonLat: (r: number, c: number) => coast.pixelToLonLat(r + r0, c + c0),
      lonLatToPixel: (lon: number, lat: number): [number, number] => {
        const [r, c] = coast.lonLatToPixel(lon, lat);
        return [r - r0, c - c0];
      },
      pixelSpacing: coast.pixelSpacing,
    };
    const bare = rasterizeLandMask({ ...small, bufferMeters: 0 });
    const buffered = rasterizeLandMask({ ...small, bufferMeters: 1000 });
    // Land just outside the window buffers into it too: distances over a wider bare mask.
    const margin = 12;
    const wide = rasterizeLandMask({
      ...small,
      width: 160 + 2 * margin,
      height: 160 + 2 * margin,
      pixelToLonLat: (r, c) => small.pixelToLonLat(r - margin, c - margin),
      lonLatToPixel: (lon, lat) => {
        const [r, c] = small.lonLatToPixel(lon, lat);
        return [r + margin, c + margin];
      },
      bufferMeters: 0,
    });
    let added = 0;
    let bareLand = 0;
    const W = 160 + 2 * margin;
    const landPixels: number[] = [];
    for (let i = 0; i < wide.length; i++) if (wide[i]) landPixels.push(i);
    // Every pixel against the buffered mask, brute force on a 3-pixel lattice.
    for (let r = 0; r < 160; r += 3) {
      for (let c = 0; c < 160; c += 3) {
        const i = r * 160 + c;
        if (bare[i]) {
          expect(buffered[i]).toBe(1);
          bareLand++;
          continue;
        }
        let nearest = Infinity;
        for (const k of landPixels) nearest = Math.min(nearest, Math.hypot(((k / W) | 0) - margin - r, (k % W) - margin - c) * PX);
        if (nearest <= 1000 - 100 * Math.SQRT2) expect(buffered[i]).toBe(1);
        if (nearest > 1000 + 100 * Math.SQRT2) expect(buffered[i]).toBe(0);
        added += buffered[i]!;
      }
    }
    expect(bareLand).toBeGreaterThan(200);
    expect(added).toBeGreaterThan(50);
  });

  it('an open-sea window far from any coast is all zero and costs no projection', () => {
    let projections = 0;
    const mask = rasterizeLandMask({
      width: 2000,
      height: 2000,
      pixelToLonLat: (r, c) => [-30 + c * 1e-4, 40 - r * 1e-4],
      lonLatToPixel: (lon, lat) => {
        projections++;
        return [(40 - lat) / 1e-4, (lon + 30) / 1e-4];
      },
      bufferMeters: 500,
      pixelSpacing: { range: 8, azimuth: 11 },
    });
    expect(mask.every((v) => v === 0)).toBe(true);
    expect(projections).toBe(0);
  });

  it('into a reused scratch: the same masks as fresh arrays, window after window, whatever the scratch held', () => {
    const scratch = new Scratch();
    const inland = { ...coast, width: 90, height: 70, pixelToLonLat: (r: number, c: number): [number, number] => [4.4 + c * DLON, 50.9 - r * DLAT], lonLatToPixel: undefined };
    const sea = { ...coast, width: 300, height: 200, pixelToLonLat: (r: number, c: number): [number, number] => [-30 + c * DLON, 40 - r * DLAT], lonLatToPixel: undefined };
    const cases = [
      { ...coast, bufferMeters: 1500 },
      { ...coast, width: 350, height: 260, bufferMeters: 0 },
      { ...coast, bufferMeters: 0 },
      { ...inland, bufferMeters: 0 },
      { ...sea, bufferMeters: 800 },
      { ...coast, width: 420, height: 333, bufferMeters: 700 },
    ];
    let landPixels = 0;
    for (const options of [...cases, ...cases]) {
      const fresh = rasterizeLandMask({ ...options, land });
      const reused = rasterizeLandMask({ ...options, land, scratch });
      expect(reused.buffer).toBe(scratch.array('landMask', Uint8Array, 1).buffer);
      expect(reused.length).toBe(fresh.length);
      expect(Buffer.compare(Buffer.from(reused.buffer, reused.byteOffset, reused.length), Buffer.from(fresh.buffer, fresh.byteOffset, fresh.length))).toBe(0);
      for (const v of fresh) landPixels += v;
      // Garbage for the next window: the mask and the frame.
      reused.fill(5);
      scratch.array('landMask.frame', Uint8Array, 1).fill(9);
    }
    expect(landPixels).toBeGreaterThan(100_000);
  });

  it('both masks from one fill: the buffered one and the one without the buffer (Natural Earth alone), fresh or into a scratch', () => {
    const scratch = new Scratch();
    const inland = { ...coast, width: 90, height: 70, pixelToLonLat: (r: number, c: number): [number, number] => [4.4 + c * DLON, 50.9 - r * DLAT], lonLatToPixel: undefined };
    const sea = { ...coast, width: 300, height: 200, pixelToLonLat: (r: number, c: number): [number, number] => [-30 + c * DLON, 40 - r * DLAT], lonLatToPixel: undefined };
    let bufferLand = 0;
    // `one`: the buffer adds nothing (no buffer, or a window all land or all sea), so both are one array.
    const cases = [
      { options: { ...coast, bufferMeters: 1500 }, one: false },
      { options: { ...coast, width: 420, height: 333, bufferMeters: 700 }, one: false },
      { options: { ...coast, bufferMeters: 0 }, one: true },
      { options: { ...inland, bufferMeters: 900 }, one: true },
      { options: { ...sea, bufferMeters: 800 }, one: true },
    ];
    for (const { options, one } of cases) {
      const buffered = rasterizeLandMask({ ...options, land });
      const bare = rasterizeLandMask({ ...options, land, bufferMeters: 0 });
      for (const masks of [rasterizeLandMasks({ ...options, land }), rasterizeLandMasks({ ...options, land, scratch })]) {
        expect(Array.from(masks.land)).toEqual(Array.from(buffered));
        expect(Array.from(masks.unbuffered)).toEqual(Array.from(bare));
        expect(masks.unbuffered === masks.land).toBe(one);
      }
      for (let i = 0; i < buffered.length; i++) bufferLand += buffered[i]! - bare[i]!;
    }
    expect(bufferLand).toBeGreaterThan(10_000);
  });

  it('buffered masks pinned: land counts and a hash of the land pixels as the pixel-by-pixel passes made them', () => {
    // Values from the code before the passes went by runs (main at ef77bc4): the masks must not change.
    const pinned = [
      [700, 500, 1500, 100, 192428, 2347124753],
      [613, 477, 700, 100, 134912, 278028403],
      [700, 500, 2300, 100, 199014, 2871401909],
      [1400, 1000, 900, 50, 751820, 1407079909],
    ] as const;
    for (const [w, h, buf, sp, count, hash] of pinned) {
      const k = PX / sp;
      const m = rasterizeLandMask({
        width: w,
        height: h,
        pixelToLonLat: (r, c) => coast.pixelToLonLat(r / k, c / k),
        lonLatToPixel: (lon, lat) => coast.lonLatToPixel(lon, lat).map((v) => v * k) as [number, number],
        bufferMeters: buf,
        pixelSpacing: { range: sp, azimuth: sp },
        land,
      });
      let sum = 0;
      let fnv = 2166136261;
      for (let i = 0; i < m.length; i++) {
        sum += m[i]!;
        if (m[i]) fnv = Math.imul(fnv ^ i, 16777619) >>> 0;
      }
      expect([w, h, buf, sum, fnv]).toEqual([w, h, buf, count, hash]);
    }
  });
});
