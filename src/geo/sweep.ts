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
// Exact: every decision is an orientation test (predicates.ts).

import { orient, samePosition } from './predicates.ts';
import { StatusTree, type StatusNode } from './status-tree.ts';
import type { Position } from './types.ts';

export interface SweepRing {
  /** Closed, no consecutive repeated positions. */
  positions: readonly Position[];
  /** Counter-clockwise (interior to the left of each edge in ring order). */
  ccw: boolean;
}

/** One edge in ring order: positions[index] → positions[index + 1] of ring `ring`. */
export interface SweepEdge {
  ring: number;
  index: number;
  from: Position;
  to: Position;
}

export interface SweepHooks {
  /** Two edges that may meet; true stops the sweep. */
  pair(s: SweepEdge, t: SweepEdge): boolean;
  /** Rings `a` and `b` cross at `at` (their edges there interleave); true stops the sweep. */
  crossAtPoint(a: number, b: number, at: Position): boolean;
}

interface Seg {
  edge: SweepEdge;
  id: number;
  /** Lexicographically smaller endpoint (x, then y) and the larger one. */
  left: Position;
  right: Position;
  /** Ring order runs left → right. */
  forward: boolean;
  /** The ring's interior lies on the upper (left) side. */
  interiorAbove: boolean;
  node: StatusNode<Seg> | null;
}

interface HalfEdge {
  seg: Seg;
  /** The other end of the half-edge, seen from the current point. */
  to: Position;
  /** The ring's interior begins here, turning counter-clockwise. */
  opens: boolean;
}

function lexCompare(a: Position, b: Position): number {
  return a[0] - b[0] || a[1] - b[1];
}

/** The ring's interior lies on the left of the segment directed left → right. */
export function interiorOnLeft(seg: { forward: boolean }, ring: SweepRing): boolean {
  return seg.forward === ring.ccw;
}

export interface SweepResult {
  stopped: boolean;
  /** Innermost ring enclosing each ring, -1 when none. */
  parent: Int32Array;
}

export function sweepRings(rings: readonly SweepRing[], hooks: SweepHooks): SweepResult {
  const segs: Seg[] = [];
  rings.forEach((ring, r) => {
    const ps = ring.positions;
    for (let i = 0; i + 1 < ps.length; i++) {
      const from = ps[i]!;
      const to = ps[i + 1]!;
      const forward = lexCompare(from, to) < 0;
      const left = forward ? from : to;
      const right = forward ? to : from;
      segs.push({ edge: { ring: r, index: i, from, to }, id: segs.length, left, right, forward, interiorAbove: forward === ring.ccw, node: null });
    }
  });
  const starts = segs.slice().sort((s, t) => lexCompare(s.left, t.left));
  const ends = segs.slice().sort((s, t) => lexCompare(s.right, t.right));
  const parent = new Int32Array(rings.length).fill(-1);
  const seen = new Uint8Array(rings.length);
  // Segments are inserted at their left end p = the current point.
  let p: Position = [0, 0];
  const status = new StatusTree<Seg>((s, t) => goesAbove(s, t, p));
  const result = (stopped: boolean): SweepResult => ({ stopped, parent });
  const pair = (a: Seg | undefined | null, b: Seg | undefined | null): boolean => !!a && !!b && a !== b && hooks.pair(a.edge, b.edge);

  let i = 0;
  let j = 0;
  const S: Seg[] = [];
  const E: Seg[] = [];
  while (i < starts.length || j < ends.length) {
    p =
      i < starts.length && (j >= ends.length || lexCompare(starts[i]!.left, ends[j]!.right) <= 0) ? starts[i]!.left : ends[j]!.right;
    S.length = 0;
    while (i < starts.length && samePosition(starts[i]!.left, p)) S.push(starts[i++]!);
    E.length = 0;
    while (j < ends.length && samePosition(ends[j]!.right, p)) E.push(ends[j++]!);

    // Segments on the line through p: those ending here and those passing through.
    const { run, below, above } = locate(status, p);
    const T = run.length === 0 ? run : run.filter((s) => !samePosition(s.right, p));

    if (analysePoint(p, E, S, T, rings, hooks)) return result(true);

    for (const s of E) {
      status.remove(s.node!);
      s.node = null;
    }
    for (const s of S) s.node = status.insert(s);

    // New neighbours: where segments left (around the block through p) and around each
    // inserted one.
    if (below && pair(below.value, below.next?.value)) return result(true);
    if (above && pair(above.prev?.value, above.value)) return result(true);
    for (const s of S) {
      if (pair(s.node!.prev?.value, s) || pair(s, s.node!.next?.value)) return result(true);
    }

    // A ring's first vertex (lexicographically smallest): both its edges start here. The
    // segment just below the lower one says which ring encloses it.
    if (S.length > 0) {
      // Bottom to top: all of them leave p rightwards or straight up.
      const byAngle = S.slice().sort((s, t) => -orient(p, s.right, t.right) || s.id - t.id);
      for (const s of byAngle) {
        const r = s.edge.ring;
        if (seen[r]) continue;
        seen[r] = 1;
        const under = edgeUnder(s);
        if (!under) continue;
        const u = under.edge.ring;
        parent[r] = interiorOnLeft(under, rings[u]!) ? u : parent[u]!;
      }
    }
  }
  return result(false);
}

/**
 * The edge just below the interior of `s`'s ring along `s`: the top one of the edges of
 * other rings lying on `s` (the tree keeps those in order: see goesAbove), else the edge
 * below `s`.
 */
