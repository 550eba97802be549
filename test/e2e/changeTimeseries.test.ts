/**
 * Issue 5: newbuilding, disappearbuilding and timeseries jobs on the demo city complete
 * through the HTTP API with measured coverage, in both families: analyze (the RTC stack) and
 * detect (the GRD city series, geocoded by the service onto one UTM grid). The detect-family
 * results are checked against the GRD series' ground truth. Their quicklooks (issue 22 §1)
 * are downloaded and decoded.
 */
import { readFileSync } from 'node:fs';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, waitForTerminal, type TestService } from '../helpers/service.ts';
import { expectResultRules } from '../helpers/resultRules.ts';
import { linkDemoArchive } from '../helpers/demoArchive.ts';
import type { DemoArchiveResult } from '../../src/synth/index.ts';
import { geodesicAreaSqkm, geodesicAreaSqm, intersectAoi, parseAoiWkt, type AoiGeometry } from '../../src/geo/index.ts';

// Inside the demo city stack (IJburg, 2 × 2 km around 4.995 E, 52.356 N).
const CITY = 'POLYGON ((4.985 52.35, 5.005 52.35, 5.005 52.362, 4.985 52.362, 4.985 52.35))';
let t: TestService;
let demo: DemoArchiveResult;

beforeAll(async () => {
  t = await startTestService({}, {
    credits: 100_000,
    scenes: [],
    beforeIndex: async (archiveDir) => {
      demo = await linkDemoArchive(archiveDir);
    },
  });
}, 240_000);
afterAll(() => t?.close());

const body = { satellite_id: 'sentinel-1' as const, polygon: CITY, date_start: '2023-01-01', date_end: '2024-12-31' };

describe('analyze family on the demo city', () => {
  it('timeseries: one feature per cell with deviation, changePointDates, styling and chart data; measured coverage', async () => {
    const { job_id } = await t.client.submit('analyze', 'timeseries', body);
    const job = await waitForTerminal(t.client, job_id, 200_000);
    expect(job.status, job.error_message ?? '').toBe('completed');
    expect(job.coverage?.method).toBe('measured');
    expect(job.coverage!.ratio).toBeGreaterThan(0.9);
    expect(parseAoiWkt(job.coverage!.polygon!).type).toMatch(/Polygon/);
    expect(job.scene_selection).toEqual({ first_month: '2023-01', last_month: '2024-12' });
    const fc: any = await t.client.downloadResult(job_id);
    expectResultRules(fc);
    expect(fc.features.length).toBeGreaterThan(10);
    const p = fc.features[0].properties;
    for (const key of ['deviation', 'changePointDates', 'fill', 'fill-opacity', 'stroke', 'stroke-width', 'chart']) expect(p).toHaveProperty(key);
    expect(p.chart.dates.length).toBeGreaterThanOrEqual(60);
    expect(p.chart.vv).toHaveLength(p.chart.dates.length);
  });

  it('newbuilding: completes with measured coverage; every feature carries a positive confidence or null', async () => {
    const { job_id } = await t.client.submit('analyze', 'newbuilding', body);
    const job = await waitForTerminal(t.client, job_id, 200_000);
    expect(job.status, job.error_message ?? '').toBe('completed');
    expect(job.coverage?.method).toBe('measured');
    const fc: any = await t.client.downloadResult(job_id);
    expectResultRules(fc, { confidence: 'number-or-null' });
    expect(fc.features.length).toBeGreaterThan(0);
    for (const f of fc.features) if (f.properties.confidence !== null) expect(f.properties.confidence).toBeGreaterThan(0);
  });
});

interface TruthBuilding {
  geometry: AoiGeometry;
  properties: { kind: string; status: string; appear_date: string | null; vanish_date: string | null };
}

