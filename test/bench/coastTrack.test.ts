import { describe, expect, it } from 'vitest';
import { COAST_SEED, earlierCoastSpec } from '../../bench/imagery-read.ts';
import { FIXED_STRUCTURE_RULE } from '../../src/analysis/ship/fixedStructures.ts';
import { demoPortSpecs } from '../../src/synth/index.ts';

const DAY_MS = 86_400_000;

/** Ground distance (m) between two lon/lat points, equirectangular (the moves are a few km). */
function metres(a: { lon: number; lat: number }, b: { lon: number; lat: number }): number {
  const k = Math.cos((((a.lat + b.lat) / 2) * Math.PI) / 180);
  return Math.hypot((a.lon - b.lon) * k, a.lat - b.lat) * 111_320;
}

describe('the coastal bench scene\'s earlier dates (issue 23 §5 job: fixed structures)', () => {
  // A small footprint: the spec's content does not depend on the size but for the land taken over it.
  const size = { width: 2000, height: 1500 };
  const [first] = demoPortSpecs(COAST_SEED, 1, size);

  it('are passes of the same track 12, 24, … days earlier over the same footprint, land and fixed structures', () => {
    for (const k of [1, 2, 5]) {
      const earlier = earlierCoastSpec(size.width, size.height, k);
      expect(new Date(first.start).getTime() - new Date(earlier.start).getTime()).toBe(12 * k * DAY_MS);
      expect(earlier.center).toEqual(first.center);
      expect([earlier.width, earlier.height, earlier.passDirection]).toEqual([size.width, size.height, 'ascending']);
      expect(earlier.surfaces).toEqual(first.surfaces);
      expect(earlier.structures).toEqual(first.structures);
      expect(earlier.structures).toHaveLength(10);
      expect(earlier.slicks).toBeUndefined();
      expect(earlier.lowWind).toBeUndefined();
      expect(earlier.seed).not.toBe(first.seed);
    }
  });

  it('hold the first date\'s vessels moved 0.3–3 km, never within the fixed-structure radius of their place', () => {
    const ships = first.ships!;
    expect(ships).toHaveLength(17);
    for (const k of [1, 2, 3, 4, 5]) {
      const moved = earlierCoastSpec(size.width, size.height, k).ships!;
      expect(moved.map((s) => s.id)).toEqual(ships.map((s) => s.id));
      moved.forEach((s, i) => {
        const d = metres(s, ships[i]!);
        expect(d).toBeGreaterThan(299);
        expect(d).toBeLessThan(3001);
        expect(d).toBeGreaterThan(FIXED_STRUCTURE_RULE.radiusM);
      });
    }
    // Each date its own draw.
    expect(earlierCoastSpec(size.width, size.height, 1).ships![0]).not.toEqual(earlierCoastSpec(size.width, size.height, 2).ships![0]);
  });
});
