/**
 * Synthetic OPERA RTC-S1 stacks: one float32 linear γ0 GeoTIFF per date and polarisation,
 * north-up in WGS84 UTM, no-data NaN, named and tagged like the real OPERA products
 * (OPERA_L2_RTC-S1_T<track>-<burst>-IW<n>_<acquired>Z_<processed>Z_S1A_<spacing>_v1.0_<pol>.tif),
 * dates every 12 days on one track, with ground truth beside the stack.
 *
 * Scenes:
 * - `city`: a growing town over the series: an old centre of buildings and paved ground,
 *   development blocks where buildings (rectangles 10–60 m) are built at known dates (the
 *   site is cleared a few acquisitions before) and old buildings that are demolished;
 *   plus change patches with known change points (a forest clearing, a temporary flood).
 * - `farmland`: fields with crop-specific VH growth cycles (rise of 5–8 dB to the peak,
 *   drop at harvest), managed meadows, and idle fields with no cycle.
 */
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Position } from '../geo/types.ts';
import { lonLatTransform } from '../imagery/index.ts';
import {
  addSeconds,
  burstIdNumber,
  compactUtc,
  isoDay,
  platformHeading,
  secondsAfterAnx,
  trackAcquisitions,
  type PassDirection,
  type SynthMission,
  type TrackAcquisition,
} from './orbit.ts';
import { hashSeed, latticeUniform, Random, SpeckleSampler } from './random.ts';
import { dbToLinear, IW_GRDH_ENL, type Polarisation } from './scene.ts';
import { TiffWriter } from './tiff.ts';
import { feature, polygonGeometry, writeTruth, type TruthFeature } from './truth.ts';

export type RtcSceneKind = 'city' | 'farmland';

/** A building: a rectangle in metres east/north of the stack's centre. */
export interface BuildingSpec {
  id?: string;
  /** Centre, metres east and north of the stack centre. */
  east: number;
  north: number;
  lengthM: number;
  widthM: number;
  /** Orientation of the long side, degrees clockwise from north. */
  orientationDeg: number;
  /** Index of the first date the building stands on (null: stands from the start). */
  appearIndex: number | null;
  /** Index of the first date it is gone (null: stands to the end). */
  vanishIndex: number | null;
  /** γ0 VV (dB) while it stands. Default from the facade orientation, +1 … +8 dB. */
  vvDb?: number;
}

export type CropType = 'wheat' | 'maize' | 'sugarbeet' | 'potato' | 'grass' | 'idle';

/** A field: a rectangle in metres east/north of the stack's centre. */
export interface FieldSpec {
  id?: string;
  east: number;
  north: number;
  lengthM: number;
  widthM: number;
  orientationDeg: number;
  crop: CropType;
  /** Day of year of sowing, of the VH peak and of harvest (null: no cycle, or not harvested in the series). */
  sowingDoy?: number | null;
  peakDoy?: number | null;
  harvestDoy?: number | null;
  /** VH rise from bare soil to the peak (dB). */
  amplitudeDb?: number;
}

export type ChangeType = 'clearing' | 'flood';

/** An area whose backscatter changes at known dates. */
export interface ChangeSpec {
  id?: string;
  east: number;
  north: number;
  lengthM: number;
  widthM: number;
  orientationDeg: number;
  type: ChangeType;
  /** clearing: the first date after the forest is cut; flood: first and last flooded dates. */
  fromIndex: number;
  toIndex?: number;
}

export interface RtcStackSpec {
  scene: RtcSceneKind;
  seed: number;
  /** Stack centre (lon, lat). */
  center: Position;
  /** Pixels; default 200 × 200 (city), 120 × 120 (farmland). */
  width?: number;
  height?: number;
  /** Pixel spacing (m); default 10 (city), 30 (farmland, as OPERA). */
  pixelSize?: number;
  /** First acquisition on or after this day (ISO date or time). */
  start: string | Date;
  /** Number of dates. */
  count: number;
  /** Days between dates, a multiple of 12. Default 12. */
  intervalDays?: number;
  mission?: SynthMission;
  /** Relative orbit (1–175). */
  track: number;
  passDirection?: PassDirection;
  subswath?: 'IW1' | 'IW2' | 'IW3';
  pols?: Polarisation[];
  /** Equivalent looks of the speckle; default 4.4 at 10 m, 16 at ≥ 20 m. */
  looks?: number;
  /** Default 'deflate' (as OPERA writes). */
  compression?: 'deflate' | 'none';
  /** Replace the generated content. */
  buildings?: BuildingSpec[];
  fields?: FieldSpec[];
  changes?: ChangeSpec[];
  /**
   * A scene model of the caller's instead of `scene`'s built-in one (e.g. src/synth/fields.ts):
   * rendered on the same grid, with the same speckle, names, tags and truth file.
   */
  model?: (grid: RtcStackGrid, dates: Date[]) => RtcStackModel;
}

/** The pixel grid of a stack, for a caller's scene model (map coordinates in the stack's UTM zone). */
export interface RtcStackGrid {
  width: number;
  height: number;
  pixel: number;
  /** Map coordinates of the upper-left corner. */
  x0: number;
  y0: number;
  /** Map coordinates of the stack centre (east/north offsets are relative to it). */
  cx: number;
  cy: number;
}

/** A caller's scene: per date index and polarisation the speckle-free linear γ0 of every pixel (NaN: no data), and its truth. */
export interface RtcStackModel {
  render(k: number, pol: Polarisation, out: Float32Array): void;
  truth(toLonLat: (east: number, north: number) => Position, dates: string[]): TruthFeature[];
}

export interface WriteRtcResult {
  /** Every GeoTIFF written, date by date, VV before VH. */
  files: string[];
  groundTruthPath: string;
  /** Acquisition days (YYYY-MM-DD). */
  dates: string[];
  /** `T161-343981-IW2`. */
  burstId: string;
  epsg: number;
}

