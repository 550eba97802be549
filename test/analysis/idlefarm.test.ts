import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHART_COLORS, MIN_VALID_DATES, runIdlefarm, type UploadedCollection, type UploadedFeature } from '../../src/analysis/idlefarm/index.ts';
import type { SeasonStackResult } from '../../src/synth/index.ts';
import { idleScore, seasonUpload, writeHeldOutSeason } from '../helpers/idlefarmSeason.ts';
import { unzip } from '../helpers/zip.ts';

let dir: string;
let season: SeasonStackResult;
/** The upload: the generated fields in reverse order, with extra properties, a Point and a field far outside the stack. */
let upload: UploadedCollection;
let members: Map<string, Buffer>;
let progress: number[];
let summary: Awaited<ReturnType<typeof runIdlefarm>>['summary'];

const TRUTH_OF = (name: unknown) => season.truth.find((t) => t.id === name)!;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'idlefarm-'));
  season = await writeHeldOutSeason(path.join(dir, 'season'));
  const fields: UploadedFeature[] = seasonUpload(season, { idle: 'user value' });
  fields.splice(3, 0, { type: 'Feature', geometry: { type: 'Point', coordinates: [11.2, 45.1] }, properties: { name: '=HYPERLINK("x")' } });
  fields.push({
    type: 'Feature',
    geometry: { type: 'Polygon', coordinates: [[[12, 46], [12.001, 46], [12.001, 46.001], [12, 46.001], [12, 46]]] },
    properties: { name: 'far away' },
  });
  upload = { type: 'FeatureCollection', features: fields };
  progress = [];
  const out = await runIdlefarm({ fields: upload, scenes: season.scenes, family: 'analyze', mtime: new Date('2024-02-01T00:00:00Z'), onProgress: (p) => progress.push(p) });
  expect(out.path).toBeNull();
  summary = out.summary;
  members = await unzip(out.zipBytes!);
}, 60_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

interface ResultFeature {
  id?: string;
  geometry: { type: string };
  properties: Record<string, unknown> & { idle: boolean | null; idle_probability: number | null; idle_reason: string | null };
}

const resultFeatures = (): ResultFeature[] => (JSON.parse(members.get('fields.geojson')!.toString('utf8')) as { features: ResultFeature[] }).features;

