/**
 * A GRD city series: small IW GRDH SAFE products of one path/frame over a growing town, one
 * per date, with buildings that appear and vanish on known dates — the detect family's test
 * data for building change and time series (the analyze family has the RTC city stack).
 *
 * - The town is given as lon/lat objects (`cityFromRtcTruth` takes them from an RTC city
 *   stack's truth file, so the GRD and RTC series of the demo show the same town).
 * - Each product is `writeSafeGrd` of farmland ('land' surface, textured, with per-date
 *   field levels drawn anew for parcels of 20 × 20 pixels) and an overlay that paints the
 *   town in radar geometry: buildings with their γ0 (σ0 = γ0·cos θ at the pixel's incidence)
 *   mixed by the covered fraction of each GRD pixel (4 × 4 sub-samples); construction sites
 *   (from construction start to completion) and demolished sites as bare soil; a forest
 *   clearing and a temporary flood at their dates. Speckle (ENL 4.4), thermal noise and
 *   quantisation are writeSafeGrd's.
 * - The series' truth (`<dir>/city-grd.truth.geojson`) lists the buildings with the GRD dates
 *   they appear / vanish on (the first date of this series on which they stand / are gone).
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Position } from '../geo/types.ts';
import { GrdGeometry } from './geometry.ts';
import { isoDay, trackAcquisitions, type PassDirection, type SynthMission } from './orbit.ts';
import { hashSeed, latticeUniform } from './random.ts';
import { writeSafeGrd } from './safe.ts';
import { dbToLinear } from './scene.ts';
import { feature, polygonGeometry, type TruthCollection, type TruthFeature } from './truth.ts';

export interface CityBuilding {
  id: string;
  /** Outline (lon/lat ring). */
  polygon: Position[];
  /** First day it stands (null: from the start), first day it is gone (null: to the end). */
  appearDate: string | null;
  vanishDate: string | null;
  /** First day of site clearing before construction (bare soil until it stands). */
  constructionStartDate: string | null;
  /** γ0 (dB) while it stands. */
  gamma0VvDb: number;
  gamma0VhDb: number;
}

export interface CityChange {
  id: string;
  polygon: Position[];
  /** clearing: forest → bare soil from dates[0]; flood: open water from dates[0] until the day before dates[1]. */
  type: 'clearing' | 'flood';
  dates: string[];
}

export interface GrdCitySeriesSpec {
  seed: number;
  /** Scene centre (lon, lat). */
  center: Position;
  /** Full-image size (pixels, 10 m); default 400 × 400. */
  width?: number;
  height?: number;
  mission?: SynthMission;
  track: number;
  passDirection?: PassDirection;
  /** Incidence at pixel 0; default 38° (IW2). */
  nearIncidenceDeg?: number;
  /** The track's acquisitions from this day on, every `intervalDays` (default 12), `count` of them … */
  start: string;
  count: number;
  intervalDays?: number;
  /** … of which these indices are written (default all). */
  pick?: number[];
  buildings: CityBuilding[];
  changes?: CityChange[];
}

export interface GrdCitySeriesResult {
  /** SAFE folders, oldest first. */
  products: string[];
  /** Per-product truth files written by writeSafeGrd (surfaces only). */
  productTruth: string[];
  /** The series' truth: buildings and change areas with GRD dates. */
  truthPath: string;
  /** Acquisition days (YYYY-MM-DD) of the products. */
  dates: string[];
}