const DEG = Math.PI / 180;

// ------------------------------------------------------------------ raster helpers

interface Grid {
  width: number;
  height: number;
  pixel: number;
  /** Map coordinates of the upper-left corner. */
  x0: number;
  y0: number;
  /** Map coordinates of the stack centre (east/north offsets are relative to it). */
  cx: number;
  cy: number;
}

interface Rect {
  east: number;
  north: number;
  lengthM: number;
  widthM: number;
  orientationDeg: number;
}

/** Corners of a rectangle (metres east/north of the centre), counter-clockwise. */
function rectCorners(r: Rect): [number, number][] {
  const a = r.orientationDeg * DEG;
  const ux = Math.sin(a);
  const uy = Math.cos(a);
  const vx = Math.cos(a);
  const vy = -Math.sin(a);
  const l = r.lengthM / 2;
  const w = r.widthM / 2;
  return [
    [r.east - ux * l - vx * w, r.north - uy * l - vy * w],
    [r.east - ux * l + vx * w, r.north - uy * l + vy * w],
    [r.east + ux * l + vx * w, r.north + uy * l + vy * w],
    [r.east + ux * l - vx * w, r.north + uy * l - vy * w],
  ];
}

/** Fraction of each pixel covered by a rectangle (4 × 4 sub-samples), as sparse (index, fraction) pairs. */
function coverage(grid: Grid, r: Rect): { index: Int32Array; fraction: Float32Array } {
  const a = r.orientationDeg * DEG;
  const ux = Math.sin(a);
  const uy = Math.cos(a);
  const corners = rectCorners(r);
  const xs = corners.map((c) => grid.cx + c[0]);
  const ys = corners.map((c) => grid.cy + c[1]);
  const c0 = Math.max(0, Math.floor((Math.min(...xs) - grid.x0) / grid.pixel));
  const c1 = Math.min(grid.width - 1, Math.floor((Math.max(...xs) - grid.x0) / grid.pixel));
  const r0 = Math.max(0, Math.floor((grid.y0 - Math.max(...ys)) / grid.pixel));
  const r1 = Math.min(grid.height - 1, Math.floor((grid.y0 - Math.min(...ys)) / grid.pixel));
  const index: number[] = [];
  const fraction: number[] = [];
  for (let row = r0; row <= r1; row++) {
    for (let col = c0; col <= c1; col++) {
      let inside = 0;
      for (let sy = 0; sy < 4; sy++) {
        for (let sx = 0; sx < 4; sx++) {
          const e = grid.x0 + (col + (sx + 0.5) / 4) * grid.pixel - grid.cx - r.east;
          const n = grid.y0 - (row + (sy + 0.5) / 4) * grid.pixel - grid.cy - r.north;
          const along = e * ux + n * uy;
          const across = e * uy - n * ux;
          if (Math.abs(along) <= r.lengthM / 2 && Math.abs(across) <= r.widthM / 2) inside++;
        }
      }
      if (inside > 0) {
        index.push(row * grid.width + col);
        fraction.push(inside / 16);
      }
    }
  }
  return { index: Int32Array.from(index), fraction: Float32Array.from(fraction) };
}

// ------------------------------------------------------------------ scene models

/** A place: per date and polarisation, the noise- and speckle-free γ0 (linear) of every pixel. */
interface StackScene {
  render(k: number, pol: Polarisation, out: Float32Array): void;
  truth(toLonLat: (east: number, north: number) => Position, dates: string[]): TruthFeature[];
}

/** Smooth per-date wetness in [0, 1]: wetter in winter, with rain events. */
function wetness(dates: Date[], seed: number): number[] {
  const rng = new Random(seed, 'wetness');
  let w = 0.5;
  return dates.map((d) => {
    const doy = dayOfYear(d);
    const seasonal = 0.5 + 0.25 * Math.cos(((doy - 15) / 365) * 2 * Math.PI);
    w = 0.6 * w + 0.4 * (seasonal + rng.normal() * 0.15);
    return Math.max(0, Math.min(1, w + (rng.uniform() < 0.15 ? 0.3 : 0)));
  });
}

function dayOfYear(d: Date): number {
  return Math.floor((d.getTime() - Date.UTC(d.getUTCFullYear(), 0, 1)) / 86_400_000) + 1;
}

/** Static texture (dB) of natural surfaces: two-scale lattice noise, σ ≈ 0.6 dB. */
function textureDb(col: number, row: number, seed: number): number {
  return 1.4 * (latticeUniform(col, row, seed) - 0.5) + 1.4 * (latticeUniform(col >> 2, row >> 2, seed ^ 0x5bd1e995) - 0.5);
}

const CITY_CLASS = { grass: 0, forest: 1, bare: 2, paved: 3, water: 4, road: 5 } as const;

/** γ0 (dB) of city land covers: [VV, VH] at wetness 0.5. */
const CITY_GAMMA: Record<number, [number, number]> = {
  [CITY_CLASS.grass]: [-9, -16],
  [CITY_CLASS.forest]: [-7, -12],
  [CITY_CLASS.bare]: [-12, -21],
  [CITY_CLASS.paved]: [-11, -19],
  [CITY_CLASS.water]: [-20, -27],
  [CITY_CLASS.road]: [-16, -24],
};

interface PlacedBuilding extends BuildingSpec {
  id: string;
  cover: { index: Int32Array; fraction: Float32Array };
  /** First date of site clearing (bare soil) before construction; null for old buildings. */
  clearIndex: number | null;
  vv: number;
  vh: number;
}

interface PlacedChange extends ChangeSpec {
  id: string;
  cover: { index: Int32Array; fraction: Float32Array };
}