describe('idle farmland on a generated season (issue 14)', () => {
  it('issue 14: result.zip holds fields.geojson, summary.csv, series.csv, a PNG chart per field and README.txt', () => {
    const names = [...members.keys()].sort();
    const charts = names.filter((n) => n.startsWith('charts/'));
    expect(charts).toHaveLength(upload.features.length);
    expect(charts[0]).toBe('charts/0001.png');
    expect(names.filter((n) => !n.startsWith('charts/'))).toEqual(['README.txt', 'fields.geojson', 'series.csv', 'summary.csv']);
    const readme = members.get('README.txt')!.toString('utf8');
    for (const m of ['fields.geojson', 'summary.csv', 'series.csv', 'charts/NNNN.png', 'idle_probability']) expect(readme).toContain(m);
    expect(readme).toContain(`Fields: ${upload.features.length} `);
  });

  it('issue 14: every uploaded feature comes back in upload order with its id, geometry and properties kept', () => {
    const out = resultFeatures();
    expect(out).toHaveLength(upload.features.length);
    out.forEach((f, i) => {
      const up = upload.features[i]!;
      expect(f.id).toBe(up.id);
      expect(f.geometry).toEqual(up.geometry);
      expect(f.properties.name).toBe(up.properties!.name);
      if (up.properties!.owner) expect(f.properties.owner).toBe('Rossi');
      expect(f.properties.chart).toBe(`charts/${String(i + 1).padStart(4, '0')}.png`);
    });
    // A property named like a result property is replaced (documented in README.txt).
    expect(out.every((f) => (f.properties.idle as unknown) !== 'user value')).toBe(true);
  });

  it('issue 14: a crop field is not idle (probability < 0.5), an idle field is idle (probability > 0.5)', () => {
    const out = resultFeatures();
    const byClass = (cls: string) => out.filter((f) => f.properties.parcel !== undefined && TRUTH_OF(f.properties.name).cls === cls);
    for (const f of [...byClass('maize'), ...byClass('wheat'), ...byClass('rice')]) {
      expect(f.properties.idle, String(f.properties.name)).toBe(false);
      expect(f.properties.idle_probability!).toBeLessThan(0.5);
    }
    // Fallow: since the model also weighs cuts and harvests (issue 24 §3), a fallow field whose
    // speckle and rain make a cut-like dip can be taken for a meadow: most, not all, are idle.
    const fallow = [...byClass('bare'), ...byClass('grass')];
    const idle = fallow.filter((f) => f.properties.idle === true);
    expect(idle.length).toBeGreaterThanOrEqual(Math.ceil(0.8 * fallow.length));
    for (const f of idle) expect(f.properties.idle_probability!).toBeGreaterThan(0.5);
    // Over the whole held-out season: F1 of "idle" at least 0.9.
    expect(idleScore(season, out).f1).toBeGreaterThanOrEqual(0.9);
  });

  it('issue 14: season statistics agree with the generated truth (peak date, VH amplitude, valid dates)', () => {
    const day = (d: unknown) => Date.parse(String(d)) / 86_400_000;
    let checked = 0;
    for (const f of resultFeatures()) {
      if (f.properties.parcel === undefined) continue;
      const t = TRUTH_OF(f.properties.name);
      const p = f.properties;
      // 29 dates in the stack; a field under a no-data strip loses that date.
      expect(p.valid_dates as number).toBeGreaterThanOrEqual(27);
      expect(p.valid_dates as number).toBeLessThanOrEqual(29);
      if (t.cls === 'maize' || t.cls === 'soybean' || t.cls === 'wheat') {
        expect(Math.abs(day(p.vh_max_date) - day(t.peakDate)), `${t.id} peak`).toBeLessThanOrEqual(30);
        expect(Math.abs((p.vh_amplitude_db as number) - t.vhAmplitudeDb), `${t.id} amplitude`).toBeLessThan(1.5);
        expect(p.vh_vv_amplitude_db as number).toBeGreaterThan(2);
        expect(day(p.vh_rise_start)).toBeLessThan(day(p.vh_rise_end));
        checked++;
      }
      if (t.cls === 'bare' || t.cls === 'grass') expect(p.vh_amplitude_db as number).toBeLessThan(4);
    }
    expect(checked).toBeGreaterThanOrEqual(12);
  });

  it('issue 14: features without a polygon or without pixels get idle null with a reason, never a probability', () => {
    const out = resultFeatures();
    const point = out[3]!;
    expect(point.properties.idle).toBeNull();
    expect(point.properties.idle_probability).toBeNull();
    expect(point.properties.idle_reason).toBe('the feature has no valid Polygon or MultiPolygon geometry');
    const far = out[out.length - 1]!;
    expect(far.properties.idle).toBeNull();
    expect(far.properties.idle_probability).toBeNull();
    expect(far.properties.idle_reason).toMatch(/covers no pixel/);
    expect(far.properties.valid_dates).toBe(0);
  });

  it('the summary counts the decisions and the area of the polygon fields (for credits)', () => {
    const out = resultFeatures();
    expect(summary).toMatchObject({
      fields: out.length,
      idle: out.filter((f) => f.properties.idle === true).length,
      cropped: out.filter((f) => f.properties.idle === false).length,
      undetermined: 2,
      dates: season.scenes.length,
      firstDate: season.scenes[0]!.date,
      lastDate: season.scenes[season.scenes.length - 1]!.date,
    });
    // 12 of the season's 14 fallow fields (issue 24 §3: two are taken for cut meadows).
    expect(summary.idle).toBe(12);
    const ha = out.reduce((s, f) => s + ((f.properties.area_ha as number | null) ?? 0), 0);
    expect(Math.abs(summary.areaSqkm - ha / 100)).toBeLessThan(0.01);
    expect(summary.areaSqkm).toBeGreaterThan(3);
  });

  it('summary.csv has a row per feature in upload order, and a name that would start a formula is neutralised', () => {
    const lines = members.get('summary.csv')!.toString('utf8').trimEnd().split('\r\n');
    expect(lines[0]!.split(',').slice(0, 6)).toEqual(['feature_index', 'feature_id', 'name', 'idle', 'idle_probability', 'idle_reason']);
    expect(lines).toHaveLength(upload.features.length + 1);
    const first = lines[1]!.split(',');
    expect(first[0]).toBe('1');
    expect(first[1]).toBe(String(upload.features[0]!.id));
    expect(first[3]).toBe(String(resultFeatures()[0]!.properties.idle));
    expect(lines[4]).toContain(`"'=HYPERLINK(""x"")"`);
  });

  it('series.csv carries the field-mean dB values, VH/VV = VH − VV', () => {
    const rows = members.get('series.csv')!.toString('utf8').trimEnd().split('\r\n').slice(1).map((l) => l.split(','));
    const first = rows.filter((r) => r[0] === '1');
    expect(first).toHaveLength(season.scenes.length);
    for (const [, , vv, vh, ratio] of first) {
      expect(Number(vh)).toBeGreaterThan(-30);
      expect(Number(vh)).toBeLessThan(-8);
      expect(Math.abs(Number(vh) - Number(vv) - Number(ratio))).toBeLessThanOrEqual(0.011);
    }
    expect(rows.some((r) => r[0] === String(upload.features.length))).toBe(false); // the far field has no value
  });

  it('charts are PNGs with the VH, VV and VH/VV lines drawn', () => {
    const png = PNG.sync.read(members.get('charts/0001.png')!);
    expect([png.width, png.height]).toEqual([640, 300]);
    const count = (rgb: readonly number[]) => {
      let n = 0;
      for (let i = 0; i < png.data.length; i += 4) if (png.data[i] === rgb[0] && png.data[i + 1] === rgb[1] && png.data[i + 2] === rgb[2]) n++;
      return n;
    };
    for (const c of [CHART_COLORS.vh, CHART_COLORS.vv, CHART_COLORS.ratio]) expect(count(c)).toBeGreaterThan(300);
  });

  it('reports progress from 0 to 100, never going back', () => {
    expect(progress[0]).toBe(0);
    expect(progress[progress.length - 1]).toBe(100);
    expect(progress.every((p, i) => i === 0 || p >= progress[i - 1]!)).toBe(true);
    expect(progress.length).toBeGreaterThan(season.scenes.length);
  });
});

