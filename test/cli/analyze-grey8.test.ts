/**
 * `sarwatch analyze oilslick --units grey8[:MIN,MAX]` on 8-bit scaled images like the dev chips
 * (issue 11, Inputs: "8-bit scaled images like the dev chips (the assumed grey → dB mapping
 * stated in docs and CLI help). An open-sea scene with nothing in it produces nothing."). The
 * images are generated: a SAFE product with a known slick (src/synth) calibrated to σ0, mapped
 * to grey linearly in dB (grey 0 = no data) and written as a one-band uint8 GeoTIFF with GCPs
 * and no band names, as the chips come.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadOilModel, oilProbabilityThreshold, resolveOilSlickParams } from '../../src/analysis/oilslick/index.ts';
import { geodesicAreaSqm, intersectAoi, unionAoi, type Polygon, type Position } from '../../src/geo/index.ts';
import { TiffWriter, writeSafeGrd, type SafeGrdSpec } from '../../src/synth/index.ts';
import { runSarwatch, runSarwatchInProcess } from '../helpers/cli.ts';
import { expectResultRules } from '../helpers/resultRules.ts';
import { readSigma0, type Sigma0Bands } from '../imagery/sigma0Fixtures.ts';

let dir: string;
const sarwatch = (...args: string[]) => runSarwatch(path.join(dir, 'data'), ...args);
/** The same command in this process (runCli): usage and refusals need no process of their own. */
const inProcess = (...args: string[]) => runSarwatchInProcess({}, path.join(dir, 'data'), ...args);

interface Fc {
  features: { geometry: Polygon; properties: Record<string, unknown> }[];
}

/** VV σ0 → grey: 0 … 255 linear in dB over [minDb, maxDb], clamped to 1 … 255; invalid → 0. */
async function writeGrey8(src: Sigma0Bands, out: string, minDb: number, maxDb: number): Promise<void> {
  const vv = src.bands.VV!;
  const grey = new Uint8Array(vv.length);
  for (let i = 0; i < vv.length; i++) {
    const v = vv[i]!;
    grey[i] = Number.isFinite(v) && v > 0 ? Math.max(1, Math.min(255, Math.round((255 * (10 * Math.log10(v) - minDb)) / (maxDb - minDb)))) : 0;
  }
  const grid = src.product.bands.VV!.annotation.geolocationGrid;
  const writer = await TiffWriter.create(out, {
    width: src.width,
    height: src.height,
    bands: 1,
    sampleType: 'uint8',
    georeference: { type: 'gcps', gcps: grid.map((g) => ({ pixel: g.pixel - src.x0 + 0.5, line: g.line - src.y0 + 0.5, lon: g.longitude, lat: g.latitude, height: g.height })) },
  });
  await writer.writeRows(grey, src.height);
  await writer.close();
}

const CENTER: Position = [3.2, 54.4];
const km = (dx: number, dy: number): Position => [CENTER[0] + dx / (111.32 * Math.cos((CENTER[1] * Math.PI) / 180)), CENTER[1] + dy / 110.57];
const base: SafeGrdSpec = { seed: 23, start: '2024-07-03T05:45:00', center: CENTER, width: 1600, height: 1600, pols: ['VV'], wind: { speed: 7, directionDeg: 240 } };

let slickTruth: Polygon;
const files = { slick: '', slickWide: '', open: '' };

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'sarwatch-cli-grey8-'));
  const withSlick = await writeSafeGrd(path.join(dir, 'slick'), { ...base, slicks: [{ id: 'slick', path: [km(-5, -3), km(-1, 0), km(4, 2)], widthM: [150, 400], dampingDb: 8 }] });
  slickTruth = (JSON.parse(readFileSync(withSlick.groundTruthPath, 'utf8')) as { features: { geometry: Polygon; properties: { id: string } }[] }).features.find((f) => f.properties.id === 'slick')!.geometry;
  const open = await writeSafeGrd(path.join(dir, 'open'), { ...base, seed: 24, start: '2024-07-15T05:45:00' });
  files.slick = path.join(dir, 'slick_grey8.tif');
  files.slickWide = path.join(dir, 'slick_grey8_wide.tif');
  files.open = path.join(dir, 'open_sea_grey8.tif');
  const s = await readSigma0(withSlick.productPath, ['VV']);
  await writeGrey8(s, files.slick, -35, 0);
  await writeGrey8(s, files.slickWide, -45, 5);
  await s.product.close();
  const o = await readSigma0(open.productPath, ['VV']);
  await writeGrey8(o, files.open, -35, 0);
  await o.product.close();
}, 180_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function detect(input: string, ...options: string[]): Promise<{ fc: Fc; stderr: string }> {
  const out = path.join(dir, `${path.basename(input)}-${options.join('_').replace(/[^\w]/g, '')}.geojson`);
  const res = await sarwatch('analyze', 'oilslick', input, ...options, '--out', out);
  expect(res.code, res.stderr).toBe(0);
  return { fc: JSON.parse(readFileSync(out, 'utf8')) as Fc, stderr: res.stderr };
}

