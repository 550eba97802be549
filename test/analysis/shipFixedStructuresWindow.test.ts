/**
 * brightTargetNear's squared-distance loop and median by selection (issue 23 §5: the fixed-structure
 * check per window, cheaper) against the plain reading of its rule — every pixel's Math.hypot
 * distance, the background sorted — on random windows of speckle with bright targets, fractional
 * centres, other pixel spacings and holes: the same answer on every one.
 */
import { describe, expect, it } from 'vitest';
import { brightTargetNear, FIXED_STRUCTURE_RULE, type SigmaWindow } from '../../src/analysis/ship/fixedStructures.ts';
import { Random } from '../../src/synth/index.ts';

function reference(win: SigmaWindow, x: number, y: number, spacing: { range: number; azimuth: number }, rule = FIXED_STRUCTURE_RULE): boolean | null {
  const inner = rule.radiusM;
  const outer = rule.radiusM + 30;
  let peak = -Infinity;
  const background: number[] = [];
  let ringPixels = 0;
  for (let r = 0; r < win.height; r++) {
    for (let c = 0; c < win.width; c++) {
      const d = Math.hypot((c - x) * spacing.range, (r - y) * spacing.azimuth);
      const i = r * win.width + c;
      if (d <= inner) {
        if (win.valid[i]) peak = Math.max(peak, win.data[i]!);
      } else if (d > outer) {
        ringPixels++;
        if (win.valid[i]) background.push(win.data[i]!);
      }
    }
  }
  if (peak === -Infinity || background.length === 0 || background.length < ringPixels / 4) return null;
  background.sort((a, b) => a - b);
  return peak >= background[background.length >> 1]! * 10 ** (rule.minContrastDb / 10);
}

describe('brightTargetNear', () => {
  it('answers as the plain rule on 3,000 random windows (targets near the radius, holes, ties, other spacings)', () => {
    const rng = new Random(23, 'fixed-window');
    const answers = { true: 0, false: 0, null: 0 };
    for (let n = 0; n < 3000; n++) {
      const width = 20 + Math.floor(rng.range(0, 20));
      const height = 20 + Math.floor(rng.range(0, 20));
      const data = new Float32Array(width * height);
      const valid = new Uint8Array(width * height);
      // Quantised speckle: many equal values, so the median has ties.
      for (let i = 0; i < data.length; i++) {
        data[i] = Math.round(-Math.log(1 - rng.uniform()) * 8) / 8 + 0.01;
        valid[i] = rng.uniform() < (n % 7 === 0 ? 0.2 : 0.97) ? 1 : 0;
      }
      const x = rng.range(0, width - 1);
      const y = rng.range(0, height - 1);
      // A target 8–25 dB up, at a distance around the 30 m radius.
      const spacing = n % 3 === 0 ? { range: 10, azimuth: 10 } : { range: rng.range(2, 25), azimuth: rng.range(2, 25) };
      const angle = rng.range(0, 2 * Math.PI);
      const dist = rng.range(20, 40);
      const c = Math.round(x + (dist * Math.cos(angle)) / spacing.range);
      const r = Math.round(y + (dist * Math.sin(angle)) / spacing.azimuth);
      if (c >= 0 && c < width && r >= 0 && r < height) data[r * width + c] = 10 ** (rng.range(8, 25) / 10);
      const got = brightTargetNear({ data, valid, width, height }, x, y, spacing);
      expect(got).toBe(reference({ data, valid, width, height }, x, y, spacing));
      answers[String(got) as keyof typeof answers]++;
    }
    // The cases are all there.
    expect(answers.true).toBeGreaterThan(200);
    expect(answers.false).toBeGreaterThan(200);
    expect(answers.null).toBeGreaterThan(50);
  });

  it('a pixel exactly on the radius counts as within it (integer centre, 10 m pixels: 3 px = 30 m)', () => {
    const width = 31;
    const data = new Float32Array(width * width).fill(1);
    const valid = new Uint8Array(width * width).fill(1);
    data[15 * width + 18] = 100; // 30 m east of (15, 15): 20 dB
    expect(brightTargetNear({ data, valid, width, height: width }, 15, 15, { range: 10, azimuth: 10 })).toBe(true);
    data[15 * width + 18] = 1;
    data[15 * width + 19] = 100; // 40 m: outside
    expect(brightTargetNear({ data, valid, width, height: width }, 15, 15, { range: 10, azimuth: 10 })).toBe(false);
  });
});
