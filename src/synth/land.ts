/**
 * Natural Earth 1:10m land (world-atlas `land-10m.json`) cut to a lon/lat box: the coast
 * of synthetic scenes placed on real coastlines. The ship and oil-slick detectors mask land
 * with the same data set, so synthetic land and the detectors' land mask agree.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { feature } from 'topojson-client';
import type { GeometryCollection, Topology } from 'topojson-specification';
import { intersectAoi } from '../geo/index.ts';
import type { AoiGeometry, Position } from '../geo/types.ts';

type Box = [minLon: number, minLat: number, maxLon: number, maxLat: number];

let polygons: Position[][][] | null = null;

function load(): Position[][][] {
  if (polygons) return polygons;
  const require = createRequire(import.meta.url);
  const file = require.resolve('world-atlas/land-10m.json');
  const topology = JSON.parse(readFileSync(file, 'utf8')) as Topology<{ land: GeometryCollection }>;
  const land = feature(topology, topology.objects.land);
  const out: Position[][][] = [];
  for (const f of land.features) {
    const g = f.geometry;
    const parts = g.type === 'MultiPolygon' ? g.coordinates : g.type === 'Polygon' ? [g.coordinates] : [];
    for (const p of parts) out.push(p as Position[][]);
  }
  polygons = out;
  return out;
}

/** Sutherland–Hodgman clip of a ring to a box: cheap pre-cut of continent-sized rings. */
function clipRing(ring: Position[], box: Box): Position[] {
  let pts = ring;
  const edges: [(p: Position) => boolean, (a: Position, b: Position) => Position][] = [
    [(p) => p[0] >= box[0], (a, b) => [box[0], a[1] + ((b[1] - a[1]) * (box[0] - a[0])) / (b[0] - a[0])]],
    [(p) => p[0] <= box[2], (a, b) => [box[2], a[1] + ((b[1] - a[1]) * (box[2] - a[0])) / (b[0] - a[0])]],
    [(p) => p[1] >= box[1], (a, b) => [a[0] + ((b[0] - a[0]) * (box[1] - a[1])) / (b[1] - a[1]), box[1]]],
    [(p) => p[1] <= box[3], (a, b) => [a[0] + ((b[0] - a[0]) * (box[3] - a[1])) / (b[1] - a[1]), box[3]]],
  ];
  for (const [inside, cut] of edges) {
    if (pts.length === 0) break;
    const out: Position[] = [];
    for (let i = 0; i < pts.length; i++) {
      const a = pts[i]!;
      const b = pts[(i + 1) % pts.length]!;
      const ia = inside(a);
      const ib = inside(b);
      if (ia) out.push(a);
      if (ia !== ib) out.push(cut(a, b));
    }
    pts = out;
  }
  return pts;
}

function ringBox(ring: Position[]): Box {
  let x0 = Infinity;
  let y0 = Infinity;
  let x1 = -Infinity;
  let y1 = -Infinity;
  for (const [x, y] of ring) {
    if (x < x0) x0 = x;
    if (x > x1) x1 = x;
    if (y < y0) y0 = y;
    if (y > y1) y1 = y;
  }
  return [x0, y0, x1, y1];
}

/**
 * Land polygons (rings: outer first, holes after) inside a lon/lat box, exactly clipped and
 * valid (polygon-clipping), from Natural Earth 1:10m. Loads the data once (~0.3 s).
 */
export function naturalEarthLand(box: Box): Position[][][] {
  const margin = 0.05;
  const outer: Box = [box[0] - margin, box[1] - margin, box[2] + margin, box[3] + margin];
  const clipBox: AoiGeometry = {
    type: 'Polygon',
    coordinates: [[[box[0], box[1]], [box[2], box[1]], [box[2], box[3]], [box[0], box[3]], [box[0], box[1]]]],
  };
  const out: Position[][][] = [];
  for (const polygon of load()) {
    const b = ringBox(polygon[0]!);
    if (b[2] < outer[0] || b[0] > outer[2] || b[3] < outer[1] || b[1] > outer[3]) continue;
    const shell = clipRing(polygon[0]!.slice(0, -1), outer);
    if (shell.length < 3) continue;
    const holes = polygon
      .slice(1)
      .map((ring) => clipRing(ring.slice(0, -1), outer))
      .filter((r) => r.length >= 3);
    const rings = [shell, ...holes].map((r) => [...r, r[0]!]);
    const cut = intersectAoi({ type: 'Polygon', coordinates: rings }, clipBox);
    if (!cut) continue;
    if (cut.type === 'Polygon') out.push(cut.coordinates);
    else out.push(...cut.coordinates);
  }
  return out;
}
