// Raster regions → GeoJSON Polygons whose outlines follow pixel edges, so each polygon
// encloses exactly its pixels (not an interpolated isoline as d3-contour draws). Shared by
// the ship, oil-slick and building-change detectors.
//
// How it works: regions are connected components of equal non-zero values (a binary mask
// or a label image). Each component's boundary is traced along pixel edges ("crack
// following") with the region on the right in pixel space (x = column, y = row, down), one
// exterior ring per component and one ring per hole. Only corners are emitted, so straight
// runs carry no collinear vertices. Corners are then mapped to lon/lat by `toLonLat`, and
// ring orientation is fixed in lon/lat (RFC 7946: exterior counter-clockwise, holes
// clockwise), since an image may be mirrored with respect to the map (ascending passes).
//
// Saddles (two pixels of a component touching only at a corner): the ring passes that
// corner twice. A ring that touches itself is invalid (OGC, and our validator), so the two
// passes are pulled apart by `saddleOffset` pixels (0.01 by default, i.e. 10 cm at 10 m
// pixels, well above the 1e-7° ≈ 1 cm result rounding). With 8-connectivity the diagonal
// pixels stay one polygon joined by a bridge that thin; with 4-connectivity they become
// separate polygons, each shaved by a triangle that small. Either way the polygon area
// differs from the pixel count by at most 2 × saddleOffset px² per saddle (0.02 px²).

import { componentLabels, connectedComponents, type Connectivity } from '../raster/components.ts';
import { douglasPeucker } from './simplify.ts';
import { segmentRelation } from './predicates.ts';
import { makeSegment, sweepSegmentPairs, type Segment } from './segments.ts';
import type { Polygon, Position } from './types.ts';

export type { Connectivity };

export interface VectorizeOptions {
  /** Pixels of a region touching only at corners are one polygon (8, default) or separate (4). */
  connectivity?: Connectivity;
  /**
   * Douglas–Peucker tolerance in pixels (0 = exact pixel outlines, the default). A ring whose
   * simplified form would touch or cross itself or another ring of the output keeps a smaller
   * tolerance (halved until clean, finally 0), so simplification never changes topology.
   */
  simplifyTolerance?: number;
  /** Separation of the two passes of a ring through a saddle corner, in pixels. Default 0.01. */
  saddleOffset?: number;
  /** Drop components with fewer pixels than this. Default 1. */
  minPixels?: number;
}

export interface PixelPolygon {
  /** The region's value in the input (1 for a binary mask). */
  label: number;
  /** Number of pixels the polygon encloses. */
  pixelCount: number;
  /** Pixel bounding box: rows y0…y1, columns x0…x1 (inclusive). */
  box: { x0: number; y0: number; x1: number; y1: number };
  geometry: Polygon;
}

/** Pixel-space ring: corner coordinates (x = column edge, y = row edge), not closed. */
type PixelRing = Position[];

// Headings, clockwise on screen: 0 east, 1 south, 2 west, 3 north.
const DX = [1, 0, -1, 0] as const;
const DY = [0, 1, 0, -1] as const;

/**
 * Polygons of the regions of a raster (row-major, `width` × `height`): every connected set
 * of pixels with the same non-zero value becomes one Polygon with holes. `toLonLat(row,
 * col)` maps pixel-centre coordinates (integers are centres; a corner is at ±0.5) to
 * `[lon, lat]`. Output order: by the first pixel of each component in raster order.
 */
export function maskToPolygons(
  labels: ArrayLike<number>,
  width: number,
  height: number,
  toLonLat: (row: number, col: number) => [number, number],
  options: VectorizeOptions = {},
): PixelPolygon[] {
  if (labels.length !== width * height) {
    throw new RangeError(`maskToPolygons: ${labels.length} values for a ${width} × ${height} raster`);
  }
  const connectivity = options.connectivity ?? 8;
  const epsilon = options.saddleOffset ?? 0.01;
  const minPixels = Math.max(1, options.minPixels ?? 1);

  const traced = tracePixelRings(labels, width, height, connectivity, epsilon, minPixels);
  const tolerance = options.simplifyTolerance ?? 0;
  const rings = tolerance > 0 ? simplifyKeepingTopology(traced, tolerance) : traced.map((t) => t.rings);

  return traced.map((t, i) => {
    const lonLatRings = rings[i]!.map((ring, r) => orientRing(ring.map(([x, y]) => toLonLat(y - 0.5, x - 0.5)), r === 0));
    return {
      label: t.label,
      pixelCount: t.pixelCount,
      box: t.box,
      geometry: { type: 'Polygon', coordinates: lonLatRings },
    };
  });
}

