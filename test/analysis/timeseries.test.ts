// Backscatter time series: deviation by hand, PELT change points on generated series with
// known breaks, the grid, the style scale, the real Santa Barbara stack (21 dates, sea and
// land bursts), generated stacks with known change dates, and measured coverage (Enga).
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SimRandom } from '../../training/change/simulate.ts';
import {
  buildCellGrid,
  cellOfMapPoint,
  detectTimeseries,
  deviationStyle,
  latestDeviation,
  movingStatistics,
  peltMeanShift,
  robustNoiseSigma,
  type TimeseriesChart,
  type TimeseriesResult,
} from '../../src/analysis/timeseries/index.ts';
import { geodesicAreaSqkm, geodesicAreaSqm, intersectAoi, parseAoiWkt, type AoiGeometry } from '../../src/geo/index.ts';
import { lonLatTransform, openRasterProduct } from '../../src/imagery/index.ts';
import { writeRtcStack } from '../../src/synth/index.ts';
import { S1_DATA } from '../helpers/samples.ts';
import { evaluateGeneratedBreaks, scoreSeriesBreaks, scoreStackBreaks } from './timeseriesEval.ts';

const MIB = 1 << 20;
const SB_ROOT = path.join(S1_DATA, 'rtc-stack-santabarbara/tests/test_data/cropped/10SGD/137');
const ENGA_DIR = path.join(S1_DATA, 'rtc-stack-png-enga/tests/test_data/T009_019294_IW2_cropped');

describe('deviation = (latest − moving average) / moving std', () => {
  it('matches a hand computation (window of the previous 5 observations)', () => {
    // Previous five: 1 2 3 4 5 → mean 3, sample std √2.5 = 1.5811; latest 10 → 7 / 1.5811 = 4.4272.
    const d = latestDeviation([1, 2, 3, 4, 5, 10], { window: 5 });
    expect(d).toBeCloseTo(7 / Math.sqrt(2.5), 10);
    // Window 3: previous 3 4 5 → mean 4, std 1 → (10 − 4) / 1 = 6.
    expect(latestDeviation([1, 2, 3, 4, 5, 10], { window: 3 })).toBeCloseTo(6, 10);
  });

  it('skips missing observations in the window, and is null when the latest value is missing or the window too short', () => {
    expect(latestDeviation([1, Number.NaN, 2, 3, Number.NaN, 4, 5, 10], { window: 5 })).toBeCloseTo(7 / Math.sqrt(2.5), 10);
    expect(latestDeviation([1, 2, 3, 4, 5, Number.NaN], { window: 5 })).toBeNull();
    expect(latestDeviation([1, 2, 10], { window: 5, minObservations: 3 })).toBeNull();
    expect(latestDeviation([], {})).toBeNull();
  });

  it('floors the moving std (a flat series does not explode)', () => {
    expect(latestDeviation([-10, -10, -10, -10, -9], { window: 4, stdFloorDb: 0.1 })).toBeCloseTo(10, 10);
  });

  it('moving statistics use the observations before each index, not the index itself', () => {
    const { mean, std } = movingStatistics([2, 4, 6, 8, 100], { window: 3, minObservations: 2 });
    expect(mean[0]).toBeNaN();
    expect(mean[1]).toBeNaN();
    expect(mean[2]).toBe(3);
    expect(std[2]).toBeCloseTo(Math.SQRT2, 10);
    expect(mean[4]).toBe(6); // 4 6 8 — the 100 does not dampen itself
  });
});

describe('change points (PELT, Gaussian mean shift, BIC-like penalty)', () => {
  it('finds the exact breaks of a clean step series', () => {
    const x = Float64Array.from([0, 0, 0, 0, 0, 5, 5, 5, 5, 5, 5, -3, -3, -3, -3]);
    expect(peltMeanShift(x, x.length, 1, 2 * Math.log(x.length))).toEqual([5, 11]);
  });

  it('estimates the noise from first differences, robust to a level shift', () => {
    const rng = new SimRandom(5);
    const v = Array.from({ length: 400 }, (_, t) => (t < 200 ? 0 : 10) + 0.8 * rng.normal());
    expect(robustNoiseSigma(v)).toBeGreaterThan(0.7);
    expect(robustNoiseSigma(v)).toBeLessThan(0.9);
  });

  it('dates ≥ 90 % of true breaks within one revisit on generated series; series without breaks stay quiet', () => {
    // 300 series: 20–90 dates (12-day revisit), noise 0.3–1.2 dB, 0–2 breaks of 3–8 σ, 5 % missing VV values.
    const s = evaluateGeneratedBreaks(2024, 300);
    expect(s.breaks).toBeGreaterThan(250);
    expect(s.breakFreeSeries).toBe(75);
    expect(s.fractionDated).toBeGreaterThanOrEqual(0.9);
    expect(1 - s.breakFreeWithDetection / s.breakFreeSeries).toBeGreaterThanOrEqual(0.9);
  });

  it('scores breaks by the nearest change point, in acquisitions', () => {
    const s = scoreSeriesBreaks([
      { breaks: [10, 30], detected: [11, 20] },
      { breaks: [5], detected: [] },
      { breaks: [], detected: [7] },
      { breaks: [], detected: [] },
    ]);
    expect(s.errors).toEqual([1, 10, Infinity]);
    expect(s.dated).toBe(1);
    expect(s.exact).toBe(0);
    expect(s.fractionDated).toBeCloseTo(1 / 3, 10);
    expect(s.breakFreeSeries).toBe(2);
    expect(s.breakFreeWithDetection).toBe(1);
    expect(s.extraChangePoints).toBe(2); // 20 (10 from both breaks) and 7
  });
});

