// Pins the two per-zone series readers on generated stacks: readCellSeries (time series, grid
// cells) and readFieldSeries (idle farmland, fields), which share one walk over the dated stack
// (src/analysis/timeseries/stack.ts). The digests were computed at 56b9110, before the two
// readers' own walks were folded into that one, and the fold left every value bit-identical.
// The cases: a season with missing dates and no-data strips; every date pooled with the next
// date's rasters (two scenes a date); VH only; the cell grid in the rasters' UTM zone and in the
// next one; a null field. No onProgress is passed (the detectors always pass one). Float64 sums
// of these float32 values are exact, so the order in which pooled scenes add up (a field's own
// sum first, then the date's; a cell's straight into the date's) cannot show here.
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AoiGeometry, Position } from '../../src/geo/types.ts';
import { readFieldSeries } from '../../src/analysis/idlefarm/series.ts';
import { buildCellGrid } from '../../src/analysis/timeseries/grid.ts';
import { readCellSeries } from '../../src/analysis/timeseries/series.ts';
import { writeFieldSeason, type SeasonStackResult } from '../../src/synth/index.ts';

const BEFORE: Record<string, string> = {
  'field-plain': 'dcb8e7a1fcc4184bf355f4a54dfa0482ab79d8b8387b345e701e6a62da588017',
  'field-pooled': '20b52f8459e85a28ced232740ff4ccd5bab0f4790c2dfcc32910e0916bf2c4cb',
  'field-vhOnly': '2ff0659a6b52a113c632f4e3598a8b90a5a1da336ea96bbce05a52d557dc00fb',
  'cell-same-crs-plain': 'cfc7efcbd4270fdcea9d0c07d8f82ce034dea73074c1472f42ba773e01a37f18',
  'cell-same-crs-pooled': 'a5c2e42c17f9511a29cb5ca4433a8a4911378e262a573213245e64e761f2e954',
  'cell-same-crs-vhOnly': 'b987ecd700720391580ece990eff3b8414f363416cc750ab1b7e7f3040d5ccd5',
  'cell-other-crs-plain': '305536764d5b98b675fe828dfca24a228b3fb7c1e39881b00086eeefed0b25e0',
  'cell-other-crs-pooled': '72dfd1069958c224a1dd72abc9359e7bfb9ccbc86bf0e13306ee38938d088436',
  'cell-other-crs-vhOnly': 'dffb46eaa554d4d030cfb7128a56f01706faa935091440f5e6a2183d9a81ec19',
};

let dir: string;
let season: SeasonStackResult;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'series-pins-'));
  season = await writeFieldSeason(dir, { seed: 9011, missingDates: 6, stripDates: 5 });
}, 120_000);

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

const digest = (parts: unknown[]): string => {
  const hash = createHash('sha256');
  for (const p of parts) {
    if (ArrayBuffer.isView(p)) hash.update(new Uint8Array(p.buffer, p.byteOffset, p.byteLength));
    else if (p === null) hash.update('null');
    else hash.update(JSON.stringify(p));
  }
  return hash.digest('hex');
};

describe('series readers: outputs pinned bit for bit', () => {
  it('readFieldSeries and readCellSeries give the digests taken before the shared walk', async () => {
    type Scene = SeasonStackResult['scenes'][number];
    const plain: Scene[] = season.scenes;
    const pooled: Scene[] = [...plain, ...plain.slice(1).map((s, k) => ({ ...s, date: plain[k]!.date }))];
    const vhOnly = plain.map((s) => ({ date: s.date, vh: s.vh }));
    const cases = { plain, pooled, vhOnly };
    const fields: (AoiGeometry | null)[] = [...season.fields.features.map((f) => f.geometry), null];
    const got: Record<string, string> = {};
    for (const [name, scenes] of Object.entries(cases)) {
      const s = await readFieldSeries(scenes, fields);
      got[`field-${name}`] = digest([s.dates, ...s.vv, ...s.vh, s.pixels]);
    }
    // An AOI over most of the fields, with slanted edges.
    const ring = season.fields.features.flatMap((f) => f.geometry.coordinates[0]!);
    const lon = ring.map((p) => p[0]!);
    const lat = ring.map((p) => p[1]!);
    const [x0, x1, y0, y1] = [Math.min(...lon), Math.max(...lon), Math.min(...lat), Math.max(...lat)];
    const corners: Position[] = [[x0, y0], [x1, y0 + 0.2 * (y1 - y0)], [x1, y1], [x0 + 0.3 * (x1 - x0), y1], [x0, y0]];
    const aoi: AoiGeometry = { type: 'Polygon', coordinates: [corners] };
    for (const epsg of [season.epsg, season.epsg + 1]) {
      const grid = buildCellGrid(aoi, epsg, 100);
      for (const [name, scenes] of Object.entries(cases)) {
        const s = await readCellSeries(scenes, grid, aoi);
        got[`cell-${epsg === season.epsg ? 'same' : 'other'}-crs-${name}`] = digest([s.dates, s.vv, s.vh, s.validPixels]);
      }
    }
    expect(got).toEqual(BEFORE);
  }, 60_000);
});
