// The building-change quicklook of a GRD pair (detect family) from the pair tiles' own copy of
// the later SAFE (change/grdQuicklookCopy.ts): the tiles read the pair geocoded onto a UTM grid,
// the picture is the later SAFE in image geometry; each tile pools DN² of the picture's blocks it
// owns from the GRD windows its geocoded read decodes, and the quicklook reads only the runs no
// tile pooled. On a generated GRD pair (land, towns, new districts in the later date): the copy
// is the same whatever the tiling (tiles of 96 px on the pool and on this thread; one tile whose
// geocoded read takes several GRD windows), most blocks come from the tiles, and the picture is
// the strided read's pixel for pixel; the detections do not change with the copy.
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detectChangeInPair } from '../../src/analysis/change/index.ts';
import type { GrdPooledBlocks } from '../../src/analysis/change/grdQuicklookCopy.ts';
import { closeAnalysisPool } from '../../src/analysis/engine/pool.ts';
import { newbuildingModule } from '../../src/analysis/modules/change.ts';
import { detectFamilyGrid, grdBandSource } from '../../src/analysis/modules/rtcInput.ts';
import { makeQuicklook } from '../../src/analysis/quicklook/index.ts';
import type { AnalysisContext, ResolvedInput } from '../../src/analysis/port.ts';
import type { Polygon, Position } from '../../src/geo/types.ts';
import { trackAcquisitions, writeSafeGrd, type SafeGrdSpec } from '../../src/synth/index.ts';
import { quicklookBlocksFor } from '../../src/worker/quicklook.ts';

const CENTER: [number, number] = [3.0, 50.8];
const WIDTH = 1000;
const HEIGHT = 800;
const KM_LON = 1 / (111.32 * Math.cos((CENTER[1] * Math.PI) / 180));

function box(cx: number, cy: number, halfKmX: number, halfKmY = halfKmX): Position[][] {
  const dx = halfKmX * KM_LON;
  const dy = halfKmY / 111.32;
  return [[[cx - dx, cy - dy], [cx + dx, cy - dy], [cx + dx, cy + dy], [cx - dx, cy + dy], [cx - dx, cy - dy]]];
}

// The central 3.6 × 2.8 km of the 10 × 8 km scene: the picture's window (the AOI's frame in image geometry) reaches past the analysed region.
const AOI: Polygon = { type: 'Polygon', coordinates: box(CENTER[0], CENTER[1], 1.8, 1.4) };

let dir: string;
let earlier: string;
let later: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'ql-grd-change-'));
  const acquisitions = trackAcquisitions('S1A', 161, 'ascending', CENTER[1] - 0.04, new Date('2024-05-01T00:00:00Z'), 2, 12);
  const towns = [box(CENTER[0] - 0.01, CENTER[1] + 0.005, 0.4), box(CENTER[0] + 0.012, CENTER[1] - 0.004, 0.3)];
  const district = box(CENTER[0] + 0.004, CENTER[1] + 0.006, 0.25);
  const spec = (k: 0 | 1): SafeGrdSpec => ({
    seed: 900 + k,
    areaSeed: 900,
    start: acquisitions[k]!.time,
    center: CENTER,
    width: WIDTH,
    height: HEIGHT,
    passDirection: 'ascending',
    wind: { speed: 6, directionDeg: 250 },
    surfaces: [{ kind: 'land', polygon: box(CENTER[0], CENTER[1], 20) }, ...towns.map((polygon) => ({ kind: 'urban' as const, polygon })), ...(k ? [{ kind: 'urban' as const, polygon: district }] : [])],
  });
  earlier = (await writeSafeGrd(dir, spec(0))).productPath;
  later = (await writeSafeGrd(dir, spec(1))).productPath;
}, 120_000);

