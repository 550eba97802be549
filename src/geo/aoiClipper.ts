// Clipping many small polygons (detections) to one large AOI without paying for the AOI's
// every vertex each time (issue 10 item 1: a detector clips each vessel or slick to the
// job's polygon; with polygon-clipping alone a 100,000-vertex AOI costs ~0.3 s per
// detection, on the thread that also serves requests in embedded mode).
//
// Built once per AOI in O(n): its edges in a uniform grid (cells hold the edges whose
// bounding box meets them). Per polygon:
//   - no AOI edge meets the polygon's bounding box R: the polygon lies wholly inside or
//     wholly outside the AOI, and one vertex says which (a ray cast along one grid row);
//   - otherwise each AOI ring near R is cut to R (its runs inside R joined along R's
//     boundary, as Weiler–Atherton joins them against a rectangle: simple rings, no seams)
//     and polygon-clipping intersects the polygon with those small pieces, part by part
//     (shell pieces minus hole pieces): the polygon lies in R, so the answer is the same as
//     against the whole AOI. Should a cut ever come out inconsistent, the whole AOI is used.
// Also here: the AOI cut to a convex region (clipToConvex), enough to bound the pixel
// window of the AOI's part over a scene without a full polygon-clipping pass.

import { differenceAoi, intersectAoi } from './clip.ts';
import { flattenAoi, type FlatPolygons } from './flat.ts';
import { orientXY, pointInRing } from './predicates.ts';
import type { AoiGeometry, BBox, Position, Ring } from './types.ts';

/** Grid entries allowed per AOI edge on average before the grid is made coarser. */
const ENTRIES_PER_EDGE = 8;

/**
 * One ring (flat positions start … end − 1, closed) cut to the convex region left of every
 * edge of `clip` (a counter-clockwise closed ring). Returns the cut ring's positions, closed,
 * or [] when nothing is left. Sutherland–Hodgman: where the ring leaves and re-enters the
 * region its path is replaced by one along the region's boundary.
 */
export function clipRingToConvex(coords: Float64Array, start: number, end: number, clip: readonly Position[]): Position[] {
  let input: number[] = [];
  for (let i = start; i < end; i++) input.push(coords[2 * i]!, coords[2 * i + 1]!);
  for (let k = 0; k + 1 < clip.length && input.length > 0; k++) {
    const [ax, ay] = clip[k]!;
    const [bx, by] = clip[k + 1]!;
    const output: number[] = [];
    const n = input.length / 2;
    for (let i = 0; i < n; i++) {
      const px = input[2 * i]!;
      const py = input[2 * i + 1]!;
      const j = (i + n - 1) % n;
      const qx = input[2 * j]!;
      const qy = input[2 * j + 1]!;
      const pIn = orientXY(ax, ay, bx, by, px, py) >= 0;
      const qIn = orientXY(ax, ay, bx, by, qx, qy) >= 0;
      if (pIn !== qIn) {
        // Where q → p crosses the line a → b.
        const dp = (bx - ax) * (py - ay) - (by - ay) * (px - ax);
        const dq = (bx - ax) * (qy - ay) - (by - ay) * (qx - ax);
        const t = dq / (dq - dp);
        output.push(qx + t * (px - qx), qy + t * (py - qy));
      }
      if (pIn) output.push(px, py);
    }
    input = output;
  }
  const ring: Position[] = [];
  for (let i = 0; i < input.length; i += 2) ring.push([input[i]!, input[i + 1]!]);
  if (ring.length < 3) return [];
  ring.push([ring[0]![0], ring[0]![1]]);
  return ring;
}

function ringArea2(ring: readonly Position[]): number {
  let twice = 0;
  for (let i = 0; i + 1 < ring.length; i++) twice += ring[i]![0] * ring[i + 1]![1] - ring[i + 1]![0] * ring[i]![1];
  return twice;
}

function boxRing([x0, y0, x1, y1]: BBox): Ring {
  return [
    [x0, y0],
    [x1, y0],
    [x1, y1],
    [x0, y1],
    [x0, y0],
  ];
}

