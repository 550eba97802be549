// Robust sea level for the candidate stage (issue 23 §1): the median σ0 of the target pixels in
// blocks, and per block the median of its 3 × 3 neighbourhood of block medians. Unlike the
// CFAR ring's mean, a median is not raised by ships moored side by side or bright quays covering
// less than half of the neighbourhood, which is what hides harbour vessels from the ring CFAR.
// Pure, on typed arrays. Imports nothing.

export interface SeaLevel {
  block: number;
  rows: number;
  cols: number;
  /** Per block: median of the 3 × 3 block medians around it (NaN where no target pixel). */
  level: Float32Array;
}

/**
 * The median of a[0 … n−1] as the typed sort gives it (NaN sorted last, −0 before +0; with n
 * even, the mean of the two middle values), by selection instead of the sort: linear time, and
 * the same value bit for bit — the middle elements are the same numbers. Reorders a[0 … n−1].
 */
export function median(a: Float32Array, n: number): number {
  if (n === 0) return Number.NaN;
  // NaN to the end, as the sort puts it; m values remain.
  let m = n;
  for (let i = 0; i < m; ) {
    if (a[i] !== a[i]) {
      m--;
      const t = a[i]!;
      a[i] = a[m]!;
      a[m] = t;
    } else i++;
  }
  const k = n >> 1;
  if (k >= m) return Number.NaN;
  const upper = select(a, m, k);
  if (n % 2 === 1) return upper === 0 ? sortedMedian(a, n) : upper;
  // After the selection a[0 … k−1] ≤ a[k]: the lower middle value is their largest.
  let lower = a[0]!;
  for (let i = 1; i < k; i++) if (a[i]! > lower) lower = a[i]!;
  // A zero may be −0 or +0, which the sort orders and a comparison does not: the sort decides.
  return upper === 0 || lower === 0 ? sortedMedian(a, n) : 0.5 * (lower + upper);
}

function sortedMedian(a: Float32Array, n: number): number {
  const s = a.subarray(0, n).sort();
  return n % 2 ? s[n >> 1]! : 0.5 * (s[(n >> 1) - 1]! + s[n >> 1]!);
}

/** The k-th smallest of a[0 … n−1] (no NaN), partitioning in place: a[0 … k−1] ≤ it ≤ a[k+1 … n−1]. */
function select(a: Float32Array, n: number, k: number): number {
  let lo = 0;
  let hi = n - 1;
  while (hi > lo) {
    // Median of three as the pivot, then a three-way partition (< pivot, = pivot, > pivot).
    const mid = (lo + hi) >>> 1;
    const x = a[lo]!;
    const y = a[mid]!;
    const z = a[hi]!;
    const pivot = x < y ? (y < z ? y : x < z ? z : x) : x < z ? x : y < z ? z : y;
    let lt = lo;
    let gt = hi;
    let i = lo;
    while (i <= gt) {
      const v = a[i]!;
      if (v < pivot) {
        a[i++] = a[lt]!;
        a[lt++] = v;
      } else if (v > pivot) {
        a[i] = a[gt]!;
        a[gt--] = v;
      } else i++;
    }
    if (k < lt) hi = lt - 1;
    else if (k > gt) lo = gt + 1;
    else return pivot;
  }
  return a[k]!;
}

export function seaLevel(values: Float32Array, target: Uint8Array, width: number, height: number, block: number): SeaLevel {
  const rows = Math.ceil(height / block);
  const cols = Math.ceil(width / block);
  const med = new Float32Array(rows * cols);
  const buf = new Float32Array(block * block);
  for (let br = 0; br < rows; br++) {
    const r1 = Math.min(height, (br + 1) * block);
    for (let bc = 0; bc < cols; bc++) {
      let n = 0;
      const c0 = bc * block;
      const c1 = Math.min(width, c0 + block);
      for (let r = br * block; r < r1; r++)
        for (let p = r * width + c0, end = r * width + c1; p < end; p++) if (target[p] !== 0) buf[n++] = values[p]!;
      med[br * cols + bc] = median(buf, n);
    }
  }
  const level = new Float32Array(rows * cols);
  const nine = new Float32Array(9);
  for (let br = 0; br < rows; br++)
    for (let bc = 0; bc < cols; bc++) {
      let n = 0;
      for (let r = Math.max(0, br - 1); r <= Math.min(rows - 1, br + 1); r++)
        for (let c = Math.max(0, bc - 1); c <= Math.min(cols - 1, bc + 1); c++) {
          const v = med[r * cols + c]!;
          if (!Number.isNaN(v)) nine[n++] = v;
        }
      level[br * cols + bc] = median(nine, n);
    }
  return { block, rows, cols, level };
}

export function levelAt(s: SeaLevel, row: number, col: number): number {
  return s.level[Math.floor(row / s.block) * s.cols + Math.floor(col / s.block)]!;
}

/**
 * Marks the pixels ≥ `detectFactor` × the sea level as detected (mask 2) and those ≥
 * `extentFactor` × it as extent (mask ≥ 1), target pixels only, on top of `mask`; returns the
 * newly detected pixels (seeds for the clustering).
 */
export function markAboveSeaLevel(values: Float32Array, target: Uint8Array, width: number, height: number, s: SeaLevel, detectFactor: number, extentFactor: number, mask: Uint8Array): number[] {
  const seeds: number[] = [];
  for (let r = 0; r < height; r++) {
    const base = Math.floor(r / s.block) * s.cols;
    // Block by block along the row: one level per span.
    for (let bc = 0, c0 = 0; c0 < width; bc++, c0 += s.block) {
      const lv = s.level[base + bc]!;
      if (!(lv > 0)) continue;
      const hi = detectFactor * lv;
      const lo = extentFactor * lv;
      for (let p = r * width + c0, end = r * width + Math.min(width, c0 + s.block); p < end; p++) {
        if (target[p] === 0) continue;
        const v = values[p]!;
        if (v >= hi) {
          if (mask[p] !== 2) seeds.push(p);
          mask[p] = 2;
        } else if (v >= lo && mask[p] === 0) mask[p] = 1;
      }
    }
  }
  return seeds;
}
