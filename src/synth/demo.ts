/**
 * The demo archive: synthetic products for every endpoint, generated once into the archive
 * folder that `sarwatch serve` indexes by default.
 *
 * - `grd/`: a port scene off IJmuiden (North Sea coast of the Netherlands), IW GRDH VV+VH,
 *   4000 × 4000 px, on the real track 161 ascending, 2024-06-13: ships of 20–300 m at the
 *   anchorage, in the port approach and along the coast, an oil slick trailing a ship, a
 *   low-wind look-alike, Natural Earth land with the port, town and dunes, a wind farm and its
 *   platform (fixed structures, `DEMO_STRUCTURES`); and the same area 12 days later (2024-06-25:
 *   more wind, no slick, ships moved, the anchored ones swung about their anchors, the wind farm
 *   where it was).
 * - `rtc/city/`: IJburg (Amsterdam) growing over two years: OPERA-style RTC, 200 × 200 px
 *   at 10 m, VV+VH, 61 dates at 12-day revisit from January 2023.
 * - `grd/city/`: the same town as IW GRDH (detect family: building change, time series):
 *   400 × 400 px SAFE products on 12 of the RTC city's dates (track 161 ascending, one
 *   path/frame), the buildings and change areas taken from the RTC city's truth
 *   (src/synth/grdCity.ts); `city-grd.truth.geojson` gives their GRD dates.
 * - `rtc/farmland/`: Flevoland polders over the 2024 season: 120 × 120 px at 30 m, 15 dates.
 * - `slc/`: an IW SLC product of the port's data take, manifest and annotation only: indexed
 *   as productType SLC, refused by the GRD reader (the analyze family's SCENE_NOT_FOUND path).
 *
 * Generation writes into a hidden folder and moves the results into place, then writes
 * `.sarwatch-demo.json` (version, seed, scale, products). With a matching marker nothing is
 * regenerated. Hidden entries are not indexed, so a half-written demo is never seen.
 */
import { mkdir, readdir, readFile, rename, rm, stat, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Position } from '../geo/types.ts';
import { naturalEarthLand } from './land.ts';
import { trackAcquisitions } from './orbit.ts';
import { cityFromRtcTruth, writeGrdCitySeries } from './grdCity.ts';
import { writeRtcStack, type RtcStackSpec } from './rtc.ts';
import { writeSafeGrd, writeSafeSlcMetadata, type SafeGrdSpec } from './safe.ts';
import type { ShipSpec, StructureSpec, SurfaceSpec } from './scene.ts';
import type { TruthCollection } from './truth.ts';

/** Bump when the demo's content changes: archives with another version are regenerated. */
export const DEMO_ARCHIVE_VERSION = 4;
export const DEMO_MARKER = '.sarwatch-demo.json';

export interface DemoArchiveOptions {
  seed: number;
  /**
   * Linear size factor of the GRD scenes (1 = 4000 × 4000 px). Tests use 0.25. The RTC
   * stacks and the dates do not change with it.
   */
  scale?: number;
  /** Regenerate even when the marker matches. */
  force?: boolean;
  /**
   * Also link the real samples (e.g. the repository's samples/s1) into `<dir>/samples/`: folders are
   * recreated, files are symbolic links (the indexer does not follow folder links).
   */
  samplesDir?: string;
}

export interface DemoArchiveResult {
  /** Absolute paths: SAFE folders and RTC GeoTIFFs. */
  products: string[];
  /** Ground-truth files beside them. */
  truth: string[];
  /** False when the marker showed the archive was already there. */
  generated: boolean;
  /** Linked sample files (0 without samplesDir). */
  samplesLinked: number;
}

interface Marker {
  version: number;
  seed: number;
  scale: number;
  products: string[];
  truth: string[];
}

// ------------------------------------------------------------------ the port scene

const PORT_CENTER: Position = [4.42, 52.46];

