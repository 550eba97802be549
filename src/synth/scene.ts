/**
 * The physics of synthetic Sentinel-1 GRD scenes: noise-free, speckle-free σ0 of sea, land,
 * urban areas, ships and oil slicks, per pixel, row block by row block. The SAFE writer
 * (safe.ts) adds thermal noise and speckle and turns σ0 into DN with the calibration LUT.
 * docs/synth.md lists every model and parameter; the sources are named where they are used.
 */
import type { Position } from '../geo/types.ts';
import type { GrdGeometry } from './geometry.ts';
import { latticeUniform, hashSeed, Random } from './random.ts';
import { feature, polygonGeometry, type TruthFeature } from './truth.ts';
import { EARTH_RADIUS_M, INCLINATION_DEG, ORBIT_ALTITUDE_M, WAVELENGTH_M } from './orbit.ts';
import { cmod5nSigma0 } from '../imagery/cmod5n.ts';
import {
  placeInternalWaves,
  placeRainCell,
  placeShipWake,
  placeUpwelling,
  type InternalWaveSpec,
  type RainCellSpec,
  type SeaSignature,
  type ShipWakeSpec,
  type UpwellingSpec,
} from './seaSignatures.ts';

const DEG = Math.PI / 180;

/** Equivalent number of looks of IW GRDH products (ESA Sentinel-1 User Guide, "Level-1 GRD": 4.4). */
export const IW_GRDH_ENL = 4.4;

export type Polarisation = 'VV' | 'VH';

export function dbToLinear(db: number): number {
  return Math.pow(10, db / 10);
}

export function linearToDb(v: number): number {
  return 10 * Math.log10(v);
}

// ------------------------------------------------------------------------------ sea

/**
 * VV σ0 (linear) of the sea by CMOD5.N (src/imagery/cmod5n.ts, the model the oil-slick
 * detector uses too): 10 m neutral wind speed (m/s), wind direction relative to the look
 * direction (0° = wind blowing towards the radar, upwind) and incidence angle (degrees). At
 * 7 m/s, averaged over direction, about −12 dB at 30° and −20 dB at 46°; upwind about 3 dB
 * higher, crosswind 2–3 dB lower.
 */
export const cmod5n = cmod5nSigma0;

/**
 * VH σ0 (linear) of the sea: C-2PO-like linear dB law, σ0_VH ≈ 0.58·U − 35.6 dB (Zhang &
 * Perrie 2012, "Cross-polarized ocean backscatter from RADARSAT-2", BAMS; Hwang et al. 2015
 * find the same slope for Sentinel-1), independent of incidence and direction. At 7 m/s
 * that is −31.5 dB, below the IW noise floor: VH sea is mostly thermal noise, as the real
 * North-Sea sample shows (denoised median −30.9 dB at 33°).
 */
export function seaVh(windSpeed: number): number {
  return dbToLinear(0.58 * Math.max(windSpeed, 0) - 35.6);
}

/**
 * Extra damping below the Bragg-wave threshold: capillary waves need about 2 m/s to form,
 * so calm patches are much darker than CMOD5.N (fitted above 2–3 m/s) extrapolates.
 * U⁴ / (U⁴ + 1.5⁴): −1.2 dB at 2 m/s, −7.8 dB at 1 m/s.
 */
export function lowWindFactor(windSpeed: number): number {
  const u4 = windSpeed ** 4;
  return u4 / (u4 + 5.0625);
}

export function seaSigma0(pol: Polarisation, windSpeed: number, relativeDirectionDeg: number, incidenceDeg: number): number {
  const t = lowWindFactor(windSpeed);
  return pol === 'VV' ? cmod5n(windSpeed, relativeDirectionDeg, incidenceDeg) * t : seaVh(windSpeed) * t;
}

// ------------------------------------------------------------------------- noise

/**
 * Sub-swath incidence ranges and noise-equivalent σ0 (dB) at their near edge, centre and
 * far edge, read off the real North-Sea product's noise LUT (IPF 3.52) at line 4500.
 */
const SUBSWATHS = [
  { name: 'IW1', from: 30.14, to: 36.22, near: -22.7, centre: -25.6, far: -24.2, prf: 1717.13 },
  { name: 'IW2', from: 36.22, to: 41.5, near: -24.2, centre: -27.3, far: -25.2, prf: 1451.63 },
  { name: 'IW3', from: 41.5, to: 46.0, near: -25.2, centre: -29.4, far: -24.0, prf: 1685.82 },
] as const;

export type SubSwath = 'IW1' | 'IW2' | 'IW3';

export function subSwathAt(incidenceDeg: number): SubSwath {
  if (incidenceDeg < SUBSWATHS[0].to) return 'IW1';
  if (incidenceDeg < SUBSWATHS[1].to) return 'IW2';
  return 'IW3';
}

export function subSwathPrf(swath: SubSwath): number {
  return SUBSWATHS.find((s) => s.name === swath)!.prf;
}

/** Incidence range (degrees) of each sub-swath. */
export function subSwathBounds(swath: SubSwath): [number, number] {
  const s = SUBSWATHS.find((x) => x.name === swath)!;
  return [s.from, s.to];
}

/**
 * Noise-equivalent σ0 (dB) along range: `'sentinel1'` is the real scalloped pattern —
 * a bowl per sub-swath from about −23 dB at the edges to −25.6/−27.3/−29.4 dB in the
 * centres of IW1/IW2/IW3; a number is a flat level.
 */
export function neszDb(incidenceDeg: number, model: 'sentinel1' | number = 'sentinel1'): number {
  if (typeof model === 'number') return model;
  const s = SUBSWATHS.find((x) => incidenceDeg < x.to) ?? SUBSWATHS[2];
  const u = Math.max(-1, Math.min(1, (2 * (incidenceDeg - s.from)) / (s.to - s.from) - 1));
  const edge = u < 0 ? s.near : s.far;
  return s.centre + (edge - s.centre) * u * u;
}

// ------------------------------------------------------------------------- land

export type SurfaceKind = 'land' | 'forest' | 'urban' | 'port' | 'water';

interface SurfaceModel {
  /** σ0 (dB) at 35° incidence; σ0 ∝ cos θ (γ0 constant) elsewhere. */
  vv: number;
  vh: number;
  /** Log-normal texture standard deviation (dB), two spatial scales. */
  textureDb: number;
  /** K-distributed (exponential) texture for man-made areas, with this fraction of bright (×20) points. */
  brightFraction: number | null;
}

/**
 * Backscatter of land covers at C band, σ0 at 35°: grassland/crops −8/−15 dB, forest −7/−12,
 * urban +1/−8 with double-bounce points, industrial port +3/−5 (typical Sentinel-1 values,
 * e.g. those of the BigEarthNet-S1 patches).
 */
