/**
 * Polygons as flat typed arrays (lon, lat pairs), so thousands of result features cross to a
 * worker thread as three buffers instead of a structured clone of nested GeoJSON arrays.
 */
import type { AoiGeometry, Polygon, Ring } from '../../geo/types.ts';

export interface FlatRings {
  /** lon, lat, lon, lat, … of every ring, closing point dropped. */
  coords: Float64Array;
  /** Ring r's points are coords pairs ringStart[r] … ringStart[r + 1] − 1 (length rings + 1). */
  ringStart: Uint32Array;
  /** Feature f's rings are featureStart[f] … featureStart[f + 1] − 1, its exterior first (length features + 1). */
  featureStart: Uint32Array;
}

type Geometry = Polygon | AoiGeometry;

function ringsOf(g: Geometry): Ring[] {
  return g.type === 'Polygon' ? g.coordinates : g.coordinates.flat();
}

/** Points of a ring without its closing repeat of the first. */
function openLength(ring: Ring): number {
  const n = ring.length;
  if (n > 1 && ring[0]![0] === ring[n - 1]![0] && ring[0]![1] === ring[n - 1]![1]) return n - 1;
  return n;
}

/**
 * The geometries' rings, flattened. A long list yields to the event loop every `chunk`
 * geometries (a building-change result can hold hundreds of thousands).
 */
export async function flattenGeometries(geometries: readonly Geometry[], chunk = 20_000): Promise<FlatRings> {
  let points = 0;
  let rings = 0;
  for (const g of geometries) {
    for (const ring of ringsOf(g)) {
      points += openLength(ring);
      rings++;
    }
  }
  const coords = new Float64Array(2 * points);
  const ringStart = new Uint32Array(rings + 1);
  const featureStart = new Uint32Array(geometries.length + 1);
  let p = 0;
  let r = 0;
  for (let f = 0; f < geometries.length; f++) {
    featureStart[f] = r;
    for (const ring of ringsOf(geometries[f]!)) {
      ringStart[r++] = p;
      const n = openLength(ring);
      for (let i = 0; i < n; i++) {
        coords[2 * p] = ring[i]![0];
        coords[2 * p + 1] = ring[i]![1];
        p++;
      }
    }
    if ((f + 1) % chunk === 0) await new Promise<void>((resolve) => setImmediate(resolve));
  }
  featureStart[geometries.length] = r;
  ringStart[rings] = p;
  return { coords, ringStart, featureStart };
}

/** A copy whose buffers are its own (FlatRings sent to a thread have their buffers moved). */
function copyOf(f: FlatRings): FlatRings {
  return { coords: f.coords.slice(), ringStart: f.ringStart.slice(), featureStart: f.featureStart.slice() };
}

/** The flattening of each result in use: a time series' quicklook and map layer are made side by side from the same features. */
const flattened = new WeakMap<readonly { geometry: unknown }[], Promise<FlatRings>>();

/**
 * flattenGeometries of the features' geometries, done once per features array: each caller
 * gets its own copy of the arrays (to move to a thread), the JavaScript objects walked once.
 */
export async function flattenFeatures(features: readonly { geometry: unknown }[]): Promise<FlatRings> {
  let made = flattened.get(features);
  if (!made) {
    made = flattenGeometries(features.map((f) => f.geometry as Geometry));
    flattened.set(features, made);
  }
  return copyOf(await made);
}

/** The transferable buffers of a FlatRings. */
export function flatBuffers(f: FlatRings): ArrayBuffer[] {
  return [f.coords.buffer as ArrayBuffer, f.ringStart.buffer as ArrayBuffer, f.featureStart.buffer as ArrayBuffer];
}
