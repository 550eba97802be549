/**
 * Dark and bright patterns of the sea surface that are not oil: rain cells, internal-wave
 * packets, ship wakes and upwelling — the look-alikes an oil-slick detector must leave alone
 * (issue 11). Each is a modulation of the sea σ0 in dB as a function of the position on the
 * ground (metres east and north of the scene centre), applied to both polarisations on top of
 * the wind-driven sea (scene.ts renderRows), plus a truth outline (kind `lookalike`, with a
 * `cause`). Overview of how they look at C band: Clemente-Colón & Yan 2000, "Low-backscatter
 * ocean features in synthetic aperture radar imagery", Johns Hopkins APL Technical Digest
 * 21(1); Alpers, Zhang et al. 2017, "Rain footprints on C-band SAR images of the ocean", RSE
 * 187; the models and their sources are named on each spec below. docs/synth.md lists them.
 */
import type { Position } from '../geo/types.ts';
import type { GrdGeometry } from './geometry.ts';
import { latticeUniform, Random } from './random.ts';

const DEG = Math.PI / 180;

// ----------------------------------------------------------------------- specs

/**
 * A convective rain cell (Atlas 1994, "Origin of storm footprints on the sea seen by synthetic
 * aperture radar", Science 266; Melsheimer, Alpers & Gade 1998, "Investigation of
 * multifrequency/multipolarization radar signatures of rain cells over the ocean using
 * SIR-C/X-SAR data", JGR 103(C9)). The downdraft hits the sea and spreads out: on the downwind
 * side the outflow adds to the ambient wind (a bright arc ending in a sharp gust front), on
 * the upwind side it opposes it (slightly darker). In the core the rain's turbulence damps the
 * Bragg waves and the drops attenuate the signal: a darker, diffuse centre.
 * Model (dB), r the distance from the centre, R = diameter / 2, φ the angle from downwind:
 *   −core · exp(−(r / 0.35R)²) + ring · e(r) · (0.35 + 0.65 cos φ)
 * with e(r) = smoothstep(0.3R … 0.7R) inside R and exp(−((r − R) / 80 m)²) beyond it: the
 * outflow's edge, the gust front, is sharp (~100 m). The truth outline is the circle r = R.
 */
export interface RainCellSpec {
  center: Position;
  /** Diameter of the outflow footprint (m). Default 5000 (cells are 2–10 km). */
  diameterM?: number;
  /** Darkening of the core (dB). Default 4. */
  coreDampingDb?: number;
  /** Brightening of the outflow on the downwind side (dB). Default 3. */
  ringGainDb?: number;
  id?: string;
}

/**
 * A packet of internal solitary waves (Alpers 1985, "Theory of radar imaging of internal
 * waves", Nature 314; da Silva, Ermakov, Robinson et al. 1998, "Role of surface films in ERS SAR
 * signatures of internal waves on the shelf", JGR 103(C4)). The orbital current of each
 * soliton, u ∝ sech²(ξ / L), converges ahead of its crest and diverges behind it; the Bragg
 * waves follow the strain −∂u/∂ξ, so each soliton draws a bright band ahead of a dark one.
 * Rank-ordered packet: the leading soliton is the largest, amplitude and spacing fall
 * rearwards. Model (dB) at distance ξ along the propagation from the leading crest:
 *   Σₙ A·decayⁿ · 2 sech²(xₙ) tanh(xₙ) / 0.7698 · taper(η),  xₙ = (ξ − ξₙ) / L,
 * with ξₙ the crest positions (spacings `spacingM`, shrinking by `spacingDecay`), 0.7698 the
 * maximum of 2 sech² tanh, and `taper` fading the crests over their last 20 % along η. The
 * truth outline is the packet's rectangle, 3L beyond the first and last crest.
 */
export interface InternalWaveSpec {
  /** Centre of the leading crest. */
  center: Position;
  /** Direction the packet travels (compass, degrees). */
  propagationDeg: number;
  /** Number of solitons. Default 5. */
  crests?: number;
  /** Distance between the first and second crest (m). Default 1500 (0.5–2 km). */
  spacingM?: number;
  /** Each following spacing is this fraction of the one before, not below 500 m. Default 0.8. */
  spacingDecay?: number;
  /** Crest length (m). Default 12000. */
  crestLengthM?: number;
  /** Peak modulation of the leading soliton (dB, bright and dark). Default 2.5. */
  amplitudeDb?: number;
  /** Amplitude ratio of consecutive solitons. Default 0.7. */
  decay?: number;
  /** Soliton half-width L (m). Default 200. */
  halfWidthM?: number;
  id?: string;
}

