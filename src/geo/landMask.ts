// Land mask for a pixel window of an image, from Natural Earth 10 m land (world-atlas).
//
// Per window: (1) the window (grown by the shore buffer) is outlined in lon/lat and its
// bounding box taken, with a margin; (2) land rings are cut down to that box cheaply: rings
// are stored in chunks of CHUNK vertices with their bounding boxes, a chunk that misses the
// box is replaced by two points on the box side it lies beyond (a path outside the box can
// be slid onto the box boundary without changing which points inside it are enclosed), and
// what is left is clipped to the box (Sutherland–Hodgman); (3) the remaining vertices are
// projected to pixel coordinates with the inverse mapping and the rings are filled by
// scanline (even–odd, pixel centres); (4) land is dilated by the buffer with an exact
// Euclidean distance transform in metres (anisotropic pixel spacing); (5) the window is cut
// out. An open-sea window costs a few hundred bounding-box tests and no projection at all.
//
// Limits: world-atlas quantises Natural Earth to 1e-5 of the world's extent (≈ 0.0036° of
// longitude, 0.0017° of latitude: 250 m × 190 m at the equator), and Natural Earth 10 m
// itself is generalised; the shore buffer is there to absorb both. Windows that straddle the
// antimeridian are not handled (their lon/lat box would span the globe).

import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { MACHINE_CACHE_DIR, ownPrivateDir, writeAside } from '../privateFiles.ts';
import { createRequire } from 'node:module';
import geodesic from 'geographiclib-geodesic';
import { feature } from 'topojson-client';
import type { GeometryCollection, Topology } from 'topojson-specification';
import type { Scratch } from '../raster/scratch.ts';

const CHUNK = 64;

export interface LandRing {
  /** Interleaved lon, lat; not closed (the last vertex connects to the first). */
  coords: Float64Array;
  /** minLon, minLat, maxLon, maxLat per chunk; chunk k spans vertices k·CHUNK … (k+1)·CHUNK (wrapping). */
  chunkBoxes: Float64Array;
  bbox: [number, number, number, number];
}

export interface LandPolygons {
  /** Every ring (shells and holes alike: the fill is even–odd). */
  rings: LandRing[];
  source: string;
}

let cached: LandPolygons | null = null;

const SOURCE = 'Natural Earth 1:10m land (world-atlas 2, land-10m.json)';
/** Version of the packed index file below: bump when what indexRing makes changes. */
const PACK_VERSION = 1;

/**
 * Natural Earth 1:10m land polygons from world-atlas (`land-10m.json`, TopoJSON), decoded
 * with topojson-client and indexed for window queries. Loaded once per thread: the index is
 * built once per machine (≈ 0.4 s) and kept packed in `cacheDir` (default the OS temp
 * folder), so every other thread and process maps it back in a few ms (each analysis thread
 * of every worker process needs it; issue 20 §2). An unwritable folder only costs the build.
 */
export function loadLandPolygons(cacheDir = MACHINE_CACHE_DIR): LandPolygons {
  if (cached) return cached;
  const require = createRequire(import.meta.url);
  const sourcePath = require.resolve('world-atlas/land-10m.json');
  const { size, mtimeMs } = statSync(sourcePath);
  // The source file's size and time name the pack: another world-atlas gives another file.
  const packPath = path.join(cacheDir, `land-10m.${PACK_VERSION}.${CHUNK}.${size}.${Math.round(mtimeMs)}.f64`);
  // Only a folder of this user's own that no one else may write is trusted (ownPrivateDir).
  const usable = ownPrivateDir(cacheDir);
  const packed = usable ? readPackedLand(packPath) : null;
  if (packed) return (cached = packed);
  cached = buildLandPolygons(sourcePath);
  // Read-only or full: the next thread builds again.
  if (usable) writeAside(packPath, packLand(cached));
  return cached;
}