/** The point p + t·d, put exactly on `side` of the box (0: x = x0, 1: x = x1, 2: y = y0, 3: y = y1) unless t is 0. */
function onSide(px: number, py: number, dx: number, dy: number, t: number, side: number, [x0, y0, x1, y1]: BBox): Position {
  if (t === 0 || side < 0) return [px, py];
  const x = Math.min(x1, Math.max(x0, px + t * dx));
  const y = Math.min(y1, Math.max(y0, py + t * dy));
  return side === 0 ? [x0, y] : side === 1 ? [x1, y] : side === 2 ? [x, y0] : [x, y1];
}

/** Position along the boundary of `box`, counter-clockwise from its lower-left corner. */
function perimeterParam([x0, y0, x1, y1]: BBox, x: number, y: number): number {
  const w = x1 - x0;
  const h = y1 - y0;
  if (y === y0 && x < x1) return x - x0;
  if (x === x1 && y < y1) return w + (y - y0);
  if (y === y1 && x > x0) return w + h + (x1 - x);
  return 2 * w + h + (y1 - y);
}

/** Runs of a ring inside a box (each from an entry to an exit on its boundary), fed edge by edge in ring order. */
class Runs {
  readonly chains: Position[][] = [];
  private chain: Position[] | null = null;

  constructor(private readonly box: BBox) {}

  edge(px: number, py: number, qx: number, qy: number): void {
    const [x0, y0, x1, y1] = this.box;
    // Liang–Barsky: the part t0 … t1 of p → q inside the closed box, and the sides
    // (0: x = x0, 1: x = x1, 2: y = y0, 3: y = y1) where it enters and leaves.
    const dx = qx - px;
    const dy = qy - py;
    let t0 = 0;
    let t1 = 1;
    let side0 = -1;
    let side1 = -1;
    if (dx === 0) {
      if (px < x0 || px > x1) return;
    } else {
      const tIn = ((dx > 0 ? x0 : x1) - px) / dx;
      const tOut = ((dx > 0 ? x1 : x0) - px) / dx;
      if (tIn > t0) {
        t0 = tIn;
        side0 = dx > 0 ? 0 : 1;
      }
      if (tOut < t1) {
        t1 = tOut;
        side1 = dx > 0 ? 1 : 0;
      }
    }
    if (dy === 0) {
      if (py < y0 || py > y1) return;
    } else {
      const tIn = ((dy > 0 ? y0 : y1) - py) / dy;
      const tOut = ((dy > 0 ? y1 : y0) - py) / dy;
      if (tIn > t0) {
        t0 = tIn;
        side0 = dy > 0 ? 2 : 3;
      }
      if (tOut < t1) {
        t1 = tOut;
        side1 = dy > 0 ? 3 : 2;
      }
    }
    if (t0 > t1) return;
    if (!this.chain) {
      if (t0 === 0 && px > x0 && px < x1 && py > y0 && py < y1) throw new RangeError('a run of the ring starts inside the box');
      this.chain = [onSide(px, py, dx, dy, t0, side0, this.box)];
    }
    if (t1 < 1) {
      const chain = this.chain;
      chain.push(onSide(px, py, dx, dy, t1, side1, this.box));
      // A run that only touches the boundary at one point bounds no area.
      if (chain.some((q) => q[0] !== chain[0]![0] || q[1] !== chain[0]![1])) this.chains.push(chain);
      this.chain = null;
    } else {
      this.chain.push([qx, qy]);
    }
  }

  /** The runs, once the edges fed have come back outside. */
  done(): Position[][] {
    if (this.chain) throw new RangeError('a run of the ring does not leave the box');
    return this.chains;
  }
}

/**
 * Runs inside `box` of a counter-clockwise ring joined into rings: from an exit the region
 * continues counter-clockwise along the box's boundary to the next entry (Weiler–Atherton
 * against a rectangle). Throws RangeError if they do not close.
 */
