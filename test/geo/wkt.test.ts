import { wktToGeoJSON } from '@terraformer/wkt';
import { describe, expect, it } from 'vitest';
import { GeometryError } from '../../src/geo/errors.ts';
import type { AoiGeometry, MultiPolygon, Position } from '../../src/geo/types.ts';
import { assertValidAoi, formatCoordinate, parseAoiWkt, toWkt } from '../../src/geo/wkt.ts';

function rejection(text: string): GeometryError {
  try {
    parseAoiWkt(text);
  } catch (err) {
    expect(err).toBeInstanceOf(GeometryError);
    return err as GeometryError;
  }
  throw new Error(`expected ${JSON.stringify(text)} to be rejected`);
}

function circle(lon: number, lat: number, radius: number, n: number, clockwise = false): Position[] {
  const ring: Position[] = [];
  for (let i = 0; i < n; i++) {
    const a = ((clockwise ? -2 : 2) * Math.PI * i) / n;
    ring.push([lon + radius * Math.cos(a), lat + radius * Math.sin(a)]);
  }
  ring.push(ring[0]!);
  return ring;
}

const SQUARE = 'POLYGON ((0 0, 4 0, 4 4, 0 4, 0 0))';

describe('parseAoiWkt: accepted input', () => {
  it('parses a POLYGON into GeoJSON coordinates (lon, lat)', () => {
    expect(parseAoiWkt('POLYGON ((10 45, 11 45, 11 46, 10 46, 10 45))')).toEqual({
      type: 'Polygon',
      coordinates: [
        [
          [10, 45],
          [11, 45],
          [11, 46],
          [10, 46],
          [10, 45],
        ],
      ],
    });
  });

  it('parses a MULTIPOLYGON with holes', () => {
    const geom = parseAoiWkt(
      'MULTIPOLYGON (((0 0, 4 0, 4 4, 0 4, 0 0), (1 1, 1 2, 2 2, 2 1, 1 1)), ((10 10, 11 10, 11 11, 10 10)))',
    );
    expect(geom.type).toBe('MultiPolygon');
    expect(geom.coordinates).toHaveLength(2);
    expect(geom.coordinates[0]).toHaveLength(2);
  });

  it('keyword case is irrelevant', () => {
    const expected = parseAoiWkt(SQUARE);
    expect(parseAoiWkt('polygon ((0 0, 4 0, 4 4, 0 4, 0 0))')).toEqual(expected);
    expect(parseAoiWkt('Polygon ((0 0, 4 0, 4 4, 0 4, 0 0))')).toEqual(expected);
    expect(parseAoiWkt('multiPolygon (((0 0, 4 0, 4 4, 0 4, 0 0)))').type).toBe('MultiPolygon');
  });

  it('whitespace is tolerated anywhere between tokens, and may be absent', () => {
    const expected = parseAoiWkt(SQUARE);
    expect(parseAoiWkt('  \n POLYGON((0 0,4 0,4 4,0 4,0 0))\t ')).toEqual(expected);
    expect(parseAoiWkt('POLYGON ( ( 0   0 ,\n 4 0 , 4\t4 , 0 4 , 0 0 ) )')).toEqual(expected);
  });

  it('Z and M ordinates are dropped (decision: an AOI is a surface region)', () => {
    const expected = parseAoiWkt('POLYGON ((0 0, 1 0, 1 1, 0 0))');
    expect(parseAoiWkt('POLYGON Z ((0 0 5, 1 0 5, 1 1 5, 0 0 5))')).toEqual(expected);
    expect(parseAoiWkt('POLYGON M ((0 0 7, 1 0 7, 1 1 7, 0 0 7))')).toEqual(expected);
    expect(parseAoiWkt('POLYGON ZM ((0 0 5 7, 1 0 5 7, 1 1 5 7, 0 0 5 7))')).toEqual(expected);
    expect(parseAoiWkt('POLYGON ((0 0 5, 1 0 5, 1 1 5, 0 0 5))')).toEqual(expected);
  });

  it('accepts an SRID=4326 prefix (EWKT as PostGIS writes it)', () => {
    expect(parseAoiWkt('SRID=4326;' + SQUARE)).toEqual(parseAoiWkt(SQUARE));
  });

  it('reads number forms people paste: signs, exponents, leading or trailing dots', () => {
    const geom = parseAoiWkt('POLYGON ((+1 .5, 2. 0.5, 2 1.5e0, -0 1E+0, +1 .5))');
    expect(geom.coordinates[0]).toEqual([
      [1, 0.5],
      [2, 0.5],
      [2, 1.5],
      [-0, 1],
      [1, 0.5],
    ]);
  });

  it('repeated consecutive points are allowed', () => {
    expect(() => parseAoiWkt('POLYGON ((0 0, 1 0, 1 0, 1 1, 1 1, 0 0, 0 0))')).not.toThrow();
  });

  it('collinear consecutive edges are allowed (adjacent segments share an endpoint)', () => {
    expect(() => parseAoiWkt('POLYGON ((0 0, 1 0, 2 0, 2 2, 0 2, 0 1, 0 0))')).not.toThrow();
  });

  it('a hole may touch its shell at a point', () => {
    expect(() => parseAoiWkt('POLYGON ((0 0, 4 0, 4 4, 0 4, 0 0), (0 0, 2 1, 1 2, 0 0))')).not.toThrow();
  });

  it('holes may touch each other at a point', () => {
    expect(() =>
      parseAoiWkt('POLYGON ((0 0, 6 0, 6 6, 0 6, 0 0), (1 1, 3 1, 3 3, 1 3, 1 1), (3 3, 5 3, 5 5, 3 5, 3 3))'),
    ).not.toThrow();
  });

  it('MULTIPOLYGON parts may touch at a point or along an edge', () => {
    expect(() => parseAoiWkt('MULTIPOLYGON (((0 0, 1 0, 1 1, 0 0)), ((1 1, 2 1, 2 2, 1 1)))')).not.toThrow();
    expect(() =>
      parseAoiWkt('MULTIPOLYGON (((0 0, 2 0, 2 2, 0 2, 0 0)), ((2 0, 3 0, 3 2, 2 2, 2 0)))'),
    ).not.toThrow();
  });

  it('an island inside a hole is a separate part, not an overlap', () => {
    expect(() =>
      parseAoiWkt('MULTIPOLYGON (((0 0, 6 0, 6 6, 0 6, 0 0), (1 1, 5 1, 5 5, 1 5, 1 1)), ((2 2, 4 2, 4 4, 2 4, 2 2)))'),
    ).not.toThrow();
  });

  it('accepts coordinates on the limits of the ranges', () => {
    expect(() => parseAoiWkt('POLYGON ((-180 -90, 180 -90, 180 90, -180 -90))')).toThrow(/180°/);
    expect(() => parseAoiWkt('POLYGON ((170 -90, 180 -90, 180 90, 170 90, 170 -90))')).not.toThrow();
  });

  it('handles a 20,000-vertex ring', () => {
    const ring = circle(10, 45, 0.5, 20_000);
    const geom = parseAoiWkt(toWkt({ type: 'Polygon', coordinates: [ring] }));
    expect(geom.coordinates[0]).toHaveLength(20_001);
  });

  it('agrees with @terraformer/wkt on valid input', () => {
    const inputs = [
      SQUARE,
      'POLYGON ((0 0, 4 0, 4 4, 0 4, 0 0), (1 1, 1 2, 2 2, 2 1, 1 1))',
      'MULTIPOLYGON (((0 0, 1 0, 1 1, 0 0)), ((5 5, 6 5, 6 6, 5 5)))',
      'POLYGON ((-73.98 40.75, -73.97 40.75, -73.97 40.76, -73.98 40.75))',
      toWkt({ type: 'Polygon', coordinates: [circle(-120.5, -33.25, 0.01, 500)] }),
    ];
    for (const text of inputs) {
      const ours = parseAoiWkt(text);
      const theirs = wktToGeoJSON(text);
      expect(ours.type).toBe(theirs.type);
      expect(ours.coordinates).toEqual(theirs.coordinates);
    }
  });
});