interface TracedComponent {
  label: number;
  pixelCount: number;
  box: { x0: number; y0: number; x1: number; y1: number };
  /** Exterior first, then holes; pixel space, not closed. */
  rings: PixelRing[];
}

/** Components and their rings in pixel space (exported for tests and for callers that project themselves). */
export function tracePixelRings(
  labels: ArrayLike<number>,
  width: number,
  height: number,
  connectivity: Connectivity = 8,
  epsilon = 0.01,
  minPixels = 1,
): TracedComponent[] {
  const n = width * height;
  // Components of equal non-zero values, numbered by their first pixel in raster order.
  const components = connectedComponents(labels, width, height, { connectivity, join: 'equal' });
  const component = componentLabels(components, n); // component id per pixel, 0 = background
  const visited = new Uint8Array(n); // bit d: the edge on side d (heading d) has been traced
  const out: TracedComponent[] = [];

  const inComponent = (row: number, col: number, id: number): boolean =>
    row >= 0 && col >= 0 && row < height && col < width && component[row * width + col] === id;

  for (let k = 0; k < components.count; k++) {
    const id = k + 1;
    // The component's pixels in flood-fill order (the hole scan below visits them in it).
    const members = components.pixels.subarray(components.offsets[k]!, components.offsets[k + 1]!);
    const start = members[0]!;
    const label = labels[start]!;
    if (members.length < minPixels) continue;
    let x0 = width;
    let y0 = height;
    let x1 = -1;
    let y1 = -1;
    for (const p of members) {
      const row = (p / width) | 0;
      const col = p - row * width;
      if (col < x0) x0 = col;
      if (col > x1) x1 = col;
      if (row < y0) y0 = row;
      if (row > y1) y1 = row;
    }

    const traceRing = (pixel: number, side: number): PixelRing => {
      const ring: PixelRing = [];
      let row = (pixel / width) | 0;
      let col = pixel - row * width;
      let d = side;
      // Start vertex of the edge on side d of pixel (row, col), region on the right.
      let vx = d === 0 || d === 3 ? col : col + 1;
      let vy = d === 0 || d === 1 ? row : row + 1;
      const startPixel = pixel;
      const startSide = side;
      for (let guard = 0; guard < 4 * n + 4; guard++) {
        visited[row * width + col]! |= 1 << d;
        // Walk to the end of this edge.
        vx += DX[d]!;
        vy += DY[d]!;
        // Quadrant pixels around the vertex ahead-right and ahead-left of heading d.
        const [rr, rc] = quadrant(d, vx, vy);
        const [lr, lc] = quadrant((d + 3) & 3, vx, vy);
        const right = inComponent(rr, rc, id);
        const left = inComponent(lr, lc, id);
        let nd: number;
        let saddle = false;
        if (left && right) nd = (d + 3) & 3;
        else if (right) nd = d;
        else if (!left) nd = (d + 1) & 3;
        else {
          saddle = true;
          nd = connectivity === 8 ? (d + 3) & 3 : (d + 1) & 3;
        }
        if (nd !== d) {
          if (saddle) ring.push([vx + epsilon * (DX[nd]! - DX[d]!), vy + epsilon * (DY[nd]! - DY[d]!)]);
          else ring.push([vx, vy]);
        }
        // The pixel on the right of the next edge: the quadrant ahead-right of its heading.
        const [pr, pc] = quadrant(nd, vx, vy);
        row = pr;
        col = pc;
        d = nd;
        if (row * width + col === startPixel && d === startSide) return ring;
      }
      throw new Error('maskToPolygons: ring tracing did not close (internal error)');
    };

    // The exterior ring: the top edge of the component's first pixel in raster order.
    const rings: PixelRing[] = [traceRing(start, 0)];
    for (const p of members) {
      const row = (p / width) | 0;
      const col = p - row * width;
      for (let side = 0; side < 4; side++) {
        if (visited[p]! & (1 << side)) continue;
        // Side d of a pixel is a boundary when the neighbour across it is outside the component.
        const nr = side === 0 ? row - 1 : side === 2 ? row + 1 : row;
        const nc = side === 1 ? col + 1 : side === 3 ? col - 1 : col;
        if (inComponent(nr, nc, id)) continue;
        rings.push(traceRing(p, side));
      }
    }
    out.push({ label, pixelCount: members.length, box: { x0, y0, x1, y1 }, rings });
  }
  return out;
}