export function joinRuns(chains: readonly Position[][], box: BBox): Position[][] {
  const [x0, y0, x1, y1] = box;
  const w = x1 - x0;
  const h = y1 - y0;
  const perimeter = 2 * (w + h);
  const corners: Array<[number, Position]> = [
    [0, [x0, y0]],
    [w, [x1, y0]],
    [w + h, [x1, y1]],
    [2 * w + h, [x0, y1]],
  ];
  const entry = chains.map((c) => perimeterParam(box, c[0]![0], c[0]![1]));
  const exit = chains.map((c) => perimeterParam(box, c[c.length - 1]![0], c[c.length - 1]![1]));
  const used = new Uint8Array(chains.length);
  const rings: Position[][] = [];
  for (let s = 0; s < chains.length; s++) {
    if (used[s]) continue;
    const ring: Position[] = [];
    let current = s;
    for (let guard = 0; ; guard++) {
      if (guard > chains.length) throw new RangeError('the runs of the ring do not close');
      used[current] = 1;
      ring.push(...chains[current]!);
      const from = exit[current]!;
      // The next entry counter-clockwise from this exit (the first run, to close the ring).
      let next = -1;
      let best = Infinity;
      for (let j = 0; j < chains.length; j++) {
        if (used[j] && j !== s) continue;
        let d = entry[j]! - from;
        if (d < 0) d += perimeter;
        if (d < best) {
          best = d;
          next = j;
        }
      }
      // The box's corners on the way, in order.
      const passed: Array<[number, Position]> = [];
      for (const [t, corner] of corners) {
        let d = t - from;
        if (d < 0) d += perimeter;
        if (d > 0 && d < best) passed.push([d, [corner[0], corner[1]]]);
      }
      passed.sort((a, b) => a[0] - b[0]);
      for (const [, corner] of passed) ring.push(corner);
      if (next === s) break;
      current = next;
    }
    ring.push([ring[0]![0], ring[0]![1]]);
    rings.push(ring);
  }
  return rings;
}

/**
 * The interior of one ring (flat positions start … end − 1, closed) cut to the rectangle
 * `box`, reading the whole ring: simple rings, counter-clockwise. Throws RangeError if the
 * runs do not join up.
 */
export function cutRingToBox(coords: Float64Array, start: number, end: number, box: BBox): Position[][] {
  const [x0, y0, x1, y1] = box;
  const n = end - start - 1; // edges; the closing position repeats the first
  if (n < 3) return [];
  // Counter-clockwise order, whatever the input's.
  let twice = 0;
  for (let i = start; i < start + n; i++) twice += coords[2 * i]! * coords[2 * i + 3]! - coords[2 * i + 2]! * coords[2 * i + 1]!;
  const forward = twice >= 0;
  const at = (k: number): number => (forward ? start + (k % n) : start + n - (k % n));
  let first = -1;
  for (let k = 0; k < n; k++) {
    const x = coords[2 * at(k)]!;
    const y = coords[2 * at(k) + 1]!;
    if (x < x0 || x > x1 || y < y0 || y > y1) {
      first = k;
      break;
    }
  }
  const ring = (): Position[] => {
    const positions: Position[] = [];
    for (let k = 0; k <= n; k++) positions.push([coords[2 * at(k)]!, coords[2 * at(k) + 1]!]);
    return positions;
  };
  if (first === -1) return [ring()];
  const runs = new Runs(box);
  for (let k = first; k < first + n; k++) {
    const a = at(k);
    const b = at(k + 1);
    runs.edge(coords[2 * a]!, coords[2 * a + 1]!, coords[2 * b]!, coords[2 * b + 1]!);
  }
  const chains = runs.done();
  if (chains.length > 0) return joinRuns(chains, box);
  // The ring stays outside the box: it surrounds it or misses it.
  return pointInRing([(x0 + x1) / 2, (y0 + y1) / 2], ring()) === 1 ? [boxRing(box)] : [];
}

