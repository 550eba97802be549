/**
 * A harder generated world for oil slicks (issue 11): thin ship-trail slicks (20–100 m wide)
 * starting at their ship, a biogenic film (3 dB damping, a long curved filament: a look-alike
 * drawn like oil), and a large low-wind area (14 × 8 km), on 30 × 30 km VV products at 6 and
 * 9 m/s. Not yet here: rain cells, internal waves, ship wakes, upwelling (src/synth lacks them).
 * Per slick: found (≥ 1 feature overlapping) and polygon IoU; per look-alike: features on it.
 */
import { readFileSync } from 'node:fs';
import { detectSlicksInSafeDetailed } from '../src/analysis/oilslick/index.ts';
import type { Polygon, Position } from '../src/geo/types.ts';
import { Random, writeSafeGrd, type LowWindPatchSpec, type ShipSpec, type SlickSpec } from '../src/synth/index.ts';
import { f3, table } from './format.ts';
import { iou, overlaps } from './scoring/slickEval.ts';

const SIZE = 3000;
const WINDS = [6, 9];

interface Truth {
  geometry: Polygon;
  properties: { kind: string; id: string; cause?: string };
}

export interface HardSlickRow {
  id: string;
  windSpeed: number;
  widthM: [number, number];
  features: number;
  iou: number;
}

export interface HardLookAlikeRow {
  id: string;
  windSpeed: number;
  cause: string;
  falseAlarms: number;
}

async function scene(dir: string, wind: number, index: number) {
  const seed = 9300 + index;
  const rng = new Random(seed, 'eval-slicks-hard');
  const center: Position = [4.1 + 0.5 * index, 55.2 - 0.3 * index];
  const km = (dx: number, dy: number): Position => [center[0] + dx / (111.32 * Math.cos((center[1] * Math.PI) / 180)), center[1] + dy / 110.57];
  const ships: ShipSpec[] = [];
  const slicks: SlickSpec[] = [];
  // Two ship-trail slicks: a ship at the head, a straight thin trail behind it.
  for (const [i, [qx, qy]] of ([[-7, -7], [7, 7]] as Array<[number, number]>).entries()) {
    const heading = rng.range(0, 360);
    const a = ((90 - heading) * Math.PI) / 180; // compass → maths angle
    const length = rng.range(3, 6);
    const head = km(qx, qy);
    const tail = km(qx - Math.cos(a) * length, qy - Math.sin(a) * length);
    const w0 = Math.round(rng.range(20, 50));
    ships.push({ id: `trail-ship-${index + 1}-${i + 1}`, lon: head[0], lat: head[1], lengthM: Math.round(rng.range(80, 200)), headingDeg: Math.round(heading) });
    // The trail starts 150 m behind the ship's centre (its stern).
    const start = km(qx - Math.cos(a) * 0.15, qy - Math.sin(a) * 0.15);
    slicks.push({ id: `trail-${index + 1}-${i + 1}`, path: [start, tail], widthM: [w0, Math.round(w0 + rng.range(20, 50))], dampingDb: 7 });
  }
  // A biogenic film: weak damping, long curved filament.
  slicks.push({ id: `film-${index + 1}`, film: 'biogenic', path: [km(4, -12), km(7, -9), km(8, -5), km(11, -3)], widthM: [150, 300], dampingDb: 3 });
  const lowWind: LowWindPatchSpec[] = [{ id: `calm-large-${index + 1}`, center: km(-6, 7), lengthM: 14_000, widthM: 8_000, orientationDeg: 20 + 40 * index, minSpeed: 1.5 }];
  const written = await writeSafeGrd(dir, {
    seed,
    start: new Date(Date.UTC(2024, 8, 2 + index, 5, 50)),
    center,
    width: SIZE,
    height: SIZE,
    pols: ['VV'],
    passDirection: index % 2 === 0 ? 'ascending' : 'descending',
    wind: { speed: wind, directionDeg: 230 + 40 * index },
    slicks,
    lowWind,
    ships,
  });
  const truth = (JSON.parse(readFileSync(written.groundTruthPath, 'utf8')) as { features: Truth[] }).features;
  const details = await detectSlicksInSafeDetailed(written.productPath);
  const features = details.collection.features.map((f) => f.geometry as Polygon);
  const oil = truth.filter((t) => t.properties.kind === 'oilslick');
  const looks = truth.filter((t) => t.properties.kind === 'lookalike');
  const slickRows: HardSlickRow[] = oil.map((t) => {
    const hits = features.filter((g) => overlaps(t.geometry, g));
    const spec = slicks.find((s) => s.id === t.properties.id)!;
    return { id: t.properties.id, windSpeed: wind, widthM: spec.widthM as [number, number], features: hits.length, iou: Math.round(iou(t.geometry, hits) * 1000) / 1000 };
  });
  const lookRows: HardLookAlikeRow[] = looks.map((t) => ({
    id: t.properties.id,
    windSpeed: wind,
    cause: t.properties.cause ?? 'low wind',
    falseAlarms: features.filter((g) => overlaps(t.geometry, g)).length,
  }));
  const other = features.filter((g) => ![...oil, ...looks].some((t) => overlaps(t.geometry, g))).length;
  return { slickRows, lookRows, other };
}

export async function evalSlicksHard(dir: string) {
  const slicks: HardSlickRow[] = [];
  const lookAlikes: HardLookAlikeRow[] = [];
  let otherFalseAlarms = 0;
  for (const [i, wind] of WINDS.entries()) {
    const r = await scene(dir, wind, i);
    slicks.push(...r.slickRows);
    lookAlikes.push(...r.lookRows);
    otherFalseAlarms += r.other;
  }
  const found = slicks.filter((s) => s.features > 0);
  return {
    sceneSizePx: [SIZE, SIZE],
    slicks,
    lookAlikes,
    summary: {
      slicks: slicks.length,
      detected: found.length,
      meanIou: slicks.length ? Math.round((1000 * slicks.reduce((a, s) => a + s.iou, 0)) / slicks.length) / 1000 : 0,
      lookAlikes: lookAlikes.length,
      lookAlikesWithFalseAlarm: lookAlikes.filter((l) => l.falseAlarms > 0).length,
      otherFalseAlarms,
    },
  };
}

export function printSlicksHard(r: Awaited<ReturnType<typeof evalSlicksHard>>): void {
  console.log(`oil slicks, harder generated world: ${SIZE} × ${SIZE} px VV, thin ship-trail slicks, a biogenic film, a large low-wind area per scene`);
  console.log(table(['slick', 'wind m/s', 'width m', 'features', 'IoU'], r.slicks.map((s) => [s.id, s.windSpeed, `${s.widthM[0]}–${s.widthM[1]}`, s.features, f3(s.iou)])));
  console.log('');
  console.log(table(['look-alike', 'wind m/s', 'cause', 'false alarms'], r.lookAlikes.map((l) => [l.id, l.windSpeed, l.cause, l.falseAlarms])));
  const s = r.summary;
  console.log(`thin trails detected ${s.detected}/${s.slicks}, mean IoU ${f3(s.meanIou)} (misses as 0); look-alikes flagged ${s.lookAlikesWithFalseAlarm}/${s.lookAlikes}; ${s.otherFalseAlarms} other false alarms\n`);
}