function facadeBrightnessDb(orientationDeg: number, lookAzimuthDeg: number): number {
  // Double bounce is strongest when a facade faces the radar (cardinal effect).
  const delta = ((orientationDeg - lookAzimuthDeg + 90) * DEG) % Math.PI;
  return 1 + 7 * Math.pow(Math.abs(Math.cos(delta)), 4);
}

/** Whether two rectangles (metres east/north of the centre) come closer than `gap` metres: separating axes. */
function rectsWithin(a: Rect, b: Rect, gap: number): boolean {
  if (Math.hypot(a.east - b.east, a.north - b.north) > (Math.hypot(a.lengthM, a.widthM) + Math.hypot(b.lengthM, b.widthM)) / 2 + gap) return false;
  const grow = (r: Rect): Rect => ({ ...r, lengthM: r.lengthM + gap, widthM: r.widthM + gap });
  const pa = rectCorners(grow(a));
  const pb = rectCorners(b);
  for (const r of [a, b]) {
    const t = r.orientationDeg * DEG;
    for (const [ax, ay] of [
      [Math.sin(t), Math.cos(t)],
      [Math.cos(t), -Math.sin(t)],
    ] as const) {
      const project = (ps: [number, number][]) => ps.map(([x, y]) => x * ax + y * ay);
      const qa = project(pa);
      const qb = project(pb);
      if (Math.max(...qa) <= Math.min(...qb) || Math.max(...qb) <= Math.min(...qa)) return false;
    }
  }
  return true;
}

/**
 * Buildings placed so far, for the rule that keeps the truth honest: a building that changes
 * during the series (new or demolished) overlaps no other building, with a gap of one pixel.
 * Otherwise a demolished building under a standing one leaves no change signal while the
 * truth still lists it, and a new building's site clearing would paint over a neighbour.
 * Old buildings that stand throughout may overlap each other (an old town's blocks do).
 */
class BuildingLayout {
  private readonly placed: { rect: Rect; changes: boolean }[] = [];

  constructor(private readonly gap: number) {}

  fits(rect: Rect, changes: boolean): boolean {
    return !this.placed.some((p) => (changes || p.changes) && rectsWithin(rect, p.rect, this.gap));
  }

  add(rect: Rect, changes: boolean): void {
    this.placed.push({ rect, changes });
  }
}

function generateCity(grid: Grid, count: number, seed: number): { buildings: BuildingSpec[]; changes: ChangeSpec[]; blocks: { rect: Rect; cls: number }[] } {
  const rng = new Random(seed, 'city-layout');
  // Positions re-drawn for buildings that would overlap (BuildingLayout) come from their own
  // stream, so the rest of the layout is what it was before the rule.
  const retry = new Random(seed, 'city-layout-retry');
  const layout = new BuildingLayout(grid.pixel);
  const RETRIES = 40;
  const W = grid.width * grid.pixel;
  const H = grid.height * grid.pixel;
  const orientation = rng.range(0, 25);
  const blocks: { rect: Rect; cls: number }[] = [];
  const buildings: BuildingSpec[] = [];
  const changes: ChangeSpec[] = [];
  const block = rng.range(100, 130);
  const road = 12;
  const a = orientation * DEG;
  // Block centres on a grid rotated by `orientation`, covering the area.
  const half = Math.hypot(W, H) / 2 + block;
  const cells: { e: number; n: number; i: number; j: number }[] = [];
  for (let i = -Math.ceil(half / block); i <= Math.ceil(half / block); i++) {
    for (let j = -Math.ceil(half / block); j <= Math.ceil(half / block); j++) {
      const u = i * block;
      const v = j * block;
      const e = u * Math.cos(a) + v * Math.sin(a);
      const n = -u * Math.sin(a) + v * Math.cos(a);
      if (Math.abs(e) > W / 2 + block / 2 || Math.abs(n) > H / 2 + block / 2) continue;
      cells.push({ e, n, i, j });
    }
  }
  // Zoning: old town in the west, development to the east, a park and a wood, a canal.
  const forestCell = cells.filter((c) => c.e > W * 0.15 && c.n > H * 0.2)[0];
  const floodCell = cells.filter((c) => c.e < -W * 0.1 && c.n < -H * 0.25).slice(-1)[0];
  let nextId = 1;
  for (const c of cells) {
    const rect: Rect = { east: c.e, north: c.n, lengthM: block - road, widthM: block - road, orientationDeg: orientation };
    const westness = (c.e + W / 2) / W;
    let cls: number = CITY_CLASS.grass;
    if (c === forestCell) cls = CITY_CLASS.forest;
    else if (c.i === 0) cls = CITY_CLASS.water; // a canal along one row of blocks
    else if (westness < 0.4) cls = CITY_CLASS.paved;
    else if (rng.uniform() < 0.15) cls = CITY_CLASS.forest;
    blocks.push({ rect, cls });
    if (cls === CITY_CLASS.paved) {
      // Old town: 2–4 buildings per block, a few demolished during the series.
      const n = 2 + rng.int(3);
      for (let k = 0; k < n; k++) {
        const len = rng.range(20, 60);
        const wid = rng.range(12, Math.min(35, len));
        const off = (block - road - len) / 2;
        const offw = (block - road - wid) / 2;
        const along = rng.range(-off, off);
        const across = rng.range(-offw, offw) * (k % 2 ? 1 : -1);
        const vanish = rng.uniform() < 0.12 && count >= 6 ? 2 + rng.int(count - 4) : null;
        const at = (al: number, ac: number, vanishIndex: number | null): BuildingSpec => ({
          id: '',
          east: c.e + al * Math.sin(a) + ac * Math.cos(a),
          north: c.n + al * Math.cos(a) - ac * Math.sin(a),
          lengthM: Math.round(len),
          widthM: Math.round(wid),
          orientationDeg: Math.round(orientation * 10) / 10,
          appearIndex: null,
          vanishIndex,
        });
        // A building to be demolished that finds no free spot in its block stands throughout
        // instead (old buildings may overlap each other), so the town keeps its buildings.
        let b: BuildingSpec | null = null;
        for (const v of vanish === null ? [null] : [vanish, null]) {
          b = at(along, across, v);
          for (let t = 0; t < RETRIES && !layout.fits(b, v !== null); t++) b = at(retry.range(-off, off), retry.range(-offw, offw), v);
          if (layout.fits(b, v !== null)) break;
          b = null;
        }
        if (!b) continue; // the block is full
        layout.add(b, b.vanishIndex !== null);
        buildings.push({ ...b, id: `building-${nextId++}` });
      }
    } else if (cls === CITY_CLASS.grass && westness >= 0.4 && rng.uniform() < 0.75 && count >= 6) {
      // Development: 1–3 new buildings appearing at known dates.
      const n = 1 + rng.int(3);
      for (let k = 0; k < n; k++) {
        const len = rng.range(10, 60);
        const wid = rng.range(10, Math.min(40, len));
        const off = Math.max(0, (block - road - len) / 2);
        const offw = Math.max(0, (block - road - wid) / 2);
        const along = (k - (n - 1) / 2) * (len + 8) * (n > 1 ? 0.9 : 0) + rng.range(-off, off) * 0.3;
        const across = rng.range(-offw, offw);
        const orientationDeg = Math.round((orientation + rng.range(-3, 3)) * 10) / 10;
        const appearIndex = 4 + rng.int(count - 6);
        const at = (al: number, ac: number): BuildingSpec => ({
          id: '',
          east: c.e + al * Math.sin(a) + ac * Math.cos(a),
          north: c.n + al * Math.cos(a) - ac * Math.sin(a),
          lengthM: Math.round(len),
          widthM: Math.round(wid),
          orientationDeg,
          appearIndex,
          vanishIndex: null,
        });
        let b = at(along, across);
        for (let t = 0; t < RETRIES && !layout.fits(b, true); t++) b = at(retry.range(-off, off), retry.range(-offw, offw));
        if (!layout.fits(b, true)) continue; // no room left in the block
        layout.add(b, true);
        buildings.push({ ...b, id: `building-${nextId++}` });
      }
    }
  }
  if (forestCell && count >= 6) {
    changes.push({
      id: 'change-clearing-1',
      east: forestCell.e,
      north: forestCell.n,
      lengthM: block - road,
      widthM: block - road,
      orientationDeg: orientation,
      type: 'clearing',
      fromIndex: Math.floor(count * 0.6),
    });
  }
  if (floodCell && count >= 6) {
    const from = Math.floor(count * 0.3);
    changes.push({
      id: 'change-flood-1',
      east: floodCell.e,
      north: floodCell.n,
      lengthM: block - road,
      widthM: block - road,
      orientationDeg: orientation,
      type: 'flood',
      fromIndex: from,
      toIndex: from + 1,
    });
    // The flood plain is grass, not paved.
    const b = blocks.find((x) => x.rect.east === floodCell.e && x.rect.north === floodCell.n);
    if (b) b.cls = CITY_CLASS.grass;
    for (let i = buildings.length - 1; i >= 0; i--) {
      const bd = buildings[i]!;
      if (Math.hypot(bd.east - floodCell.e, bd.north - floodCell.n) < block / 2) buildings.splice(i, 1);
    }
  }
  return { buildings, changes, blocks };
}