describe('parseAoiWkt: validation rules', () => {
  it('rule: unparseable WKT is rejected, naming the character', () => {
    expect(rejection('POLYGON ((0 0, 1 0, 1 1, 0 0)').message).toMatch(
      /^polygon is not valid WKT: expected ',' or '\)' at character 30 .*found the end of the text$/,
    );
    expect(rejection('POLYGON ((0 0, 1 0, abc 1, 0 0))').message).toMatch(/expected a longitude at character 21.*"abc"/);
    expect(rejection('POLYGON ((0 0, 1 0, 1 1, 0 0)) trailing').message).toMatch(/expected the end of the text/);
    expect(rejection('POLYGON ((0 0, 1.2.3 0, 1 1, 0 0))').message).toMatch(/"1\.2\.3"/);
    expect(rejection('POLYGON ((0 0, 1 0 2 3 4, 1 1, 0 0))').message).toMatch(/expected ',' or '\)'/);
    expect(rejection('{"type":"Polygon"}').message).toMatch(/expected POLYGON or MULTIPOLYGON at character 1/);
    expect(rejection('   ').message).toMatch(/polygon is empty/);
  });

  it('rule: geometry types other than POLYGON and MULTIPOLYGON are rejected', () => {
    expect(rejection('POINT (1 2)').message).toBe('polygon must be a POLYGON or MULTIPOLYGON, not POINT');
    expect(rejection('linestring (0 0, 1 1)').message).toBe('polygon must be a POLYGON or MULTIPOLYGON, not LINESTRING');
    expect(rejection('GEOMETRYCOLLECTION (POLYGON ((0 0, 1 0, 1 1, 0 0)))').message).toMatch(/not GEOMETRYCOLLECTION/);
    expect(rejection('MULTIPOINT ((0 0), (1 1))').message).toMatch(/not MULTIPOINT/);
  });

  it('rule: coordinates in another SRID are rejected', () => {
    expect(rejection('SRID=3857;' + SQUARE).message).toMatch(/EPSG:4326.*not SRID 3857/);
  });

  it('rule: EMPTY is rejected', () => {
    expect(rejection('POLYGON EMPTY').message).toBe('polygon is EMPTY');
    expect(rejection('MULTIPOLYGON EMPTY').message).toBe('polygon is EMPTY');
    expect(rejection('POLYGON Z EMPTY').message).toBe('polygon is EMPTY');
    expect(rejection('MULTIPOLYGON (((0 0, 1 0, 1 1, 0 0)), EMPTY)').message).toBe('polygon part 2 is EMPTY');
  });

  it('rule: rings must be closed', () => {
    expect(rejection('POLYGON ((0 0, 1 0, 1 1, 0 1))').message).toBe(
      'polygon ring 1 is not closed: it starts at (0 0) but ends at (0 1)',
    );
    expect(rejection('POLYGON ((0 0, 4 0, 4 4, 0 4, 0 0), (1 1, 2 1, 2 2))').message).toMatch(/^polygon ring 2 is not closed/);
    expect(rejection('MULTIPOLYGON (((0 0, 1 0, 1 1, 0 0)), ((5 5, 6 5, 6 6)))').message).toMatch(
      /^polygon part 2 ring 1 is not closed/,
    );
  });

  it('rule: rings need at least 4 positions', () => {
    expect(rejection('POLYGON ((0 0, 1 0, 0 0))').message).toBe(
      'polygon ring 1 has 3 positions; a ring needs at least 4 (3 corners and the closing position)',
    );
    expect(rejection('POLYGON ((0 0))').message).toMatch(/has 1 position;/);
  });

  it('rule: rings need at least 3 distinct corners (repeated points do not count)', () => {
    expect(rejection('POLYGON ((0 0, 1 0, 1 0, 0 0))').message).toBe('polygon ring 1 has fewer than 3 distinct corners');
  });

  it('rule: coordinates must be finite numbers', () => {
    expect(rejection('POLYGON ((0 0, 1 0, 1e999 1, 0 0))').message).toBe(
      'polygon ring 1 position 3 is not a pair of finite numbers',
    );
    expect(rejection('POLYGON ((0 0, 1 0, NaN 1, 0 0))').message).toMatch(/not valid WKT.*"NaN"/);
    expect(() => assertValidAoi({ type: 'Polygon', coordinates: [[[0, 0], [1, 0], [1, Infinity], [0, 0]]] })).toThrow(
      'polygon ring 1 position 3 is not a pair of finite numbers',
    );
  });

  it('rule: longitude must lie in [-180, 180]', () => {
    expect(rejection('POLYGON ((0 0, 180.5 0, 1 1, 0 0))').message).toBe(
      'polygon ring 1 position 2: longitude 180.5 is outside [-180, 180]',
    );
    expect(rejection('POLYGON ((-181 0, 1 0, 1 1, -181 0))').message).toMatch(/longitude -181 is outside/);
  });

  it('rule: latitude must lie in [-90, 90]', () => {
    expect(rejection('POLYGON ((0 0, 1 0, 1 90.000001, 0 0))').message).toBe(
      'polygon ring 1 position 3: latitude 90.000001 is outside [-90, 90]',
    );
    // A swapped lat/lon pair is the usual cause.
    expect(rejection('POLYGON ((45 120, 46 120, 46 121, 45 120))').message).toMatch(/latitude 120 is outside/);
  });

  it('rule: an edge may not jump more than 180° of longitude (antimeridian crossings must be split)', () => {
    expect(rejection('POLYGON ((179 0, -179 0, -179 1, 179 1, 179 0))').message).toMatch(
      /^polygon ring 1 jumps more than 180° of longitude between positions 1 and 2; split .* MULTIPOLYGON/,
    );
    expect(() =>
      parseAoiWkt('MULTIPOLYGON (((179 0, 180 0, 180 1, 179 1, 179 0)), ((-180 0, -179 0, -179 1, -180 1, -180 0)))'),
    ).not.toThrow();
  });

  it('rule: a ring may not cross itself', () => {
    expect(rejection('POLYGON ((0 0, 2 0, 0 2, 2 2, 0 0))').message).toBe(
      'polygon ring 1 intersects itself: the edge from position 2 to 3 crosses the edge from position 4 to 5',
    );
  });

  it('rule: a ring may not touch itself (pinched vertex or vertex on an edge)', () => {
    expect(rejection('POLYGON ((0 0, 2 0, 1 1, 2 2, 0 2, 1 1, 0 0))').message).toMatch(
      /^polygon ring 1 intersects itself: .* touches /,
    );
    expect(rejection('POLYGON ((0 0, 4 0, 4 4, 2 0, 0 4, 0 0))').message).toMatch(/intersects itself/);
  });

  it('rule: a ring may not run back along itself (spike)', () => {
    expect(rejection('POLYGON ((0 0, 1 0, 2 0, 0 0))').message).toBe(
      'polygon ring 1 intersects itself: the edge from position 1 to 2 runs back along the edge from position 3 to 4',
    );
    // An outward spike (4 2) → (6 2) → (5 2): its tip also lands on the edge it came along.
    expect(rejection('POLYGON ((0 0, 4 0, 4 2, 6 2, 5 2, 4 4, 0 4, 0 0))').message).toMatch(
      /^polygon ring 1 intersects itself: the edge from position 3 to 4 (runs back along the edge from position 4 to 5|touches the edge from position 5 to 6)$/,
    );
  });

  it('rule: self-intersection positions refer to the input, also after repeated points', () => {
    expect(rejection('POLYGON ((0 0, 0 0, 2 0, 0 2, 2 2, 0 0))').message).toBe(
      'polygon ring 1 intersects itself: the edge from position 3 to 4 crosses the edge from position 5 to 6',
    );
  });

  it('rule: a self-intersecting ring in a MULTIPOLYGON part names the part', () => {
    expect(rejection('MULTIPOLYGON (((10 10, 11 10, 11 11, 10 10)), ((0 0, 2 0, 0 2, 2 2, 0 0)))').message).toMatch(
      /^polygon part 2 ring 1 intersects itself/,
    );
  });

  it('rule: a hole must lie inside its shell', () => {
    expect(rejection('POLYGON ((0 0, 4 0, 4 4, 0 4, 0 0), (5 5, 6 5, 6 6, 5 5))').message).toBe(
      'polygon ring 2 (a hole) lies outside its shell (ring 1)',
    );
    // A "hole" around the shell is outside too.
    expect(rejection('POLYGON ((1 1, 2 1, 2 2, 1 1), (0 0, 4 0, 4 4, 0 4, 0 0))').message).toMatch(
      /ring 2 \(a hole\) lies outside its shell/,
    );
  });

  it('rule: a hole may not cross its shell', () => {
    expect(rejection('POLYGON ((0 0, 4 0, 4 4, 0 4, 0 0), (3 1, 5 1, 5 2, 3 1))').message).toMatch(
      /^polygon ring 2 \(a hole\) crosses its shell \(ring 1\)/,
    );
  });

  it('rule: a hole may not share an edge with its shell', () => {
    expect(rejection('POLYGON ((0 0, 4 0, 4 4, 0 4, 0 0), (0 0, 2 0, 1 1, 0 0))').message).toMatch(
      /ring 2 \(a hole\) shares an edge with its shell/,
    );
  });

  it('rule: a hole may not leave its shell through shell vertices', () => {
    // The shell has a notch [4,6]×[6,10]; the hole's first edge runs through the notch's
    // corners (4 6) and (6 10) without crossing any shell edge.
    const text =
      'POLYGON ((0 0, 10 0, 10 10, 6 10, 6 6, 4 6, 4 10, 0 10, 0 0), (3 4, 6 10, 8 4, 3 4))';
    expect(rejection(text).message).toBe('polygon ring 2 (a hole) is not inside its shell (ring 1)');
  });

  it('rule: holes may not overlap each other', () => {
    expect(
      rejection('POLYGON ((0 0, 6 0, 6 6, 0 6, 0 0), (1 1, 3 1, 3 3, 1 3, 1 1), (2 2, 4 2, 4 4, 2 4, 2 2))').message,
    ).toMatch(/^polygon ring 3 and ring 2 \(both holes\) intersect/);
    expect(
      rejection('POLYGON ((0 0, 6 0, 6 6, 0 6, 0 0), (1 1, 5 1, 5 5, 1 5, 1 1), (2 2, 3 2, 3 3, 2 2))').message,
    ).toBe('polygon ring 2 and ring 3 (both holes) overlap');
  });

  it('rule: MULTIPOLYGON parts may not overlap', () => {
    expect(
      rejection('MULTIPOLYGON (((0 0, 2 0, 2 2, 0 2, 0 0)), ((1 1, 3 1, 3 3, 1 3, 1 1)))').message,
    ).toBe("polygon parts 1 and 2 overlap; a MULTIPOLYGON's parts must not share area");
    // Containment is overlap too.
    expect(
      rejection('MULTIPOLYGON (((9 9, 9.5 9, 9.5 9.5, 9 9)), ((0 0, 4 0, 4 4, 0 4, 0 0)), ((1 1, 2 1, 2 2, 1 1)))')
        .message,
    ).toMatch(/^polygon parts 2 and 3 overlap/);
  });
});

