/**
 * Issue 21 §1, the pure rules of a monitor: each endpoint's condition on a result, the body a
 * run submits (scene endpoints: the acquisition day; period endpoints: the lookback), and when
 * `every_days` is due.
 */
import { describe, expect, it } from 'vitest';
import { evaluateCondition, isDue, lookbackDays, monthStart, runBody } from '../../src/monitors/rules.ts';

const square = (x: number, y: number, props: Record<string, unknown>) => ({
  type: 'Feature',
  properties: props,
  geometry: { type: 'Polygon', coordinates: [[[x, y], [x + 1, y], [x + 1, y + 1], [x, y + 1], [x, y]]] },
});

describe('conditions', () => {
  it('ship min_count: the number of vessels, all of them in the summary', () => {
    const fc = { features: [square(0, 0, {}), square(2, 3, {})] };
    expect(evaluateCondition('ship', { min_count: 2 }, fc)).toEqual({ met: true, count: 2, bbox: [0, 0, 3, 4] });
    expect(evaluateCondition('ship', { min_count: 3 }, fc)).toMatchObject({ met: false, count: 2 });
    expect(evaluateCondition('ship', { min_count: 1 }, { features: [] })).toEqual({ met: false, count: 0, bbox: null });
  });

  it('oilslick min_oil_probability: slicks at or above it', () => {
    const fc = { features: [square(0, 0, { oil_probability: 0.4 }), square(5, 5, { oil_probability: 0.9 })] };
    expect(evaluateCondition('oilslick', { min_oil_probability: 0.5 }, fc)).toEqual({ met: true, count: 1, bbox: [5, 5, 6, 6] });
    expect(evaluateCondition('oilslick', { min_oil_probability: 0.95 }, fc)).toMatchObject({ met: false, count: 0 });
  });

  it('newbuilding / disappearbuilding min_area_sqm: change polygons at least that large', () => {
    const fc = { features: [square(0, 0, { area_sqm: 300 }), square(1, 1, { area_sqm: 1200 })] };
    expect(evaluateCondition('newbuilding', { min_area_sqm: 1000 }, fc)).toMatchObject({ met: true, count: 1 });
    expect(evaluateCondition('disappearbuilding', { min_area_sqm: 2000 }, fc)).toMatchObject({ met: false, count: 0 });
  });

  it('timeseries min_abs_deviation: cells whose |deviation| reaches it, either sign; null deviations never', () => {
    const fc = { features: [square(0, 0, { deviation: -3.2 }), square(1, 0, { deviation: 1.1 }), square(2, 0, { deviation: null })] };
    expect(evaluateCondition('timeseries', { min_abs_deviation: 3 }, fc)).toEqual({ met: true, count: 1, bbox: [0, 0, 1, 1] });
    expect(evaluateCondition('timeseries', { min_abs_deviation: 0 }, fc)).toMatchObject({ count: 2 });
  });
});

describe('run bodies', () => {
  const scene = { startTime: '2024-06-25T17:34:10.797Z', orbitDirection: 'ascending' as const };
  it('ship / oilslick: the AOI on the acquisition day, nearest, the scene’s orbit direction unless the monitor names one', () => {
    expect(runBody({ endpoint_id: 'ship', polygon: 'P', polygon_id: null, orbit_direction: null, every_days: null }, scene)).toEqual({
      satellite_id: 'sentinel-1',
      polygon: 'P',
      date: '2024-06-25',
      date_direction: 'nearest',
      orbit_direction: 'ascending',
    });
    expect(runBody({ endpoint_id: 'oilslick', polygon: null, polygon_id: 'u1', orbit_direction: 'descending', every_days: null }, scene)).toMatchObject({ polygon_id: 'u1', orbit_direction: 'descending' });
  });

  it('period endpoints: date_end the acquisition day, date_start the lookback before it', () => {
    expect(runBody({ endpoint_id: 'newbuilding', polygon: 'P', polygon_id: null, orbit_direction: null, every_days: null }, scene)).toMatchObject({ date_start: '2024-06-01', date_end: '2024-06-25' });
    expect(runBody({ endpoint_id: 'disappearbuilding', polygon: 'P', polygon_id: null, orbit_direction: null, every_days: 36 }, scene)).toMatchObject({ date_start: '2024-05-20', date_end: '2024-06-25' });
    expect(lookbackDays('timeseries', null)).toBe(180);
    expect(lookbackDays('timeseries', 365)).toBe(365);
  });
});

describe('every_days', () => {
  it('is due on the first scene, then once a scene is N days (less an hour of acquisition-time jitter) after the last run', () => {
    const m = { trigger: 'every_days', every_days: 12, last_scene_time: null as string | null };
    expect(isDue(m, '2024-06-01T17:00:00Z')).toBe(true);
    m.last_scene_time = '2024-06-01T17:00:00Z';
    expect(isDue(m, '2024-06-07T17:00:00Z')).toBe(false);
    expect(isDue(m, '2024-06-13T16:59:30Z')).toBe(true);
    expect(isDue({ trigger: 'new_scene', every_days: null, last_scene_time: '2024-06-01T17:00:00Z' }, '2024-06-01T17:00:01Z')).toBe(true);
  });

  it('caps count from the first instant of the UTC month', () => {
    expect(monthStart(new Date('2026-12-31T23:59:59Z'))).toBe('2026-12-01T00:00:00.000Z');
  });
});