/** The rings of flat polygons whose bounding box meets `box`, cut to the convex `clip`; null when nothing is left. */
function cutFlat(flat: FlatPolygons, ringBoxes: Float64Array, box: BBox, clip: readonly Position[]): AoiGeometry | null {
  const { coords, ringStart, partStart } = flat;
  const parts: Ring[][] = [];
  for (let p = 0; p + 1 < partStart.length; p++) {
    const rings: Ring[] = [];
    for (let r = partStart[p]!; r < partStart[p + 1]!; r++) {
      if (ringBoxes[4 * r]! > box[2] || ringBoxes[4 * r + 2]! < box[0] || ringBoxes[4 * r + 1]! > box[3] || ringBoxes[4 * r + 3]! < box[1]) {
        if (r === partStart[p]) break; // the shell misses: so does the part
        continue;
      }
      const cut = clipRingToConvex(coords, ringStart[r]!, ringStart[r + 1]!, clip);
      if (cut.length === 0 || ringArea2(cut) === 0) {
        if (r === partStart[p]) break;
        continue;
      }
      rings.push(cut);
    }
    if (rings.length > 0) parts.push(rings);
  }
  if (parts.length === 0) return null;
  return parts.length === 1 ? { type: 'Polygon', coordinates: parts[0]! } : { type: 'MultiPolygon', coordinates: parts };
}

function ringBoxesOf(flat: FlatPolygons): Float64Array {
  const { coords, ringStart } = flat;
  const rings = ringStart.length - 1;
  const boxes = new Float64Array(4 * rings);
  for (let r = 0; r < rings; r++) {
    let x0 = Infinity;
    let y0 = Infinity;
    let x1 = -Infinity;
    let y1 = -Infinity;
    for (let i = ringStart[r]!; i < ringStart[r + 1]!; i++) {
      const x = coords[2 * i]!;
      const y = coords[2 * i + 1]!;
      if (x < x0) x0 = x;
      if (x > x1) x1 = x;
      if (y < y0) y0 = y;
      if (y > y1) y1 = y;
    }
    boxes.set([x0, y0, x1, y1], 4 * r);
  }
  return boxes;
}

export class AoiClipper {
  private readonly flat: FlatPolygons;
  private readonly ringBoxes: Float64Array;
  /** Edge e joins positions e and e + 1; edges lists them, grouped by cell (CSR). */
  private readonly edges: Int32Array;
  private readonly cellStart: Int32Array;
  private readonly x0: number;
  private readonly y0: number;
  private readonly cols: number;
  private readonly rows: number;
  private readonly cellW: number;
  private readonly cellH: number;
  /** Ring of each position, and whether each ring runs counter-clockwise. */
  private readonly ringOf: Int32Array;
  private readonly ccw: Uint8Array;
  /** Marks edges already looked at in this query. */
  private readonly stamp: Int32Array;
  private query = 0;

