import { describe, expect, it } from 'vitest';
import { imageryProductFor } from '../../src/endpoints/index.ts';
import {
  countPasses,
  estimateCoverage,
  floorRatio,
  lowCoverageWarning,
  periodCoverageWarning,
  samePathFrame,
  sceneSelectionMonths,
  selectChangePair,
  selectNearestScene,
  selectSeries,
  sceneQueryForNearest,
  sceneQueryForPeriod,
  splitPeriod,
  utcDayNumber,
  type NoSceneFound,
} from '../../src/catalog/selection.ts';
import { dedupePasses } from '../../src/catalog/query.ts';
import { geodesicAreaSqkm, intersectAoi, parseAoiWkt } from '../../src/geo/index.ts';
import type { SceneRecord } from '../../src/catalog/types.ts';
import { box, scene } from './fixtures.ts';

/** A small polygon well inside the default scene footprint (10..11 E, 50..51 N). */
const AOI = box(10.2, 50.2, 10.4, 50.4);

function ids(list: SceneRecord[]): string[] {
  return list.map((s) => s.sceneId);
}

function expectNoScene(r: { ok: boolean }): NoSceneFound {
  expect(r.ok).toBe(false);
  const f = r as NoSceneFound;
  expect(f.code).toBe('NO_SCENE_FOUND');
  expect(f.message.length).toBeGreaterThan(20);
  return f;
}

// ---------------------------------------------------------------------------------------