export const SURFACE_MODELS: Record<Exclude<SurfaceKind, 'water'>, SurfaceModel> = {
  land: { vv: -8, vh: -15, textureDb: 1.5, brightFraction: null },
  forest: { vv: -7, vh: -12, textureDb: 0.8, brightFraction: null },
  urban: { vv: 1, vh: -8, textureDb: 0, brightFraction: 0.015 },
  port: { vv: 3, vh: -5, textureDb: 0, brightFraction: 0.04 },
};

/** Sheltered water (harbour basins, canals): sea at this wind speed. */
const SHELTERED_WIND = 2.2;

/** Smooth value noise in [0, 1) on a lattice of `cell` pixels. */
function valueNoise(x: number, y: number, cell: number, seed: number): number {
  const fx = x / cell;
  const fy = y / cell;
  const ix = Math.floor(fx);
  const iy = Math.floor(fy);
  let tx = fx - ix;
  let ty = fy - iy;
  tx = tx * tx * (3 - 2 * tx);
  ty = ty * ty * (3 - 2 * ty);
  const a = latticeUniform(ix, iy, seed);
  const b = latticeUniform(ix + 1, iy, seed);
  const c = latticeUniform(ix, iy + 1, seed);
  const d = latticeUniform(ix + 1, iy + 1, seed);
  return a + (b - a) * tx + (c - a) * ty + (a - b - c + d) * tx * ty;
}

// -------------------------------------------------------------------------- PSF

/**
 * Impulse response (amplitude) of a Hamming-weighted spectrum, coefficient α (Sentinel-1
 * annotations give 0.70 for IW range and azimuth), u in resolution bins:
 * α·sinc(u) + (1 − α)/2·(sinc(u − 1) + sinc(u + 1)).
 */
function hammingResponse(u: number, alpha = 0.7): number {
  const sinc = (t: number) => (Math.abs(t) < 1e-9 ? 1 : Math.sin(Math.PI * t) / (Math.PI * t));
  return alpha * sinc(u) + ((1 - alpha) / 2) * (sinc(u - 1) + sinc(u + 1));
}

/** Half-power half-width of the Hamming(0.7) response, in bins. */
const HALF_POWER_HALF_WIDTH = (() => {
  let lo = 0;
  let hi = 1;
  for (let i = 0; i < 60; i++) {
    const mid = (lo + hi) / 2;
    if ((hammingResponse(mid) / hammingResponse(0)) ** 2 > 0.5) lo = mid;
    else hi = mid;
  }
  return lo;
})();

/** IW GRDH resolution (m): 20 in ground range, 22 in azimuth (ESA Sentinel-1 User Guide). */
export const IW_GRDH_RESOLUTION = { range: 20, azimuth: 22 };

/** Half-size (pixels) of rendered point-spread functions: sidelobes beyond are < −35 dB. */
const PSF_HALF = 10;

/**
 * Intensity PSF weights along one axis at integer offsets −PSF_HALF … PSF_HALF from a
 * target at sub-pixel offset `frac`, normalised to sum 1 (energy is conserved).
 */
function psfWeights(frac: number, spacing: number, resolution: number, half: number): Float64Array {
  const out = new Float64Array(2 * half + 1);
  const binPerPixel = (spacing / resolution) * 2 * HALF_POWER_HALF_WIDTH;
  let sum = 0;
  for (let k = -half; k <= half; k++) {
    const w = hammingResponse((k - frac) * binPerPixel) ** 2;
    out[k + half] = w;
    sum += w;
  }
  for (let i = 0; i < out.length; i++) out[i]! /= sum;
  return out;
}

// ---------------------------------------------------------------------- shapes

/** Even-odd scanline rasteriser of polygons in pixel coordinates (pixel centres). */
export class ScanlineRaster {
  private readonly edges: Float64Array;
  private readonly count: number;
  readonly minY: number;
  readonly maxY: number;
  readonly minX: number;
  readonly maxX: number;
  private readonly xs: number[] = [];

  constructor(rings: { x: number; y: number }[][]) {
    const list: number[] = [];
    let minY = Infinity;
    let maxY = -Infinity;
    let minX = Infinity;
    let maxX = -Infinity;
    for (const ring of rings) {
      for (let i = 0; i < ring.length; i++) {
        const a = ring[i]!;
        const b = ring[(i + 1) % ring.length]!;
        if (a.y === b.y) continue;
        list.push(a.x, a.y, b.x, b.y);
        minY = Math.min(minY, a.y, b.y);
        maxY = Math.max(maxY, a.y, b.y);
        minX = Math.min(minX, a.x, b.x);
        maxX = Math.max(maxX, a.x, b.x);
      }
    }
    // Sort edges by their lower y so a row only visits edges that can cross it.
    const order = Array.from({ length: list.length / 4 }, (_, i) => i).sort(
      (i, j) => Math.min(list[4 * i + 1]!, list[4 * i + 3]!) - Math.min(list[4 * j + 1]!, list[4 * j + 3]!),
    );
    this.edges = new Float64Array(list.length);
    order.forEach((e, k) => this.edges.set(list.slice(4 * e, 4 * e + 4), 4 * k));
    this.count = order.length;
    this.minY = minY;
    this.maxY = maxY;
    this.minX = minX;
    this.maxX = maxX;
  }

  /**
   * Spans [start, end) of the pixels of row `y` whose centres lie inside, clipped to
   * [x0, x1). Returns a flat array of pairs (reused between calls).
   */
  spans(y: number, x0: number, x1: number): number[] {
    const xs = this.xs;
    xs.length = 0;
    if (y < this.minY || y >= this.maxY) return xs;
    const e = this.edges;
    for (let k = 0; k < this.count; k++) {
      const ay = e[4 * k + 1]!;
      const by = e[4 * k + 3]!;
      if (Math.min(ay, by) > y) break;
      if (ay <= y ? by > y : by <= y) {
        const ax = e[4 * k]!;
        const bx = e[4 * k + 2]!;
        xs.push(ax + ((y - ay) * (bx - ax)) / (by - ay));
      }
    }
    xs.sort((a, b) => a - b);
    const out: number[] = [];
    for (let i = 0; i + 1 < xs.length; i += 2) {
      const s = Math.max(x0, Math.ceil(xs[i]!));
      const t = Math.min(x1, Math.ceil(xs[i + 1]!));
      if (t > s) out.push(s, t);
    }
    xs.length = 0;
    xs.push(...out);
    return xs;
  }
}

// ----------------------------------------------------------------------- specs

export interface WindSpec {
  /** Mean 10 m wind speed (m/s). */
  speed: number;
  /** Direction the wind blows from, degrees clockwise from north (meteorological). */
  directionDeg: number;
  /** Standard deviation of the smooth speed variation (m/s). Default 0.15 × speed. */
  variability?: number;
  /** Boundary-layer roll streaks along the wind (±4 % speed, 1.2–2.5 km). Default true. */
  streaks?: boolean;
}

