// Building change end to end on RTC GeoTIFFs: generated city stacks with ground truth
// (src/synth writeRtcStack), the real Enga stack for measured coverage (~65 % no-data), grid
// relations between pre and post, AOI clipping, and the Result rules.
import { mkdtemp, rm } from 'node:fs/promises';
import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CHANGE_MODEL, detectChangeInRtcPair, gridRelation, readOnReferenceGrid, type RtcPairResult } from '../../src/analysis/change/index.ts';
import { closeAnalysisPool } from '../../src/analysis/engine/pool.ts';
import { bboxOf, geodesicAreaSqkm, geodesicAreaSqm, intersectAoi, parseAoiWkt, type AoiGeometry } from '../../src/geo/index.ts';
import { openRasterProduct } from '../../src/imagery/index.ts';
import type { RasterProduct } from '../../src/imagery/index.ts';
import { writeRtcStack, type WriteRtcResult } from '../../src/synth/index.ts';
import { writeTiff } from '../../src/synth/tiff.ts';
import { S1_DATA } from '../helpers/samples.ts';
import { changedOverlappingOthers, pixelIou, readBuildings, scoreBuildingChange, type TruthBuilding } from './changeEval.ts';

const ENGA_DIR = path.join(S1_DATA, 'rtc-stack-png-enga/tests/test_data/T009_019294_IW2_cropped');
const MIB = 1 << 20;

let dir: string;
let stack: WriteRtcResult;
let buildings: TruthBuilding[];
let imageAoi: AoiGeometry;
/** The stack's pixel grid, for pixel IoU. */
let grid: Pick<RasterProduct, 'width' | 'height' | 'lonLatToPixel'>;

const paths = (k: number) => ({ vv: stack.files[2 * k]!, vh: stack.files[2 * k + 1]! });

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'sarwatch-change-'));
  stack = await writeRtcStack(dir, {
    scene: 'city',
    seed: 21,
    center: [5.32, 52.09],
    width: 300,
    height: 300,
    start: '2023-01-01',
    count: 12,
    track: 37,
    compression: 'none',
  });
  buildings = await readBuildings(stack.groundTruthPath);
  const raster = await openRasterProduct(stack.files[0]!);
  imageAoi = { type: 'Polygon', coordinates: raster.bounds().coordinates };
  grid = { width: raster.width, height: raster.height, lonLatToPixel: (lon, lat) => raster.lonLatToPixel(lon, lat) };
  await raster.close();
});