describe('selectNearestScene (ship/oilslick: the GRD scene closest to date within ±14 days)', () => {
  const before3 = scene({ id: 'before-3', t: '2024-05-07T05:00:00Z' });
  const after3 = scene({ id: 'after-3', t: '2024-05-13T17:00:00Z' });
  const after5 = scene({ id: 'after-5', t: '2024-05-15' });
  const before6 = scene({ id: 'before-6', t: '2024-05-04' });
  const sameDayLate = scene({ id: 'same-day', t: '2024-05-10T23:59:00Z' });

  it.each([
    ['nearest', 'before-3', 'equal distance before and after: the one before date wins', [before6, before3, after3, after5]],
    ['before', 'before-3', 'closest day on or before date', [before6, before3, after3, after5]],
    ['after', 'after-3', 'closest day on or after date', [before6, before3, after3, after5]],
    ['after', 'after-5', 'after ignores closer scenes before', [before6, before3, after5]],
    ['before', 'before-6', 'before ignores closer scenes after', [after3, after5, before6]],
    ['before', 'same-day', 'the day of date itself counts as before', [before3, sameDayLate]],
    ['after', 'same-day', 'the day of date itself counts as after', [after3, sameDayLate]],
    ['nearest', 'same-day', 'a scene on the day of date is closest', [before3, sameDayLate, after3]],
  ] as const)('date_direction %s picks %s: %s', (direction, expected, _why, scenes) => {
    const r = selectNearestScene(scenes, { aoi: AOI, date: '2024-05-10', direction });
    expect(r.ok).toBe(true);
    if (r.ok) expect(r.scene.sceneId).toBe(expected);
  });

  it.each([
    ['2024-04-26T00:00:00Z', true, 'D−14 at 00:00 is inside'],
    ['2024-04-25T23:59:59Z', false, 'D−15 at 23:59 is outside'],
    ['2024-05-24T23:59:59Z', true, 'D+14 at 23:59 is inside'],
    ['2024-05-25T00:00:00Z', false, 'D+15 at 00:00 is outside'],
  ])('±14-day window edge: scene at %s selected = %s (%s)', (t, inside) => {
    const r = selectNearestScene([scene({ id: 'edge', t })], { aoi: AOI, date: '2024-05-10' });
    expect(r.ok).toBe(inside);
    if (!inside) expect(expectNoScene(r).message).toContain('within 14 days of 2024-05-10');
  });

  it('the window is configurable', () => {
    const s = scene({ id: 'far', t: '2024-05-30' });
    expect(selectNearestScene([s], { aoi: AOI, date: '2024-05-10', windowDays: 14 }).ok).toBe(false);
    expect(selectNearestScene([s], { aoi: AOI, date: '2024-05-10', windowDays: 20 }).ok).toBe(true);
  });

  it('orbit_direction filters scenes, even closer ones', () => {
    const asc = scene({ id: 'asc', t: '2024-05-10', dir: 'ascending' });
    const desc = scene({ id: 'desc', t: '2024-05-12', dir: 'descending' });
    const r = selectNearestScene([asc, desc], { aoi: AOI, date: '2024-05-10', orbitDirection: 'descending' });
    expect(r.ok && r.scene.sceneId).toBe('desc');
    const none = selectNearestScene([asc], { aoi: AOI, date: '2024-05-10', orbitDirection: 'descending' });
    expect(expectNoScene(none).message).toContain('descending');
  });

  it('scenes that do not intersect the polygon are ignored, even the closest; touching is not intersecting', () => {
    const elsewhere = scene({ id: 'elsewhere', t: '2024-05-10', footprint: box(20, 50, 21, 51) });
    const touching = scene({ id: 'touching', t: '2024-05-10', footprint: box(10.4, 50, 11, 51) });
    const far = scene({ id: 'far-in-time', t: '2024-05-20' });
    const r = selectNearestScene([elsewhere, touching, far], { aoi: AOI, date: '2024-05-10' });
    expect(r.ok && r.scene.sceneId).toBe('far-in-time');
    expectNoScene(selectNearestScene([elsewhere, touching], { aoi: AOI, date: '2024-05-10' }));
  });

  it('only GRD by default: RTC and SLC records are not candidates', () => {
    const rtc = scene({ id: 'rtc', t: '2024-05-10', type: 'RTC' });
    const slc = scene({ id: 'slc', t: '2024-05-10', type: 'SLC' });
    const grd = scene({ id: 'grd', t: '2024-05-13' });
    const r = selectNearestScene([rtc, slc, grd], { aoi: AOI, date: '2024-05-10' });
    expect(r.ok && r.scene.sceneId).toBe('grd');
  });

  it('ties on the day: the higher (floored) coverage of the polygon wins, then the earlier acquisition, then the scene id', () => {
    const half = scene({ id: 'half', t: '2024-05-10T05:00:00Z', footprint: box(10.3, 50, 11, 51) });
    const full = scene({ id: 'full', t: '2024-05-10T17:00:00Z' });
    expect(selectNearestScene([half, full], { aoi: AOI, date: '2024-05-10' })).toMatchObject({ ok: true, scene: { sceneId: 'full' } });
    const early = scene({ id: 'b-early', t: '2024-05-10T05:00:00Z' });
    const late = scene({ id: 'a-late', t: '2024-05-10T17:00:00Z' });
    expect(selectNearestScene([late, early], { aoi: AOI, date: '2024-05-10' })).toMatchObject({ scene: { sceneId: 'b-early' } });
    const twinA = scene({ id: 'twin-a', t: '2024-05-10T05:00:00Z' });
    const twinB = scene({ id: 'twin-b', t: '2024-05-10T05:00:00Z' });
    expect(selectNearestScene([twinB, twinA], { aoi: AOI, date: '2024-05-10' })).toMatchObject({ scene: { sceneId: 'twin-a' } });
  });

  it('fewer days beats better coverage', () => {
    const close = scene({ id: 'close-half', t: '2024-05-11', footprint: box(10.3, 50, 11, 51) });
    const farFull = scene({ id: 'far-full', t: '2024-05-12' });
    expect(selectNearestScene([farFull, close], { aoi: AOI, date: '2024-05-10' })).toMatchObject({ scene: { sceneId: 'close-half' } });
  });

  it('is clipped to the polygon: analysis extent = polygon ∩ footprint, estimated coverage, months, LOW_AOI_COVERAGE', () => {
    const half = scene({ id: 'half', t: '2024-05-09', footprint: box(10.3, 50, 11, 51) });
    const r = selectNearestScene([half], { aoi: AOI, date: '2024-05-10' });
    if (!r.ok) throw new Error(r.message);
    expect(r.dayOffset).toBe(-1);
    expect(r.analysisExtent).toEqual(intersectAoi(AOI, half.footprint));
    expect(r.coverage.method).toBe('estimated');
    expect(r.coverage.ratio).toBeGreaterThanOrEqual(0.49);
    expect(r.coverage.ratio).toBeLessThanOrEqual(0.5);
    expect(r.coverage.requested_area_sqkm).toBeCloseTo(geodesicAreaSqkm(AOI), 5);
    expect(parseAoiWkt(r.coverage.polygon!)).toBeTruthy();
    expect(r.scene_selection).toEqual({ first_month: '2024-05', last_month: '2024-05' });
    expect(r.warnings.map((w) => w.code)).toEqual(['LOW_AOI_COVERAGE']);
    const full = selectNearestScene([scene({ t: '2024-05-09' })], { aoi: AOI, date: '2024-05-10' });
    expect(full.ok && full.warnings).toEqual([]);
    expect(full.ok && full.coverage.ratio).toBe(1);
  });
});

