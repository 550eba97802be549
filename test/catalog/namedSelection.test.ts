/**
 * Issue 14: scene selection exists once, in catalog/ — the CLI's PRE/POST and series
 * inputs are chosen among by the catalog's rules (selectNamedPair, selectNamedSeries).
 */
import { describe, expect, it } from 'vitest';
import { selectNamedPair, selectNamedSeries, type NoSceneFound } from '../../src/catalog/selection.ts';
import { box, scene } from './fixtures.ts';

const AOI = box(10.2, 50.2, 10.4, 50.4);

function failure(r: { ok: boolean }): string {
  expect(r.ok).toBe(false);
  return (r as NoSceneFound).message;
}

describe('issue 14: selectNamedPair (the user names PRE and POST)', () => {
  it('PRE and POST of one path/frame in date order are the pair, with the coverage of both', () => {
    const pre = scene({ id: 'pre', t: '2024-01-05' });
    const post = scene({ id: 'post', t: '2024-06-20', footprint: box(10.3, 50, 11, 51) });
    const r = selectNamedPair([pre], [post], { aoi: AOI, productTypes: ['GRD'] });
    if (!r.ok) throw new Error(r.message);
    expect([r.earlier.sceneId, r.later.sceneId, r.swapped]).toEqual(['pre', 'post', false]);
    expect(r.coverage.ratio).toBe(0.5);
    expect(r.warnings.map((w) => w.code)).toEqual(['LOW_AOI_COVERAGE']);
  });

  it('PRE later than POST: swapped, the change is measured from the earlier acquisition', () => {
    const r = selectNamedPair([scene({ id: 'late', t: '2024-06-20' })], [scene({ id: 'early', t: '2024-01-05' })], { aoi: AOI });
    if (!r.ok) throw new Error(r.message);
    expect([r.earlier.sceneId, r.later.sceneId, r.swapped]).toEqual(['early', 'late', true]);
  });

  it('refuses another path/frame, the same day, and a side off the polygon', () => {
    expect(failure(selectNamedPair([scene({ id: 'a', t: '2024-01-05', rel: 15 })], [scene({ id: 'b', t: '2024-06-20', rel: 88 })], { aoi: AOI }))).toMatch(
      /PRE \(track 15 ascending\) and POST \(track 88 ascending\) share no path\/frame/,
    );
    expect(failure(selectNamedPair([scene({ id: 'a', t: '2024-01-05T01:00:00Z' })], [scene({ id: 'b', t: '2024-01-05T13:00:00Z' })], { aoi: AOI }))).toMatch(
      /must be acquisitions of different days/,
    );
    expect(failure(selectNamedPair([scene({ id: 'a', t: '2024-01-05' })], [scene({ id: 'off', t: '2024-06-20', footprint: box(20, 50, 21, 51) })], { aoi: AOI }))).toBe(
      'The polygon does not overlap off.',
    );
    expect(failure(selectNamedPair([scene({ id: 'a', t: '2024-01-05' })], [scene({ id: 'b', t: '2024-06-20' })], { aoi: AOI, productTypes: ['RTC'] }))).toMatch(
      /PRE and POST must each hold a RTC scene/,
    );
  });

  it('sides of several scenes (the bursts of one date): the pair of one path/frame covering most of the polygon', () => {
    const pre = [scene({ id: 'pre-west', t: '2024-01-05', footprint: box(10, 50, 10.25, 51) }), scene({ id: 'pre-east', t: '2024-01-05', footprint: box(10.25, 50, 11, 51) })];
    const post = [scene({ id: 'post-west', t: '2024-02-05', footprint: box(10, 50, 10.25, 51) }), scene({ id: 'post-east', t: '2024-02-05', footprint: box(10.25, 50, 11, 51) })];
    const r = selectNamedPair(pre, post, { aoi: AOI });
    if (!r.ok) throw new Error(r.message);
    expect([r.earlier.sceneId, r.later.sceneId]).toEqual(['pre-east', 'post-east']);
    expect(r.coverage.ratio).toBe(0.75);
  });
});

describe('issue 14: selectNamedSeries (the series rule over the days the named scenes span)', () => {
  it('the best path/frame: coverage first, then passes; other tracks left out, oldest first', () => {
    const scenes = [
      scene({ id: 't88-2', t: '2024-03-01', rel: 88 }),
      scene({ id: 't15-1', t: '2024-01-01', rel: 15, footprint: box(10.3, 50, 11, 51) }),
      scene({ id: 't15-2', t: '2024-01-13', rel: 15, footprint: box(10.3, 50, 11, 51) }),
      scene({ id: 't15-3', t: '2024-01-25', rel: 15, footprint: box(10.3, 50, 11, 51) }),
      scene({ id: 't88-1', t: '2024-02-01', rel: 88 }),
    ];
    const r = selectNamedSeries(scenes, { aoi: AOI, productTypes: ['GRD'] });
    if (!r.ok) throw new Error(r.message);
    expect(r.scenes.map((s) => s.sceneId)).toEqual(['t88-1', 't88-2']);
    expect(r.pathFrame.relativeOrbit).toBe(88);
    expect(r.coverage.ratio).toBe(1);
    expect(r.warnings).toEqual([]); // the period is the scenes' own span: never "partially covered"
  });

  it('nothing over the polygon: the catalog\'s message', () => {
    expect(failure(selectNamedSeries([scene({ id: 'x', t: '2024-01-01', footprint: box(20, 50, 21, 51) })], { aoi: AOI }))).toMatch(
      /No Sentinel-1 scene intersects the polygon between 2024-01-01 and 2024-01-01/,
    );
  });
});
