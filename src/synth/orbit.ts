/**
 * Sentinel-1 orbit bookkeeping for synthetic products, so that names, manifests and OPERA
 * burst ids are mutually consistent and match the real constellation's numbering:
 * absolute ↔ relative orbit, ascending-node (ANX) times, acquisition times of one track
 * every 12 days, platform heading and OPERA burst ids.
 *
 * The reference node crossings are read from the real manifests in samples/s1
 * (the same ones src/catalog/orbit.ts uses); the repeat cycle is 175 orbits in 12 days.
 * src/synth may not import src/catalog, so the few formulas are restated here.
 */

export type SynthMission = 'S1A' | 'S1B';
export type PassDirection = 'ascending' | 'descending';

export const ORBITS_PER_CYCLE = 175;
export const REPEAT_DAYS = 12;
/** Nodal period: 12 d / 175 = 5924.571 s. */
export const ORBIT_PERIOD_S = (REPEAT_DAYS * 86_400) / ORBITS_PER_CYCLE;
export const INCLINATION_DEG = 98.18;
/** OPERA / ESA burst cycle: one IW burst every 2.758273 s along the orbit. */
export const BURST_PERIOD_S = 2.758273;
/** Mean orbit altitude above the ellipsoid used for the imaging geometry (m). */
export const ORBIT_ALTITUDE_M = 698_000;
export const EARTH_RADIUS_M = 6_371_000;
/** C-band centre frequency (Hz) and wavelength (m). */
export const RADAR_FREQUENCY_HZ = 5.405000454334350e9;
export const SPEED_OF_LIGHT = 299_792_458;
export const WAVELENGTH_M = SPEED_OF_LIGHT / RADAR_FREQUENCY_HZ;

interface Reference {
  orbit: number;
  anx: number; // ms
  /** k in relative = ((absolute − k) mod 175) + 1 */
  offset: number;
  /** Mission data-take id of the reference product, for plausible data-take numbers. */
  dataTake: number;
}

const REFERENCES: Record<SynthMission, Reference> = {
  // S1A_IW_GRDH_1SDV_20220612T173329_…_043633_05359A: ANX 2022-06-12T17:19:35.492551, data take 341402.
  S1A: { orbit: 43633, anx: Date.parse('2022-06-12T17:19:35.493Z'), offset: 73, dataTake: 0x05359a },
  // S1B_IW_GRDH_1SDV_20211223T051122_…_030148_039993: ANX 2021-12-23T04:33:35.556.
  S1B: { orbit: 30148, anx: Date.parse('2021-12-23T04:33:35.556Z'), offset: 27, dataTake: 0x039993 },
};

export function relativeOrbit(mission: SynthMission, absoluteOrbit: number): number {
  const k = REFERENCES[mission].offset;
  return ((((absoluteOrbit - k) % ORBITS_PER_CYCLE) + ORBITS_PER_CYCLE) % ORBITS_PER_CYCLE) + 1;
}

/** Time of the ascending-node crossing that starts an absolute orbit. */
export function anxTime(mission: SynthMission, absoluteOrbit: number): Date {
  const ref = REFERENCES[mission];
  return new Date(ref.anx + (absoluteOrbit - ref.orbit) * ORBIT_PERIOD_S * 1000);
}

/** The absolute orbit flown at a time (the last ANX at or before it). */
export function absoluteOrbitAt(mission: SynthMission, time: Date): number {
  const ref = REFERENCES[mission];
  return ref.orbit + Math.floor((time.getTime() - ref.anx) / (ORBIT_PERIOD_S * 1000));
}

/** A plausible mission data-take id for an orbit (they grow by ~7.8 per orbit). */
export function dataTakeId(mission: SynthMission, absoluteOrbit: number, salt = 0): number {
  const ref = REFERENCES[mission];
  return (ref.dataTake + Math.round((absoluteOrbit - ref.orbit) * 7.82) + (salt % 5)) & 0xffffff;
}

/**
 * Argument of latitude (degrees from the ascending node) where the sub-satellite point
 * reaches a latitude on the given pass.
 */
export function argumentOfLatitude(latDeg: number, pass: PassDirection): number {
  const s = Math.sin((latDeg * Math.PI) / 180) / Math.sin((INCLINATION_DEG * Math.PI) / 180);
  const u = (Math.asin(Math.max(-1, Math.min(1, s))) * 180) / Math.PI;
  if (pass === 'ascending') return u < 0 ? u + 360 : u;
  return 180 - u;
}

