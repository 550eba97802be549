/**
 * `sarwatch analyze ship|oilslick` on GeoTIFFs of calibrated σ0 (issue 4: "INPUT is a SAFE
 * product or a GeoTIFF of calibrated σ0 … georeferenced by a CRS or by GCPs"). The files are
 * made from real and generated SAFE products (test/imagery/sigma0Fixtures.ts); the detections
 * from each GeoTIFF are compared with those from the SAFE it came from and with the truth.
 */
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { geodesicAreaSqm, intersectAoi, unionAoi, type Polygon, type Position } from '../../src/geo/index.ts';
import { writeSafeGrd } from '../../src/synth/safe.ts';
import { AnalyzeUsageError, runAnalyze } from '../../src/cli/analyze.ts';
import { closeAnalysisPool } from '../../src/analysis/engine/pool.ts';
import { expectResultRules } from '../helpers/resultRules.ts';
import { GDAL_TAG, HAS_GDAL, NORTH_SEA_SAFE, NORTH_SEA_TRUTH, NORTH_SEA_VV_TIFF, gdal } from '../imagery/fixtures.ts';
import { featureCentre, nearestDistances, readSigma0, writeGcpSigma0, writeUtmSigma0 } from '../imagery/sigma0Fixtures.ts';
import { expectRefused, runSarwatch } from '../helpers/cli.ts';
import { northSeaShipRun } from '../helpers/runFixtures.ts';


let dir: string;

const sarwatch = (...args: string[]) => runSarwatch(path.join(dir, 'data'), ...args);

interface Fc {
  features: { id: number; geometry: Polygon; properties: Record<string, unknown> }[];
}

/** Run a detector (`sarwatch analyze`, a process) and return its FeatureCollection; fails the test on a non-zero exit. */
async function detect(detector: string, input: string, ...options: string[]): Promise<{ fc: Fc; stderr: string }> {
  const out = path.join(dir, `${detector}-${path.basename(input)}-${options.join('_').replace(/[^\w]/g, '')}.geojson`);
  const res = await sarwatch('analyze', detector, input, ...options, '--out', out);
  expect(res.code, res.stderr).toBe(0);
  expect(res.stderr).toMatch(/\d+ features written to/);
  return { fc: JSON.parse(readFileSync(out, 'utf8')) as Fc, stderr: res.stderr };
}

let inProcessRuns = 0;
let inProcessQueue: Promise<unknown> = Promise.resolve();
/**
 * The same run without starting a process: runAnalyze, which `sarwatch analyze` calls after
 * parsing its arguments, writing the same file; the warnings are what it would print. For the
 * further inputs of a comparison whose command line (each option, the exit code, the stderr
 * lines) a process run checks already: a `sarwatch` process costs its start-up (node and
 * the precompiled modules it loads: ~0.6 CPU s before it reads an input) that this process has
 * paid. One at a time: runAnalyze ends by
 * closing the process's analysis pool, as the command must before it exits.
 */
function detectInProcess(detector: string, input: string, options: Partial<Parameters<typeof runAnalyze>[0]> = {}): Promise<{ fc: Fc; warnings: string[] }> {
  const run = async () => {
    const out = path.join(dir, `in-process-${++inProcessRuns}-${detector}-${path.basename(input)}.geojson`);
    const warnings: string[] = [];
    const done = await runAnalyze({ detector, inputs: [input], out, warn: (m) => warnings.push(m), ...options });
    const fc = JSON.parse(readFileSync(out, 'utf8')) as Fc;
    expect(done).toEqual({ features: fc.features.length, out, warnings });
    return { fc, warnings };
  };
  const result = inProcessQueue.then(run, run);
  inProcessQueue = result.catch(() => {});
  return result;
}

const certainVessels: Position[] = (JSON.parse(readFileSync(NORTH_SEA_TRUTH, 'utf8')) as { features: { geometry: { coordinates: Position }; properties: { certain: boolean } }[] }).features
  .filter((f) => f.properties.certain)
  .map((f) => f.geometry.coordinates);