/** A calm patch (wind falls to `minSpeed`): the dark look-alike of an oil slick. */
export interface LowWindPatchSpec {
  center: Position;
  /** Extent along and across `orientationDeg` (m), measured at the patch outline. */
  lengthM: number;
  widthM: number;
  orientationDeg?: number;
  /** Wind speed in the middle (m/s). Default 1.0. */
  minSpeed?: number;
  id?: string;
}

export interface SurfaceSpec {
  /** Default 'land'. Later surfaces paint over earlier ones. */
  kind?: SurfaceKind;
  /** Polygon rings (lon/lat; outer ring first, holes after). */
  polygon: Position[][];
  id?: string;
  /** Written to the truth file's `name`. */
  name?: string;
}

export interface ShipSpec {
  lon: number;
  lat: number;
  lengthM: number;
  /** Default lengthM / 6.5. */
  widthM?: number;
  /** Course, degrees clockwise from north. */
  headingDeg: number;
  /** Integrated VV radar cross-section (dBsm). Default 10·log10(0.2·L^2.5) ± 2 dB. */
  rcsDbsm?: number;
  /** VH − VV cross-section (dB). Default −7 ± 1.5. */
  crossPolDb?: number;
  /** A moving ship's wake (seaSignatures.ts), a `lookalike` in the truth. Default none. */
  wake?: ShipWakeSpec;
  id?: string;
}

export type StructureKind = 'turbine' | 'platform';

/**
 * A fixed structure (issue 23 §3): a wind turbine or a platform, a bright target at the same
 * place on every pass (its scattering centres come from the place's seed, `areaSeed`), drawn
 * like a ship that never moves; a `fixed_structure` in the truth.
 */
export interface StructureSpec {
  id: string;
  kind: StructureKind;
  lon: number;
  lat: number;
  /** Side of its square footprint (m). Default: turbine 10, platform 50. */
  sizeM?: number;
  /** Integrated VV radar cross-section (dBsm). Default: turbine 38, platform 45 (C-band turbines measure 30–50 dBsm). */
  rcsDbsm?: number;
  /** VH − VV cross-section (dB). Default −8. */
  crossPolDb?: number;
}

const STRUCTURE_DEFAULTS: Record<StructureKind, { sizeM: number; rcsDbsm: number }> = {
  turbine: { sizeM: 10, rcsDbsm: 38 },
  platform: { sizeM: 50, rcsDbsm: 45 },
};

export interface SlickSpec {
  /** Centre line (lon/lat), from the source (e.g. a ship) downstream. At least 2 points. */
  path: Position[];
  /** Width at the start and the end (m). Default [150, 600]. */
  widthM?: number | [number, number];
  /** Damping of the sea σ0 inside (dB). Default 8 (oil damps Bragg waves by 6–10 dB). */
  dampingDb?: number;
  /**
   * `oil` (default) or `biogenic`: a natural surface film (plankton, fish oils) drawn the same
   * way — usually weaker damping (2–4 dB) and long filaments; written to the truth as a
   * `lookalike` (cause "biogenic film"), not an `oilslick`.
   */
  film?: 'oil' | 'biogenic';
  id?: string;
}

export interface GrdSceneSpec {
  /** Randomness of this acquisition (wind detail, ship RCS draws, speckle). */
  seed: number;
  /** Randomness of the place (land texture, urban scatterers): equal for repeat passes. Default `seed`. */
  areaSeed?: number;
  wind: WindSpec;
  lowWind?: LowWindPatchSpec[];
  surfaces?: SurfaceSpec[];
  ships?: ShipSpec[];
  /** Wind turbines and platforms: the same on every pass with the same `areaSeed`. */
  structures?: StructureSpec[];
  slicks?: SlickSpec[];
  /** Look-alikes that are not calm wind or films (seaSignatures.ts): rain cells, internal-wave packets, upwelling. */
  rainCells?: RainCellSpec[];
  internalWaves?: InternalWaveSpec[];
  upwelling?: UpwellingSpec[];
  /** Azimuth ambiguities (−22 dB ghosts ±~600 lines away) of ships with RCS > 40 dBsm. Default true. */
  ambiguities?: boolean;
}

// ------------------------------------------------------- platform and azimuth ambiguities

/** Geocentric gravitational constant (m³/s², WGS84) and the Earth's rotation rate (rad/s). */
const GM_EARTH = 3.986004418e14;
const EARTH_ROTATION_RAD_S = 7.292115e-5;

export interface PlatformState {
  /** Sub-satellite point (degrees). */
  lat: number;
  lon: number;
  /** Earth-fixed velocity, north and east components and magnitude (m/s). */
  north: number;
  east: number;
  speed: number;
}

/**
 * The platform when it images `line` (zero Doppler): a circular orbit of radius
 * EARTH_RADIUS_M + ORBIT_ALTITUDE_M at INCLINATION_DEG, its sub-satellite point
 * `nearGroundRange` before pixel 0 across track (the nadir of the geometry's incidence model).
 * The Earth-fixed velocity is the inertial one (√(GM/r) along the inertial track azimuth
 * asin(cos i / cos φ)) minus the Earth's rotation (ω·r·cos φ eastward): ≈ 7590 m/s at
 * 50–55° N, what real S-1 annotations say (North-Sea product: 7591 m/s). The SAFE writer's
 * orbit state vectors and the ghost displacement both come from here.
 */
export function platformStateAt(g: GrdGeometry, line: number): PlatformState {
  const nadir = g.pixelToLonLat(line, -g.nearGroundRange / g.rangeSpacing);
  const r = EARTH_RADIUS_M + ORBIT_ALTITUDE_M;
  const phi = nadir.lat * DEG;
  const inertial = Math.sqrt(GM_EARTH / r);
  const ratio = Math.cos(INCLINATION_DEG * DEG) / Math.max(Math.cos(phi), 1e-6);
  const track = Math.asin(Math.max(-1, Math.min(1, ratio)));
  const azimuth = g.passDirection === 'ascending' ? track : Math.PI - track;
  const north = inertial * Math.cos(azimuth);
  const east = inertial * Math.sin(azimuth) - EARTH_ROTATION_RAD_S * r * Math.cos(phi);
  return { lat: nadir.lat, lon: nadir.lon, north, east, speed: Math.hypot(north, east) };
}

/**
 * Azimuth displacement (lines) of the first azimuth ambiguities of a target at (line, pixel):
 * the ghost lies where the Doppler history is off by one PRF. With the azimuth FM rate
 * 2·Vr²/(λR) and the image advancing at the ground speed Vg, the displacement on the ground
 * is λ·R·PRF·Vg/(2·Vr²) = λ·R·PRF/(2·Vs), since Vr² ≈ Vs·Vg (Vs the platform's Earth-fixed
 * speed). PRF of the sub-swath the target lies in, R the slant range. This is exactly what
 * the ship detector computes from the annotation (src/analysis/ship/ambiguity.ts).
 */
export function azimuthAmbiguityShiftLines(g: GrdGeometry, line: number, pixel: number): number {
  const p = Math.max(0, Math.min(g.width - 1, pixel));
  const prf = subSwathPrf(subSwathAt(g.incidenceAngle(p)));
  const vs = platformStateAt(g, line).speed;
  return (WAVELENGTH_M * g.slantRange(p) * prf) / (2 * vs) / g.azimuthSpacing;
}

