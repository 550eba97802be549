/**
 * `sarwatch analyze newbuilding|disappearbuilding PRE POST` and `analyze timeseries INPUT…`
 * on SAFE GRD products (issue 5: "RTC GeoTIFFs or SAFE GRDs given as files"): the products
 * are geocoded onto one UTM grid over the polygon, as the service's detect family does, and
 * the CLI writes what the library returns for those sources. Data: a generated GRD city
 * series (src/synth/grdCity.ts) whose new and demolished buildings are known.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detectChangeInPair, type PairSources } from '../../src/analysis/change/index.ts';
import { detectTimeseries } from '../../src/analysis/timeseries/index.ts';
import { closeAnalysisPool } from '../../src/analysis/engine/pool.ts';
import { geodesicAreaSqm, intersectAoi, parseAoiWkt, type AoiGeometry, type Polygon } from '../../src/geo/index.ts';
import { utmGridForAoi } from '../../src/imagery/index.ts';
import { cityFromRtcTruth, writeGrdCitySeries, writeRtcStack, type GrdCitySeriesResult } from '../../src/synth/index.ts';
import { AnalyzeUsageError, runAnalyze } from '../../src/cli/analyze.ts';
import { grdChangePair, readGrdInputs } from '../../src/cli/grdInputs.ts';
import { expectResultRules } from '../helpers/resultRules.ts';
import { expectRefused, runSarwatch } from '../helpers/cli.ts';

const MIB = 1_048_576;
const CENTER: [number, number] = [4.995, 52.356];
// Inside the generated town (2 × 2 km around CENTER).
const POLYGON = 'POLYGON ((4.983 52.3485, 5.007 52.3485, 5.007 52.3635, 4.983 52.3635, 4.983 52.3485))';
// Five of twelve dates: 2023-01-02, 2023-05-02, 2023-08-30, 2023-12-28, 2024-04-26.
const PICK = [0, 10, 20, 30, 40];

let dir: string;
let series: GrdCitySeriesResult;
/** A VV GeoTIFF of the RTC city stack the GRD town is taken from. */
let rtcVv: string;
let truth: { features: { geometry: AoiGeometry; properties: Record<string, any> }[] };

interface Fc {
  type: string;
  features: { id: number; geometry: Polygon; properties: Record<string, any> }[];
}

const sarwatch = (...args: string[]) => runSarwatch(path.join(dir, 'data'), ...args);

let outputs = 0;
async function analyze(...args: string[]): Promise<{ fc: Fc; stderr: string }> {
  const out = path.join(dir, `out-${++outputs}.geojson`);
  const res = await sarwatch('analyze', ...args, '--out', out);
  expect(res.code, res.stderr).toBe(0);
  return { fc: JSON.parse(readFileSync(out, 'utf8')) as Fc, stderr: res.stderr };
}

const asJson = (fc: unknown) => JSON.parse(JSON.stringify(fc)) as Fc;

/** The sources the CLI is expected to build: VV and VH of the product on the polygon's UTM grid. */
function sources(product: string): PairSources {
  const grid = utmGridForAoi(parseAoiWkt(POLYGON), 10);
  return {
    vv: { kind: 'grd', product, polarisation: 'VV', grid, quantity: 'sigma0', denoise: true },
    vh: { kind: 'grd', product, polarisation: 'VH', grid, quantity: 'sigma0', denoise: true },
  };
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'sarwatch-cli-grd-'));
  const rtc = await writeRtcStack(path.join(dir, 'rtc'), { scene: 'city', seed: 9191, center: CENTER, start: '2023-01-01', count: 41, track: 161, passDirection: 'ascending' });
  rtcVv = rtc.files.find((f) => f.endsWith('VV.tif'))!;
  const city = cityFromRtcTruth(JSON.parse(await readFile(rtc.groundTruthPath, 'utf8')));
  series = await writeGrdCitySeries(path.join(dir, 'grd'), { seed: 91, center: CENTER, track: 161, start: '2023-01-01', count: 41, pick: PICK, ...city });
  truth = JSON.parse(await readFile(series.truthPath, 'utf8'));
}, 240_000);

