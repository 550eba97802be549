import { describe, expect, it } from 'vitest';
import { KMultiplierTable, kMultiplierTable, kTableKey } from '../../src/analysis/ship/distributions.ts';
import { STORED_K_TABLES } from '../../src/analysis/ship/kTables.ts';
import { defaultKTableKeys } from './writeKTables.ts';

// The stored K tables (kTables.ts) must be what KMultiplierTable computes, bit for bit, for
// every (looks, PFA) the default settings ask for: the CFAR thresholds, hence the detections,
// are then the same as when each thread computed them (issue 23 §5: the near-shore path's
// cost, exactly). Regenerate with `npx tsx test/analysis/writeKTables.ts`.
describe('stored K multiplier tables (kTables.ts)', () => {
  it('holds exactly the default settings’ tables, each the computed numbers bit for bit', () => {
    const keys = defaultKTableKeys();
    expect(keys.length).toBeGreaterThanOrEqual(3);
    expect(Object.keys(STORED_K_TABLES).sort()).toEqual(keys.map(({ looks, pfa }) => kTableKey(looks, pfa)).sort());
    for (const { looks, pfa } of keys) {
      const computed = new KMultiplierTable(looks, pfa).stored();
      const stored = STORED_K_TABLES[kTableKey(looks, pfa)]!;
      expect(stored.values.length).toBe(computed.values.length);
      expect(Object.is(stored.gamma, computed.gamma), `gamma ${looks}|${pfa}`).toBe(true);
      stored.values.forEach((v, i) => expect(Object.is(v, computed.values[i]), `${looks}|${pfa}[${i}]`).toBe(true));
    }
  }, 60_000);

  it('kMultiplierTable takes the stored numbers: the lookup the CFAR reads is the computed table’s', () => {
    const { looks, pfa } = defaultKTableKeys()[0]!;
    const fromStore = kMultiplierTable(looks, pfa).excessLookup();
    const computed = new KMultiplierTable(looks, pfa).excessLookup();
    expect(Buffer.compare(Buffer.from(fromStore.table.buffer), Buffer.from(computed.table.buffer))).toBe(0);
    expect(fromStore.scale).toBe(computed.scale);
    // Settings off the defaults are computed as before.
    expect(STORED_K_TABLES[kTableKey(looks, 1e-6)]).toBeUndefined();
    expect(kMultiplierTable(looks, 1e-6).multiplier(Infinity)).toBe(new KMultiplierTable(looks, 1e-6).gamma);
    expect(() => new KMultiplierTable(looks, pfa, { points: 20, stored: STORED_K_TABLES[kTableKey(looks, pfa)]! })).toThrow(RangeError);
  }, 60_000);
});