// ---------------------------------------------------------------------------------------

describe('same path/frame', () => {
  const north = box(10, 50, 11, 51);
  it.each([
    ['same relative orbit, direction, overlapping frames', true, { rel: 15 }, { rel: 15 }],
    ['different relative orbit', false, { rel: 15 }, { rel: 16 }],
    ['different orbit direction', false, { rel: 15, dir: 'ascending' }, { rel: 15, dir: 'descending' }],
    ['same track, frames far apart along track', false, { rel: 15 }, { rel: 15, footprint: box(10, 55, 11, 56) }],
    ['same track, frames that only touch', false, { rel: 15 }, { rel: 15, footprint: box(10, 51, 11, 52) }],
    ['same track, frames overlapping a little', true, { rel: 15 }, { rel: 15, footprint: box(10, 50.9, 11, 52) }],
    ['S1A and S1C on one track (one platform group)', true, { rel: 15, platform: 'S1A' }, { rel: 15, platform: 'S1C' }],
    ['frames across the ascending node (wrap-around)', true, { rel: 15, footprint: box(10, -1, 11, 0.5) }, { rel: 15, footprint: box(10, 0, 11, 2) }],
  ] as const)('%s → %s', (_name, expected, a, b) => {
    const sa = scene({ t: '2024-01-01', footprint: north, ...a });
    const sb = scene({ t: '2024-01-13', footprint: north, ...b });
    expect(samePathFrame(sa, sb)).toBe(expected);
    expect(samePathFrame(sb, sa)).toBe(expected);
  });
});

// ---------------------------------------------------------------------------------------

