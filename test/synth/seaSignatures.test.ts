/**
 * The look-alikes of src/synth/seaSignatures.ts in a rendered scene (issue 11: "a harder
 * generated world … rain cells, internal waves, ship wakes, upwelling"). Each is measured as
 * the ratio (dB) of the noise-free σ0 of a scene with it to the same scene without it, so the
 * figures are the modelled modulation itself; positions are metres on the ground.
 */
import { describe, expect, it } from 'vitest';
import { GrdGeometry, GrdScene, KELVIN_HALF_ANGLE_DEG, type GrdSceneSpec, type TruthFeature } from '../../src/synth/index.ts';

const SIZE = 5000;
const geometry = new GrdGeometry({ center: [4.5, 55], width: SIZE, height: SIZE, passDirection: 'descending', nearIncidenceDeg: 33 });
const lonLat = (east: number, north: number): [number, number] => {
  const { line, pixel } = geometry.fromLocal(east, north);
  const p = geometry.pixelToLonLat(line, pixel);
  return [p.lon, p.lat];
};
const DEG = Math.PI / 180;
/** A point `d` metres from `from` along a compass bearing. */
const toward = (from: [number, number], bearingDeg: number, d: number): [number, number] => [from[0] + d * Math.sin(bearingDeg * DEG), from[1] + d * Math.cos(bearingDeg * DEG)];

const WIND_FROM = 250;
const plain: GrdSceneSpec = { seed: 41, wind: { speed: 7, directionDeg: WIND_FROM } };
const RAIN: [number, number] = [-12000, 12000];
const WAVES: [number, number] = [10000, 12000];
const WAVE_HEADING = 150;
const SHIP: [number, number] = [-12000, -10000];
const SHIP_HEADING = 60;
const SHIP_LENGTH = 150;
const UPWELL: [number, number] = [10000, -8000];
const spec: GrdSceneSpec = {
  ...plain,
  rainCells: [{ id: 'rain', center: lonLat(...RAIN), diameterM: 5000, coreDampingDb: 4, ringGainDb: 3 }],
  internalWaves: [{ id: 'waves', center: lonLat(...WAVES), propagationDeg: WAVE_HEADING, crests: 5, spacingM: 1500, spacingDecay: 0.8, crestLengthM: 8000, amplitudeDb: 2.5, decay: 0.7 }],
  ships: [{ id: 'mover', lon: lonLat(...SHIP)[0], lat: lonLat(...SHIP)[1], lengthM: SHIP_LENGTH, widthM: 25, headingDeg: SHIP_HEADING, wake: { lengthM: 4000, widthM: 60, dampingDb: 4, kelvinArmDb: 1.5, kelvinArmLengthM: 1500 } }],
  upwelling: [{ id: 'cold', center: lonLat(...UPWELL), lengthM: 9000, widthM: 5000, orientationDeg: 30, dampingDb: 2, filaments: 3 }],
};
const withAll = new GrdScene(spec, geometry);
const without = new GrdScene({ ...plain, ships: spec.ships!.map(({ wake: _, ...s }) => s) }, geometry);

/** The pixel nearest a ground point and that pixel's own ground position. */
function pixelAt(east: number, north: number): { line: number; pixel: number; at: [number, number] } {
  const q = geometry.fromLocal(east, north);
  const line = Math.round(q.line);
  const pixel = Math.round(q.pixel);
  const l = geometry.toLocal(line, pixel);
  return { line, pixel, at: [l.east, l.north] };
}

function sigma0(scene: GrdScene, line: number, pixel: number): number {
  const out = new Float32Array(1);
  scene.renderRows(line, 1, pixel, 1, out, null);
  return out[0]!;
}

/** Modulation (dB) at the pixel nearest a ground point (σ0 with the look-alikes over σ0 without), and where that pixel is. */
function sample(p: [number, number]): { db: number; at: [number, number] } {
  const { line, pixel, at } = pixelAt(...p);
  return { db: 10 * Math.log10(sigma0(withAll, line, pixel) / sigma0(without, line, pixel)), at };
}
const modulation = (p: [number, number]): number => sample(p).db;
/** Distance along a compass bearing and across it (to its right) from `origin` to `p`. */
const project = (origin: [number, number], bearingDeg: number, p: [number, number]): { along: number; across: number } => {
  const e = p[0] - origin[0];
  const n = p[1] - origin[1];
  const b = bearingDeg * DEG;
  return { along: e * Math.sin(b) + n * Math.cos(b), across: e * Math.cos(b) - n * Math.sin(b) };
};

/** The extreme of each run of samples beyond `level` (above it when positive, below when negative). */
function extremes(profile: { xi: number; db: number }[], level: number): { xi: number; db: number }[] {
  const out: { xi: number; db: number }[] = [];
  let run: { xi: number; db: number } | null = null;
  for (const p of profile) {
    const beyond = level > 0 ? p.db > level : p.db < level;
    if (beyond && (!run || (level > 0 ? p.db > run.db : p.db < run.db))) run = p;
    if (!beyond && run) {
      out.push(run);
      run = null;
    }
  }
  if (run) out.push(run);
  return out;
}