// ----------------------------------------------------------------------- scene

/** Coarse grid spacing (pixels) of the smooth sea model. */
const GRID = 16;

interface PlacedShip {
  id: string;
  spec: ShipSpec;
  widthM: number;
  line: number;
  pixel: number;
  rcsVv: number;
  rcsVh: number;
  /** Patch of σ0 added to VV (and VH scaled by crossPol), row-major. */
  x0: number;
  y0: number;
  w: number;
  h: number;
  patch: Float32Array;
  crossPol: number;
  peakVv: number;
  ghost: boolean;
  parent?: string;
  /** A fixed structure (turbine, platform), not a ship. */
  structure?: StructureKind;
}

interface PlacedSlick {
  id: string;
  spec: SlickSpec;
  /** Centre line in pixels. */
  pts: { x: number; y: number }[];
  cum: number[];
  length: number;
  w0: number;
  w1: number;
  damping: number;
  bbox: [number, number, number, number];
}

/** A look-alike as the sea's renderer sees it: its modulation (dB) at a pixel, 0 where none and outside `bbox`. */
interface SeaModulation {
  /** Pixel box [x0, y0, x1, y1] (inclusive; columns are rounded inwards). */
  bbox: [number, number, number, number];
  dbAt(line: number, px: number): number;
}

interface PlacedPatch {
  id: string;
  spec: LowWindPatchSpec;
  east: number;
  north: number;
  cosO: number;
  sinO: number;
  halfLength: number;
  halfWidth: number;
  wobble: { k: number; a: number; p: number }[];
}

interface PlacedSurface {
  id: string;
  spec: SurfaceSpec;
  kind: SurfaceKind;
  raster: ScanlineRaster;
}

export class GrdScene {
  readonly geometry: GrdGeometry;
  readonly spec: GrdSceneSpec;
  private readonly nodesX: number;
  private readonly nodesY: number;
  private readonly gridVv: Float32Array;
  private readonly gridVh: Float32Array;
  /** Per column: incidence, cos θ / cos 35°, sheltered-water σ0. */
  private readonly incidence: Float64Array;
  private readonly cosRatio: Float64Array;
  private readonly waterVv: Float64Array;
  private readonly waterVh: Float64Array;
  private readonly ships: PlacedShip[] = [];
  private readonly slicks: PlacedSlick[] = [];
  private readonly patches: PlacedPatch[] = [];
  private readonly surfaces: PlacedSurface[] = [];
  private readonly signatures: SeaSignature[] = [];
  private readonly modulations: SeaModulation[];
  private readonly areaSeed: number;
  private rowVv: Float32Array;
  private rowVh: Float32Array;

  constructor(spec: GrdSceneSpec, geometry: GrdGeometry) {
    this.spec = spec;
    this.geometry = geometry;
    this.areaSeed = spec.areaSeed ?? spec.seed;
    const { width, height } = geometry;
    this.incidence = Float64Array.from({ length: width }, (_, x) => geometry.incidenceAngle(x));
    const cos35 = Math.cos(35 * DEG);
    this.cosRatio = this.incidence.map((t) => Math.cos(t * DEG) / cos35);
    const rel = spec.wind.directionDeg - geometry.lookAzimuthDeg;
    this.waterVv = this.incidence.map((t) => seaSigma0('VV', SHELTERED_WIND, rel, t));
    this.waterVh = this.incidence.map(() => seaSigma0('VH', SHELTERED_WIND, rel, 0));

    this.placePatches();
    this.placeSurfaces();
    this.placeSlicks();
    this.nodesX = Math.ceil((width - 1) / GRID) + 2;
    this.nodesY = Math.ceil((height - 1) / GRID) + 2;
    this.gridVv = new Float32Array(this.nodesX * this.nodesY);
    this.gridVh = new Float32Array(this.nodesX * this.nodesY);
    this.computeSeaGrid();
    this.rowVv = new Float32Array(this.nodesX);
    this.rowVh = new Float32Array(this.nodesX);
    this.placeShips();
    this.placeSignatures();
    // The sea's look-alikes multiply it in this order, row by row: rain cells, internal waves,
    // upwelling, ship wakes, then slicks and films.
    this.modulations = [
      ...this.signatures.map((sig): SeaModulation => ({
        bbox: sig.bbox,
        dbAt: (line, px) => {
          const { east, north } = geometry.toLocal(line, px);
          return sig.dbAt(east, north);
        },
      })),
      ...this.slicks.map((slick): SeaModulation => {
        const seed = hashSeed(spec.seed, slick.id);
        return { bbox: slick.bbox, dbAt: (line, px) => slickDb(slick, seed, line, px) };
      }),
    ];
  }

  // ------------------------------------------------------------ construction

  private placePatches(): void {
    const rng = new Random(this.spec.seed, 'low-wind');
    (this.spec.lowWind ?? []).forEach((p, i) => {
      const { line, pixel } = this.geometry.lonLatToPixel(p.center[0], p.center[1]);
      const { east, north } = this.geometry.toLocal(line, pixel);
      const o = (p.orientationDeg ?? 0) * DEG;
      this.patches.push({
        id: p.id ?? `lookalike-${i + 1}`,
        spec: p,
        east,
        north,
        // Unit vector of the patch's long axis in (east, north).
        sinO: Math.sin(o),
        cosO: Math.cos(o),
        halfLength: p.lengthM / 2,
        halfWidth: p.widthM / 2,
        wobble: [2, 3, 5].map((k) => ({ k, a: rng.range(0.04, 0.1), p: rng.range(0, 2 * Math.PI) })),
      });
    });
  }

  /** Normalised radius of a patch at a point: 1 on its outline (wobbled ellipse). */
  private patchRadius(p: PlacedPatch, east: number, north: number): number {
    const de = east - p.east;
    const dn = north - p.north;
    const u = (de * p.sinO + dn * p.cosO) / p.halfLength;
    const v = (de * p.cosO - dn * p.sinO) / p.halfWidth;
    const angle = Math.atan2(v, u);
    let wob = 1;
    for (const w of p.wobble) wob += w.a * Math.cos(w.k * angle + w.p);
    return Math.sqrt(u * u + v * v) / wob;
  }

  /** Calm-patch weight: 1 inside r ≤ 0.6, 0 beyond r ≥ 1.4, 0.5 on the outline. */
  private static patchWeight(r: number): number {
    if (r <= 0.6) return 1;
    if (r >= 1.4) return 0;
    const t = (r - 0.6) / 0.8;
    return 1 - t * t * (3 - 2 * t);
  }

