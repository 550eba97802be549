/**
 * The detect family: GRD products (generated SAFE, radar geometry) read through the catalog
 * record and geocoded onto one UTM grid over the fields (idlefarmSources), then runIdlefarm.
 * A crop field (VH σ0 −21 → −14.5 dB over spring, harvest in autumn, VV +2 dB) and a bare
 * field (flat) are painted into the scene; a third field lies outside it.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import yauzl from 'yauzl';
import { idlefarmSources, runIdlefarm, type UploadedCollection } from '../../src/analysis/idlefarm/index.ts';
import type { SceneRecord } from '../../src/catalog/types.ts';
import { readSafeFolder } from '../../src/catalog/local/safe.ts';
import type { Position } from '../../src/geo/types.ts';
import { GrdGeometry, writeSafeGrd } from '../../src/synth/index.ts';

const CENTER: [number, number] = [11.2, 45.1];
const SIZE = 220;
const DATES = 16;
const STEP_DAYS = 24;
/** Field boxes in radar geometry (lines/pixels of the full image). */
const CROP = { l0: 30, l1: 90, p0: 30, p1: 90 };
const BARE = { l0: 120, l1: 180, p0: 120, p1: 180 };

let dir: string;
let records: SceneRecord[];
let fields: UploadedCollection;

const db = (v: number) => 10 ** (v / 10);

function cropDb(day: number): [number, number] {
  const g = day >= 270 ? 0 : 1 / (1 + Math.exp(-(day - 150) / 10));
  return [-13 + 2 * g, -21 + 6.5 * g];
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'idlefarm-grd-'));
  const geometry = new GrdGeometry({ center: CENTER, width: SIZE, height: SIZE, passDirection: 'ascending', nearIncidenceDeg: 38 });
  const quad = (b: typeof CROP): Position[] => {
    const p = (line: number, pixel: number): Position => {
      const g = geometry.pixelToLonLat(line, pixel);
      return [g.lon, g.lat];
    };
    // Half a pixel inside the painted box, so every pixel centre of the field is painted.
    return [p(b.l0, b.p0), p(b.l0, b.p1), p(b.l1, b.p1), p(b.l1, b.p0), p(b.l0, b.p0)];
  };
  fields = {
    type: 'FeatureCollection',
    features: [
      { type: 'Feature', geometry: { type: 'Polygon', coordinates: [quad(CROP)] }, properties: { name: 'crop' } },
      { type: 'Feature', geometry: { type: 'Polygon', coordinates: [quad(BARE)] }, properties: { name: 'bare' } },
      { type: 'Feature', geometry: { type: 'Polygon', coordinates: [[[11.5, 45.3], [11.505, 45.3], [11.505, 45.305], [11.5, 45.305], [11.5, 45.3]]] }, properties: { name: 'outside' } },
    ],
  };
  records = [];
  for (let k = 0; k < DATES; k++) {
    const day = 10 + k * STEP_DAYS;
    const [cropVv, cropVh] = cropDb(day);
    const paint = (_g: GrdGeometry, y0: number, rows: number, x0: number, w: number, vv: Float32Array | null, vh: Float32Array | null): void => {
      for (const [box, level] of [
        [CROP, [cropVv, cropVh]],
        [BARE, [-13, -21]],
      ] as const) {
        for (let line = Math.max(y0, box.l0 - 1); line <= Math.min(y0 + rows - 1, box.l1 + 1); line++) {
          for (let px = Math.max(x0, box.p0 - 1); px <= Math.min(x0 + w - 1, box.p1 + 1); px++) {
            const i = (line - y0) * w + (px - x0);
            if (vv) vv[i] = db(level[0]);
            if (vh) vh[i] = db(level[1]);
          }
        }
      }
    };
    const start = new Date(Date.UTC(2023, 0, 1, 17, 30) + (day - 1) * 86_400_000);
    const out = await writeSafeGrd(dir, { seed: 500 + k, start, center: CENTER, width: SIZE, height: SIZE, nearIncidenceDeg: 38, wind: { speed: 5, directionDeg: 220 }, surfaces: [{ kind: 'land', polygon: [[[11, 44.9], [11.4, 44.9], [11.4, 45.3], [11, 45.3], [11, 44.9]]] }], overlay: paint });
    records.push(await readSafeFolder(out.productPath));
  }
}, 120_000);

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('idle farmland on GRD (detect family, issue 14)', () => {
  it('issue 14: GRD σ0 geocoded onto one grid over the fields gives the crop field a cycle and the bare field none', async () => {
    const scenes = idlefarmSources('detect', records, fields);
    expect(scenes).toHaveLength(DATES);
    const vv = scenes[0]!.vv as { kind: string; grid: unknown };
    expect(vv.kind).toBe('grd');
    expect((scenes[DATES - 1]!.vh as { grid: unknown }).grid).toBe(vv.grid); // one grid for every date
    const out = await runIdlefarm({ fields, scenes, family: 'detect' });
    expect(out.summary).toMatchObject({ fields: 3, idle: 1, cropped: 1, undetermined: 1, dates: DATES });
    const zip = await new Promise<yauzl.ZipFile>((resolve, reject) => yauzl.fromBuffer(out.zipBytes!, { lazyEntries: true }, (e, z) => (e ? reject(e) : resolve(z))));
    const text = await new Promise<string>((resolve, reject) => {
      zip.on('entry', (entry: yauzl.Entry) => {
        if (entry.fileName !== 'fields.geojson') return zip.readEntry();
        zip.openReadStream(entry, (e, s) => {
          if (e) return reject(e);
          const chunks: Buffer[] = [];
          s.on('data', (c: Buffer) => chunks.push(c));
          s.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
        });
      });
      zip.on('error', reject);
      zip.readEntry();
    });
    const [crop, bare, outside] = (JSON.parse(text) as { features: { properties: Record<string, any> }[] }).features.map((f) => f.properties);
    expect(crop!.name).toBe('crop');
    expect(crop!.idle).toBe(false);
    expect(crop!.idle_probability).toBeLessThan(0.1);
    expect(crop!.valid_dates).toBe(DATES);
    // Painted 6.5 dB rise (σ0 after speckle, noise removal and geocoding): within 1 dB.
    expect(Math.abs(crop!.vh_amplitude_db - 6.5)).toBeLessThan(1);
    expect(crop!.vh_vv_amplitude_db).toBeGreaterThan(3.5);
    expect(bare!.idle).toBe(true);
    expect(bare!.idle_probability).toBeGreaterThan(0.9);
    expect(bare!.vh_amplitude_db).toBeLessThan(1.5);
    expect(Math.abs(bare!.vh_mean_db - -21)).toBeLessThan(1);
    expect(outside!.idle).toBeNull();
    // Inside the common grid but outside the scene's data: no valid pixel on any date.
    expect(outside!.idle_reason).toBe('no date has valid VV and VH pixels over the field');
  }, 120_000);
});
