// A plane sweep over the edges of a set of rings (Shamos & Hoey 1976, with the care for
// shared points that polygon validity needs), O(n log n) for n edges whatever the shape:
// only edges that are neighbours on the sweep line, or that meet at one point, are ever
// compared. It finds
//   - pairs of edges that may meet (neighbours on the line, and edges through a common
//     point): `pair` judges them and may stop the sweep;
//   - rings whose boundaries cross at a shared point without any edge crossing the other
//     (they interleave around the point): `crossAtPoint`;
//   - the ring directly enclosing each ring (`parent`, -1 for none), read off the edge
//     below a ring's first vertex. Meaningful when no boundaries cross.
// Exact: every decision is an orientation test (predicates.ts). Vertices and edges are
// integers into flat arrays (flat.ts): a 100,000-edge ring allocates a few typed arrays,
// not an object per edge and per tree node.

import { orientXY } from './predicates.ts';
import { NONE, StatusTree } from './status-tree.ts';

/**
 * Rings as flat arrays. Vertex v is (coords[2v], coords[2v + 1]); ring r holds vertices
 * ringStart[r] … ringStart[r + 1] − 1, closed (last = first) with no consecutive repeated
 * positions. Edge e runs from vertex e to vertex e + 1, for every vertex but a ring's last.
 */
export interface SweepInput {
  coords: Float64Array;
  ringStart: Int32Array;
  /** Ring of each vertex (ringOfVertices). */
  ringOf: Int32Array;
  /** 1 when the ring is counter-clockwise (interior to the left of each edge in ring order). */
  ccw: Uint8Array;
}

export interface SweepHooks {
  /** Edges `s` and `t` may meet; true stops the sweep. */
  pair(s: number, t: number): boolean;
  /** Rings `a` < `b` cross at a shared point (their edges there interleave); true stops the sweep. */
  crossAtPoint(a: number, b: number): boolean;
}

export interface SweepResult {
  stopped: boolean;
  /** Innermost ring enclosing each ring, -1 when none. */
  parent: Int32Array;
}

export function ringOfVertices(ringStart: Int32Array): Int32Array {
  const rings = ringStart.length - 1;
  const ringOf = new Int32Array(ringStart[rings]!);
  for (let r = 0; r < rings; r++) ringOf.fill(r, ringStart[r]!, ringStart[r + 1]!);
  return ringOf;
}

/** The ring's interior lies on the left of the edge directed from its lexicographically smaller end. */
export function interiorOnLeft(forward: boolean, ccw: boolean): boolean {
  return forward === ccw;
}

/** Edge e runs lexicographically left → right (x, then y) in ring order. */
export function edgeForward(coords: Float64Array, e: number): boolean {
  const dx = coords[2 * e]! - coords[2 * e + 2]!;
  return dx < 0 || (dx === 0 && coords[2 * e + 1]! < coords[2 * e + 3]!);
}

interface HalfEdge {
  seg: number;
  /** The other end of the half-edge, seen from the current point. */
  to: number;
  /** The ring's interior begins here, turning counter-clockwise. */
  opens: boolean;
}

export function sweepRings(input: SweepInput, hooks: SweepHooks): SweepResult {
  return new Sweep(input, hooks).run();
}

class Sweep {
  private readonly c: Float64Array;
  private readonly ringOf: Int32Array;
  private readonly ringStart: Int32Array;
  private readonly ccw: Uint8Array;
  /** Per edge: its lexicographically smaller and larger end (vertex ids). */
  private readonly L: Int32Array;
  private readonly R: Int32Array;
  /** The ring's interior lies on the upper (left) side. */
  private readonly interiorAbove: Uint8Array;
  private readonly status: StatusTree;
  /** The current event point (a vertex id). */
  private p = 0;
  // At each event: the edges starting (S) and ending (E) at p, and those passing through
  // it (T); scratch arrays reused throughout, with their lengths.
  private readonly S: Int32Array;
  private readonly E: Int32Array;
  private readonly T: Int32Array;
  private nS = 0;
  private nE = 0;
  private nT = 0;
  private below = NONE;
  private above = NONE;