  private placeSurfaces(): void {
    (this.spec.surfaces ?? []).forEach((s, i) => {
      const rings = s.polygon.map((ring) =>
        ring.map(([lon, lat]) => {
          const { line, pixel } = this.geometry.lonLatToPixel(lon, lat);
          return { x: pixel, y: line };
        }),
      );
      this.surfaces.push({ id: s.id ?? `${s.kind ?? 'land'}-${i + 1}`, spec: s, kind: s.kind ?? 'land', raster: new ScanlineRaster(rings) });
    });
  }

  private placeSlicks(): void {
    (this.spec.slicks ?? []).forEach((s, i) => {
      if (s.path.length < 2) throw new RangeError('a slick path needs at least 2 points');
      const pts = s.path.map(([lon, lat]) => {
        const { line, pixel } = this.geometry.lonLatToPixel(lon, lat);
        return { x: pixel, y: line };
      });
      const cum = [0];
      for (let k = 1; k < pts.length; k++) cum.push(cum[k - 1]! + Math.hypot(pts[k]!.x - pts[k - 1]!.x, pts[k]!.y - pts[k - 1]!.y));
      const [wa, wb] = typeof s.widthM === 'number' ? [s.widthM, s.widthM] : (s.widthM ?? [150, 600]);
      const spacing = this.geometry.rangeSpacing;
      const w0 = wa / 2 / spacing;
      const w1 = wb / 2 / spacing;
      const pad = Math.max(w0, w1) + 10;
      const xs = pts.map((p) => p.x);
      const ys = pts.map((p) => p.y);
      this.slicks.push({
        id: s.id ?? `slick-${i + 1}`,
        spec: s,
        pts,
        cum,
        length: cum[cum.length - 1]!,
        w0,
        w1,
        damping: s.dampingDb ?? 8,
        bbox: [Math.min(...xs) - pad, Math.min(...ys) - pad, Math.max(...xs) + pad, Math.max(...ys) + pad],
      });
    });
  }

  private computeSeaGrid(): void {
    const g = this.geometry;
    const wind = this.spec.wind;
    const rng = new Random(this.spec.seed, 'wind-field');
    const variability = (wind.variability ?? 0.15 * wind.speed) / Math.max(wind.speed, 0.1);
    // Smooth speed variation: plane waves of 4–40 km, amplitudes ∝ √λ, rms = variability.
    const speedWaves = Array.from({ length: 10 }, () => {
      const lambda = 4000 * Math.pow(10, rng.uniform());
      const dir = rng.range(0, 2 * Math.PI);
      return { kx: (2 * Math.PI * Math.sin(dir)) / lambda, ky: (2 * Math.PI * Math.cos(dir)) / lambda, a: Math.sqrt(lambda), p: rng.range(0, 2 * Math.PI) };
    });
    const rms = Math.sqrt(speedWaves.reduce((s, w) => s + (w.a * w.a) / 2, 0));
    for (const w of speedWaves) w.a *= variability / rms;
    // Roll streaks: wave vectors across the wind, 1.2–2.5 km.
    const windDirRad = wind.directionDeg * DEG;
    const streaks =
      wind.streaks === false
        ? []
        : Array.from({ length: 4 }, () => {
            const lambda = rng.range(1200, 2500);
            const dir = windDirRad + Math.PI / 2 + rng.range(-0.15, 0.15);
            return { kx: (2 * Math.PI * Math.sin(dir)) / lambda, ky: (2 * Math.PI * Math.cos(dir)) / lambda, a: 0.02, p: rng.range(0, 2 * Math.PI) };
          });
    const dirWaves = Array.from({ length: 3 }, () => {
      const lambda = rng.range(20_000, 60_000);
      const dir = rng.range(0, 2 * Math.PI);
      return { kx: (2 * Math.PI * Math.sin(dir)) / lambda, ky: (2 * Math.PI * Math.cos(dir)) / lambda, a: 5, p: rng.range(0, 2 * Math.PI) };
    });

    for (let j = 0; j < this.nodesY; j++) {
      const line = j * GRID;
      for (let i = 0; i < this.nodesX; i++) {
        const pixel = i * GRID;
        const { east, north } = g.toLocal(line, pixel);
        let rel = 1;
        for (const w of speedWaves) rel += w.a * Math.cos(w.kx * east + w.ky * north + w.p);
        for (const w of streaks) rel += w.a * Math.cos(w.kx * east + w.ky * north + w.p);
        let speed = Math.max(0.3, wind.speed * rel);
        for (const p of this.patches) {
          const weight = GrdScene.patchWeight(this.patchRadius(p, east, north));
          if (weight > 0) {
            const min = Math.min(p.spec.minSpeed ?? 1, speed);
            speed = speed - (speed - min) * weight;
          }
        }
        let dir = wind.directionDeg;
        for (const w of dirWaves) dir += w.a * Math.cos(w.kx * east + w.ky * north + w.p);
        const theta = g.incidenceAngle(Math.min(pixel, g.width - 1));
        const k = j * this.nodesX + i;
        this.gridVv[k] = seaSigma0('VV', speed, dir - g.lookAzimuthDeg, theta);
        this.gridVh[k] = seaSigma0('VH', speed, 0, theta);
      }
    }
  }

  private placeShips(): void {
    const rng = new Random(this.spec.seed, 'ships');
    const ghosts: PlacedShip[] = [];
    (this.spec.ships ?? []).forEach((s, index) => {
      const id = s.id ?? `ship-${index + 1}`;
      // Draws happen for every ship, inside the image or not, so one ship never shifts another.
      const rcsDraw = rng.normal() * 2;
      const xpolDraw = rng.normal() * 1.5;
      const scatterRng = rng.fork(id);
      const rcsDb = s.rcsDbsm ?? 10 * Math.log10(0.2 * Math.pow(s.lengthM, 2.5)) + rcsDraw;
      this.placeTarget(s, id, rcsDb, s.crossPolDb ?? -7 + xpolDraw, scatterRng, ghosts);
    });
    // Fixed structures: their scattering centres come from the place's seed, so every pass of
    // the stack shows the same target at the same place; only the speckle differs.
    const placeRng = new Random(this.spec.areaSeed ?? this.spec.seed, 'structures');
    for (const st of this.spec.structures ?? []) {
      const size = st.sizeM ?? STRUCTURE_DEFAULTS[st.kind].sizeM;
      const asShip: ShipSpec = { id: st.id, lon: st.lon, lat: st.lat, lengthM: size, widthM: size, headingDeg: 0 };
      const rcsDb = st.rcsDbsm ?? STRUCTURE_DEFAULTS[st.kind].rcsDbsm;
      this.placeTarget(asShip, st.id, rcsDb, st.crossPolDb ?? -8, placeRng.fork(st.id), ghosts, st.kind);
    }
    this.ships.push(...ghosts);
  }