function edgeUnder(s: Seg): Seg | null {
  const onTop = (t: Seg) => orient(s.left, s.right, t.left) === 0 && orient(s.left, s.right, t.right) === 0;
  let top: StatusNode<Seg> = s.node!;
  while (top.next && onTop(top.next.value)) top = top.next;
  for (let n: StatusNode<Seg> | null = top; n && onTop(n.value); n = n.prev) if (n.value.edge.ring !== s.edge.ring) return n.value;
  let n = s.node!.prev;
  while (n && onTop(n.value)) n = n.prev;
  return n ? n.value : null;
}

/**
 * Whether `s`, starting at p, lies above `t` (on the line) just to the right of p. Edges on
 * top of each other (parts sharing an edge) go with their ring's interior outwards: the
 * edge with the interior below first, so the region above the pair is the upper ring's.
 */
function goesAbove(s: Seg, t: Seg, p: Position): boolean {
  let o = orient(t.left, t.right, p);
  if (o === 0) o = orient(t.left, t.right, s.right);
  if (o !== 0) return o > 0;
  return s.interiorAbove !== t.interiorAbove ? s.interiorAbove : s.id > t.id;
}

/** Status segments containing p (a contiguous run), and the nearest ones below and above it. */
function locate(status: StatusTree<Seg>, p: Position): { run: Seg[]; below: StatusNode<Seg> | null; above: StatusNode<Seg> | null } {
  let node = status.root;
  let below: StatusNode<Seg> | null = null;
  let above: StatusNode<Seg> | null = null;
  while (node) {
    const o = orient(node.value.left, node.value.right, p);
    if (o > 0) {
      below = node;
      node = node.right;
    } else if (o < 0) {
      above = node;
      node = node.left;
    } else break;
  }
  if (!node) return { run: [], below, above };
  let lo = node;
  while (lo.prev && orient(lo.prev.value.left, lo.prev.value.right, p) === 0) lo = lo.prev;
  let hi = node;
  while (hi.next && orient(hi.next.value.left, hi.next.value.right, p) === 0) hi = hi.next;
  const run: Seg[] = [];
  for (let n: StatusNode<Seg> | null = lo; n; n = n === hi ? null : n.next) run.push(n.value);
  return { run, below: lo.prev, above: hi.next };
}

/** Counter-clockwise order of directions p→a and p→b, starting at east (inclusive). */
function angleCompare(p: Position, a: Position, b: Position): number {
  const ha = a[1] > p[1] || (a[1] === p[1] && a[0] > p[0]) ? 0 : 1;
  const hb = b[1] > p[1] || (b[1] === p[1] && b[0] > p[0]) ? 0 : 1;
  if (ha !== hb) return ha - hb;
  return -orient(p, a, b);
}

/**
 * Everything that meets at p: edges of one ring visiting p twice, edges on top of each
 * other, edges crossing at p, and rings crossing each other at p.
 */
function analysePoint(p: Position, E: Seg[], S: Seg[], T: Seg[], rings: readonly SweepRing[], hooks: SweepHooks): boolean {
  if (E.length + S.length + T.length < 2) return false;
  // The common case: one ring passes p once, at a vertex.
  if (T.length === 0 && E.length + S.length === 2) {
    const [a, b] = E.length === 2 ? E : S.length === 2 ? S : [E[0]!, S[0]!];
    return hooks.pair(a!.edge, b!.edge);
  }
  const halves: HalfEdge[] = [];
  const add = (seg: Seg, to: Position) => {
    const forward = to === seg.edge.to;
    halves.push({ seg, to, opens: forward === rings[seg.edge.ring]!.ccw });
  };
  for (const s of E) add(s, s.left);
  for (const s of S) add(s, s.right);
  for (const s of T) {
    add(s, s.left);
    add(s, s.right);
  }

  // A ring through p more than once touches itself: its edges here are judged in pairs.
  const perRing = new Map<number, { segs: Seg[]; halves: number }>();
  for (const h of halves) {
    const entry = perRing.get(h.seg.edge.ring);
    if (!entry) perRing.set(h.seg.edge.ring, { segs: [h.seg], halves: 1 });
    else {
      entry.halves++;
      if (entry.segs[entry.segs.length - 1] !== h.seg) entry.segs.push(h.seg); // a T adds its two halves in a row
    }
  }
  for (const { segs: list, halves: count } of perRing.values()) {
    if (count <= 2) continue;
    for (let a = 0; a < list.length; a++) {
      for (let b = a + 1; b < list.length; b++) if (hooks.pair(list[a]!.edge, list[b]!.edge)) return true;
    }
  }
  if (halves.length < 3) return hooks.pair(halves[0]!.seg.edge, halves[1]!.seg.edge);

  // Around p counter-clockwise; on one direction (edges on top of each other) a ring whose
  // interior ends there comes before one whose interior begins, so rings that only touch
  // along an edge nest properly below.
  halves.sort(
    (a, b) =>
      angleCompare(p, a.to, b.to) ||
      (a.opens === b.opens ? (a.opens ? 1 : -1) * (a.seg.edge.ring - b.seg.edge.ring) : a.opens ? 1 : -1),
  );
  for (let k = 0; k < halves.length; k++) {
    const a = halves[k]!.seg;
    const b = halves[(k + 1) % halves.length]!.seg;
    if (a !== b && hooks.pair(a.edge, b.edge)) return true;
  }

  // Rings crossing at p: reading the rings around p must nest like brackets.
  if (perRing.size < 2) return false;
  const stack: number[] = [];
  const open = new Set<number>();
  for (const h of halves) {
    const r = h.seg.edge.ring;
    if (!open.has(r)) {
      open.add(r);
      stack.push(r);
      continue;
    }
    const top = stack[stack.length - 1]!;
    if (top !== r && hooks.crossAtPoint(Math.min(r, top), Math.max(r, top), p)) return true;
    stack.splice(stack.lastIndexOf(r), 1);
    open.delete(r);
  }
  return false;
}
