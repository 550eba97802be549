// What the matcher reads of an AIS upload (src/uploads/aisCsv.ts writes it).

/** One AIS position report, normalised. */
export interface AisFix {
  mmsi: string;
  /** Milliseconds since the epoch (UTC). */
  t: number;
  lat: number;
  lon: number;
  /** Speed over ground, knots; null when absent or "not available" (102.3). */
  sog: number | null;
  /** Course over ground, degrees 0–360; null when absent or "not available" (360). */
  cog: number | null;
  /** True heading, degrees 0–359; null when absent or "not available" (511). */
  heading: number | null;
  /** Length overall, metres; null when absent or 0. */
  length: number | null;
}
