/**
 * Scenes of the harder generated oil world (issue 11, issue 24 §2): thin ship-trail slicks among
 * look-alikes — set "films": two ship trails, a biogenic film, a large low-wind area; set "sea":
 * a rain cell, internal waves, two ship wakes, upwelling and one trail. Variant 0 is the
 * evaluation's world (eval/oilHard.ts; its figures stay comparable); variants ≥ 1 are other
 * seeds and scene centres of the same generator, the generated part of the training mix
 * (training/oilslick/generated.ts). Imports src/ only.
 */
import type { Position } from '../../src/geo/types.ts';
import { Random, type SafeGrdSpec, type ShipSpec, type SlickSpec } from '../../src/synth/index.ts';

export type HardSetName = 'films' | 'sea';

/** Seed and centre shift of a variant (0: none, the evaluation's scenes). */
function variantShift(variant: number): { seed: number; dLon: number; dLat: number } {
  if (variant === 0) return { seed: 0, dLon: 0, dLat: 0 };
  // Open North Sea whatever the variant: ±0.6° lon, ±0.3° lat around the evaluation's centres.
  return { seed: 1000 * variant, dLon: ((variant * 0.37) % 1.2) - 0.6, dLat: ((variant * 0.23) % 0.6) - 0.3 };
}

const km = (center: Position) => (dx: number, dy: number): Position => [center[0] + dx / (111.32 * Math.cos((center[1] * Math.PI) / 180)), center[1] + dy / 110.57];

/** A ship at `head` on a random heading within `spread`° of `heading`, and the direction pointing back along its track. */
function shipAt(rng: Random, heading: number, spread: number): { heading: number; back: (d: number) => [number, number] } {
  const h = Math.round(heading + rng.range(-spread, spread));
  const a = ((90 - h) * Math.PI) / 180; // compass → maths angle
  return { heading: h, back: (d) => [-Math.cos(a) * d, -Math.sin(a) * d] };
}

/** Set "films": the first harder world (unchanged since it was added: its figures stay comparable). */
function filmsSpec(wind: number, index: number, variant = 0): { spec: Omit<SafeGrdSpec, 'width' | 'height' | 'pols'>; slicks: SlickSpec[] } {
  const v = variantShift(variant);
  const seed = 9300 + index + v.seed;
  const rng = new Random(seed, 'eval-slicks-hard');
  const center: Position = [4.1 + 0.5 * index + v.dLon, 55.2 - 0.3 * index + v.dLat];
  const at = km(center);
  const ships: ShipSpec[] = [];
  const slicks: SlickSpec[] = [];
  // Two ship-trail slicks: a ship at the head, a straight thin trail behind it.
  for (const [i, [qx, qy]] of ([[-7, -7], [7, 7]] as Array<[number, number]>).entries()) {
    const heading = rng.range(0, 360);
    const a = ((90 - heading) * Math.PI) / 180;
    const length = rng.range(3, 6);
    const head = at(qx, qy);
    const tail = at(qx - Math.cos(a) * length, qy - Math.sin(a) * length);
    const w0 = Math.round(rng.range(20, 50));
    ships.push({ id: `trail-ship-${index + 1}-${i + 1}`, lon: head[0], lat: head[1], lengthM: Math.round(rng.range(80, 200)), headingDeg: Math.round(heading) });
    // The trail starts 150 m behind the ship's centre (its stern).
    const start = at(qx - Math.cos(a) * 0.15, qy - Math.sin(a) * 0.15);
    slicks.push({ id: `trail-${index + 1}-${i + 1}`, path: [start, tail], widthM: [w0, Math.round(w0 + rng.range(20, 50))], dampingDb: 7 });
  }
  slicks.push({ id: `film-${index + 1}`, film: 'biogenic', path: [at(4, -12), at(7, -9), at(8, -5), at(11, -3)], widthM: [150, 300], dampingDb: 3 });
  return {
    slicks,
    spec: {
      seed,
      start: new Date(Date.UTC(2024, 8, 2 + index, 5, 50)),
      center,
      passDirection: index % 2 === 0 ? 'ascending' : 'descending',
      wind: { speed: wind, directionDeg: 230 + 40 * index },
      slicks,
      lowWind: [{ id: `calm-large-${index + 1}`, center: at(-6, 7), lengthM: 14_000, widthM: 8_000, orientationDeg: 20 + 40 * index, minSpeed: 1.5 }],
      ships,
    },
  };
}