afterAll(async () => {
  await closeAnalysisPool();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('analyze on SAFE GRD products (geocoded onto one UTM grid)', () => {
  it('newbuilding PRE POST: the library result for the geocoded pair, and the buildings built in between are found', async () => {
    const pre = series.products[0]!;
    const post = series.products[PICK.length - 1]!;
    const { fc, stderr } = await analyze('newbuilding', pre, post, '--polygon', POLYGON);
    expect(stderr).toMatch(/newbuilding GRD 2023-01-02 → 2024-04-26 \(EPSG:32631, 10 m\)/);
    expectResultRules(fc, { confidence: 'number-or-null' });
    const library = await detectChangeInPair(sources(pre), sources(post), { aoi: parseAoiWkt(POLYGON), kind: 'newbuilding', maxRequestBytes: MIB });
    expect(fc).toEqual(asJson(library.result));
    // New buildings of ≥ 400 m² standing on the last date and not on the first, in the polygon.
    const aoi = parseAoiWkt(POLYGON);
    const built = truth.features.filter(
      (f) =>
        f.properties.kind === 'building' &&
        f.properties.appear_date !== null &&
        f.properties.appear_date > series.dates[0]! &&
        f.properties.appear_date <= series.dates[PICK.length - 1]! &&
        (f.properties.vanish_date === null || f.properties.vanish_date > series.dates[PICK.length - 1]!) &&
        geodesicAreaSqm(f.geometry) >= 400 &&
        intersectAoi(f.geometry, aoi),
    );
    expect(built.length).toBeGreaterThan(10);
    const found = built.filter((b) => fc.features.some((f) => intersectAoi(f.geometry, b.geometry)));
    expect(found.length / built.length).toBeGreaterThanOrEqual(0.9);
    for (const f of fc.features) expect(f.properties.confidence).toBeGreaterThanOrEqual(0.5);
  }, 240_000);

  it('timeseries over the SAFE products: one σ0 series per cell on the products\' dates, as the library gives it', async () => {
    // Given out of order: the series is sorted by acquisition date.
    const inputs = [...series.products].reverse();
    const { fc, stderr } = await analyze('timeseries', ...inputs, '--polygon', POLYGON);
    expect(stderr).toMatch(/timeseries GRD 5 dates 2023-01-02 … 2024-04-26/);
    expectResultRules(fc, { confidence: 'number-or-null' });
    const library = await detectTimeseries(
      series.products.map((p, k) => ({ date: series.dates[k]!, ...sources(p) })),
      { aoi: parseAoiWkt(POLYGON), maxRequestBytes: MIB },
    );
    expect(fc).toEqual(asJson(library.result));
    expect(fc.features.length).toBeGreaterThan(100); // ~4.5 km² in 100 m cells
    for (const f of fc.features) expect(f.properties.chart.dates).toEqual(series.dates);
  }, 240_000);

  it('issue 14: PRE and POST are validated and ordered by the catalog\'s named-pair rule: reversed inputs are swapped with a warning, one day twice is refused', async () => {
    const aoi = parseAoiWkt(POLYGON);
    const [first, last] = [series.products[0]!, series.products[PICK.length - 1]!];
    const reversed = grdChangePair('newbuilding', await readGrdInputs([last, first]), aoi);
    expect(reversed.dates).toEqual([series.dates[0], series.dates[PICK.length - 1]]);
    expect(reversed.warnings).toEqual([`PRE (${series.dates[PICK.length - 1]}) is later than POST (${series.dates[0]}); ${series.dates[0]} is used as the earlier date`]);
    const twice = await readGrdInputs([first, first]);
    expect(() => grdChangePair('newbuilding', twice, aoi)).toThrow(/PRE \(\d{4}-\d{2}-\d{2}\) and POST \(\d{4}-\d{2}-\d{2}\) must be acquisitions of different days/);
  });

  it('usage errors: SAFE mixed with GeoTIFFs, --dates with SAFE products, three products for a pair', async () => {
    const refused = async (pattern: RegExp, detector: string, inputs: string[], options: Partial<Parameters<typeof runAnalyze>[0]> = {}) => {
      const attempt = () => runAnalyze({ detector, inputs, out: path.join(dir, 'never.geojson'), warn: () => {}, polygon: POLYGON, ...options });
      await expectRefused(attempt, AnalyzeUsageError, pattern);
    };
    await refused(/give either SAFE GRD products or RTC GeoTIFFs, not both/, 'newbuilding', [series.products[0]!, rtcVv]);
    await refused(/--dates names the dates of RTC GeoTIFFs; SAFE products carry their own/, 'timeseries', series.products.slice(0, 2), { dates: '2023-01-02,2023-05-02' });
    await refused(/building change on GRD takes two SAFE products, PRE and POST; got 3/, 'disappearbuilding', series.products.slice(0, 3));
  }, 120_000);
});