  constructor(
    input: SweepInput,
    private readonly hooks: SweepHooks,
  ) {
    this.c = input.coords;
    this.ringOf = input.ringOf;
    this.ringStart = input.ringStart;
    this.ccw = input.ccw;
    const vertices = input.ringOf.length;
    this.L = new Int32Array(vertices);
    this.R = new Int32Array(vertices);
    this.interiorAbove = new Uint8Array(vertices);
    const rings = input.ringStart.length - 1;
    for (let r = 0; r < rings; r++) {
      for (let e = input.ringStart[r]!; e + 1 < input.ringStart[r + 1]!; e++) {
        const fwd = edgeForward(this.c, e);
        this.L[e] = fwd ? e : e + 1;
        this.R[e] = fwd ? e + 1 : e;
        this.interiorAbove[e] = fwd === (input.ccw[r] === 1) ? 1 : 0;
      }
    }
    this.S = new Int32Array(vertices);
    this.E = new Int32Array(vertices);
    this.T = new Int32Array(vertices);
    this.status = new StatusTree(vertices, (s, t) => this.goesAbove(s, t));
  }

  private isEdge(e: number): boolean {
    return e >= 0 && e + 1 < this.ringOf.length && this.ringOf[e] === this.ringOf[e + 1];
  }

  /**
   * Edges in the order of one end (`ends` = L: left ends; R: right ends), lexicographically,
   * ties by edge id: read off the vertices sorted once. Vertices at one position come in id
   * order, and so do the edges they are an end of (an edge joins two distinct positions).
   */
  private edgesByEnd(byPosition: Int32Array, ends: Int32Array): Int32Array {
    const order = new Int32Array(byPosition.length);
    let k = 0;
    for (let i = 0; i < byPosition.length; i++) {
      const v = byPosition[i]!;
      if (this.isEdge(v - 1) && ends[v - 1] === v) order[k++] = v - 1;
      if (this.isEdge(v) && ends[v] === v) order[k++] = v;
    }
    return order.subarray(0, k);
  }

  private x(v: number): number {
    return this.c[2 * v]!;
  }

  private y(v: number): number {
    return this.c[2 * v + 1]!;
  }

  private lex(a: number, b: number): number {
    return this.c[2 * a]! - this.c[2 * b]! || this.c[2 * a + 1]! - this.c[2 * b + 1]!;
  }

  private same(a: number, b: number): boolean {
    return this.c[2 * a] === this.c[2 * b] && this.c[2 * a + 1] === this.c[2 * b + 1];
  }

  /** Sign of the turn a → b → q (vertex ids): 1 counter-clockwise, -1 clockwise, 0 collinear. */
  private orient(a: number, b: number, q: number): number {
    const c = this.c;
    return orientXY(c[2 * a]!, c[2 * a + 1]!, c[2 * b]!, c[2 * b + 1]!, c[2 * q]!, c[2 * q + 1]!);
  }

  private pair(a: number, b: number): boolean {
    return a !== NONE && b !== NONE && a !== b && this.hooks.pair(a, b);
  }