describe('style by deviation (simplestyle keys, diverging scale)', () => {
  it('maps deviation classes to the documented colours', () => {
    expect(deviationStyle(null)).toEqual({ fill: '#bdbdbd', 'fill-opacity': 0.2, stroke: '#636363', 'stroke-width': 0.5 });
    expect(deviationStyle(0).fill).toBe('#f7f7f7');
    expect(deviationStyle(1.5).fill).toBe('#fddbc7');
    expect(deviationStyle(2.5).fill).toBe('#ef8a62');
    expect(deviationStyle(7).fill).toBe('#b2182b');
    expect(deviationStyle(-1.5).fill).toBe('#d1e5f0');
    expect(deviationStyle(-2.5).fill).toBe('#67a9cf');
    expect(deviationStyle(-3).fill).toBe('#2166ac');
    expect(deviationStyle(5)['fill-opacity']).toBeGreaterThan(deviationStyle(0)['fill-opacity']);
  });
});

describe('the cell grid', () => {
  // A 2.05 × 1.5 km box and a triangle near Santa Barbara (UTM 11N).
  const utm = lonLatTransform(32611);
  const ll = (x: number, y: number) => utm.toLonLat(x, y);
  const box: AoiGeometry = { type: 'Polygon', coordinates: [[ll(240_030, 3_800_010), ll(242_080, 3_800_010), ll(242_080, 3_801_510), ll(240_030, 3_801_510), ll(240_030, 3_800_010)]] };
  const triangle: AoiGeometry = { type: 'Polygon', coordinates: [[ll(240_000, 3_800_000), ll(243_000, 3_800_500), ll(241_000, 3_802_700), ll(240_000, 3_800_000)]] };

  it('aligns cells to multiples of the cell size in UTM and clips them to the AOI', () => {
    const grid = buildCellGrid(box, 32611, 100);
    expect(grid.originX % 100).toBe(0);
    expect(grid.originY % 100).toBe(0);
    // Columns 240000…242100 (21), rows 3801600…3800000 (16); the outer ring of cells is clipped.
    expect(grid.cols).toBe(21);
    expect(grid.rows).toBe(16);
    expect(grid.cells).toHaveLength(21 * 16);
    const full = grid.cells.filter((c) => !c.clipped);
    expect(full).toHaveLength(19 * 14);
    // 100 m × 100 m in UTM; on the ellipsoid 1e4 / k² with scale factor k ≈ 1.0004 here.
    for (const c of full) {
      expect(geodesicAreaSqm(c.geometry)).toBeGreaterThan(9980);
      expect(geodesicAreaSqm(c.geometry)).toBeLessThan(10_000);
    }
    const total = grid.cells.reduce((s, c) => s + geodesicAreaSqm(c.geometry), 0);
    expect(total / 1e6).toBeCloseTo(geodesicAreaSqkm(box), 3);
    for (const c of grid.cells) {
      const inside = intersectAoi(c.geometry, box);
      expect(geodesicAreaSqm(inside!)).toBeGreaterThan(0.999 * geodesicAreaSqm(c.geometry));
    }
    // A point in cell (row, col) maps back to it.
    const c = grid.cells[40]!;
    expect(cellOfMapPoint(grid, grid.originX + (c.col + 0.5) * 100, grid.originY - (c.row + 0.5) * 100)).toBe(c.index);
  });

  it('covers a triangle with full interior cells and clipped boundary cells, areas adding up', () => {
    const grid = buildCellGrid(triangle, 32611, 100);
    const total = grid.cells.reduce((s, c) => s + geodesicAreaSqm(c.geometry), 0) / 1e6;
    expect(total).toBeCloseTo(geodesicAreaSqkm(triangle), 3);
    expect(grid.cells.some((c) => c.clipped)).toBe(true);
    expect(grid.cells.filter((c) => !c.clipped).length).toBeGreaterThan(200);
  });
});