/** The land index from the TopoJSON file (what the pack holds). */
export function buildLandPolygons(sourcePath = createRequire(import.meta.url).resolve('world-atlas/land-10m.json')): LandPolygons {
  const topology = JSON.parse(readFileSync(sourcePath, 'utf8')) as Topology<{ land: GeometryCollection }>;
  const land = feature(topology, topology.objects.land);
  const rings: LandRing[] = [];
  for (const f of land.features) {
    const g = f.geometry;
    const polygons = g.type === 'MultiPolygon' ? g.coordinates : g.type === 'Polygon' ? [g.coordinates] : [];
    for (const polygon of polygons) for (const ring of polygon) rings.push(indexRing(ring as number[][]));
  }
  return { rings, source: SOURCE };
}

/**
 * The index as one run of float64: [rings, coordinate count, box count], then per ring its
 * coordinate and box counts and bbox, then every ring's coordinates, then every ring's chunk boxes.
 */
export function packLand(land: LandPolygons): Buffer {
  const nc = land.rings.reduce((s, r) => s + r.coords.length, 0);
  const nb = land.rings.reduce((s, r) => s + r.chunkBoxes.length, 0);
  const out = new Float64Array(3 + 6 * land.rings.length + nc + nb);
  out.set([land.rings.length, nc, nb]);
  let m = 3;
  let c = 3 + 6 * land.rings.length;
  let b = c + nc;
  for (const r of land.rings) {
    out.set([r.coords.length, r.chunkBoxes.length, ...r.bbox], m);
    m += 6;
    out.set(r.coords, c);
    c += r.coords.length;
    out.set(r.chunkBoxes, b);
    b += r.chunkBoxes.length;
  }
  return Buffer.from(out.buffer);
}

/** The index packLand wrote, its arrays views of one buffer; null when the file is missing or not whole. */
export function readPackedLand(file: string): LandPolygons | null {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch {
    return null;
  }
  if (bytes.byteLength % 8 !== 0 || bytes.byteLength < 24) return null;
  // A large file's buffer is its own (offset 0); anything else is copied to be aligned.
  const all = bytes.byteOffset % 8 === 0 ? new Float64Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 8) : new Float64Array(new Uint8Array(bytes).buffer);
  const [n, nc, nb] = [all[0]!, all[1]!, all[2]!];
  if (all.length !== 3 + 6 * n + nc + nb) return null;
  const rings: LandRing[] = [];
  let c = 3 + 6 * n;
  let b = c + nc;
  for (let i = 0; i < n; i++) {
    const m = 3 + 6 * i;
    const coords = all.subarray(c, (c += all[m]!));
    const chunkBoxes = all.subarray(b, (b += all[m + 1]!));
    rings.push({ coords, chunkBoxes, bbox: [all[m + 2]!, all[m + 3]!, all[m + 4]!, all[m + 5]!] });
  }
  if (c !== 3 + 6 * n + nc || b !== all.length) return null;
  return { rings, source: SOURCE };
}

function indexRing(ring: number[][]): LandRing {
  let n = ring.length;
  const first = ring[0]!;
  const last = ring[n - 1]!;
  if (n > 1 && first[0] === last[0] && first[1] === last[1]) n--;
  const coords = new Float64Array(2 * n);
  for (let i = 0; i < n; i++) {
    coords[2 * i] = ring[i]![0]!;
    coords[2 * i + 1] = ring[i]![1]!;
  }
  const chunks = Math.ceil(n / CHUNK);
  const chunkBoxes = new Float64Array(4 * chunks);
  const bbox: [number, number, number, number] = [Infinity, Infinity, -Infinity, -Infinity];
  for (let k = 0; k < chunks; k++) {
    let x0 = Infinity;
    let y0 = Infinity;
    let x1 = -Infinity;
    let y1 = -Infinity;
    const end = Math.min((k + 1) * CHUNK, n);
    // Include the vertex that starts the next chunk: the chunk's last edge ends there.
    for (let i = k * CHUNK; i <= end; i++) {
      const j = i % n;
      const x = coords[2 * j]!;
      const y = coords[2 * j + 1]!;
      if (x < x0) x0 = x;
      if (x > x1) x1 = x;
      if (y < y0) y0 = y;
      if (y > y1) y1 = y;
    }
    chunkBoxes.set([x0, y0, x1, y1], 4 * k);
    if (x0 < bbox[0]) bbox[0] = x0;
    if (y0 < bbox[1]) bbox[1] = y0;
    if (x1 > bbox[2]) bbox[2] = x1;
    if (y1 > bbox[3]) bbox[3] = y1;
  }
  return { coords, chunkBoxes, bbox };
}

