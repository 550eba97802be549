import { describe, expect, it } from 'vitest';
import { finalizeFeatureCollection } from '../../src/analysis/common/result.ts';
import { geodesicAreaSqm } from '../../src/geo/area.ts';
import type { Polygon, Position } from '../../src/geo/types.ts';

const square = (lon: number, lat: number, size: number, clockwise = false): Polygon => {
  const ring: Position[] = [
    [lon, lat],
    [lon + size, lat],
    [lon + size, lat + size],
    [lon, lat + size],
    [lon, lat],
  ];
  return { type: 'Polygon', coordinates: [clockwise ? ring.reverse() : ring] };
};

function signedArea(ring: readonly Position[]): number {
  let a = 0;
  for (let i = 0; i + 1 < ring.length; i++) a += ring[i]![0] * ring[i + 1]![1] - ring[i + 1]![0] * ring[i]![1];
  return a / 2;
}

describe('finalizeFeatureCollection: the spec\'s Result rules', () => {
  const withHole: Polygon = {
    type: 'Polygon',
    coordinates: [
      [
        [2.5, 51.4],
        [2.6, 51.4],
        [2.6, 51.5],
        [2.5, 51.5],
        [2.5, 51.4],
      ],
      // Counter-clockwise on purpose: finalize must orient holes clockwise.
      [
        [2.52, 51.42],
        [2.58, 51.42],
        [2.58, 51.48],
        [2.52, 51.48],
        [2.52, 51.42],
      ],
    ],
  };

  it('rule: type FeatureCollection, no crs member, features an array', () => {
    const fc = finalizeFeatureCollection([{ geometry: square(2, 51, 0.01) }]);
    expect(fc.type).toBe('FeatureCollection');
    expect('crs' in fc).toBe(false);
    expect(JSON.parse(JSON.stringify(fc))).not.toHaveProperty('crs');
    expect(Array.isArray(fc.features)).toBe(true);
  });

  it('rule: ids are integers on the Feature, sequential from 1', () => {
    const fc = finalizeFeatureCollection([square(2, 51, 0.01), square(3, 52, 0.01), square(1, 50, 0.01)].map((geometry) => ({ geometry })));
    expect(fc.features.map((f) => f.id)).toEqual([1, 2, 3]);
    for (const f of fc.features) {
      expect(Number.isInteger(f.id)).toBe(true);
      expect(f.type).toBe('Feature');
      expect(f.properties).not.toHaveProperty('id');
    }
  });

  it('rule: stable order — northernmost first vertex first, then westernmost — whatever the input order', () => {
    const a = square(2, 51, 0.01);
    const b = square(3, 52, 0.01);
    const c = square(1, 52, 0.01);
    const one = finalizeFeatureCollection([a, b, c].map((geometry) => ({ geometry })));
    const two = finalizeFeatureCollection([c, a, b].map((geometry) => ({ geometry })));
    expect(one).toEqual(two);
    // Rings start at their northernmost (then westernmost) vertex: the squares' north-west corners.
    expect(one.features.map((f) => f.geometry.coordinates[0]![0])).toEqual([
      [1, 52.01],
      [3, 52.01],
      [2, 51.01],
    ]);
  });

  it('rule: confidence is present on every Feature — null by default, the given number otherwise', () => {
    const polygons = [square(2, 51, 0.01), square(3, 52, 0.01)].map((geometry) => ({ geometry }));
    for (const f of finalizeFeatureCollection(polygons).features) {
      expect(f.properties).toHaveProperty('confidence');
      expect(f.properties.confidence).toBeNull();
    }
    const scored = finalizeFeatureCollection(polygons, { confidence: (i) => (i === 0 ? 0.8 : null) });
    // Input 0 (south) ends up second.
    expect(scored.features.map((f) => f.properties.confidence)).toEqual([null, 0.8]);
    expect(JSON.stringify(scored)).toContain('"confidence":null');
  });

  it('rule: area_sqm is geodesic on WGS84 with holes subtracted', () => {
    const fc = finalizeFeatureCollection([{ geometry: withHole }]);
    const shell: Polygon = { type: 'Polygon', coordinates: [withHole.coordinates[0]!] };
    const hole: Polygon = { type: 'Polygon', coordinates: [withHole.coordinates[1]!] };
    const expected = geodesicAreaSqm(shell) - geodesicAreaSqm(hole);
    expect(fc.features[0]!.properties.area_sqm).toBeCloseTo(expected, 1);
    // ≈ 0.1° × 0.1° minus 0.06° × 0.06° at 51.45° N.
    expect(fc.features[0]!.properties.area_sqm).toBeGreaterThan(0.6 * geodesicAreaSqm(shell));
    expect(fc.features[0]!.properties.area_sqm).toBeLessThan(0.7 * geodesicAreaSqm(shell));
  });

  it('rule: rings are closed, exterior counter-clockwise and holes clockwise (RFC 7946)', () => {
    const fc = finalizeFeatureCollection([{ geometry: withHole }, { geometry: square(3, 50, 0.01, true) }]);
    for (const f of fc.features) {
      f.geometry.coordinates.forEach((ring, i) => {
        expect(ring[0]).toEqual(ring[ring.length - 1]);
        if (i === 0) expect(signedArea(ring)).toBeGreaterThan(0);
        else expect(signedArea(ring)).toBeLessThan(0);
      });
    }
  });

  it('rule: bbox [minx, miny, maxx, maxy] covers all detections; omitted when there are none', () => {
    const fc = finalizeFeatureCollection([square(2, 51, 0.01), square(3, 52, 0.02)].map((geometry) => ({ geometry })));
    expect(fc.bbox).toEqual([2, 51, 3.02, 52.02]);
    const empty = finalizeFeatureCollection([]);
    expect(empty).toEqual({ type: 'FeatureCollection', features: [] });
    expect('bbox' in empty).toBe(false);
  });

  it('coordinates are rounded to 1e-7°, and area and bbox are computed from the rounded values', () => {
    const geometry = square(2.123456789, 51.987654321, 0.001);
    const fc = finalizeFeatureCollection([{ geometry }]);
    const first = fc.features[0]!.geometry.coordinates[0]![0]!;
    expect(first).toEqual([2.1234568, 51.9886543]);
    expect(fc.bbox![0]).toBe(2.1234568);
    expect(fc.features[0]!.properties.area_sqm).toBeCloseTo(geodesicAreaSqm(fc.features[0]!.geometry), 2);
  });

  it('detector properties are kept, but cannot override the spec members; addPropertyId copies the id', () => {
    const fc = finalizeFeatureCollection(
      [{ geometry: square(2, 51, 0.01), properties: { length_m: 120, area_sqm: -1, confidence: 5, id: 99 } }],
      { addPropertyId: true },
    );
    const p = fc.features[0]!.properties;
    expect(p.length_m).toBe(120);
    expect(p.area_sqm).toBeGreaterThan(0);
    expect(p.confidence).toBeNull();
    expect(p.id).toBe(1);
    expect(fc.features[0]!.id).toBe(1);
  });

  it('drops polygons that collapse to nothing after rounding', () => {
    const fc = finalizeFeatureCollection([{ geometry: square(2, 51, 1e-9) }, { geometry: square(3, 51, 0.01) }]);
    expect(fc.features).toHaveLength(1);
    expect(fc.features[0]!.id).toBe(1);
  });
});
