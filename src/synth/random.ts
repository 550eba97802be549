/**
 * Seeded pseudo-random numbers for synthetic products: xoshiro128** (Blackman & Vigna,
 * "Scrambled linear pseudorandom number generators", 2018) seeded through splitmix32.
 *
 * Everything is 32-bit integer arithmetic (Math.imul, >>> 0), so a seed gives the same
 * sequence on every platform and Node version. Normal and gamma samples also use
 * Math.log/sqrt/cos, which V8 implements with its own fdlibm port (not the C library), so
 * they too are the same everywhere V8 runs.
 *
 * Streams: `new Random(seed, 'speckle-vv')` and `new Random(seed, 'ships')` are independent
 * sequences of one seed, so adding a consumer of one stream never shifts another.
 */

const TWO_POW_32 = 4294967296;
const INV_TWO_POW_32 = 1 / TWO_POW_32;

/** FNV-1a over the UTF-16 code units of a string: a 32-bit seed from a label. */
export function hashString(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** murmur3's 32-bit finaliser: a bijective mix with good avalanche. */
export function mix32(x: number): number {
  x = Math.imul(x ^ (x >>> 16), 0x85ebca6b);
  x = Math.imul(x ^ (x >>> 13), 0xc2b2ae35);
  return (x ^ (x >>> 16)) >>> 0;
}

/** One 32-bit seed from any mix of numbers and labels (order matters). */
export function hashSeed(...parts: (number | string)[]): number {
  let h = 0x9e3779b9;
  for (const p of parts) {
    if (typeof p === 'string') {
      h = mix32(h ^ hashString(p));
    } else {
      // Doubles: fold the integer part (both 32-bit halves) and a fixed-point fraction.
      const whole = Math.floor(p);
      const lo = whole >>> 0;
      const hi = Math.floor(whole / TWO_POW_32) >>> 0;
      const frac = Math.floor((p - whole) * TWO_POW_32) >>> 0;
      h = mix32(h ^ lo);
      h = mix32(h ^ hi ^ 0x27d4eb2f);
      h = mix32(h ^ frac ^ 0x165667b1);
    }
  }
  return h;
}

/**
 * Stateless lattice hash → [0, 1): the same (x, y, seed) always gives the same value,
 * whatever order pixels are visited in. Used for static textures (land, urban) that must
 * be identical in two acquisitions of the same place.
 */
export function latticeUniform(x: number, y: number, seed: number): number {
  let h = mix32((Math.imul(x | 0, 0x27d4eb2f) ^ seed) >>> 0);
  h = mix32((h ^ Math.imul(y | 0, 0x165667b1)) >>> 0);
  return h * INV_TWO_POW_32;
}

export class Random {
  private a: number;
  private b: number;
  private c: number;
  private d: number;
  private spareNormal = 0;
  private hasSpare = false;

  constructor(seed: number | string, stream: number | string = 0) {
    let s = hashSeed(typeof seed === 'string' ? hashString(seed) : seed, stream);
    // splitmix32 expands the 32-bit seed into the 128-bit state (never all zero).
    const next = (): number => {
      s = (s + 0x9e3779b9) >>> 0;
      let z = s;
      z = Math.imul(z ^ (z >>> 16), 0x21f0aaad);
      z = Math.imul(z ^ (z >>> 15), 0x735a2d97);
      return (z ^ (z >>> 15)) >>> 0;
    };
    this.a = next();
    this.b = next();
    this.c = next();
    this.d = next();
    if ((this.a | this.b | this.c | this.d) === 0) this.d = 1;
  }

  /** A new generator for a named sub-stream, derived from this one's current state. */
  fork(stream: number | string): Random {
    return new Random(hashSeed(this.a, this.b, this.c, this.d), stream);
  }

  /** Uniform 32-bit unsigned integer (xoshiro128**). */
  nextUint32(): number {
    const result = Math.imul(rotl(Math.imul(this.b, 5), 7), 9) >>> 0;
    const t = this.b << 9;
    this.c ^= this.a;
    this.d ^= this.b;
    this.b ^= this.c;
    this.a ^= this.d;
    this.c ^= t;
    this.d = rotl(this.d, 11);
    return result;
  }

  /** Uniform in [0, 1), 32-bit resolution. */
  uniform(): number {
    return this.nextUint32() * INV_TWO_POW_32;
  }

  /** Uniform in (0, 1): safe for log(). */
  uniformOpen(): number {
    return (this.nextUint32() + 0.5) * INV_TWO_POW_32;
  }

  /** Uniform in [lo, hi). */
  range(lo: number, hi: number): number {
    return lo + (hi - lo) * this.uniform();
  }

  /** Integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.uniform() * n);
  }

  /** Pick one element. */
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }

  /** Standard normal (Box–Muller; the second value of each pair is kept for the next call). */
  normal(): number {
    if (this.hasSpare) {
      this.hasSpare = false;
      return this.spareNormal;
    }
    const r = Math.sqrt(-2 * Math.log(this.uniformOpen()));
    const phi = 2 * Math.PI * this.uniform();
    this.spareNormal = r * Math.sin(phi);
    this.hasSpare = true;
    return r * Math.cos(phi);
  }

  /**
   * Gamma(shape, scale) by Marsaglia & Tsang (2000), "A simple method for generating gamma
   * variables"; shape < 1 through the boost Gamma(a) = Gamma(a + 1) · U^(1/a).
   */
  gamma(shape: number, scale = 1): number {
    if (!(shape > 0)) throw new RangeError(`gamma shape must be > 0, got ${shape}`);
    if (shape < 1) return this.gamma(shape + 1, scale) * Math.pow(this.uniformOpen(), 1 / shape);
    const d = shape - 1 / 3;
    const c = 1 / Math.sqrt(9 * d);
    for (;;) {
      let x: number;
      let v: number;
      do {
        x = this.normal();
        v = 1 + c * x;
      } while (v <= 0);
      v = v * v * v;
      const u = this.uniformOpen();
      const x2 = x * x;
      if (u < 1 - 0.0331 * x2 * x2) return d * v * scale;
      if (Math.log(u) < 0.5 * x2 + d * (1 - v + Math.log(v))) return d * v * scale;
    }
  }

  /**
   * Bulk draw for SpeckleSampler: out[i] = interpolated quantile table lookup, with the
   * xoshiro state held in locals for the loop (the per-sample method calls cost 3×).
   * Returns the indices whose draw fell in the top table interval (the tail) by writing
   * NaN there; the caller replaces those.
   */
  fillFromQuantileTable(out: Float32Array | Float64Array, from: number, to: number, table: Float64Array): void {
    let a = this.a;
    let b = this.b;
    let c = this.c;
    let d = this.d;
    const top = table.length - 2;
    for (let i = from; i < to; i++) {
      const u = Math.imul(rotl(Math.imul(b, 5), 7), 9) >>> 0;
      const t = b << 9;
      c ^= a;
      d ^= b;
      b ^= c;
      a ^= d;
      c ^= t;
      d = (d << 11) | (d >>> 21);
      const k = u >>> 16;
      if (k === top) {
        out[i] = Number.NaN;
        continue;
      }
      const lo = table[k]!;
      out[i] = lo + (u & 0xffff) * (1 / 65536) * (table[k + 1]! - lo);
    }
    this.a = a;
    this.b = b;
    this.c = c;
    this.d = d;
  }

  /** Exponential with mean 1. */
  exponential(): number {
    return -Math.log(this.uniformOpen());
  }
}

