/**
 * CMOD5.N, the C-band VV geophysical model function for equivalent-neutral 10 m wind
 * (Hersbach 2010, J. Atmos. Oceanic Technol. 27, 721–736; functional form of CMOD5:
 * Hersbach, Stoffelen & de Haan 2007, JGR 112, C03006). The oil-slick detector uses it for
 * one thing: how dark the sea itself is at a given wind speed and incidence angle, so that
 * "the background is calm" can be judged at every incidence angle, not with one dB number.
 *
 * It lives in src/imagery because both sides need the one model: src/synth renders sea with
 * it, src/analysis/oilslick judges calm backgrounds with it (analysis may not import synth).
 */

// Coefficients c1 … c28 as published; index 0 unused so the numbering matches the paper.
const C = [
  0, -0.6878, -0.7957, 0.338, -0.1728, 0, 0.004, 0.1103, 0.0159, 6.7329, 2.7713, -2.2885, 0.4971, -0.725, 0.045, 0.0066, 0.3222,
  0.012, 22.7, 2.0813, 3, 8.3659, -3.3428, 1.3236, 6.2437, 2.3893, 0.3249, 4.159, 1.693,
] as const;

/**
 * VV σ0 (linear) for wind speed (m/s), wind direction relative to the radar look direction
 * (degrees; 0 upwind, 90 crosswind) and incidence angle (degrees).
 */
export function cmod5nSigma0(windSpeed: number, relativeDirectionDeg: number, incidenceDeg: number): number {
  const v = Math.max(windSpeed, 0.2);
  const x = (incidenceDeg - 40) / 25;
  const xx = x * x;

  // B0: the isotropic part.
  const a0 = C[1] + C[2] * x + C[3] * xx + C[4] * x * xx;
  const a1 = C[5] + C[6] * x;
  const a2 = C[7] + C[8] * x;
  const gam = C[9] + C[10] * x + C[11] * xx;
  const s0 = C[12] + C[13] * x;
  const s = a2 * v;
  const sigmoid = (t: number): number => 1 / (1 + Math.exp(-t));
  const a3 = s < s0 ? sigmoid(s0) * Math.pow(s / s0, s0 * (1 - sigmoid(s0))) : sigmoid(s);
  const b0 = Math.pow(a3, gam) * Math.pow(10, a0 + a1 * v);

  // B1: upwind/downwind asymmetry.
  const b1 = (C[14] * (1 + x) - C[15] * v * (0.5 + x - Math.tanh(4 * (x + C[16] + C[17] * v)))) / (Math.exp(0.34 * (v - C[18])) + 1);

  // B2: upwind/crosswind modulation.
  const v0 = C[21] + C[22] * x + C[23] * xx;
  const d1 = C[24] + C[25] * x + C[26] * xx;
  const d2 = C[27] + C[28] * x;
  const y0 = C[19];
  const pn = C[20];
  let y = v / v0 + 1;
  if (y < y0) y = y0 - (y0 - 1) / pn + (1 / (pn * Math.pow(y0 - 1, pn - 1))) * Math.pow(y - 1, pn);
  const b2 = (-d1 + d2 * y) * Math.exp(-y);

  const phi = (relativeDirectionDeg * Math.PI) / 180;
  return b0 * Math.pow(Math.max(0, 1 + b1 * Math.cos(phi) + b2 * Math.cos(2 * phi)), 1.6);
}