export interface LandMaskOptions {
  /** Window size in pixels. */
  width: number;
  height: number;
  /** Window (row, col) → [lon, lat]; integers are pixel centres. Must accept coordinates a little outside the window. */
  pixelToLonLat: (row: number, col: number) => [number, number];
  /**
   * [lon, lat] → window (row, col). Optional: without it, vertices are inverted by Newton's
   * method on pixelToLonLat, which is as exact and about as fast for a smooth mapping.
   */
  lonLatToPixel?: (lon: number, lat: number) => [number, number];
  /** Land grows by this many metres (shore buffer). Default 0. */
  bufferMeters?: number;
  /** Metres between columns (range) and between rows (azimuth); estimated from pixelToLonLat when absent. */
  pixelSpacing?: { range: number; azimuth: number };
  /** Defaults to loadLandPolygons(). */
  land?: LandPolygons;
  /**
   * The mask and its working frame are this scratch's arrays (src/raster/scratch.ts), not fresh
   * ones: the result is overwritten by the next call with the same scratch. Same values.
   */
  scratch?: Scratch;
}

type Box = [number, number, number, number];

/**
 * 1 where the pixel centre is on land (Natural Earth 10 m) or within `bufferMeters` of a land
 * pixel, 0 elsewhere; row-major `width × height`.
 */
export function rasterizeLandMask(options: LandMaskOptions): Uint8Array {
  return rasterize(options, false).land;
}

/**
 * rasterizeLandMask's mask (`land`) and the same without the shore buffer (`unbuffered`:
 * Natural Earth's land alone) from one fill; the same array when the buffer adds nothing (no
 * buffer, or a window all sea or all land). With `scratch` both are its arrays.
 */
export function rasterizeLandMasks(options: LandMaskOptions): { land: Uint8Array; unbuffered: Uint8Array } {
  const { land, unbuffered } = rasterize(options, true);
  return { land, unbuffered: unbuffered ?? land };
}