/** Port infrastructure of IJmuiden (approximate), on top of Natural Earth land. */
const PORT_SURFACES: SurfaceSpec[] = [
  {
    kind: 'forest',
    name: 'Kennemerduinen dunes',
    polygon: [[[4.552, 52.395], [4.59, 52.395], [4.588, 52.44], [4.566, 52.44], [4.552, 52.395]]],
  },
  { kind: 'urban', name: 'Haarlem', polygon: [[[4.6, 52.36], [4.68, 52.36], [4.68, 52.4], [4.6, 52.4], [4.6, 52.36]]] },
  { kind: 'urban', name: 'IJmuiden', polygon: [[[4.585, 52.445], [4.632, 52.445], [4.632, 52.462], [4.585, 52.462], [4.585, 52.445]]] },
  { kind: 'port', name: 'steelworks and port', polygon: [[[4.58, 52.47], [4.64, 52.468], [4.645, 52.495], [4.585, 52.497], [4.58, 52.47]]] },
  {
    kind: 'water',
    name: 'North Sea Canal',
    polygon: [[[4.568, 52.4685], [4.62, 52.468], [4.7, 52.437], [4.75, 52.431], [4.75, 52.428], [4.7, 52.434], [4.62, 52.4655], [4.568, 52.466], [4.568, 52.4685]]],
  },
  { kind: 'port', name: 'north pier', polygon: [[[4.576, 52.474], [4.563, 52.4747], [4.563, 52.4742], [4.576, 52.4735], [4.576, 52.474]]] },
  { kind: 'port', name: 'south pier', polygon: [[[4.576, 52.4608], [4.565, 52.4626], [4.565, 52.4621], [4.576, 52.4603], [4.576, 52.4608]]] },
];

const DAY1_SHIPS: ShipSpec[] = [
  // Anchorage, bows into the SSW wind.
  { id: 'anchor-1', lon: 4.3, lat: 52.52, lengthM: 300, widthM: 46, headingDeg: 200 },
  { id: 'anchor-2', lon: 4.26, lat: 52.5, lengthM: 250, headingDeg: 205 },
  { id: 'anchor-3', lon: 4.33, lat: 52.55, lengthM: 180, headingDeg: 198 },
  { id: 'anchor-4', lon: 4.22, lat: 52.53, lengthM: 230, headingDeg: 210 },
  { id: 'anchor-5', lon: 4.28, lat: 52.565, lengthM: 140, headingDeg: 195 },
  { id: 'anchor-6', lon: 4.36, lat: 52.505, lengthM: 120, headingDeg: 202 },
  // Port approach and traffic.
  { id: 'inbound-1', lon: 4.47, lat: 52.468, lengthM: 200, headingDeg: 98 },
  { id: 'outbound-1', lon: 4.4, lat: 52.462, lengthM: 90, headingDeg: 280 },
  { id: 'approach-1', lon: 4.2, lat: 52.44, lengthM: 160, headingDeg: 62 },
  { id: 'transit-1', lon: 4.2, lat: 52.6, lengthM: 110, headingDeg: 190 },
  // The slick's source, steaming NE with oil trailing behind.
  { id: 'polluter-1', lon: 4.34, lat: 52.4, lengthM: 120, headingDeg: 40 },
  // Fishing boats and small craft near the coast (20–45 m).
  { id: 'small-1', lon: 4.5, lat: 52.4, lengthM: 20, headingDeg: 30 },
  { id: 'small-2', lon: 4.52, lat: 52.52, lengthM: 25, headingDeg: 170 },
  { id: 'small-3', lon: 4.47, lat: 52.58, lengthM: 35, headingDeg: 300 },
  { id: 'small-4', lon: 4.41, lat: 52.36, lengthM: 22, headingDeg: 75 },
  { id: 'small-5', lon: 4.25, lat: 52.4, lengthM: 45, headingDeg: 10 },
  { id: 'small-6', lon: 4.54, lat: 52.48, lengthM: 30, headingDeg: 280 },
];

/** Chain out between an anchored ship's bow and its anchor (m): about 5–7 × the ~20 m depth off IJmuiden. */
const ANCHOR_CHAIN_M = 150;

/**
 * The same anchored ship after the wind turned: it swings about its anchor, which lies ahead of
 * the bow, so its centre moves (by 100–300 m here) — anchored ships do not stay within the 30 m
 * of a fixed structure (issue 23 §3).
 */