/** Buildings and change areas of an RTC city stack's truth file, in lon/lat. */
export function cityFromRtcTruth(truth: TruthCollection): { buildings: CityBuilding[]; changes: CityChange[] } {
  const buildings: CityBuilding[] = [];
  const changes: CityChange[] = [];
  for (const f of truth.features) {
    if (f.geometry.type !== 'Polygon') continue;
    const p = f.properties as Record<string, unknown>;
    const ring = f.geometry.coordinates[0]!;
    if (p.kind === 'building') {
      buildings.push({
        id: String(p.id),
        polygon: ring,
        appearDate: (p.appear_date as string | null) ?? null,
        vanishDate: (p.vanish_date as string | null) ?? null,
        constructionStartDate: (p.construction_start_date as string | null) ?? null,
        gamma0VvDb: Number(p.gamma0_vv_db),
        gamma0VhDb: Number(p.gamma0_vh_db),
      });
    } else if (p.kind === 'changepoint' && (p.change_type === 'clearing' || p.change_type === 'flood')) {
      changes.push({ id: String(p.id), polygon: ring, type: p.change_type, dates: (p.change_dates as string[]) ?? [] });
    }
  }
  return { buildings, changes };
}

/** Pixels of the full GRD image an outline covers: (line, pixel, fraction), 4 × 4 sub-samples. */
function cover(g: GrdGeometry, ring: Position[]): { line: Int32Array; pixel: Int32Array; fraction: Float32Array } {
  const pts = ring.map(([lon, lat]) => {
    const q = g.lonLatToPixel(lon, lat);
    return { x: q.pixel, y: q.line };
  });
  const inside = (x: number, y: number): boolean => {
    let c = false;
    for (let i = 0, j = pts.length - 1; i < pts.length; j = i++) {
      const a = pts[i]!;
      const b = pts[j]!;
      if (a.y > y !== b.y > y && x < ((b.x - a.x) * (y - a.y)) / (b.y - a.y) + a.x) c = !c;
    }
    return c;
  };
  const x0 = Math.max(0, Math.floor(Math.min(...pts.map((p) => p.x))) - 1);
  const x1 = Math.min(g.width - 1, Math.ceil(Math.max(...pts.map((p) => p.x))) + 1);
  const y0 = Math.max(0, Math.floor(Math.min(...pts.map((p) => p.y))) - 1);
  const y1 = Math.min(g.height - 1, Math.ceil(Math.max(...pts.map((p) => p.y))) + 1);
  const line: number[] = [];
  const pixel: number[] = [];
  const fraction: number[] = [];
  for (let y = y0; y <= y1; y++) {
    for (let x = x0; x <= x1; x++) {
      let n = 0;
      // Integer (line, pixel) is a pixel centre: sub-samples at ±3/8, ±1/8.
      for (let sy = 0; sy < 4; sy++) for (let sx = 0; sx < 4; sx++) if (inside(x - 0.375 + sx * 0.25, y - 0.375 + sy * 0.25)) n++;
      if (n > 0) {
        line.push(y);
        pixel.push(x);
        fraction.push(n / 16);
      }
    }
  }
  return { line: Int32Array.from(line), pixel: Int32Array.from(pixel), fraction: Float32Array.from(fraction) };
}

/** σ0 (dB at 35°, γ0-like: scaled by cos θ / cos 35°) of the surfaces the overlay paints: [VV, VH]. */
const BARE: [number, number] = [-12, -21];
const FOREST: [number, number] = [-7, -12];
const WATER: [number, number] = [-21, -28];
/** Per-date level of farmland parcels: ± this many dB around the land model. */
const FIELD_SPREAD_DB = 1.5;
const PARCEL_PIXELS = 20;

/**
 * Write the series into `dir`: one GRD SAFE product per picked date (same path/frame:
 * same track, direction, centre and size), plus the series' truth file.
 */
