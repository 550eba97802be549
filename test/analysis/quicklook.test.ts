// Issue 22 §1, quicklooks. Real data first: a ship job's quicklook of the real North-Sea GRD
// crop, whose overlay is bright where the 20 labelled vessels are and whose drawing marks
// them. Then the map-grid endpoints on generated RTC stacks: a time series' deviation map
// (each cell in its result's own class colour, the legend's classes), and a building-change
// job's overlay from the later RTC scene (bounds around the AOI, transparent outside it) with
// a detection drawn. The service path (routes, retention, failure) is tested through the API
// in test/api/quicklook.test.ts.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detectTimeseries } from '../../src/analysis/timeseries/index.ts';
import { detectShipsInSafe } from '../../src/analysis/ship/index.ts';
import { NORTH_SEA_SAFE, NORTH_SEA_TRUTH } from '../imagery/fixtures.ts';
import { DETECTION_STYLES, deviationMapGrid, makeQuicklook } from '../../src/analysis/quicklook/index.ts';
import { MARGIN } from '../../src/analysis/quicklook/deviationMap.ts';
import { gridPixel } from '../../src/analysis/quicklook/mercator.ts';
import { closeAnalysisPool } from '../../src/analysis/engine/pool.ts';
import { centroidLonLat, geodesicAreaSqm, type AoiGeometry, type Polygon } from '../../src/geo/index.ts';
import { openRasterProduct } from '../../src/imagery/index.ts';
import { writeRtcStack, type WriteRtcResult } from '../../src/synth/index.ts';
import type { SceneRecord } from '../../src/catalog/types.ts';
import type { ResultCollection } from '../../src/analysis/port.ts';

const MIB = 1 << 20;
let dir: string;
let stack: WriteRtcResult;
/** The stack's image outline. */
let bounds: Polygon;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'sarwatch-quicklook-'));
  stack = await writeRtcStack(path.join(dir, 'city'), { scene: 'city', seed: 11, center: [5.6, 52.4], start: '2023-02-01', count: 24, track: 88, compression: 'none', width: 300 });
  const raster = await openRasterProduct(stack.files[0]!);
  bounds = { type: 'Polygon', coordinates: raster.bounds().coordinates };
  await raster.close();
}, 120_000);
afterAll(async () => {
  await closeAnalysisPool();
  await rm(dir, { recursive: true, force: true });
});