describe('selectChangePair (newbuilding/disappearbuilding: one earlier and one later scene of one path/frame)', () => {
  it('splits [date_start, date_end] into halves; the middle day of an odd count belongs to the later period', () => {
    const even = splitPeriod('2024-01-01', '2024-01-10');
    expect(even.earlier.map((d) => new Date(d * 864e5).toISOString().slice(0, 10))).toEqual(['2024-01-01', '2024-01-05']);
    expect(even.later.map((d) => new Date(d * 864e5).toISOString().slice(0, 10))).toEqual(['2024-01-06', '2024-01-10']);
    const odd = splitPeriod('2024-01-01', '2024-01-03');
    expect(odd.earlier[1] - odd.earlier[0]).toBe(0);
    expect(odd.later[0]).toBe(utcDayNumber('2024-01-02'));
  });

  it('takes one scene from each period of the same path/frame; other tracks are never mixed in', () => {
    const scenes = [
      scene({ id: 'e15', t: '2024-01-05', rel: 15 }),
      scene({ id: 'e88', t: '2024-01-02', rel: 88 }),
      scene({ id: 'l88', t: '2024-06-28', rel: 88, dir: 'descending' }),
      scene({ id: 'l15', t: '2024-06-20', rel: 15 }),
    ];
    const r = selectChangePair(scenes, { aoi: AOI, dateStart: '2024-01-01', dateEnd: '2024-06-30' });
    if (!r.ok) throw new Error(r.message);
    expect([r.earlier.sceneId, r.later.sceneId]).toEqual(['e15', 'l15']);
    expect(r.scene_selection).toEqual({ first_month: '2024-01', last_month: '2024-06' });
  });

  it('chooses the pair with the best coverage of the polygon by both images', () => {
    const scenes = [
      scene({ id: 'e-half', t: '2024-01-02', rel: 15, footprint: box(10.3, 50, 11, 51) }),
      scene({ id: 'l-full-15', t: '2024-06-29', rel: 15 }),
      scene({ id: 'e-full', t: '2024-01-09', rel: 44 }),
      scene({ id: 'l-full-44', t: '2024-06-21', rel: 44 }),
    ];
    const r = selectChangePair(scenes, { aoi: AOI, dateStart: '2024-01-01', dateEnd: '2024-06-30' });
    expect(r).toMatchObject({ ok: true, earlier: { sceneId: 'e-full' }, later: { sceneId: 'l-full-44' }, coverage: { ratio: 1 } });
  });

  it('coverage is where both images exist: the intersection, with LOW_AOI_COVERAGE below 0.95', () => {
    const e = scene({ id: 'e', t: '2024-01-02', footprint: box(10, 50, 10.35, 51) });
    const l = scene({ id: 'l', t: '2024-06-29', footprint: box(10.25, 50, 11, 51) });
    const r = selectChangePair([e, l], { aoi: AOI, dateStart: '2024-01-01', dateEnd: '2024-06-30' });
    if (!r.ok) throw new Error(r.message);
    expect(r.coverage.ratio).toBeGreaterThanOrEqual(0.49);
    expect(r.coverage.ratio).toBeLessThanOrEqual(0.5);
    expect(r.warnings.map((w) => w.code)).toEqual(['LOW_AOI_COVERAGE']);
  });

  it('ties on coverage: the widest separation (earliest earlier scene, latest later scene)', () => {
    const scenes = ['2024-01-03', '2024-01-15', '2024-03-01', '2024-04-10', '2024-06-18', '2024-06-30'].map((t) => scene({ id: t, t }));
    const r = selectChangePair(scenes, { aoi: AOI, dateStart: '2024-01-01', dateEnd: '2024-06-30' });
    expect(r).toMatchObject({ earlier: { sceneId: '2024-01-03' }, later: { sceneId: '2024-06-30' }, warnings: [] });
  });

  it('orbit_direction filters both scenes', () => {
    const scenes = [
      scene({ id: 'e-asc', t: '2024-01-02', dir: 'ascending' }),
      scene({ id: 'l-asc', t: '2024-06-29', dir: 'ascending' }),
      scene({ id: 'e-desc', t: '2024-01-10', dir: 'descending', rel: 66 }),
      scene({ id: 'l-desc', t: '2024-06-10', dir: 'descending', rel: 66 }),
    ];
    const r = selectChangePair(scenes, { aoi: AOI, dateStart: '2024-01-01', dateEnd: '2024-06-30', orbitDirection: 'descending' });
    expect(r).toMatchObject({ earlier: { sceneId: 'e-desc' }, later: { sceneId: 'l-desc' } });
  });

  it('analyze family uses RTC: productTypes restricts the candidates', () => {
    const scenes = [
      scene({ id: 'e-grd', t: '2024-01-02' }),
      scene({ id: 'l-grd', t: '2024-06-29' }),
      scene({ id: 'e-rtc', t: '2024-01-10', type: 'RTC' }),
      scene({ id: 'l-rtc', t: '2024-06-10', type: 'RTC' }),
    ];
    const productTypes = [imageryProductFor('analyze', 'newbuilding')];
    expect(selectChangePair(scenes, { aoi: AOI, dateStart: '2024-01-01', dateEnd: '2024-06-30', productTypes })).toMatchObject({
      earlier: { sceneId: 'e-rtc' },
      later: { sceneId: 'l-rtc' },
    });
  });

  it.each([
    ['no scene in the earlier period', [scene({ t: '2024-06-29' })], 'earlier period 2024-01-01 to 2024-03-31'],
    ['no scene in the later period', [scene({ t: '2024-01-02' })], 'later period 2024-04-01 to 2024-06-30'],
    ['no earlier/later pair on one path/frame', [scene({ t: '2024-01-02', rel: 1 }), scene({ t: '2024-06-29', rel: 2 })], 'share a path/frame'],
    ['a one-day period', [scene({ t: '2024-01-01' })], 'too short'],
  ] as const)('NO_SCENE_FOUND: %s', (_name, scenes, text) => {
    const end = text === 'too short' ? '2024-01-01' : '2024-06-30';
    expect(expectNoScene(selectChangePair(scenes, { aoi: AOI, dateStart: '2024-01-01', dateEnd: end })).message).toContain(text);
  });

  it('PERIOD_PARTIALLY_COVERED when the pair leaves more than 12 days uncovered at either end', () => {
    const scenes = [scene({ id: 'e', t: '2024-02-20' }), scene({ id: 'l', t: '2024-06-29' })];
    const r = selectChangePair(scenes, { aoi: AOI, dateStart: '2024-01-01', dateEnd: '2024-06-30' });
    expect(r.ok && r.warnings.map((w) => w.code)).toEqual(['PERIOD_PARTIALLY_COVERED']);
  });
});