/** Seconds after the ascending node at which a pass reaches a latitude. */
export function secondsAfterAnx(latDeg: number, pass: PassDirection): number {
  return (argumentOfLatitude(latDeg, pass) / 360) * ORBIT_PERIOD_S;
}

/**
 * Platform heading (degrees from north, clockwise, in −180…180) of the ground track at a
 * latitude: the inertial track azimuth, asin(cos i / cos φ), with the Earth's rotation
 * taken off the ground velocity. Gives −15.4° ascending at 51° N (the real North-Sea
 * product says −15.36°).
 */
export function platformHeading(latDeg: number, pass: PassDirection): number {
  const phi = (latDeg * Math.PI) / 180;
  const ratio = Math.cos((INCLINATION_DEG * Math.PI) / 180) / Math.max(Math.cos(phi), 1e-6);
  const inertial = Math.asin(Math.max(-1, Math.min(1, ratio)));
  const azimuth = pass === 'ascending' ? inertial : Math.PI - inertial;
  const groundSpeed = 6800; // m/s, sub-satellite speed
  const earthSurface = 465.1 * Math.cos(phi); // m/s eastward
  const vn = groundSpeed * Math.cos(azimuth);
  const ve = groundSpeed * Math.sin(azimuth) - earthSurface;
  return (Math.atan2(ve, vn) * 180) / Math.PI;
}

/** ESA/OPERA burst id: 1 + ⌊(Δt_ANX + (track − 1)·T_orbit) / T_burst⌋ (checked against real OPERA ids). */
export function burstIdNumber(track: number, secondsSinceAnx: number): number {
  return 1 + Math.floor((secondsSinceAnx + (track - 1) * ORBIT_PERIOD_S) / BURST_PERIOD_S);
}

export interface TrackAcquisition {
  time: Date;
  absoluteOrbit: number;
  relativeOrbit: number;
  anx: Date;
}

/**
 * The acquisitions of one track over a latitude, every 12 days: the first at or after
 * `from` (a date or time), then `count − 1` more. Times are ANX + the along-orbit time to
 * the latitude, so consecutive dates are exactly 12 days apart, as a repeat orbit is.
 */
export function trackAcquisitions(
  mission: SynthMission,
  track: number,
  pass: PassDirection,
  latDeg: number,
  from: Date,
  count: number,
  intervalDays = REPEAT_DAYS,
): TrackAcquisition[] {
  if (!Number.isInteger(track) || track < 1 || track > ORBITS_PER_CYCLE) throw new RangeError(`track ${track} is outside 1..175`);
  if (intervalDays % REPEAT_DAYS !== 0) throw new RangeError(`interval ${intervalDays} d is not a multiple of the 12-day repeat`);
  const dt = secondsAfterAnx(latDeg, pass) * 1000;
  let orbit = absoluteOrbitAt(mission, from);
  // Step to the orbit of this track whose acquisition is at or after `from`.
  orbit += (((track - relativeOrbit(mission, orbit)) % ORBITS_PER_CYCLE) + ORBITS_PER_CYCLE) % ORBITS_PER_CYCLE;
  while (anxTime(mission, orbit).getTime() + dt < from.getTime()) orbit += ORBITS_PER_CYCLE;
  while (anxTime(mission, orbit - ORBITS_PER_CYCLE).getTime() + dt >= from.getTime()) orbit -= ORBITS_PER_CYCLE;
  const step = (intervalDays / REPEAT_DAYS) * ORBITS_PER_CYCLE;
  const out: TrackAcquisition[] = [];
  for (let i = 0; i < count; i++) {
    const absoluteOrbit = orbit + i * step;
    const anx = anxTime(mission, absoluteOrbit);
    out.push({ time: new Date(anx.getTime() + dt), absoluteOrbit, relativeOrbit: track, anx });
  }
  return out;
}

/** `20240613T173329` (UTC, seconds truncated), as in product names. */
export function compactUtc(d: Date): string {
  return d.toISOString().replace(/[-:]/g, '').slice(0, 15);
}

/** `2024-06-13T17:33:29.384150` (UTC, microseconds, no zone), as in SAFE XML. */
export function safeTime(d: Date, extraMicros = 0): string {
  const iso = d.toISOString(); // …ss.mmmZ
  const micros = String(d.getUTCMilliseconds() * 1000 + extraMicros).padStart(6, '0');
  return `${iso.slice(0, 19)}.${micros}`;
}

export function addSeconds(d: Date, s: number): Date {
  return new Date(d.getTime() + s * 1000);
}

export function addDays(d: Date, days: number): Date {
  return new Date(d.getTime() + days * 86_400_000);
}

export function isoDay(d: Date): string {
  return d.toISOString().slice(0, 10);
}