/** The masks; `unbuffered` null where it differs from `land` but `keepUnbuffered` is false. */
function rasterize(options: LandMaskOptions, keepUnbuffered: boolean): { land: Uint8Array; unbuffered: Uint8Array | null } {
  const { width, height, pixelToLonLat } = options;
  if (!Number.isInteger(width) || !Number.isInteger(height) || width <= 0 || height <= 0) {
    throw new RangeError(`rasterizeLandMask: window must be a positive integer size, got ${width} × ${height}`);
  }
  const land = options.land ?? loadLandPolygons();
  const buffer = Math.max(0, options.bufferMeters ?? 0);
  const spacing = options.pixelSpacing ?? estimatePixelSpacing(pixelToLonLat, width, height);
  const bx = buffer > 0 ? Math.ceil(buffer / spacing.range) : 0;
  const by = buffer > 0 ? Math.ceil(buffer / spacing.azimuth) : 0;
  // The frame is the window grown by the buffer: land just outside still buffers into it.
  const fw = width + 2 * bx;
  const fh = height + 2 * by;
  const frameToLonLat = (r: number, c: number): [number, number] => pixelToLonLat(r - by, c - bx);

  const box = frameBox(frameToLonLat, fw, fh, spacing);
  const rings: number[][] = []; // interleaved lon/lat, clipped to the box
  for (const ring of land.rings) {
    const b = ring.bbox;
    if (b[2] < box[0] || b[0] > box[2] || b[3] < box[1] || b[1] > box[3]) continue;
    const clipped = clipToBox(reduceRing(ring, box), box);
    if (clipped.length >= 6) rings.push(clipped);
  }

  // Zeroed arrays: fresh, or the scratch's cleared (fresh pages cost ≈ 13 µs per 4 KiB page
  // fault on the bench box, several times the work done here per pixel).
  const zeroed = (name: string, n: number): Uint8Array => (options.scratch ? options.scratch.array(name, Uint8Array, n).fill(0) : new Uint8Array(n));
  // Nothing of the coast inside the box: the window is all sea, or all land, decided at the
  // box centre. Neither needs a raster of the frame nor the buffer.
  const same = (mask: Uint8Array) => ({ land: mask, unbuffered: mask });
  if (rings.length === 0) return same(zeroed('landMask', width * height));
  if (rings.every((r) => onBoxBoundary(r, box))) {
    const out = zeroed('landMask', width * height);
    if (insideEvenOdd(rings, (box[0] + box[2]) / 2, (box[1] + box[3]) / 2)) out.fill(1);
    return same(out);
  }
  // Without a buffer the frame is the window (bx = by = 0) and the result.
  const frame = zeroed(buffer > 0 ? 'landMask.frame' : 'landMask', fw * fh);
  const inverse = options.lonLatToPixel
    ? (lon: number, lat: number): [number, number] => {
        const [r, c] = options.lonLatToPixel!(lon, lat);
        return [r + by, c + bx];
      }
    : newtonInverse(frameToLonLat, fw, fh);
  const pixelRings = rings.map((ring) => {
    const out = new Float64Array(ring.length);
    for (let i = 0; i < ring.length; i += 2) {
      const [r, c] = inverse(ring[i]!, ring[i + 1]!);
      out[i] = c;
      out[i + 1] = r;
    }
    return out;
  });
  fillEvenOdd(pixelRings, frame, fw, fh);

  if (buffer <= 0) return same(frame);
  // The buffer is applied on cells of `cell` × `cell` pixels (≈ a tenth of the buffer), which
  // is 25× cheaper than per pixel and as accurate as the coastline (see the top of the file);
  // the window is cut out of the frame in the same pass.
  const cell = Math.max(1, Math.round(buffer / (10 * Math.max(spacing.range, spacing.azimuth))));
  const cw = Math.ceil(fw / cell);
  const ch = Math.ceil(fh / cell);
  // Both passes go by runs (native indexOf, set and fill), not pixel by pixel: a frame row
  // holds a few runs of land between the coast's crossings.
  const coarse = new Uint8Array(cw * ch);
  for (let r = 0; r < fh; r++) {
    const base = ((r / cell) | 0) * cw;
    const row = frame.subarray(r * fw, (r + 1) * fw);
    // Land on columns a … b − 1 marks cells a / cell … (b − 1) / cell.
    for (let a = row.indexOf(1); a >= 0; ) {
      let b = row.indexOf(0, a);
      if (b < 0) b = fw;
      coarse.fill(1, base + ((a / cell) | 0), base + (((b - 1) / cell) | 0) + 1);
      a = b < fw ? row.indexOf(1, b) : -1;
    }
  }
  const grown = dilateMetres(coarse, cw, ch, buffer, { range: spacing.range * cell, azimuth: spacing.azimuth * cell });
  // Every element is written below: the frame's row, then 1 over the cells grown to land.
  const window = (name: string) => (options.scratch ? options.scratch.array(name, Uint8Array, width * height) : new Uint8Array(width * height));
  const out = window('landMask');
  const bare = keepUnbuffered ? window('landMask.unbuffered') : null;
  const k0 = (bx / cell) | 0;
  const k1 = ((bx + width - 1) / cell) | 0;
  for (let r = 0; r < height; r++) {
    const fr = r + by;
    const base = ((fr / cell) | 0) * cw;
    const dst = r * width;
    const frameRow = frame.subarray(fr * fw + bx, fr * fw + bx + width);
    out.set(frameRow, dst);
    bare?.set(frameRow, dst);
    for (let k = k0; k <= k1; k++) {
      if (!grown[base + k]) continue;
      let end = k + 1;
      while (end <= k1 && grown[base + end]) end++;
      // Cells k … end − 1: window columns k·cell − bx … end·cell − bx − 1, clipped to the window.
      out.fill(1, dst + Math.max(0, k * cell - bx), dst + Math.min(width, end * cell - bx));
      k = end;
    }
  }
  return { land: out, unbuffered: bare };
}