let files: { gcpLinear: string; utmDb: string; gcpDb: string; unnamed: string };
let safeShips: Fc;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'sarwatch-cli-sigma0-'));
  // The reference: `sarwatch analyze ship` on the SAFE itself, run once per test run and
  // shared with test/cli/cli.test.ts (test/helpers/runFixtures.ts); started while the GeoTIFFs are written.
  const referenceRun = northSeaShipRun();
  const src = await readSigma0(NORTH_SEA_SAFE);
  files = {
    gcpLinear: path.join(dir, 'northsea_sigma0_gcp.tif'),
    utmDb: path.join(dir, 'northsea_sigma0_utm32631_db.tif'),
    gcpDb: path.join(dir, 'northsea_sigma0_gcp_db.tif'),
    unnamed: path.join(dir, 'northsea_bands.tif'),
  };
  await writeGcpSigma0(src, files.gcpLinear);
  await writeUtmSigma0(src, files.utmDb, { units: 'db' });
  await writeGcpSigma0(src, files.gcpDb, { units: 'db' });
  await writeGcpSigma0(src, files.unnamed, { descriptions: null });
  await src.product.close();
  const reference = await referenceRun;
  expect(reference.args.slice(0, 3)).toEqual(['analyze', 'ship', NORTH_SEA_SAFE]);
  expect(reference.code, reference.stderr).toBe(0);
  expect(reference.stderr).toMatch(/\d+ features written to/);
  safeShips = reference.fc as Fc;
}, 180_000);

