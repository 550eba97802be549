/**
 * Orbit arithmetic for the Sentinel-1 reference orbit: 175 orbits in a 12-day repeat cycle,
 * inclination 98.18°. docs/catalog.md gives the sources of every constant here.
 */
import type { AoiGeometry, Position } from '../geo/types.ts';
import type { AlongTrackFrame, Mission, OrbitDirection } from './types.ts';

export const ORBITS_PER_CYCLE = 175;
export const REPEAT_CYCLE_DAYS = 12;
/** Nodal period: 12 days / 175 orbits = 5924.571 s. */
export const ORBIT_PERIOD_S = (REPEAT_CYCLE_DAYS * 86_400) / ORBITS_PER_CYCLE;
export const INCLINATION_DEG = 98.18;

/** Sentinel-1C left its first orbital slot for the 6-day S1C/S1D constellation during
 *  9–23 June 2026 (operations suspended); acquisitions before this instant use the old
 *  offset, after it the new one. Midpoint of the suspension, so no real product is near it. */
export const S1C_RECONFIGURATION = new Date('2026-06-16T00:00:00Z');

/**
 * Offset k of `relative = ((absolute − k) mod 175) + 1`, per platform (and, for S1C, epoch).
 * S1A 73 and S1B 27 are ESA's; S1C 172 (before the reconfiguration) is MintPy's and ASF's;
 * S1C 99 (after) and S1D 42 were derived from published products: see docs/catalog.md.
 */
export function relativeOrbitOffset(mission: Mission, at: Date): number {
  switch (mission) {
    case 'S1A':
      return 73;
    case 'S1B':
      return 27;
    case 'S1C':
      return at.getTime() < S1C_RECONFIGURATION.getTime() ? 172 : 99;
    case 'S1D':
      return 42;
  }
}

/** Relative orbit (1..175) of an absolute orbit number. `at` is the acquisition time. */
export function relativeOrbitFromAbsolute(mission: Mission, absoluteOrbit: number, at: Date): number {
  if (!Number.isInteger(absoluteOrbit) || absoluteOrbit < 1) {
    throw new RangeError(`absolute orbit must be a positive integer, got ${absoluteOrbit}`);
  }
  const k = relativeOrbitOffset(mission, at);
  return ((((absoluteOrbit - k) % ORBITS_PER_CYCLE) + ORBITS_PER_CYCLE) % ORBITS_PER_CYCLE) + 1;
}

/**
 * Ascending-node crossings read from real manifests (`s1:ascendingNodeTime`,
 * `safe:orbitNumber`) of the repository's samples/. Used only to estimate the absolute orbit
 * of products whose metadata lacks it; the drift between references is under a minute.
 */
const ANX_REFERENCES: Partial<Record<Mission, { orbit: number; anx: string }[]>> = {
  S1A: [
    { orbit: 4454, anx: '2015-02-03T03:52:25.094Z' },
    { orbit: 36201, anx: '2021-01-19T02:22:31.388Z' },
    { orbit: 43633, anx: '2022-06-12T17:19:35.493Z' },
  ],
  S1B: [{ orbit: 30148, anx: '2021-12-23T04:33:35.556Z' }],
};

/**
 * Estimated absolute orbit at an instant, from the nearest reference ascending-node
 * crossing and the nodal period; null for platforms without a reference (S1C, S1D).
 * Off by one only within about a minute of an ascending node crossing.
 */
export function estimateAbsoluteOrbit(mission: Mission, at: Date): number | null {
  const refs = ANX_REFERENCES[mission];
  if (!refs || refs.length === 0) return null;
  let best = refs[0]!;
  for (const r of refs) {
    if (Math.abs(Date.parse(r.anx) - at.getTime()) < Math.abs(Date.parse(best.anx) - at.getTime())) best = r;
  }
  const elapsed = (at.getTime() - Date.parse(best.anx)) / 1000;
  const orbit = best.orbit + Math.floor(elapsed / ORBIT_PERIOD_S);
  return orbit >= 1 ? orbit : null;
}

const DEG = Math.PI / 180;

/**
 * Argument of latitude (degrees, [0, 360)) of a point at latitude `lat` on a pass of the
 * given direction: ascending passes run u ∈ (−90, 90) (stored +360 when negative),
 * descending ones u ∈ (90, 270). Latitudes beyond the inclination's turning latitude clamp
 * to u = 90 (north) or 270 (south).
 */
export function argumentOfLatitudeDeg(lat: number, direction: OrbitDirection): number {
  const s = Math.max(-1, Math.min(1, Math.sin(lat * DEG) / Math.sin(INCLINATION_DEG * DEG)));
  const asc = Math.asin(s) / DEG; // −90..90
  const u = direction === 'ascending' ? asc : 180 - asc;
  return ((u % 360) + 360) % 360;
}

function footprintLatitudes(geom: AoiGeometry): number[] {
  const lats: number[] = [];
  const rings: Position[][] = geom.type === 'Polygon' ? geom.coordinates : geom.coordinates.flat();
  for (const ring of rings) for (const p of ring) lats.push(p[1]!);
  return lats;
}

/**
 * The along-track frame of a footprint: the interval of argument of latitude its vertices
 * span. Derived from the footprint alone so that products from every source (SAFE, STAC,
 * RTC) are comparable; the across-track offset of the swath shifts all products of one
 * track alike and does not affect whether two of them overlap.
 */
export function alongTrackFrame(footprint: AoiGeometry, direction: OrbitDirection, burstId?: string): AlongTrackFrame {
  const lats = footprintLatitudes(footprint);
  if (lats.length === 0) throw new RangeError('footprint has no vertices');
  const minLat = Math.min(...lats);
  const maxLat = Math.max(...lats);
  // Ascending passes travel south → north, descending ones north → south.
  const a = argumentOfLatitudeDeg(direction === 'ascending' ? minLat : maxLat, direction);
  const b = argumentOfLatitudeDeg(direction === 'ascending' ? maxLat : minLat, direction);
  const startDeg = round6(a);
  let endDeg = round6(b);
  if (endDeg < startDeg) endDeg += 360; // crosses the ascending node
  const frame: AlongTrackFrame = { startDeg, endDeg };
  if (burstId) frame.burstId = burstId;
  return frame;
}

/** Whether two along-track intervals share at least `minOverlapDeg` of the circle. */
export function alongTrackOverlapDeg(a: AlongTrackFrame, b: AlongTrackFrame): number {
  let best = -Infinity;
  for (const shift of [-360, 0, 360]) {
    const lo = Math.max(a.startDeg, b.startDeg + shift);
    const hi = Math.min(a.endDeg, b.endDeg + shift);
    best = Math.max(best, hi - lo);
  }
  return best;
}

/**
 * Orbit direction from local mean solar time, for products whose metadata does not say:
 * Sentinel-1's ascending node is at 18:00 local time and its descending node at 06:00, so
 * an acquisition in the local afternoon/evening half of the day is ascending. Reliable away
 * from the poles (|lat| < 70°), where the local time of the track stays within ±3 h of the node.
 */
export function orbitDirectionFromLocalTime(at: Date, lon: number): OrbitDirection {
  const utcHours = at.getUTCHours() + at.getUTCMinutes() / 60 + at.getUTCSeconds() / 3600;
  const local = (((utcHours + lon / 15) % 24) + 24) % 24;
  return local >= 12 ? 'ascending' : 'descending';
}

function round6(x: number): number {
  return Math.round(x * 1e6) / 1e6;
}
