/**
 * Issue 23 §4: the AIS matcher on the real OpenSARShip AIS (eval/aisChips.ts): every scene's
 * AIS reports placed at the image time and assigned one-to-one to the ships' image positions.
 * Skipped when the development data is absent.
 */
import { describe, expect, it } from 'vitest';
import { evalAisOnOpenSarShip } from '../../eval/aisChips.ts';
import { openSarShipAvailable } from '../../eval/shipChips.ts';

describe.skipIf(!openSarShipAvailable())('issue 23 §4: AIS matching on OpenSARShip', () => {
  it('gives every ship its own AIS report; placed AIS lies within 300 m (median) of the image position', () => {
    const rows = evalAisOnOpenSarShip();
    if (!Array.isArray(rows)) throw new Error(rows.skipped);
    expect(rows).toHaveLength(4);
    expect(rows.reduce((n, r) => n + r.ships, 0)).toBe(133);
    for (const r of rows) {
      expect(r.wrong, r.scene).toBe(0);
      expect(r.dark, r.scene).toBe(0);
      expect(r.matched, r.scene).toBe(r.ships);
      expect(r.placedMedianM, r.scene).toBeLessThanOrEqual(300);
      // Well inside the 1.5 km gate.
      expect(r.placedP90M, r.scene).toBeLessThan(400);
    }
    // The scene with ships under way (54 of 72): dead reckoning brings them closer than the reports.
    const moving = rows.find((r) => r.scene.includes('20160131'))!;
    expect(moving.moving).toBe(54);
    expect(moving.movingPlacedMedianM!).toBeLessThan(moving.movingReportedMedianM!);
  });
});
