/**
 * The one AOI → pixel window rule (src/analysis/engine/window.ts): outwards plus a margin for
 * the scene detectors, inwards to pixel centres for the raster drivers, clipped to the image.
 */
import { describe, expect, it } from 'vitest';
import { aoiVertexBounds, aoiWindow } from '../../src/analysis/engine/window.ts';
import type { AoiGeometry } from '../../src/geo/types.ts';

const image = { width: 100, height: 80 };

describe('aoiWindow', () => {
  it("'centres' keeps the pixels whose centre the bounds contain; a margin takes every pixel touched and that many more", () => {
    const bounds = { minX: 10.4, minY: 20.6, maxX: 30.5, maxY: 40.2 };
    expect(aoiWindow(bounds, image, 'centres')).toEqual({ x0: 11, y0: 21, width: 20, height: 20 });
    expect(aoiWindow(bounds, image, { x: 0, y: 0 })).toEqual({ x0: 10, y0: 20, width: 22, height: 22 });
    expect(aoiWindow(bounds, image, { x: 2, y: 5 })).toEqual({ x0: 8, y0: 15, width: 26, height: 32 });
  });

  it('clips to the image, and is null off the image, between two pixel centres, or for empty bounds', () => {
    expect(aoiWindow({ minX: -50, minY: 70, maxX: 20, maxY: 300 }, image, { x: 3, y: 3 })).toEqual({ x0: 0, y0: 67, width: 24, height: 13 });
    expect(aoiWindow({ minX: 120, minY: 10, maxX: 130, maxY: 20 }, image, { x: 3, y: 3 })).toBeNull();
    expect(aoiWindow({ minX: 10.2, minY: 10, maxX: 10.8, maxY: 20 }, image, 'centres')).toBeNull();
    expect(aoiWindow({ minX: Infinity, minY: Infinity, maxX: -Infinity, maxY: -Infinity }, image, { x: 3, y: 3 })).toBeNull();
  });

  it('aoiVertexBounds: every ring of every part, vertices the mapping cannot invert left out and counted', () => {
    const aoi: AoiGeometry = {
      type: 'MultiPolygon',
      coordinates: [
        [[[0, 0], [2, 0], [2, 1], [0, 0]]],
        [[[5, 5], [99, 5], [5, 6], [5, 5]]],
      ],
    };
    const toPixel = (lon: number, lat: number) => (lon === 99 ? { row: Number.NaN, col: Number.NaN } : { row: 10 * lat, col: 10 * lon });
    expect(aoiVertexBounds(aoi, toPixel)).toEqual({ minX: 0, minY: 0, maxX: 50, maxY: 60, unmapped: 1 });
  });
});