class CityScene implements StackScene {
  private readonly cls: Uint8Array;
  private readonly texture: Float32Array;
  private readonly buildings: PlacedBuilding[];
  private readonly changes: PlacedChange[];
  private readonly wet: number[];
  private readonly windDb: number[];

  constructor(
    private readonly grid: Grid,
    private readonly dates: Date[],
    spec: RtcStackSpec,
    lookAzimuthDeg: number,
  ) {
    const n = grid.width * grid.height;
    const generated = generateCity(grid, dates.length, spec.seed);
    this.cls = new Uint8Array(n).fill(CITY_CLASS.road);
    for (const b of generated.blocks) {
      const cover = coverage(grid, b.rect);
      for (let i = 0; i < cover.index.length; i++) if (cover.fraction[i]! >= 0.5) this.cls[cover.index[i]!] = b.cls;
    }
    this.texture = new Float32Array(n);
    const ts = hashSeed(spec.seed, 'city-texture');
    for (let i = 0; i < n; i++) this.texture[i] = textureDb(i % grid.width, Math.floor(i / grid.width), ts);
    const rng = new Random(spec.seed, 'city-buildings');
    this.buildings = (spec.buildings ?? generated.buildings).map((b, i) => {
      const vv = b.vvDb ?? facadeBrightnessDb(b.orientationDeg, lookAzimuthDeg) + rng.normal() * 0.7;
      return {
        ...b,
        id: b.id ?? `building-${i + 1}`,
        cover: coverage(grid, b),
        clearIndex: b.appearIndex === null ? null : Math.max(0, b.appearIndex - 2 - rng.int(4)),
        vv: dbToLinear(vv),
        vh: dbToLinear(vv - 10 - rng.range(0, 2)),
      };
    });
    this.changes = (spec.changes ?? generated.changes).map((c, i) => ({ ...c, id: c.id ?? `change-${i + 1}`, cover: coverage(grid, c) }));
    this.wet = wetness(dates, spec.seed);
    const windRng = new Random(spec.seed, 'city-water');
    this.windDb = dates.map(() => windRng.range(-4, 4));
  }