/**
 * The wake of a moving ship (Reed & Milgram 2002, "Ship wakes and their radar images", Annu.
 * Rev. Fluid Mech. 34; Milgram, Skop et al. 1993, "Modeling short sea wave energy distributions
 * in the far wakes of ships", JGR 98(C4)). Behind the stern the hull's turbulence and the
 * surfactants it brings up damp the short waves: a dark centre wake, twice the beam wide at
 * the stern and spreading slowly (√ of the distance), fading over its length. The Kelvin
 * wave system forms two arms at ±19.47° (asin 1/3) to the track, at C band seen as faint bright
 * lines over the first kilometre or two. Model (dB), ξ the distance behind the stern, η across:
 *   −damping · (1 − 0.6 ξ/length) · inside(|η| < w(ξ), edge 15 m)
 *   + arms · (1 − ξ/armLength) · exp(−((|η| − ξ tan 19.47°) / 15 m)²)
 * The ship's azimuth displacement off its wake (moving-target Doppler shift) is not modelled:
 * the wake starts at the ship as drawn. The truth outline is the dark wake's w(ξ) buffer.
 */
export interface ShipWakeSpec {
  /** Length of the dark turbulent wake (m). Default 4000. */
  lengthM?: number;
  /** Width of the dark wake at its far end (m). Default 60 (tens of metres). */
  widthM?: number;
  /** Darkening at the stern (dB). Default 4. */
  dampingDb?: number;
  /** Brightening of the Kelvin arms near the ship (dB). Default 1.5. */
  kelvinArmDb?: number;
  /** Length of the Kelvin arms along the track (m). Default 1500. */
  kelvinArmLengthM?: number;
  /** Default `${ship id}-wake`. */
  id?: string;
}

/**
 * Coastal upwelling (Clemente-Colón & Yan 1999, "Observations of east coast upwelling
 * conditions in synthetic aperture radar imagery", IEEE TGRS 37(5); Beal, Kudryavtsev et al.
 * 1997, "Large and small scale circulation signatures of the synoptic scale SAR imagery of
 * the Gulf Stream", JGR 102(C3)). Cold upwelled water stabilises the air above it and lowers
 * the wind stress: a broad area 1–3 dB darker, its edges diffuse over kilometres, with
 * filaments (tongues of cold water) reaching out from it. Model (dB):
 *   −damping · w(r) · (0.8 + 0.2 · value noise of ~1 km),
 * r the radius normalised to a wobbled ellipse (harmonics 2, 3, 5) with `filaments` narrow
 * tongues (0.4–0.8 of the radius long, 3–6° wide), w = 1 for r ≤ 0.6, 0 for r ≥ 1.4,
 * smoothstep between. The truth outline is r = 1, the half-weight contour.
 */
export interface UpwellingSpec {
  center: Position;
  lengthM: number;
  widthM: number;
  /** Direction of the long axis (compass, degrees). Default 0. */
  orientationDeg?: number;
  /** Darkening in the middle (dB). Default 2 (1–3 dB). */
  dampingDb?: number;
  /** Number of filaments. Default 3. */
  filaments?: number;
  id?: string;
}

// ---------------------------------------------------------------------- placed

/** A placed signature: a dB modulation of the sea, where it applies, and its truth. */
export interface SeaSignature {
  id: string;
  cause: 'rain cell' | 'internal waves' | 'ship wake' | 'upwelling';
  /** Pixel box [x0, y0, x1, y1] (inclusive) outside which dbAt is 0. */
  bbox: [number, number, number, number];
  /** Modulation (dB) at a ground position (metres east and north of the scene centre). */
  dbAt(east: number, north: number): number;
  /** Truth outline in (east, north) metres. */
  outline(): { east: number; north: number }[];
  /** Truth properties beside kind, id and cause. */
  properties: Record<string, unknown>;
}

