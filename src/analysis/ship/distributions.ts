// Tail probabilities and CFAR multipliers for the clutter models of the ship detector.
// Everything here is a pure function of (model parameters, PFA); the K-distribution table
// is computed once per (looks, PFA) and cached, so per-pixel work is a table lookup. The
// tables of the default settings are stored, computed (kTables.ts): ≈ 0.2 CPU s each that
// every worker thread would otherwise spend on its first tile.

import { STORED_K_TABLES, type StoredKTable } from './kTables.ts';

const LANCZOS = [
  676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059, 12.507343278686905,
  -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
];

/** ln Γ(x) for x > 0 (Lanczos, g = 7; ~15 significant digits). */
export function lnGamma(x: number): number {
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - lnGamma(1 - x);
  const z = x - 1;
  let a = 0.99999999999980993;
  const t = z + 7.5;
  for (let i = 0; i < LANCZOS.length; i++) a += LANCZOS[i]! / (z + i + 1);
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(a);
}

/**
 * Regularised upper incomplete gamma Q(a, x) = Γ(a, x)/Γ(a): the series for P below
 * x < a + 1, Lentz's continued fraction for Q above (Numerical Recipes §6.2).
 */
export function gammaQ(a: number, x: number): number {
  if (x <= 0) return 1;
  if (!Number.isFinite(x)) return 0;
  const lnPrefix = a * Math.log(x) - x - lnGamma(a);
  if (x < a + 1) {
    let sum = 1 / a;
    let term = sum;
    for (let n = 1; n < 1000; n++) {
      term *= x / (a + n);
      sum += term;
      if (Math.abs(term) < Math.abs(sum) * 1e-16) break;
    }
    return Math.max(0, 1 - sum * Math.exp(lnPrefix));
  }
  const tiny = 1e-300;
  let b = x + 1 - a;
  let c = 1 / tiny;
  let d = 1 / b;
  let h = d;
  for (let i = 1; i < 1000; i++) {
    const an = -i * (i - a);
    b += 2;
    d = an * d + b;
    if (Math.abs(d) < tiny) d = tiny;
    c = b + an / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    const delta = d * c;
    h *= delta;
    if (Math.abs(delta - 1) < 1e-16) break;
  }
  return Math.exp(lnPrefix) * h;
}

/** Upper tail of the standard normal, P(Z > z). */
export function normalTail(z: number): number {
  return z >= 0 ? 0.5 * gammaQ(0.5, (z * z) / 2) : 1 - 0.5 * gammaQ(0.5, (z * z) / 2);
}

/** Solve decreasing `tail(t) = pfa` for t in [lo, hi] by bisection (in log t when lo > 0). */
function solveTail(tail: (t: number) => number, pfa: number, lo: number, hi: number, logScale: boolean): number {
  while (tail(hi) > pfa) hi *= 2;
  for (let i = 0; i < 200; i++) {
    const mid = logScale ? Math.sqrt(lo * hi) : (lo + hi) / 2;
    if (tail(mid) > pfa) lo = mid;
    else hi = mid;
    if (hi - lo <= 1e-12 * hi) break;
  }
  return (lo + hi) / 2;
}

/**
 * z such that P(Z > z) = pfa: the "detector design parameter" of SNAP's
 * AdaptiveThresholding (`t = √2 · erf⁻¹(1 − 2·PFA)`, 4.99 at PFA 10^-6.5).
 */
export function normalQuantileUpper(pfa: number): number {
  if (!(pfa > 0 && pfa < 1)) throw new RangeError(`PFA must be in (0, 1), got ${pfa}`);
  if (pfa >= 0.5) return -normalQuantileUpper(1 - pfa);
  return solveTail(normalTail, pfa, 0, 10, false);
}

/**
 * Multiplier T with P(I > T·mean) = pfa for L-look gamma speckle (fully developed speckle
 * on a homogeneous sea): Q(L, L·T) = pfa.
 */
export function gammaMultiplier(looks: number, pfa: number): number {
  return solveTail((t) => gammaQ(looks, looks * t), pfa, 1, 2, true);
}

/**
 * P(I > T·mean) for the K distribution: L-look gamma speckle modulated by a gamma texture of
 * shape ν (both of mean 1). P = ∫ Q(L, L·T/τ) p_ν(τ) dτ, integrated over u = ln τ with the
 * trapezoid rule, which converges fast because the integrand is smooth and decays at both ends.
 */