describe('idle farmland: edge cases (issue 14)', () => {
  it(`issue 14: with fewer than ${MIN_VALID_DATES} dates every field is undetermined (idle null, a reason), never invented`, async () => {
    const out = await runIdlefarm({ fields: upload, scenes: season.scenes.slice(0, 5), family: 'analyze' });
    const features = (JSON.parse((await unzip(out.zipBytes!)).get('fields.geojson')!.toString('utf8')) as { features: ResultFeature[] }).features;
    expect(out.summary).toMatchObject({ fields: upload.features.length, idle: 0, cropped: 0, undetermined: upload.features.length, dates: 5 });
    for (const f of features) {
      expect(f.properties.idle).toBeNull();
      expect(f.properties.idle_probability).toBeNull();
      expect(f.properties.vh_amplitude_db).toBeNull();
      expect(f.properties.idle_reason).toMatch(/only \d dates? with both VV and VH over the field \(at least 8 needed\)|no valid Polygon|covers no pixel/);
    }
    // 5 dates; a field under the no-data strip of one of them has 4.
    expect(features.filter((f) => /only [45] dates/.test(f.properties.idle_reason!))).toHaveLength(season.truth.length);
    expect(features.filter((f) => /only 5 dates/.test(f.properties.idle_reason!)).length).toBeGreaterThan(season.truth.length / 2);
  }, 30_000);

  it('writes to outPath when given, and stops on an aborted signal', async () => {
    const file = path.join(dir, 'result.zip');
    const few = { type: 'FeatureCollection' as const, features: upload.features.slice(0, 3) };
    const out = await runIdlefarm({ fields: few, scenes: season.scenes, family: 'analyze', outPath: file });
    expect(out.zipBytes).toBeNull();
    expect(out.path).toBe(file);
    expect(out.summary.fields).toBe(3);
    expect((await unzip(await readFile(file))).has('charts/0003.png')).toBe(true);
    const controller = new AbortController();
    controller.abort();
    await expect(runIdlefarm({ fields: few, scenes: season.scenes, family: 'analyze', signal: controller.signal })).rejects.toThrow(/abort/i);
  }, 30_000);
});