  run(): SweepResult {
    const { L, R, S, E, T, status } = this;
    const vertices = this.ringOf.length;
    const byPosition = new Int32Array(vertices);
    for (let v = 0; v < vertices; v++) byPosition[v] = v;
    byPosition.sort((a, b) => this.lex(a, b) || a - b);
    const starts = this.edgesByEnd(byPosition, L);
    const ends = this.edgesByEnd(byPosition, R);
    const rings = this.ringStart.length - 1;
    const parent = new Int32Array(rings).fill(-1);
    const seen = new Uint8Array(rings);
    const n = starts.length;
    const result = (stopped: boolean): SweepResult => ({ stopped, parent });

    let i = 0;
    let j = 0;
    while (i < n || j < n) {
      const p = (this.p = i < n && (j >= n || this.lex(L[starts[i]!]!, R[ends[j]!]!) <= 0) ? L[starts[i]!]! : R[ends[j]!]!);
      let nS = 0;
      while (i < n && this.same(L[starts[i]!]!, p)) S[nS++] = starts[i++]!;
      let nE = 0;
      while (j < n && this.same(R[ends[j]!]!, p)) E[nE++] = ends[j++]!;
      this.nS = nS;
      this.nE = nE;

      // Segments on the line through p: those ending here and those passing through.
      this.locate(p);
      if (this.nT + nS + nE >= 2 && this.analysePoint(p)) return result(true);

      for (let k = 0; k < nE; k++) status.remove(E[k]!);
      for (let k = 0; k < nS; k++) status.insert(S[k]!);

      // New neighbours: where segments left (around the block through p) and around each
      // inserted one.
      const { below, above } = this;
      if (below !== NONE && this.pair(below, status.next[below]!)) return result(true);
      if (above !== NONE && this.pair(status.prev[above]!, above)) return result(true);
      for (let k = 0; k < nS; k++) {
        const s = S[k]!;
        if (this.pair(status.prev[s]!, s) || this.pair(s, status.next[s]!)) return result(true);
      }

      // A ring's first vertex (lexicographically smallest): both its edges start here. The
      // segment just below the lower one says which ring encloses it.
      let unseen = false;
      for (let k = 0; k < nS; k++) if (!seen[this.ringOf[S[k]!]!]) unseen = true;
      if (unseen) {
        // Bottom to top: all of them leave p rightwards or straight up.
        const byAngle = Array.from(S.subarray(0, nS)).sort((s, t) => -this.orient(p, R[s]!, R[t]!) || s - t);
        for (const s of byAngle) {
          const r = this.ringOf[s]!;
          if (seen[r]) continue;
          seen[r] = 1;
          const under = this.edgeUnder(s);
          if (under === NONE) continue;
          const u = this.ringOf[under]!;
          parent[r] = this.interiorAbove[under] ? u : parent[u]!;
        }
      }
    }
    return result(false);
  }

  /** t lies on the line through s, both ends. */
  private onTop(s: number, t: number): boolean {
    const { L, R } = this;
    return this.orient(L[s]!, R[s]!, L[t]!) === 0 && this.orient(L[s]!, R[s]!, R[t]!) === 0;
  }

  /**
   * The edge just below the interior of `s`'s ring along `s`: the top one of the edges of
   * other rings lying on `s` (the tree keeps those in order: see goesAbove), else the edge
   * below `s`.
   */
  private edgeUnder(s: number): number {
    const { prev, next } = this.status;
    let top = s;
    while (next[top] !== NONE && this.onTop(s, next[top]!)) top = next[top]!;
    for (let n = top; n !== NONE && this.onTop(s, n); n = prev[n]!) if (this.ringOf[n] !== this.ringOf[s]) return n;
    let n = prev[s]!;
    while (n !== NONE && this.onTop(s, n)) n = prev[n]!;
    return n;
  }

  /**
   * Whether `s`, starting at p, lies above `t` (on the line) just to the right of p. Edges on
   * top of each other (parts sharing an edge) go with their ring's interior outwards: the
   * edge with the interior below first, so the region above the pair is the upper ring's.
   */
  private goesAbove(s: number, t: number): boolean {
    const { L, R } = this;
    let o = this.orient(L[t]!, R[t]!, this.p);
    if (o === 0) o = this.orient(L[t]!, R[t]!, R[s]!);
    if (o !== 0) return o > 0;
    return this.interiorAbove[s] !== this.interiorAbove[t] ? this.interiorAbove[s] === 1 : s > t;
  }

  /**
   * The status segments containing p that go on past it (T), and the nearest ones below
   * and above all those containing p (a contiguous run).
   */
  private locate(p: number): void {
    const { L, R, T } = this;
    const { left, right, prev, next } = this.status;
    let node = this.status.root;
    let below = NONE;
    let above = NONE;
    while (node !== NONE) {
      const o = this.orient(L[node]!, R[node]!, p);
      if (o > 0) {
        below = node;
        node = right[node]!;
      } else if (o < 0) {
        above = node;
        node = left[node]!;
      } else break;
    }
    this.nT = 0;
    if (node === NONE) {
      this.below = below;
      this.above = above;
      return;
    }
    let lo = node;
    while (prev[lo] !== NONE && this.orient(L[prev[lo]!]!, R[prev[lo]!]!, p) === 0) lo = prev[lo]!;
    let hi = node;
    while (next[hi] !== NONE && this.orient(L[next[hi]!]!, R[next[hi]!]!, p) === 0) hi = next[hi]!;
    let nT = 0;
    for (let n = lo; n !== NONE; n = n === hi ? NONE : next[n]!) if (!this.same(R[n]!, p)) T[nT++] = n;
    this.nT = nT;
    this.below = prev[lo]!;
    this.above = next[hi]!;
  }

