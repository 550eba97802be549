/**
 * Generated soft-edged broken slicks with pixel truth (issue 24): the generator of the outline
 * evaluation (eval/oilOutline.ts, seeds 2400–2405) and, with other seeds, soft-edged oil (and
 * its low-wind look-alike) in the training mix (generated.ts). In memory, 12 × 12 km at 10 m,
 * 35°: CMOD5.N sea with smooth wind variability and 4.4-look speckle; one slick of 3.5–7 dB with
 * soft edges (40–200 m logistic ramps), patchy damping, 3–6 gaps across it, one or two thin
 * arms, holes and a faint tail; truth = damping ≥ half the core's. One low-wind patch (soft
 * edges over 0.5–1 km) is the look-alike: truth = where its wind drop is ≥ half. Imports src/ only.
 */
import { cmod5nSigma0 } from '../../src/imagery/cmod5n.ts';
import type { SlickRasterInput } from '../../src/analysis/oilslick/index.ts';
import { Random, SpeckleSampler } from '../../src/synth/index.ts';

const SIZE = 1200;
const SPACING_M = 10;
/** Incidence (degrees) the scenes are made for. */
export const OUTLINE_SCENE_INCIDENCE_DEG = 35;
const INCIDENCE = OUTLINE_SCENE_INCIDENCE_DEG;
const SPECKLE_LOOKS = 4.4;

/** Distance (px) of (x, y) to a polyline and the arc position (px) of the nearest point. */
function nearestOnPolyline(xs: Float64Array, ys: Float64Array, cum: Float64Array, x: number, y: number): { d: number; s: number } {
  let best = Infinity;
  let bestS = 0;
  for (let k = 0; k + 1 < xs.length; k++) {
    const ax = xs[k]!;
    const ay = ys[k]!;
    const dx = xs[k + 1]! - ax;
    const dy = ys[k + 1]! - ay;
    const l2 = dx * dx + dy * dy;
    const t = l2 > 0 ? Math.max(0, Math.min(1, ((x - ax) * dx + (y - ay) * dy) / l2)) : 0;
    const px = ax + t * dx - x;
    const py = ay + t * dy - y;
    const d2 = px * px + py * py;
    if (d2 < best) {
      best = d2;
      bestS = cum[k]! + t * Math.sqrt(l2);
    }
  }
  return { d: Math.sqrt(best), s: bestS };
}

interface Curve {
  xs: Float64Array;
  ys: Float64Array;
  cum: Float64Array;
  length: number;
}

function curve(rng: Random, x: number, y: number, heading: number, lengthPx: number, wiggle: number): Curve {
  const steps = Math.max(8, Math.round(lengthPx / 10));
  const xs = new Float64Array(steps + 1);
  const ys = new Float64Array(steps + 1);
  const cum = new Float64Array(steps + 1);
  const phase = rng.range(0, 2 * Math.PI);
  xs[0] = x;
  ys[0] = y;
  for (let k = 1; k <= steps; k++) {
    const a = heading + wiggle * Math.sin(phase + (3 * k) / steps);
    xs[k] = xs[k - 1]! + (lengthPx / steps) * Math.cos(a);
    ys[k] = ys[k - 1]! + (lengthPx / steps) * Math.sin(a);
    cum[k] = cum[k - 1]! + lengthPx / steps;
  }
  return { xs, ys, cum, length: lengthPx };
}

const logistic = (z: number): number => 1 / (1 + Math.exp(z));