// ---------------------------------------------------------------------------------------

describe('selectSeries (timeseries: all scenes of one path/frame in the range)', () => {
  function series(rel: number, dates: string[], extra: Partial<Parameters<typeof scene>[0]> = {}): SceneRecord[] {
    return dates.map((t) => scene({ id: `${rel}-${t}`, t, rel, ...extra }));
  }
  const monthly = ['2024-01-05', '2024-02-05', '2024-03-05', '2024-04-05', '2024-05-05', '2024-06-05'];

  it('returns every scene of the chosen path/frame in the range, oldest first, and nothing of other tracks', () => {
    const scenes = [...series(15, monthly), ...series(88, monthly.slice(0, 2), { dir: 'descending' }), scene({ t: '2024-07-05', rel: 15 })];
    const r = selectSeries(scenes, { aoi: AOI, dateStart: '2024-01-01', dateEnd: '2024-06-30' });
    if (!r.ok) throw new Error(r.message);
    expect(ids(r.scenes)).toEqual(monthly.map((t) => `15-${t}`));
    expect(r.pathFrame).toEqual({ platformGroup: 'S1', relativeOrbit: 15, orbitDirection: 'ascending' });
    expect(r.passCount).toBe(6);
    expect(r.scene_selection).toEqual({ first_month: '2024-01', last_month: '2024-06' });
  });

  it('best path/frame: coverage first (floored), then the number of passes', () => {
    const partialMany = series(44, [...monthly, '2024-01-20', '2024-02-20', '2024-03-20'], { footprint: box(10.3, 50, 11, 51) });
    const fullFew = series(15, monthly.slice(0, 3));
    const fullMore = series(73, monthly.slice(0, 5));
    expect(selectSeries([...partialMany, ...fullFew], { aoi: AOI, dateStart: '2024-01-01', dateEnd: '2024-06-30' })).toMatchObject({
      pathFrame: { relativeOrbit: 15 },
    });
    expect(selectSeries([...partialMany, ...fullFew, ...fullMore], { aoi: AOI, dateStart: '2024-01-01', dateEnd: '2024-06-30' })).toMatchObject(
      { pathFrame: { relativeOrbit: 73 }, passCount: 5 },
    );
  });

  it('two slices of one pass count as one pass', () => {
    const a = scene({ id: 'slice-1', t: '2024-01-05T17:07:25Z', abs: 1000, footprint: box(10, 50, 10.3, 51) });
    const b = scene({ id: 'slice-2', t: '2024-01-05T17:07:50Z', abs: 1000, footprint: box(10.29, 50, 11, 51) });
    expect(countPasses([a, b])).toBe(1);
    const r = selectSeries([a, b], { aoi: AOI, dateStart: '2024-01-01', dateEnd: '2024-01-10' });
    expect(r).toMatchObject({ ok: true, passCount: 1, coverage: { ratio: 1 } });
  });

  it('one track, two frames that do not overlap along track: separate path/frames, the better-covering one wins', () => {
    const bigAoi = box(10.2, 50.5, 10.4, 52.5);
    const southern = series(15, monthly, { footprint: box(10, 50, 11, 51) }); // covers 1/4 of bigAoi
    const northern = series(15, monthly.slice(0, 2), { footprint: box(10, 51.2, 11, 53) }); // covers 3/4
    const r = selectSeries([...southern, ...northern], { aoi: bigAoi, dateStart: '2024-01-01', dateEnd: '2024-06-30' });
    if (!r.ok) throw new Error(r.message);
    expect(r.scenes).toHaveLength(2);
    expect(r.warnings.map((w) => w.code)).toEqual(['LOW_AOI_COVERAGE', 'PERIOD_PARTIALLY_COVERED']);
  });

  it('date_end is inclusive and orbit_direction filters', () => {
    const scenes = [scene({ id: 'last-day', t: '2024-06-30T23:59:00Z' }), scene({ id: 'desc', t: '2024-06-01', dir: 'descending' })];
    expect(selectSeries(scenes, { aoi: AOI, dateStart: '2024-06-01', dateEnd: '2024-06-30', orbitDirection: 'ascending' })).toMatchObject({
      scenes: [{ sceneId: 'last-day' }],
    });
  });

  it('NO_SCENE_FOUND when nothing of the right type intersects the polygon in the range', () => {
    const f = expectNoScene(
      selectSeries([scene({ t: '2024-01-05' })], { aoi: AOI, dateStart: '2024-02-01', dateEnd: '2024-03-01', productTypes: ['RTC'] }),
    );
    expect(f.message).toContain('RTC');
    expect(f.message).toContain('2024-02-01');
  });
});