/** The GRD city series' truth: buildings with the GRD dates they appear / vanish on. */
function grdCityTruth(): { buildings: TruthBuilding[]; dates: string[] } {
  const file = demo.truth.find((p) => p.endsWith('city-grd.truth.geojson'));
  expect(file, 'the demo archive holds the GRD city series').toBeDefined();
  const truth = JSON.parse(readFileSync(file!, 'utf8'));
  return { buildings: truth.features.filter((f: TruthBuilding) => f.properties.kind === 'building'), dates: truth.sarwatch.dates };
}

/** Per-object recall / precision of change polygons against truth buildings of one status inside the AOI. */
function objectScores(fc: any, buildings: TruthBuilding[], status: string) {
  const aoi = parseAoiWkt(CITY);
  const targets = buildings.filter((b) => b.properties.status === status && intersectAoi(b.geometry, aoi));
  const required = targets.filter((b) => geodesicAreaSqm(b.geometry) >= 400);
  const found = required.filter((b) => fc.features.some((f: any) => intersectAoi(f.geometry, b.geometry)));
  const falseAlarms = fc.features.filter((f: any) => !targets.some((b) => intersectAoi(f.geometry, b.geometry)));
  const recall = found.length / required.length;
  const precision = fc.features.length ? (fc.features.length - falseAlarms.length) / fc.features.length : 1;
  return { required: required.length, found: found.length, falseAlarms: falseAlarms.length, recall, precision, f1: (2 * recall * precision) / (recall + precision) };
}

function expectMeasuredCityCoverage(job: any): void {
  expect(job.coverage?.method).toBe('measured');
  // The GRD scenes cover the whole polygon: the analysed area is the polygon's (no no-data).
  expect(job.coverage!.ratio).toBeGreaterThanOrEqual(0.98);
  expect(job.coverage!.requested_area_sqkm).toBeCloseTo(geodesicAreaSqkm(parseAoiWkt(CITY)), 4);
  expect(parseAoiWkt(job.coverage!.polygon!).type).toMatch(/Polygon/);
  expect(job.area_sqkm).toBeGreaterThan(0.98 * job.coverage!.requested_area_sqkm);
  // Pixels whose centre lies in the polygon, each with its ground area: the polygon's area to a pixel fringe.
  expect(job.area_sqkm).toBeLessThanOrEqual(job.coverage!.requested_area_sqkm * 1.001);
}