function swungAtAnchor(ship: ShipSpec, headingDeg: number): ShipSpec {
  const reach = ship.lengthM / 2 + ANCHOR_CHAIN_M;
  const mPerDegLat = 111_320;
  const mPerDegLon = mPerDegLat * Math.cos((ship.lat * Math.PI) / 180);
  const offset = (deg: number) => ({ east: reach * Math.sin((deg * Math.PI) / 180), north: reach * Math.cos((deg * Math.PI) / 180) });
  const before = offset(ship.headingDeg);
  const after = offset(headingDeg);
  return {
    ...ship,
    lon: Math.round((ship.lon + (before.east - after.east) / mPerDegLon) * 1e6) / 1e6,
    lat: Math.round((ship.lat + (before.north - after.north) / mPerDegLat) * 1e6) / 1e6,
    headingDeg,
  };
}

const day1Ship = (id: string): ShipSpec => DAY1_SHIPS.find((s) => s.id === id)!;

const DAY2_SHIPS: ShipSpec[] = [
  // The anchorage 12 days later: three stayed (swung round to the westerly), three left, two arrived.
  swungAtAnchor(day1Ship('anchor-1'), 255),
  swungAtAnchor(day1Ship('anchor-3'), 262),
  swungAtAnchor(day1Ship('anchor-4'), 250),
  { id: 'anchor-7', lon: 4.25, lat: 52.555, lengthM: 200, headingDeg: 258 },
  { id: 'anchor-8', lon: 4.35, lat: 52.49, lengthM: 150, headingDeg: 252 },
  { id: 'inbound-2', lon: 4.5, lat: 52.466, lengthM: 260, headingDeg: 100 },
  { id: 'outbound-2', lon: 4.36, lat: 52.456, lengthM: 140, headingDeg: 275 },
  { id: 'transit-2', lon: 4.24, lat: 52.38, lengthM: 180, headingDeg: 20 },
  { id: 'small-7', lon: 4.5, lat: 52.42, lengthM: 24, headingDeg: 200 },
  { id: 'small-8', lon: 4.46, lat: 52.54, lengthM: 32, headingDeg: 120 },
  { id: 'small-9', lon: 4.39, lat: 52.6, lengthM: 20, headingDeg: 45 },
];

/**
 * A small offshore wind farm west of IJmuiden (3 × 3 turbines 800 m apart, 52.455–52.469 N,
 * 4.255–4.279 E) and its substation platform: fixed structures, bright at the same place on
 * both passes (issue 23 §3). Made up for the demo: no farm stands there.
 */
export const DEMO_STRUCTURES: StructureSpec[] = [
  ...[0, 1, 2].flatMap((row) =>
    [0, 1, 2].map((col): StructureSpec => ({ id: `turbine-${row * 3 + col + 1}`, kind: 'turbine', lon: Math.round((4.255 + col * 0.0118) * 1e6) / 1e6, lat: Math.round((52.455 + row * 0.0072) * 1e6) / 1e6 })),
  ),
  { id: 'platform-1', kind: 'platform', lon: 4.292, lat: 52.449 },
];

function portSpec(seed: number, width: number, height: number, start: Date, day: 1 | 2, land: SurfaceSpec[]): SafeGrdSpec {
  const base: SafeGrdSpec = {
    seed: seed * 10 + day,
    areaSeed: seed,
    start,
    center: PORT_CENTER,
    width,
    height,
    passDirection: 'ascending',
    nearIncidenceDeg: 32,
    surfaces: [...land, ...PORT_SURFACES],
    wind: day === 1 ? { speed: 6, directionDeg: 200 } : { speed: 9, directionDeg: 260 },
    ships: day === 1 ? DAY1_SHIPS : DAY2_SHIPS,
    structures: DEMO_STRUCTURES,
  };
  if (day === 1) {
    base.slicks = [
      {
        id: 'slick-1',
        path: [
          [4.3365, 52.3985],
          [4.31, 52.384],
          [4.28, 52.37],
          [4.25, 52.362],
        ],
        widthM: [120, 700],
        dampingDb: 8,
      },
    ];
    base.lowWind = [{ id: 'lookalike-1', center: [4.22, 52.33], lengthM: 7000, widthM: 3000, orientationDeg: 60, minSpeed: 1 }];
  }
  return base;
}