  /** Renders one ship or structure (and its azimuth ghosts) when its centre is in the image. */
  private placeTarget(s: ShipSpec, id: string, rcsDb: number, crossPolDb: number, scatterRng: Random, ghosts: PlacedShip[], structure?: StructureKind): void {
    const g = this.geometry;
    const { line, pixel } = g.lonLatToPixel(s.lon, s.lat);
    // Only targets whose centre is in the image are rendered and listed in the truth.
    if (line < 0 || pixel < 0 || line > g.height - 1 || pixel > g.width - 1) return;
    const widthM = s.widthM ?? s.lengthM / 6.5;
    const rcsVv = dbToLinear(rcsDb);
    const scatterers = shipScatterers(s, widthM, scatterRng);
    const axis = g.bearingToImage(s.headingDeg);
    const beam = g.bearingToImage(s.headingDeg + 90);
    const placed = (centerLine: number, azimuthBlur: number, scale: number): Omit<PlacedShip, 'id' | 'ghost'> => {
      const pts = scatterers.map((sc) => ({
        y: centerLine + axis.dLine * sc.along + beam.dLine * sc.across,
        x: pixel + axis.dPixel * sc.along + beam.dPixel * sc.across,
        w: sc.weight,
      }));
      const x0 = Math.floor(Math.min(...pts.map((p) => p.x))) - PSF_HALF;
      const y0 = Math.floor(Math.min(...pts.map((p) => p.y))) - PSF_HALF * azimuthBlur;
      const x1 = Math.ceil(Math.max(...pts.map((p) => p.x))) + PSF_HALF;
      const y1 = Math.ceil(Math.max(...pts.map((p) => p.y))) + PSF_HALF * azimuthBlur;
      const w = x1 - x0 + 1;
      const h = y1 - y0 + 1;
      const patch = new Float32Array(w * h);
      const pixelArea = g.rangeSpacing * g.azimuthSpacing;
      const halfA = PSF_HALF * azimuthBlur;
      for (const p of pts) {
        const iy = Math.round(p.y);
        const ix = Math.round(p.x);
        // A defocused ghost has a wider azimuth response (resolution × azimuthBlur).
        const wa = psfWeights(p.y - iy, g.azimuthSpacing, IW_GRDH_RESOLUTION.azimuth * azimuthBlur, halfA);
        const wr = psfWeights(p.x - ix, g.rangeSpacing, IW_GRDH_RESOLUTION.range, PSF_HALF);
        const energy = (rcsVv * p.w * scale) / pixelArea;
        for (let a = -halfA; a <= halfA; a++) {
          const yy = iy + a - y0;
          if (yy < 0 || yy >= h) continue;
          const ea = energy * wa[a + halfA]!;
          for (let r = -PSF_HALF; r <= PSF_HALF; r++) {
            const xx = ix + r - x0;
            if (xx < 0 || xx >= w) continue;
            patch[yy * w + xx]! += ea * wr[r + PSF_HALF]!;
          }
        }
      }
      let peak = 0;
      for (const v of patch) if (v > peak) peak = v;
      return {
        spec: s,
        widthM,
        line: centerLine,
        pixel,
        rcsVv: rcsVv * scale,
        rcsVh: rcsVv * scale * dbToLinear(crossPolDb),
        x0,
        y0,
        w,
        h,
        patch,
        crossPol: dbToLinear(crossPolDb),
        peakVv: peak,
      };
    };
    this.ships.push({ id, ghost: false, ...(structure ? { structure } : {}), ...placed(line, 1, 1) });
    // Azimuth ambiguities: defocused copies at ± azimuthAmbiguityShiftLines, AASR ≈ −22 dB.
    if (this.spec.ambiguities !== false && rcsDb > 40) {
      const shift = azimuthAmbiguityShiftLines(g, line, pixel);
      for (const sign of [-1, 1]) {
        const ghostLine = line + sign * shift;
        if (ghostLine < 0 || ghostLine > g.height - 1) continue;
        ghosts.push({ id: `${id}-ambiguity-${sign < 0 ? 'before' : 'after'}`, ghost: true, parent: id, ...placed(ghostLine, 5, dbToLinear(-22)) });
      }
    }
  }

  /** Rain cells, internal waves, upwelling and the wakes of ships in the image. */
  private placeSignatures(): void {
    const g = this.geometry;
    const spec = this.spec;
    (spec.rainCells ?? []).forEach((s, i) => this.signatures.push(placeRainCell(g, s, s.id ?? `rain-${i + 1}`, spec.wind.directionDeg)));
    (spec.internalWaves ?? []).forEach((s, i) => this.signatures.push(placeInternalWaves(g, s, s.id ?? `internal-waves-${i + 1}`)));
    (spec.upwelling ?? []).forEach((s, i) => this.signatures.push(placeUpwelling(g, s, s.id ?? `upwelling-${i + 1}`, spec.seed)));
    for (const ship of this.ships) {
      const s = ship.spec;
      if (ship.ghost || !s.wake) continue;
      const placed = { position: [s.lon, s.lat] as Position, headingDeg: s.headingDeg, lengthM: s.lengthM, beamM: ship.widthM, id: ship.id };
      this.signatures.push(placeShipWake(g, s.wake, s.wake.id ?? `${ship.id}-wake`, placed));
    }
  }

  // --------------------------------------------------------------- rendering

  /**
   * σ0 (linear, noise- and speckle-free) of rows y0 … y0+rows−1, columns x0 … x0+width−1,
   * row-major into outVv / outVh (either may be null).
   */
  renderRows(y0: number, rows: number, x0: number, width: number, outVv: Float32Array | null, outVh: Float32Array | null): void {
    const nx = this.nodesX;
    for (let r = 0; r < rows; r++) {
      const line = y0 + r;
      const base = r * width;
      // Sea: bilinear in the coarse grid.
      const gy = line / GRID;
      const j = Math.min(this.nodesY - 2, Math.floor(gy));
      const ty = gy - j;
      for (let i = 0; i < nx; i++) {
        const k = j * nx + i;
        this.rowVv[i] = this.gridVv[k]! + ty * (this.gridVv[k + nx]! - this.gridVv[k]!);
        this.rowVh[i] = this.gridVh[k]! + ty * (this.gridVh[k + nx]! - this.gridVh[k]!);
      }
      for (let x = 0; x < width; x++) {
        const px = x0 + x;
        const gx = px / GRID;
        const i = Math.min(nx - 2, Math.floor(gx));
        const tx = gx - i;
        if (outVv) outVv[base + x] = this.rowVv[i]! + tx * (this.rowVv[i + 1]! - this.rowVv[i]!);
        if (outVh) outVh[base + x] = this.rowVh[i]! + tx * (this.rowVh[i + 1]! - this.rowVh[i]!);
      }
      for (const m of this.modulations) this.modulate(m, line, x0, width, base, outVv, outVh);
      for (const s of this.surfaces) this.paintSurface(s, line, x0, width, base, outVv, outVh);
    }
    for (const ship of this.ships) this.addShip(ship, y0, rows, x0, width, outVv, outVh);
  }