afterAll(async () => {
  await closeAnalysisPool();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/**
 * Per-object score against the truth (test/analysis/changeEval.ts, shared with `npm run eval`):
 * a changed building of ≥ 400 m² (mostly inside the AOI) is found when a detection overlaps
 * it; a detection overlapping no changed building is a false alarm.
 */
function objectScore(out: RtcPairResult, kind: 'newbuilding' | 'disappearbuilding', pre: number, post: number, aoi: AoiGeometry) {
  return scoreBuildingChange(
    out.result.features.map((f) => f.geometry),
    buildings,
    { kind, dates: stack.dates, pre, post, aoi },
  );
}

function expectResultRules(out: RtcPairResult): void {
  const { result } = out;
  expect(result.type).toBe('FeatureCollection');
  expect('crs' in result).toBe(false);
  result.features.forEach((f, i) => {
    expect(f.id).toBe(i + 1);
    expect(f.geometry.type).toBe('Polygon');
    expect(f.properties.area_sqm).toBeGreaterThan(0);
    // Spec: median probability, bounded below by the model's detection threshold.
    expect(f.properties.confidence).not.toBeNull();
    expect(f.properties.confidence!).toBeGreaterThanOrEqual(DEFAULT_CHANGE_MODEL.threshold);
    expect(f.properties.confidence!).toBeLessThanOrEqual(1);
  });
  if (result.features.length > 0) expect(result.bbox).toHaveLength(4);
  else expect(result.bbox).toBeUndefined();
}

describe('detectChangeInRtcPair on a generated city (10 m, 12 dates)', () => {
  it('newbuilding: appeared buildings ≥ 400 m² found with per-object F1 ≥ 0.9', async () => {
    const out = await detectChangeInRtcPair(paths(0), paths(11), { aoi: imageAoi, kind: 'newbuilding', maxRequestBytes: MIB });
    const score = objectScore(out, 'newbuilding', 0, 11, imageAoi);
    expect(score.targets).toBeGreaterThan(50);
    expect(score.f1).toBeGreaterThanOrEqual(0.9);
    expectResultRules(out);
    // Pixel level: nearly every footprint pixel is detected; outlines run about a pixel wide
    // of the footprint (mixed pixels at the edges change too), so the IoU is ~0.6.
    const iou = pixelIou(out.result.features.map((f) => f.geometry), buildings, grid, { kind: 'newbuilding', dates: stack.dates, pre: 0, post: 11, aoi: imageAoi });
    expect(iou.intersection / iou.truth).toBeGreaterThan(0.95);
    expect(iou.iou).toBeGreaterThan(0.5);
    expect(iou.iou).toBeLessThan(0.8);
  });

  it('every demolished or new building of the generated city is visible: none overlaps another building', () => {
    expect(buildings.filter((b) => b.properties.vanish_date !== null).length).toBeGreaterThan(10);
    expect(changedOverlappingOthers(buildings)).toEqual([]);
  });

  it('disappearbuilding: demolished buildings ≥ 400 m² found with per-object F1 ≥ 0.9', async () => {
    const out = await detectChangeInRtcPair(paths(0), paths(11), { aoi: imageAoi, kind: 'disappearbuilding', maxRequestBytes: MIB });
    const score = objectScore(out, 'disappearbuilding', 0, 11, imageAoi);
    expect(score.targets).toBeGreaterThan(10);
    expect(score.f1).toBeGreaterThanOrEqual(0.9);
    expectResultRules(out);
  });

  it('reports nothing between two dates with no building change (vegetation and wetness still vary)', async () => {
    for (const kind of ['newbuilding', 'disappearbuilding'] as const) {
      const out = await detectChangeInRtcPair(paths(10), paths(11), { aoi: imageAoi, kind, maxRequestBytes: MIB });
      expect(out.result.features).toEqual([]);
      expect(out.result.bbox).toBeUndefined();
      expect(out.coverage.ratio).toBeGreaterThanOrEqual(0.99);
    }
  });

  it('clips results to the AOI and measures only the AOI', async () => {
    const [minx, miny, maxx, maxy] = bboxOf(imageAoi);
    const triangle: AoiGeometry = {
      type: 'Polygon',
      coordinates: [
        [
          [minx + 0.1 * (maxx - minx), miny + 0.1 * (maxy - miny)],
          [maxx - 0.1 * (maxx - minx), miny + 0.2 * (maxy - miny)],
          [minx + 0.5 * (maxx - minx), maxy - 0.1 * (maxy - miny)],
          [minx + 0.1 * (maxx - minx), miny + 0.1 * (maxy - miny)],
        ],
      ],
    };
    const out = await detectChangeInRtcPair(paths(0), paths(11), { aoi: triangle, kind: 'newbuilding', maxRequestBytes: MIB });
    expect(out.result.features.length).toBeGreaterThan(5);
    for (const f of out.result.features) {
      const inside = intersectAoi(f.geometry, triangle);
      expect(inside).not.toBeNull();
      expect(geodesicAreaSqm(inside!)).toBeGreaterThan(0.999 * f.properties.area_sqm);
    }
    const requested = geodesicAreaSqkm(triangle);
    expect(out.coverage.requested_area_sqkm).toBeCloseTo(requested, 5);
    expect(out.areaSqkm).toBeGreaterThan(0.98 * requested);
    expect(out.areaSqkm).toBeLessThan(1.01 * requested);
    expect(objectScore(out, 'newbuilding', 0, 11, triangle).f1).toBeGreaterThanOrEqual(0.9);
  });

  it('reads the post image on the pre grid: a whole-pixel offset, and resampling when the grids differ', async () => {
    // Post rasters re-written cropped by 2 columns with the origin moved by 2 pixels (offset,
    // the same ground), and with the origin moved by 0.1 m (another grid: resampled, nearest
    // neighbour, which lands on the same pixels).
    const shifted: Record<string, { vv: string; vh: string }> = {};
    for (const [name, dx, crop] of [
      ['offset', 20, 2],
      ['resample', 0.1, 0],
    ] as const) {
      const out: Record<string, string> = {};
      for (const pol of ['vv', 'vh'] as const) {
        const src = await openRasterProduct(paths(11)[pol]);
        const w = src.width - crop;
        const { data } = await src.readWindow({ x0: crop, y0: 0, width: w, height: src.height });
        const [x0, , , y0] = src.geotransform;
        out[pol] = path.join(dir, `shifted-${name}-${pol}.tif`);
        await writeTiff(
          out[pol]!,
          { width: w, height: src.height, sampleType: 'float32', nodata: Number.NaN, georeference: { type: 'epsg', epsg: src.epsg!, originX: x0 + dx, originY: y0, pixelWidth: 10, pixelHeight: 10 } },
          data[0]!,
        );
        await src.close();
      }
      shifted[name] = out as { vv: string; vh: string };
    }
    const pre = await openRasterProduct(paths(0).vv);
    const offset = await openRasterProduct(shifted.offset!.vv);
    const resampled = await openRasterProduct(shifted.resample!.vv);
    expect(gridRelation(pre, pre)).toEqual({ kind: 'identical' });
    expect(gridRelation(pre, offset)).toEqual({ kind: 'offset', dx: -2, dy: 0 });
    expect(gridRelation(pre, resampled)).toEqual({ kind: 'resample' });
    // The offset read returns exactly the original pixels.
    const original = await openRasterProduct(paths(11).vv);
    const window = { x0: 50, y0: 60, width: 30, height: 20 };
    const a = await original.readWindow(window, { bands: [0] });
    const b = await readOnReferenceGrid(pre, [offset], gridRelation(pre, offset), window);
    expect(Array.from(b.data[0]!)).toEqual(Array.from(a.data[0]!));
    const c = await readOnReferenceGrid(pre, [resampled], gridRelation(pre, resampled), window);
    expect(Array.from(c.data[0]!)).toEqual(Array.from(a.data[0]!));
    // Column 0 of the pre grid has no counterpart in the offset raster (it was cropped away).
    const edge = await readOnReferenceGrid(pre, [offset], gridRelation(pre, offset), { x0: 0, y0: 0, width: 3, height: 1 });
    expect(Array.from(edge.valid)).toEqual([0, 0, 1]);
    await Promise.all([pre, offset, resampled, original].map((r) => r.close()));

    const direct = await detectChangeInRtcPair(paths(0), paths(11), { aoi: imageAoi, kind: 'newbuilding', maxRequestBytes: MIB });
    const viaOffset = await detectChangeInRtcPair(paths(0), shifted.offset!, { aoi: imageAoi, kind: 'newbuilding', maxRequestBytes: MIB });
    const viaResample = await detectChangeInRtcPair(paths(0), shifted.resample!, { aoi: imageAoi, kind: 'newbuilding', maxRequestBytes: MIB });
    expect(viaOffset.stats.grid).toBe('offset');
    expect(viaResample.stats.grid).toBe('resample');
    // Same pixels except the two cropped columns.
    expect(Math.abs(viaOffset.result.features.length - direct.result.features.length)).toBeLessThanOrEqual(2);
    expect(objectScore(viaOffset, 'newbuilding', 0, 11, imageAoi).f1).toBeGreaterThanOrEqual(0.9);
    expect(viaResample.result).toEqual(direct.result);
  });

  it('reports progress up to 100 and honours an abort signal', async () => {
    const seen: number[] = [];
    await detectChangeInRtcPair(paths(0), paths(11), {
      aoi: imageAoi,
      kind: 'newbuilding',
      maxRequestBytes: MIB,
      params: { tileSize: 128 },
      onProgress: (p) => seen.push(p),
    });
    expect(seen.length).toBeGreaterThan(4);
    expect(seen[seen.length - 1]).toBe(100);
    expect(seen.every((p, i) => i === 0 || p >= seen[i - 1]!)).toBe(true);
    const controller = new AbortController();
    controller.abort();
    await expect(
      detectChangeInRtcPair(paths(0), paths(11), { aoi: imageAoi, kind: 'newbuilding', maxRequestBytes: MIB, signal: controller.signal }),
    ).rejects.toThrow();
  });

  it('tiles give the same detections as one tile (centroid ownership across tile borders)', async () => {
    const one = await detectChangeInRtcPair(paths(0), paths(11), { aoi: imageAoi, kind: 'newbuilding', maxRequestBytes: MIB });
    const many = await detectChangeInRtcPair(paths(0), paths(11), { aoi: imageAoi, kind: 'newbuilding', maxRequestBytes: MIB, params: { tileSize: 96 } });
    expect(many.stats.tiles).toBeGreaterThan(1);
    expect(many.result).toEqual(one.result);
    expect(many.areaSqkm).toBeCloseTo(one.areaSqkm, 6);
    // …and on worker threads (src/analysis/engine pool), tiles finishing in any order.
    const threaded = await detectChangeInRtcPair(paths(0), paths(11), {
      aoi: imageAoi,
      kind: 'newbuilding',
      maxRequestBytes: MIB,
      params: { tileSize: 96, threads: 2 },
    });
    expect(threaded.result).toEqual(one.result);
    expect(threaded.areaSqkm).toBeCloseTo(one.areaSqkm, 6);
    expect(threaded.coverage).toEqual(many.coverage);
  });
});

describe('measured coverage (Enga, ~65 % no-data)', () => {
  const files = readdirSync(ENGA_DIR).filter((f) => f.endsWith('.tif')).sort().map((f) => path.join(ENGA_DIR, f));
  let extent: AoiGeometry;
  let out: RtcPairResult;

  beforeAll(async () => {
    const raster = await openRasterProduct(files[0]!);
    extent = { type: 'Polygon', coordinates: raster.bounds().coordinates };
    await raster.close();
    // VH only (the raw Enga files carry VH): the VH coefficient set runs.
    out = await detectChangeInRtcPair({ vh: files[0]! }, { vh: files[files.length - 1]! }, { aoi: extent, kind: 'newbuilding', maxRequestBytes: MIB });
  });

  it('excludes no-data in either image from area_sqkm and the ratio (≈ 0.35 of the full extent)', () => {
    expect(out.coverage.method).toBe('measured');
    expect(out.coverage.requested_area_sqkm).toBeCloseTo(geodesicAreaSqkm(extent), 5);
    // 350 × 250 pixels of 30 m ≈ 78.75 km², ~34.7 % valid on both dates.
    expect(out.coverage.ratio).toBeGreaterThanOrEqual(0.33);
    expect(out.coverage.ratio).toBeLessThanOrEqual(0.36);
    expect(out.areaSqkm).toBeCloseTo((out.stats.validPixels * 900 * (out.coverage.requested_area_sqkm / 78.75)) / 1e6, 1);
    // The ratio is floored to two decimals.
    expect(out.coverage.ratio).toBe(Math.floor((out.areaSqkm / out.coverage.requested_area_sqkm) * 100) / 100);
  });

  it('coverage.polygon is the valid extent as resubmittable WKT within the request budget', () => {
    const wkt = out.coverage.polygon!;
    expect(wkt).toMatch(/^(POLYGON|MULTIPOLYGON) \(/);
    expect(wkt.length).toBeLessThanOrEqual(MIB - 1024);
    const geom = parseAoiWkt(wkt);
    // The analysed extent is about the analysed area (holes of no-data pixels included).
    expect(geodesicAreaSqkm(geom)).toBeGreaterThan(0.95 * out.areaSqkm);
    expect(geodesicAreaSqkm(geom)).toBeLessThan(1.05 * out.areaSqkm);
    // …and lies within the requested polygon.
    expect(geodesicAreaSqkm(intersectAoi(geom, extent)!)).toBeCloseTo(geodesicAreaSqkm(geom), 3);
  });

  it('is simplified to fit a small request size limit and still parses', async () => {
    for (const limit of [4096, 2048]) {
      const small = await detectChangeInRtcPair({ vh: files[0]! }, { vh: files[files.length - 1]! }, { aoi: extent, kind: 'newbuilding', maxRequestBytes: limit });
      expect(small.coverage.polygon!.length).toBeLessThanOrEqual(limit - 1024);
      const geom = parseAoiWkt(small.coverage.polygon!);
      expect(geodesicAreaSqkm(geom)).toBeGreaterThan(0.8 * small.areaSqkm);
      expect(small.areaSqkm).toBe(out.areaSqkm);
      expect(small.coverage.ratio).toBe(out.coverage.ratio);
    }
  });

  it('a MULTIPOLYGON when no-data splits the analysed area', async () => {
    // Two separate parts of the valid area: an AOI made of two boxes.
    const [minx, miny, maxx, maxy] = bboxOf(extent);
    const box = (x0: number, x1: number, y0: number, y1: number) => [
      [minx + x0 * (maxx - minx), miny + y0 * (maxy - miny)],
      [minx + x1 * (maxx - minx), miny + y0 * (maxy - miny)],
      [minx + x1 * (maxx - minx), miny + y1 * (maxy - miny)],
      [minx + x0 * (maxx - minx), miny + y1 * (maxy - miny)],
      [minx + x0 * (maxx - minx), miny + y0 * (maxy - miny)],
    ] as [number, number][];
    // Valid data lies on a diagonal band from lower left to upper right.
    const aoi: AoiGeometry = { type: 'MultiPolygon', coordinates: [[box(0.1, 0.3, 0.2, 0.4)], [box(0.6, 0.85, 0.55, 0.75)]] };
    const two = await detectChangeInRtcPair({ vh: files[0]! }, { vh: files[1]! }, { aoi, kind: 'newbuilding', maxRequestBytes: MIB });
    expect(two.coverage.polygon).toMatch(/^MULTIPOLYGON/);
    expect(parseAoiWkt(two.coverage.polygon!).type).toBe('MultiPolygon');
  });

  it('an AOI outside the raster: nothing analysed, ratio 0, polygon null', async () => {
    const far: AoiGeometry = { type: 'Polygon', coordinates: [[[10, 10], [10.01, 10], [10.01, 10.01], [10, 10.01], [10, 10]]] };
    const none = await detectChangeInRtcPair({ vh: files[0]! }, { vh: files[1]! }, { aoi: far, kind: 'newbuilding', maxRequestBytes: MIB });
    expect(none.areaSqkm).toBe(0);
    expect(none.coverage).toMatchObject({ method: 'measured', ratio: 0, polygon: null });
    expect(none.result.features).toEqual([]);
  });
});
