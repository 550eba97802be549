// The sweep line's status: the segments the line currently crosses, in order from bottom to
// top. A treap (randomised balanced search tree, O(log n) expected per operation) whose
// nodes are also threaded into a doubly linked list, so neighbours are O(1) and a node is
// removed by its handle — no comparison is needed to find it again, which keeps removal
// exact even where segments meet.

export interface StatusNode<T> {
  readonly value: T;
  left: StatusNode<T> | null;
  right: StatusNode<T> | null;
  parent: StatusNode<T> | null;
  prev: StatusNode<T> | null;
  next: StatusNode<T> | null;
  readonly priority: number;
}

export class StatusTree<T> {
  root: StatusNode<T> | null = null;
  private seed = 0x9e3779b9;

  /** xorshift32: deterministic priorities, so a run is reproducible. */
  private random(): number {
    let x = this.seed;
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    this.seed = x >>> 0;
    return this.seed;
  }

  /** `above(value, other)`: whether `value` goes above (after) `other` in the order. */
  constructor(private readonly above: (value: T, other: T) => boolean) {}

  /** Inserts `value` where `above` places it. Returns the new node. */
  insert(value: T): StatusNode<T> {
    const node: StatusNode<T> = { value, left: null, right: null, parent: null, prev: null, next: null, priority: this.random() };
    if (!this.root) {
      this.root = node;
      return node;
    }
    let at = this.root;
    for (;;) {
      if (this.above(value, at.value)) {
        if (!at.right) {
          at.right = node;
          node.prev = at;
          node.next = at.next;
          break;
        }
        at = at.right;
      } else {
        if (!at.left) {
          at.left = node;
          node.next = at;
          node.prev = at.prev;
          break;
        }
        at = at.left;
      }
    }
    node.parent = at;
    if (node.prev) node.prev.next = node;
    if (node.next) node.next.prev = node;
    while (node.parent && node.parent.priority < node.priority) this.rotateUp(node);
    return node;
  }

  remove(node: StatusNode<T>): void {
    while (node.left || node.right) {
      const child = !node.left ? node.right! : !node.right ? node.left : node.left.priority > node.right.priority ? node.left : node.right;
      this.rotateUp(child);
    }
    const parent = node.parent;
    if (!parent) this.root = null;
    else if (parent.left === node) parent.left = null;
    else parent.right = null;
    if (node.prev) node.prev.next = node.next;
    if (node.next) node.next.prev = node.prev;
    node.parent = node.prev = node.next = null;
  }

  private rotateUp(x: StatusNode<T>): void {
    const p = x.parent!;
    const g = p.parent;
    if (p.left === x) {
      p.left = x.right;
      if (x.right) x.right.parent = p;
      x.right = p;
    } else {
      p.right = x.left;
      if (x.left) x.left.parent = p;
      x.left = p;
    }
    p.parent = x;
    x.parent = g;
    if (!g) this.root = x;
    else if (g.left === p) g.left = x;
    else g.right = x;
  }
}