function sbScenes(burst: string): Array<{ date: string; vv: string; vh: string }> {
  return readdirSync(SB_ROOT)
    .sort()
    .map((date) => {
      const files = readdirSync(path.join(SB_ROOT, date)).filter((f) => f.includes(burst));
      return {
        date,
        vv: path.join(SB_ROOT, date, files.find((f) => f.endsWith('_VV.tif'))!),
        vh: path.join(SB_ROOT, date, files.find((f) => f.endsWith('_VH.tif'))!),
      };
    });
}

async function innerAoi(file: string, margin: number): Promise<AoiGeometry> {
  const r = await openRasterProduct(file);
  const c = (row: number, col: number) => r.pixelToLonLat(row, col);
  const lo = margin;
  const hi = r.width - 1 - margin;
  const aoi: AoiGeometry = { type: 'Polygon', coordinates: [[c(lo, lo), c(lo, hi), c(hi, hi), c(hi, lo), c(lo, lo)]] };
  await r.close();
  return aoi;
}

const median = (values: number[]): number => {
  const s = values.filter(Number.isFinite).sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
};

describe('Santa Barbara, 21 real OPERA RTC dates (2021-11-19 → 2025-01-02)', () => {
  let sea: TimeseriesResult;
  let land: TimeseriesResult;
  let seaAoi: AoiGeometry;
  beforeAll(async () => {
    const seaScenes = sbScenes('T137-292324-IW1');
    const landScenes = sbScenes('T137-292319-IW2');
    seaAoi = await innerAoi(seaScenes[0]!.vv, 5);
    sea = await detectTimeseries(seaScenes, { aoi: seaAoi, maxRequestBytes: MIB });
    land = await detectTimeseries(landScenes, { aoi: await innerAoi(landScenes[0]!.vv, 5), maxRequestBytes: MIB });
  });

  it('one Feature per grid cell with data, each with the documented members', () => {
    expect(sea.result.features.length).toBe(sea.stats.cellsWithData);
    expect(sea.stats.cells).toBeGreaterThan(600); // ~7 km² of 100 m cells
    for (const f of sea.result.features) {
      const p = f.properties;
      expect(p.confidence).toBeNull();
      expect(p.area_sqm).toBeGreaterThan(0);
      expect(p.area_sqm).toBeLessThan(1.01e4);
      expect(p.deviation === null || Number.isFinite(p.deviation)).toBe(true);
      expect(Array.isArray(p.changePointDates)).toBe(true);
      expect(p).toMatchObject(deviationStyle(p.deviation as number | null));
    }
  });

  it('chart arrays hold all 21 dates, ascending, index-aligned', () => {
    const dates = readdirSync(SB_ROOT).sort();
    for (const f of sea.result.features) {
      const chart = f.properties.chart as TimeseriesChart;
      expect(chart.dates).toEqual(dates);
      for (const key of ['vv', 'vh', 'movingAverage'] as const) expect(chart[key]).toHaveLength(21);
      expect(chart.band.lower).toHaveLength(21);
      expect(chart.band.upper).toHaveLength(21);
      for (let i = 1; i < chart.dates.length; i++) expect(chart.dates[i]! > chart.dates[i - 1]!).toBe(true);
      for (const d of f.properties.changePointDates as string[]) expect(chart.dates).toContain(d);
    }
  });

  it('deviation agrees with the chart: (last value − last moving average) / half the band width × 2', () => {
    for (const f of sea.result.features.slice(0, 50)) {
      const c = f.properties.chart as TimeseriesChart;
      const dev = f.properties.deviation as number | null;
      const last = c.vv[20];
      const m = c.movingAverage[20];
      if (dev === null || last === null || m === null) continue;
      const std = (c.band.upper[20]! - c.band.lower[20]!) / 4; // band = ± 2 std
      expect(dev).toBeCloseTo((last - m) / std, 0);
    }
  });

  it('sea (IW1): VV in the sea range with very dark low-wind dates; VH far below VV', () => {
    const perDate = (key: 'vv' | 'vh') =>
      Array.from({ length: 21 }, (_, k) => median(sea.result.features.map((f) => (f.properties.chart as TimeseriesChart)[key][k] ?? Number.NaN)));
    const vv = perDate('vv');
    const vh = perDate('vh');
    for (const v of vv) {
      expect(v).toBeGreaterThan(-30);
      expect(v).toBeLessThan(-11);
    }
    expect(Math.min(...vv)).toBeLessThan(-22); // calm sea: specular, very dark
    expect(Math.max(...vv) - Math.min(...vv)).toBeGreaterThan(8); // wind changes sea backscatter a lot
    expect(median(vh)).toBeLessThan(median(vv) - 8);
  });

  it('land/urban (IW2): VV around −8 dB, far brighter and steadier than the sea', () => {
    const vv = Array.from({ length: 21 }, (_, k) => median(land.result.features.map((f) => (f.properties.chart as TimeseriesChart).vv[k] ?? Number.NaN)));
    for (const v of vv) {
      expect(v).toBeGreaterThan(-12);
      expect(v).toBeLessThan(-4);
    }
    expect(Math.max(...vv) - Math.min(...vv)).toBeLessThan(4);
    const seaMedian = median(sea.result.features.flatMap((f) => (f.properties.chart as TimeseriesChart).vv.map((v) => v ?? Number.NaN)));
    expect(median(vv)).toBeGreaterThan(seaMedian + 4);
  });

  it('coverage is measured from the cells with data and is resubmittable', () => {
    expect(sea.coverage.method).toBe('measured');
    expect(sea.coverage.requested_area_sqkm).toBeCloseTo(geodesicAreaSqkm(seaAoi), 5);
    expect(sea.coverage.ratio).toBeGreaterThanOrEqual(0.98);
    const total = sea.result.features.reduce((s, f) => s + f.properties.area_sqm, 0) / 1e6;
    expect(sea.areaSqkm).toBeCloseTo(total, 2);
    const geom = parseAoiWkt(sea.coverage.polygon!);
    expect(geodesicAreaSqkm(geom)).toBeCloseTo(sea.areaSqkm, 1);
  });
});