/** Geodesic metres between neighbouring pixels at the window centre. */
function estimatePixelSpacing(toLonLat: (r: number, c: number) => [number, number], width: number, height: number): { range: number; azimuth: number } {
  const r = (height - 1) / 2;
  const c = (width - 1) / 2;
  const [lon, lat] = toLonLat(r, c);
  const [lonC, latC] = toLonLat(r, c + 1);
  const [lonR, latR] = toLonLat(r + 1, c);
  const g = geodesic.Geodesic.WGS84;
  const range = g.Inverse(lat, lon, latC, lonC).s12 ?? NaN;
  const azimuth = g.Inverse(lat, lon, latR, lonR).s12 ?? NaN;
  if (!(range > 0) || !(azimuth > 0)) throw new RangeError('rasterizeLandMask: cannot estimate the pixel spacing from pixelToLonLat');
  return { range, azimuth };
}

/** lon/lat bounding box of the frame's outline, grown by a margin of a few pixels. */
function frameBox(toLonLat: (r: number, c: number) => [number, number], w: number, h: number, spacing: { range: number; azimuth: number }): Box {
  let x0 = Infinity;
  let y0 = Infinity;
  let x1 = -Infinity;
  let y1 = -Infinity;
  const add = (r: number, c: number): void => {
    const [lon, lat] = toLonLat(r, c);
    if (lon < x0) x0 = lon;
    if (lon > x1) x1 = lon;
    if (lat < y0) y0 = lat;
    if (lat > y1) y1 = lat;
  };
  // Pixel corners, not centres, with a vertex every 64 px along each side.
  const steps = (n: number): number[] => {
    const out: number[] = [];
    for (let v = -0.5; v < n - 0.5; v += 64) out.push(v);
    out.push(n - 0.5);
    return out;
  };
  for (const c of steps(w)) {
    add(-0.5, c);
    add(h - 0.5, c);
  }
  for (const r of steps(h)) {
    add(r, -0.5);
    add(r, w - 0.5);
  }
  const marginM = 4 * Math.max(spacing.range, spacing.azimuth);
  const dLat = marginM / 111_000;
  const dLon = dLat / Math.max(0.01, Math.cos((((y0 + y1) / 2) * Math.PI) / 180));
  return [x0 - dLon, y0 - dLat, x1 + dLon, y1 + dLat];
}

/**
 * The ring with every chunk that misses the box replaced by its first and last vertex slid
 * onto the box side it lies beyond; runs of points on one side line are then collapsed.
 */