afterAll(async () => {
  await closeAnalysisPool();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/**
 * The GeoTIFF's ships against the SAFE's: the same vessels within 100 m (nearly all: at most
 * one in twenty unmatched either way), and every certain vessel of the ground truth found.
 */
function expectSameShips(fc: Fc): void {
  const mine = fc.features.map(featureCentre);
  const reference = safeShips.features.map(featureCentre);
  expect(reference.length).toBeGreaterThanOrEqual(16);
  const missed = nearestDistances(reference, mine).filter((d) => d > 100).length;
  const extra = nearestDistances(mine, reference).filter((d) => d > 100).length;
  expect(missed, 'SAFE detections without a GeoTIFF detection within 100 m').toBeLessThanOrEqual(Math.floor(reference.length / 20));
  expect(extra, 'GeoTIFF detections without a SAFE detection within 100 m').toBeLessThanOrEqual(Math.floor(reference.length / 20));
  expect(Math.abs(mine.length - reference.length)).toBeLessThanOrEqual(1);
  const truthMissed = nearestDistances(certainVessels, mine).filter((d) => d > 100);
  expect(truthMissed, 'certain vessels of the ground truth missed').toEqual([]);
}

describe('analyze ship on σ0 GeoTIFFs of the real North-Sea crop', () => {
  it('linear σ0 in radar geometry with GCPs (band descriptions Sigma0_VV/VH): the SAFE\'s vessels within 100 m; ambiguity step skipped with a warning', async () => {
    const { fc, stderr } = await detect('ship', files.gcpLinear);
    expectResultRules(fc);
    expectSameShips(fc);
    expect(stderr).toMatch(/warning: northsea_sigma0_gcp\.tif: The GeoTIFF has no SAFE annotation \(orbit, PRF\): azimuth-ambiguity suppression was skipped/);
  }, 180_000);

  it('dB σ0 resampled to UTM zone 31N (EPSG:32631 geotransform) with --units db: the same vessels', async () => {
    const { fc } = await detect('ship', files.utmDb, '--units', 'db');
    expectResultRules(fc);
    expectSameShips(fc);
  }, 180_000);

  it('unnamed bands with --pol VV,VH give exactly the result of the named file; --polygon clips to a part of the crop', async () => {
    const polygon = 'POLYGON ((2.56 51.40, 2.60 51.40, 2.60 51.43, 2.56 51.43, 2.56 51.40))';
    const [named, unnamed, part, safePart] = (
      await Promise.all([
        // In-process: `--units` on the command line is checked by the UTM test above; runAnalyze reads "DB" as db.
        detectInProcess('ship', files.gcpDb, { units: 'DB' }),
        detect('ship', files.unnamed, '--pol', 'VV,VH'),
        // --pol and --polygon as processes just above and below; their combination in-process.
        detectInProcess('ship', files.unnamed, { pol: 'VV,VH', polygon }),
        detect('ship', NORTH_SEA_SAFE, '--polygon', polygon),
      ])
    ).map((r) => r.fc) as [Fc, Fc, Fc, Fc];
    expect(unnamed.features.map((f) => f.geometry)).toEqual(named.features.map((f) => f.geometry));
    expectResultRules(part);
    expect(part.features.length).toBeGreaterThan(0);
    expect(part.features.length).toBeLessThan(named.features.length);
    for (const f of part.features) {
      for (const [lon, lat] of f.geometry.coordinates[0]!) {
        expect(lon).toBeGreaterThanOrEqual(2.56 - 1e-9);
        expect(lon).toBeLessThanOrEqual(2.6 + 1e-9);
        expect(lat).toBeGreaterThanOrEqual(51.4 - 1e-9);
        expect(lat).toBeLessThanOrEqual(51.43 + 1e-9);
      }
    }
    expect(Math.abs(part.features.length - safePart.features.length)).toBeLessThanOrEqual(1);
    expect(nearestDistances(part.features.map(featureCentre), safePart.features.map(featureCentre)).filter((d) => d > 100).length).toBeLessThanOrEqual(1);
  }, 180_000);

  it(`files GDAL warped to UTM and to EPSG:4326 (gdalwarp with the GCP polynomial) give the same vessels ${GDAL_TAG}`, async (ctx) => {
    if (!HAS_GDAL) ctx.skip();
    const utm = path.join(dir, 'gdalwarp_utm.tif');
    const geographic = path.join(dir, 'gdalwarp_4326.tif');
    gdal('gdalwarp', ['-q', '-overwrite', '-t_srs', 'EPSG:32631', '-tr', '10', '10', '-r', 'near', files.gcpDb, utm]);
    // 10 m × 10 m at 51.4° N: 1.44e-4° of longitude, 9.0e-5° of latitude.
    gdal('gdalwarp', ['-q', '-overwrite', '-t_srs', 'EPSG:4326', '-tr', '0.000144', '0.00009', '-r', 'near', files.gcpDb, geographic]);
    // In-process: `--units db` on the command line is checked by the UTM test above.
    const runs = await Promise.all([detectInProcess('ship', utm, { units: 'db' }), detectInProcess('ship', geographic, { units: 'db' })]);
    for (const { fc } of runs) {
      expectResultRules(fc);
      expectSameShips(fc);
    }
  }, 180_000);
});

describe('analyze ship|oilslick: usage errors exit 2 with a message', () => {
  const usage = async (pattern: RegExp, ...args: string[]) => {
    const res = await sarwatch('analyze', ...args);
    expect(res.code, res.stderr).toBe(2);
    expect(res.stderr).toMatch(pattern);
  };
  /** The same check without starting a process: runAnalyze throws the usage error main() exits 2 with. */
  const refused = async (pattern: RegExp, detector: string, input: string, options: Partial<Parameters<typeof runAnalyze>[0]> = {}) => {
    await expectRefused(() => runAnalyze({ detector, inputs: [input], out: path.join(dir, 'never.geojson'), warn: () => {}, ...options }), AnalyzeUsageError, pattern);
  };

  it('exit code 2 and the message on stderr: a nonexistent file (a process); no band matching (the same usage error, in-process)', async () => {
    await Promise.all([
      usage(/sarwatch: .*nowhere\.tif does not exist/, 'oilslick', path.join(dir, 'nowhere.tif')),
      refused(/northsea_bands\.tif: no band is σ0 of a polarisation .*--pol VV,VH/, 'ship', files.unnamed),
    ]);
  }, 180_000);

  it('unknown units, values in the other units, unknown --pol, a GeoTIFF without georeferencing, a SAFE measurement, no VV for slicks', async () => {
    const measurement = path.join(dir, 'measurement-copy.tiff');
    copyFileSync(NORTH_SEA_VV_TIFF, measurement);
    await refused(/unknown --units "decibel": linear or db/, 'ship', files.gcpLinear, { units: 'decibel' });
    await refused(/values are negative .*pass --units db/, 'ship', files.utmDb);
    await refused(/no value is negative and the median is .* which is linear σ0, not dB; drop --units db/, 'oilslick', files.gcpLinear, { units: 'db' });
    await refused(/--pol: unknown polarisation XY/, 'ship', files.unnamed, { pol: 'VV,XY' });
    await refused(/measurement-copy\.tiff has a pixel transformation but no CRS \(GeoKeys\): it is not georeferenced/, 'ship', measurement, { pol: 'VV' });
    await refused(/is a SAFE measurement \(digital numbers, not σ0\)/, 'ship', NORTH_SEA_VV_TIFF);
    await refused(/--pol and --units describe a σ0 GeoTIFF/, 'ship', NORTH_SEA_SAFE, { units: 'db' });
    await refused(/has no VV band \(has VH\); oil slicks need VV/, 'oilslick', files.unnamed, { pol: 'VH' });
    await refused(/analyze ship takes one INPUT/, 'ship', files.unnamed, { inputs: [files.unnamed, files.gcpDb] });
  }, 180_000);
});

describe('analyze oilslick on σ0 GeoTIFFs of a generated SAFE product with a slick', () => {
  const CENTER: Position = [3.5, 54.0];
  const km = (dx: number, dy: number): Position => [CENTER[0] + dx / (111.32 * Math.cos((CENTER[1] * Math.PI) / 180)), CENTER[1] + dy / 110.57];
  let safePath: string;
  let slickTruth: Polygon;
  let calmTruth: Polygon;

  beforeAll(async () => {
    const written = await writeSafeGrd(path.join(dir, 'slick'), {
      seed: 7,
      start: '2024-05-01T17:30:00',
      center: CENTER,
      width: 2400,
      height: 2000,
      pols: ['VV'],
      wind: { speed: 6, directionDeg: 200 },
      slicks: [{ id: 'long', path: [km(-8, -4), km(-2, -1), km(4, 3)], widthM: [150, 500] }],
      lowWind: [{ id: 'calm', center: km(6, -5), lengthM: 4000, widthM: 2000, orientationDeg: 30 }],
    });
    safePath = written.productPath;
    const truth = (JSON.parse(readFileSync(written.groundTruthPath, 'utf8')) as { features: { geometry: Polygon; properties: { id: string } }[] }).features;
    slickTruth = truth.find((f) => f.properties.id === 'long')!.geometry;
    calmTruth = truth.find((f) => f.properties.id === 'calm')!.geometry;
    const src = await readSigma0(safePath, ['VV']);
    await writeUtmSigma0(src, path.join(dir, 'slick_utm_db.tif'), { units: 'db' });
    await writeGcpSigma0(src, path.join(dir, 'slick_gcp.tif'));
    await src.product.close();
  }, 180_000);

  const iou = (a: Polygon, bs: Polygon[]): number => {
    let inter = 0;
    for (const b of bs) {
      const x = intersectAoi(a, b);
      if (x) inter += geodesicAreaSqm(x);
    }
    return inter / geodesicAreaSqm(unionAoi([a, ...bs])!);
  };

  it('the slick from the SAFE, from a UTM dB GeoTIFF and from a GCP linear GeoTIFF: one feature each, IoU ≥ 0.9 with the truth; the calm patch is not reported', async () => {
    // One process (`--units db`, the warning on stderr); the SAFE and the GCP file in-process.
    const [safeRun, utm, gcp] = await Promise.all([
      detectInProcess('oilslick', safePath),
      detect('oilslick', path.join(dir, 'slick_utm_db.tif'), '--units', 'db'),
      detectInProcess('oilslick', path.join(dir, 'slick_gcp.tif')),
    ]);
    const fromSafe = safeRun.fc;
    expect(utm.stderr).toMatch(/has no incidence-angle band: the low-wind look-alike test assumed 38° everywhere/);
    for (const fc of [fromSafe, utm.fc, gcp.fc]) {
      expectResultRules(fc, { propertyId: true });
      expect(fc.features).toHaveLength(1);
      expect(iou(slickTruth, fc.features.map((f) => f.geometry))).toBeGreaterThanOrEqual(0.9); // measured 0.96–0.97
      expect(fc.features.filter((f) => intersectAoi(f.geometry, calmTruth) !== null)).toHaveLength(0);
    }
    // The GeoTIFF outlines agree with the SAFE's.
    expect(iou(fromSafe.features[0]!.geometry, utm.fc.features.map((f) => f.geometry))).toBeGreaterThanOrEqual(0.9);
    expect(iou(fromSafe.features[0]!.geometry, gcp.fc.features.map((f) => f.geometry))).toBeGreaterThanOrEqual(0.9);
  }, 180_000);
});
