// A time series' quicklook and map layer are made side by side from the same result: its
// features are flattened once (vectors.ts flattenFeatures) and each maker gets arrays of its
// own, so moving one copy to a thread leaves the other whole.
import { describe, expect, it } from 'vitest';
import { flattenFeatures, flattenGeometries } from '../../src/analysis/quicklook/vectors.ts';
import type { Polygon } from '../../src/geo/types.ts';

const square = (x: number, y: number): Polygon => ({ type: 'Polygon', coordinates: [[[x, y], [x + 1, y], [x + 1, y + 1], [x, y + 1], [x, y]]] });

describe('flattenFeatures', () => {
  it('gives each caller its own copy of the one flattening, equal to flattenGeometries', async () => {
    const features = [square(0, 0), square(2, 3), square(5, 1)].map((geometry) => ({ geometry }));
    const expected = await flattenGeometries(features.map((f) => f.geometry));
    const [a, b] = await Promise.all([flattenFeatures(features), flattenFeatures(features)]);
    expect(a).toEqual(expected);
    expect(b).toEqual(expected);
    expect(a.coords.buffer).not.toBe(b.coords.buffer);
    // Moving one copy's buffers (as a thread task does) detaches only that copy.
    structuredClone(a.coords.buffer, { transfer: [a.coords.buffer as ArrayBuffer] });
    expect(a.coords.length).toBe(0);
    expect(b.coords).toEqual(expected.coords);
    expect((await flattenFeatures(features)).coords).toEqual(expected.coords);
  });
});
