/**
 * Issue 14: `sarwatch analyze idlefarm FIELDS.geojson SCENES…` runs the idlefarm detector
 * without the service on a generated season (src/synth/fields.ts, an OPERA-style RTC stack in
 * one folder) and writes the job's result.zip.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFieldSeason, type SeasonStackResult } from '../../src/synth/index.ts';
import { runSarwatch, runSarwatchInProcess } from '../helpers/cli.ts';
import { unzip } from '../helpers/zip.ts';

let dir: string;
let season: SeasonStackResult;
const sarwatch = (...args: string[]) => runSarwatch(path.join(dir, 'data'), ...args);
/** The same command in this process (runCli): the refusals need no process of their own. */
const inProcess = (...args: string[]) => runSarwatchInProcess({}, path.join(dir, 'data'), ...args);

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'cli-idlefarm-'));
  season = await writeFieldSeason(path.join(dir, 'season'), { seed: 9101, fieldsPerSide: 4 });
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('issue 14: sarwatch analyze idlefarm', () => {
  it('issue 14: FIELDS.geojson + an RTC folder → result.zip whose fields.geojson decides the fields by the generated truth', async () => {
    const out = path.join(dir, 'result.zip');
    const res = await sarwatch('analyze', 'idlefarm', season.fieldsPath, path.join(dir, 'season'), '--out', out);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).toMatch(new RegExp(`${season.fields.features.length} fields: \\d+ idle, \\d+ cropped`));
    const members = await unzip(readFileSync(out));
    for (const m of ['fields.geojson', 'summary.csv', 'README.txt', 'charts/0001.png']) expect(members.has(m), m).toBe(true);
    const fc = JSON.parse(members.get('fields.geojson')!.toString('utf8')) as { features: { properties: Record<string, any> }[] };
    expect(fc.features.map((f) => f.properties.name)).toEqual(season.fields.features.map((f) => f.properties.name));
    let right = 0;
    for (const f of fc.features) if (f.properties.idle === season.truth.find((t) => t.id === f.properties.name)!.idle) right++;
    expect(right / fc.features.length).toBeGreaterThanOrEqual(0.9);
  });

  it('issue 14: usage errors exit 2: no scenes, a fields file that is not a FeatureCollection, --polygon', async () => {
    const none = await inProcess('analyze', 'idlefarm', season.fieldsPath);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/needs FIELDS\.geojson and SCENES/);
    const notFc = path.join(dir, 'point.geojson');
    writeFileSync(notFc, JSON.stringify({ type: 'Point', coordinates: [11.2, 45.1] }));
    const bad = await inProcess('analyze', 'idlefarm', notFc, path.join(dir, 'season'));
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/not a GeoJSON FeatureCollection/);
    const poly = await inProcess('analyze', 'idlefarm', season.fieldsPath, path.join(dir, 'season'), '--polygon', 'POLYGON ((0 0, 1 0, 1 1, 0 0))');
    expect(poly.code).toBe(2);
    expect(poly.stderr).toMatch(/--polygon/);
  });
});