/**
 * (row, col) of quadrant q around corner (x, y): 0 SE, 1 SW, 2 NW, 3 NE — also the pixel on the
 * right of the edge that leaves the corner with heading q.
 */
function quadrant(q: number, x: number, y: number): [number, number] {
  switch (q) {
    case 0:
      return [y, x];
    case 1:
      return [y, x - 1];
    case 2:
      return [y - 1, x - 1];
    default:
      return [y - 1, x];
  }
}

/** Close the ring and orient it: exterior counter-clockwise, holes clockwise (planar lon/lat). */
function orientRing(ring: Position[], exterior: boolean): Position[] {
  let area2 = 0;
  for (let i = 0; i < ring.length; i++) {
    const p = ring[i]!;
    const q = ring[(i + 1) % ring.length]!;
    area2 += p[0] * q[1] - q[0] * p[1];
  }
  const ccw = area2 > 0;
  const out = ccw === exterior ? ring.slice() : ring.slice().reverse();
  out.push([out[0]![0], out[0]![1]]);
  return out;
}

/** Douglas–Peucker on a closed ring: split at vertex 0 and the vertex farthest from it. */
function simplifyRing(ring: PixelRing, tolerance: number): PixelRing {
  if (ring.length <= 4 || !(tolerance > 0)) return ring;
  const a = ring[0]!;
  let far = 0;
  let farD = -1;
  for (let i = 1; i < ring.length; i++) {
    const d = (ring[i]![0] - a[0]) ** 2 + (ring[i]![1] - a[1]) ** 2;
    if (d > farD) {
      farD = d;
      far = i;
    }
  }
  const first = douglasPeucker(ring.slice(0, far + 1), tolerance);
  const second = douglasPeucker([...ring.slice(far), a], tolerance);
  const out = [...first.slice(0, -1), ...second.slice(0, -1)];
  return out.length >= 3 ? out : ring;
}

/**
 * Simplify every ring, then find rings whose segments touch or cross (within a ring: other
 * than its neighbouring segments; across rings: any contact) and redo those with half the
 * tolerance, down to the exact outline. Exact outlines never cross, and different regions
 * touching along shared edges is how they already were, so contacts that existed before
 * simplification (label images: shared edges) are tolerated as "overlap"/"touch" only when
 * both rings are exact.
 */
function simplifyKeepingTopology(traced: TracedComponent[], tolerance: number): PixelRing[][] {
  const tol: number[][] = traced.map((t) => t.rings.map(() => tolerance));
  const result: PixelRing[][] = traced.map((t) => t.rings.map((ring) => simplifyRing(ring, tolerance)));
  for (let round = 0; round < 12; round++) {
    const bad = conflictingRings(result, tol);
    if (bad.size === 0) break;
    for (const key of bad) {
      const [c, r] = key.split(':').map(Number) as [number, number];
      const t = tol[c]![r]! / 2;
      tol[c]![r] = round >= 10 || t < 0.05 ? 0 : t;
      result[c]![r] = tol[c]![r]! > 0 ? simplifyRing(traced[c]!.rings[r]!, tol[c]![r]!) : traced[c]!.rings[r]!;
    }
  }
  return result;
}

function conflictingRings(rings: PixelRing[][], tol: number[][]): Set<string> {
  const segments: Segment[] = [];
  const ringKeys: string[] = [];
  const ringLengths: number[] = [];
  const simplified: boolean[] = [];
  rings.forEach((polygon, c) =>
    polygon.forEach((ring, r) => {
      const id = ringKeys.length;
      ringKeys.push(`${c}:${r}`);
      ringLengths.push(ring.length);
      simplified.push(tol[c]![r]! > 0);
      for (let i = 0; i < ring.length; i++) segments.push(makeSegment(ring[i]!, ring[(i + 1) % ring.length]!, id, i));
    }),
  );
  const bad = new Set<string>();
  sweepSegmentPairs(segments, (s, t) => {
    if (!simplified[s.ring] && !simplified[t.ring]) return false;
    if (s.ring === t.ring) {
      const len = ringLengths[s.ring]!;
      const gap = Math.abs(s.index - t.index);
      if (gap === 1 || gap === len - 1) {
        // Neighbours share a vertex; only running back along each other is a problem.
        if (segmentRelation(s.a, s.b, t.a, t.b) !== 'overlap') return false;
      }
    }
    if (segmentRelation(s.a, s.b, t.a, t.b) === 'none') return false;
    if (simplified[s.ring]) bad.add(ringKeys[s.ring]!);
    if (simplified[t.ring]) bad.add(ringKeys[t.ring]!);
    return false;
  });
  return bad;
}
