import { createHash } from 'node:crypto';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFieldSeries } from '../../src/analysis/idlefarm/series.ts';
import type { AoiGeometry } from '../../src/geo/types.ts';
import { openRasterProduct } from '../../src/imagery/index.ts';
import { SEASON_CROPS, SEASON_IDLE, writeFieldSeason, type SeasonStackResult } from '../../src/synth/index.ts';

let dir: string;
let a: SeasonStackResult;
let b: SeasonStackResult;
let other: SeasonStackResult;

const sha = async (file: string) => createHash('sha256').update(await readFile(file)).digest('hex');

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'synth-fields-'));
  a = await writeFieldSeason(path.join(dir, 'a'), { seed: 31 });
  b = await writeFieldSeason(path.join(dir, 'b'), { seed: 31 });
  other = await writeFieldSeason(path.join(dir, 'c'), { seed: 32 });
}, 60_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('generated seasons (src/synth/fields.ts)', () => {
  it('is deterministic per seed: the same truth and byte-identical rasters; another seed differs', async () => {
    expect(b.truth).toEqual(a.truth);
    expect(b.scenes.map((s) => s.date)).toEqual(a.scenes.map((s) => s.date));
    expect(await sha(b.scenes[10]!.vh)).toBe(await sha(a.scenes[10]!.vh));
    expect(other.truth.map((t) => t.cls)).not.toEqual(a.truth.map((t) => t.cls));
    expect(await sha(other.scenes[10]!.vh)).not.toBe(await sha(a.scenes[10]!.vh));
  });

  it('lays out 36 fields, 40 % idle, every crop and idle class present, polygons in fields.geojson with upload-like properties only', async () => {
    expect(a.truth).toHaveLength(36);
    expect(a.truth.filter((t) => t.idle)).toHaveLength(14);
    for (const cls of [...SEASON_CROPS, ...SEASON_IDLE]) expect(a.truth.some((t) => t.cls === cls)).toBe(true);
    expect(a.truth.filter((t) => t.idle).every((t) => (SEASON_IDLE as readonly string[]).includes(t.cls) && t.peakDate === null)).toBe(true);
    const onDisk = JSON.parse(await readFile(a.fieldsPath, 'utf8')) as typeof a.fields;
    expect(onDisk.features).toHaveLength(36);
    expect(Object.keys(onDisk.features[0]!.properties).sort()).toEqual(['name', 'parcel']);
    expect(onDisk.features.map((f) => f.properties.name)).toEqual(a.truth.map((t) => t.id));
    expect(onDisk.features[0]!.geometry.type).toBe('Polygon');
  });

  it('drops two whole dates (never the first or last) and leaves 12-day steps elsewhere', async () => {
    expect(a.scenes).toHaveLength(29);
    expect(a.droppedDates).toHaveLength(2);
    const dates = a.scenes.map((s) => s.date);
    for (const d of a.droppedDates) expect(dates).not.toContain(d);
    const gaps = dates.slice(1).map((d, i) => (Date.parse(d) - Date.parse(dates[i]!)) / 86_400_000);
    expect(gaps.filter((g) => g === 12).length).toBeGreaterThanOrEqual(24);
    expect(gaps.every((g) => g === 12 || g === 24 || g === 36)).toBe(true);
    const files = (await readdir(path.join(dir, 'a'))).filter((f) => f.endsWith('.tif'));
    expect(files).toHaveLength(58);
    expect(files.every((f) => /^OPERA_L2_RTC-S1_T117-\d{6}-IW2_\d{8}T\d{6}Z_\d{8}T\d{6}Z_S1A_30_v1\.0_(VV|VH)\.tif$/.test(f))).toBe(true);
  });

  it('has a no-data strip over part of the image on some dates', async () => {
    let partial = 0;
    for (const s of a.scenes) {
      const r = await openRasterProduct(s.vh);
      try {
        const read = await r.readWindow({ x0: 0, y0: 0, width: r.width, height: r.height }, { bands: [0] });
        const invalid = read.valid.length - read.valid.reduce((n, v) => n + v, 0);
        if (invalid > 0) {
          partial++;
          expect(invalid / read.valid.length).toBeGreaterThan(0.15);
          expect(invalid / read.valid.length).toBeLessThan(0.45);
        }
      } finally {
        await r.close();
      }
    }
    expect(partial).toBeGreaterThanOrEqual(1);
    expect(partial).toBeLessThanOrEqual(2);
  });

  it('gives crops a VH rise of their amplitude to a peak near the truth date, and idle fields a small one', async () => {
    const series = await readFieldSeries(a.scenes, a.fields.features.map((f) => f.geometry as AoiGeometry));
    const day = (d: string) => Date.parse(d) / 86_400_000;
    for (const [f, t] of a.truth.entries()) {
      const vh = Array.from(series.vh[f]!).filter(Number.isFinite);
      const range = Math.max(...vh) - Math.min(...vh);
      if (t.cls === 'maize' || t.cls === 'soybean') {
        // Bare-soil minimum to the canopy peak: the amplitude, give or take wetness and speckle.
        expect(Math.abs(range - t.vhAmplitudeDb), `${t.id} ${t.cls}`).toBeLessThan(2);
        let top = 0;
        series.vh[f]!.forEach((v, i) => {
          if (v > (series.vh[f]![top] ?? -Infinity)) top = i;
        });
        expect(Math.abs(day(series.dates[top]!) - day(t.peakDate!)), `${t.id} peak`).toBeLessThanOrEqual(30);
      }
      if (t.cls === 'grass') expect(range, t.id).toBeLessThan(4.5);
    }
  });
});