function reduceRing(ring: LandRing, box: Box): number[] {
  const { coords, chunkBoxes } = ring;
  const n = coords.length / 2;
  const chunks = chunkBoxes.length / 4;
  const out: number[] = [];
  const sides: number[] = []; // -1: free point; 0..3: on box side (left, bottom, right, top)
  const push = (x: number, y: number, side: number): void => {
    const k = sides.length - 1;
    if (k >= 0 && out[2 * k] === x && out[2 * k + 1] === y) return;
    // Two earlier points on the same side line: the middle one adds nothing.
    if (side >= 0 && k >= 1 && sides[k] === side && sides[k - 1] === side) {
      out[2 * k] = x;
      out[2 * k + 1] = y;
      return;
    }
    out.push(x, y);
    sides.push(side);
  };
  for (let k = 0; k < chunks; k++) {
    const cx0 = chunkBoxes[4 * k]!;
    const cy0 = chunkBoxes[4 * k + 1]!;
    const cx1 = chunkBoxes[4 * k + 2]!;
    const cy1 = chunkBoxes[4 * k + 3]!;
    const start = k * CHUNK;
    const end = Math.min((k + 1) * CHUNK, n); // exclusive; vertex `end` starts the next chunk
    let side = -1;
    if (cx1 < box[0]) side = 0;
    else if (cy1 < box[1]) side = 1;
    else if (cx0 > box[2]) side = 2;
    else if (cy0 > box[3]) side = 3;
    if (side < 0) {
      for (let i = start; i < end; i++) push(coords[2 * i]!, coords[2 * i + 1]!, -1);
      continue;
    }
    for (const i of [start, end % n]) {
      let x = coords[2 * i]!;
      let y = coords[2 * i + 1]!;
      if (side === 0 || side === 2) {
        x = side === 0 ? box[0] : box[2];
        y = Math.min(box[3], Math.max(box[1], y));
      } else {
        y = side === 1 ? box[1] : box[3];
        x = Math.min(box[2], Math.max(box[0], x));
      }
      push(x, y, side);
    }
  }
  return out;
}

/** Sutherland–Hodgman against the four sides of the box (interleaved coordinates). */
function clipToBox(ring: number[], box: Box): number[] {
  let current = ring;
  for (let side = 0; side < 4; side++) {
    const n = current.length / 2;
    if (n === 0) break;
    const next: number[] = [];
    const inside = (x: number, y: number): boolean =>
      side === 0 ? x >= box[0] : side === 1 ? y >= box[1] : side === 2 ? x <= box[2] : y <= box[3];
    const cut = (ax: number, ay: number, bx: number, by: number): [number, number] => {
      if (side === 0 || side === 2) {
        const x = side === 0 ? box[0] : box[2];
        const t = (x - ax) / (bx - ax);
        return [x, ay + t * (by - ay)];
      }
      const y = side === 1 ? box[1] : box[3];
      const t = (y - ay) / (by - ay);
      return [ax + t * (bx - ax), y];
    };
    for (let i = 0; i < n; i++) {
      const ax = current[2 * ((i + n - 1) % n)]!;
      const ay = current[2 * ((i + n - 1) % n) + 1]!;
      const bx = current[2 * i]!;
      const by = current[2 * i + 1]!;
      const aIn = inside(ax, ay);
      const bIn = inside(bx, by);
      if (bIn) {
        if (!aIn) next.push(...cut(ax, ay, bx, by));
        next.push(bx, by);
      } else if (aIn) {
        next.push(...cut(ax, ay, bx, by));
      }
    }
    current = next;
  }
  return current;
}

function onBoxBoundary(ring: number[], box: Box): boolean {
  for (let i = 0; i < ring.length; i += 2) {
    const x = ring[i]!;
    const y = ring[i + 1]!;
    if (x !== box[0] && x !== box[2] && y !== box[1] && y !== box[3]) return false;
  }
  return true;
}

function insideEvenOdd(rings: number[][], px: number, py: number): boolean {
  let inside = false;
  for (const ring of rings) {
    const n = ring.length / 2;
    for (let i = 0, j = n - 1; i < n; j = i++) {
      const xi = ring[2 * i]!;
      const yi = ring[2 * i + 1]!;
      const xj = ring[2 * j]!;
      const yj = ring[2 * j + 1]!;
      if (yi > py !== yj > py && px < ((xj - xi) * (py - yi)) / (yj - yi) + xi) inside = !inside;
    }
  }
  return inside;
}