// ---------------------------------------------------------------------------------------

describe('coverage, months and warnings', () => {
  it.each([
    [0.299, 0.29],
    [0.29, 0.29], // 0.29 * 100 = 28.999999999999996 in binary
    [0.57, 0.57],
    [0.949999, 0.94],
    [0.95, 0.95],
    [0.999, 0.99],
    [1, 1],
    [1.0000001, 1],
    [0, 0],
    [-0.1, 0],
    [Number.NaN, 0],
  ])('ratio %f is rounded down to %f', (x, y) => {
    expect(floorRatio(x)).toBe(y);
  });

  it('estimateCoverage: ratio = floor2(area(polygon ∩ footprints) / area(polygon)), union or intersection', () => {
    const aoi = box(0, 10, 1, 11);
    const fp = box(0, 9, 0.3, 12);
    const raw = geodesicAreaSqkm(intersectAoi(aoi, fp)!) / geodesicAreaSqkm(aoi);
    const c = estimateCoverage(aoi, [fp]);
    expect(c.method).toBe('estimated');
    expect(c.ratio).toBe(Math.floor(raw * 100) / 100);
    expect(c.requested_area_sqkm).toBeCloseTo(geodesicAreaSqkm(aoi), 5);
    expect(estimateCoverage(aoi, [fp, box(0.25, 9, 1, 12)]).ratio).toBe(1);
    expect(estimateCoverage(aoi, [fp, box(0.25, 9, 1, 12)], 'intersection').ratio).toBeLessThanOrEqual(0.05);
    expect(estimateCoverage(aoi, [box(5, 5, 6, 6)])).toMatchObject({ ratio: 0, polygon: null });
    expect(estimateCoverage(aoi, [])).toMatchObject({ ratio: 0, polygon: null });
  });

  it.each([
    [0.94, 0.95, true],
    [0.95, 0.95, false],
    [1, 0.95, false],
    [0.6, 0.5, false],
    [0.49, 0.5, true],
  ])('LOW_AOI_COVERAGE for ratio %f at threshold %f: %s', (ratio, threshold, warns) => {
    const w = lowCoverageWarning(ratio, threshold);
    expect(w?.code ?? null).toBe(warns ? 'LOW_AOI_COVERAGE' : null);
    if (w) expect(w.message).toContain(`${Math.round(ratio * 100)}%`);
  });

  it.each([
    ['2024-01-13', '2024-06-18', false, 'first 12 days after start, last 12 days before end'],
    ['2024-01-14', '2024-06-30', true, 'first 13 days after start'],
    ['2024-01-01', '2024-06-17', true, 'last 13 days before end'],
    ['2024-01-01T23:59:00Z', '2024-06-30T00:00:00Z', false, 'calendar days, not hours'],
  ])('PERIOD_PARTIALLY_COVERED with scenes on %s … %s: %s (%s)', (first, last, warns) => {
    const w = periodCoverageWarning([scene({ t: first }), scene({ t: last })], '2024-01-01', '2024-06-30');
    expect(w?.code ?? null).toBe(warns ? 'PERIOD_PARTIALLY_COVERED' : null);
  });

  it('warning messages give months, never acquisition days', () => {
    const w = periodCoverageWarning([scene({ t: '2024-02-17' }), scene({ t: '2024-03-09' })], '2024-01-01', '2024-06-30')!;
    expect(w.message).toContain('2024-02');
    expect(w.message).toContain('2024-03');
    expect(w.message).not.toContain('2024-02-17');
    expect(w.message).not.toContain('2024-03-09');
  });

  it('scene_selection months are YYYY-MM of the earliest and latest scene (UTC), null when none', () => {
    expect(sceneSelectionMonths([scene({ t: '2024-03-31T23:30:00Z' }), scene({ t: '2023-12-01T00:10:00Z' })])).toEqual({
      first_month: '2023-12',
      last_month: '2024-03',
    });
    expect(sceneSelectionMonths([])).toEqual({ first_month: null, last_month: null });
  });

  it.each([
    ['analyze', 'newbuilding', 'RTC'],
    ['analyze', 'disappearbuilding', 'RTC'],
    ['analyze', 'timeseries', 'RTC'],
    ['analyze', 'ship', 'GRD'],
    ['analyze', 'oilslick', 'GRD'],
    ['detect', 'newbuilding', 'GRD'],
    ['detect', 'timeseries', 'GRD'],
    ['detect', 'ship', 'GRD'],
  ] as const)('imagery for %s/%s is %s', (family, endpoint, product) => {
    expect(imageryProductFor(family, endpoint)).toBe(product);
  });
});