  constructor(private readonly aoi: AoiGeometry) {
    const flat = (this.flat = flattenAoi(aoi));
    this.ringBoxes = ringBoxesOf(flat);
    const { coords, ringStart } = flat;
    const positions = coords.length / 2;
    const isEdge = new Uint8Array(positions);
    let count = 0;
    let [x0, y0, x1, y1] = [Infinity, Infinity, -Infinity, -Infinity];
    for (let r = 0; r + 1 < ringStart.length; r++) {
      for (let i = ringStart[r]!; i + 1 < ringStart[r + 1]!; i++) {
        isEdge[i] = 1;
        count++;
      }
      x0 = Math.min(x0, this.ringBoxes[4 * r]!);
      y0 = Math.min(y0, this.ringBoxes[4 * r + 1]!);
      x1 = Math.max(x1, this.ringBoxes[4 * r + 2]!);
      y1 = Math.max(y1, this.ringBoxes[4 * r + 3]!);
    }
    this.x0 = x0;
    this.y0 = y0;
    // About one edge per cell, coarser while long edges would fill too many cells. Each
    // edge's cell range (c0, r0, c1, r1) is kept in `span`.
    let side = Math.max(1, Math.min(2048, Math.ceil(Math.sqrt(count))));
    const span = new Int32Array(4 * positions);
    const spans = (side: number): number => {
      const w = (x1 - x0) / side || 1;
      const h = (y1 - y0) / side || 1;
      let entries = 0;
      for (let e = 0; e < positions; e++) {
        if (!isEdge[e]) continue;
        const ax = coords[2 * e]!;
        const ay = coords[2 * e + 1]!;
        const bx = coords[2 * e + 2]!;
        const by = coords[2 * e + 3]!;
        const c0 = Math.min(side - 1, Math.max(0, Math.floor((Math.min(ax, bx) - x0) / w)));
        const r0 = Math.min(side - 1, Math.max(0, Math.floor((Math.min(ay, by) - y0) / h)));
        const c1 = Math.min(side - 1, Math.max(0, Math.floor((Math.max(ax, bx) - x0) / w)));
        const r1 = Math.min(side - 1, Math.max(0, Math.floor((Math.max(ay, by) - y0) / h)));
        span[4 * e] = c0;
        span[4 * e + 1] = r0;
        span[4 * e + 2] = c1;
        span[4 * e + 3] = r1;
        entries += (c1 - c0 + 1) * (r1 - r0 + 1);
      }
      return entries;
    };
    while (side > 1 && spans(side) > ENTRIES_PER_EDGE * count) side = Math.max(1, side >> 1);
    if (side === 1) spans(1);
    this.cols = this.rows = side;
    this.cellW = (x1 - x0) / side || 1;
    this.cellH = (y1 - y0) / side || 1;
    const cellStart = new Int32Array(side * side + 1);
    for (let e = 0; e < positions; e++) {
      if (!isEdge[e]) continue;
      for (let r = span[4 * e + 1]!; r <= span[4 * e + 3]!; r++) for (let c = span[4 * e]!; c <= span[4 * e + 2]!; c++) cellStart[r * side + c + 1]!++;
    }
    for (let k = 0; k < side * side; k++) cellStart[k + 1]! += cellStart[k]!;
    const fill = cellStart.slice(0, side * side);
    const edges = new Int32Array(cellStart[side * side]!);
    for (let e = 0; e < positions; e++) {
      if (!isEdge[e]) continue;
      for (let r = span[4 * e + 1]!; r <= span[4 * e + 3]!; r++) for (let c = span[4 * e]!; c <= span[4 * e + 2]!; c++) edges[fill[r * side + c]!++] = e;
    }
    this.edges = edges;
    this.cellStart = cellStart;
    this.stamp = new Int32Array(positions);
    const rings = ringStart.length - 1;
    this.ringOf = new Int32Array(positions);
    this.ccw = new Uint8Array(rings);
    for (let r = 0; r < rings; r++) {
      this.ringOf.fill(r, ringStart[r]!, ringStart[r + 1]!);
      let twice = 0;
      for (let i = ringStart[r]!; i + 1 < ringStart[r + 1]!; i++) twice += coords[2 * i]! * coords[2 * i + 3]! - coords[2 * i + 2]! * coords[2 * i + 1]!;
      this.ccw[r] = twice >= 0 ? 1 : 0;
    }
  }

  private col(x: number): number {
    return Math.min(this.cols - 1, Math.max(0, Math.floor((x - this.x0) / this.cellW)));
  }

  private row(y: number): number {
    return Math.min(this.rows - 1, Math.max(0, Math.floor((y - this.y0) / this.cellH)));
  }

  /** Whether some AOI edge's bounding box meets `box`. */
  private boundaryNear([bx0, by0, bx1, by1]: BBox): boolean {
    const c = this.flat.coords;
    for (let r = this.row(by0); r <= this.row(by1); r++) {
      for (let col = this.col(bx0); col <= this.col(bx1); col++) {
        const cell = r * this.cols + col;
        for (let k = this.cellStart[cell]!; k < this.cellStart[cell + 1]!; k++) {
          const e = this.edges[k]!;
          if (Math.max(c[2 * e]!, c[2 * e + 2]!) < bx0 || Math.min(c[2 * e]!, c[2 * e + 2]!) > bx1) continue;
          if (Math.max(c[2 * e + 1]!, c[2 * e + 3]!) < by0 || Math.min(c[2 * e + 1]!, c[2 * e + 3]!) > by1) continue;
          return true;
        }
      }
    }
    return false;
  }

  /** Whether (x, y), off the AOI's boundary, lies in its area: inside an odd number of rings (a shell, not its hole). */
  contains(x: number, y: number): boolean {
    return this.ringsAround(x, y).size % 2 === 1;
  }