const smoothstep = (a: number, b: number, x: number): number => {
  const t = Math.max(0, Math.min(1, (x - a) / (b - a)));
  return t * t * (3 - 2 * t);
};

/** Pixel box of a set of ground points, `padM` metres wider, clipped to the image. */
function boxOf(g: GrdGeometry, points: { east: number; north: number }[], padM: number): [number, number, number, number] {
  let x0 = Infinity;
  let y0 = Infinity;
  let x1 = -Infinity;
  let y1 = -Infinity;
  for (const p of points) {
    const q = g.fromLocal(p.east, p.north);
    x0 = Math.min(x0, q.pixel);
    x1 = Math.max(x1, q.pixel);
    y0 = Math.min(y0, q.line);
    y1 = Math.max(y1, q.line);
  }
  const px = padM / g.rangeSpacing;
  const py = padM / g.azimuthSpacing;
  return [
    Math.max(0, Math.floor(x0 - px)),
    Math.max(0, Math.floor(y0 - py)),
    Math.min(g.width - 1, Math.ceil(x1 + px)),
    Math.min(g.height - 1, Math.ceil(y1 + py)),
  ];
}

function localOf(g: GrdGeometry, [lon, lat]: Position): { east: number; north: number } {
  const { line, pixel } = g.lonLatToPixel(lon, lat);
  return g.toLocal(line, pixel);
}

/** Unit vectors (east, north) of a compass bearing and of the bearing 90° clockwise from it. */
function axes(bearingDeg: number): { ae: number; an: number; ce: number; cn: number } {
  const a = bearingDeg * DEG;
  return { ae: Math.sin(a), an: Math.cos(a), ce: Math.cos(a), cn: -Math.sin(a) };
}

function circle(c: { east: number; north: number }, radius: number, n = 72): { east: number; north: number }[] {
  return Array.from({ length: n }, (_, k) => ({ east: c.east + radius * Math.cos((2 * Math.PI * k) / n), north: c.north + radius * Math.sin((2 * Math.PI * k) / n) }));
}

/** `windFromDeg`: where the ambient wind blows from (meteorological); the outflow is brightest downwind. */
export function placeRainCell(g: GrdGeometry, s: RainCellSpec, id: string, windFromDeg: number): SeaSignature {
  const c = localOf(g, s.center);
  const R = (s.diameterM ?? 5000) / 2;
  const core = s.coreDampingDb ?? 4;
  const ring = s.ringGainDb ?? 3;
  const down = (windFromDeg + 180) * DEG;
  const de = Math.sin(down);
  const dn = Math.cos(down);
  return {
    id,
    cause: 'rain cell',
    bbox: boxOf(g, circle(c, R, 8), 400 + R * 0.1),
    dbAt(east, north) {
      const x = east - c.east;
      const y = north - c.north;
      const r = Math.hypot(x, y);
      if (r > R + 400) return 0;
      const cosPhi = r > 0 ? (x * de + y * dn) / r : 0;
      const edge = r <= R ? smoothstep(0.3 * R, 0.7 * R, r) : Math.exp(-(((r - R) / 80) ** 2));
      return -core * Math.exp(-((r / (0.35 * R)) ** 2)) + ring * edge * (0.35 + 0.65 * cosPhi);
    },
    outline: () => circle(c, R),
    properties: { diameter_m: 2 * R, core_damping_db: core, ring_gain_db: ring, downwind_deg: (windFromDeg + 180) % 360 },
  };
}

/** Crest positions ξₙ (m, 0 and negative: behind the leading crest) of a packet. */
export function internalWaveCrests(s: InternalWaveSpec): number[] {
  const n = s.crests ?? 5;
  const out = [0];
  let spacing = s.spacingM ?? 1500;
  for (let k = 1; k < n; k++) {
    out.push(out[k - 1]! - spacing);
    spacing = Math.max(500, spacing * (s.spacingDecay ?? 0.8));
  }
  return out;
}