  /** Multiply both polarisations by a look-alike's modulation (the sea's, before land). */
  private modulate(
    m: SeaModulation,
    line: number,
    x0: number,
    width: number,
    base: number,
    outVv: Float32Array | null,
    outVh: Float32Array | null,
  ): void {
    const [bx0, by0, bx1, by1] = m.bbox;
    if (line < by0 || line > by1) return;
    const from = Math.max(x0, Math.ceil(bx0));
    const to = Math.min(x0 + width, Math.floor(bx1) + 1);
    for (let px = from; px < to; px++) {
      const db = m.dbAt(line, px);
      if (db === 0) continue;
      const factor = dbToLinear(db);
      const k = base + px - x0;
      if (outVv) outVv[k]! *= factor;
      if (outVh) outVh[k]! *= factor;
    }
  }

  private paintSurface(
    s: PlacedSurface,
    line: number,
    x0: number,
    width: number,
    base: number,
    outVv: Float32Array | null,
    outVh: Float32Array | null,
  ): void {
    const spans = s.raster.spans(line, x0, x0 + width);
    if (spans.length === 0) return;
    const seedA = hashSeed(this.areaSeed, 'texture-a');
    const seedB = hashSeed(this.areaSeed, 'texture-b');
    const seedK = hashSeed(this.areaSeed, 'texture-k');
    const seedP = hashSeed(this.areaSeed, 'bright-points');
    for (let q = 0; q < spans.length; q += 2) {
      for (let px = spans[q]!; px < spans[q + 1]!; px++) {
        const k = base + px - x0;
        if (s.kind === 'water') {
          if (outVv) outVv[k] = this.waterVv[px]!;
          if (outVh) outVh[k] = this.waterVh[px]!;
          continue;
        }
        const m = SURFACE_MODELS[s.kind];
        let tex: number;
        let texVh: number;
        if (m.brightFraction !== null) {
          // K-distributed clutter: exponential texture, plus sparse double-bounce points.
          const u = latticeUniform(px, line, seedK);
          tex = -Math.log(u + 1e-9);
          if (latticeUniform(px, line, seedP) < m.brightFraction) tex *= 20;
          tex /= 1 + 19 * m.brightFraction;
          texVh = Math.pow(tex, 0.7);
        } else {
          const n = 0.65 * (valueNoise(px, line, 30, seedA) - 0.5) + 0.35 * (valueNoise(px, line, 6, seedB) - 0.5);
          tex = dbToLinear(m.textureDb * 6.25 * n); // 6.25: the noise mix has a standard deviation of 0.16
          texVh = tex;
        }
        const cr = this.cosRatio[px]!;
        if (outVv) outVv[k] = dbToLinear(m.vv) * cr * tex;
        if (outVh) outVh[k] = dbToLinear(m.vh) * cr * texVh;
      }
    }
  }

  private addShip(
    ship: PlacedShip,
    y0: number,
    rows: number,
    x0: number,
    width: number,
    outVv: Float32Array | null,
    outVh: Float32Array | null,
  ): void {
    const ya = Math.max(y0, ship.y0);
    const yb = Math.min(y0 + rows, ship.y0 + ship.h);
    const xa = Math.max(x0, ship.x0);
    const xb = Math.min(x0 + width, ship.x0 + ship.w);
    for (let y = ya; y < yb; y++) {
      for (let x = xa; x < xb; x++) {
        const v = ship.patch[(y - ship.y0) * ship.w + (x - ship.x0)]!;
        const k = (y - y0) * width + (x - x0);
        if (outVv) outVv[k]! += v;
        if (outVh) outVh[k]! += v * ship.crossPol;
      }
    }
  }

  // ------------------------------------------------------------------- truth

  /** The sea σ0 model (no slick, land or ship) at a pixel: what a detector's background sees. */
  seaSigma0At(pol: Polarisation, line: number, pixel: number): number {
    const gx = pixel / GRID;
    const gy = line / GRID;
    const i = Math.min(this.nodesX - 2, Math.floor(gx));
    const j = Math.min(this.nodesY - 2, Math.floor(gy));
    const tx = gx - i;
    const ty = gy - j;
    const grid = pol === 'VV' ? this.gridVv : this.gridVh;
    const at = (a: number, b: number) => grid[b * this.nodesX + a]!;
    return (1 - ty) * ((1 - tx) * at(i, j) + tx * at(i + 1, j)) + ty * ((1 - tx) * at(i, j + 1) + tx * at(i + 1, j + 1));
  }

  truthFeatures(): TruthFeature[] {
    const g = this.geometry;
    const toLonLat = (x: number, y: number): Position => {
      const p = g.pixelToLonLat(y, x);
      return [p.lon, p.lat];
    };
    const out: TruthFeature[] = [];
    for (const s of this.surfaces) {
      const props: Record<string, unknown> = {};
      if (s.spec.name) props.name = s.spec.name;
      out.push(feature(s.kind, s.id, polygonGeometry(s.spec.polygon), props));
    }
    for (const p of this.patches) {
      const ring: Position[] = [];
      for (let k = 0; k < 72; k++) {
        const a = (2 * Math.PI * k) / 72;
        // Outline r = 1: solve for the point at this angle of the wobbled ellipse.
        let wob = 1;
        for (const w of p.wobble) wob += w.a * Math.cos(w.k * a + w.p);
        const u = Math.cos(a) * wob * p.halfLength;
        const v = Math.sin(a) * wob * p.halfWidth;
        const east = p.east + u * p.sinO + v * p.cosO;
        const north = p.north + u * p.cosO - v * p.sinO;
        const { line, pixel } = g.fromLocal(east, north);
        ring.push(toLonLat(pixel, line));
      }
      out.push(
        feature('lookalike', p.id, polygonGeometry([ring]), {
          cause: 'low wind',
          min_wind_speed: p.spec.minSpeed ?? 1,
          background_wind_speed: this.spec.wind.speed,
          length_m: p.spec.lengthM,
          width_m: p.spec.widthM,
        }),
      );
    }
    for (const s of this.slicks) {
      const biogenic = s.spec.film === 'biogenic';
      out.push(
        feature(biogenic ? 'lookalike' : 'oilslick', s.id, polygonGeometry([slickOutline(s).map((q) => toLonLat(q.x, q.y))]), {
          ...(biogenic ? { cause: 'biogenic film' } : {}),
          damping_db: s.damping,
          length_m: s.length * g.rangeSpacing,
          width_start_m: 2 * s.w0 * g.rangeSpacing,
          width_end_m: 2 * s.w1 * g.rangeSpacing,
        }),
      );
    }
    for (const s of this.signatures) {
      const ring = s.outline().map(({ east, north }) => {
        const { line, pixel } = g.fromLocal(east, north);
        return toLonLat(pixel, line);
      });
      out.push(feature('lookalike', s.id, polygonGeometry([ring]), { cause: s.cause, ...s.properties }));
    }
    for (const ship of this.ships) {
      const s = ship.spec;
      const corners = hullOutline(s.lengthM, ship.widthM).map(({ along, across }) => {
        const axis = g.bearingToImage(s.headingDeg);
        const beam = g.bearingToImage(s.headingDeg + 90);
        return toLonLat(ship.pixel + axis.dPixel * along + beam.dPixel * across, ship.line + axis.dLine * along + beam.dLine * across);
      });
      const centre = toLonLat(ship.pixel, ship.line);
      out.push(
        feature(ship.ghost ? 'ambiguity' : ship.structure ? 'fixed_structure' : 'ship', ship.id, polygonGeometry([corners]), {
          ...(ship.structure ? { structure: ship.structure } : {}),
          length_m: s.lengthM,
          width_m: Math.round(ship.widthM * 10) / 10,
          heading_deg: s.headingDeg,
          center_lon: Math.round(centre[0] * 1e7) / 1e7,
          center_lat: Math.round(centre[1] * 1e7) / 1e7,
          line: Math.round(ship.line * 100) / 100,
          pixel: Math.round(ship.pixel * 100) / 100,
          rcs_vv_dbsm: Math.round(linearToDb(ship.rcsVv) * 100) / 100,
          rcs_vh_dbsm: Math.round(linearToDb(ship.rcsVh) * 100) / 100,
          peak_sigma0_vv_db: Math.round(linearToDb(ship.peakVv) * 100) / 100,
          ...(ship.parent ? { parent: ship.parent } : {}),
        }),
      );
    }
    return out;
  }
}