  render(k: number, pol: Polarisation, out: Float32Array): void {
    const p = pol === 'VV' ? 0 : 1;
    const wet = this.wet[k]! - 0.5;
    const doy = dayOfYear(this.dates[k]!);
    const leaf = Math.sin(((doy - 100) / 365) * 2 * Math.PI); // +1 in high summer
    const level = new Float64Array(6);
    for (const [c, g] of Object.entries(CITY_GAMMA)) {
      const cls = Number(c);
      let db = g[p]!;
      if (cls === CITY_CLASS.bare) db += 4 * wet;
      if (cls === CITY_CLASS.grass) db += 2 * wet + (p === 1 ? 1.2 * leaf : 0.4 * leaf);
      if (cls === CITY_CLASS.forest) db += 0.5 * wet;
      if (cls === CITY_CLASS.water) db += this.windDb[k]!;
      level[cls] = db;
    }
    for (let i = 0; i < out.length; i++) {
      const cls = this.cls[i]!;
      const tex = cls === CITY_CLASS.water ? 0 : this.texture[i]!;
      out[i] = dbToLinear(level[cls]! + tex);
    }
    for (const c of this.changes) {
      const active = c.type === 'clearing' ? k >= c.fromIndex : k >= c.fromIndex && k <= (c.toIndex ?? c.fromIndex);
      if (!active) continue;
      // Clearing: forest becomes bare soil. Flood: open water (specular, very dark).
      const target = c.type === 'clearing' ? dbToLinear(CITY_GAMMA[CITY_CLASS.bare]![p]! + 4 * wet) : dbToLinear(p === 0 ? -21 : -28);
      for (let j = 0; j < c.cover.index.length; j++) {
        const i = c.cover.index[j]!;
        const f = c.cover.fraction[j]!;
        out[i] = (1 - f) * out[i]! + f * target * dbToLinear(c.type === 'clearing' ? this.texture[i]! : 0);
      }
    }
    const bare = dbToLinear(CITY_GAMMA[CITY_CLASS.bare]![p]! + 4 * wet);
    for (const b of this.buildings) {
      const stands = (b.appearIndex === null || k >= b.appearIndex) && (b.vanishIndex === null || k < b.vanishIndex);
      const cleared = (b.clearIndex !== null && k >= b.clearIndex && b.appearIndex !== null && k < b.appearIndex) || (b.vanishIndex !== null && k >= b.vanishIndex);
      if (!stands && !cleared) continue;
      const value = stands ? (p === 0 ? b.vv : b.vh) : bare;
      for (let j = 0; j < b.cover.index.length; j++) {
        const i = b.cover.index[j]!;
        const f = b.cover.fraction[j]!;
        out[i] = (1 - f) * out[i]! + f * value;
      }
    }
  }

  truth(toLonLat: (east: number, north: number) => Position, dates: string[]): TruthFeature[] {
    const ring = (r: Rect) => rectCorners(r).map(([e, n]) => toLonLat(e, n));
    const out: TruthFeature[] = [];
    // Only what the stack images: objects with at least part of a pixel in the grid.
    for (const b of this.buildings) {
      if (b.cover.index.length === 0) continue;
      const status = b.appearIndex !== null ? 'new' : b.vanishIndex !== null ? 'demolished' : 'existing';
      out.push(
        feature('building', b.id, polygonGeometry([ring(b)]), {
          status,
          appear_date: b.appearIndex !== null ? dates[b.appearIndex] ?? null : null,
          vanish_date: b.vanishIndex !== null ? dates[b.vanishIndex] ?? null : null,
          construction_start_date: b.clearIndex !== null ? dates[b.clearIndex] ?? null : null,
          length_m: b.lengthM,
          width_m: b.widthM,
          orientation_deg: b.orientationDeg,
          gamma0_vv_db: Math.round(10 * Math.log10(b.vv) * 100) / 100,
          gamma0_vh_db: Math.round(10 * Math.log10(b.vh) * 100) / 100,
        }),
      );
    }
    for (const c of this.changes) {
      if (c.cover.index.length === 0) continue;
      const changeDates = c.type === 'clearing' ? [dates[c.fromIndex]] : [dates[c.fromIndex], dates[(c.toIndex ?? c.fromIndex) + 1]];
      out.push(
        feature('changepoint', c.id, polygonGeometry([ring(c)]), {
          change_type: c.type,
          change_dates: changeDates.filter((d): d is string => d !== undefined),
          description:
            c.type === 'clearing'
              ? 'forest cut: VH −5 dB, VV −3 dB from the first change date on'
              : 'flooded (open water, VV ≈ −21 dB) from the first change date until the day before the second',
        }),
      );
    }
    return out;
  }
}

// ------------------------------------------------------------------ farmland

const CROPS: { crop: CropType; share: number }[] = [
  { crop: 'maize', share: 0.25 },
  { crop: 'wheat', share: 0.22 },
  { crop: 'sugarbeet', share: 0.13 },
  { crop: 'potato', share: 0.1 },
  { crop: 'grass', share: 0.12 },
  { crop: 'idle', share: 0.18 },
];

/** Crop calendar (day of year) and VH amplitude (dB); wheat is winter wheat, already up in spring. */
interface CropCalendar {
  sowingDoy: number | null;
  peakDoy: number | null;
  harvestDoy: number | null;
  amplitudeDb: number;
}

