// log10 of a float32 from its bits by a 256-interval table and a short series (the quicklook's
// dB and the ship segmenter's dB over its dark level): a fraction of Math.log10's cost, within
// ~1e-14 of it; callers keep Math.log10 near their own rounding edges. Pure; imports nothing.

const TABLE_BITS = 8;
/** log10 of each mantissa interval's centre 1 + (j + ½) / 256, and the centre's inverse. */
const LOG10_CENTRE = new Float64Array(1 << TABLE_BITS);
const INV_CENTRE = new Float64Array(1 << TABLE_BITS);
for (let j = 0; j < 1 << TABLE_BITS; j++) {
  const c = 1 + (j + 0.5) / (1 << TABLE_BITS);
  LOG10_CENTRE[j] = Math.log10(c);
  INV_CENTRE[j] = 1 / c;
}
const LOG10_2 = Math.log10(2);
const TWO_TO_MINUS_23 = 2 ** -23;
const ONE_THIRD = 1 / 3;

/**
 * log10 of the float32 whose bits are `bits`; NaN for zero, subnormal, infinite, NaN or negative
 * values (the caller then takes Math.log10 itself). A positive normal float32 is 2^e · x, x in
 * [1, 2): log10 = e · log10 2 + log10 c + ln(1 + r) / ln 10, c the centre of x's 1/256 interval,
 * r = x / c − 1 (|r| < 0.002, the series to r⁵ good to ~1e-17). The table and series are good to
 * ~1e-15, the exponent's term to ~4e-15.
 */
export function log10Float32Bits(bits: number): number {
  const ex = bits >>> 23; // sign and exponent: 1 … 254 for a positive normal value
  if (ex < 1 || ex > 254) return Number.NaN;
  const j = (bits >>> 15) & 0xff;
  // x − c over c: x = 1 + mantissa · 2^-23 exactly.
  const r = (1 + (bits & 0x7fffff) * TWO_TO_MINUS_23) * INV_CENTRE[j]! - 1;
  const ln = r * (1 - r * (0.5 - r * (ONE_THIRD - r * (0.25 - r * 0.2))));
  return (ex - 127) * LOG10_2 + (LOG10_CENTRE[j]! + ln * Math.LOG10E);
}