/**
 * Set "sea" (km from the centre): rain cell at (−8, 8), internal waves round (7, 7), wake ships
 * at (−6, −4) heading NNE (wake to the SSW) and (−1, 4) heading S (wake to the N), upwelling at
 * (8, −8), and an oil-trailing ship at (−1, −1) heading N (trail to the S).
 */
function seaSpec(wind: number, index: number, variant = 0): { spec: Omit<SafeGrdSpec, 'width' | 'height' | 'pols'>; slicks: SlickSpec[] } {
  const v = variantShift(variant);
  const seed = 9400 + index + v.seed;
  const rng = new Random(seed, 'eval-slicks-hard-sea');
  const center: Position = [3.6 + 0.5 * index + v.dLon, 54.6 + 0.3 * index + v.dLat];
  const at = km(center);
  const n = index + 1;
  const ships: ShipSpec[] = [];
  for (const [i, [x, y, heading]] of ([[-6, -4, 20], [-1, 4, 180]] as Array<[number, number, number]>).entries()) {
    const s = shipAt(rng, heading, 20);
    const p = at(x, y);
    ships.push({
      id: `wake-ship-${n}-${i + 1}`,
      lon: p[0],
      lat: p[1],
      lengthM: Math.round(rng.range(60, 250)),
      headingDeg: s.heading,
      wake: { id: `wake-${n}-${i + 1}`, lengthM: Math.round(rng.range(3000, 5000)), widthM: Math.round(rng.range(40, 90)), dampingDb: Math.round(rng.range(3, 5) * 10) / 10 },
    });
  }
  const oil = shipAt(rng, 0, 20);
  const length = rng.range(3, 5);
  const w0 = Math.round(rng.range(20, 50));
  const head = at(-1, -1);
  ships.push({ id: `trail-ship-sea-${n}`, lon: head[0], lat: head[1], lengthM: Math.round(rng.range(80, 200)), headingDeg: oil.heading });
  const [sx, sy] = oil.back(0.15);
  const [tx, ty] = oil.back(length);
  const slicks: SlickSpec[] = [{ id: `trail-sea-${n}`, path: [at(-1 + sx, -1 + sy), at(-1 + tx, -1 + ty)], widthM: [w0, Math.round(w0 + rng.range(20, 50))], dampingDb: 7 }];
  const propagation = Math.round(rng.range(0, 360));
  const pr = (propagation * Math.PI) / 180;
  return {
    slicks,
    spec: {
      seed,
      start: new Date(Date.UTC(2024, 8, 12 + index, 17, 30)),
      center,
      passDirection: index % 2 === 0 ? 'descending' : 'ascending',
      wind: { speed: wind, directionDeg: 200 + 60 * index },
      slicks,
      ships,
      rainCells: [{ id: `rain-${n}`, center: at(-8, 8), diameterM: Math.round(rng.range(4000, 7000)), coreDampingDb: Math.round(rng.range(3, 5) * 10) / 10, ringGainDb: Math.round(rng.range(2, 4) * 10) / 10 }],
      internalWaves: [
        {
          id: `internal-waves-${n}`,
          // The leading crest 2.5 km ahead of (7, 7): the packet trails back over it.
          center: at(7 + 2.5 * Math.sin(pr), 7 + 2.5 * Math.cos(pr)),
          propagationDeg: propagation,
          crests: 5,
          spacingM: Math.round(rng.range(1200, 1800)),
          crestLengthM: 8000,
          amplitudeDb: Math.round(rng.range(2, 3) * 10) / 10,
        },
      ],
      upwelling: [{ id: `upwelling-${n}`, center: at(8, -8), lengthM: 9000, widthM: 5000, orientationDeg: Math.round(rng.range(-20, 20)), dampingDb: Math.round(rng.range(1.5, 3) * 10) / 10, filaments: 3 }],
    },
  };
}

/** The product spec (without size and polarisations) and the slicks of one scene of a set (variant 0: the evaluation's). */
export function hardSceneSpec(set: HardSetName, wind: number, index: number, variant = 0): ReturnType<typeof filmsSpec> {
  return (set === 'films' ? filmsSpec : seaSpec)(wind, index, variant);
}