function cropCalendar(crop: CropType, rng: Random): CropCalendar {
  switch (crop) {
    case 'maize':
      return { sowingDoy: Math.round(rng.range(112, 128)), peakDoy: Math.round(rng.range(200, 215)), harvestDoy: Math.round(rng.range(265, 290)), amplitudeDb: rng.range(7, 8) };
    case 'wheat':
      return { sowingDoy: Math.round(rng.range(285, 300)) - 365, peakDoy: Math.round(rng.range(145, 160)), harvestDoy: Math.round(rng.range(200, 215)), amplitudeDb: rng.range(5, 6) };
    case 'sugarbeet':
      return { sowingDoy: Math.round(rng.range(90, 105)), peakDoy: Math.round(rng.range(205, 225)), harvestDoy: Math.round(rng.range(275, 300)), amplitudeDb: rng.range(6.5, 7.5) };
    case 'potato':
      return { sowingDoy: Math.round(rng.range(100, 115)), peakDoy: Math.round(rng.range(175, 190)), harvestDoy: Math.round(rng.range(235, 255)), amplitudeDb: rng.range(5.5, 6.5) };
    case 'grass':
    case 'idle':
      return { sowingDoy: null, peakDoy: null, harvestDoy: null, amplitudeDb: 0 };
  }
}

const BARE_VH = -21;
const BARE_VV = -13;

/** VH/VV γ0 (dB) of a field on a day of year: emergence, logistic growth, plateau, senescence, harvest. */
function fieldGammaDb(f: Required<FieldSpec>, doy: number, wet: number, mowings: number[]): [number, number] {
  if (f.crop === 'idle') return [-11.5 + 1 * wet, -18.5 + 0.5 * wet];
  if (f.crop === 'grass') {
    let vh = -16 + 0.8 * Math.sin(((doy - 100) / 365) * 2 * Math.PI) + wet;
    // Mowing knocks VH down by ~3 dB, recovering over ~3 weeks.
    for (const m of mowings) if (doy >= m && doy < m + 24) vh -= 3 * (1 - (doy - m) / 24);
    return [-10 + wet, vh];
  }
  const sow = f.sowingDoy!;
  const peak = f.peakDoy!;
  const harvest = f.harvestDoy ?? 400;
  const soilVh = BARE_VH + 3 * wet;
  const soilVv = BARE_VV + 4 * wet;
  if (doy < sow || doy >= harvest) {
    const stubble = doy >= harvest ? 1 : 0;
    return [soilVv + stubble, soilVh + stubble];
  }
  const emergence = sow + 12;
  const mid = (emergence + peak) / 2;
  const tau = Math.max(5, (peak - emergence) / 8);
  let g = 1 / (1 + Math.exp(-(doy - mid) / tau));
  if (doy > peak + 20) g -= Math.min(0.25, ((doy - peak - 20) / 60) * 0.25); // senescence
  const vvAmplitude = f.crop === 'wheat' ? -2.5 : f.crop === 'maize' ? 3 : 4;
  // The crop canopy hides the soil: wetness matters less as it grows.
  return [soilVv * (1 - g) + (BARE_VV + vvAmplitude) * g + 2 * wet * (1 - g), soilVh * (1 - g) + (BARE_VH + f.amplitudeDb) * g];
}

function generateFarmland(grid: Grid, seed: number): FieldSpec[] {
  const rng = new Random(seed, 'farm-layout');
  const W = grid.width * grid.pixel;
  const H = grid.height * grid.pixel;
  const orientation = rng.range(-10, 10);
  const a = orientation * DEG;
  const fields: FieldSpec[] = [];
  // Polder parcels: blocks of ~0.9 × 0.8 km split into 2–3 fields of ~250–400 m.
  const blockL = rng.range(850, 1000);
  const blockW = rng.range(700, 850);
  const half = Math.hypot(W, H) / 2 + blockL;
  let id = 1;
  const bag: CropType[] = [];
  for (let i = -Math.ceil(half / blockW); i <= Math.ceil(half / blockW); i++) {
    for (let j = -Math.ceil(half / blockL); j <= Math.ceil(half / blockL); j++) {
      const u = i * blockW;
      const v = j * blockL;
      const e = u * Math.cos(a) + v * Math.sin(a);
      const n = -u * Math.sin(a) + v * Math.cos(a);
      if (Math.abs(e) > W / 2 || Math.abs(n) > H / 2) continue;
      // Each block is split along its length into 2–3 fields with a ditch between.
      const parts = 2 + rng.int(2);
      const width = (blockW - 30) / parts;
      for (let k = 0; k < parts; k++) {
        const across = -((blockW - 30) / 2) + (k + 0.5) * width;
        if (bag.length === 0) {
          for (const c of CROPS) for (let m = 0; m < Math.round(c.share * 50); m++) bag.push(c.crop);
        }
        const crop = bag.splice(rng.int(bag.length), 1)[0]!;
        fields.push({
          id: `field-${id++}`,
          east: e + across * Math.cos(a),
          north: n - across * Math.sin(a),
          lengthM: Math.round(blockL - 40),
          widthM: Math.round(width - 12),
          orientationDeg: Math.round(orientation * 10) / 10,
          crop,
        });
      }
    }
  }
  // At least two idle fields, so the idle detector always has something to find.
  for (let k = 0; fields.filter((f) => f.crop === 'idle').length < Math.min(2, fields.length) && k < fields.length; k++) {
    if (fields[k]!.crop !== 'idle') fields[k]!.crop = 'idle';
  }
  return fields;
}

class FarmlandScene implements StackScene {
  private readonly owner: Int16Array;
  private readonly fraction: Float32Array;
  private readonly texture: Float32Array;
  private readonly fields: (Required<FieldSpec> & { cover: { index: Int32Array; fraction: Float32Array }; mowings: number[] })[];
  private readonly wet: number[];