  /** `geom` ∩ the AOI, as intersectAoi gives it; null when empty. */
  intersect(geom: AoiGeometry): AoiGeometry | null {
    const box = bboxOfGeometry(geom);
    if (!this.boundaryNear(box)) {
      const first = geom.type === 'Polygon' ? geom.coordinates[0]![0]! : geom.coordinates[0]![0]![0]!;
      // Inside: clipped to its own bounding box, so it comes back written as polygon-clipping
      // writes every other result.
      return this.contains(first[0], first[1]) ? intersectAoi(geom, { type: 'Polygon', coordinates: [boxRing(box)] }) : null;
    }
    try {
      const parts: Ring[][] = [];
      const add = (g: AoiGeometry | null) => g && parts.push(...(g.type === 'Polygon' ? [g.coordinates] : g.coordinates));
      // Parts without holes nearby in one pass (parts never overlap); one with holes on its
      // own, so its holes cut only its own area (another part may be an island in them).
      const pieces = this.pieces(box);
      const plain = pieces.filter((piece) => piece.holes.length === 0).flatMap((piece) => piece.shell);
      if (plain.length > 0) add(intersectAoi(geom, multi(plain)));
      for (const piece of pieces) {
        if (piece.holes.length === 0) continue;
        const part = intersectAoi(geom, multi(piece.shell));
        add(part && differenceAoi(part, multi(piece.holes)));
      }
      if (parts.length === 0) return null;
      return parts.length === 1 ? { type: 'Polygon', coordinates: parts[0]! } : { type: 'MultiPolygon', coordinates: parts };
    } catch (e) {
      // A cut that did not join up (degenerate input): the whole AOI, as before.
      if (e instanceof RangeError) return intersectAoi(geom, this.aoi);
      throw e;
    }
  }

  /** Each AOI part near `box`, its shell and holes cut to the box (simple counter-clockwise rings). */
  pieces(box: BBox): Array<{ shell: Ring[]; holes: Ring[] }> {
    const { coords: c, partStart } = this.flat;
    const [bx0, by0, bx1, by1] = box;
    // One pass over the grid cells under the box: the edges meeting it, by ring.
    const near = new Map<number, number[]>();
    const stamp = ++this.query;
    for (let row = this.row(by0); row <= this.row(by1); row++) {
      for (let col = this.col(bx0); col <= this.col(bx1); col++) {
        const cell = row * this.cols + col;
        for (let k = this.cellStart[cell]!; k < this.cellStart[cell + 1]!; k++) {
          const e = this.edges[k]!;
          if (this.stamp[e] === stamp) continue;
          this.stamp[e] = stamp;
          if (Math.max(c[2 * e]!, c[2 * e + 2]!) < bx0 || Math.min(c[2 * e]!, c[2 * e + 2]!) > bx1) continue;
          if (Math.max(c[2 * e + 1]!, c[2 * e + 3]!) < by0 || Math.min(c[2 * e + 1]!, c[2 * e + 3]!) > by1) continue;
          const r = this.ringOf[e]!;
          const list = near.get(r);
          if (list) list.push(e);
          else near.set(r, [e]);
        }
      }
    }
    // Rings no edge of which meets the box hold all of it or none: one ray from its centre says.
    const around = this.ringsAround((bx0 + bx1) / 2, (by0 + by1) / 2);
    const cut = (r: number): Ring[] => {
      const edges = near.get(r);
      if (!edges) return around.has(r) ? [boxRing(box)] : [];
      return this.cutRing(r, box, edges, around.has(r));
    };
    const pieces: Array<{ shell: Ring[]; holes: Ring[] }> = [];
    for (let p = 0; p + 1 < partStart.length; p++) {
      const s = partStart[p]!;
      if (!near.has(s) && !around.has(s)) continue;
      const shell = cut(s);
      if (shell.length === 0) continue;
      const holes: Ring[] = [];
      for (let r = s + 1; r < partStart[p + 1]!; r++) if (near.has(r) || around.has(r)) holes.push(...cut(r));
      pieces.push({ shell, holes });
    }
    return pieces;
  }