export function placeInternalWaves(g: GrdGeometry, s: InternalWaveSpec, id: string): SeaSignature {
  const c = localOf(g, s.center);
  const { ae, an, ce, cn } = axes(s.propagationDeg);
  const crests = internalWaveCrests(s);
  const L = s.halfWidthM ?? 200;
  const A = s.amplitudeDb ?? 2.5;
  const decay = s.decay ?? 0.7;
  const half = (s.crestLengthM ?? 12000) / 2;
  const front = 3 * L;
  const back = crests[crests.length - 1]! - 3 * L;
  const corner = (xi: number, eta: number) => ({ east: c.east + xi * ae + eta * ce, north: c.north + xi * an + eta * cn });
  const rect = [corner(front, -half), corner(front, half), corner(back, half), corner(back, -half)];
  const amps = crests.map((_, k) => (A * decay ** k) / 0.7698);
  return {
    id,
    cause: 'internal waves',
    bbox: boxOf(g, rect, 50),
    dbAt(east, north) {
      const x = east - c.east;
      const y = north - c.north;
      const xi = x * ae + y * an;
      const eta = Math.abs(x * ce + y * cn);
      if (eta >= half || xi > front || xi < back) return 0;
      const taper = 1 - smoothstep(0.8 * half, half, eta);
      let db = 0;
      for (let k = 0; k < crests.length; k++) {
        const u = (xi - crests[k]!) / L;
        if (Math.abs(u) > 6) continue;
        const ch = Math.cosh(u);
        db += (amps[k]! * 2 * Math.tanh(u)) / (ch * ch);
      }
      return db * taper;
    },
    outline: () => rect,
    properties: {
      propagation_deg: s.propagationDeg,
      crests: crests.length,
      crest_spacing_m: crests.slice(1).map((p, k) => Math.round(crests[k]! - p)),
      crest_length_m: 2 * half,
      amplitude_db: A,
      decay,
    },
  };
}

/** Kelvin arm half-angle: asin(1/3). */
export const KELVIN_HALF_ANGLE_DEG = Math.asin(1 / 3) / DEG;

/** The wake behind a ship at `position` (its centre) of length `shipLengthM`, beam `beamM`, on `headingDeg`. */
export function placeShipWake(
  g: GrdGeometry,
  s: ShipWakeSpec,
  id: string,
  ship: { position: Position; headingDeg: number; lengthM: number; beamM: number; id: string },
): SeaSignature {
  const centre = localOf(g, ship.position);
  const { ae, an, ce, cn } = axes(ship.headingDeg);
  // The stern: half a ship length behind the centre.
  const stern = { east: centre.east - (ae * ship.lengthM) / 2, north: centre.north - (an * ship.lengthM) / 2 };
  const length = s.lengthM ?? 4000;
  const w0 = ship.beamM; // half-width at the stern: the wake is twice the beam wide
  const w1 = Math.max(w0, (s.widthM ?? 60) / 2);
  const damping = s.dampingDb ?? 4;
  const arms = s.kelvinArmDb ?? 1.5;
  const armLength = Math.min(length, s.kelvinArmLengthM ?? 1500);
  const tanK = Math.tan(KELVIN_HALF_ANGLE_DEG * DEG);
  const halfWidth = (xi: number) => w0 + (w1 - w0) * Math.sqrt(Math.max(0, Math.min(1, xi / length)));
  const at = (xi: number, eta: number) => ({ east: stern.east - xi * ae + eta * ce, north: stern.north - xi * an + eta * cn });
  const EDGE = 15;
  return {
    id,
    cause: 'ship wake',
    bbox: boxOf(g, [at(0, -armLength * tanK), at(0, armLength * tanK), at(length, -w1), at(length, w1), at(armLength, armLength * tanK), at(armLength, -armLength * tanK)], 60),
    dbAt(east, north) {
      const x = east - stern.east;
      const y = north - stern.north;
      const xi = -(x * ae + y * an);
      if (xi < 0 || xi > length + 50) return 0;
      const eta = Math.abs(x * ce + y * cn);
      let db = 0;
      // Dark turbulent wake: full inside the half-width, a 15 m ramp across its edge, a short one at its end.
      const inside = 1 - smoothstep(-EDGE, EDGE, eta - halfWidth(xi));
      if (inside > 0) db -= damping * (1 - (0.6 * Math.min(xi, length)) / length) * inside * (1 - smoothstep(length - 50, length + 50, xi));
      if (xi < armLength) db += arms * (1 - xi / armLength) * Math.exp(-(((eta - xi * tanK) / EDGE) ** 2));
      return db;
    },
    outline: () => {
      const n = 16;
      const left = Array.from({ length: n + 1 }, (_, k) => at((length * k) / n, halfWidth((length * k) / n)));
      const right = Array.from({ length: n + 1 }, (_, k) => at((length * (n - k)) / n, -halfWidth((length * (n - k)) / n)));
      return [...left, ...right];
    },
    properties: {
      ship: ship.id,
      length_m: length,
      width_start_m: 2 * w0,
      width_end_m: 2 * w1,
      damping_db: damping,
      kelvin_arm_db: arms,
      kelvin_arm_length_m: armLength,
      kelvin_half_angle_deg: Math.round(KELVIN_HALF_ANGLE_DEG * 100) / 100,
    },
  };
}