function rotl(x: number, k: number): number {
  return (x << k) | (x >>> (32 - k));
}

/** Entries of the speckle quantile table: u's top 16 bits pick the interval, the low 16 interpolate. */
const TABLE_BITS = 16;
const TABLE_SIZE = 1 << TABLE_BITS;
const quantileTables = new Map<number, { table: Float64Array; tail: number }>();

/**
 * Quantile function of Gamma(L, 1/L) at u = k / 2¹⁶ (k = 0 … 2¹⁶), by inverting the CDF,
 * which is integrated (Simpson) from the density on a fine grid. Beyond the last entry
 * (probability 2⁻¹⁶) samples come from the exact conditional tail, so the extreme values
 * that CFAR false-alarm rates depend on are right.
 */
function speckleQuantiles(looks: number): { table: Float64Array; tail: number } {
  const cached = quantileTables.get(looks);
  if (cached) return cached;
  const L = looks;
  // log density of Gamma(shape L, rate L): L ln L + (L−1) ln x − L x − lnΓ(L)
  const logNorm = L * Math.log(L) - logGamma(L);
  const density = (x: number): number => (x <= 0 ? 0 : Math.exp(logNorm + (L - 1) * Math.log(x) - L * x));
  const xMax = 1 + 40 / Math.sqrt(L); // far beyond the 1 − 2⁻¹⁶ quantile
  const steps = 1 << 20;
  const h = xMax / steps;
  const table = new Float64Array(TABLE_SIZE + 1);
  let k = 1;
  let cdf = 0;
  let fa = density(0);
  for (let i = 0; i < steps && k < TABLE_SIZE; i++) {
    const x0 = i * h;
    const fm = density(x0 + h / 2);
    const fb = density(x0 + h);
    const next = cdf + (h / 6) * (fa + 4 * fm + fb);
    while (k < TABLE_SIZE && next >= k / TABLE_SIZE) {
      // Linear inside one fine step: the step is far smaller than the table spacing.
      const target = k / TABLE_SIZE;
      table[k] = x0 + (h * (target - cdf)) / (next - cdf);
      k++;
    }
    cdf = next;
    fa = fb;
  }
  if (k < TABLE_SIZE) throw new Error(`speckle quantile table for L = ${looks} did not converge`);
  // The top interval is not interpolated: beyond the 1 − 2⁻¹⁶ quantile samples come from the exact tail.
  const tail = table[TABLE_SIZE - 1]!;
  table[TABLE_SIZE] = tail;
  const result = { table, tail };
  quantileTables.set(looks, result);
  return result;
}

