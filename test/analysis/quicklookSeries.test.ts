// A time series' deviation map and map layer are made on the calling thread between
// event-loop turns (deviationMap.ts, mapLayer.ts): no task of the analysis pool runs (a pool
// thread's start cost several times the drawing), the event loop runs while they are made,
// and the picture and the layer are the same whether the pool had run before or not.
import { createHash } from 'node:crypto';
import { PNG } from 'pngjs';
import { afterAll, describe, expect, it } from 'vitest';
import { makeMapLayer, makeQuicklook } from '../../src/analysis/quicklook/index.ts';
import { analysisCpu } from '../../src/analysis/engine/cpu.ts';
import { closeAnalysisPool } from '../../src/analysis/engine/pool.ts';
import type { ResultCollection } from '../../src/analysis/port.ts';
import type { Polygon } from '../../src/geo/types.ts';

afterAll(() => closeAnalysisPool());

/** A 60 × 60 grid of 100 m-ish cells, deviations across every class and some null. */
function series(): { result: ResultCollection; aoi: Polygon } {
  const n = 60;
  const [lon0, lat0, dx, dy] = [5.55, 52.37, 0.00147, 0.0009];
  // A time series' properties (not the geojson endpoints' area_sqm / confidence): typed loosely.
  const features: Array<{ type: 'Feature'; id: number; geometry: Polygon; properties: Record<string, unknown> }> = [];
  for (let i = 0; i < n; i++)
    for (let j = 0; j < n; j++) {
      const x = lon0 + j * dx;
      const y = lat0 + i * dy;
      const deviation = (i + j) % 17 === 0 ? null : (((i * 7 + j * 3) % 90) - 45) / 10;
      features.push({ type: 'Feature', id: i * n + j, geometry: { type: 'Polygon', coordinates: [[[x, y], [x + dx, y], [x + dx, y + dy], [x, y + dy], [x, y]]] }, properties: { deviation, chart: { dates: ['2024-01-01', '2024-12-30'] } } });
    }
  const aoi: Polygon = { type: 'Polygon', coordinates: [[[lon0, lat0], [lon0 + n * dx, lat0], [lon0 + n * dx, lat0 + n * dy], [lon0, lat0 + n * dy], [lon0, lat0]]] };
  return { result: { type: 'FeatureCollection', features } as unknown as ResultCollection, aoi };
}

const digest = (png: Uint8Array) => {
  const d = PNG.sync.read(Buffer.from(png));
  return `${d.width}x${d.height} ${createHash('sha256').update(d.data).digest('hex')}`;
};

describe('the deviation map and the map layer on the calling thread', () => {
  it('run no pool task, let the event loop turn while they are made, and give the same bytes each time', async () => {
    const { result, aoi } = series();
    const request = { endpointId: 'timeseries' as const, family: 'analyze' as const, input: { kind: 'series' as const, scenes: [], extent: aoi, aoi }, result };
    const before = analysisCpu();
    let turns = 0;
    let ticking = true;
    const tick = () => {
      turns++;
      if (ticking) setImmediate(tick);
    };
    setImmediate(tick);
    const [images, layer] = await Promise.all([makeQuicklook(request), makeMapLayer(request)]);
    ticking = false;
    const after = analysisCpu();
    // No task of the analysis pool ran (each adds its thread's CPU here: pool.ts runTileCall).
    expect(after.tileTasks).toBe(before.tileTasks);
    expect(after.taskModules).toBe(before.taskModules);
    // 3,600 cells: the map yields every 256 cells and the layer every 500, each yield a setImmediate.
    // Both run at once, so their yields may fall in the same turn: the loop turns at least as
    // often as the longer of the two yields (a sum would count shared turns twice — it failed
    // in CI when the two chains lined up).
    expect(turns).toBeGreaterThanOrEqual(Math.max(Math.floor(3600 / 256), Math.floor(3600 / 500)));
    const parsed = JSON.parse(new TextDecoder().decode(layer!));
    expect(parsed.features).toHaveLength(3600);
    expect(parsed.features[17 * 3 - 17].properties.deviation).toBe(result.features[17 * 3 - 17]!.properties.deviation);
    expect(parsed.features.filter((f: { properties: { deviation: unknown } }) => f.properties.deviation === null).length).toBe(result.features.filter((f) => f.properties.deviation === null).length);
    const png = PNG.sync.read(Buffer.from(images!.quicklook));
    expect(png.width).toBeGreaterThan(1000);
    // The same bytes again, and when stopped it stops.
    const again = await makeQuicklook(request);
    expect(digest(again!.quicklook)).toBe(digest(images!.quicklook));
    const stop = new AbortController();
    stop.abort();
    await expect(makeQuicklook({ ...request, signal: stop.signal })).rejects.toThrow();
  }, 60_000);
});