export function kTail(looks: number, shape: number, t: number): number {
  // Texture density in u = ln τ: ν^ν/Γ(ν) · exp(ν u − ν e^u).
  const lnNorm = shape * Math.log(shape) - lnGamma(shape);
  // τ spans where the texture density is above e^-60 of its peak (at τ = 1): both ends
  // solve ν(e^u − u − 1) = 60.
  const excess = 60 / shape;
  let u0 = -1;
  while (Math.exp(u0) - u0 - 1 < excess) u0 *= 1.5;
  let u1 = 1;
  while (Math.exp(u1) - u1 - 1 < excess) u1 += 0.25;
  const n = 400;
  const du = (u1 - u0) / n;
  let sum = 0;
  for (let i = 0; i <= n; i++) {
    const u = u0 + i * du;
    const tau = Math.exp(u);
    const density = Math.exp(lnNorm + shape * u - shape * tau);
    if (density === 0) continue;
    const w = i === 0 || i === n ? 0.5 : 1;
    sum += w * density * gammaQ(looks, (looks * t) / tau);
  }
  return sum * du;
}

/** Multiplier T with kTail(L, ν, T) = pfa. */
export function kMultiplier(looks: number, shape: number, pfa: number): number {
  return solveTail((t) => kTail(looks, shape, t), pfa, 1, 2, true);
}

/**
 * CFAR multiplier for the K model as a function of the texture shape ν, tabulated on a
 * log grid of ν and interpolated linearly in ln ν. Above the grid (ν → ∞) it tends to the
 * gamma multiplier; below the grid it is held at the smallest ν (the heaviest tail kept).
 */
export class KMultiplierTable {
  readonly looks: number;
  readonly pfa: number;
  readonly minShape: number;
  readonly maxShape: number;
  readonly gamma: number;
  private readonly lnMin: number;
  private readonly step: number;
  private readonly values: Float64Array;

  /**
   * `stored`: the table's multipliers and gamma limit as this constructor computed them for the
   * same (looks, PFA) with the default grid (kTables.ts), taken instead of computing them.
   */
  constructor(looks: number, pfa: number, options: { minShape?: number; maxShape?: number; points?: number; stored?: StoredKTable } = {}) {
    this.looks = looks;
    this.pfa = pfa;
    this.minShape = options.minShape ?? 0.3;
    this.maxShape = options.maxShape ?? 300;
    const points = options.points ?? 40;
    this.lnMin = Math.log(this.minShape);
    this.step = (Math.log(this.maxShape) - this.lnMin) / (points - 1);
    const stored = options.stored;
    if (stored && (stored.values.length !== points || options.minShape !== undefined || options.maxShape !== undefined)) throw new RangeError('KMultiplierTable: a stored table has the default grid');
    this.values = stored ? Float64Array.from(stored.values) : new Float64Array(points);
    if (!stored) for (let i = 0; i < points; i++) this.values[i] = kMultiplier(looks, Math.exp(this.lnMin + i * this.step), pfa);
    this.gamma = stored ? stored.gamma : gammaMultiplier(looks, pfa);
  }

  /** The computed multipliers and gamma limit (what kTables.ts stores). */
  stored(): StoredKTable {
    return { values: Array.from(this.values), gamma: this.gamma };
  }

  /**
   * Multiplier as a function of the excess e = 1/ν (0: pure speckle), tabulated uniformly in e
   * so the per-pixel lookup is one multiply and one interpolation, no logarithm.
   */
  excessLookup(steps = 2048): { table: Float64Array; scale: number; maxExcess: number } {
    const maxExcess = 1 / this.minShape;
    const table = new Float64Array(steps + 1);
    for (let i = 0; i <= steps; i++) {
      const e = (i / steps) * maxExcess;
      table[i] = this.multiplier(e > 0 ? 1 / e : Infinity);
    }
    return { table, scale: steps / maxExcess, maxExcess };
  }

  /** Multiplier for texture shape ν (Infinity or NaN: pure speckle). */
  multiplier(shape: number): number {
    if (!(shape < this.maxShape)) {
      // Between the last tabulated ν and ∞, blend towards the gamma limit in 1/ν.
      if (!Number.isFinite(shape) || Number.isNaN(shape)) return this.gamma;
      const last = this.values[this.values.length - 1]!;
      const f = this.maxShape / shape;
      return this.gamma + (last - this.gamma) * f;
    }
    const x = (Math.log(Math.max(shape, this.minShape)) - this.lnMin) / this.step;
    const i = Math.min(this.values.length - 2, Math.floor(x));
    const f = x - i;
    return this.values[i]! * (1 - f) + this.values[i + 1]! * f;
  }
}

/** The key of a (looks, PFA) table in kMultiplierTable's cache and in kTables.ts. */
export const kTableKey = (looks: number, pfa: number): string => `${looks}|${pfa}`;

const kTables = new Map<string, KMultiplierTable>();

/**
 * Cached per (looks, PFA): each worker thread builds it once (≈ 0.2 CPU s), or takes the
 * stored numbers of the default settings (kTables.ts, the same bits).
 */
export function kMultiplierTable(looks: number, pfa: number): KMultiplierTable {
  const key = kTableKey(looks, pfa);
  let table = kTables.get(key);
  if (!table) {
    const stored = STORED_K_TABLES[key];
    table = new KMultiplierTable(looks, pfa, stored ? { stored } : {});
    kTables.set(key, table);
  }
  return table;
}