  /** The rings that a ray east from (x, y) crosses an odd number of times: those around the point. */
  private ringsAround(x: number, y: number): Set<number> {
    const around = new Set<number>();
    if (x < this.x0 || y < this.y0 || x > this.x0 + this.cellW * this.cols || y > this.y0 + this.cellH * this.rows) return around;
    const c = this.flat.coords;
    const stamp = ++this.query;
    const row = this.row(y);
    for (let col = this.col(x); col < this.cols; col++) {
      const cell = row * this.cols + col;
      for (let k = this.cellStart[cell]!; k < this.cellStart[cell + 1]!; k++) {
        const e = this.edges[k]!;
        if (this.stamp[e] === stamp) continue;
        this.stamp[e] = stamp;
        const ay = c[2 * e + 1]!;
        const by = c[2 * e + 3]!;
        if (ay > y === by > y) continue;
        const o = orientXY(c[2 * e]!, ay, c[2 * e + 2]!, by, x, y);
        if (by > ay ? o > 0 : o < 0) {
          const r = this.ringOf[e]!;
          if (around.has(r)) around.delete(r);
          else around.add(r);
        }
      }
    }
    return around;
  }

  /**
   * Ring r's interior cut to `box` from `near`, its edges meeting the box: each maximal run
   * of consecutive such edges starts and ends outside the box. `centreInside`: the box's
   * centre lies inside the ring (for a ring that only skirts the box).
   */
  private cutRing(r: number, box: BBox, near: number[], centreInside: boolean): Ring[] {
    const { coords: c, ringStart } = this.flat;
    const first = ringStart[r]!;
    const edgeCount = ringStart[r + 1]! - first - 1;
    if (near.length >= edgeCount) return cutRingToBox(c, first, ringStart[r + 1]!, box);
    near.sort((a, b) => a - b);
    // Runs in ring order, starting after a gap (the ring is cyclic).
    let startAt = 0;
    for (let k = 0; k < near.length; k++) {
      const prev = near[(k + near.length - 1) % near.length]!;
      const expected = near[k] === first ? first + edgeCount - 1 : near[k]! - 1;
      if (prev !== expected) {
        startAt = k;
        break;
      }
    }
    const runs = new Runs(box);
    for (let k = 0; k < near.length; k++) {
      const e = near[(startAt + k) % near.length]!;
      runs.edge(c[2 * e]!, c[2 * e + 1]!, c[2 * e + 2]!, c[2 * e + 3]!);
    }
    const chains = runs.done();
    if (chains.length === 0) return centreInside ? [boxRing(box)] : [];
    // Counter-clockwise: a clockwise ring's runs, reversed, are its reverse's runs.
    return joinRuns(this.ccw[r] ? chains : chains.map((chain) => chain.slice().reverse()), box);
  }

  /** The AOI cut to the convex region `hull` (counter-clockwise, closed), zero-width seams along it included; null when nothing is left. */
  clipToConvex(hull: readonly Position[]): AoiGeometry | null {
    return cutFlat(this.flat, this.ringBoxes, bboxOfGeometry({ type: 'Polygon', coordinates: [hull as Ring] }), hull);
  }
}

function multi(rings: Ring[]): AoiGeometry {
  return { type: 'MultiPolygon', coordinates: rings.map((ring) => [ring]) };
}

function bboxOfGeometry(geom: AoiGeometry): BBox {
  let [x0, y0, x1, y1] = [Infinity, Infinity, -Infinity, -Infinity];
  const rings = geom.type === 'Polygon' ? geom.coordinates : geom.coordinates.flat();
  for (const ring of rings) {
    for (const [x, y] of ring) {
      if (x < x0) x0 = x;
      if (x > x1) x1 = x;
      if (y < y0) y0 = y;
      if (y > y1) y1 = y;
    }
  }
  return [x0, y0, x1, y1];
}

/** Convex hull (Andrew's monotone chain), counter-clockwise and closed. */
export function convexHull(points: readonly Position[]): Position[] {
  const sorted = points.slice().sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const half = (list: readonly Position[]): Position[] => {
    const out: Position[] = [];
    for (const p of list) {
      while (out.length >= 2) {
        const a = out[out.length - 2]!;
        const b = out[out.length - 1]!;
        if (orientXY(a[0], a[1], b[0], b[1], p[0], p[1]) > 0) break;
        out.pop();
      }
      out.push(p);
    }
    return out;
  };
  const lower = half(sorted);
  const upper = half(sorted.slice().reverse());
  const hull = lower.slice(0, -1).concat(upper.slice(0, -1));
  hull.push(hull[0]!);
  return hull;
}
