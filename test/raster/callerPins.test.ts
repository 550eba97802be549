// Pins the outputs of the callers of the raster primitives (src/raster/) on generated inputs:
// the vectoriser, ship clusters, the change speckle filters and change tiles. The digests were
// computed at 81b97fe, before these callers were switched from their own flood fills and box
// sums to the shared ones, and the switch left every output bit-identical. The change model and
// the ship detector are calibrated on these outputs: a change to the primitives' fill order or
// summation that moves a single bit fails here (each family hashes every output value, floats
// by their float64 bits).
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { detectChangeInTile } from '../../src/analysis/change/tile.ts';
import { filterSpeckle, SpeckleScratch } from '../../src/analysis/change/speckle.ts';
import { clusterDetections, measureCluster, mergeNearbyClusters, type Cluster } from '../../src/analysis/ship/cluster.ts';
import { maskToPolygons, tracePixelRings } from '../../src/geo/vectorize.ts';
import { mulberry32 } from '../../src/prng.ts';

const BEFORE: Record<string, string> = {
  vec: '5917b5b3c4ae7f88770453738434df2dfcd6dd76ce621a3c2d75817322d2fdbb',
  ship: '38076d8d86c1fc4beaa5c4f381a8bfe3eb9ba850b73e78b6a259bbb65356f521',
  speckle: '70531126b18e250bcc34993b8b3ea32d35f7cbe2862c3790adeeb4b488a0a514',
  change: '8b6a0b84c19970154fe252792d7893c3dd5c67dda170e4e058e2beb58880879c',
};