/**
 * The two port acquisitions (2024-06-13 and 2024-06-25, track 161 ascending) as GRD specs,
 * land included: what `generateDemoArchive` writes, exposed for tests and tools. `size`
 * (width × height px, default the scale's square) enlarges the footprint around the same
 * centre, Natural Earth land taken over it (bench/shipCoast.ts: a full coastal IW scene); the
 * demo archive never passes it.
 */
export function demoPortSpecs(seed: number, scale = 1, size?: { width: number; height: number }): [SafeGrdSpec, SafeGrdSpec] {
  const grdSize = Math.max(200, Math.round(4000 * scale));
  const width = size?.width ?? grdSize;
  const height = size?.height ?? grdSize;
  const southEdgeLat = PORT_CENTER[1] - (height * 10) / 2 / 111_000;
  const passes = trackAcquisitions('S1A', 161, 'ascending', southEdgeLat, new Date('2024-06-12T00:00:00Z'), 2);
  const latMargin = (height * 10 * 0.75) / 111_000;
  const lonMargin = (width * 10 * 0.75) / 111_000 / Math.cos((PORT_CENTER[1] * Math.PI) / 180);
  const land: SurfaceSpec[] = naturalEarthLand([
    PORT_CENTER[0] - lonMargin,
    PORT_CENTER[1] - latMargin,
    PORT_CENTER[0] + lonMargin,
    PORT_CENTER[1] + latMargin,
  ]).map((polygon, i) => ({ kind: 'land', id: `land-${i + 1}`, name: 'Natural Earth 1:10m land', polygon }));
  return [portSpec(seed, width, height, passes[0]!.time, 1, land), portSpec(seed, width, height, passes[1]!.time, 2, land)];
}

// ------------------------------------------------------------------ the city

/** IJburg, Amsterdam: centre of the RTC city stack and of the GRD city series. */
export const DEMO_CITY_CENTER: Position = [4.995, 52.356];

/**
 * Which of the city's 61 track dates (12-day revisit from 2023-01-02) get a GRD product:
 * every 60 days, first and last date included; not 2024-06-13 / 06-25 (indices 44, 45),
 * the port's dates, so a GRD search of those days finds the port scenes only.
 */
/** The demo's Flevoland farmland (`rtc/farmland/`): the 2024 season from April, 15 dates (also scored in eval/idlefarm.ts). */
export function demoFarmlandSpec(seed: number): RtcStackSpec {
  return { scene: 'farmland', seed: seed + 202, center: [5.45, 52.52], start: '2024-04-10', count: 15, track: 161, passDirection: 'ascending', subswath: 'IW3' };
}

export const DEMO_GRD_CITY_PICK = [0, 5, 10, 15, 20, 25, 30, 35, 40, 50, 55, 60];

// ------------------------------------------------------------------ helpers

async function exists(p: string): Promise<boolean> {
  return stat(p).then(
    () => true,
    () => false,
  );
}

async function readMarker(dir: string): Promise<Marker | null> {
  try {
    return JSON.parse(await readFile(path.join(dir, DEMO_MARKER), 'utf8')) as Marker;
  } catch {
    return null;
  }
}

/** Mirror a folder tree with real folders and symlinked files; returns the number of links made or kept. */
async function linkTree(from: string, to: string): Promise<number> {
  let count = 0;
  await mkdir(to, { recursive: true });
  for (const e of await readdir(from, { withFileTypes: true })) {
    if (e.name.startsWith('.')) continue;
    const source = path.join(from, e.name);
    const target = path.join(to, e.name);
    if (e.isDirectory()) {
      count += await linkTree(source, target);
    } else if (e.isFile()) {
      if (!(await exists(target))) await symlink(source, target);
      count++;
    }
  }
  return count;
}

