/**
 * The AIS matcher on OpenSARShip (issue 23 §4): each scene's Ship.xml gives, per chip, the
 * ship's position measured on the image (`Center_longitude/latitude`, the hand-marked centre
 * geolocated by the dataset), the image time (`Time_UTC`) and the matched AIS report (MMSI,
 * time, position, Sog in 0.1 kn, Cog in 0.1°, Length). The scene's AIS reports are placed at
 * the image time (src/analysis/ais interpolate: one fix per ship, so dead reckoning) and
 * assigned one-to-one to the scene's ship positions: figures are the distance from the placed
 * AIS position to the image position (median, 90th percentile) and the share of ships whose
 * own AIS report the assignment gives them. The detector is not run: the image position is
 * the dataset's (the chips are not georeferenced), so the figures measure the matcher and the
 * AIS timing, not the detector's geolocation.
 */
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import { assignDetections, vesselsAt } from '../src/analysis/ais/index.ts';
import type { AisFix } from '../src/analysis/ais/index.ts';
import geodesic from 'geographiclib-geodesic';
import { OPENSARSHIP_DIR, openSarShipAvailable } from './shipChips.ts';
import { table } from './format.ts';

const WGS84 = geodesic.Geodesic.WGS84;

export interface AisChipShip {
  scene: string;
  mmsi: string;
  /** Image time (ms). */
  imageT: number;
  sarLon: number;
  sarLat: number;
  /** Length measured by hand on the image (m). */
  sarLength: number | null;
  fix: AisFix;
}

/** "2016/1/31.10:17:0" (UTC). */
function parseTimeUtc(s: string): number {
  const m = /^(\d{4})\/(\d{1,2})\/(\d{1,2})\.(\d{1,2}):(\d{1,2}):(\d{1,2})$/.exec(s.trim());
  if (!m) return NaN;
  const [, y, mo, d, h, mi, se] = m.map(Number) as number[];
  return Date.UTC(y!, mo! - 1, d!, h!, mi!, se!);
}

export function loadAisChipShips(dir = OPENSARSHIP_DIR): AisChipShip[] {
  const parser = new XMLParser({ parseTagValue: true });
  const out: AisChipShip[] = [];
  for (const scene of readdirSync(dir).filter((d) => d.startsWith('S1')).sort()) {
    const xml = parser.parse(readFileSync(path.join(dir, scene, 'Ship.xml'), 'utf8')) as { ShipList: { ship: unknown[] | unknown } };
    const ships = (Array.isArray(xml.ShipList.ship) ? xml.ShipList.ship : [xml.ShipList.ship]) as Array<{ SARShipInformation: Record<string, number | string>; AISShipInformation: Record<string, number> }>;
    for (const s of ships) {
      const sar = s.SARShipInformation;
      const ais = s.AISShipInformation;
      const imageT = parseTimeUtc(String(sar.Time_UTC));
      if (!Number.isFinite(imageT) || !ais.MMSI) continue;
      const sog = typeof ais.Sog === 'number' && ais.Sog < 1023 ? ais.Sog / 10 : null;
      const cog = typeof ais.Cog === 'number' && ais.Cog < 3600 ? ais.Cog / 10 : null;
      out.push({
        scene,
        mmsi: String(ais.MMSI).padStart(9, '0'),
        imageT,
        sarLon: Number(sar.Center_longitude),
        sarLat: Number(sar.Center_latitude),
        sarLength: Number(sar.Manual_Length) > 0 ? Number(sar.Manual_Length) : null,
        fix: { mmsi: String(ais.MMSI).padStart(9, '0'), t: ais.Time! * 1000, lat: ais.Latitude!, lon: ais.Longitude!, sog, cog, heading: null, length: ais.Length! > 0 ? ais.Length! : null },
      });
    }
  }
  return out;
}

