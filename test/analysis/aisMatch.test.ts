/**
 * Issue 23 §4: the AIS matcher on golden fixtures — positions at the acquisition time
 * (interpolated, dead-reckoned, reported, too old), the one-to-one assignment with its gates,
 * and the annotation of a ship result (mmsi / ais_distance_m, dark, detected: false).
 */
import { describe, expect, it } from 'vitest';
import { annotateShips, assignDetections, vesselsAt } from '../../src/analysis/ais/index.ts';
import { parseAisCsv, type AisFix } from '../../src/uploads/aisCsv.ts';

/** Metres along the equator per degree of longitude (WGS84). */
const M_PER_DEG = 111319.49079327357;
const T0 = Date.parse('2024-06-01T10:00:00Z');
const fix = (mmsi: string, dtS: number, lon: number, lat: number, extra: Partial<AisFix> = {}): AisFix => ({ mmsi, t: T0 + dtS * 1000, lon, lat, sog: null, cog: null, heading: null, length: null, ...extra });
const at = (m: number, lengthM: number | null = null) => ({ lon: m / M_PER_DEG, lat: 0, length: lengthM });

describe('issue 23 §4: vessels at the acquisition time', () => {
  it('interpolates between bracketing fixes, dead-reckons from a lone fix, keeps a fix without course, drops stale fixes', () => {
    const fixes = [
      fix('100000001', -300, 0, 0, { sog: 12, cog: 90 }),
      fix('100000001', 300, 0.1, 0, { sog: 12, cog: 90, length: 150 }),
      fix('100000002', -600, 1, 0, { sog: 10, cog: 90 }),
      fix('100000003', 120, 2, 0.5),
      fix('100000004', -4000, 3, 0, { sog: 10, cog: 0 }),
    ];
    const v = vesselsAt(fixes, T0);
    expect(v.map((x) => x.mmsi)).toEqual(['100000001', '100000002', '100000003']);
    expect(v[0]).toMatchObject({ method: 'interpolated', length: 150, fixAgeS: 300, lat: 0 });
    expect(v[0]!.lon).toBeCloseTo(0.05, 9);
    // 10 kn × 600 s = 3086.67 m east along the equator.
    expect(v[1]).toMatchObject({ method: 'dead_reckoned', fixAgeS: 600 });
    expect((v[1]!.lon - 1) * M_PER_DEG).toBeCloseTo(3086.667, 2);
    expect(Math.abs(v[1]!.lat)).toBeLessThan(1e-12);
    expect(v[2]).toMatchObject({ method: 'reported', lon: 2, lat: 0.5, fixAgeS: 120 });
    // Dead reckoning runs backwards from a later fix: 10 kn north, image 600 s before it.
    const back = vesselsAt([fix('100000005', 600, 0, 0, { sog: 10, cog: 0 })], T0)[0]!;
    expect(back.lat).toBeLessThan(0);
    expect(back.lat * 110574.39).toBeCloseTo(-3086.667, 0);
  });
});

describe('issue 23 §4: one-to-one assignment', () => {
  it('is one-to-one and maximises matches within the gate where nearest-first would leave one dark', () => {
    // Nearest-first pairs D1–V0 (100 m) and leaves D0 dark; the assignment pairs D0–V0, D1–V1.
    const pairs = assignDetections([at(0), at(1000)], [at(900), at(1950)], { gateM: 1000 });
    expect(pairs.map((p) => [p.detection, p.vessel])).toEqual([
      [0, 0],
      [1, 1],
    ]);
    expect(pairs[0]!.distanceM).toBeCloseTo(900, 3);
    expect(pairs[1]!.distanceM).toBeCloseTo(950, 3);
  });

  it('gates by distance and length ratio, and prefers the right size a little further away', () => {
    expect(assignDetections([at(0)], [at(1600)], { gateM: 1500 })).toEqual([]);
    // 200 m detection: a 40 m vessel at 100 m is refused (ratio 5), a 190 m one at 800 m taken.
    const pairs = assignDetections([at(0, 200)], [at(100, 40), at(800, 190)]);
    expect(pairs.map((p) => p.vessel)).toEqual([1]);
    // Within the ratio, a 300 m vessel at 300 m loses to a 195 m one at 400 m.
    expect(assignDetections([at(0, 200)], [at(300, 300), at(400, 195)]).map((p) => p.vessel)).toEqual([1]);
    // Unknown lengths gate by distance alone.
    expect(assignDetections([at(0, null)], [at(300, 40)]).map((p) => p.vessel)).toEqual([0]);
  });
});

