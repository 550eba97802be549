import { describe, expect, it } from 'vitest';
import {
  csvCell,
  cutsOf,
  decideField,
  fieldGeometry,
  featureVector,
  idleProbability,
  loadIdleModel,
  MIN_SPAN_DAYS,
  MIN_VALID_DATES,
  seasonStats,
  smoothSeries,
} from '../../src/analysis/idlefarm/index.ts';

/** 31 dates, 12 days apart, from 2023-01-05. */
const DATES = Array.from({ length: 31 }, (_, i) => new Date(Date.UTC(2023, 0, 5) + i * 12 * 86_400_000).toISOString().slice(0, 10));
const dayOf = (d: string) => (Date.parse(d) - Date.UTC(2023, 0, 1)) / 86_400_000;

/** A crop: VH −21 → −15 dB logistic around day 180 (τ 10 days), harvest at day 270; VV −13 → −11. */
function crop(): { vv: number[]; vh: number[] } {
  const g = DATES.map((d) => {
    const t = dayOf(d);
    return t >= 270 ? 0 : 1 / (1 + Math.exp(-(t - 180) / 10));
  });
  return { vh: g.map((x) => -21 + 6 * x), vv: g.map((x) => -13 + 2 * x) };
}

describe('idlefarm season statistics (issue 14)', () => {
  it('smoothing removes a single-date spike and keeps a step', () => {
    const spike = smoothSeries([0, 0, 0, 5, 0, 0, 0]);
    expect(Math.max(...spike)).toBeCloseTo(0, 10);
    const step = smoothSeries([0, 0, 0, 0, 3, 3, 3, 3]);
    expect(step[0]).toBeCloseTo(0, 10);
    expect(step[7]).toBeCloseTo(3, 10);
    expect(step[3]).toBeCloseTo(0.75, 10);
  });

  it('a crop cycle: a 6 dB VH rise, VH/VV up 4 dB, 10–90 % within ~44 days, peak before harvest', () => {
    const { vv, vh } = crop();
    const s = seasonStats(DATES, vv, vh).stats!;
    expect(s.validDates).toBe(31);
    expect(s.vhRiseDb).toBeGreaterThan(5.8);
    expect(s.vhRiseDb).toBeLessThanOrEqual(6);
    expect(s.ratioRiseDb).toBeGreaterThan(3.8);
    expect(s.ratioRiseDb).toBeLessThanOrEqual(4);
    expect(s.riseDays).toBeGreaterThanOrEqual(36);
    expect(s.riseDays).toBeLessThanOrEqual(60);
    expect(dayOf(s.vhMaxDate)).toBeGreaterThan(220);
    expect(dayOf(s.vhMaxDate)).toBeLessThan(270);
    expect(s.vhMeanDb).toBeGreaterThan(-21);
    expect(s.vhMeanDb).toBeLessThan(-15);
    const model = loadIdleModel();
    expect(idleProbability(model, featureVector(s))).toBeLessThan(0.01);
  });

  it('bare soil with a tillage step (VV and VH up 2.5 dB together) and rain spikes is idle', () => {
    const vv = DATES.map((d, i) => -13 + (dayOf(d) >= 150 ? 2.5 : 0) + (i % 7 === 3 ? 2 : 0));
    const vh = DATES.map((d, i) => -21 + (dayOf(d) >= 150 ? 2.7 : 0) + (i % 7 === 3 ? 2 : 0));
    const s = seasonStats(DATES, vv, vh).stats!;
    expect(s.vhRiseDb).toBeCloseTo(2.7, 5);
    expect(Math.abs(s.ratioRiseDb)).toBeLessThan(0.3);
    expect(s.riseDays).toBeLessThanOrEqual(24);
    const outcome = decideField(DATES, vv, vh, loadIdleModel(), 100);
    expect(outcome.idle).toBe(true);
    expect(outcome.idleProbability!).toBeGreaterThan(0.9);
  });

  it(`issue 14: fewer than ${MIN_VALID_DATES} dates with VV and VH → idle null with a reason`, () => {
    const { vv, vh } = crop();
    const holes = vh.map((v, i) => (i % 4 === 0 ? v : Number.NaN)); // 8 of 31 left
    expect(seasonStats(DATES, vv, holes).stats).not.toBeNull();
    const fewer = vh.map((v, i) => (i % 5 === 0 ? v : Number.NaN)); // 7 left
    const out = decideField(DATES, vv, fewer, loadIdleModel(), 100);
    expect(out).toMatchObject({ idle: null, idleProbability: null, stats: null, validDates: 7 });
    expect(out.reason).toBe('only 7 dates with both VV and VH over the field (at least 8 needed)');
  });

  it(`issue 14: valid dates spanning under ${MIN_SPAN_DAYS} days → idle null with a reason`, () => {
    const { vv, vh } = crop();
    const out = decideField(DATES.slice(0, 8), vv.slice(0, 8), vh.slice(0, 8), loadIdleModel(), 100);
    expect(out.idle).toBeNull();
    expect(out.reason).toBe('the valid dates span 84 days (at least 90 needed for a season)');
    expect(decideField(DATES, vv, vh, loadIdleModel(), 0).reason).toBe('the field covers no pixel of any scene');
  });

  it('issue 24: cuts are VH/VV drops of at least 1 dB that grow back within two dates; a harvest that stays down is not one', () => {
    // Two cuts (2.5 dB, back next date; 1.5 dB, back over two dates), a 0.8 dB wobble, then a drop that stays.
    const ratio = [-6, -6, -8.5, -6, -6, -7.5, -6.8, -5.9, -6.8, -6, -6, -9, -9, -9];
    const c = cutsOf(ratio);
    expect(c.cuts).toBe(2);
    expect(c.depthDb).toBeCloseTo(2.5 + 1.5, 10);
    expect(cutsOf([-6, -6, -6, -6])).toEqual({ cuts: 0, depthDb: 0 });
    // With VH given: the same VH/VV dip made by VV rising (VH flat) is not a cut; made by VH falling it is.
    expect(cutsOf([-6, -8, -6, -6], [-16, -16, -16, -16]).cuts).toBe(0);
    expect(cutsOf([-6, -8, -6, -6], [-16, -18, -16, -16]).cuts).toBe(1);
  });

  it('issue 24: a meadow (flat season, three cuts) has no rise of a crop but three cuts; a harvest shows as a fall with VH/VV', () => {
    const cutDays = [140, 190, 240];
    const vh = DATES.map((d) => {
      const t = dayOf(d);
      let v = -16;
      for (const m of cutDays) if (t >= m && t < m + 24) v -= 3 * (1 - (t - m) / 24);
      return v;
    });
    const meadow = seasonStats(DATES, DATES.map(() => -10), vh).stats!;
    expect(meadow.cuts).toBe(3);
    expect(meadow.cutDepthDb).toBeGreaterThan(4.5);
    expect(idleProbability(loadIdleModel(), featureVector(meadow))).toBeLessThan(0.5);
    const { vv, vh: cropVh } = crop();
    const s = seasonStats(DATES, vv, cropVh).stats!;
    expect(s.vhFallDb).toBeCloseTo(6, 0);
    expect(s.ratioFallDb).toBeLessThan(-3);
    expect(s.cuts).toBe(0);
  });

  it('the fitted model: P(idle) falls with the VH rise, the VH/VV rise, a harvest and cuts', () => {
    const model = loadIdleModel();
    const p = (rise: number, ratio: number, days = 60, fall = 0, ratioFall = 0, cutDepth = 0) =>
      idleProbability(model, featureVector({ vhRiseDb: rise, ratioRiseDb: ratio, riseDays: days, vhFallDb: fall, ratioFallDb: ratioFall, cutDepthDb: cutDepth }));
    for (const rise of [1, 2, 3, 4, 5, 6]) {
      expect(p(rise + 1, 1)).toBeLessThan(p(rise, 1));
      expect(p(rise, 2)).toBeLessThan(p(rise, 1));
    }
    // Fallow: a weak drift, no cut.
    expect(p(1.5, 0.3)).toBeGreaterThan(0.95);
    // A crop season: a canopy rise with VH/VV, then a harvest that takes VH/VV down with it.
    expect(p(6, 3, 60, 5, -2)).toBeLessThan(0.05);
    // A winter crop already up when the window starts: only its harvest shows.
    expect(p(0.5, 0.3, 30, 5, -7)).toBeLessThan(0.5);
    // Tillage slaking back (VH falls, VH/VV flat) is not a harvest: still fallow.
    expect(p(1, 0, 30, 2, 0)).toBeGreaterThan(0.5);
    // A managed meadow: a flat season with three cuts of 2 dB.
    expect(p(1, 1, 30, 1, 0, 6)).toBeLessThan(0.5);
    expect(model.training.seeds).toBe('101-116 (full years), 121-132 (windows)');
  });

  it('only well-formed Polygon and MultiPolygon geometries are fields', () => {
    const ring = [[0, 0], [1, 0], [1, 1], [0, 0]];
    const f = (geometry: unknown) => fieldGeometry({ type: 'Feature', geometry: geometry as never, properties: null });
    expect(f({ type: 'Polygon', coordinates: [ring] })).not.toBeNull();
    expect(f({ type: 'MultiPolygon', coordinates: [[ring], [ring]] })).not.toBeNull();
    expect(f({ type: 'Point', coordinates: [0, 0] })).toBeNull();
    expect(f(null)).toBeNull();
    expect(f({ type: 'Polygon', coordinates: [] })).toBeNull();
    expect(f({ type: 'Polygon', coordinates: [[[0, 0], [1, 0], [0, 0]]] })).toBeNull();
    expect(f({ type: 'Polygon', coordinates: [[[0, 0], [1, 'x'], [1, 1], [0, 0]]] })).toBeNull();
    expect(f({ type: 'MultiPolygon', coordinates: [[ring], 'nope'] })).toBeNull();
  });

  it('CSV cells are quoted when needed and formulas are neutralised', () => {
    expect(csvCell('plain')).toBe('plain');
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('=1+1')).toBe("'=1+1");
    expect(csvCell('@SUM(A1)')).toBe("'@SUM(A1)");
    expect(csvCell(-3.5)).toBe('-3.5');
    expect(csvCell(null)).toBe('');
    expect(csvCell(false)).toBe('false');
  });
});