/**
 * (lon, lat) → frame (row, col) by Newton's method on `toLonLat` with a numeric Jacobian,
 * started from an affine fit to three corners of the frame.
 */
function newtonInverse(toLonLat: (r: number, c: number) => [number, number], w: number, h: number): (lon: number, lat: number) => [number, number] {
  const p00 = toLonLat(0, 0);
  const p01 = toLonLat(0, w - 1);
  const p10 = toLonLat(h - 1, 0);
  // lon/lat = p00 + J · (r, c) with J from the corners.
  const j11 = (p10[0] - p00[0]) / Math.max(1, h - 1);
  const j12 = (p01[0] - p00[0]) / Math.max(1, w - 1);
  const j21 = (p10[1] - p00[1]) / Math.max(1, h - 1);
  const j22 = (p01[1] - p00[1]) / Math.max(1, w - 1);
  const det0 = j11 * j22 - j12 * j21;
  return (lon, lat) => {
    let r = (j22 * (lon - p00[0]) - j12 * (lat - p00[1])) / det0;
    let c = (-j21 * (lon - p00[0]) + j11 * (lat - p00[1])) / det0;
    for (let it = 0; it < 8; it++) {
      const [x, y] = toLonLat(r, c);
      const [xr, yr] = toLonLat(r + 1, c);
      const [xc, yc] = toLonLat(r, c + 1);
      const a = xr - x;
      const b = xc - x;
      const cc = yr - y;
      const d = yc - y;
      const det = a * d - b * cc;
      if (!Number.isFinite(det) || det === 0) break;
      const ex = lon - x;
      const ey = lat - y;
      const dr = (d * ex - b * ey) / det;
      const dc = (-cc * ex + a * ey) / det;
      r += dr;
      c += dc;
      if (Math.abs(dr) < 1e-4 && Math.abs(dc) < 1e-4) break;
    }
    return [r, c];
  };
}

/**
 * Even–odd scanline fill of rings given in pixel space (interleaved col, row): a pixel is set
 * when its centre (row r, col c) is inside. Edges are half-open in row so shared vertices
 * count once.
 */
function fillEvenOdd(rings: Float64Array[], out: Uint8Array, w: number, h: number): void {
  // Crossings per row, CSR: count, then fill.
  const counts = new Int32Array(h + 1);
  const forEachEdge = (visit: (x0: number, y0: number, x1: number, y1: number, rStart: number, rEnd: number) => void): void => {
    for (const ring of rings) {
      const n = ring.length / 2;
      for (let i = 0, j = n - 1; i < n; j = i++) {
        const xa = ring[2 * j]!;
        const ya = ring[2 * j + 1]!;
        const xb = ring[2 * i]!;
        const yb = ring[2 * i + 1]!;
        if (ya === yb || !Number.isFinite(ya) || !Number.isFinite(yb)) continue;
        // Rows r with min(y) ≤ r < max(y).
        const rStart = Math.max(0, Math.ceil(Math.min(ya, yb)));
        const rEnd = Math.min(h - 1, Math.ceil(Math.max(ya, yb)) - 1);
        if (rStart > rEnd) continue;
        visit(xa, ya, xb, yb, rStart, rEnd);
      }
    }
  };
  forEachEdge((_xa, _ya, _xb, _yb, rStart, rEnd) => {
    for (let r = rStart; r <= rEnd; r++) counts[r + 1]!++;
  });
  for (let r = 0; r < h; r++) counts[r + 1]! += counts[r]!;
  const xs = new Float64Array(counts[h]!);
  const fillPos = counts.slice(0, h);
  forEachEdge((xa, ya, xb, yb, rStart, rEnd) => {
    const slope = (xb - xa) / (yb - ya);
    for (let r = rStart; r <= rEnd; r++) xs[fillPos[r]!++] = xa + (r - ya) * slope;
  });
  for (let r = 0; r < h; r++) {
    const a = counts[r]!;
    const b = counts[r + 1]!;
    if (b - a < 2) continue;
    const row = xs.subarray(a, b).sort();
    for (let k = 0; k + 1 < row.length; k += 2) {
      const c0 = Math.max(0, Math.ceil(row[k]!));
      const c1 = Math.min(w - 1, Math.ceil(row[k + 1]!) - 1);
      if (c0 <= c1) out.fill(1, r * w + c0, r * w + c1 + 1);
    }
  }
}