function hex(colour: string): number[] {
  const n = Number.parseInt(colour.slice(1), 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}

function rgbAt(png: PNG, x: number, y: number): number[] {
  const i = (Math.floor(y) * png.width + Math.floor(x)) * 4;
  return [png.data[i]!, png.data[i + 1]!, png.data[i + 2]!];
}

/** A scene record with only what the quicklook reads of an RTC scene: its VV asset. */
function rtcScene(vv: string): SceneRecord {
  return { assets: { vv: { href: vv } } } as unknown as SceneRecord;
}

describe('ship on the real North-Sea GRD crop (VH, 1000 × 1000 px)', () => {
  it('the overlay is white at the labelled vessels, unlike the sea around them, and the detections are drawn there', async () => {
    const result = await detectShipsInSafe(NORTH_SEA_SAFE, {});
    const images = await makeQuicklook({ endpointId: 'ship', family: 'analyze', input: { kind: 'scene', scene: { assets: { product: { href: NORTH_SEA_SAFE } } } as never }, result });
    const overlay = PNG.sync.read(Buffer.from(images!.overlay!.png));
    const quicklook = PNG.sync.read(Buffer.from(images!.quicklook));
    const b = images!.overlay!.bounds;
    const my = (phi: number) => Math.log(Math.tan(Math.PI / 4 + (phi * Math.PI) / 360));
    const pixel = (lon: number, lat: number) => [((lon - b[0]) / (b[2] - b[0])) * overlay.width, ((my(b[3]) - my(lat)) / (my(b[3]) - my(b[1]))) * overlay.height] as const;
    /** Mean grey of the 3 × 3 pixels around (x, y) that hold data. */
    const mean3 = (x: number, y: number) => {
      let sum = 0;
      let n = 0;
      for (let dy = -1; dy <= 1; dy++) {
        for (let dx = -1; dx <= 1; dx++) {
          const i = ((Math.floor(y) + dy) * overlay.width + Math.floor(x) + dx) * 4;
          if (overlay.data[i + 3]) ((sum += overlay.data[i]!), n++);
        }
      }
      return n ? sum / n : Number.NaN;
    };
    const truth = JSON.parse(await readFile(NORTH_SEA_TRUTH, 'utf8')) as { features: { geometry: { coordinates: [number, number] } }[] };
    expect(truth.features).toHaveLength(20);
    const atVessels = truth.features.map((f) => mean3(...pixel(...f.geometry.coordinates)));
    // Measured: 20 of 20 at ≥ 250 (16 saturated); the sea's 3 × 3 means: median 161, 90th percentile 213.
    expect(atVessels.filter((v) => v >= 250).length).toBeGreaterThanOrEqual(18);
    let state = 1;
    const random = () => (state = (state * 16807) % 2147483647) / 2147483647;
    const sea: number[] = [];
    while (sea.length < 400) {
      const v = mean3(2 + random() * (overlay.width - 4), 2 + random() * (overlay.height - 4));
      if (Number.isFinite(v)) sea.push(v);
    }
    expect(sea.filter((v) => v >= 250).length / sea.length).toBeLessThan(0.05);
    // The detector's 19 detections include the 16 certain vessels: the drawing marks at least 18 of the 20 labels.
    const marked = truth.features.filter((f) => {
      const [x, y] = pixel(...f.geometry.coordinates);
      for (let dy = -10; dy <= 10; dy++) {
        for (let dx = -10; dx <= 10; dx++) {
          const rgb = rgbAt(quicklook, x + dx, y + dy);
          if (JSON.stringify(rgb) === JSON.stringify([...DETECTION_STYLES.ship!.colour])) return true;
        }
      }
      return false;
    });
    expect(marked.length).toBeGreaterThanOrEqual(18);
  }, 120_000);
});

describe('timeseries: a deviation map', () => {
  it('each whole cell is filled with its result fill colour at its centre; every class of the scale is in the legend; no overlay', async () => {
    const scenes = stack.dates.map((date, k) => ({ date, vv: stack.files[2 * k]!, vh: stack.files[2 * k + 1]! }));
    const { result } = await detectTimeseries(scenes, { aoi: bounds, maxRequestBytes: MIB });
    const deviations = result.features.map((f) => f.properties.deviation as number | null);
    // The city's flood and clearing put some cells far from their moving average: more than one class is on the map.
    expect(new Set(result.features.map((f) => f.properties.fill)).size).toBeGreaterThan(2);
    expect(deviations.some((d) => d !== null && Math.abs(d) >= 3)).toBe(true);

    const images = await makeQuicklook({ endpointId: 'timeseries', family: 'analyze', input: { kind: 'series', scenes: [], extent: bounds, aoi: bounds }, result: result as ResultCollection });
    expect(images!.overlay).toBeNull();
    const png = PNG.sync.read(Buffer.from(images!.quicklook));
    expect(Math.max(png.width, png.height)).toBeLessThanOrEqual(2048);
    const grid = deviationMapGrid(bounds);
    // Whole cells (those clipped at the AOI's edge may be thinner than its outline).
    const full = Math.max(...result.features.map((f) => f.properties.area_sqm));
    const whole = result.features.filter((f) => f.properties.area_sqm >= 0.95 * full);
    expect(whole.length).toBeGreaterThan(0.8 * result.features.length);
    let matching = 0;
    for (const f of whole) {
      const c = centroidLonLat(f.geometry as AoiGeometry);
      const [x, y] = gridPixel(grid, c.lon, c.lat);
      if (JSON.stringify(rgbAt(png, MARGIN + x, MARGIN + y)) === JSON.stringify(hex(f.properties.fill as string))) matching++;
    }
    expect(matching).toBe(whole.length);
    // The legend under the map shows the seven classes of the scale, ≤ −3 (darkest blue) to ≥ 3 (darkest red).
    const legendTop = MARGIN + grid.height;
    const below = new Set<string>();
    for (let y = legendTop; y < png.height; y++) for (let x = 0; x < png.width; x++) below.add(JSON.stringify(rgbAt(png, x, y)));
    for (const fill of ['#2166ac', '#67a9cf', '#d1e5f0', '#f7f7f7', '#fddbc7', '#ef8a62', '#b2182b', '#bdbdbd']) expect(below.has(JSON.stringify(hex(fill)))).toBe(true);
  }, 120_000);
});

describe('newbuilding (analyze family): the later RTC scene', () => {
  it('the overlay covers the AOI, is transparent outside it, and the detection is drawn in the newbuilding colour', async () => {
    const [lon, lat] = [5.6, 52.4];
    const d = 0.008;
    // A triangle inside the 3 km stack: its bounding box's upper-left corner lies outside it.
    const aoi: Polygon = { type: 'Polygon', coordinates: [[[lon - d, lat - d], [lon + d, lat - d], [lon + d, lat + d], [lon - d, lat - d]]] };
    const building: Polygon = { type: 'Polygon', coordinates: [[[lon + 0.004, lat - 0.004], [lon + 0.0046, lat - 0.004], [lon + 0.0046, lat - 0.0036], [lon + 0.004, lat - 0.0036], [lon + 0.004, lat - 0.004]]] };
    const result: ResultCollection = {
      type: 'FeatureCollection',
      features: [{ type: 'Feature', id: 1, geometry: building, properties: { area_sqm: geodesicAreaSqm(building), confidence: 0.9 } }],
    };
    const last = stack.dates.length - 1;
    const images = await makeQuicklook({
      endpointId: 'newbuilding',
      family: 'analyze',
      input: { kind: 'pair', earlier: rtcScene(stack.files[0]!), later: rtcScene(stack.files[2 * last]!), extent: aoi, aoi },
      result,
    });
    const { png: overlayBytes, bounds: b } = images!.overlay!;
    expect(b[0]).toBeLessThanOrEqual(lon - d);
    expect(b[1]).toBeLessThanOrEqual(lat - d);
    expect(b[2]).toBeGreaterThanOrEqual(lon + d);
    expect(b[3]).toBeGreaterThanOrEqual(lat + d);
    const overlay = PNG.sync.read(Buffer.from(overlayBytes));
    const pixel = (p: [number, number]): [number, number] => {
      const my = (phi: number) => Math.log(Math.tan(Math.PI / 4 + (phi * Math.PI) / 360));
      return [((p[0] - b[0]) / (b[2] - b[0])) * overlay.width, ((my(b[3]) - my(p[1])) / (my(b[3]) - my(b[1]))) * overlay.height];
    };
    const alpha = (p: [number, number]) => {
      const [x, y] = pixel(p);
      return overlay.data[(Math.floor(y) * overlay.width + Math.floor(x)) * 4 + 3];
    };
    expect(alpha([lon + d * 0.5, lat - d * 0.5])).toBe(255); // inside the triangle
    expect(alpha([lon - d * 0.8, lat + d * 0.8])).toBe(0); // the bounding box's corner, outside it
    const quicklook = PNG.sync.read(Buffer.from(images!.quicklook));
    const [bx, by] = pixel([lon + 0.0043, lat - 0.0038]);
    let drawn = 0;
    for (let y = Math.floor(by) - 12; y <= by + 12; y++) {
      for (let x = Math.floor(bx) - 12; x <= bx + 12; x++) if (JSON.stringify(rgbAt(quicklook, x, y)) === JSON.stringify([...DETECTION_STYLES.newbuilding!.colour])) drawn++;
    }
    expect(drawn).toBeGreaterThan(4);
  }, 60_000);
});