// ---------------------------------------------------------------- helpers

/** Half-width (pixels) of a slick at arc length t (pixels): widening downstream. */
/** A slick's damping (dB, ≤ 0) at a pixel: a smooth outline blending over ~40 m, a patchy film (thick and thin oil, 0.7–1.0 of the damping). */
function slickDb(s: PlacedSlick, seed: number, line: number, px: number): number {
  const edge = 4; // pixels
  const { d, t } = distanceToPath(s.pts, s.cum, px, line);
  const half = slickHalfWidth(s, t);
  const u = (d - half) / edge;
  if (u >= 0.5) return 0;
  let weight = u <= -0.5 ? 1 : 0.5 - u; // linear ramp across the outline
  weight = weight * weight * (3 - 2 * weight);
  const patchiness = 0.7 + 0.3 * valueNoise(px, line, 12, seed);
  return -s.damping * weight * patchiness;
}

function slickHalfWidth(s: PlacedSlick, t: number): number {
  const f = s.length > 0 ? Math.max(0, Math.min(1, t / s.length)) : 0;
  return s.w0 + (s.w1 - s.w0) * Math.sqrt(f);
}

interface Scatterer {
  along: number;
  across: number;
  weight: number;
}

/**
 * Scattering centres of a ship: one every ~7 m along the hull (two rows when wider than
 * 12 m), exponential weights plus one or two strong superstructure points, summing to 1.
 */
function shipScatterers(s: ShipSpec, widthM: number, rng: Random): Scatterer[] {
  const n = Math.max(1, Math.round(s.lengthM / 7));
  const out: Scatterer[] = [];
  for (let i = 0; i < n; i++) {
    const along = -s.lengthM / 2 + ((i + 0.5) * s.lengthM) / n;
    const across = widthM > 12 ? (i % 2 ? 1 : -1) * (widthM / 4) * rng.range(0.5, 1) : 0;
    out.push({ along, across, weight: rng.exponential() });
  }
  const strong = n > 6 ? 2 : 1;
  for (let k = 0; k < strong; k++) out[rng.int(n)]!.weight += 4;
  const sum = out.reduce((a, s2) => a + s2.weight, 0);
  for (const sc of out) sc.weight /= sum;
  return out;
}

/** Hull outline in ship coordinates (along the course, across to starboard): a pointed bow. */
function hullOutline(length: number, width: number): { along: number; across: number }[] {
  const l = length / 2;
  const w = width / 2;
  return [
    { along: l, across: 0 },
    { along: l - Math.min(length * 0.15, 2 * width), across: w },
    { along: -l, across: w },
    { along: -l, across: -w },
    { along: l - Math.min(length * 0.15, 2 * width), across: -w },
  ];
}

/** Distance (pixels) from a point to a polyline and the arc length of the nearest point. */
function distanceToPath(pts: { x: number; y: number }[], cum: number[], x: number, y: number): { d: number; t: number } {
  let best = Infinity;
  let bestT = 0;
  for (let k = 0; k + 1 < pts.length; k++) {
    const a = pts[k]!;
    const b = pts[k + 1]!;
    const dx = b.x - a.x;
    const dy = b.y - a.y;
    const len2 = dx * dx + dy * dy;
    const f = len2 > 0 ? Math.max(0, Math.min(1, ((x - a.x) * dx + (y - a.y) * dy) / len2)) : 0;
    const ex = a.x + f * dx - x;
    const ey = a.y + f * dy - y;
    const d2 = ex * ex + ey * ey;
    if (d2 < best) {
      best = d2;
      bestT = cum[k]! + f * Math.sqrt(len2);
    }
  }
  return { d: Math.sqrt(best), t: bestT };
}

/** Outline of a slick (the 50 % damping contour): offset curves of the centre line plus round ends. */
function slickOutline(s: PlacedSlick): { x: number; y: number }[] {
  const samples: { x: number; y: number; nx: number; ny: number; w: number }[] = [];
  const steps = Math.max(8, Math.ceil(s.length / 5));
  let seg = 0;
  for (let i = 0; i <= steps; i++) {
    const t = (s.length * i) / steps;
    while (seg < s.pts.length - 2 && s.cum[seg + 1]! < t) seg++;
    const a = s.pts[seg]!;
    const b = s.pts[seg + 1]!;
    const len = s.cum[seg + 1]! - s.cum[seg]!;
    const f = len > 0 ? (t - s.cum[seg]!) / len : 0;
    const dx = (b.x - a.x) / (len || 1);
    const dy = (b.y - a.y) / (len || 1);
    samples.push({ x: a.x + f * (b.x - a.x), y: a.y + f * (b.y - a.y), nx: -dy, ny: dx, w: slickHalfWidth(s, t) });
  }
  const left = samples.map((p) => ({ x: p.x + p.nx * p.w, y: p.y + p.ny * p.w }));
  const right = samples.map((p) => ({ x: p.x - p.nx * p.w, y: p.y - p.ny * p.w })).reverse();
  // Round ends: half circles from +n through the forward direction to −n (end), and from −n
  // back through the backward direction to +n (start). n is the direction rotated +90°.
  const cap = (p: (typeof samples)[number], from: number): { x: number; y: number }[] => {
    const out: { x: number; y: number }[] = [];
    const base = Math.atan2(p.ny, p.nx) + from;
    for (let k = 1; k < 8; k++) {
      const a = base - (Math.PI * k) / 8;
      out.push({ x: p.x + Math.cos(a) * p.w, y: p.y + Math.sin(a) * p.w });
    }
    return out;
  };
  return [...left, ...cap(samples[samples.length - 1]!, 0), ...right, ...cap(samples[0]!, Math.PI)];
}