const truth = withAll.truthFeatures();
const truthOf = (id: string): TruthFeature => truth.find((f) => f.properties.id === id)!;

describe('issue 11: rain cell', () => {
  const R = 2500;
  const downwind = WIND_FROM + 180;
  it('a dark core (−4 dB), a bright outflow downwind (+3 dB) ending in a sharp gust front, darker upwind', () => {
    expect(modulation(RAIN)).toBeCloseTo(-4, 1);
    const ring = modulation(toward(RAIN, downwind, 0.85 * R));
    expect(ring).toBeGreaterThan(2.5);
    expect(ring - modulation(RAIN)).toBeGreaterThan(6.5); // ring brighter than the core
    expect(modulation(toward(RAIN, WIND_FROM, 0.85 * R))).toBeLessThan(-0.8); // the outflow opposes the wind upwind
    // Gust front: from +3 dB at the edge to < 0.3 dB 150 m beyond it.
    expect(modulation(toward(RAIN, downwind, R))).toBeGreaterThan(2.5);
    expect(modulation(toward(RAIN, downwind, R + 150))).toBeLessThan(0.3);
    expect(Math.abs(modulation(toward(RAIN, downwind, R + 500)))).toBeLessThan(0.01);
  });

  it('truth: a lookalike with cause "rain cell", its outline the 5 km circle', () => {
    const f = truthOf('rain');
    expect(f.properties).toMatchObject({ kind: 'lookalike', cause: 'rain cell', diameter_m: 5000, core_damping_db: 4, ring_gain_db: 3 });
    const ring = (f.geometry as { coordinates: [number, number][][] }).coordinates[0]!;
    const centre = lonLat(...RAIN);
    const radii = ring.map(([lon, lat]) => Math.hypot((lon - centre[0]) * 111_320 * Math.cos(55 * DEG), (lat - centre[1]) * 110_570));
    expect(Math.min(...radii)).toBeGreaterThan(2400);
    expect(Math.max(...radii)).toBeLessThan(2600);
  });
});

describe('issue 11: internal-wave packet', () => {
  /** Modulation along the propagation axis through the centre, every 5 m from 1 km ahead to 6 km behind. */
  const profile = Array.from({ length: 1401 }, (_, i) => {
    const s = sample(toward(WAVES, WAVE_HEADING, 1000 - 5 * i));
    return { xi: project(WAVES, WAVE_HEADING, s.at).along, db: s.db };
  });
  const peaks = extremes(profile, 0.2);
  const troughs = extremes(profile, -0.2);

  it('five bright bands, each ahead of a dark one, spaced 1500, 1200, 960, 768 m (0.5–2 km), amplitude falling by 0.7 per crest', () => {
    expect(peaks).toHaveLength(5);
    expect(troughs).toHaveLength(5);
    const spacing = peaks.slice(1).map((p, k) => peaks[k]!.xi - p.xi);
    for (const [k, s] of [1500, 1200, 960, 768].entries()) expect(Math.abs(spacing[k]! - s)).toBeLessThanOrEqual(25);
    for (let k = 0; k < 5; k++) expect(peaks[k]!.xi).toBeGreaterThan(troughs[k]!.xi); // bright ahead of dark
    expect(peaks[0]!.db).toBeGreaterThan(2.3);
    expect(peaks[0]!.db).toBeLessThan(2.6);
    for (let k = 1; k < 5; k++) expect(peaks[k]!.db / peaks[k - 1]!.db).toBeCloseTo(0.7, 1);
    // Nothing ahead of the packet.
    expect(Math.abs(profile[0]!.db)).toBeLessThan(0.01);
  });

  it('crests fade out along their length; truth lists the spacings', () => {
    expect(modulation(toward(toward(WAVES, WAVE_HEADING, peaks[0]!.xi), WAVE_HEADING + 90, 3000))).toBeCloseTo(peaks[0]!.db, 1);
    expect(Math.abs(modulation(toward(toward(WAVES, WAVE_HEADING, peaks[0]!.xi), WAVE_HEADING + 90, 4100)))).toBeLessThan(0.01);
    expect(truthOf('waves').properties).toMatchObject({ kind: 'lookalike', cause: 'internal waves', crests: 5, crest_spacing_m: [1500, 1200, 960, 768] });
  });
});

