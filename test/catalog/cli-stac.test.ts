/**
 * `sarwatch analyze ship <STAC item URL>` (issue 12, "Done when": the CLI analyses a
 * Planetary-Computer-shaped item URL), run as a user runs it, against the stand-in archive:
 * the configured provider's SAS tokens sign the asset links; the result equals the one from
 * the local SAFE.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detectShipsInSafe } from '../../src/analysis/ship/index.ts';
import { closeAnalysisPool } from '../../src/analysis/engine/pool.ts';
import { SARWATCH_BIN, REPO_ROOT } from '../helpers/cli.ts';
import { NORTH_SEA_SAFE } from '../imagery/fixtures.ts';
import { NORTH_SEA_ID, northSeaItem, startStandIn, type StandIn } from '../imagery/standIn.ts';

const run = promisify(execFile);
let standIn: StandIn;
let tmp = '';

beforeAll(async () => {
  standIn = await startStandIn();
  standIn.items.set('sentinel-1-grd', [northSeaItem(standIn)]);
  tmp = mkdtempSync(path.join(os.tmpdir(), 'sarwatch-cli-stac-'));
});

afterAll(async () => {
  await closeAnalysisPool();
  await standIn?.close();
  rmSync(tmp, { recursive: true, force: true });
});

describe('sarwatch analyze with a STAC item URL (Planetary Computer stand-in)', () => {
  it('analyze ship <item URL>: signed range reads, the same FeatureCollection as from the local SAFE', async () => {
    const out = path.join(tmp, 'ships.geojson');
    const itemUrl = `${standIn.url}/api/stac/v1/collections/sentinel-1-grd/items/${NORTH_SEA_ID}`;
    const { stderr } = await run(process.execPath, [SARWATCH_BIN, 'analyze', 'ship', itemUrl, '--out', out], {
      cwd: REPO_ROOT,
      env: {
        ...process.env,
        SARWATCH_DATA_DIR: tmp,
        CATALOG_PROVIDER: 'planetary-computer',
        CATALOG_URL: `${standIn.url}/api/stac/v1`,
        PC_SAS_TOKEN_URL: `${standIn.url}/api/sas/v1/token`,
      },
    });
    expect(stderr).toMatch(/ship S1A_IW_GRDH_1SDV_20220612T173329_20220612T173354_043633_05359A .*done/s);
    const fc = JSON.parse(readFileSync(out, 'utf8'));
    const local = await detectShipsInSafe(NORTH_SEA_SAFE);
    expect(fc.features.length).toBeGreaterThanOrEqual(16);
    expect(fc).toEqual(JSON.parse(JSON.stringify(local)));
    const tiffs = standIn.requests.filter((r) => r.path.endsWith('.tiff'));
    expect(tiffs.length).toBeGreaterThan(0);
    expect(tiffs.every((r) => r.status === 206 && /sig=sentinel-1-grd-/.test(r.query))).toBe(true);
    // The bytes went through the on-disk cache in the data directory.
    expect(readFileSync(path.join(tmp, 'byte-cache', readdir(path.join(tmp, 'byte-cache'))[0]!)).byteLength).toBeGreaterThan(0);
  });
});

function readdir(dir: string): string[] {
  return readdirSync(dir).filter((f) => f.endsWith('.blk'));
}
