/**
 * `sarwatch analyze newbuilding|disappearbuilding PRE POST` and `analyze timeseries INPUT…`
 * on RTC GeoTIFFs (issue 5: "runs on local products … like the ship CLI"): the real OPERA
 * stacks of Santa Barbara (21 dates, a folder per date of 15 bursts) and Enga (10 dates in
 * one folder, ~65 % no-data), and a generated city with the demo archive's parameters
 * (src/synth/demo.ts) whose new and demolished buildings and change points are known.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import proj4 from 'proj4';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detectChangeInRtcPair } from '../../src/analysis/change/index.ts';
import { detectTimeseries } from '../../src/analysis/timeseries/index.ts';
import { closeAnalysisPool } from '../../src/analysis/engine/pool.ts';
import { bboxOf, geodesicAreaSqm, intersectAoi, parseAoiWkt, toWkt, type AoiGeometry, type Polygon } from '../../src/geo/index.ts';
import { openRasterProduct } from '../../src/imagery/index.ts';
import { writeRtcStack, type WriteRtcResult } from '../../src/synth/index.ts';
import { AnalyzeUsageError, runAnalyze } from '../../src/cli/analyze.ts';
import { expectResultRules } from '../helpers/resultRules.ts';
import { ENGA_DIR, NORTH_SEA_SAFE } from '../imagery/fixtures.ts';
import { S1_DATA } from '../helpers/samples.ts';
import { expectRefused, runSarwatch } from '../helpers/cli.ts';

const SB = path.join(S1_DATA, 'rtc-stack-santabarbara/tests/test_data/cropped/10SGD/137');
const SB_DATES = readdirSync(SB).sort();
const MIB = 1_048_576;

let dir: string;

const sarwatch = (...args: string[]) => runSarwatch(path.join(dir, 'data'), ...args);

interface Fc {
  type: string;
  bbox?: number[];
  features: { id: number; geometry: Polygon; properties: Record<string, any> }[];
}

let outputs = 0;
async function analyze(...args: string[]): Promise<{ fc: Fc; stderr: string }> {
  const out = path.join(dir, `out-${++outputs}.geojson`);
  const res = await sarwatch('analyze', ...args, '--out', out);
  expect(res.code, res.stderr).toBe(0);
  expect(res.stderr).toMatch(/\d+ features written to/);
  return { fc: JSON.parse(readFileSync(out, 'utf8')) as Fc, stderr: res.stderr };
}

/**
 * The same run without starting a process: runAnalyze, which `sarwatch analyze` calls after
 * parsing its arguments, writing the same file; the warnings are what it would print. For the
 * further runs of a test whose command line (each option, the stderr lines) a process run
 * checks already: on these small rasters a `sarwatch` process's start-up (node and the
 * precompiled modules it loads: ~0.6 CPU s before it reads an input, more under load) is much
 * of a run. Awaited one at a time, never beside the library
 * calls: runAnalyze ends by closing the process's analysis pool, as the command must.
 */
async function analyzeInProcess(detector: string, inputs: string[], options: Partial<Parameters<typeof runAnalyze>[0]> = {}): Promise<{ fc: Fc; warnings: string[] }> {
  const out = path.join(dir, `out-${++outputs}.geojson`);
  const warnings: string[] = [];
  const done = await runAnalyze({ detector, inputs, out, warn: (m) => warnings.push(m), ...options });
  const fc = JSON.parse(readFileSync(out, 'utf8')) as Fc;
  expect(done).toEqual({ features: fc.features.length, out, warnings });
  return { fc, warnings };
}

async function usage(pattern: RegExp, ...args: string[]): Promise<void> {
  const res = await sarwatch('analyze', ...args);
  expect(res.code, res.stderr).toBe(2);
  expect(res.stderr).toMatch(pattern);
}

/** The same check without starting a process: runAnalyze throws the usage error main() exits 2 with. */
async function refused(pattern: RegExp, detector: string, inputs: string[], options: Partial<Parameters<typeof runAnalyze>[0]> = {}): Promise<void> {
  const attempt = () => runAnalyze({ detector, inputs, out: path.join(dir, 'never.geojson'), warn: () => {}, ...options });
  await expectRefused(attempt, AnalyzeUsageError, pattern);
}