  constructor(
    private readonly grid: Grid,
    private readonly dates: Date[],
    spec: RtcStackSpec,
  ) {
    const n = grid.width * grid.height;
    const rng = new Random(spec.seed, 'farm-calendar');
    this.fields = (spec.fields ?? generateFarmland(grid, spec.seed)).map((f, i) => {
      const cal = cropCalendar(f.crop, rng);
      const mowings = f.crop === 'grass' ? [Math.round(rng.range(135, 150)), Math.round(rng.range(185, 200)), Math.round(rng.range(235, 250))] : [];
      return {
        ...f,
        id: f.id ?? `field-${i + 1}`,
        sowingDoy: f.sowingDoy !== undefined ? f.sowingDoy : cal.sowingDoy,
        peakDoy: f.peakDoy !== undefined ? f.peakDoy : cal.peakDoy,
        harvestDoy: f.harvestDoy !== undefined ? f.harvestDoy : cal.harvestDoy,
        amplitudeDb: f.amplitudeDb ?? cal.amplitudeDb,
        cover: coverage(grid, f),
        mowings,
      };
    });
    this.owner = new Int16Array(n).fill(-1);
    this.fraction = new Float32Array(n);
    this.fields.forEach((f, fi) => {
      for (let j = 0; j < f.cover.index.length; j++) {
        const i = f.cover.index[j]!;
        if (f.cover.fraction[j]! > this.fraction[i]!) {
          this.fraction[i] = f.cover.fraction[j]!;
          this.owner[i] = fi;
        }
      }
    });
    this.texture = new Float32Array(n);
    const ts = hashSeed(spec.seed, 'farm-texture');
    for (let i = 0; i < n; i++) this.texture[i] = 0.6 * textureDb(i % grid.width, Math.floor(i / grid.width), ts);
    this.wet = wetness(dates, spec.seed);
  }

  render(k: number, pol: Polarisation, out: Float32Array): void {
    const p = pol === 'VV' ? 0 : 1;
    const wet = this.wet[k]! - 0.5;
    const doy = dayOfYear(this.dates[k]!);
    const levels = this.fields.map((f) => fieldGammaDb(f, doy, wet, f.mowings)[p]!);
    // Ditches, tracks and verges between fields: rough grass.
    const verge = p === 0 ? -10 + wet : -16.5 + 0.5 * wet;
    for (let i = 0; i < out.length; i++) {
      const o = this.owner[i]!;
      const f = this.fraction[i]!;
      const field = o >= 0 ? dbToLinear(levels[o]!) : 0;
      out[i] = ((1 - f) * dbToLinear(verge) + f * field) * dbToLinear(this.texture[i]!);
    }
  }

  truth(toLonLat: (east: number, north: number) => Position, dates: string[]): TruthFeature[] {
    const first = this.dates[0]!;
    const last = this.dates[this.dates.length - 1]!;
    const dateOfDoy = (doy: number | null): string | null => {
      if (doy === null) return null;
      const d = new Date(Date.UTC(first.getUTCFullYear(), 0, 1) + (doy - 1) * 86_400_000);
      return isoDay(d);
    };
    const inSeries = (doy: number | null) => {
      if (doy === null) return false;
      const d = Date.UTC(first.getUTCFullYear(), 0, 1) + (doy - 1) * 86_400_000;
      return d >= first.getTime() - 86_400_000 && d <= last.getTime();
    };
    return this.fields.filter((f) => f.cover.index.length > 0).map((f) => {
      const idle = f.crop === 'idle';
      // Change points: the first acquisition after harvest (VH drop of the crop's amplitude).
      const harvestIndex = f.harvestDoy !== null && inSeries(f.harvestDoy) ? this.dates.findIndex((d) => dayOfYear(d) >= f.harvestDoy!) : -1;
      return feature('field', f.id, polygonGeometry([rectCorners(f).map(([e, n]) => toLonLat(e, n))]), {
        crop: f.crop,
        idle,
        growth_cycle: !idle && f.crop !== 'grass',
        sowing_date: dateOfDoy(f.sowingDoy),
        peak_date: dateOfDoy(f.peakDoy),
        harvest_date: dateOfDoy(f.harvestDoy),
        harvested_in_series: harvestIndex >= 0,
        vh_amplitude_db: Math.round(f.amplitudeDb * 100) / 100,
        change_dates: harvestIndex >= 0 ? [dates[harvestIndex]] : [],
        length_m: f.lengthM,
        width_m: f.widthM,
      });
    });
  }
}

// ------------------------------------------------------------------ writer

function utmEpsg(lon: number, lat: number): number {
  const zone = Math.min(60, Math.max(1, Math.floor((lon + 180) / 6) + 1));
  return (lat >= 0 ? 32600 : 32700) + zone;
}

function asDate(t: string | Date): Date {
  const d = t instanceof Date ? t : new Date(/T/.test(t) ? (/[zZ]|[+-]\d\d:?\d\d$/.test(t) ? t : `${t}Z`) : `${t}T00:00:00Z`);
  if (Number.isNaN(d.getTime())) throw new RangeError(`invalid date ${String(t)}`);
  return d;
}

/**
 * Write an OPERA-style RTC stack into `dir` (created if needed; existing files of the same
 * names are replaced) and `<dir>/<burst>_<scene>.truth.geojson`.
 */
