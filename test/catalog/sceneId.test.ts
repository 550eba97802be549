import { describe, expect, it } from 'vitest';
import {
  CatalogError,
  checkSceneIdAtSubmission,
  resolveSceneForJob,
  type SceneCatalog,
  type SceneRecord,
} from '../../src/catalog/index.ts';
import { scene } from './fixtures.ts';

const GRD = 'S1A_IW_GRDH_1SDV_20210809T173953_20210809T174018_039156_049F13_6FF8';
const SLC = 'S1A_IW_SLC__1SDV_20240113T020816_20240113T020843_052082_064B71_4818';
const OCN = 'S1A_IW_OCN__2SDV_20240113T020816_20240113T020843_052082_064B71_1234';
const RAW = 'S1B_IW_RAW__0SDV_20211223T051118_20211223T051151_030148_039993_3FBC';

class FakeCatalog implements SceneCatalog {
  constructor(private readonly scenes: SceneRecord[], private readonly fail = false) {}
  async search(): Promise<SceneRecord[]> {
    return this.scenes;
  }
  async get(id: string): Promise<SceneRecord | null> {
    if (this.fail) throw new CatalogError('down', 'network');
    return this.scenes.find((s) => s.sceneId === id) ?? null;
  }
}

describe('scene_id rules per family (spec: detect rejects non-GRD with 400 INVALID_SCENE; analyze fails the job with SCENE_NOT_FOUND)', () => {
  it.each([
    [SLC, 'SLC'],
    [OCN, 'OCN'],
    [RAW, 'RAW'],
  ])('detect family: non-GRD scene_id %s → INVALID_SCENE at submission, naming the product type', (id, type) => {
    const r = checkSceneIdAtSubmission(id, 'detect');
    expect(r).toMatchObject({ ok: false, code: 'INVALID_SCENE' });
    expect(!r.ok && r.message).toContain(type);
  });

  it('detect family: an unparsable scene_id → INVALID_SCENE at submission', () => {
    expect(checkSceneIdAtSubmission('not-a-scene', 'detect')).toMatchObject({ ok: false, code: 'INVALID_SCENE' });
  });

  it.each([GRD, `${GRD}.SAFE`, `${GRD}.zip`])('detect family: GRD scene_id %s is accepted', (id) => {
    expect(checkSceneIdAtSubmission(id, 'detect')).toMatchObject({ ok: true, name: { productType: 'GRD' } });
  });

  it.each([SLC, OCN, RAW, 'not-a-scene', GRD])('analyze family: scene_id %s is accepted at submission', (id) => {
    expect(checkSceneIdAtSubmission(id, 'analyze').ok).toBe(true);
  });

  it.each([
    [SLC, 'SLC product'],
    ['not-a-scene', 'not a Sentinel-1 product name'],
    ['S1A_IW_GRDH_1SDV_20210809T173953_20210809T174018_039156_049F13_AAAA', 'not found'],
  ])('the job fails with SCENE_NOT_FOUND for %s (%s)', async (id, text) => {
    const r = await resolveSceneForJob(new FakeCatalog([scene({ id: GRD, t: '2021-08-09T17:39:53Z' })]), id);
    expect(r).toMatchObject({ ok: false, code: 'SCENE_NOT_FOUND' });
    expect(!r.ok && r.message).toContain(text);
  });

  it('the job resolves a GRD scene_id through the catalog', async () => {
    const r = await resolveSceneForJob(new FakeCatalog([scene({ id: GRD, t: '2021-08-09T17:39:53Z' })]), `${GRD}.SAFE`);
    expect(r).toMatchObject({ ok: true, scene: { sceneId: GRD } });
  });

  it('a catalog record that is not GRD is SCENE_NOT_FOUND too', async () => {
    const r = await resolveSceneForJob(new FakeCatalog([scene({ id: GRD, t: '2021-08-09T17:39:53Z', type: 'RTC' })]), GRD);
    expect(r).toMatchObject({ ok: false, code: 'SCENE_NOT_FOUND' });
  });

  it('an unreachable catalog is a CatalogError (server-class), not SCENE_NOT_FOUND', async () => {
    await expect(resolveSceneForJob(new FakeCatalog([], true), GRD)).rejects.toBeInstanceOf(CatalogError);
  });
});