function digests(): Record<string, string> {
  const results: Record<string, string> = {};
  const bits = (a: ArrayLike<number>): string => {
    const f = new Float64Array(a.length);
    for (let i = 0; i < a.length; i++) f[i] = a[i]!;
    return Buffer.from(f.buffer).toString('base64');
  };
  const put = (key: string, value: unknown): void => {
    const s = JSON.stringify(value, (_k, v: unknown) =>
      ArrayBuffer.isView(v) ? { typed: bits(v as unknown as ArrayLike<number>) } : typeof v === 'number' && !Number.isFinite(v) ? String(v) : v,
    );
    results[key] = createHash('sha256').update(s).digest('hex');
  };

  // Blobby random masks: threshold a smoothed noise field so components have holes and saddles.
  function blobs(rand: () => number, w: number, h: number, p: number, levels = 1): Uint8Array {
    const noise = new Float64Array(w * h).map(() => rand());
    const m = new Uint8Array(w * h);
    for (let y = 0; y < h; y++)
      for (let x = 0; x < w; x++) {
        let s = 0;
        let k = 0;
        for (let dy = -1; dy <= 1; dy++)
          for (let dx = -1; dx <= 1; dx++) {
            const yy = y + dy, xx = x + dx;
            if (yy < 0 || xx < 0 || yy >= h || xx >= w) continue;
            s += noise[yy * w + xx]!;
            k++;
          }
        const v = s / k;
        m[y * w + x] = v > 1 - p ? (levels > 1 ? 1 + ((noise[y * w + x]! * levels) | 0) % levels : 1) : 0;
      }
    return m;
  }

  // ---- vectorize
  for (let seed = 1; seed <= 12; seed++) {
    const rand = mulberry32(seed);
    const w = 20 + ((rand() * 40) | 0);
    const h = 20 + ((rand() * 40) | 0);
    const levels = seed % 3 === 0 ? 3 : 1;
    const mask = blobs(rand, w, h, 0.3 + 0.3 * rand(), levels);
    const label = seed % 4 === 1 ? Int32Array.from(mask) : seed % 4 === 2 ? Float32Array.from(mask) : mask;
    for (const connectivity of [4, 8] as const) {
      put(`vec-rings-${seed}-${connectivity}`, tracePixelRings(label, w, h, connectivity, 0.01, 1 + (seed % 3)));
      put(`vec-poly-${seed}-${connectivity}`, maskToPolygons(label, w, h, (r: number, c: number) => [10 + c * 0.001, 50 - r * 0.001], { connectivity, simplifyTolerance: seed % 2 ? 1 : 0, minPixels: seed % 4 }));
    }
  }

  // ---- ship clusters
  for (let seed = 1; seed <= 12; seed++) {
    const rand = mulberry32(100 + seed);
    const w = 30 + ((rand() * 50) | 0);
    const h = 30 + ((rand() * 50) | 0);
    const ext = blobs(rand, w, h, 0.25);
    const mask = new Uint8Array(w * h);
    const values = new Float32Array(w * h);
    const detected: number[] = [];
    for (let i = 0; i < w * h; i++) {
      values[i] = seed % 2 ? Math.round(rand() * 5) : rand() * 10; // ties for the peak on odd seeds
      if (ext[i]) mask[i] = rand() < 0.3 ? 2 : 1;
      if (mask[i] === 2) detected.push(i);
    }
    // Seeds as a two-channel run gives them: unsorted, with duplicates.
    const seeds = seed % 3 === 0 ? undefined : seed % 3 === 1 ? Int32Array.from(detected) : Int32Array.from([...detected.slice().reverse(), ...detected.filter((_, k) => k % 2)]);
    const m = mask.slice();
    const clusters = clusterDetections(m, values, w, h, seeds);
    put(`ship-clusters-${seed}`, { clusters, mask: m });
    const spacing = { range: 10 + (seed % 3), azimuth: 10 + (seed % 5) * 1.7 };
    put(`ship-measure-${seed}`, clusters.map((c: Cluster) => measureCluster(c, w, spacing)));
    const merged = mergeNearbyClusters(clusters, m, values, w, h, spacing, 25 + seed * 3);
    put(`ship-merged-${seed}`, { merged, mask: m, shapes: merged.map((c: Cluster) => measureCluster(c, w, spacing)) });
  }

  // ---- speckle
  for (let seed = 1; seed <= 8; seed++) {
    const rand = mulberry32(200 + seed);
    const w = 1 + ((rand() * 40) | 0);
    const h = 1 + ((rand() * 40) | 0);
    const values = new Float32Array(w * h).map(() => -Math.log(rand() + 1e-12) * 0.1);
    const valid = new Uint8Array(w * h).fill(1);
    if (seed % 2 === 0) for (let i = 0; i < w * h; i++) valid[i] = rand() < 0.8 ? 1 : 0;
    if (seed % 4 === 0) for (let i = 0; i < w * h; i += 7) values[i] = Number.NaN; // NaN in valid pixels too
    for (let i = 0; i < w * h; i++) if (!valid[i] && seed % 3 === 0) values[i] = Number.NaN;
    const scratch = new SpeckleScratch();
    for (const radius of [0, 1, 2, 3, 7, 50]) {
      for (const method of ['boxcar', 'trimmed', 'lee', 'none'] as const) {
        put(`speckle-${seed}-${radius}-${method}`, filterSpeckle(values, valid, w, h, { method, radius, looks: 4.4 }, undefined, seed % 2 ? scratch : undefined));
      }
    }
  }

  // ---- change tiles (labelRegions, speckle, background boxcar)
  for (let seed = 1; seed <= 6; seed++) {
    const rand = mulberry32(300 + seed);
    const w = 40 + ((rand() * 40) | 0);
    const h = 40 + ((rand() * 40) | 0);
    const n = w * h;
    const gen = (bright: Uint8Array | null) => new Float32Array(n).map((_, i) => -Math.log(rand() + 1e-12) * 0.05 * (bright && bright[i] ? 30 : 1));
    const blob = blobs(rand, w, h, 0.15);
    const pre = { vv: gen(null), vh: gen(null) };
    const post = { vv: gen(blob), vh: gen(blob) };
    const validPre = new Uint8Array(n).map(() => (rand() < 0.97 ? 1 : 0));
    const validPost = new Uint8Array(n).fill(1);
    for (const kind of ['newbuilding', 'disappearbuilding'] as const) {
      const input = kind === 'newbuilding' ? { pre, post } : { pre: post, post: pre };
      const res = detectChangeInTile(
        { ...input, validPre, validPost, width: w, height: h, pixelSizeM: 10, core: { x0: 3, y0: 2, width: w - 6, height: h - 5 } },
        { kind, params: { threshold: 0.3, minAreaSqm: 150 } },
      );
      put(`change-${seed}-${kind}`, res);
    }
  }
  const families: Record<string, string[]> = {};
  for (const [k, h] of Object.entries(results)) (families[k.split('-')[0]!] ??= []).push(`${k}:${h}`);
  return Object.fromEntries(Object.entries(families).map(([f, lines]) => [f, createHash('sha256').update(lines.join('\n')).digest('hex')]));
}

describe('callers of the raster primitives', () => {
  it('vectorize, ship clusters, speckle filters and change tiles give the outputs they gave before the switch, bit for bit', () => {
    expect(digests()).toEqual(BEFORE);
  });
});
