/** Sample locations and scene-record builders for the catalog tests. */
import type { AoiGeometry, Polygon } from '../../src/geo/types.ts';
import { alongTrackFrame } from '../../src/catalog/orbit.ts';
import type { Mission, OrbitDirection, SceneProductType, SceneRecord, Timeliness } from '../../src/catalog/types.ts';

export { SAMPLES, S1_DATA, STAC_EXAMPLES } from '../helpers/samples.ts';

export function box(x0: number, y0: number, x1: number, y1: number): Polygon {
  return { type: 'Polygon', coordinates: [[[x0, y0], [x1, y0], [x1, y1], [x0, y1], [x0, y0]]] };
}

let counter = 0;

export interface SceneSpec {
  id?: string;
  /** Acquisition start, ISO or `YYYY-MM-DD` (then 12:00:00Z). */
  t: string;
  footprint?: AoiGeometry;
  rel?: number;
  abs?: number | null;
  dir?: OrbitDirection;
  type?: SceneProductType;
  platform?: Mission;
  timeliness?: Timeliness;
  durationS?: number;
}

/** A synthetic scene record; footprint defaults to a 1°×1° box at 10..11 E, 50..51 N. */
export function scene(spec: SceneSpec): SceneRecord {
  const start = new Date(/T/.test(spec.t) ? spec.t : `${spec.t}T12:00:00Z`);
  const stop = new Date(start.getTime() + (spec.durationS ?? 25) * 1000);
  const footprint = spec.footprint ?? box(10, 50, 11, 51);
  const dir = spec.dir ?? 'ascending';
  const rec: SceneRecord = {
    sceneId: spec.id ?? `SCENE_${String(++counter).padStart(4, '0')}`,
    productType: spec.type ?? 'GRD',
    platform: spec.platform ?? 'S1A',
    platformGroup: 'S1',
    startTime: start.toISOString(),
    stopTime: stop.toISOString(),
    relativeOrbit: spec.rel ?? 15,
    absoluteOrbit: spec.abs === undefined ? null : spec.abs,
    orbitDirection: dir,
    frame: alongTrackFrame(footprint, dir),
    polarisations: ['VV', 'VH'],
    footprint,
    assets: {},
    source: 'local',
  };
  if (spec.timeliness) rec.timeliness = spec.timeliness;
  return rec;
}