export async function writeRtcStack(dir: string, spec: RtcStackSpec): Promise<WriteRtcResult> {
  const mission = spec.mission ?? 'S1A';
  const pass = spec.passDirection ?? 'ascending';
  const subswath = spec.subswath ?? 'IW2';
  const pols = spec.pols ?? ['VV', 'VH'];
  const pixel = spec.pixelSize ?? (spec.scene === 'city' ? 10 : 30);
  const width = spec.width ?? (spec.scene === 'city' ? 200 : 120);
  const height = spec.height ?? width;
  const looks = spec.looks ?? (pixel >= 20 ? 16 : IW_GRDH_ENL);
  const [lon, lat] = spec.center;
  const epsg = utmEpsg(lon, lat);
  const proj = lonLatTransform(epsg);
  const [cx0, cy0] = proj.fromLonLat(lon, lat);
  // OPERA snaps its grid to multiples of the posting.
  const x0 = Math.round((cx0 - (width * pixel) / 2) / pixel) * pixel;
  const y0 = Math.round((cy0 + (height * pixel) / 2) / pixel) * pixel;
  const grid: Grid = { width, height, pixel, x0, y0, cx: x0 + (width * pixel) / 2, cy: y0 - (height * pixel) / 2 };
  const toLonLat = (east: number, north: number): Position => proj.toLonLat(grid.cx + east, grid.cy + north);

  const acquisitions: TrackAcquisition[] = trackAcquisitions(mission, spec.track, pass, lat, asDate(spec.start), spec.count, spec.intervalDays ?? 12);
  const dates = acquisitions.map((a) => a.time);
  const dayStrings = dates.map(isoDay);
  const burst = burstIdNumber(spec.track, secondsAfterAnx(lat, pass));
  const burstId = `T${String(spec.track).padStart(3, '0')}-${String(burst).padStart(6, '0')}-${subswath}`;
  // Sentinel-1 looks right of its heading.
  const lookAzimuth = platformHeading(lat, pass) + 90;
  const scene: StackScene = spec.model
    ? spec.model(grid, dates)
    : spec.scene === 'city' ? new CityScene(grid, dates, spec, lookAzimuth) : new FarmlandScene(grid, dates, spec);

  await mkdir(dir, { recursive: true });
  const files: string[] = [];
  const gamma = new Float32Array(width * height);
  const speckle = new Float32Array(width * height);
  const bbox = [x0, y0 - height * pixel, x0 + width * pixel, y0];
  for (let k = 0; k < acquisitions.length; k++) {
    const acq = acquisitions[k]!;
    const stop = addSeconds(acq.time, 3.1);
    const processed = addSeconds(acq.time, 8 * 3600 + 41 * 60 + (hashSeed(spec.seed, k) % 3000));
    for (const pol of pols) {
      const name = `OPERA_L2_RTC-S1_${burstId}_${compactUtc(acq.time)}Z_${compactUtc(processed)}Z_${mission}_${pixel}_v1.0_${pol}.tif`;
      const file = path.join(dir, name);
      await rm(file, { force: true });
      scene.render(k, pol, gamma);
      new SpeckleSampler(new Random(spec.seed, `speckle-${k}-${pol}`), looks).fill(speckle);
      for (let i = 0; i < gamma.length; i++) gamma[i]! *= speckle[i]!;
      const writer = await TiffWriter.create(file, {
        width,
        height,
        sampleType: 'float32',
        rowsPerStrip: 16,
        compression: spec.compression ?? 'deflate',
        nodata: Number.NaN,
        georeference: { type: 'epsg', epsg, originX: x0, originY: y0, pixelWidth: pixel, pixelHeight: pixel },
        gdalMetadata: {
          dataset: {
            ABSOLUTE_ORBIT_NUMBER: String(acq.absoluteOrbit),
            ACQUISITION_MODE: 'IW',
            BOUNDING_BOX: `[${bbox.map((v) => v.toFixed(1)).join(', ')}]`,
            BOUNDING_BOX_EPSG_CODE: String(epsg),
            BURST_ID: burstId.toLowerCase().replace(/-/g, '_'),
            INSTITUTION: 'sarwatch (synthetic data, not an OPERA product)',
            INSTRUMENT_NAME: `Sentinel-1${mission.slice(2)} CSAR`,
            LAYER_NAME: `RTC-S1 ${pol} Backscatter`,
            LOOK_DIRECTION: 'right',
            ORBIT_PASS_DIRECTION: pass,
            PLATFORM: `Sentinel-1${mission.slice(2)}`,
            PROCESSING_DATETIME: processed.toISOString().replace(/\.\d{3}Z$/, '.000000Z'),
            PROCESSING_INFORMATION_OUTPUT_BACKSCATTER_EXPRESSION_CONVENTION: 'linear backscatter intensity',
            PROCESSING_INFORMATION_OUTPUT_BACKSCATTER_NORMALIZATION_CONVENTION: 'gamma0',
            PRODUCT_LEVEL: 'L2',
            PRODUCT_TYPE: 'RTC-S1',
            PRODUCT_VERSION: '1.0',
            PROJECT: 'OPERA',
            RADAR_BAND: 'C',
            SARWATCH_SYNTHETIC: 'true',
            SARWATCH_EQUIVALENT_LOOKS: String(looks),
            SUB_SWATH_ID: subswath,
            TRACK_NUMBER: String(spec.track),
            ZERO_DOPPLER_END_TIME: stop.toISOString().replace(/\.\d{3}Z$/, `.${String(stop.getUTCMilliseconds()).padStart(3, '0')}000Z`),
            ZERO_DOPPLER_START_TIME: acq.time.toISOString().replace(/\.\d{3}Z$/, `.${String(acq.time.getUTCMilliseconds()).padStart(3, '0')}000Z`),
          },
          bands: [{ description: `RTC-S1 ${pol} Backscatter` }],
        },
      });
      try {
        await writer.writeRows(gamma, height);
      } catch (error) {
        await writer.abort();
        throw error;
      }
      await writer.close();
      files.push(file);
    }
  }
  const groundTruthPath = path.join(dir, `${burstId}_${spec.scene}.truth.geojson`);
  await writeTruth(groundTruthPath, scene.truth(toLonLat, dayStrings), {
    productType: 'RTC',
    scene: spec.scene,
    burstId,
    track: spec.track,
    mission,
    passDirection: pass,
    epsg,
    geotransform: [x0, pixel, 0, y0, 0, -pixel],
    width,
    height,
    pixelSize: pixel,
    looks,
    seed: spec.seed,
    dates: dayStrings,
    acquisitionTimes: dates.map((d) => d.toISOString()),
    absoluteOrbits: acquisitions.map((a) => a.absoluteOrbit),
  });
  return { files, groundTruthPath, dates: dayStrings, burstId, epsg };
}
