/**
 * A time-series job's map layer (issue 22, the dashboard's first visit): what a web map needs to
 * colour the cells by deviation and nothing else — one GeoJSON Feature per result feature, in
 * the result's order, with the result's `id` (to find the cell's chart in the full result),
 * its geometry with coordinates rounded to 6 decimals (about 0.1 m: RFC 7946's advice, far
 * finer than a 10 m cell) and `properties.deviation` exactly as in the result. About a
 * twentieth of the result (which carries every cell's chart).
 *
 * Made from flat arrays (vectors.ts) on the calling thread, a few hundred cells between
 * event-loop turns — not on the analysis pool: the series detector uses no pool thread, and
 * starting one (a Node worker's boot, ~0.45 CPU s on this machine) cost more than the layer's
 * strings (docs/quicklook.md, Cost).
 */
import type { ResultCollection } from '../port.ts';
import { flattenFeatures, type FlatRings } from './vectors.ts';

/** Decimals of the layer's coordinates. */
export const MAP_LAYER_DECIMALS = 6;

/** The result's properties a map layer keeps, per endpoint. */
export const MAP_LAYER_PROPERTIES = { timeseries: ['deviation'] } as const;

export interface RenderMapLayerInput {
  cells: FlatRings;
  /** Per ring: 1 when it is the exterior of a polygon (a MultiPolygon's next part starts there), else 0 (a hole). */
  exterior: Uint8Array;
  /** Per feature: 1 for a MultiPolygon, 0 for a Polygon. */
  multi: Uint8Array;
  /** The result features' ids (null where a feature has none). */
  ids: Array<string | number | null>;
  /** Per feature its deviation; NaN where it is null. */
  deviations: Float64Array;
}

const SCALE = 10 ** MAP_LAYER_DECIMALS;
const round = (x: number): number => Math.round(x * SCALE) / SCALE;

/** Cells written between two event-loop turns (~3 ms at the bench's 5-point cells). */
const CELLS_PER_TURN = 500;

const yieldToLoop = () => new Promise<void>((r) => setImmediate(r));

/** The layer as UTF-8 GeoJSON, the strings built between event-loop turns. */
export async function renderMapLayer(input: RenderMapLayerInput, signal?: AbortSignal): Promise<Uint8Array> {
  const { cells, exterior, multi, ids, deviations } = input;
  const count = cells.featureStart.length - 1;
  const bbox = [Infinity, Infinity, -Infinity, -Infinity];
  const features: string[] = new Array(count);
  for (let f = 0; f < count; f++) {
    if (f % CELLS_PER_TURN === CELLS_PER_TURN - 1) {
      await yieldToLoop();
      signal?.throwIfAborted();
    }
    const polygons: string[] = [];
    let rings: string[] = [];
    for (let r = cells.featureStart[f]!; r < cells.featureStart[f + 1]!; r++) {
      if (exterior[r] && rings.length) {
        polygons.push(`[${rings.join(',')}]`);
        rings = [];
      }
      const a = cells.ringStart[r]!;
      const b = cells.ringStart[r + 1]!;
      const points: string[] = [];
      for (let p = a; p < b; p++) {
        const x = round(cells.coords[2 * p]!);
        const y = round(cells.coords[2 * p + 1]!);
        if (x < bbox[0]!) bbox[0] = x;
        if (y < bbox[1]!) bbox[1] = y;
        if (x > bbox[2]!) bbox[2] = x;
        if (y > bbox[3]!) bbox[3] = y;
        points.push(`[${x},${y}]`);
      }
      // The flat rings dropped each ring's closing point; GeoJSON wants it back.
      if (b > a) points.push(points[0]!);
      rings.push(`[${points.join(',')}]`);
    }
    if (rings.length) polygons.push(`[${rings.join(',')}]`);
    const geometry = multi[f] ? `{"type":"MultiPolygon","coordinates":[${polygons.join(',')}]}` : `{"type":"Polygon","coordinates":${polygons[0] ?? '[]'}}`;
    const d = deviations[f]!;
    const id = ids[f];
    features[f] = `{"type":"Feature",${id === null || id === undefined ? '' : `"id":${JSON.stringify(id)},`}"geometry":${geometry},"properties":{"deviation":${Number.isNaN(d) ? 'null' : JSON.stringify(d)}}}`;
  }
  const box = count ? `"bbox":${JSON.stringify(bbox)},` : '';
  return new TextEncoder().encode(`{"type":"FeatureCollection",${box}"features":[${features.join(',')}]}`);
}

/**
 * The map layer of a time-series result: UTF-8 GeoJSON. Throws for a feature that is not a
 * Polygon or MultiPolygon, or a deviation that is neither a finite number nor null (a result
 * that is not a time series'): the caller decides what that costs (the worker: no layer).
 */
export async function timeseriesMapLayer(features: ResultCollection['features'], signal?: AbortSignal): Promise<Uint8Array> {
  const multi = new Uint8Array(features.length);
  const deviations = new Float64Array(features.length);
  const ids: Array<string | number | null> = new Array(features.length);
  let rings = 0;
  features.forEach((f, i) => {
    const g = f.geometry as { type: string; coordinates: unknown[][] } | null;
    if (g?.type !== 'Polygon' && g?.type !== 'MultiPolygon') throw new Error(`feature ${i} is a ${g?.type ?? 'null geometry'}; a map layer draws polygons`);
    multi[i] = g.type === 'MultiPolygon' ? 1 : 0;
    rings += g.type === 'Polygon' ? g.coordinates.length : g.coordinates.reduce((n, p) => n + p.length, 0);
    const d = f.properties.deviation;
    if (d !== null && (typeof d !== 'number' || !Number.isFinite(d))) throw new Error(`feature ${i} has a deviation that is not a number`);
    deviations[i] = d === null ? Number.NaN : d;
    ids[i] = typeof f.id === 'number' || typeof f.id === 'string' ? f.id : null;
  });
  const exterior = new Uint8Array(rings);
  let r = 0;
  for (const f of features) {
    const g = f.geometry as { type: 'Polygon' | 'MultiPolygon'; coordinates: unknown[][] | unknown[][][] };
    for (const polygon of (g.type === 'Polygon' ? [g.coordinates] : g.coordinates) as unknown[][]) {
      exterior[r] = 1;
      r += polygon.length;
    }
  }
  const cells = await flattenFeatures(features);
  return renderMapLayer({ cells, exterior, multi, ids, deviations }, signal);
}
