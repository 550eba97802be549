import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildLandPolygons, packLand, readPackedLand } from '../../src/geo/landMask.ts';

// The land index is built once per machine and mapped back from its pack by every other
// thread and process (issue 20 §2): what comes back must be the index itself, bit for bit.
describe('packed land index', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sarwatch-landpack-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  const built = buildLandPolygons();

  it('reads back every ring, chunk box and bbox exactly', () => {
    const file = path.join(dir, 'land.f64');
    fs.writeFileSync(file, packLand(built));
    const back = readPackedLand(file)!;
    expect(back).not.toBeNull();
    expect(back.source).toBe(built.source);
    expect(back.rings.length).toBe(built.rings.length);
    expect(built.rings.length).toBeGreaterThan(1000);
    for (let i = 0; i < built.rings.length; i++) {
      const a = built.rings[i]!;
      const b = back.rings[i]!;
      expect(b.bbox).toEqual(a.bbox);
      expect(Buffer.from(b.coords.buffer, b.coords.byteOffset, b.coords.byteLength).equals(Buffer.from(a.coords.buffer))).toBe(true);
      expect(Buffer.from(b.chunkBoxes.buffer, b.chunkBoxes.byteOffset, b.chunkBoxes.byteLength).equals(Buffer.from(a.chunkBoxes.buffer))).toBe(true);
    }
  });

  it('refuses a missing or cut-short pack (the index is then built)', () => {
    expect(readPackedLand(path.join(dir, 'none.f64'))).toBeNull();
    const whole = packLand(built);
    const cut = path.join(dir, 'cut.f64');
    fs.writeFileSync(cut, whole.subarray(0, whole.length - 8));
    expect(readPackedLand(cut)).toBeNull();
  });
});
