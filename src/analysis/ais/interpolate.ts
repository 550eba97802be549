/**
 * Each vessel's position at the acquisition time, from its AIS fixes: between the two fixes
 * that bracket the time (geodesic interpolation at the time's fraction), else dead reckoning
 * from the nearest fix along its course over ground at its speed over ground (a fix without
 * sog/cog stays where it was reported). Fixes further than `maxFixAgeS` from the time are
 * not used: a vessel with none near enough has no position.
 */
import geodesic from 'geographiclib-geodesic';
import type { AisFix } from './fix.ts';

const WGS84 = geodesic.Geodesic.WGS84;
const KNOT_MS = 1852 / 3600;

/** Fixes older or newer than this (s) do not place a vessel. */
export const DEFAULT_MAX_FIX_AGE_S = 1800;

export interface InterpolateOptions {
  maxFixAgeS?: number;
}

export interface AisVessel {
  mmsi: string;
  lon: number;
  lat: number;
  /** Reported length (m), the last one given; null when none. */
  length: number | null;
  /** How the position was found. */
  method: 'interpolated' | 'dead_reckoned' | 'reported';
  /** Seconds between the acquisition and the nearest fix used. */
  fixAgeS: number;
  sog: number | null;
  cog: number | null;
}

export function vesselsAt(fixes: readonly AisFix[], tMs: number, opts: InterpolateOptions = {}): AisVessel[] {
  const maxAgeMs = (opts.maxFixAgeS ?? DEFAULT_MAX_FIX_AGE_S) * 1000;
  const byVessel = new Map<string, AisFix[]>();
  for (const f of fixes) {
    if (Math.abs(f.t - tMs) > maxAgeMs) continue;
    const list = byVessel.get(f.mmsi);
    if (list) list.push(f);
    else byVessel.set(f.mmsi, [f]);
  }
  const out: AisVessel[] = [];
  for (const [mmsi, list] of [...byVessel].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    list.sort((a, b) => a.t - b.t);
    const length = [...list].reverse().find((f) => f.length !== null)?.length ?? null;
    out.push({ mmsi, length, ...place(list, tMs) });
  }
  return out;
}

function place(list: AisFix[], tMs: number): Omit<AisVessel, 'mmsi' | 'length'> {
  const after = list.findIndex((f) => f.t >= tMs);
  const before = after === -1 ? list.length - 1 : list[after]!.t === tMs ? after : after - 1;
  if (before >= 0 && after >= 0 && before !== after) {
    const a = list[before]!;
    const b = list[after]!;
    const line = WGS84.InverseLine(a.lat, a.lon, b.lat, b.lon);
    const fraction = (tMs - a.t) / (b.t - a.t);
    const p = line.Position(fraction * line.s13);
    const nearest = tMs - a.t <= b.t - tMs ? a : b;
    return { lon: wrapLon(p.lon2!), lat: p.lat2!, method: 'interpolated', fixAgeS: Math.abs(nearest.t - tMs) / 1000, sog: nearest.sog, cog: nearest.cog };
  }
  const f = list[after === -1 ? list.length - 1 : after]!;
  const dtS = (tMs - f.t) / 1000;
  if (f.sog === null || f.cog === null || f.sog === 0 || dtS === 0) {
    return { lon: f.lon, lat: f.lat, method: 'reported', fixAgeS: Math.abs(dtS), sog: f.sog, cog: f.cog };
  }
  // Backwards in time is the same course at negative distance.
  const p = WGS84.Direct(f.lat, f.lon, f.cog, f.sog * KNOT_MS * dtS);
  return { lon: wrapLon(p.lon2!), lat: p.lat2!, method: 'dead_reckoned', fixAgeS: Math.abs(dtS), sog: f.sog, cog: f.cog };
}

function wrapLon(lon: number): number {
  return ((((lon + 180) % 360) + 360) % 360) - 180;
}