describe('generated stacks with known change dates', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'sarwatch-ts-'));
  });
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  async function run(scene: 'farmland' | 'city', count: number, width: number) {
    const out = path.join(dir, scene);
    const stack = await writeRtcStack(out, { scene, seed: 11, center: [5.6, 52.4], start: '2023-02-01', count, track: 88, compression: 'none', width });
    const truth = JSON.parse(await readFile(stack.groundTruthPath, 'utf8')) as {
      features: Array<{ geometry: AoiGeometry; properties: { change_dates?: string[] } }>;
    };
    const scenes = stack.dates.map((date, k) => ({ date, vv: stack.files[2 * k]!, vh: stack.files[2 * k + 1]! }));
    const raster = await openRasterProduct(scenes[0]!.vv);
    const aoi: AoiGeometry = { type: 'Polygon', coordinates: raster.bounds().coordinates };
    await raster.close();
    return { result: await detectTimeseries(scenes, { aoi, maxRequestBytes: MIB }), truth, stack };
  }

  it('farmland (30 m, 30 dates): harvests dated within one revisit for ≥ 90 % of the field cells', async () => {
    const { result, stack } = await run('farmland', 30, 120);
    expect(result.stats.dates).toBe(30);
    const truth = JSON.parse(await readFile(stack.groundTruthPath, 'utf8'));
    const s = scoreStackBreaks(result, truth, 0.99);
    expect(s.total).toBeGreaterThan(100);
    expect(s.within / s.total).toBeGreaterThanOrEqual(0.9);
  });

  it('city (10 m, 24 dates): forest clearing and flood dated within one revisit', async () => {
    const { result, truth } = await run('city', 24, 300);
    const s = scoreStackBreaks(result, truth, 0.5);
    expect(s.total).toBeGreaterThanOrEqual(2);
    expect(s.within / s.total).toBeGreaterThanOrEqual(0.9);
  });
});

describe('measured coverage with no-data (Enga, ~65 % no-data, 10 VH dates)', () => {
  it('counts only cells with data: ratio ≈ 0.35 of the full extent', async () => {
    const files = readdirSync(ENGA_DIR).filter((f) => f.endsWith('.tif')).sort();
    const scenes = files.map((f) => {
      const [, y, m, d] = /_(\d{4})(\d{2})(\d{2})T/.exec(f)!;
      return { date: `${y}-${m}-${d}`, vh: path.join(ENGA_DIR, f) };
    });
    expect(scenes[0]!.date).toBe('2024-01-23');
    const r = await openRasterProduct(scenes[0]!.vh);
    const aoi: AoiGeometry = { type: 'Polygon', coordinates: r.bounds().coordinates };
    await r.close();
    const out = await detectTimeseries(scenes, { aoi, maxRequestBytes: MIB });
    expect(out.coverage.ratio).toBeGreaterThanOrEqual(0.33);
    expect(out.coverage.ratio).toBeLessThanOrEqual(0.38);
    const wkt = out.coverage.polygon!;
    expect(wkt.length).toBeLessThanOrEqual(MIB - 1024);
    expect(geodesicAreaSqkm(parseAoiWkt(wkt))).toBeCloseTo(out.areaSqkm, 0);
    for (const f of out.result.features) {
      const c = f.properties.chart as TimeseriesChart;
      expect(c.vv.every((v) => v === null)).toBe(true); // no VV in this stack
      expect(c.channel).toBe('vh');
      expect(c.vh).toHaveLength(10);
    }
  });
});