describe('issue 11: ship wake', () => {
  const back = SHIP_HEADING + 180;
  const stern = toward(SHIP, back, SHIP_LENGTH / 2);
  const behind = (d: number, across = 0) => toward(toward(stern, back, d), SHIP_HEADING + 90, across);

  it('a dark turbulent centre wake of tens of metres, fading over its 4 km, nothing beside it', () => {
    expect(modulation(behind(1000))).toBeCloseTo(-4 * (1 - 0.6 * 0.25), 1);
    expect(modulation(behind(3500))).toBeLessThan(-1.7);
    expect(modulation(behind(3500, 15))).toBeLessThan(-1.7); // 60 m wide at its end
    expect(Math.abs(modulation(behind(1000, 120)))).toBeLessThan(0.01);
    expect(Math.abs(modulation(behind(4300)))).toBeLessThan(0.01);
  });

  it('faint bright Kelvin arms at 19.47° to the track', () => {
    expect(KELVIN_HALF_ANGLE_DEG).toBeCloseTo(19.47, 2);
    // Across the track 600 m behind the stern, both sides: the brightest pixel's angle off the track.
    for (const side of [1, -1]) {
      const across = Array.from({ length: 160 }, (_, i) => 100 + 2.5 * i).map((a) => {
        const s = sample(behind(600, side * a));
        const { along, across: off } = project(stern, back, s.at);
        return { angle: Math.atan(Math.abs(off) / along) / DEG, db: s.db };
      });
      const best = across.reduce((x, y) => (y.db > x.db ? y : x));
      expect(best.angle).toBeGreaterThan(19.47 - 0.5);
      expect(best.angle).toBeLessThan(19.47 + 0.5);
      expect(best.db).toBeGreaterThan(0.7); // 1.5 dB × (1 − 600 / 1500) = 0.9 dB
      expect(best.db).toBeLessThan(1.0);
    }
  });

  it('truth: a lookalike "ship wake" of its ship; a ship without `wake` has none', () => {
    expect(truthOf('mover-wake').properties).toMatchObject({ kind: 'lookalike', cause: 'ship wake', ship: 'mover', length_m: 4000, width_start_m: 50, width_end_m: 60 });
    expect(without.truthFeatures().filter((f) => f.properties.kind === 'lookalike')).toHaveLength(0);
  });
});

describe('issue 11: upwelling', () => {
  it('a broad area 1.6–2 dB darker, with a diffuse edge, and filaments in its outline', () => {
    const centre = modulation(UPWELL);
    expect(centre).toBeLessThan(-1.6);
    expect(centre).toBeGreaterThanOrEqual(-2.0);
    // Along the short axis (bearing 120°): the edge is kilometres wide, never steeper than 0.25 dB per 100 m
    // (an oil slick's edge: ~8 dB over 40 m).
    const line = Array.from({ length: 81 }, (_, i) => modulation(toward(UPWELL, 120, 100 * i)));
    let steepest = 0;
    for (let i = 1; i < line.length; i++) steepest = Math.max(steepest, Math.abs(line[i]! - line[i - 1]!));
    expect(steepest).toBeLessThan(0.25);
    expect(Math.abs(line[80]!)).toBeLessThan(0.01);
    const f = truthOf('cold');
    expect(f.properties).toMatchObject({ kind: 'lookalike', cause: 'upwelling', damping_db: 2, filaments: 3 });
    const ring = (f.geometry as { coordinates: [number, number][][] }).coordinates[0]!;
    const c = lonLat(...UPWELL);
    // Radius normalised to the 9 × 5 km ellipse: its wobble alone (harmonics of ≤ 0.1 each) stays
    // within 0.7–1.3, so beyond 1.3 a filament reaches out.
    const normalised = ring.map(([lon, lat]) => {
      const de = (lon - c[0]) * 111_320 * Math.cos(lat * DEG);
      const dn = (lat - c[1]) * 110_570;
      return Math.hypot((de * Math.sin(30 * DEG) + dn * Math.cos(30 * DEG)) / 4500, (de * Math.cos(30 * DEG) - dn * Math.sin(30 * DEG)) / 2500);
    });
    expect(Math.max(...normalised)).toBeGreaterThan(1.3);
  });
});

describe('the look-alikes leave the rest of the scene alone and are deterministic', () => {
  it('rows far from every signature are byte-identical with and without them; a second build renders the same', () => {
    const a = new Float32Array(SIZE);
    const b = new Float32Array(SIZE);
    // Line 2500 at pixels 2400…2600: the scene centre, ≥ 10 km from all four.
    withAll.renderRows(2500, 1, 2400, 200, a, null);
    without.renderRows(2500, 1, 2400, 200, b, null);
    expect(Buffer.from(a.buffer).equals(Buffer.from(b.buffer))).toBe(true);
    const again = new GrdScene(spec, geometry);
    const x = new Float32Array(400 * 50);
    const y = new Float32Array(400 * 50);
    const { line, pixel } = geometry.fromLocal(...UPWELL);
    withAll.renderRows(Math.round(line), 50, Math.round(pixel) - 200, 400, x, null);
    again.renderRows(Math.round(line), 50, Math.round(pixel) - 200, 400, y, null);
    expect(Buffer.from(x.buffer).equals(Buffer.from(y.buffer))).toBe(true);
    expect(x.some((v, i) => v !== 0 && v === y[i])).toBe(true);
  });
});