/**
 * Pixels within `radius` metres of a set pixel (exact Euclidean distance between pixel
 * centres, anisotropic spacing), by the Felzenszwalb–Huttenlocher squared distance transform.
 */
export function dilateMetres(
  mask: Uint8Array,
  w: number,
  h: number,
  radius: number,
  spacing: { range: number; azimuth: number },
  cell = 1,
): Uint8Array {
  if (cell > 1) {
    // A cell is set when any of its pixels is; distances between cell centres can be short
    // by up to one cell diagonal, so the buffer is exact to within a cell.
    const cw = Math.ceil(w / cell);
    const ch = Math.ceil(h / cell);
    const coarse = new Uint8Array(cw * ch);
    for (let r = 0; r < h; r++) {
      const base = ((r / cell) | 0) * cw;
      for (let c = 0; c < w; c++) if (mask[r * w + c]) coarse[base + ((c / cell) | 0)] = 1;
    }
    const grown = dilateMetres(coarse, cw, ch, radius, { range: spacing.range * cell, azimuth: spacing.azimuth * cell });
    const out = mask.slice();
    for (let r = 0; r < h; r++) {
      const base = ((r / cell) | 0) * cw;
      for (let c = 0; c < w; c++) if (grown[base + ((c / cell) | 0)]) out[r * w + c] = 1;
    }
    return out;
  }
  let any = false;
  let all = true;
  for (let i = 0; i < mask.length; i++) {
    if (mask[i]) any = true;
    else all = false;
  }
  if (!any || all) return mask.slice();
  const INF = 1e20;
  const d = new Float64Array(w * h);
  // Columns first (distance along rows, metres = azimuth spacing).
  const n = Math.max(w, h);
  const f = new Float64Array(n);
  const out1 = new Float64Array(n);
  const v = new Int32Array(n);
  const z = new Float64Array(n + 1);
  const transform = (len: number, step: number): void => {
    // 1-D squared distance transform of f[0..len) with sample spacing `step` (metres):
    // the lower envelope of parabolas s²(q − p)² + f[p].
    const s2 = step * step;
    const meet = (q: number, p: number): number => (f[q]! + s2 * q * q - (f[p]! + s2 * p * p)) / (2 * s2 * (q - p));
    let k = 0;
    v[0] = 0;
    z[0] = -Infinity;
    z[1] = Infinity;
    for (let q = 1; q < len; q++) {
      let s = meet(q, v[k]!);
      while (s <= z[k]!) {
        k--;
        s = meet(q, v[k]!);
      }
      k++;
      v[k] = q;
      z[k] = s;
      z[k + 1] = Infinity;
    }
    k = 0;
    for (let q = 0; q < len; q++) {
      while (z[k + 1]! < q) k++;
      const p = v[k]!;
      out1[q] = s2 * (q - p) * (q - p) + f[p]!;
    }
  };
  for (let c = 0; c < w; c++) {
    for (let r = 0; r < h; r++) f[r] = mask[r * w + c] ? 0 : INF;
    transform(h, spacing.azimuth);
    for (let r = 0; r < h; r++) d[r * w + c] = out1[r]!;
  }
  const r2 = radius * radius;
  const out = new Uint8Array(w * h);
  for (let r = 0; r < h; r++) {
    for (let c = 0; c < w; c++) f[c] = d[r * w + c]!;
    transform(w, spacing.range);
    for (let c = 0; c < w; c++) out[r * w + c] = out1[c]! <= r2 ? 1 : 0;
  }
  return out;
}