describe('NRT/Fast duplicates of one pass', () => {
  it.each([
    [['NRT', 'Fast'], 'Fast'],
    [['Fast', 'Standard'], 'Standard'],
    [['NRT', 'Standard', 'Fast'], 'Standard'],
  ] as const)('%j → keeps %s', (versions, kept) => {
    const list = versions.map((v, i) => scene({ id: `v-${v}`, t: `2024-01-05T17:07:2${i}Z`, abs: 5000, timeliness: v }));
    expect(ids(dedupePasses(list))).toEqual([`v-${kept}`]);
  });

  it('different orbits, platforms or consecutive slices are not duplicates', () => {
    const a = scene({ id: 'a', t: '2024-01-05T17:07:25Z', abs: 5000, timeliness: 'NRT' });
    const otherOrbit = scene({ id: 'b', t: '2024-01-05T17:07:25Z', abs: 5001 });
    const otherPlatform = scene({ id: 'c', t: '2024-01-05T17:07:25Z', abs: 5000, platform: 'S1C' });
    const nextSlice = scene({ id: 'd', t: '2024-01-05T17:07:50Z', abs: 5000 });
    expect(ids(dedupePasses([a, otherOrbit, otherPlatform, nextSlice])).sort()).toEqual(['a', 'b', 'c', 'd']);
  });
});

describe('catalog queries match the selection windows', () => {
  it.each([
    ['nearest', '2024-04-26T00:00:00.000Z', '2024-05-24T23:59:59.999Z'],
    ['before', '2024-04-26T00:00:00.000Z', '2024-05-10T23:59:59.999Z'],
    ['after', '2024-05-10T00:00:00.000Z', '2024-05-24T23:59:59.999Z'],
  ] as const)('ship/oilslick %s: %s … %s', (direction, start, end) => {
    const q = sceneQueryForNearest({ aoi: AOI, date: '2024-05-10', direction, orbitDirection: 'ascending' });
    expect(q).toEqual({ intersects: AOI, start: new Date(start), end: new Date(end), productTypes: ['GRD'], orbitDirection: 'ascending' });
  });

  it('period endpoints: whole calendar days of date_start … date_end', () => {
    expect(sceneQueryForPeriod({ aoi: AOI, dateStart: '2024-01-01', dateEnd: '2024-06-30', productTypes: ['RTC'] })).toEqual({
      intersects: AOI,
      start: new Date('2024-01-01T00:00:00.000Z'),
      end: new Date('2024-06-30T23:59:59.999Z'),
      productTypes: ['RTC'],
    });
  });
});