afterAll(async () => {
  await closeAnalysisPool();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const pixels = (png: Uint8Array) => {
  const d = PNG.sync.read(Buffer.from(png));
  return `${d.width}x${d.height} ${createHash('sha256').update(d.data).digest('hex')}`;
};

describe('the pair tiles’ copy for a GRD pair’s building-change quicklook (detect family, generated)', () => {
  it('is the same whatever the tiling, mostly the tiles’ own, and gives the strided read’s picture', async () => {
    const grid = detectFamilyGrid(AOI);
    const sources = (product: string) => ({ vv: grdBandSource(product, 'VV', grid), vh: grdBandSource(product, 'VH', grid) });
    const scene = (product: string) => ({ productType: 'GRD', assets: { product: { href: product }, vv: { href: product }, vh: { href: product } } }) as never;
    const input: ResolvedInput = { kind: 'pair', earlier: scene(earlier), later: scene(later), extent: AOI, aoi: AOI };
    const blocks = quicklookBlocksFor('newbuilding', input)!;
    const run = (threads: number, tileSize: number, asked = true) =>
      detectChangeInPair(sources(earlier), sources(later), { aoi: AOI, kind: 'newbuilding', maxRequestBytes: 1 << 20, params: { threads, tileSize, regionHalo: 8 }, ...(asked ? { quicklookBlocks: blocks } : {}) });

    const pooled = await run(2, 96);
    expect(pooled.stats.tiles).toBeGreaterThan(9);
    expect(pooled.quicklookCopy).toBeUndefined();
    const copy = pooled.grdQuicklookCopy!;
    expect(copy.grid).toMatchObject({ polarisation: 'VV', lines: 1 });
    expect(copy.grid.rows * copy.grid.runs).toBe(copy.covered.length);
    // Most blocks come from the tiles (the rest: the picture's window past the analysed region).
    const covered = copy.covered.reduce((s, c) => s + c, 0);
    expect(covered).toBeGreaterThan(0.4 * copy.covered.length);
    expect(covered).toBeLessThan(copy.covered.length);
    // A block the tiles did not pool holds nothing.
    for (let k = 0; k < copy.covered.length; k++) if (!copy.covered[k]) expect(copy.counts[k]! + copy.sumDn2[k]!).toBe(0);

    // The same copy on this thread, and from one tile whose geocoded read takes several GRD windows (blocks of 1,280 px at most).
    const same = (other: GrdPooledBlocks) => {
      expect(other.grid).toEqual(copy.grid);
      expect(Buffer.from(other.covered.buffer).equals(Buffer.from(copy.covered.buffer))).toBe(true);
      expect(Buffer.from(other.counts.buffer).equals(Buffer.from(copy.counts.buffer))).toBe(true);
      expect(Buffer.from(other.sumDn2.buffer).equals(Buffer.from(copy.sumDn2.buffer))).toBe(true);
    };
    same((await run(0, 96)).grdQuicklookCopy!);
    const big = await run(2, 1400);
    expect(big.stats.tiles).toBe(1);
    same(big.grdQuicklookCopy!);
    // The detections do not change with the copy.
    const plain = await run(2, 96, false);
    expect(plain.grdQuicklookCopy).toBeUndefined();
    expect(JSON.stringify(pooled.result)).toBe(JSON.stringify(plain.result));

    // The picture from the copy is the strided read's; an emptied copy (every block pooled, none valid) draws nothing; a copy of no pooled block reads every run itself.
    const request = { endpointId: 'newbuilding' as const, family: 'detect' as const, input, result: pooled.result as never };
    const strided = (await makeQuicklook(request))!;
    const fromCopy = (await makeQuicklook({ ...request, pooled: copy }))!;
    expect(pixels(fromCopy.overlay!.png)).toBe(pixels(strided.overlay!.png));
    expect(pixels(fromCopy.quicklook)).toBe(pixels(strided.quicklook));
    expect(fromCopy.overlay!.bounds).toEqual(strided.overlay!.bounds);
    const emptied = { ...copy, counts: new Uint32Array(copy.counts.length), covered: new Uint8Array(copy.covered.length).fill(1) };
    const none = PNG.sync.read(Buffer.from((await makeQuicklook({ ...request, pooled: emptied }))!.overlay!.png));
    let opaque = 0;
    for (let i = 3; i < none.data.length; i += 4) opaque += none.data[i] ? 1 : 0;
    expect(opaque).toBe(0);
    const unpooled = { ...copy, sumDn2: new Float64Array(copy.sumDn2.length), counts: new Uint32Array(copy.counts.length), covered: new Uint8Array(copy.covered.length) };
    expect(pixels((await makeQuicklook({ ...request, pooled: unpooled }))!.overlay!.png)).toBe(pixels(strided.overlay!.png));

    // As the worker runs it: the detect-family module returns the copy when asked, with the same result as without.
    const job = { jobId: 'j', endpointId: 'newbuilding' as const, family: 'detect' as const, input, maxRequestBytes: 1_048_576 };
    const ctx = (extra: Partial<AnalysisContext> = {}): AnalysisContext => ({ reportProgress: () => {}, signal: new AbortController().signal, ...extra });
    const asked = await newbuildingModule.run(job, ctx({ quicklookBlocks: blocks }));
    const notAsked = await newbuildingModule.run(job, ctx());
    expect(notAsked.quicklookCopy).toBeUndefined();
    expect((asked.quicklookCopy as GrdPooledBlocks).covered.reduce((s, c) => s + c, 0)).toBe(covered);
    expect(JSON.stringify(asked.result)).toBe(JSON.stringify(notAsked.result));
  }, 300_000);
});
