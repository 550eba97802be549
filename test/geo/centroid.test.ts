import { describe, expect, it } from 'vitest';
import { centroidLonLat } from '../../src/geo/centroid.ts';
import type { AoiGeometry, Ring } from '../../src/geo/types.ts';
import { parseAoiWkt } from '../../src/geo/wkt.ts';

function box(lon1: number, lat1: number, lon2: number, lat2: number): Ring {
  return [
    [lon1, lat1],
    [lon2, lat1],
    [lon2, lat2],
    [lon1, lat2],
    [lon1, lat1],
  ];
}

describe('centroidLonLat', () => {
  it('is the centre of a rectangle', () => {
    const c = centroidLonLat({ type: 'Polygon', coordinates: [box(10, 45, 12, 46)] });
    expect(c.lon).toBeCloseTo(11, 12);
    expect(c.lat).toBeCloseTo(45.5, 12);
  });

  it('is area-weighted for an L shape', () => {
    // [0,2]×[0,1] (area 2, centre 1, 0.5) plus [0,1]×[1,2] (area 1, centre 0.5, 1.5).
    const c = centroidLonLat(parseAoiWkt('POLYGON ((0 0, 2 0, 2 1, 1 1, 1 2, 0 2, 0 0))'));
    expect(c.lon).toBeCloseTo(2.5 / 3, 12);
    expect(c.lat).toBeCloseTo(2.5 / 3, 12);
  });

  it('weighs holes negatively, whatever the winding', () => {
    // Shell [0,4]² (area 16, centre 2,2) minus hole [0.5,1.5]² (area 1, centre 1,1).
    const expected = (16 * 2 - 1) / 15;
    for (const shell of [box(0, 0, 4, 4), box(0, 0, 4, 4).reverse()]) {
      for (const hole of [box(0.5, 0.5, 1.5, 1.5), box(0.5, 0.5, 1.5, 1.5).reverse()]) {
        const c = centroidLonLat({ type: 'Polygon', coordinates: [shell, hole] });
        expect(c.lon).toBeCloseTo(expected, 12);
        expect(c.lat).toBeCloseTo(expected, 12);
      }
    }
  });

  it('weighs MULTIPOLYGON parts by area', () => {
    const geom: AoiGeometry = { type: 'MultiPolygon', coordinates: [[box(0, 0, 1, 1)], [box(10, 0, 12, 2)]] };
    const c = centroidLonLat(geom);
    expect(c.lon).toBeCloseTo((1 * 0.5 + 4 * 11) / 5, 12);
    expect(c.lat).toBeCloseTo((1 * 0.5 + 4 * 1) / 5, 12);
  });

  it('keeps precision far from the origin', () => {
    const c = centroidLonLat({ type: 'Polygon', coordinates: [box(179.999, -89.001, 179.9999, -89.0001)] });
    expect(c.lon).toBeCloseTo(179.99945, 10);
    expect(c.lat).toBeCloseTo(-89.00055, 10);
  });

  it('falls back to the mean vertex for a zero-area ring', () => {
    const c = centroidLonLat({
      type: 'Polygon',
      coordinates: [
        [
          [0, 0],
          [2, 0],
          [1, 0],
          [0, 0],
        ],
      ],
    });
    expect(c).toEqual({ lon: 1, lat: 0 });
  });
});