describe('detect family on the demo city: GRD geocoded onto one UTM grid', () => {
  it('newbuilding: the pair 2023-01 → 2024-12 finds the truth\'s new buildings (≥ 400 m²: F1 ≥ 0.9); confidence ≥ the 0.8 threshold', async () => {
    const { job_id } = await t.client.submit('detect', 'newbuilding', body);
    const job: any = await waitForTerminal(t.client, job_id, 200_000);
    expect(job.status, job.error_message ?? '').toBe('completed');
    expect(job.scene_selection).toEqual({ first_month: '2023-01', last_month: '2024-12' });
    expectMeasuredCityCoverage(job);
    const fc: any = await t.client.downloadResult(job_id);
    expectResultRules(fc, { confidence: 'number-or-null' });
    for (const f of fc.features) {
      expect(f.properties.confidence).toBeGreaterThanOrEqual(0.8);
      expect(f.properties.confidence).toBeLessThanOrEqual(1);
    }
    const s = objectScores(fc, grdCityTruth().buildings, 'new');
    // Measured on this archive: 55 of 56, no false alarm.
    expect(s.required).toBeGreaterThan(20);
    expect(s.recall).toBeGreaterThanOrEqual(0.9);
    expect(s.f1).toBeGreaterThanOrEqual(0.9);
    // Issue 22 §1: the later GRD scene as quicklook and overlay, framing the polygon.
    const [west, south, east, north] = job.overlay.bounds;
    expect([west <= 4.985, south <= 52.35, east >= 5.005, north >= 52.362]).toEqual([true, true, true, true]);
    const overlay = PNG.sync.read(Buffer.from(await t.client.downloadOverlay(job_id)));
    expect(overlay.data.some((v, i) => i % 4 === 3 && v === 255)).toBe(true);
    expect(PNG.sync.read(Buffer.from(await t.client.downloadQuicklook(job_id))).width).toBe(overlay.width);
  });

  it('disappearbuilding: finds the demolished buildings of the truth (F1 ≥ 0.9), measured coverage', async () => {
    const { job_id } = await t.client.submit('detect', 'disappearbuilding', body);
    const job: any = await waitForTerminal(t.client, job_id, 200_000);
    expect(job.status, job.error_message ?? '').toBe('completed');
    expectMeasuredCityCoverage(job);
    const fc: any = await t.client.downloadResult(job_id);
    expectResultRules(fc, { confidence: 'number-or-null' });
    for (const f of fc.features) expect(f.properties.confidence).toBeGreaterThanOrEqual(0.8);
    const s = objectScores(fc, grdCityTruth().buildings, 'demolished');
    expect(s.required).toBeGreaterThan(5);
    expect(s.f1).toBeGreaterThanOrEqual(0.9);
  });

  it('timeseries: 12 GRD dates of σ0 per cell; where new buildings cover a cell a change point falls within one date of their appearance', async () => {
    const { job_id } = await t.client.submit('detect', 'timeseries', body);
    const job: any = await waitForTerminal(t.client, job_id, 200_000);
    expect(job.status, job.error_message ?? '').toBe('completed');
    expect(job.scene_selection).toEqual({ first_month: '2023-01', last_month: '2024-12' });
    expectMeasuredCityCoverage(job);
    const fc: any = await t.client.downloadResult(job_id);
    expectResultRules(fc);
    const { buildings, dates } = grdCityTruth();
    expect(fc.features.length).toBeGreaterThan(150); // 100 m cells over 1.8 km²
    for (const f of fc.features) {
      const p = f.properties;
      for (const key of ['deviation', 'changePointDates', 'fill', 'fill-opacity', 'stroke', 'stroke-width', 'chart']) expect(p).toHaveProperty(key);
      expect(p.chart.dates).toEqual(dates);
      expect(p.chart.vv).toHaveLength(12);
      expect(p.chart.vh).toHaveLength(12);
    }
    // σ0 of farmland around IJburg: VV about −8 dB, VH about −15 dB.
    const median = (xs: number[]) => xs.sort((a, b) => a - b)[xs.length >> 1]!;
    expect(median(fc.features.map((f: any) => f.properties.chart.vh[0]))).toBeGreaterThan(-18);
    expect(median(fc.features.map((f: any) => f.properties.chart.vh[0]))).toBeLessThan(-12);
    // Cells where buildings of one date (new or demolished) cover ≥ 10 % of the cell.
    const changed = buildings.filter((b) => b.properties.status === 'new' || b.properties.status === 'demolished');
    const index = (d: string) => dates.indexOf(d);
    let cells = 0;
    let hits = 0;
    for (const f of fc.features) {
      const over = changed.map((b) => ({ b, x: intersectAoi(b.geometry, f.geometry) })).filter((h) => h.x);
      const when = new Set(over.map((h) => h.b.properties.appear_date ?? h.b.properties.vanish_date));
      if (when.size !== 1) continue;
      const fraction = over.reduce((a, h) => a + geodesicAreaSqm(h.x!), 0) / f.properties.area_sqm;
      if (fraction < 0.1) continue;
      const d = [...when][0]!;
      cells++;
      if (f.properties.changePointDates.some((c: string) => Math.abs(index(c) - index(d)) <= 1)) hits++;
    }
    // Measured: 9 of 9.
    expect(cells).toBeGreaterThanOrEqual(5);
    expect(hits / cells).toBeGreaterThanOrEqual(0.8);
    // Issue 22 §1: a deviation map, no overlay (a map colours the cells from the GeoJSON).
    expect(job.overlay).toBeNull();
    expect(PNG.sync.read(Buffer.from(await t.client.downloadQuicklook(job_id))).width).toBeGreaterThan(500);
  });
});
