/** Linear power (σ0, β0, γ0) → decibels. 0 maps to -Infinity, as it should. */
export function linearToDb(value: number): number {
  return 10 * Math.log10(value);
}

export function dbToLinear(db: number): number {
  return Math.pow(10, db / 10);
}

/**
 * Element-wise linear → dB. Pixels where `valid` is 0 are written as NaN so that a
 * forgotten mask shows up instead of passing as a very dark pixel.
 */
export function linearToDbArray(
  values: Float32Array,
  valid?: Uint8Array,
  out: Float32Array = new Float32Array(values.length),
): Float32Array {
  for (let i = 0; i < values.length; i++) {
    out[i] = valid && valid[i] === 0 ? Number.NaN : 10 * Math.log10(values[i]!);
  }
  return out;
}

export function dbToLinearArray(
  values: Float32Array,
  valid?: Uint8Array,
  out: Float32Array = new Float32Array(values.length),
): Float32Array {
  for (let i = 0; i < values.length; i++) {
    out[i] = valid && valid[i] === 0 ? Number.NaN : Math.pow(10, values[i]! / 10);
  }
  return out;
}
