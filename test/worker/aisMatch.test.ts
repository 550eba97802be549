/**
 * Issue 23 §4: the worker's AIS step (src/worker/aisMatch.ts) — the fixes read from the object
 * store, vessels placed at the scene's start time, undetected ones listed only inside the
 * analysed extent (holes excluded), and a deleted upload failing the job VALIDATION_ERROR.
 */
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { matchAisInOutput } from '../../src/worker/aisMatch.ts';
import type { ObjectStore } from '../../src/objects/port.ts';
import type { AisFix } from '../../src/analysis/ais/index.ts';
import type { ResolvedInput } from '../../src/analysis/port.ts';
import { JobFailure } from '../../src/contract/errors.ts';

const START = '2022-06-12T17:33:29Z';
const fix = (mmsi: string, lon: number, lat: number): AisFix => ({ mmsi, t: Date.parse(START), lon, lat, sog: null, cog: null, heading: null, length: 50 });
const storeWith = (fixes: AisFix[] | null) => ({ get: async () => (fixes ? { body: Readable.from([Buffer.from(JSON.stringify(fixes))]) } : null) }) as unknown as ObjectStore;
const scene = { sceneId: 'S1', productType: 'GRD', startTime: START, footprint: { type: 'Polygon' as const, coordinates: [[[0, 0], [10, 0], [10, 10], [0, 10], [0, 0]] as [number, number][]] }, assets: {} } as unknown as Extract<ResolvedInput, { kind: 'scene' }>['scene'];
// The extent: a 4° square with a 2° hole in its middle.
const extent = {
  type: 'Polygon' as const,
  coordinates: [
    [[1, 1], [5, 1], [5, 5], [1, 5], [1, 1]],
    [[2, 2], [4, 2], [4, 4], [2, 4], [2, 2]],
  ] as [number, number][][],
};
const input: ResolvedInput = { kind: 'nearest', scene, extent, aoi: extent };
const empty = { result: { type: 'FeatureCollection' as const, features: [] } };

describe('issue 23 §4: the worker AIS step', () => {
  it('lists undetected vessels inside the extent only (not in a hole, not outside it)', async () => {
    const fixes = [fix('200000001', 1.5, 1.5), fix('200000002', 3, 3), fix('200000003', 7, 7)];
    const { output, summary } = await matchAisInOutput(storeWith(fixes), { aisId: 'a', fixesKey: 'k' }, input, empty);
    expect(summary).toEqual({ matched: 0, dark: 0, undetected: 1 });
    expect(output.result!.features.map((f) => [f.id, f.properties.mmsi, f.properties.detected])).toEqual([[1, '200000001', false]]);
  });

  it('an upload deleted before the job ran fails it VALIDATION_ERROR', async () => {
    const run = matchAisInOutput(storeWith(null), { aisId: 'gone', fixesKey: 'k' }, input, empty);
    await expect(run).rejects.toBeInstanceOf(JobFailure);
    await expect(run).rejects.toMatchObject({ code: 'VALIDATION_ERROR', message: 'ais_id: the AIS upload gone was deleted before the job ran' });
  });
});
