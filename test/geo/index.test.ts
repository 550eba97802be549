import { describe, expect, it } from 'vitest';
import * as geo from '../../src/geo/index.ts';

describe('geo index', () => {
  it('exports the API other layers code against', () => {
    for (const name of [
      'GeometryError',
      'parseAoiWkt',
      'toWkt',
      'assertValidAoi',
      'geodesicAreaSqm',
      'geodesicAreaSqkm',
      'centroidLonLat',
      'intersectAoi',
      'unionAoi',
      'differenceAoi',
      'bboxOf',
      'simplifyToWktBudget',
      'douglasPeucker',
    ]) {
      expect(typeof (geo as Record<string, unknown>)[name], name).toBe('function');
    }
  });

  it('works end to end: parse, measure, clip, simplify, resubmit', () => {
    const aoi = geo.parseAoiWkt('POLYGON ((10 45, 10.2 45, 10.2 45.1, 10 45.1, 10 45))');
    const footprint = geo.parseAoiWkt('POLYGON ((10.1 44, 12 44, 12 46, 10.1 46, 10.1 44))');
    const covered = geo.intersectAoi(aoi, footprint)!;
    expect(geo.geodesicAreaSqkm(aoi)).toBeCloseTo(175.0, 0);
    expect(geo.geodesicAreaSqm(covered) / geo.geodesicAreaSqm(aoi)).toBeCloseTo(0.5, 3);
    const { lon, lat } = geo.centroidLonLat(covered);
    expect(lon).toBeCloseTo(10.15, 9);
    expect(lat).toBeCloseTo(45.05, 9);
    const text = geo.simplifyToWktBudget(covered, 1_000);
    expect(geo.toWkt(geo.parseAoiWkt(text))).toBe(text);
    expect(() => geo.parseAoiWkt('POINT (1 2)')).toThrow(geo.GeometryError);
  });
});