function iou(a: Polygon, bs: Polygon[]): number {
  let inter = 0;
  for (const b of bs) {
    const x = intersectAoi(a, b);
    if (x) inter += geodesicAreaSqm(x);
  }
  return inter / geodesicAreaSqm(unionAoi([a, ...bs])!);
}

describe('issue 11: analyze oilslick on 8-bit scaled images (--units grey8)', () => {
  const threshold = oilProbabilityThreshold(resolveOilSlickParams(), loadOilModel());

  it('finds the slick of a grey8 image (−35…0 dB) with an oil_probability at or above the threshold, and says which mapping it assumed', async () => {
    const { fc, stderr } = await detect(files.slick, '--pol', 'VV', '--units', 'grey8');
    expect(stderr).toMatch(/slick_grey8\.tif: 8-bit image read as grey -35…0 dB/);
    expectResultRules(fc, { propertyId: true });
    const onSlick = fc.features.filter((f) => intersectAoi(f.geometry, slickTruth) !== null);
    expect(onSlick.length).toBeGreaterThanOrEqual(1);
    expect(iou(slickTruth, onSlick.map((f) => f.geometry))).toBeGreaterThanOrEqual(0.85); // measured 0.96
    for (const f of fc.features) {
      expect(typeof f.properties.oil_probability).toBe('number');
      expect(f.properties.oil_probability as number).toBeGreaterThanOrEqual(Math.round(threshold * 1000) / 1000 - 0.0005);
      expect(f.properties.oil_probability as number).toBeLessThanOrEqual(1);
    }
    expect(fc.features.length - onSlick.length, 'features away from the slick').toBe(0);
  }, 180_000);

  it('grey8:MIN,MAX reads another scaling: the same slick from an image scaled over −45…5 dB', async () => {
    const { fc, stderr } = await detect(files.slickWide, '--pol', 'VV', '--units', 'grey8:-45,5');
    expect(stderr).toMatch(/read as grey -45…5 dB/);
    const onSlick = fc.features.filter((f) => intersectAoi(f.geometry, slickTruth) !== null);
    expect(onSlick.length).toBeGreaterThanOrEqual(1);
    expect(iou(slickTruth, onSlick.map((f) => f.geometry))).toBeGreaterThanOrEqual(0.85); // measured 0.96
  }, 180_000);

  it('an open-sea grey8 image with nothing in it produces no feature', async () => {
    const { fc } = await detect(files.open, '--pol', 'VV', '--units', 'grey8');
    expectResultRules(fc, { propertyId: true });
    expect(fc.features).toHaveLength(0);
  }, 180_000);

  it('--help states the assumed grey → dB mapping; a reversed MIN,MAX is a usage error', async () => {
    const help = await inProcess('--help');
    expect(help.code).toBe(0);
    expect(help.stdout.replace(/\s+/g, ' ')).toMatch(/--units grey8\[:MIN,MAX\] reads an 8-bit scaled image as grey 0…255 linear in dB over −35…0 dB \(or MIN…MAX; grey 0 = no data\)/);
    const bad = await inProcess('analyze', 'oilslick', files.slick, '--pol', 'VV', '--units', 'grey8:0,-35', '--out', path.join(dir, 'never.geojson'));
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--units grey8:0,-35: MAX must be above MIN/);
    // Without --out the result goes to stdout, the progress and the assumed mapping to stderr: in this process, captured.
    const open = await inProcess('analyze', 'oilslick', files.open, '--pol', 'VV', '--units', 'grey8');
    expect(open.code, open.stderr).toBe(0);
    expect(JSON.parse(open.stdout)).toMatchObject({ type: 'FeatureCollection', features: [] });
    expect(open.stderr).toMatch(/ done in [\d.]+ s\n/);
    expect(open.stderr).toMatch(/grey8/);
  }, 180_000);
});