/** `seed`: the scene's; the shape draws come from its own stream, so other draws never move. */
export function placeUpwelling(g: GrdGeometry, s: UpwellingSpec, id: string, seed: number): SeaSignature {
  const c = localOf(g, s.center);
  const rng = new Random(seed, `upwelling-${id}`);
  const o = (s.orientationDeg ?? 0) * DEG;
  const sinO = Math.sin(o);
  const cosO = Math.cos(o);
  const hl = s.lengthM / 2;
  const hw = s.widthM / 2;
  const damping = s.dampingDb ?? 2;
  const wobble = [2, 3, 5].map((k) => ({ k, a: rng.range(0.04, 0.1), p: rng.range(0, 2 * Math.PI) }));
  const tongues = Array.from({ length: s.filaments ?? 3 }, () => ({ at: rng.range(-Math.PI, Math.PI), len: rng.range(0.4, 0.8), width: rng.range(3, 6) * DEG }));
  const noiseSeed = rng.nextUint32();
  const wob = (angle: number): number => {
    let w = 1;
    for (const q of wobble) w += q.a * Math.cos(q.k * angle + q.p);
    for (const t of tongues) {
      let d = angle - t.at;
      d -= 2 * Math.PI * Math.round(d / (2 * Math.PI));
      w += t.len * Math.exp(-((d / t.width) ** 2));
    }
    return w;
  };
  const reach = 1.4 * (1.3 + tongues.reduce((a, t) => a + t.len, 0));
  const corner = (u: number, v: number) => ({ east: c.east + u * hl * sinO + v * hw * cosO, north: c.north + u * hl * cosO - v * hw * sinO });
  return {
    id,
    cause: 'upwelling',
    bbox: boxOf(g, [corner(-reach, -reach), corner(reach, -reach), corner(reach, reach), corner(-reach, reach)], 0),
    dbAt(east, north) {
      const de = east - c.east;
      const dn = north - c.north;
      const u = (de * sinO + dn * cosO) / hl;
      const v = (de * cosO - dn * sinO) / hw;
      const r = Math.sqrt(u * u + v * v) / wob(Math.atan2(v, u));
      if (r >= 1.4) return 0;
      const w = 1 - smoothstep(0.6, 1.4, r);
      return -damping * w * (0.8 + 0.2 * valueNoiseM(east, north, 1000, noiseSeed));
    },
    outline: () =>
      Array.from({ length: 360 }, (_, k) => {
        const a = (2 * Math.PI * k) / 360;
        const f = wob(a);
        return corner(Math.cos(a) * f, Math.sin(a) * f);
      }),
    properties: { length_m: s.lengthM, width_m: s.widthM, damping_db: damping, filaments: tongues.length },
  };
}

/** Smooth value noise in [0, 1) over metres, lattice `cell` metres. */
function valueNoiseM(east: number, north: number, cell: number, seed: number): number {
  const fx = east / cell;
  const fy = north / cell;
  const ix = Math.floor(fx);
  const iy = Math.floor(fy);
  const tx = smoothstep(0, 1, fx - ix);
  const ty = smoothstep(0, 1, fy - iy);
  const a = latticeUniform(ix, iy, seed);
  const b = latticeUniform(ix + 1, iy, seed);
  const c = latticeUniform(ix, iy + 1, seed);
  const d = latticeUniform(ix + 1, iy + 1, seed);
  return a + (b - a) * tx + (c - a) * ty + (a - b - c + d) * tx * ty;
}