/** ln Γ(x) for x > 0 (Lanczos, g = 7, n = 9; ~15 digits). */
export function logGamma(x: number): number {
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x);
  const g = 7;
  const c = [
    0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
    12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
  ];
  x -= 1;
  let a = c[0]!;
  const t = x + g + 0.5;
  for (let i = 1; i < g + 2; i++) a += c[i]! / (x + i);
  return 0.5 * Math.log(2 * Math.PI) + (x + 0.5) * Math.log(t) - t + Math.log(a);
}

/**
 * Multiplicative speckle for multi-looked intensity: Gamma(L, 1/L), mean 1, variance 1/L,
 * so L is the equivalent number of looks. A full IW scene needs ~10⁹ samples, so samples
 * come from a 2¹⁶-entry quantile table (one 32-bit draw and one interpolation each, ~10×
 * faster than Marsaglia–Tsang) with the top 2⁻¹⁶ of probability drawn from the exact
 * conditional tail. L < 1 falls back to Marsaglia–Tsang.
 */
export class SpeckleSampler {
  private readonly table: Float64Array | null;
  private readonly tail: number;
  private readonly tailRate: number;
  /** Random numbers for the rare tail samples of `fill`. */
  private readonly tailRng: Random;

  constructor(
    private readonly rng: Random,
    readonly looks: number,
  ) {
    this.tailRng = rng.fork('speckle-tail');
    if (!(looks > 0)) throw new RangeError(`looks must be > 0, got ${looks}`);
    if (looks >= 1) {
      const q = speckleQuantiles(looks);
      this.table = q.table;
      this.tail = q.tail;
      // Exponential envelope of the log-concave tail beyond q: rate L − (L − 1)/q.
      this.tailRate = looks - (looks - 1) / q.tail;
    } else {
      this.table = null;
      this.tail = 0;
      this.tailRate = 0;
    }
  }

  /** One sample. `fill` gives the same sequence in bulk. */
  next(): number {
    const table = this.table;
    if (!table) return this.rng.gamma(this.looks, 1 / this.looks);
    const u = this.rng.nextUint32();
    const k = u >>> 16;
    if (k === TABLE_SIZE - 1) return this.sampleTail();
    const f = (u & 0xffff) * (1 / 65536);
    const a = table[k]!;
    return a + f * (table[k + 1]! - a);
  }

  /** X | X > q for X ~ Gamma(L, 1/L): shifted-exponential proposal, exact acceptance. */
  private sampleTail(): number {
    const q = this.tail;
    const L = this.looks;
    for (;;) {
      const y = q + this.tailRng.exponential() / this.tailRate;
      const logAccept = (L - 1) * Math.log(y / q) - (L - this.tailRate) * (y - q);
      if (Math.log(this.tailRng.uniformOpen()) <= logAccept) return y;
    }
  }

  /** Fill `out` with independent speckle samples (the same values `next()` would give, in order). */
  fill(out: Float32Array | Float64Array, from = 0, to = out.length): void {
    if (!this.table) {
      for (let i = from; i < to; i++) out[i] = this.next();
      return;
    }
    // Tail draws need extra random numbers; take them from a side stream so that the bulk
    // loop stays a single pass. (Deterministic: the side stream is part of this sampler.)
    this.rng.fillFromQuantileTable(out, from, to, this.table);
    for (let i = from; i < to; i++) if (out[i] !== out[i]) out[i] = this.sampleTail();
  }
}
