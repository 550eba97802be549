/**
 * How dark calm sea is, from CMOD5.N (src/imagery/cmod5n.ts): the oil-slick detector's test
 * of "the background is calm" at every incidence angle, not with one dB number.
 */
import { cmod5nSigma0 } from '../../imagery/cmod5n.ts';

export { cmod5nSigma0 };

/**
 * The darkest σ0 (dB) open sea has at `windSpeed` and this incidence: crosswind, where CMOD5.N
 * is lowest. A background darker than this has less wind than `windSpeed` whatever its
 * direction. At 3 m/s: −17.8 dB at 30°, −21.5 dB at 35°, −24.3 dB at 40°, −26.6 dB at 45°.
 */
export function lowWindSigma0Db(incidenceDeg: number, windSpeed: number): number {
  return 10 * Math.log10(cmod5nSigma0(windSpeed, 90, incidenceDeg));
}