describe('issue 23 §4: annotating a ship result', () => {
  it('adds mmsi and ais_distance_m or dark: true, and lists unmatched vessels inside the area as detected: false', () => {
    const box = (m: number, lengthM: number) => {
      const x = m / M_PER_DEG;
      const d = 0.0002;
      return {
        type: 'Feature' as const,
        id: 1,
        geometry: { type: 'Polygon', coordinates: [[[x - d, -d], [x + d, -d], [x + d, d], [x - d, d], [x - d, -d]]] },
        properties: { length_m: lengthM, confidence: null } as Record<string, unknown>,
      };
    };
    const features = [box(0, 120), { ...box(20_000, 80), id: 2 }];
    const csv = ['mmsi,timestamp,lat,lon,sog,cog,length', `211000001,2024-06-01T09:55:00Z,0,${-1000 / M_PER_DEG},12,90,130`, '211000002,2024-06-01T10:00:00Z,0,0.1,0,,60', '211000003,2024-06-01T10:00:00Z,0,5,0,,60'].join('\n');
    const parsed = parseAisCsv(csv, 100);
    if (!parsed.ok) throw new Error(parsed.message);
    const vessels = vesselsAt(parsed.fixes, T0);
    const { features: out, summary } = annotateShips(features, vessels, { inside: (lon) => lon >= -0.1 && lon <= 0.3 });
    expect(summary).toEqual({ matched: 1, dark: 1, undetected: 1 });
    // 12 kn × 300 s = 1852 m east of −1000 m: 852 m from the detection.
    expect(out[0]!.properties).toMatchObject({ mmsi: '211000001', ais_distance_m: 852, length_m: 120 });
    expect(out[0]!.properties.dark).toBeUndefined();
    expect(out[1]!.properties).toMatchObject({ dark: true, length_m: 80 });
    expect(out[1]!.properties.mmsi).toBeUndefined();
    // The undetected vessel: a 60 m square (its reported length) around its position, as the contract's Polygon.
    expect(out[2]!.id).toBe(3);
    expect(out[2]!.properties).toEqual({ area_sqm: expect.any(Number), confidence: null, detected: false, mmsi: '211000002', length_m: 60, ais_lon: 0.1, ais_lat: 0, ais_position: 'reported', ais_fix_age_s: 0 });
    // 60 m × 60 m, less the rounding of its corners to 1e-6°.
    expect(Math.abs((out[2]!.properties.area_sqm as number) - 3600)).toBeLessThan(36);
    const ring = (out[2]!.geometry.coordinates as number[][][])[0]!;
    expect(ring[0]).toEqual([0.099731, -0.000271]);
    expect(ring[2]).toEqual([0.100269, 0.000271]);
    expect(out).toHaveLength(3); // 211000003 is outside the area
  });
});

describe('issue 23 §4: AIS CSV normalisation', () => {
  it('reads columns in any order, CRLF and a BOM; AIS "not available" values and empty fields are null', () => {
    const csv = '\uFEFFlength,heading,cog,sog,lon,lat,timestamp,mmsi\r\n0,511,360,102.3,2.5,51.3,2024-06-01T12:00:00+02:00,227000001\r\n,,,,2.6,51.4,2024-06-01T10:05:00.5Z,227000002\r\n';
    const parsed = parseAisCsv(csv, 10);
    if (!parsed.ok) throw new Error(parsed.message);
    expect(parsed.fixes).toEqual([
      { mmsi: '227000001', t: Date.parse('2024-06-01T10:00:00Z'), lat: 51.3, lon: 2.5, sog: null, cog: null, heading: null, length: null },
      { mmsi: '227000002', t: Date.parse('2024-06-01T10:05:00.500Z'), lat: 51.4, lon: 2.6, sog: null, cog: null, heading: null, length: null },
    ]);
    expect(parsed).toMatchObject({ vesselCount: 2, timeStart: '2024-06-01T10:00:00.000Z', timeEnd: '2024-06-01T10:05:00.500Z' });
    expect(parseAisCsv('mmsi,timestamp,lat,lon,lat\n', 10)).toEqual({ ok: false, message: 'line 1: column lat is named twice' });
    expect(parseAisCsv('mmsi,timestamp,lat,lon,cog\n227000001,2024-06-01T10:00:00Z,1,2,400', 10)).toEqual({ ok: false, message: 'line 2, field cog: must be from 0 to 360' });
  });
});