export interface AisChipRow {
  scene: string;
  ships: number;
  /** Distance from the AIS report as reported (not moved) to the image position: median, p90 (m). */
  reportedMedianM: number;
  /** The same from the AIS position placed at the image time. */
  placedMedianM: number;
  placedP90M: number;
  /** Ships under way (sog ≥ 1 kn) and, for them, the median distance as reported and as placed. */
  moving: number;
  movingReportedMedianM: number | null;
  movingPlacedMedianM: number | null;
  /** Median |image time − AIS time| (s). */
  medianFixAgeS: number;
  /** Ships whose own AIS report the one-to-one assignment gives them; wrong: another ship's; dark: none. */
  matched: number;
  wrong: number;
  dark: number;
}

const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor(q * s.length))]! : NaN;
};
const dist = (aLat: number, aLon: number, bLat: number, bLon: number) => WGS84.Inverse(aLat, aLon, bLat, bLon).s12!;

export function evalAisOnOpenSarShip(): AisChipRow[] | { skipped: string } {
  if (!openSarShipAvailable()) return { skipped: 'OpenSARShip development chips not found (development-only data, src/devData.ts)' };
  const all = loadAisChipShips();
  const rows: AisChipRow[] = [];
  for (const scene of [...new Set(all.map((s) => s.scene))]) {
    const ships = all.filter((s) => s.scene === scene);
    const placedBy = new Map<string, { lon: number; lat: number }>();
    // Each ship at its own image time (chips of a scene differ by seconds along the swath).
    for (const s of ships) placedBy.set(s.mmsi, vesselsAt([s.fix], s.imageT, { maxFixAgeS: 86_400 })[0]!);
    const vessels = vesselsAt(ships.map((s) => s.fix), ships[0]!.imageT, { maxFixAgeS: 86_400 }).map((v) => ({ ...v, ...placedBy.get(v.mmsi)! }));
    const reported = ships.map((s) => dist(s.sarLat, s.sarLon, s.fix.lat, s.fix.lon));
    const placed = ships.map((s) => dist(s.sarLat, s.sarLon, placedBy.get(s.mmsi)!.lat, placedBy.get(s.mmsi)!.lon));
    const moving = ships.map((s, i) => ((s.fix.sog ?? 0) >= 1 ? i : -1)).filter((i) => i >= 0);
    const movingMedian = (xs: number[]) => (moving.length ? Math.round(quantile(moving.map((i) => xs[i]!), 0.5)) : null);
    const pairs = assignDetections(ships.map((s) => ({ lon: s.sarLon, lat: s.sarLat, length: s.sarLength })), vessels);
    let matched = 0;
    let wrong = 0;
    for (const p of pairs) {
      if (vessels[p.vessel]!.mmsi === ships[p.detection]!.mmsi) matched++;
      else wrong++;
    }
    rows.push({
      scene,
      ships: ships.length,
      reportedMedianM: Math.round(quantile(reported, 0.5)),
      placedMedianM: Math.round(quantile(placed, 0.5)),
      placedP90M: Math.round(quantile(placed, 0.9)),
      moving: moving.length,
      movingReportedMedianM: movingMedian(reported),
      movingPlacedMedianM: movingMedian(placed),
      medianFixAgeS: Math.round(quantile(ships.map((s) => Math.abs(s.imageT - s.fix.t) / 1000), 0.5)),
      matched,
      wrong,
      dark: ships.length - pairs.length,
    });
  }
  return rows;
}

export function printAisChips(r: AisChipRow[] | { skipped: string }): void {
  console.log('\nShips — AIS matching on OpenSARShip (real AIS; image position = the dataset\'s geolocated ship centre, detector not run)');
  if (!Array.isArray(r)) {
    console.log(`  skipped: ${r.skipped}`);
    return;
  }
  console.log(
    table(
      ['scene', 'ships', 'own AIS matched', 'wrong', 'dark', 'placed median m', 'placed p90 m', 'under way', 'under way: reported → placed median m', 'median fix age s'],
      r.map((x) => [x.scene.slice(0, 32), x.ships, x.matched, x.wrong, x.dark, x.placedMedianM, x.placedP90M, x.moving, x.moving ? `${x.movingReportedMedianM} → ${x.movingPlacedMedianM}` : '–', x.medianFixAgeS]),
    ),
  );
}