export async function writeGrdCitySeries(dir: string, spec: GrdCitySeriesSpec): Promise<GrdCitySeriesResult> {
  const width = spec.width ?? 400;
  const height = spec.height ?? 400;
  const pass = spec.passDirection ?? 'ascending';
  const mission = spec.mission ?? 'S1A';
  const nearIncidenceDeg = spec.nearIncidenceDeg ?? 38;
  const geometry = new GrdGeometry({ center: spec.center as [number, number], width, height, passDirection: pass, nearIncidenceDeg });
  // First-line times: the track passes the scene's first line (south edge when ascending).
  const edgeLat = spec.center[1] + ((pass === 'ascending' ? -1 : 1) * (height * 10)) / 2 / 111_000;
  const all = trackAcquisitions(mission, spec.track, pass, edgeLat, new Date(`${spec.start}T00:00:00Z`), spec.count, spec.intervalDays ?? 12);
  const picked = (spec.pick ?? all.map((_, i) => i)).map((i) => {
    const a = all[i];
    if (!a) throw new RangeError(`pick index ${i} is outside the ${all.length} acquisitions`);
    return a;
  });
  const days = picked.map((a) => isoDay(a.time));

  const cos35 = Math.cos((35 * Math.PI) / 180);
  const cosRatio = Float64Array.from({ length: width }, (_, x) => Math.cos((geometry.incidenceAngle(x) * Math.PI) / 180) / cos35);
  const cosTheta = Float64Array.from({ length: width }, (_, x) => Math.cos((geometry.incidenceAngle(x) * Math.PI) / 180));
  const buildings = spec.buildings.map((b) => ({ b, c: cover(geometry, b.polygon) })).filter((x) => x.c.line.length > 0);
  const changes = (spec.changes ?? []).map((ch) => ({ ch, c: cover(geometry, ch.polygon) })).filter((x) => x.c.line.length > 0);
  const onOrAfter = (day: string, d: string | null | undefined): boolean => d !== null && d !== undefined && day >= d;

  // Everything is land; the overlay does the rest.
  const m = 0.2;
  const land: Position[][] = [[[spec.center[0] - m, spec.center[1] - m], [spec.center[0] + m, spec.center[1] - m], [spec.center[0] + m, spec.center[1] + m], [spec.center[0] - m, spec.center[1] + m], [spec.center[0] - m, spec.center[1] - m]]];

  const products: string[] = [];
  const productTruth: string[] = [];
  for (let k = 0; k < picked.length; k++) {
    const day = days[k]!;
    const fieldSeed = hashSeed(spec.seed, 'fields', k);
    const paint = (
      _g: GrdGeometry,
      y0: number,
      rows: number,
      x0: number,
      w: number,
      vv: Float32Array | null,
      vh: Float32Array | null,
    ): void => {
      const outs: [Float32Array | null, 0 | 1][] = [
        [vv, 0],
        [vh, 1],
      ];
      // Farmland parcels: a level drawn anew on every date.
      for (let r = 0; r < rows; r++) {
        const line = y0 + r;
        for (let x = 0; x < w; x++) {
          const px = x0 + x;
          const u = latticeUniform(Math.floor(px / PARCEL_PIXELS), Math.floor(line / PARCEL_PIXELS), fieldSeed);
          const f = dbToLinear(FIELD_SPREAD_DB * (2 * u - 1));
          if (vv) vv[r * w + x]! *= f;
          if (vh) vh[r * w + x]! *= f;
        }
      }
      const mix = (c: { line: Int32Array; pixel: Int32Array; fraction: Float32Array }, value: (pol: 0 | 1, px: number) => number): void => {
        for (let j = 0; j < c.line.length; j++) {
          const line = c.line[j]!;
          const px = c.pixel[j]!;
          if (line < y0 || line >= y0 + rows || px < x0 || px >= x0 + w) continue;
          const i = (line - y0) * w + (px - x0);
          const f = c.fraction[j]!;
          for (const [out, pol] of outs) if (out) out[i] = (1 - f) * out[i]! + f * value(pol, px);
        }
      };
      for (const { ch, c } of changes) {
        if (ch.type === 'clearing') {
          const cut = onOrAfter(day, ch.dates[0]);
          mix(c, (pol, px) => dbToLinear((cut ? BARE : FOREST)[pol]) * cosRatio[px]!);
        } else if (onOrAfter(day, ch.dates[0]) && !onOrAfter(day, ch.dates[1])) {
          mix(c, (pol) => dbToLinear(WATER[pol]));
        }
      }
      for (const { b, c } of buildings) {
        const stands = (b.appearDate === null || day >= b.appearDate) && !onOrAfter(day, b.vanishDate);
        const site = (!stands && onOrAfter(day, b.constructionStartDate)) || onOrAfter(day, b.vanishDate);
        if (stands) mix(c, (pol, px) => dbToLinear(pol === 0 ? b.gamma0VvDb : b.gamma0VhDb) * cosTheta[px]!);
        else if (site) mix(c, (pol, px) => dbToLinear(BARE[pol]) * cosRatio[px]!);
      }
    };
    const r = await writeSafeGrd(dir, {
      seed: hashSeed(spec.seed, 'grd-city', k),
      areaSeed: spec.seed,
      mission,
      start: picked[k]!.time,
      center: spec.center,
      width,
      height,
      passDirection: pass,
      nearIncidenceDeg,
      surfaces: [{ kind: 'land', id: 'land-1', name: 'farmland around the town', polygon: land }],
      wind: { speed: 5, directionDeg: 220 },
      ambiguities: false,
      overlay: paint,
    });
    products.push(r.productPath);
    productTruth.push(r.groundTruthPath);
  }

  // Series truth: each object with the dates of this series.
  const firstOn = (d: string | null): string | null => (d === null ? null : (days.find((x) => x >= d) ?? null));
  const features: TruthFeature[] = [];
  for (const { b, c } of buildings) {
    const appear = b.appearDate === null ? null : firstOn(b.appearDate);
    const vanish = b.vanishDate === null ? null : firstOn(b.vanishDate);
    // New: absent on the first date, standing on a later one. Built after the last date: never seen.
    const before = b.appearDate !== null && days[0]! < b.appearDate;
    const status = before ? (appear !== null ? 'new' : 'not built in the series') : vanish !== null ? 'demolished' : 'existing';
    let covered = 0;
    for (const f of c.fraction) covered += f;
    features.push(
      feature('building', b.id, polygonGeometry([b.polygon]), {
        status,
        appear_date: before ? appear : null,
        vanish_date: vanish,
        construction_start_date: b.constructionStartDate,
        gamma0_vv_db: b.gamma0VvDb,
        gamma0_vh_db: b.gamma0VhDb,
        grd_pixels: Math.round(covered * 100) / 100,
      }),
    );
  }
  for (const { ch } of changes) {
    // The dates of this series on which the backscatter changes: a clearing from the first
    // date on or after the cut; a flood only when one of the series' dates falls inside it.
    let changeDates: string[];
    if (ch.type === 'clearing') {
      const d = firstOn(ch.dates[0] ?? null);
      changeDates = d && d > days[0]! ? [d] : [];
    } else {
      const wet = days.filter((d) => onOrAfter(d, ch.dates[0]) && !onOrAfter(d, ch.dates[1]));
      const after = ch.dates[1] ? firstOn(ch.dates[1]) : null;
      changeDates = wet.length && wet[0]! > days[0]! ? [wet[0]!, ...(after ? [after] : [])] : [];
    }
    features.push(
      feature('changepoint', ch.id, polygonGeometry([ch.polygon]), {
        change_type: ch.type,
        change_dates: changeDates,
        source_change_dates: ch.dates,
        visible_in_series: changeDates.length > 0,
      }),
    );
  }
  const truthPath = path.join(dir, 'city-grd.truth.geojson');
  const collection: TruthCollection = {
    type: 'FeatureCollection',
    features,
    sarwatch: {
      truthVersion: 1,
      generator: 'sarwatch synth',
      synthetic: true,
      productType: 'GRD',
      scene: 'city',
      mission,
      track: spec.track,
      passDirection: pass,
      width,
      height,
      seed: spec.seed,
      dates: days,
      acquisitionTimes: picked.map((a) => a.time.toISOString()),
      products: products.map((p) => path.basename(p)),
    },
  };
  await writeFile(truthPath, `${JSON.stringify(collection, null, 1)}\n`);
  return { products, productTruth, truthPath, dates: days };
}
