import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../src/prng.ts';
import { fitLogistic } from '../../training/idlefarm/fit.ts';

describe('idlefarm model fitting (training/idlefarm/fit.ts)', () => {
  it('recovers the coefficients of a known logistic model from samples drawn from it, and repeats exactly', () => {
    const rand = mulberry32(7);
    const truth = { intercept: 3, weights: [-1.5, 0.8] };
    const x: number[][] = [];
    const y: number[] = [];
    for (let i = 0; i < 4000; i++) {
      const row = [rand() * 6, rand() * 4 - 2];
      const p = 1 / (1 + Math.exp(-(truth.intercept + truth.weights[0]! * row[0]! + truth.weights[1]! * row[1]!)));
      x.push(row);
      y.push(rand() < p ? 1 : 0);
    }
    const fit = fitLogistic(x, y, 0);
    expect(fit.intercept).toBeGreaterThan(2.6);
    expect(fit.intercept).toBeLessThan(3.4);
    expect(fit.weights[0]).toBeGreaterThan(-1.7);
    expect(fit.weights[0]).toBeLessThan(-1.3);
    expect(fit.weights[1]).toBeGreaterThan(0.65);
    expect(fit.weights[1]).toBeLessThan(0.95);
    expect(fitLogistic(x, y, 0)).toEqual(fit);
    // A ridge shrinks the weights towards zero.
    const ridged = fitLogistic(x, y, 0.05);
    expect(Math.abs(ridged.weights[0]!)).toBeLessThan(Math.abs(fit.weights[0]!));
  });
});
