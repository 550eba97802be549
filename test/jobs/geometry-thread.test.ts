import { afterAll, describe, expect, it } from 'vitest';
import { circleWkt, slantedStripsWkt } from '../../bench/hostile-polygons.ts';
import type { SceneRecord } from '../../src/catalog/types.ts';
import { loadConfig } from '../../src/config.ts';
import type { SubmissionBody } from '../../src/contract/schemas.ts';
import { checkPolygonOffMainThread, INLINE_WKT_CHARS, selectOffMainThread } from '../../src/jobs/geometry/pool.ts';
import { closeGeometryThread } from '../../src/threads/geometryThread.ts';
import { checkPolygon } from '../../src/jobs/geometry/tasks.ts';
import { selectAmong, type PolygonRequest } from '../../src/jobs/selectAmong.ts';
import { validateSubmission } from '../../src/jobs/validate.ts';

const config = loadConfig({});

const scene: SceneRecord = {
  sceneId: 'S1A_IW_GRDH_1SDV_20220612T173329_20220612T173354_043633_05359A_BE01',
  productType: 'GRD',
  platform: 'S1A',
  platformGroup: 'S1',
  startTime: '2022-06-12T17:33:29.000Z',
  stopTime: '2022-06-12T17:33:54.000Z',
  relativeOrbit: 88,
  absoluteOrbit: 43633,
  orbitDirection: 'ascending',
  frame: { startDeg: 10, endDeg: 11 },
  polarisations: ['VV', 'VH'],
  footprint: { type: 'Polygon', coordinates: [[[2, 51], [3.2, 51], [3.2, 51.8], [2, 51.8], [2, 51]]] },
  assets: {},
  source: 'local',
};

afterAll(() => closeGeometryThread());

describe('issue 10.1: a large polygon is checked and clipped on the geometry thread, with the same answers', () => {
  it('validation off the main thread equals validation inline', async () => {
    const wkt = circleWkt(100_000);
    expect(wkt.length).toBeGreaterThan(INLINE_WKT_CHARS);
    const off = await checkPolygonOffMainThread(wkt, config.polygonLimits);
    const inline = checkPolygon(wkt, config.polygonLimits);
    expect(off).toEqual(inline);
    expect(off.ok && off.areaSqkm).toBeCloseTo(3841.07, 1);

    const refused = await checkPolygonOffMainThread(slantedStripsWkt(13_000), config.polygonLimits);
    expect(refused).toEqual({ ok: false, message: 'polygon has more than 10000 MULTIPOLYGON parts; the limit is 10000 parts per MULTIPOLYGON' });
  });

  it('scene selection and coverage off the main thread equal them inline', async () => {
    const body = { satellite_id: 'sentinel-1', polygon: slantedStripsWkt(1_200), date: '2022-06-12' } as SubmissionBody;
    const request = (await validateSubmission('ship', 'analyze', body, config)) as PolygonRequest;
    const off = await selectOffMainThread(request, [scene], config);
    const inline = selectAmong(request, [scene], config);
    expect(off).toEqual(inline);
    if (!off.ok) throw new Error(off.message);
    // The strips run 2.0–3.6° E; the scene ends at 3.2° E.
    expect(off.resolution.coverage?.ratio).toBe(0.87);
    expect(off.resolution.coverage?.polygon).toMatch(/^MULTIPOLYGON \(\(\(/);
    expect(off.resolution.input.kind).toBe('nearest');
  });
});
