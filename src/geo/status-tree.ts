// The sweep line's status: the segments the line currently crosses, in order from bottom to
// top. A treap (randomised balanced search tree, O(log n) expected per operation) over
// integer ids, its links in typed arrays (no node objects to allocate or collect), threaded
// into a doubly linked list so neighbours are O(1) and an id is removed without a
// comparison to find it again, which keeps removal exact even where segments meet.

/** No node: the end of a list, an empty child, an empty tree. */
export const NONE = -1;

export class StatusTree {
  root = NONE;
  readonly left: Int32Array;
  readonly right: Int32Array;
  readonly parent: Int32Array;
  /** The neighbour below (before) and above (after) each id in the order. */
  readonly prev: Int32Array;
  readonly next: Int32Array;
  private readonly priority: Uint32Array;
  private seed = 0x9e3779b9;

  /**
   * Ids are 0 … capacity − 1. `above(id, other)`: whether `id` goes above (after) `other`
   * in the order.
   */
  constructor(
    capacity: number,
    private readonly above: (id: number, other: number) => boolean,
  ) {
    this.left = new Int32Array(capacity).fill(NONE);
    this.right = new Int32Array(capacity).fill(NONE);
    this.parent = new Int32Array(capacity).fill(NONE);
    this.prev = new Int32Array(capacity).fill(NONE);
    this.next = new Int32Array(capacity).fill(NONE);
    this.priority = new Uint32Array(capacity);
  }

  /** xorshift32: deterministic priorities, so a run is reproducible. */
  private random(): number {
    let x = this.seed;
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    this.seed = x >>> 0;
    return this.seed;
  }

  /** Inserts `id` (not in the tree) where `above` places it. */
  insert(id: number): void {
    const { left, right, parent, prev, next, priority } = this;
    priority[id] = this.random();
    left[id] = right[id] = parent[id] = prev[id] = next[id] = NONE;
    if (this.root === NONE) {
      this.root = id;
      return;
    }
    let at = this.root;
    for (;;) {
      if (this.above(id, at)) {
        if (right[at] === NONE) {
          right[at] = id;
          prev[id] = at;
          next[id] = next[at]!;
          break;
        }
        at = right[at]!;
      } else {
        if (left[at] === NONE) {
          left[at] = id;
          next[id] = at;
          prev[id] = prev[at]!;
          break;
        }
        at = left[at]!;
      }
    }
    parent[id] = at;
    if (prev[id] !== NONE) next[prev[id]!] = id;
    if (next[id] !== NONE) prev[next[id]!] = id;
    while (parent[id] !== NONE && priority[parent[id]!]! < priority[id]!) this.rotateUp(id);
  }

  /** Removes `id`, which is in the tree. */
  remove(id: number): void {
    const { left, right, parent, prev, next, priority } = this;
    while (left[id] !== NONE || right[id] !== NONE) {
      const l = left[id]!;
      const r = right[id]!;
      this.rotateUp(l === NONE ? r : r === NONE ? l : priority[l]! > priority[r]! ? l : r);
    }
    const p = parent[id]!;
    if (p === NONE) this.root = NONE;
    else if (left[p] === id) left[p] = NONE;
    else right[p] = NONE;
    if (prev[id] !== NONE) next[prev[id]!] = next[id]!;
    if (next[id] !== NONE) prev[next[id]!] = prev[id]!;
    parent[id] = prev[id] = next[id] = NONE;
  }

  private rotateUp(x: number): void {
    const { left, right, parent } = this;
    const p = parent[x]!;
    const g = parent[p]!;
    if (left[p] === x) {
      left[p] = right[x]!;
      if (right[x] !== NONE) parent[right[x]!] = p;
      right[x] = p;
    } else {
      right[p] = left[x]!;
      if (left[x] !== NONE) parent[left[x]!] = p;
      left[x] = p;
    }
    parent[p] = x;
    parent[x] = g;
    if (g === NONE) this.root = x;
    else if (left[g] === p) left[g] = x;
    else right[g] = x;
  }
}
