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
import { runIdlefarm, type UploadedCollection } from '../../src/analysis/idlefarm/index.ts';
import { idlefarmSources } from '../../src/analysis/modules/idlefarmSources.ts';
import type { SceneRecord } from '../../src/catalog/types.ts';
import { readSafeFolder } from '../../src/catalog/local/safe.ts';
import { GRD_SEASON_DATES as DATES, writeGrdFieldSeason } from '../helpers/grdFieldSeason.ts';
import { unzip } from '../helpers/zip.ts';

let dir: string;
let records: SceneRecord[];
let fields: UploadedCollection;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'idlefarm-grd-'));
  const season = await writeGrdFieldSeason(dir);
  fields = season.fields;
  records = [];
  for (const product of season.productPaths) records.push(await readSafeFolder(product));
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
    const text = (await unzip(out.zipBytes!)).get('fields.geojson')!.toString('utf8');
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