/** One generated scene: σ0, slick truth (damping ≥ half), look-alike truth. */
export function generateOutlineScene(seed: number, windSpeed: number): { input: SlickRasterInput; truth: Uint8Array; lookAlike: Uint8Array } {
  const rng = new Random(seed, 'oil-outline');
  const n = SIZE * SIZE;
  const windDir = rng.range(0, 360);
  // Smooth wind variability: a few long waves (1.5–5 km), ±8 %.
  const waves = Array.from({ length: 4 }, () => ({ kx: Math.cos(rng.range(0, 6.28)), ky: Math.sin(rng.range(0, 6.28)), l: rng.range(150, 500), p: rng.range(0, 6.28) }));
  // Look-alike: a low-wind patch in one quadrant, the slick in the opposite one.
  const q = rng.int(4);
  const lx = (q & 1 ? 0.75 : 0.25) * SIZE;
  const ly = (q & 2 ? 0.75 : 0.25) * SIZE;
  const la = rng.range(100, 180);
  const lb = rng.range(60, 110);
  const lrot = rng.range(0, Math.PI);
  const lowWind = rng.range(1.2, 2.2);
  const lEdge = rng.range(50, 100);
  const sx = (q & 1 ? 0.3 : 0.7) * SIZE;
  const sy = (q & 2 ? 0.3 : 0.7) * SIZE;
  const heading = rng.range(0, 2 * Math.PI);
  const lengthPx = rng.range(300, 500);
  const spine = curve(rng, sx - (Math.cos(heading) * lengthPx) / 2, sy - (Math.sin(heading) * lengthPx) / 2, heading, lengthPx, rng.range(0.2, 0.6));
  const maxHalfWidth = rng.range(10, 30); // 100–300 m half-width at the widest
  const edgePx = rng.range(4, 20); // 40–200 m ramps
  const coreDb = rng.range(3.5, 7);
  const gaps = Array.from({ length: 3 + rng.int(4) }, () => ({ s: rng.range(0.1, 0.9) * lengthPx, half: rng.range(4, 15) }));
  const arms = Array.from({ length: 1 + rng.int(2) }, () => {
    const at = rng.range(0.2, 0.8) * lengthPx;
    const k = Math.min(spine.xs.length - 1, Math.round(at / 10));
    const side = rng.uniform() < 0.5 ? -1 : 1;
    return { c: curve(rng, spine.xs[k]!, spine.ys[k]!, heading + side * rng.range(0.35, 0.9), rng.range(100, 200), 0.2), half: rng.range(2, 4), damp: rng.range(0.6, 0.9) };
  });
  const holes = Array.from({ length: 2 + rng.int(3) }, () => {
    const k = Math.min(spine.xs.length - 1, Math.round((rng.range(0.2, 0.8) * lengthPx) / 10));
    return { x: spine.xs[k]! + rng.range(-5, 5), y: spine.ys[k]! + rng.range(-5, 5), r: rng.range(4, 9) };
  });
  // Patchy damping: smooth 70–100 % field.
  const patch = Array.from({ length: 4 }, () => ({ kx: rng.range(-1, 1), ky: rng.range(-1, 1), l: rng.range(12, 50), p: rng.range(0, 6.28) }));

  const sigma0 = new Float32Array(n);
  const truth = new Uint8Array(n);
  const lookAlike = new Uint8Array(n);
  const bx0 = Math.max(0, Math.floor(Math.min(sx, ...spine.xs, ...arms.flatMap((a) => [...a.c.xs])) - 80));
  const bx1 = Math.min(SIZE, Math.ceil(Math.max(...spine.xs, ...arms.flatMap((a) => [...a.c.xs])) + 80));
  const by0 = Math.max(0, Math.floor(Math.min(...spine.ys, ...arms.flatMap((a) => [...a.c.ys])) - 80));
  const by1 = Math.min(SIZE, Math.ceil(Math.max(...spine.ys, ...arms.flatMap((a) => [...a.c.ys])) + 80));
  for (let y = 0; y < SIZE; y++) {
    for (let x = 0; x < SIZE; x++) {
      let v = 1;
      for (const wv of waves) v += 0.02 * Math.sin((wv.kx * x + wv.ky * y) / (wv.l / (2 * Math.PI)) + wv.p);
      let wind = windSpeed * v;
      // Low-wind patch: an ellipse with a soft edge.
      const ex = x - lx;
      const ey = y - ly;
      const u = (ex * Math.cos(lrot) + ey * Math.sin(lrot)) / la;
      const vv = (-ex * Math.sin(lrot) + ey * Math.cos(lrot)) / lb;
      const r = Math.sqrt(u * u + vv * vv);
      const drop = logistic(((r - 1) * Math.min(la, lb)) / (lEdge / 4));
      wind = wind - drop * (wind - lowWind);
      if (drop >= 0.5) lookAlike[y * SIZE + x] = 1;
      let sea = cmod5nSigma0(Math.max(0.2, wind), windDir, INCIDENCE);
      // Slick damping (fraction of coreDb).
      let f = 0;
      if (x >= bx0 && x < bx1 && y >= by0 && y < by1) {
        const near = nearestOnPolyline(spine.xs, spine.ys, spine.cum, x, y);
        const t = near.s / lengthPx;
        const half = maxHalfWidth * (0.35 + 0.65 * Math.sin(Math.PI * Math.min(1, t * 1.1)));
        let body = logistic((near.d - half) / (edgePx / 4));
        // Faint tail: the last fifth fades to 30 %.
        if (t > 0.8) body *= 1 - (0.7 * (t - 0.8)) / 0.2;
        for (const g of gaps) body *= 1 - logistic((Math.abs(near.s - g.s) - g.half) / 1.5);
        for (const hle of holes) body *= 1 - logistic((Math.hypot(x - hle.x, y - hle.y) - hle.r) / 1.5);
        f = body;
        for (const a of arms) {
          const na = nearestOnPolyline(a.c.xs, a.c.ys, a.c.cum, x, y);
          f = Math.max(f, a.damp * logistic((na.d - a.half) / (edgePx / 6)));
        }
        let p = 0.75;
        for (const pp of patch) p += 0.1 * Math.sin((pp.kx * x + pp.ky * y) / (pp.l / (2 * Math.PI)) + pp.p);
        f *= Math.min(1, p);
      }
      if (f >= 0.5) truth[y * SIZE + x] = 1;
      sea *= 10 ** ((-coreDb * f) / 10);
      sigma0[y * SIZE + x] = sea;
    }
  }
  const speckle = new Float32Array(n);
  new SpeckleSampler(rng.fork('speckle'), SPECKLE_LOOKS).fill(speckle);
  for (let i = 0; i < n; i++) sigma0[i]! *= speckle[i]!;
  return { input: { sigma0VV: sigma0, valid: new Uint8Array(n).fill(1), width: SIZE, height: SIZE, pixelSpacing: { range: SPACING_M, azimuth: SPACING_M } }, truth, lookAlike };
}