/** The same FeatureCollection as JSON (what the CLI wrote vs. what the library returns). */
const asJson = (fc: unknown) => JSON.parse(JSON.stringify(fc)) as Fc;

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'sarwatch-cli-rtc-'));
});

afterAll(async () => {
  await closeAnalysisPool();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('Santa Barbara OPERA stack (real; 21 date folders × 15 bursts, EPSG:32611)', () => {
  // Inside burst T137-292320-IW2 (coast near Point Conception).
  const POLYGON = 'POLYGON ((-119.805 34.603, -119.788 34.603, -119.788 34.620, -119.805 34.620, -119.805 34.603))';
  const burstFiles = (date: string) => {
    const files = readdirSync(path.join(SB, date)).filter((f) => f.includes('T137-292320-IW2'));
    return { vv: path.join(SB, date, files.find((f) => f.endsWith('_VV.tif'))!), vh: path.join(SB, date, files.find((f) => f.endsWith('_VH.tif'))!) };
  };

  it('timeseries over all 21 folders: one series per 100 m cell, the job\'s FeatureCollection, cell means as measured from the pixels', async () => {
    const { fc, stderr } = await analyze('timeseries', ...SB_DATES.map((d) => path.join(SB, d)), '--polygon', POLYGON);
    expectResultRules(fc, { confidence: 'number-or-null' });
    const library = await detectTimeseries(
      SB_DATES.map((date) => ({ date, ...burstFiles(date) })),
      { aoi: parseAoiWkt(POLYGON), maxRequestBytes: MIB },
    );
    expect(fc).toEqual(asJson(library.result));
    expect(fc.features.length).toBe(library.stats.cellsWithData);
    expect(library.stats.cellsWithData).toBeGreaterThan(150); // ~2.9 km² in 100 m cells
    expect(stderr).toContain(`${library.stats.cellsWithData} of ${library.stats.cells} cells have data`);
    for (const f of fc.features) expect(f.properties.chart.dates).toEqual(SB_DATES);

    // An interior cell, from the raster itself: mean linear γ0 of the pixels whose centre
    // lies in the cell, in dB, on two dates.
    const cell = fc.features.find((f) => Math.abs(f.properties.area_sqm - 10_000) < 50)!;
    const utm = proj4('EPSG:4326', '+proj=utm +zone=11 +datum=WGS84 +units=m +no_defs');
    const xy = cell.geometry.coordinates[0]!.map((p) => utm.forward(p as [number, number]));
    const [minX, maxX] = [Math.min(...xy.map((p) => p[0]!)), Math.max(...xy.map((p) => p[0]!))];
    const [minY, maxY] = [Math.min(...xy.map((p) => p[1]!)), Math.max(...xy.map((p) => p[1]!))];
    expect(maxX - minX).toBeCloseTo(100, 0);
    for (const k of [0, 20]) {
      for (const pol of ['vv', 'vh'] as const) {
        const raster = await openRasterProduct(burstFiles(SB_DATES[k]!)[pol]);
        const { data, valid } = await raster.readWindow({ x0: 0, y0: 0, width: raster.width, height: raster.height });
        const [gx, gw, , gy, , gh] = raster.geotransform;
        let sum = 0;
        let n = 0;
        for (let r = 0; r < raster.height; r++) {
          for (let c = 0; c < raster.width; c++) {
            const x = gx + (c + 0.5) * gw;
            const y = gy + (r + 0.5) * gh;
            if (x < minX || x >= maxX || y <= minY || y > maxY || !valid[r * raster.width + c]) continue;
            sum += data[0]![r * raster.width + c]!;
            n++;
          }
        }
        await raster.close();
        expect(n).toBeGreaterThanOrEqual(9); // 100 m cells over 30 m pixels: 9–16 centres
        expect(cell.properties.chart[pol][k]).toBeCloseTo(10 * Math.log10(sum / n), 1);
      }
    }
  }, 180_000);

  it('newbuilding between the first and last folders (2021-11-19, 2025-01-02): the pair of the burst under the polygon, as the library gives it', async () => {
    const { fc, stderr } = await analyze('newbuilding', path.join(SB, '2021-11-19'), path.join(SB, '2025-01-02'), '--polygon', POLYGON);
    expectResultRules(fc, { confidence: 'number-or-null' });
    const library = await detectChangeInRtcPair(burstFiles('2021-11-19'), burstFiles('2025-01-02'), { aoi: parseAoiWkt(POLYGON), kind: 'newbuilding', maxRequestBytes: MIB });
    expect(fc).toEqual(asJson(library.result));
    expect(stderr).toMatch(/newbuilding T137-292320-IW2 2021-11-19 → 2025-01-02/);
    expect(stderr).toMatch(new RegExp(`analysed ${library.areaSqkm} km² \\(coverage ratio ${library.coverage.ratio}\\), channels dual`));
    expect(library.areaSqkm).toBeGreaterThan(2.5);
  }, 180_000);

  it('a polygon over two bursts: the catalog\'s pair rule takes the burst pair covering more of it, with its low-coverage warning; the folders in the wrong order still give pre = the earlier date', async () => {
    // T137-292318-IW1 and T137-292319-IW1 are 3 km crops 16 km apart along the coast.
    const two = 'POLYGON ((-120.63 34.08, -120.58 34.08, -120.58 34.265, -120.65 34.265, -120.65 34.245, -120.63 34.245, -120.63 34.08))';
    const { fc, stderr } = await analyze('disappearbuilding', path.join(SB, '2023-12-27'), path.join(SB, '2023-12-03'), '--polygon', two);
    expectResultRules(fc, { confidence: 'number-or-null' });
    expect(stderr).toMatch(/warning: The selected imagery covers \d+% of the requested polygon \(below 95%\); the rest was not analysed\./);
    expect(stderr).toMatch(/warning: PRE \(2023-12-27\) is later than POST \(2023-12-03\); 2023-12-03 is used as the earlier date/);
    expect(stderr).toMatch(/disappearbuilding T137-292318-IW1 2023-12-03 → 2023-12-27/);
  }, 180_000);
});

describe('Enga OPERA stack (real; 10 dates in one folder, VH only, ~65 % no-data)', () => {
  let polygon: string;
  const files = readdirSync(ENGA_DIR).filter((f) => f.endsWith('.tif')).sort();
  const dateOf = (f: string) => /_(\d{4})(\d{2})(\d{2})T\d{6}Z_/.exec(f)!.slice(1, 4).join('-');
  const dates = files.map(dateOf).sort();

  beforeAll(async () => {
    const raster = await openRasterProduct(path.join(ENGA_DIR, files[0]!));
    polygon = toWkt({ type: 'Polygon', coordinates: raster.bounds().coordinates });
    await raster.close();
  });

  it('timeseries of the folder: 10 dates from the file names, VH only, cells without data left out', async () => {
    const { fc, stderr } = await analyze('timeseries', ENGA_DIR, '--polygon', polygon);
    expectResultRules(fc, { confidence: 'number-or-null' });
    const library = await detectTimeseries(
      files.map((f) => ({ date: dateOf(f), vh: path.join(ENGA_DIR, f) })),
      { aoi: parseAoiWkt(polygon), maxRequestBytes: MIB },
    );
    expect(fc).toEqual(asJson(library.result));
    expect(new Set(dates).size).toBe(10);
    expect(fc.features[0]!.properties.chart.dates).toEqual([...new Set(dates)]);
    expect(fc.features[0]!.properties.chart.dates[0]).toBe('2024-01-23');
    expect(fc.features[0]!.properties.chart.dates[9]).toBe('2024-05-22');
    for (const f of fc.features) {
      expect(f.properties.chart.vv.every((v: number | null) => v === null)).toBe(true);
      expect(f.properties.chart.channel).toBe('vh');
    }
    // The no-data: a large share of the grid's cells has no value on any date.
    expect(library.stats.cellsWithData).toBeLessThan(0.8 * library.stats.cells);
    expect(library.stats.cellsWithData).toBeGreaterThan(0.2 * library.stats.cells);
    expect(stderr).toContain(`${library.stats.cellsWithData} of ${library.stats.cells} cells have data`);
  }, 180_000);

  it('issue 14: building change on one folder of 10 dates selects as a job does (selectChangePair over the dates it spans: the widest pair at equal coverage, the first and last); the two files named PRE POST give the same', async () => {
    const { fc: folder, stderr } = await analyze('newbuilding', ENGA_DIR, '--polygon', polygon);
    expect(stderr).toMatch(/newbuilding T\d{3}-\d{6}-IW\d 2024-01-23 → 2024-05-22/);
    const pre = path.join(ENGA_DIR, files.find((f) => f.includes('_20240123T'))!);
    const post = path.join(ENGA_DIR, files.find((f) => f.includes('_20240522T'))!);
    // The folder above as a process; the two files in-process.
    const { fc } = await analyzeInProcess('newbuilding', [pre, post], { polygon });
    const library = await detectChangeInRtcPair({ vh: pre }, { vh: post }, { aoi: parseAoiWkt(polygon), kind: 'newbuilding', maxRequestBytes: MIB });
    expect(fc).toEqual(asJson(library.result));
    expect(folder).toEqual(fc);
    // ~65 % no-data: the analysed area is a fraction of the raster's.
    expect(library.coverage.ratio).toBeLessThan(0.6);
    expect(library.coverage.ratio).toBeGreaterThan(0.2);
  }, 180_000);
});

describe('generated city (the demo archive\'s IJburg stack: 61 dates at 12 days, 200 × 200 px at 10 m)', () => {
  let stack: WriteRtcResult;
  let byDate: string;
  let cityPolygon: string;
  let truth: { geometry: Polygon; properties: Record<string, any> }[];

  beforeAll(async () => {
    const flat = path.join(dir, 'city-flat');
    // src/synth/demo.ts: seed DEMO_SEED + 101, IJburg, 2023-01-01, 61 dates, track 161 ascending, IW2.
    stack = await writeRtcStack(flat, { scene: 'city', seed: 20240613 + 101, center: [4.995, 52.356], start: '2023-01-01', count: 61, track: 161, passDirection: 'ascending', subswath: 'IW2' });
    truth = (JSON.parse(readFileSync(stack.groundTruthPath, 'utf8')) as { features: typeof truth }).features;
    // A folder per date, as the OPERA stacks come.
    byDate = path.join(dir, 'city');
    for (const file of stack.files) {
      const date = /_(\d{4})(\d{2})(\d{2})T\d{6}Z_/.exec(path.basename(file))!.slice(1, 4).join('-');
      mkdirSync(path.join(byDate, date), { recursive: true });
      renameSync(file, path.join(byDate, date, path.basename(file)));
    }
    const raster = await openRasterProduct(path.join(byDate, stack.dates[0]!, readdirSync(path.join(byDate, stack.dates[0]!))[0]!));
    cityPolygon = toWkt({ type: 'Polygon', coordinates: raster.bounds().coordinates });
    await raster.close();
  }, 180_000);

  const overlaps = (a: AoiGeometry, b: AoiGeometry): boolean => {
    const p = bboxOf(a);
    const q = bboxOf(b);
    if (p[2] < q[0] || q[2] < p[0] || p[3] < q[1] || q[3] < p[1]) return false;
    return intersectAoi(a, b) !== null;
  };

  /** Buildings of ≥ 400 m² that changed between the dates (not hidden under one standing on both), found and false alarms. */
  function score(fc: Fc, kind: 'newbuilding' | 'disappearbuilding', pre: string, post: string) {
    const stands = (b: (typeof truth)[number], d: string) =>
      (b.properties.appear_date === null || d >= b.properties.appear_date) && (b.properties.vanish_date === null || d < b.properties.vanish_date);
    const buildings = truth.filter((f) => f.properties.kind === 'building');
    const changed = buildings.filter((b) => (kind === 'newbuilding' ? stands(b, post) && !stands(b, pre) : stands(b, pre) && !stands(b, post)));
    const both = buildings.filter((b) => stands(b, pre) && stands(b, post));
    const visible = (b: (typeof truth)[number]) => {
      let hidden = 0;
      for (const o of both) {
        const x = overlaps(b.geometry, o.geometry) ? intersectAoi(b.geometry, o.geometry) : null;
        if (x) hidden += geodesicAreaSqm(x);
      }
      return hidden < 0.5 * geodesicAreaSqm(b.geometry);
    };
    const targets = changed.filter((b) => geodesicAreaSqm(b.geometry) >= 400 && visible(b));
    const found = targets.filter((t) => fc.features.some((f) => overlaps(f.geometry, t.geometry))).length;
    const falseAlarms = fc.features.filter((f) => !changed.some((t) => overlaps(f.geometry, t.geometry))).length;
    return { targets: targets.length, found, falseAlarms };
  }

  it('newbuilding between the first and last date folders finds the buildings built in between', async () => {
    const [pre, post] = [stack.dates[0]!, stack.dates[60]!];
    const { fc, stderr } = await analyze('newbuilding', path.join(byDate, pre), path.join(byDate, post), '--polygon', cityPolygon);
    expectResultRules(fc, { confidence: 'number-or-null' });
    const s = score(fc, 'newbuilding', pre, post);
    expect(s.targets).toBeGreaterThan(80); // measured 110 of 155 new buildings are ≥ 400 m² and visible
    expect(s.found / s.targets).toBeGreaterThanOrEqual(0.9); // measured 109 / 110
    expect(s.falseAlarms).toBeLessThanOrEqual(Math.ceil(0.05 * fc.features.length)); // measured 0
    expect(stderr).toMatch(/analysed 4\.\d+ km² \(coverage ratio 1\), channels dual/);
  }, 180_000);

  it('disappearbuilding between the same folders finds the demolished buildings', async () => {
    const [pre, post] = [stack.dates[0]!, stack.dates[60]!];
    // In-process: the same command line as newbuilding's process run above.
    const { fc } = await analyzeInProcess('disappearbuilding', [path.join(byDate, pre), path.join(byDate, post)], { polygon: cityPolygon });
    expectResultRules(fc, { confidence: 'number-or-null' });
    const s = score(fc, 'disappearbuilding', pre, post);
    expect(s.targets).toBeGreaterThan(25); // measured 37
    expect(s.found / s.targets).toBeGreaterThanOrEqual(0.85); // measured 35 / 37
    expect(s.falseAlarms).toBeLessThanOrEqual(Math.ceil(0.1 * fc.features.length)); // measured 1
  }, 180_000);

  it('timeseries over the generated forest clearing and flood: every cell dates the change points the truth gives', async () => {
    const folders = stack.dates.map((d) => path.join(byDate, d));
    for (const type of ['clearing', 'flood']) {
      const patch = truth.find((f) => f.properties.kind === 'changepoint' && f.properties.change_type === type)!;
      // `--cell-size` on the command line once (a process), the other patch in-process.
      const { fc } =
        type === 'clearing'
          ? await analyze('timeseries', ...folders, '--polygon', toWkt(patch.geometry), '--cell-size', '50')
          : await analyzeInProcess('timeseries', folders, { polygon: toWkt(patch.geometry), cellSize: '50' });
      expectResultRules(fc, { confidence: 'number-or-null' });
      const cells = fc.features.filter((f) => f.properties.area_sqm >= 400);
      expect(cells.length).toBeGreaterThanOrEqual(6);
      expect(fc.features[0]!.properties.chart.dates).toHaveLength(61);
      // clearing: 2024-03-09; flood: 2023-08-06 and 2023-08-30 (measured: every such cell, to the day).
      for (const cell of cells) for (const date of patch.properties.change_dates as string[]) expect(cell.properties.changePointDates, type).toContain(date);
    }
  }, 180_000);

  it('issue 14: files without dates in their names are dated by the catalog from their OPERA tags; --dates (one per input) dates them as given', async () => {
    const plain = path.join(dir, 'plain');
    mkdirSync(plain, { recursive: true });
    const picked = [0, 30, 60].map((k) => {
      const from = path.join(byDate, stack.dates[k]!);
      const vv = readdirSync(from).find((f) => f.endsWith('_VV.tif'))!;
      const to = path.join(plain, `city_${k}_VV.tif`);
      copyFileSync(path.join(from, vv), to);
      return to;
    });
    await refused(/--dates gives 2 dates for 3 inputs/, 'timeseries', picked, { polygon: cityPolygon, dates: '2023-01-02,2024-01-02' });
    const dates = [stack.dates[0]!, stack.dates[30]!, stack.dates[60]!];
    const { fc } = await analyze('timeseries', ...picked, '--polygon', cityPolygon, '--dates', dates.join(','));
    expect(fc.features[0]!.properties.chart.dates).toEqual(dates);
    // `--dates` as a process above; the same files dated by their tags, and as PRE POST, in-process.
    const { fc: tagged } = await analyzeInProcess('timeseries', picked, { polygon: cityPolygon });
    expect(tagged).toEqual(fc);
    expect(fc.features[0]!.properties.chart.vh.every((v: number | null) => v === null)).toBe(true);
    // Two files named PRE and POST (dated by their tags).
    const { fc: change } = await analyzeInProcess('newbuilding', [picked[0]!, picked[2]!], { polygon: cityPolygon });
    expectResultRules(change, { confidence: 'number-or-null' });
    expect(change.features.length).toBeGreaterThan(50);
  }, 180_000);
});

describe('usage errors of the RTC detectors (exit 2)', () => {
  const sb = path.join(SB, SB_DATES[0]!);
  const sb2 = path.join(SB, SB_DATES[1]!);
  const polygon = 'POLYGON ((-119.805 34.603, -119.788 34.603, -119.788 34.620, -119.805 34.620, -119.805 34.603))';

  it('exit code 2 and the message on stderr: a polygon off the SAFE products; --polygon is required', async () => {
    await Promise.all([
      usage(/[Tt]he polygon does not overlap S1A_IW_GRDH_1SDV_20220612T173329/, 'newbuilding', NORTH_SEA_SAFE, NORTH_SEA_SAFE, '--polygon', polygon),
      usage(/--polygon is required for timeseries/, 'timeseries', sb, sb2),
    ]);
  }, 180_000);

  it('SAFE mixed with RTC, one SAFE, a missing polygon, nothing there, no overlap, one date, σ0 options, an unknown detector', async () => {
    await refused(/give either SAFE GRD products or RTC GeoTIFFs, not both/, 'disappearbuilding', [sb, NORTH_SEA_SAFE], { polygon });
    await refused(/a time series needs at least two SAFE products; got 1/, 'timeseries', [NORTH_SEA_SAFE], { polygon });
    await refused(/--polygon is required for newbuilding/, 'newbuilding', [sb, sb2]);
    await refused(/no-such-folder does not exist/, 'timeseries', [path.join(dir, 'no-such-folder')], { polygon });
    await refused(/No RTC scene intersects the polygon between 2021-11-19 and /, 'timeseries', [sb, sb2], { polygon: 'POLYGON ((10 10, 11 10, 11 11, 10 11, 10 10))' });
    await refused(/a time series needs at least two dates; the inputs over the polygon hold 1/, 'timeseries', [sb], { polygon });
    await refused(/newbuilding: The period 2021-11-19 to 2021-11-19 is too short to hold an earlier and a later scene/, 'newbuilding', [sb], { polygon });
    await refused(/--pol and --units describe a σ0 GeoTIFF/, 'newbuilding', [sb, sb2], { polygon, units: 'db' });
    await refused(/--dates: "2024-02-30" is not a date/, 'timeseries', [sb, sb2], { polygon, dates: '2024-02-01,2024-02-30' });
    await refused(/unknown detector "cars"/, 'cars', [sb]);
  });
});
