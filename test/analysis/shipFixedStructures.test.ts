/**
 * Issue 23 §3, fixed structures: the persistence decision (golden fixtures), the bright-target
 * test on one window, and the check on a generated stack (turbines and a platform at the same
 * place on three passes, a ship that moves, an anchored ship that swung) read from the SAFE
 * products as a ship job reads them.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brightTargetNear, checkFixedStructures, decidePersistence, FIXED_STRUCTURE_RULE, type TrackAcquisition } from '../../src/analysis/ship/fixedStructures.ts';
import { readSafeFolder } from '../../src/catalog/local/safe.ts';
import { Random, writeSafeGrd, type ShipSpec, type StructureSpec } from '../../src/synth/index.ts';

describe('decidePersistence: "most" is ≥ 60 % of the earlier dates that could be read', () => {
  const golden: [(boolean | null)[], boolean | null, number, number][] = [
    [[], null, 0, 0],
    [[null, null], null, 0, 0],
    [[true], true, 1, 1],
    [[false], false, 0, 1],
    [[true, false], false, 1, 2],
    [[true, true], true, 2, 2],
    [[true, true, false], true, 2, 3],
    [[true, false, false], false, 1, 3],
    [[true, true, false, false], false, 2, 4],
    [[true, true, true, false], true, 3, 4],
    [[true, true, true, false, false], true, 3, 5],
    [[true, true, false, false, false], false, 2, 5],
    [[true, null, true, false, null], true, 2, 3],
  ];
  it.each(golden)('%j → fixed %s (%i bright of %i read)', (seen, fixed, bright, looked) => {
    expect(decidePersistence(seen)).toEqual({ fixed, bright, looked });
  });
});

describe('brightTargetNear', () => {
  const spacing = { range: 10, azimuth: 10 };
  /** A 31 × 31 window of 4.4-look gamma speckle around mean 1, with a target of `db` dB at (row, col). */
  function speckle(seed: number, target?: { row: number; col: number; db: number }) {
    const rng = new Random(seed, 'speckle');
    const data = new Float32Array(31 * 31).map(() => rng.gamma(4.4, 1 / 4.4));
    if (target) data[target.row * 31 + target.col] = 10 ** (target.db / 10);
    return { data, valid: new Uint8Array(31 * 31).fill(1), width: 31, height: 31 };
  }

  it('a 20 dB target 20 m from the centre is bright; 50 m away it is not; speckle alone is not', () => {
    expect(brightTargetNear(speckle(1, { row: 15, col: 17, db: 20 }), 15, 15, spacing)).toBe(true);
    expect(brightTargetNear(speckle(1, { row: 15, col: 20, db: 20 }), 15, 15, spacing)).toBe(false);
    for (let seed = 2; seed < 40; seed++) expect(brightTargetNear(speckle(seed), 15, 15, spacing)).toBe(false);
  });

  it('the threshold is the rule’s contrast over the background median: 10 dB is not enough, 14 dB is', () => {
    expect(brightTargetNear(speckle(3, { row: 14, col: 15, db: 10 }), 15, 15, spacing)).toBe(false);
    expect(brightTargetNear(speckle(3, { row: 14, col: 15, db: 14 }), 15, 15, spacing)).toBe(true);
  });

  it('no valid pixel near the centre, or a background mostly invalid: null (the date does not count)', () => {
    const w = speckle(4, { row: 15, col: 15, db: 30 });
    const hole = { ...w, valid: w.valid.map((_, i) => (Math.hypot((i % 31) - 15, Math.floor(i / 31) - 15) <= 3 ? 0 : 1)) };
    expect(brightTargetNear(hole, 15, 15, spacing)).toBeNull();
    const edge = { ...w, valid: w.valid.map((_, i) => (i % 31 < 12 || i % 31 > 18 ? 0 : 1)) };
    expect(brightTargetNear(edge, 15, 15, spacing)).toBeNull();
  });
});

describe('checkFixedStructures on a generated stack of one track', () => {
  const CENTER: [number, number] = [3.2, 54.4];
  const km = (dx: number, dy: number) => ({ lon: CENTER[0] + dx / (111.32 * Math.cos((CENTER[1] * Math.PI) / 180)), lat: CENTER[1] + dy / 110.57 });
  const structures: StructureSpec[] = [
    { id: 'turbine-a', kind: 'turbine', ...km(0, -1) },
    { id: 'turbine-b', kind: 'turbine', ...km(0.8, -1) },
    { id: 'platform', kind: 'platform', ...km(-1.5, -1.5) },
  ];
  // A ship under way (1.5 km further on each pass) and one at anchor, swung by 300 m.
  const ships = (pass: number): ShipSpec[] => [
    { id: 'moving', ...km(-2 + 1.5 * pass, 1), lengthM: 120, headingDeg: 90 },
    { id: 'anchored', ...km(1.5, 1.5 + 0.3 * (pass % 2)), lengthM: 150, headingDeg: 200 },
  ];
  let dir: string;
  const earlier: TrackAcquisition[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'fixed-structures-'));
    // Three passes 12 days apart: 0 and 1 are the earlier dates (newest first, as the catalog gives them).
    for (const pass of [1, 0]) {
      const start = new Date(Date.UTC(2024, 6, 3 + 12 * pass, 5, 45));
      const written = await writeSafeGrd(path.join(dir, `pass${pass}`), { seed: 70 + pass, areaSeed: 7, start, center: CENTER, width: 700, height: 700, wind: { speed: 7, directionDeg: 240 }, ships: ships(pass), structures });
      const record = await readSafeFolder(written.productPath);
      earlier.push({ path: written.productPath, footprint: record!.footprint });
    }
  }, 180_000);
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('turbines and the platform are fixed on both earlier dates; the moving and the swung ship are not', async () => {
    // The third pass's detections: the structures where they always are, the ships where they are now.
    const centres = [...structures.map((s) => ({ lon: s.lon, lat: s.lat })), km(-2 + 3, 1), km(1.5, 1.5)];
    const check = await checkFixedStructures(centres, earlier);
    expect(check.products).toBe(2);
    expect(check.windows).toBe(2 * centres.length);
    expect(check.decisions.map((d) => d.fixed)).toEqual([true, true, true, false, false]);
    expect(check.decisions.slice(0, 3).every((d) => d.bright === 2 && d.looked === 2)).toBe(true);
    // The anchored ship was at its place on pass 0 (not on pass 1): 1 of 2 is not "most".
    expect(check.decisions[4]).toEqual({ fixed: false, bright: 1, looked: 2 });
    // 30 m is the radius: the turbine's position moved by 60 m is no longer matched on either date.
    const off = await checkFixedStructures([km(0.06, -1)], earlier);
    expect(off.decisions[0]).toEqual({ fixed: false, bright: 0, looked: 2 });
  });

  it('a detection no earlier product covers is not decided; only the newest maxEarlierDates are read', async () => {
    const far = await checkFixedStructures([km(50, 50)], earlier);
    expect(far).toMatchObject({ products: 0, windows: 0, decisions: [{ fixed: null, bright: 0, looked: 0 }] });
    const newestOnly = await checkFixedStructures([structures[0]!], earlier, { rule: { ...FIXED_STRUCTURE_RULE, maxEarlierDates: 1 } });
    expect(newestOnly).toMatchObject({ products: 1, windows: 1, decisions: [{ fixed: true, bright: 1, looked: 1 }] });
  });
});