  /** Counter-clockwise order of directions p→a and p→b, starting at east (inclusive). */
  private angleCompare(p: number, a: number, b: number): number {
    const px = this.x(p);
    const py = this.y(p);
    const ha = this.y(a) > py || (this.y(a) === py && this.x(a) > px) ? 0 : 1;
    const hb = this.y(b) > py || (this.y(b) === py && this.x(b) > px) ? 0 : 1;
    if (ha !== hb) return ha - hb;
    return -this.orient(p, a, b);
  }

  /**
   * Everything that meets at p: edges of one ring visiting p twice, edges on top of each
   * other, edges crossing at p, and rings crossing each other at p.
   */
  private analysePoint(p: number): boolean {
    const { L, R, hooks, nS, nE, nT } = this;
    // The common case: one ring passes p once, at a vertex.
    if (nT === 0 && nE + nS === 2) {
      const { S, E } = this;
      return nE === 2 ? hooks.pair(E[0]!, E[1]!) : nS === 2 ? hooks.pair(S[0]!, S[1]!) : hooks.pair(E[0]!, S[0]!);
    }
    const S = this.S.subarray(0, nS);
    const E = this.E.subarray(0, nE);
    const T = this.T.subarray(0, nT);
    const halves: HalfEdge[] = [];
    const add = (seg: number, to: number) => {
      const forward = to === seg + 1;
      halves.push({ seg, to, opens: forward === (this.ccw[this.ringOf[seg]!] === 1) });
    };
    for (const s of E) add(s, L[s]!);
    for (const s of S) add(s, R[s]!);
    for (const s of T) {
      add(s, L[s]!);
      add(s, R[s]!);
    }

    // A ring through p more than once touches itself: its edges here are judged in pairs.
    const perRing = new Map<number, { segs: number[]; halves: number }>();
    for (const h of halves) {
      const entry = perRing.get(this.ringOf[h.seg]!);
      if (!entry) perRing.set(this.ringOf[h.seg]!, { segs: [h.seg], halves: 1 });
      else {
        entry.halves++;
        if (entry.segs[entry.segs.length - 1] !== h.seg) entry.segs.push(h.seg); // a T adds its two halves in a row
      }
    }
    for (const { segs: list, halves: count } of perRing.values()) {
      if (count <= 2) continue;
      for (let a = 0; a < list.length; a++) {
        for (let b = a + 1; b < list.length; b++) if (hooks.pair(list[a]!, list[b]!)) return true;
      }
    }
    if (halves.length < 3) return hooks.pair(halves[0]!.seg, halves[1]!.seg);

    // Around p counter-clockwise; on one direction (edges on top of each other) a ring whose
    // interior ends there comes before one whose interior begins, so rings that only touch
    // along an edge nest properly below.
    const ringOf = this.ringOf;
    halves.sort(
      (a, b) =>
        this.angleCompare(p, a.to, b.to) ||
        (a.opens === b.opens ? (a.opens ? 1 : -1) * (ringOf[a.seg]! - ringOf[b.seg]!) : a.opens ? 1 : -1),
    );
    for (let k = 0; k < halves.length; k++) {
      const a = halves[k]!.seg;
      const b = halves[(k + 1) % halves.length]!.seg;
      if (a !== b && hooks.pair(a, b)) return true;
    }

    // Rings crossing at p: reading the rings around p must nest like brackets.
    if (perRing.size < 2) return false;
    const stack: number[] = [];
    const open = new Set<number>();
    for (const h of halves) {
      const r = ringOf[h.seg]!;
      if (!open.has(r)) {
        open.add(r);
        stack.push(r);
        continue;
      }
      const top = stack[stack.length - 1]!;
      if (top !== r && hooks.crossAtPoint(Math.min(r, top), Math.max(r, top))) return true;
      stack.splice(stack.lastIndexOf(r), 1);
      open.delete(r);
    }
    return false;
  }
}