// ------------------------------------------------------------------ entry point

/**
 * Generate the demo archive into `dir` once; later calls with the same seed and scale
 * return the recorded products without touching them.
 */
export async function generateDemoArchive(dir: string, options: DemoArchiveOptions): Promise<DemoArchiveResult> {
  const root = path.resolve(dir);
  const scale = options.scale ?? 1;
  if (!(scale > 0 && scale <= 1)) throw new RangeError(`scale must be in (0, 1], got ${scale}`);
  await mkdir(root, { recursive: true });
  const samplesLinked = options.samplesDir ? await linkTree(path.resolve(options.samplesDir), path.join(root, 'samples')) : 0;

  const marker = await readMarker(root);
  if (!options.force && marker && marker.version === DEMO_ARCHIVE_VERSION && marker.seed === options.seed && marker.scale === scale) {
    const products = marker.products.map((p) => path.join(root, p));
    if ((await Promise.all(products.map(exists))).every(Boolean)) {
      return { products, truth: marker.truth.map((p) => path.join(root, p)), generated: false, samplesLinked };
    }
  }

  const tmp = path.join(root, `.demo-tmp-${process.pid}`);
  await rm(tmp, { recursive: true, force: true });
  const products: string[] = [];
  const truth: string[] = [];
  try {
    const seed = options.seed;
    // Port scene: two passes of track 161 (ascending, ~17:34 UTC), 12 days apart.
    const ports = demoPortSpecs(seed, scale);
    for (const spec of ports) {
      const r = await writeSafeGrd(path.join(tmp, 'grd'), spec);
      products.push(r.productPath);
      truth.push(r.groundTruthPath);
    }
    // The SLC of the first pass's data take: a full-swath slice a few seconds earlier.
    const slc = await writeSafeSlcMetadata(path.join(tmp, 'slc'), {
      seed,
      start: new Date(new Date(ports[0].start).getTime() - 9000),
      center: [3.75, 52.25],
      passDirection: 'ascending',
    });
    products.push(slc.productPath);

    const city = await writeRtcStack(path.join(tmp, 'rtc', 'city'), {
      scene: 'city',
      seed: seed + 101,
      center: DEMO_CITY_CENTER,
      start: '2023-01-01',
      count: 61,
      track: 161,
      passDirection: 'ascending',
      subswath: 'IW2',
    });
    products.push(...city.files);
    truth.push(city.groundTruthPath);
    // The same town for the detect family: GRD products on 12 of those dates.
    const cityTruth = JSON.parse(await readFile(city.groundTruthPath, 'utf8')) as TruthCollection;
    const grdCity = await writeGrdCitySeries(path.join(tmp, 'grd', 'city'), {
      seed: seed + 303,
      center: DEMO_CITY_CENTER,
      track: 161,
      passDirection: 'ascending',
      start: '2023-01-01',
      count: 61,
      pick: DEMO_GRD_CITY_PICK,
      ...cityFromRtcTruth(cityTruth),
    });
    products.push(...grdCity.products);
    truth.push(grdCity.truthPath);
    const farm = await writeRtcStack(path.join(tmp, 'rtc', 'farmland'), demoFarmlandSpec(seed));
    products.push(...farm.files);
    truth.push(farm.groundTruthPath);

    // Move into place: the old generated folders go, the new ones come in whole.
    for (const name of ['grd', 'slc', 'rtc']) {
      await rm(path.join(root, name), { recursive: true, force: true });
      await rename(path.join(tmp, name), path.join(root, name));
    }
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
  const relocate = (p: string) => path.join(root, path.relative(tmp, p));
  const result: DemoArchiveResult = { products: products.map(relocate), truth: truth.map(relocate), generated: true, samplesLinked };
  const record: Marker = {
    version: DEMO_ARCHIVE_VERSION,
    seed: options.seed,
    scale,
    products: result.products.map((p) => path.relative(root, p)),
    truth: result.truth.map((p) => path.relative(root, p)),
  };
  await writeFile(path.join(root, DEMO_MARKER), `${JSON.stringify(record, null, 1)}\n`);
  return result;
}
