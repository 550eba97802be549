/**
 * Scenes of the basic generated oil world (issue 24 §2 fifth pass): two slicks and two calm
 * patches (3–8 km, the wind falling to 0.5–2 m/s) in the four quadrants of a 30 km scene, five
 * ships. For `seed` 8200 + index it is the evaluation's own scene (eval/run.ts slickScene writes
 * this spec; heldOut.ts --scenes basic reproduces the evaluation's calm-3-2 at the committed
 * model's p 0.838, and test/analysis/oilslick-heldout.test.ts pins its patches); other seeds give the calm-patch
 * part of the training mix (generated.ts, the calm-3-2 kind: a small patch with a fast wind drop)
 * and the held-out check's basic scenes (heldOut.ts). Imports src/ only.
 */
import type { Position } from '../../src/geo/types.ts';
import { Random, type LowWindPatchSpec, type SafeGrdSpec, type ShipSpec, type SlickSpec } from '../../src/synth/index.ts';

/** The evaluation's first seed (scene `index` has seed EVAL_BASIC_SEED + index). */
export const EVAL_BASIC_SEED = 8200;

/** Seed of basic-scene variant `variant` (0: the evaluation's, 8200 + index; else 40,000 + 10 × variant + index: training 1 … 99, held-out ≥ 200). */
export function basicVariantSeed(variant: number, index: number): number {
  return variant === 0 ? EVAL_BASIC_SEED + index : 40_000 + 10 * variant + index;
}

/** The product spec (without size and polarisations) of a basic scene: eval/run.ts slickScene's for seed 8200 + index. */
export function basicSceneSpec(wind: number, index: number, seed = EVAL_BASIC_SEED + index, opts: { fastDrop?: boolean } = {}): Omit<SafeGrdSpec, 'width' | 'height' | 'pols'> {
  const rng = new Random(seed, 'eval-slicks');
  const center: Position = [3.2 + 0.4 * index, 54.6 + 0.35 * index];
  const km = (dx: number, dy: number): Position => [center[0] + dx / (111.32 * Math.cos((center[1] * Math.PI) / 180)), center[1] + dy / 110.57];
  // Quadrant centres (km from the scene centre); two get slicks, two calm patches.
  const quadrants: Array<[number, number]> = [[-7, -7], [7, -7], [-7, 7], [7, 7]];
  for (let i = quadrants.length - 1; i > 0; i--) {
    const j = Math.floor(rng.uniform() * (i + 1));
    [quadrants[i], quadrants[j]] = [quadrants[j]!, quadrants[i]!];
  }
  const slicks: SlickSpec[] = quadrants.slice(0, 2).map(([qx, qy], i) => {
    const length = rng.range(4, 10);
    const dir0 = rng.range(0, 2 * Math.PI);
    const bend = rng.range(-0.6, 0.6);
    const pts: Position[] = [];
    let [x, y, a] = [qx - (Math.cos(dir0) * length) / 2, qy - (Math.sin(dir0) * length) / 2, dir0];
    for (let k = 0; k <= 4; k++) {
      pts.push(km(x, y));
      x += (Math.cos(a) * length) / 4;
      y += (Math.sin(a) * length) / 4;
      a += bend / 4;
    }
    return { id: `slick-${index + 1}-${i + 1}`, path: pts, widthM: [Math.round(rng.range(80, 250)), Math.round(rng.range(300, 800))] };
  });
  const lowWind: LowWindPatchSpec[] = quadrants.slice(2).map(([qx, qy], i) => {
    // fastDrop (training only): small patches where the wind falls furthest — calm-3-2's kind (3.1 km, 0.6 m/s).
    const lengthM = Math.round(opts.fastDrop ? rng.range(2500, 4000) : rng.range(3000, 8000));
    return {
      id: `calm-${index + 1}-${i + 1}`,
      center: km(qx + rng.range(-1, 1), qy + rng.range(-1, 1)),
      lengthM,
      widthM: Math.round(lengthM * rng.range(0.3, 0.6)),
      orientationDeg: Math.round(rng.range(0, 180)),
      minSpeed: Math.round((opts.fastDrop ? rng.range(0.3, 1) : rng.range(0.5, 2)) * 10) / 10,
    };
  });
  const ships: ShipSpec[] = Array.from({ length: 5 }, (_, i) => {
    const p = km(rng.range(-13, 13), rng.range(-13, 13));
    return { id: `s${i + 1}`, lon: p[0], lat: p[1], lengthM: Math.round(rng.range(30, 200)), headingDeg: Math.round(rng.range(0, 360)) };
  });
  return {
    seed,
    start: new Date(Date.UTC(2024, 7, 10 + index, 5, 50)),
    center,
    passDirection: index % 2 === 0 ? 'ascending' : 'descending',
    wind: { speed: wind, directionDeg: 200 + 50 * index },
    slicks,
    lowWind,
    ships,
  };
}