describe('toWkt', () => {
  it('writes canonical POLYGON text', () => {
    const geom: AoiGeometry = {
      type: 'Polygon',
      coordinates: [
        [
          [10.1234567, -45.5],
          [11, -45.5],
          [11, -44],
          [10.1234567, -45.5],
        ],
      ],
    };
    expect(toWkt(geom)).toBe('POLYGON ((10.123457 -45.5, 11 -45.5, 11 -44, 10.123457 -45.5))');
    expect(toWkt(geom, 2)).toBe('POLYGON ((10.12 -45.5, 11 -45.5, 11 -44, 10.12 -45.5))');
  });

  it('writes canonical MULTIPOLYGON text with holes', () => {
    const text = 'MULTIPOLYGON (((0 0, 4 0, 4 4, 0 4, 0 0), (1 1, 1 2, 2 2, 2 1, 1 1)), ((5 5, 6 5, 6 6, 5 5)))';
    expect(toWkt(parseAoiWkt(text))).toBe(text);
  });

  it('never writes exponents or negative zero', () => {
    expect(formatCoordinate(1e-7, 6)).toBe('0');
    expect(formatCoordinate(-1e-7, 6)).toBe('0');
    expect(formatCoordinate(-0, 6)).toBe('0');
    expect(formatCoordinate(0.000001, 6)).toBe('0.000001');
    expect(formatCoordinate(-179.9999999, 6)).toBe('-180');
    expect(formatCoordinate(12.5, 0)).toBe('13');
  });

  it('round-trips through parseAoiWkt and @terraformer/wkt', () => {
    const geom: MultiPolygon = {
      type: 'MultiPolygon',
      coordinates: [[circle(10, 45, 0.5, 300), circle(10, 45, 0.1, 50, true)], [circle(12, 45, 0.5, 300)]],
    };
    const text = toWkt(geom);
    const parsed = parseAoiWkt(text);
    expect(toWkt(parsed)).toBe(text);
    expect(wktToGeoJSON(text).coordinates).toEqual(parsed.coordinates);
    expect(parsed.type).toBe('MultiPolygon');
    (parsed as MultiPolygon).coordinates.forEach((rings, p) =>
      rings.forEach((ring, r) =>
        ring.forEach(([lon, lat], i) => {
          expect(lon).toBeCloseTo(geom.coordinates[p]![r]![i]![0], 6);
          expect(lat).toBeCloseTo(geom.coordinates[p]![r]![i]![1], 6);
        }),
      ),
    );
  });

  it('rejects a nonsensical number of decimals', () => {
    expect(() => toWkt(parseAoiWkt(SQUARE), -1)).toThrow(RangeError);
    expect(() => toWkt(parseAoiWkt(SQUARE), 2.5)).toThrow(RangeError);
  });
});
